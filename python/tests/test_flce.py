"""The Python package against the harness (issue 34): flce.evaluate against `flce eval` (the same
bytes, every ablation and completion setting), TraceWriter against the trace `flce run` writes,
flce.prototypes against the equation computed here with NumPy, bad inputs raising, the example
running, and `flce step` against PyTorch in float64 on three shapes. Run by ctest (`python`):
FLCE_BIN and FLCE_LIB name the builds under test."""
import json
import os
import shutil
import struct
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
import flce  # noqa: E402

FLCE_BIN = os.environ.get("FLCE_BIN", os.path.join(ROOT, "build", "flce"))


def run(*args, ok=True):
    p = subprocess.run([FLCE_BIN] + [str(a) for a in args], capture_output=True, text=True)
    if ok:
        assert p.returncode == 0, p.stderr
    return p


# recorded: one FLCE run of `flce run` (conftest.py; its trace records both prototype readings)


SETTINGS = [
    {},
    {"rank": 2, "mu": 0.01},
    {"rank": "rule", "mu": "auto"},
    {"ablate": ["M"]}, {"ablate": ["V"]}, {"ablate": ["Q"]}, {"ablate": ["CMC"]}, {"ablate": ["M", "V"]},
    {"missing": "unobserved"},
    {"proto_samples": "all"},
    {"solver": "gd", "rank": 2, "mu": 0.1, "max_iter": 200},
    {"completion": "literal", "rank": 2, "mu": 0.01, "max_iter": 100},
    {"rounds": 2},
    {"seed": 9},
    {"class_weights": [1, 2, 1, 1, 1, 1, 1, 1, 1, 3]},
]


def flags(s, tmp):
    out = []
    for k, v in s.items():
        if k == "ablate":
            for a in v:
                out += ["--ablate", a]
        elif k == "class_weights":
            p = tmp / "cw.txt"
            p.write_text("\n".join(repr(float(x)) for x in v) + "\n")
            out += ["--class-weights", p]
        else:
            out += ["--" + k.replace("_", "-"), v]
    return out


@pytest.mark.parametrize("setting", SETTINGS, ids=[json.dumps(s) for s in SETTINGS])
def test_evaluate_is_flce_eval(recorded, tmp_path, setting):
    """the same bytes as flce eval: contributions.csv, Q.npy, X_completed.npy, completion_eval.json"""
    run("eval", recorded / "trace", "--out", tmp_path / "cli", *flags(setting, tmp_path))
    res = flce.evaluate(recorded / "trace", out=tmp_path / "py", **setting)
    for f in ("contributions.csv", "Q.npy", "X_completed.npy"):
        assert (tmp_path / "cli" / f).read_bytes() == (tmp_path / "py" / f).read_bytes(), f
    ja, jb = (json.loads((tmp_path / w / "completion_eval.json").read_text()) for w in ("cli", "py"))
    ja.pop("seconds"), jb.pop("seconds")  # the time it took: a cost, not a result
    assert ja == jb
    c = np.loadtxt(tmp_path / "cli" / "contributions.csv", delimiter=",", skiprows=1)[:, 1]
    assert c.tobytes() == res.contributions.tobytes()  # the arrays too, bit for bit
    assert np.load(tmp_path / "cli" / "X_completed.npy").tobytes() == res.X.tobytes()
    assert res.Q.shape[0] == setting.get("rounds", 4)


