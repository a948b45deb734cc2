#!/usr/bin/python3
"""FedAvg in plain PyTorch on Fashion-MNIST, with FLCE's contributions from its own trace.

Each round, K of n clients train the global model on their data for one epoch; each then
computes one prototype per class (the mean feature of its samples that the trained model
classifies right: eq:method.z, flce.prototypes) and the server averages the models by data
size (FedAvg). The prototypes go into a trace (flce.TraceWriter); at the end flce.evaluate
gives each client's FLCE contribution, the same bits `flce eval` would give on that trace.

  PYTHONPATH=python python3 examples/pytorch_fedavg_flce.py [--rounds 10] [--clients 10]
      [--per-round 4] [--dirichlet 0.5] [--train-subset 6000] [--test-subset 2000] [--seed 1]
      [--data /usr/share/datasets/fashion-mnist] [--out runs/example]

The flags have `flce run`'s names and meanings (--train-subset and --test-subset: seeded
stratified subsets; --dirichlet: the label skew delta); the partition and the training are this
script's own, not `flce run`'s, so its numbers are not a run's. Each round prints the global
model's accuracy on the --test-subset test images (Fashion-MNIST's t10k set, never trained on).

Needs Debian's python3-torch and python3-numpy, and build/libflce.so (scripts/setup.sh).
"""
import argparse
import gzip
import os
import struct
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import flce  # noqa: E402


def read_idx(path):
    with gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    shape = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    return np.frombuffer(data, np.uint8, offset=4 + 4 * ndim).reshape(shape)


def load_fmnist(folder, split):
    """split: "train" or "t10k" (the test set)."""
    def find(stem):
        for name in (stem + "-ubyte.gz", stem + "-ubyte", stem + ".gz", stem):
            if os.path.exists(os.path.join(folder, name)):
                return os.path.join(folder, name)
        raise SystemExit("no %s in %s (Debian: apt install dataset-fashion-mnist)" % (stem, folder))
    x = read_idx(find(split + "-images-idx3")).astype(np.float32) / 255.0
    y = read_idx(find(split + "-labels-idx1")).astype(np.int64)
    return x[:, None], y


def stratified(y, count, rng):
    """A seeded subset of `count` indices with every class in its share of y (all of y when count is 0)."""
    if count <= 0 or count >= len(y):
        return np.arange(len(y))
    classes = np.unique(y)
    take = [np.flatnonzero(y == c) for c in classes]
    want = np.floor(np.array([len(t) for t in take]) * count / len(y)).astype(int)
    want[np.argsort(-np.array([len(t) for t in take]))[:count - want.sum()]] += 1  # the remainder, largest classes first
    return np.sort(np.concatenate([rng.permutation(t)[:w] for t, w in zip(take, want)]))


class Net(nn.Module):
    """A small CNN: two convolutions, a 64-dimensional feature (the prototypes' space), a classifier."""

    def __init__(self, classes=10, dim=64):
        super().__init__()
        self.c1, self.c2 = nn.Conv2d(1, 16, 3, padding=1), nn.Conv2d(16, 32, 3, padding=1)
        self.fc, self.out = nn.Linear(32 * 7 * 7, dim), nn.Linear(dim, classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        z = F.relu(self.fc(x.flatten(1)))
        return self.out(z), z


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--clients", type=int, default=10)
    ap.add_argument("--per-round", type=int, default=4)
    ap.add_argument("--dirichlet", type=float, default=0.5, help="Dirichlet label skew delta of the partition (default 0.5)")
    ap.add_argument("--train-subset", type=int, default=6000, help="seeded stratified training subset (default 6000; 0: all)")
    ap.add_argument("--test-subset", type=int, default=2000, help="seeded stratified test subset the accuracy is measured on (default 2000; 0: all)")
    ap.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--out", default="runs/example")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    rng = np.random.default_rng(a.seed)
    x, y = load_fmnist(a.data, "train")
    keep = stratified(y, a.train_subset, rng)
    x, y = torch.from_numpy(x[keep]), torch.from_numpy(y[keep])
    xt, yt = load_fmnist(a.data, "t10k")
    keep = stratified(yt, a.test_subset, rng)
    xt, yt = torch.from_numpy(xt[keep]), torch.from_numpy(yt[keep])
    C, n = 10, a.clients
    # label-skewed partition: each class split over the clients by a Dirichlet draw
    owner = np.empty(len(y), np.int64)
    for c in range(C):
        idx = np.flatnonzero(y.numpy() == c)
        cuts = (np.cumsum(rng.dirichlet([a.dirichlet] * n)) * len(idx)).astype(int)[:-1]
        for k, part in enumerate(np.split(rng.permutation(idx), cuts)):
            owner[part] = k
    parts = [np.flatnonzero(owner == k) for k in range(n)]
    sizes = np.array([max(1, len(p)) for p in parts], np.int64)
    model = Net(C)
    trace = flce.TraceWriter(os.path.join(a.out, "trace"), clients=n, classes=C, sizes=sizes, dim=64, seed=a.seed)
    for t in range(a.rounds):
        selected = sorted(rng.choice(n, a.per_round, replace=False).tolist())
        states, weights, protos = [], [], {}
        for k in selected:
            local = Net(C)
            local.load_state_dict(model.state_dict())
            opt = torch.optim.SGD(local.parameters(), lr=0.05)
            idx = torch.from_numpy(rng.permutation(parts[k]))
            for b in range(0, len(idx), 32):
                xb, yb = x[idx[b:b + 32]], y[idx[b:b + 32]]
                opt.zero_grad()
                F.cross_entropy(local(xb)[0], yb).backward()
                opt.step()
            with torch.no_grad():  # the client's prototypes: features of its samples, the trained model
                logits, z = local(x[parts[k]])
            protos[k] = flce.prototypes(z.numpy(), y[parts[k]].numpy(), logits.argmax(1).numpy(), classes=C)[0]
            states.append(local.state_dict())
            weights.append(len(parts[k]))
        w = np.array(weights, np.float64) / sum(weights)
        model.load_state_dict({key: sum(float(wi) * s[key] for wi, s in zip(w, states)) for key in states[0]})
        trace.add_round(t, selected, protos)
        with torch.no_grad():
            acc = (model(xt)[0].argmax(1) == yt).float().mean().item()
        print("round %d: clients %s, test accuracy %.3f (%d test images)" % (t + 1, selected, acc, len(yt)))
    trace.close()
    res = flce.evaluate(trace)
    share = sizes / sizes.sum()
    print("\nclient  data share  FLCE contribution   (completion: rank %s, mu %s per class)" % (list(res.rank), list(res.mu)))
    for k in range(n):
        print("%6d  %10.4f  %17.4f" % (k, share[k], res.contributions[k]))
    pos = res.contributions > 0
    kl = float(np.sum(res.contributions[pos] * np.log(res.contributions[pos] / share[pos])))
    print("KL(contributions || data shares) = %.4f; the trace: %s (flce eval %s gives the same numbers)" %
          (kl, trace.path, trace.path))


if __name__ == "__main__":
    main()
