#!/usr/bin/python3
"""torch_reference.py: PyTorch's side of two checks (needs Debian's python3-torch; not
used by the build or the tests).

  check W.safetensors X.npy Y.npy STEP.safetensors [--lambda L] [--tau T]
      Loads our checkpoint into a PyTorch ResNet20 (1x1-convolution shortcuts, the same
      tensor names), runs one training-mode forward and backward of CE + lambda * SupCon on
      the batch in float32 and in float64, and compares with the output of `flce step`:
      loss, logits and features to 1e-4 relative; every gradient to 1e-3 relative in norm,
      or, where PyTorch's own float32 gradient is further than that from float64 (a ReLU
      whose input lies within rounding of 0 flips its mask: one flip moves a BatchNorm bias
      gradient by 1e-3 at batch 64), to no more than twice PyTorch's float32 distance.
  bench [--input 3x32x32] [--batch 64] [--steps 10] [--threads 2] [--device cpu|cuda] [--eval]
      PyTorch's training throughput (plain SGD, cross-entropy), images/s. On cuda: eager
      float32 with TF32 off and cuDNN autotuning on (the baseline of issue 17), timed with
      the device synchronised. --eval: the evaluation forward alone (eval mode, no autograd,
      logits copied to the host), as `flce-bench train --eval`.
"""
import json, math, struct, sys, time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def read_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        hdr = json.loads(f.read(n))
        data = f.read()
    out = {}
    for k, v in hdr.items():
        if k == "__metadata__":
            continue
        dt = {"F32": np.float32, "I64": np.int64}[v["dtype"]]
        b, e = v["data_offsets"]
        out[k] = np.frombuffer(data[b:e], dtype=dt).reshape(v["shape"]).copy()
    return out


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