def test_trace_writer_is_flce_runs_trace(recorded, tmp_path):
    """the run's own arrays written by TraceWriter give the run's files, byte for byte, and the
    same evaluation"""
    tr = recorded / "trace"
    P, A = np.load(tr / "prototypes.npy"), np.load(tr / "prototypes_alt.npy")
    S, N = np.load(tr / "selected.npy"), np.load(tr / "data_sizes.npy")
    T, n, C, d = P.shape
    rec = json.loads((tr / "completion.json").read_text())
    w = flce.TraceWriter(tmp_path / "t", clients=n, classes=C, sizes=N, dim=d, rounds=T, seed=rec["seed"])
    for t in range(T):
        sel = np.flatnonzero(S[t])
        w.add_round(t, sel, P[t, sel], prototypes_alt=A[t, sel])
    w.close()
    for f in ("prototypes.npy", "prototypes_alt.npy", "selected.npy", "data_sizes.npy"):
        assert (tr / f).read_bytes() == (tmp_path / "t" / f).read_bytes(), f
    mine = json.loads((tmp_path / "t" / "completion.json").read_text())
    for k in ("seed", "ablate", "completion", "solver", "rank", "mu", "folds", "missing", "prototypes"):
        assert mine[k] == rec[k], k
    a, b = flce.evaluate(tr), flce.evaluate(tmp_path / "t")
    assert a.contributions.tobytes() == b.contributions.tobytes()
    c = flce.evaluate({"prototypes": P, "selected": S, "sizes": N, "seed": rec["seed"]})  # the arrays themselves
    assert a.contributions.tobytes() == c.contributions.tobytes()


def test_prototypes_are_the_equation():
    """eq:method.z computed here: float64 means in sample order, rounded to float32"""
    rng = np.random.default_rng(3)
    z = rng.normal(size=(40, 5)).astype(np.float32)
    y = rng.integers(0, 4, 40)
    y[y == 3] = 2  # class 3 held by no sample: no prototype
    pred = y.copy()
    pred[::3] = (pred[::3] + 1) % 4  # every third sample misclassified
    for reading in ("correct", "all"):
        p, count = flce.prototypes(z, y, pred, reading=reading, classes=4)
        for c in range(4):
            m = (y == c) & ((pred == y) if reading == "correct" else True)
            assert count[c] == m.sum()
            if m.sum() == 0:
                assert np.isnan(p[c]).all()
            else:
                want = np.zeros(5)
                for i in np.flatnonzero(m):
                    want += z[i].astype(np.float64)
                assert np.array_equal(p[c], (want / m.sum()).astype(np.float32)), (reading, c)