class ResNet20(nn.Module):
    def __init__(self, in_c=3, classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(in_c, 16, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        layers, cin = [], 16
        for cout, stride in ((16, 1), (32, 2), (64, 2)):
            blocks = []
            for j in range(3):
                blocks.append(Block(cin, cout, stride if j == 0 else 1))
                cin = cout
            layers.append(nn.Sequential(*blocks))
        self.layer1, self.layer2, self.layer3 = layers
        self.linear = nn.Linear(64, classes)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.layer3(self.layer2(self.layer1(out)))
        z = out.mean(dim=(2, 3))
        return self.linear(z), z


def supcon(z, y, tau):
    """eq:method.losscl on L2-normalised features, anchors without positives left out."""
    zn = F.normalize(z, dim=1)
    sim = zn @ zn.t() / tau
    n = z.shape[0]
    eye = torch.eye(n, dtype=torch.bool)
    pos = (y[:, None] == y[None, :]) & ~eye
    sim = sim.masked_fill(eye, float("-inf"))
    logprob = sim - torch.logsumexp(sim, dim=1, keepdim=True)
    npos = pos.sum(1)
    anchors = npos > 0
    if anchors.sum() == 0:
        return z.sum() * 0
    per = -(logprob.masked_fill(~pos, 0).sum(1)[anchors] / npos[anchors])
    return per.mean()


def run_torch(sd, X, Y, lam, tau, dtype):
    model = ResNet20(X.shape[1], sd["linear.weight"].shape[0])
    model.load_state_dict({k: torch.from_numpy(v) for k, v in sd.items()}, strict=True)
    model = model.to(dtype)
    model.train()
    logits, z = model(X.to(dtype))
    ce = F.cross_entropy(logits, Y)
    cl = supcon(z, Y, tau) if lam != 0 else torch.zeros((), dtype=dtype)
    loss = ce + lam * cl
    loss.backward()
    out = {"loss": loss, "loss_ce": ce, "loss_cl": cl, "logits": logits, "features": z}
    out = {k: v.detach().double().numpy() for k, v in out.items()}
    for pname, p in model.named_parameters():
        out["grad." + pname] = p.grad.double().numpy()
    return out


def usage_error(cmd, msg):
    print(f"torch_reference.py {cmd}: {msg}", file=sys.stderr)
    sys.exit(2)


def shape(text):
    parts = text.split("x")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise ValueError(text)
    return tuple(int(p) for p in parts)


def parse(cmd, args, spec, npos):
    """The options of spec ({flag: (convert, default, valid, what it must be)}; convert None: a
    switch) and npos positional arguments, strictly: an unknown option, a value that does not
    convert or is not valid, or another count of positional arguments is one line and status 2
    (a batch of 0 once printed 0.0 images/s with status 0, '3x32x32x1' a traceback)."""
    vals, pos, i = {k: v[1] for k, v in spec.items()}, [], 0
    while i < len(args):
        a = args[i]
        if a.startswith("--"):
            if a not in spec:
                usage_error(cmd, f"unknown option '{a}'")
            conv, _, valid, what = spec[a]
            if conv is None:
                vals[a], i = True, i + 1
                continue
            if i + 1 == len(args):
                usage_error(cmd, f"{a}: needs a value")
            try:
                v = conv(args[i + 1])
            except ValueError:
                usage_error(cmd, f"{a} '{args[i + 1]}': must be {what}")
            if not valid(v):
                usage_error(cmd, f"{a} {args[i + 1]}: must be {what}")
            vals[a], i = v, i + 2
        else:
            pos.append(a)
            i += 1
    if len(pos) != npos:
        usage_error(cmd, f"{len(pos)} arguments, expected {npos} (see the usage at the top of the file)")
    return vals, pos


def check(args):
    o, (w, x, y, step) = parse("check", args, {
        "--lambda": (float, 1.0, lambda v: math.isfinite(v) and v >= 0, "a finite number >= 0"),
        "--tau": (float, 0.5, lambda v: math.isfinite(v) and v > 0, "a finite number > 0")}, 4)
    lam, tau = o["--lambda"], o["--tau"]
    sd = read_safetensors(w)
    X = torch.from_numpy(np.load(x))
    Y = torch.from_numpy(np.load(y))
    t32 = run_torch(sd, X, Y, lam, tau, torch.float32)
    t64 = run_torch(sd, X, Y, lam, tau, torch.float64)
    ours = read_safetensors(step)
    ok = True

    def rel(a, b):
        return float(np.linalg.norm(np.asarray(a, np.float64) - b) / max(np.linalg.norm(b), 1e-12))

    print(f"{'':24s} {'flce vs torch32':>16s} {'flce vs torch64':>16s} {'torch32 vs 64':>14s}")
    for name in ("loss", "loss_ce", "loss_cl", "logits", "features"):
        r = rel(ours[name], t32[name])
        ok &= r <= 1e-4
        print(f"{name:24s} {r:16.2e} {rel(ours[name], t64[name]):16.2e} {rel(t32[name], t64[name]):14.2e}")
    worst = (0.0, "", 0.0, 0.0)
    for k in sorted(t64):
        if not k.startswith("grad."):
            continue
        r32, r64, tt = rel(ours[k], t32[k]), rel(ours[k], t64[k]), rel(t32[k], t64[k])
        good = r32 <= 1e-3 or r64 <= max(1e-3, 2 * tt)
        ok &= good
        if r32 > worst[0]:
            worst = (r32, k, r64, tt)
    print(f"{'worst gradient':24s} {worst[0]:16.2e} {worst[2]:16.2e} {worst[3]:14.2e}   ({worst[1]})")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


def bench(args):
    o, _ = parse("bench", args, {
        "--input": (shape, (3, 32, 32), lambda v: 1 <= v[0] <= 3 and v[1] >= 4 and v[2] >= 4, "CxHxW with 1-3 channels, H and W >= 4"),
        "--batch": (int, 64, lambda v: v >= 2, "a whole number >= 2"),
        "--steps": (int, 10, lambda v: v >= 1, "a whole number >= 1"),
        "--threads": (int, 2, lambda v: v >= 1, "a whole number >= 1"),
        "--device": (str, "cpu", lambda v: v in ("cpu", "cuda"), "cpu or cuda"),
        "--eval": (None, False, None, "")}, 0)
    (c, h, w), batch, steps, threads, dev = o["--input"], o["--batch"], o["--steps"], o["--threads"], o["--device"]
    torch.set_num_threads(threads)
    if dev == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cudnn.benchmark = True
    torch.manual_seed(1)
    model = ResNet20(c, 10).to(dev)
    model.train()
    sgd = torch.optim.SGD(model.parameters(), lr=0.01)
    X, Y = torch.randn(batch, c, h, w, device=dev), torch.randint(0, 10, (batch,), device=dev)
    def sync():
        if dev == "cuda":
            torch.cuda.synchronize()
    def step():
        sgd.zero_grad()
        logits, _ = model(X)
        F.cross_entropy(logits, Y).backward()
        sgd.step()
    evaluate = o["--eval"]  # the evaluation forward alone (running statistics, no autograd)
    if evaluate:
        step()  # one training step first, as flce-bench train --eval does
        model.eval()
        def step():
            with torch.no_grad():
                logits, _ = model(X)
            logits.cpu()
    for _ in range(3 if dev == "cuda" else 1):
        step()
    sync()
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        sync()
        times.append((time.perf_counter() - t0) / steps)
    t = sorted(times)[1]
    name = torch.cuda.get_device_name() if dev == "cuda" else f"threads {threads}"
    what = " eval" if evaluate else ""
    print(f"pytorch {torch.__version__} {c}x{h}x{w} batch {batch}{what} {dev} ({name}): {batch / t:.1f} images/s")
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in ("check", "bench"):
        print(__doc__)
        sys.exit(2)
    sys.exit(check(sys.argv[2:]) if sys.argv[1] == "check" else bench(sys.argv[2:]))