def test_bad_inputs_raise(recorded, tmp_path):
    with pytest.raises(flce.UsageError, match="shape"):
        flce.prototypes(np.zeros((4, 3)), [0, 1, 2], [0, 1, 2, 0])
    with pytest.raises(flce.UsageError, match="labels"):
        flce.prototypes(np.zeros((2, 3)), [0, 7], [0, 7], classes=4)
    with pytest.raises(flce.UsageError, match="not finite"):
        flce.prototypes(np.array([[0.0, np.nan]]), [0], [0])
    w = flce.TraceWriter(tmp_path / "x", clients=3, classes=2, sizes=[5, 6, 7], dim=2)
    with pytest.raises(flce.UsageError, match="expected round 0"):
        w.add_round(1, [0], np.zeros((1, 2, 2)))
    with pytest.raises(flce.UsageError, match="shape"):
        w.add_round(0, [0, 1], np.zeros((1, 2, 2)))
    half = np.zeros((1, 2, 2), np.float32)
    half[0, 0, 0] = np.nan
    w.add_round(0, [0], half)
    with pytest.raises(flce.UsageError, match="partly NaN"):
        w.close()
    assert not (tmp_path / "x").exists()  # nothing written
    with pytest.raises(flce.UsageError, match="sizes"):
        flce.TraceWriter(tmp_path / "y", clients=3, classes=2, sizes=[5, 6], dim=2)
    with pytest.raises(flce.UsageError, match="no such trace directory"):
        flce.evaluate(tmp_path / "nowhere")
    with pytest.raises(flce.UsageError, match="--rank"):
        flce.evaluate(recorded / "trace", rank="seven")
    with pytest.raises(flce.UsageError, match="--missing"):
        flce.evaluate(recorded / "trace", missing="maybe")
    with pytest.raises(flce.UsageError, match="rounds"):
        flce.evaluate(recorded / "trace", rounds=99)
    cut = tmp_path / "cut"
    shutil.copytree(recorded / "trace", cut)
    data = (cut / "prototypes.npy").read_bytes()
    (cut / "prototypes.npy").write_bytes(data[: len(data) // 2])  # a truncated file
    with pytest.raises(flce.FlceError, match="prototypes.npy"):
        flce.evaluate(cut)
    sel = np.load(recorded / "trace" / "selected.npy")
    bad = np.load(recorded / "trace" / "prototypes.npy")
    bad[0, int(np.flatnonzero(sel[0] == 0)[0]), 0] = 1.0  # a prototype from a client not selected
    np.save(cut / "prototypes.npy", bad)
    with pytest.raises(flce.FlceError):
        flce.evaluate(cut)


def test_values_are_refused_not_changed(tmp_path):
    """a value that NumPy or ctypes would round, wrap or overflow on its way to C is refused by name
    (each of these was once accepted as another value: 10.5 samples as 10, label 2**32 + 1 as 1,
    max_iter 2**32 + 5 as 5, rounds 2.7 as 2, seed -1 as 2**64 - 1, 1e39 as an infinite value)"""
    rng = np.random.default_rng(3)
    P = rng.normal(size=(3, 3, 2, 4))
    tr = dict(prototypes=P, selected=np.ones((3, 3), np.int8), sizes=[10, 20, 30])
    exact = flce.evaluate(dict(tr, sizes=[10.0, 20.0, 30.0])).contributions  # whole floats are whole numbers
    assert np.array_equal(exact, flce.evaluate(tr).contributions)
    path = flce.write_trace(tmp_path / "t", **tr)
    assert np.array_equal(exact, flce.evaluate(path).contributions)  # write_trace returns its path
    for kw, match in ((dict(sizes=[10.5, 20, 30]), r"sizes\[0\] = 10.5: not a whole number"),
                      (dict(sizes=[np.nan, 20, 30]), r"sizes\[0\] = nan"),
                      (dict(sizes=["10", 20, 30]), "sizes: text"),
                      (dict(selected=np.full((3, 3), 257)), r"selected\[0\]\[0\] = 257: outside 0 to 255"),
                      (dict(prototypes=P * 1e39), "outside float32's range")):
        with pytest.raises(flce.UsageError, match=match):
            flce.evaluate(dict(tr, **kw))
    for kw, match in ((dict(max_iter=2**32 + 5), "max_iter = 4294967301: outside"), (dict(rounds=2.7), "rounds = 2.7"),
                      (dict(seed=-1), "seed = -1: outside"), (dict(threads="x"), "threads = 'x'")):
        with pytest.raises(flce.UsageError, match=match):
            flce.evaluate(path, **kw)
    # weights given as numbers: the message names the argument (it once named a temporary file),
    # and a [2][2] array is not taken for four round weights
    with pytest.raises(flce.UsageError, match="^round_weights: 2 weights, expected 3"):
        flce.evaluate(path, round_weights=[1, 2])
    with pytest.raises(flce.UsageError, match=r"^round_weights: shape \(2, 2\)"):
        flce.evaluate(path, round_weights=[[1, 2], [3, 4]])
    with pytest.raises(flce.UsageError, match="^class_weights: weight 1 is -1"):
        flce.evaluate(path, class_weights=[1, -1])
    # weights are relative; ones whose sums overflow were normalised to uniform shares, silently
    ref = flce.evaluate(path, round_weights=[1, 2, 3], class_weights=[1, 3]).contributions
    assert np.allclose(ref, flce.evaluate(path, round_weights=[1e300, 2e300, 3e300], class_weights=[1, 3]).contributions,
                       rtol=1e-12, atol=0)
    with pytest.raises(flce.FlceError, match="weights are too large"):
        flce.evaluate(path, round_weights=[1e300] * 3, class_weights=[1e300, 1e300])
    with pytest.raises(flce.UsageError, match="^class_weights: the weights sum to more than"):
        flce.evaluate(path, class_weights=[1e308, 1e308])
    with pytest.raises(flce.UsageError, match="class_weights: their sum overflows"):
        flce.write_trace(tmp_path / "t2", **tr, class_weights=[1e308, 1e308])
    with pytest.raises(flce.UsageError, match=r"labels\[1\] = 4294967297"):
        flce.prototypes(np.ones((2, 2)), [0, 2**32 + 1], reading="all", classes=2)
    with pytest.raises(flce.UsageError, match="predictions: needed"):
        flce.prototypes(np.ones((2, 2)), [0, 1])
    with pytest.raises(flce.UsageError, match="clients = 3.5"):
        flce.TraceWriter(tmp_path / "w", clients=3.5, classes=2, sizes=[1, 2, 3])
    w = flce.TraceWriter(tmp_path / "w", clients=3, classes=2, sizes=[1, 2, 3], dim=4)
    with pytest.raises(flce.UsageError, match=r"selected\[1\] = 1.5"):
        w.add_round(0, [0, 1.5], np.zeros((2, 2, 4)))


def test_trace_writer_never_writes_into_a_run(recorded, tmp_path):
    """a trace goes into a new or empty folder or over a trace written here, never into a run's
    folder or a run's trace (both were once overwritten: the run's prototypes.npy replaced beside
    its own Q.npy), and a rewrite leaves none of the earlier trace's files behind"""
    cp = tmp_path / "run"
    shutil.copytree(recorded, cp)
    before = {p.name: p.read_bytes() for p in (cp / "trace").iterdir()}
    P = np.random.default_rng(1).normal(size=(2, 3, 2, 4))
    with pytest.raises(flce.UsageError, match="the trace folder of a run"):
        flce.write_trace(cp / "trace", P, np.ones((2, 3)), [1, 2, 3])
    with pytest.raises(flce.UsageError, match="a run folder"):
        flce.write_trace(cp, P, np.ones((2, 3)), [1, 2, 3])
    assert {p.name: p.read_bytes() for p in (cp / "trace").iterdir()} == before
    assert not (cp / "prototypes.npy").exists()
    t = tmp_path / "t"
    flce.write_trace(t, P, np.ones((2, 3)), [1, 2, 3], prototypes_alt=P, class_weights=[1, 2])
    flce.write_trace(t, P[:1], np.ones((1, 3)), [1, 2, 3])  # over it: one round, no alt, no weights
    assert sorted(p.name for p in t.iterdir()) == ["completion.json", "data_sizes.npy", "prototypes.npy", "selected.npy"]
    assert np.load(t / "prototypes.npy").shape == (1, 3, 2, 4)
    (t / "notes.txt").write_text("mine")
    with pytest.raises(flce.UsageError, match="holds notes.txt"):
        flce.write_trace(t, P, np.ones((2, 3)), [1, 2, 3])
    assert np.load(t / "prototypes.npy").shape == (1, 3, 2, 4)


def test_read_run(recorded):
    r = flce.read_run(recorded)
    assert r["config"]["algo"] == "flce" and r["config"]["seed"] == 5
    assert r["metrics"]["round"].tolist() == [1, 2, 3, 4]
    assert abs(r["contributions"].sum() - 1) < 1e-9
    assert r["round_contributions"].shape == (4, 6)
    assert np.isnan(r["round_contributions"]).sum() == 4 * 3  # 3 of 6 clients not selected each round
    assert "model" in " ".join(r["digests"]) or len(r["digests"]) >= 2
    with pytest.raises(flce.UsageError, match="not a run folder"):
        flce.read_run(recorded / "trace")
    with pytest.raises(flce.UsageError, match="a folder of runs .*, not a run: read one of them"):
        flce.read_run(recorded.parent)  # the folder the run is in
    with pytest.raises(flce.UsageError, match="no such folder"):
        flce.read_run(recorded / "nowhere")


def test_read_run_refuses_other_contributions(recorded, tmp_path):
    # a copy whose contributions.csv was edited (one value moved by 0.01): not the run's
    import shutil
    cp = tmp_path / "edited"
    shutil.copytree(recorded, cp)
    lines = (cp / "contributions.csv").read_text().splitlines()
    k, v = lines[2].split(",")
    lines[2] = "%s,%.17g" % (k, float(v) + 0.01)
    (cp / "contributions.csv").write_text("\n".join(lines) + "\n")
    with pytest.raises(flce.FlceError, match="not the contributions the run wrote"):
        flce.read_run(cp)
    # the digest, worked out here from digests.txt's definition (xxh3-64 of the n doubles), is
    # the one the unedited run wrote
    r = flce.read_run(recorded)
    assert len(r["digests"]["contributions"]) == 16


def test_read_run_damaged_files(recorded, tmp_path):
    """what `flce report` refuses, read_run refuses by file, row and column; a comment line in
    costs.txt (scripts/study_recomplete.sh writes one) is read past, as the report does (it once
    made read_run fail on every re-timed run of the small study)"""
    def copy(name, edit):
        cp = tmp_path / name
        shutil.copytree(recorded, cp)
        edit(cp)
        return cp
    def retimed(cp):
        with open(cp / "costs.txt", "a") as f:
            f.write("# re-timed 2026-11-28 by scripts/study_recomplete.sh (flce eval, 2 CPUs)\n")
    r = flce.read_run(copy("retimed", retimed))
    assert r["costs"] == flce.read_run(recorded)["costs"]
    def cell(cp):
        lines = (cp / "metrics.csv").read_text().splitlines()
        head, row = lines[0].split(","), lines[2].split(",")
        row[head.index("accuracy")] = "x" + row[head.index("accuracy")]
        lines[2] = ",".join(row)
        (cp / "metrics.csv").write_text("\n".join(lines) + "\n")
    with pytest.raises(flce.FlceError, match=r"metrics.csv: row 3, column accuracy: 'x"):
        flce.read_run(copy("cell", cell))
    def short(cp):
        lines = (cp / "metrics.csv").read_text().splitlines()
        lines[1] = lines[1].rsplit(",", 1)[0]
        (cp / "metrics.csv").write_text("\n".join(lines) + "\n")
    with pytest.raises(flce.FlceError, match="metrics.csv: row 2: .* cells, the header has"):
        flce.read_run(copy("short", short))
    with pytest.raises(flce.FlceError, match="config.json"):
        flce.read_run(copy("json", lambda cp: (cp / "config.json").write_text('{"clients": 6')))
    def late(cp):
        with open(cp / "round_contributions.csv", "a") as f:
            f.write("5,0,0.25\n")  # a fifth round of a run of four
    with pytest.raises(flce.FlceError, match="round_contributions.csv: .*round 5"):
        flce.read_run(copy("late", late))


def torch_or_skip():
    try:
        import torch  # noqa: F401
    except ImportError:
        if os.environ.get("CI") or os.environ.get("FLCE_CI"):
            raise
        pytest.skip("PyTorch (python3-torch) not installed")


def test_example_runs(tmp_path):
    torch_or_skip()
    p = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "pytorch_fedavg_flce.py"), "--rounds", "2", "--train-subset", "1200",
                        "--clients", "6", "--per-round", "3", "--out", str(tmp_path / "ex")], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")))
    assert p.returncode == 0, p.stderr
    assert "FLCE contribution" in p.stdout and "KL(contributions || data shares)" in p.stdout
    cli = run("eval", tmp_path / "ex" / "trace", "--out", tmp_path / "e").stdout
    kl_cli = [l for l in cli.splitlines() if l.startswith("KL(")][0].split("=")[1].strip()
    kl_py = [l for l in p.stdout.splitlines() if l.startswith("KL(")][0].split("=")[1].split(";")[0].strip()
    assert abs(float(kl_cli) - float(kl_py)) < 1e-4, (kl_cli, kl_py)


def write_safetensors(path, tensors):
    hdr, off, blobs = {}, 0, []
    for k, v in tensors.items():
        b = np.ascontiguousarray(v).tobytes()
        hdr[k] = {"dtype": {"float32": "F32", "int64": "I64"}[v.dtype.name], "shape": list(v.shape), "data_offsets": [off, off + len(b)]}
        off += len(b)
        blobs.append(b)
    h = json.dumps(hdr).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


@pytest.mark.parametrize("shape", [(1, 28, 28, 10), (3, 32, 32, 10), (3, 16, 16, 100)], ids=["1x28x28", "3x32x32", "3x16x16-C100"])
def test_step_against_pytorch(tmp_path, shape):
    """flce step (CPU backend) against PyTorch in float64: losses, logits, features and every
    gradient within the tolerances of tools/torch_reference.py check"""
    torch_or_skip()
    c, h, w, C = shape
    rng = np.random.default_rng(c * 1000 + h + C)
    x = rng.normal(size=(8, c, h, w)).astype(np.float32)
    y = (np.arange(8) % 4).astype(np.int64)  # several samples per class: the contrastive loss has positives
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    # the checkpoint to step from: PyTorch's own initialisation of its ResNet20 (tools/torch_reference.py),
    # with its tensor names, which flce step reads
    import torch
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import torch_reference as tref
    torch.manual_seed(c * 100 + C)
    net = tref.ResNet20(c, C)
    sd = {k: v.detach().numpy().astype(np.float32) if v.dtype.is_floating_point else v.numpy().astype(np.int64)
          for k, v in net.state_dict().items()}
    write_safetensors(tmp_path / "w.safetensors", sd)
    run("step", "--weights", tmp_path / "w.safetensors", "--input", tmp_path / "x.npy", "--labels", tmp_path / "y.npy",
        "--backend", "cpu", "--out", tmp_path / "step.safetensors")
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "torch_reference.py"), "check", str(tmp_path / "w.safetensors"),
                        str(tmp_path / "x.npy"), str(tmp_path / "y.npy"), str(tmp_path / "step.safetensors")],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_pip_install_without_network(tmp_path):
    """pip install --target ./python (no index, no build requirement): the package and its libflce.so;
    --no-deps, as --target ignores the NumPy already installed (the venv install, with NumPy
    resolved, is tests/python_venv.sh)"""
    lib = os.environ.get("FLCE_LIB", os.path.join(ROOT, "build", "libflce.so"))
    p = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "--no-cache-dir", "--target", str(tmp_path / "site"),
                        os.path.join(ROOT, "python")], capture_output=True, text=True, env=dict(os.environ, FLCE_LIB=lib))
    assert p.returncode == 0, p.stdout + p.stderr
    env = {k: v for k, v in os.environ.items() if k != "FLCE_LIB"}
    q = subprocess.run([sys.executable, "-c", "import flce; print(flce.library_path); print(flce.evaluate.__doc__ is not None)"],
                       capture_output=True, text=True, cwd=str(tmp_path), env=dict(env, PYTHONPATH=str(tmp_path / "site")))
    assert q.returncode == 0, q.stderr
    assert q.stdout.splitlines()[0] == str(tmp_path / "site" / "flce" / "libflce.so")


def test_torch_reference_refuses_bad_options(tmp_path):
    """tools/torch_reference.py, PyTorch's side of issue 33's benchmark: a batch of 0 printed
    0.0 images/s with status 0, --steps 0 and '3x32x32x1' ended in tracebacks; now one line each,
    status 2, naming the option"""
    torch_or_skip()
    tool = os.path.join(ROOT, "tools", "torch_reference.py")
    for args, want in ((["--batch", "0"], "--batch 0: must be a whole number >= 2"),
                       (["--input", "3x32x32x1"], "--input '3x32x32x1': must be CxHxW"),
                       (["--bogus"], "unknown option '--bogus'")):
        p = subprocess.run([sys.executable, tool, "bench"] + args, capture_output=True, text=True)
        assert p.returncode == 2 and p.stderr.count("\n") == 1 and want in p.stderr, (args, p.returncode, p.stderr)
    p = subprocess.run([sys.executable, tool, "check", "a", "b"], capture_output=True, text=True)
    assert p.returncode == 2 and "2 arguments, expected 4" in p.stderr, p.stderr


def test_rounds_without_prototypes_are_said(tmp_path):
    """a trace in which no selected client uploaded a prototype in some rounds: flce eval prints
    their number; evaluate() returned the (then uniform) contributions without a word. By hand:
    rounds 1 and 3 of 3 hold no prototype (all NaN), round 2 does."""
    rng = np.random.default_rng(5)
    P = rng.normal(size=(3, 4, 2, 3))
    P[0] = np.nan
    P[2] = np.nan
    ev = flce.evaluate(dict(prototypes=P, selected=np.ones((3, 4), np.int8), sizes=[1, 2, 3, 4]))
    assert ev.fallback_rounds == 2 and "fallback_rounds=2" in repr(ev) and "fallback_rounds" not in ev.settings
    cli = run("eval", flce.write_trace(tmp_path / "t", P, np.ones((3, 4), np.int8), [1, 2, 3, 4]), "--out", tmp_path / "e").stdout
    assert "rounds without any prototype: 2" in cli
    ev = flce.evaluate(dict(prototypes=np.full((3, 4, 2, 3), np.nan), selected=np.ones((3, 4), np.int8), sizes=[1, 2, 3, 4]))
    assert ev.fallback_rounds == 3 and np.allclose(ev.contributions, 0.25)


def test_one_version_number():
    """The package's version is the program's (`flce --version`): the pyproject and the build
    script said 1.0.0 where flce said 0.1.0."""
    import re
    from conftest import FLCE_BIN, ROOT
    out = subprocess.run([FLCE_BIN, "--version"], capture_output=True, text=True).stdout
    want = re.match(r"flce (\S+) ", out).group(1)
    with open(os.path.join(ROOT, "python", "pyproject.toml")) as f:
        assert re.search(r'^version = "%s"$' % re.escape(want), f.read(), re.M), want
    with open(os.path.join(ROOT, "python", "flce_build.py")) as f:
        assert ('"%s"' % want) in f.read(), want


def test_dependencies_are_declared():
    """Every import of the package outside the standard library is a dependency, the same in
    pyproject.toml and in the metadata flce_build.py writes: NumPy was imported and not declared
    (pip installed flce into a venv without NumPy, and `import flce` failed)."""
    import ast
    import re
    from conftest import ROOT
    if not hasattr(sys, "stdlib_module_names"):
        pytest.skip("Python < 3.10: no sys.stdlib_module_names")
    with open(os.path.join(ROOT, "python", "flce", "__init__.py")) as f:
        tree = ast.parse(f.read())
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module and not n.level}
    third = imported - set(sys.stdlib_module_names) - {"flce"}
    with open(os.path.join(ROOT, "python", "pyproject.toml")) as f:
        deps = re.search(r"^dependencies = \[(.*)\]$", f.read(), re.M).group(1)
    declared = {re.match(r"[A-Za-z0-9_.-]+", d.strip().strip('"')).group(0) for d in deps.split(",") if d.strip()}
    sys.path.insert(0, os.path.join(ROOT, "python"))
    try:
        import flce_build
    finally:
        sys.path.pop(0)
    assert third == declared == set(flce_build.REQUIRES), (third, declared, flce_build.REQUIRES)
    assert "Requires-Dist: numpy\n" in flce_build._metadata()


def test_prototypes_first_as_released():
    """reading "first": the released code's prototype, the first sample of each class the model
    classifies right (sample 0 is class 0 but misclassified; sample 2 is the first right)."""
    z = np.array([[1, 2], [10, 20], [3, 6], [5, 10]], dtype=np.float32)
    p, count = flce.prototypes(z, [0, 1, 0, 0], [1, 1, 0, 0], reading="first", classes=3)
    assert list(count) == [1, 1, 0]
    assert list(p[0]) == [3, 6] and list(p[1]) == [10, 20] and np.isnan(p[2]).all()
    with pytest.raises(flce.UsageError, match="predictions: needed for reading \"first\""):
        flce.prototypes(z, [0, 1, 0, 0], reading="first")
