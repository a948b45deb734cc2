"""The Python package against hostile calls and races (issue 61): a trace replaced between
evaluate()'s two reads, two writers on one folder, a writer against the lock of `flce run`,
read_run on a FIFO, a link to /dev/zero and damaged CSV files, NUL inside paths and words,
complex, object and multi-dimensional inputs, and the exceptions that may leave the package
(UsageError and FlceError only). What could hang, abort the interpreter or take all memory runs
in a child process with a time and an address-space limit. Run by ctest (`python`)."""
import json
import multiprocessing
import os
import resource
import shutil
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
import flce  # noqa: E402

FLCE_BIN = os.environ.get("FLCE_BIN", os.path.join(ROOT, "build", "flce"))
TINY = ["--clients", "6", "--per-round", "3", "--rounds", "2", "--dirichlet", "0.3", "--train-subset", "600", "--test-subset",
        "100", "--val-size", "30", "--batch", "32", "--quiet"]  # (the running run's: two rounds)


def child(code, *args, timeout=60, mem=4 << 30):
    """code run by a fresh Python with this package (and libflce: FLCE_LIB), at most timeout
    seconds and mem bytes of address space: (returncode, stdout + stderr); a child still running
    at the limit is killed and the test fails"""
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    try:
        p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)] + [str(a) for a in args], capture_output=True, text=True,
                           env=env, timeout=timeout, preexec_fn=limit)
    except subprocess.TimeoutExpired:
        pytest.fail("still running after %d s (a read that never ends)" % timeout)
    return p.returncode, p.stdout + p.stderr


# recorded: one FLCE run of `flce run` (conftest.py)


def trace_arrays(T, n, C, d, seed):
    rng = np.random.default_rng(seed)
    return dict(prototypes=rng.normal(size=(T, n, C, d)), selected=np.ones((T, n), np.uint8), sizes=np.arange(1, n + 1) * 10)


# ---- the shape race: evaluate() sizes its arrays from one read, C evaluates a second ----------

def test_evaluate_refuses_a_trace_replaced_after_its_shape(tmp_path):
    """the trace is replaced by a larger one right after evaluate() read its shape (the shape
    call itself is wrapped to do it): C refuses with "trace changed", copies nothing and writes
    nothing; libflce once copied 6 x 40 x 5 doubles into arrays of 2 x 3 x 2 (the interpreter
    aborted: malloc(): unaligned tcache chunk detected)"""
    rc, out = child("""
        import sys, numpy as np, flce
        d, o = sys.argv[1], sys.argv[2]
        rng = np.random.default_rng(1)
        flce.write_trace(d, rng.normal(size=(2, 3, 2, 4)), np.ones((2, 3)), [1, 2, 3])
        real = flce._lib.flce_api_trace_shape
        def shape_then_replace(path, shape):
            st = real(path, shape)
            flce.write_trace(d, rng.normal(size=(6, 40, 5, 4)), np.ones((6, 40)), np.arange(1, 41))
            return st
        flce._lib.flce_api_trace_shape = shape_then_replace
        try:
            ev = flce.evaluate(d, rank=1, mu=0.1, out=o)
            print("NO ERROR", ev.contributions.shape)
        except flce.UsageError as e:
            print("REFUSED", e)
        flce._lib.flce_api_trace_shape = real
        print("AFTER", flce.evaluate(d, rank=1, mu=0.1).contributions.shape)
        """, tmp_path / "t", tmp_path / "out")
    assert rc == 0, out
    assert ("REFUSED trace changed: %s holds 6 rounds (evaluated) x 40 clients x 5 classes now, the arrays given are for "
            "2 x 3 x 2" % (tmp_path / "t")) in out, out
    assert "nothing copied" in out
    assert not (tmp_path / "out").exists()  # nothing written either
    assert "AFTER (40,)" in out  # the new trace, read whole, evaluates


def test_evaluate_while_a_thread_replaces_the_trace(tmp_path):
    """a thread writes two traces of different shapes into one folder, again and again, while
    evaluate() reads it: each evaluation gives exactly one trace's contributions (computed
    beforehand from a folder of its own) or refuses (the trace changed under it); never a crash
    nor a mix"""
    rc, out = child("""
        import os, sys, threading, numpy as np, flce
        base = sys.argv[1]
        rng = np.random.default_rng(2)
        A = dict(prototypes=rng.normal(size=(3, 4, 2, 3)), selected=np.ones((3, 4)), sizes=[1, 2, 3, 4])
        B = dict(prototypes=rng.normal(size=(5, 9, 3, 3)), selected=np.ones((5, 9)), sizes=np.arange(1, 10))
        want = {}
        for name, tr in (("A", A), ("B", B)):
            want[name] = flce.evaluate(flce.write_trace(os.path.join(base, name), **tr), rank=1, mu=0.1).contributions
        d = os.path.join(base, "shared")
        flce.write_trace(d, **A)
        stop = False
        def writer():
            i = 0
            while not stop:
                flce.write_trace(d, **(B if i % 2 else A))
                i += 1
        th = threading.Thread(target=writer)
        th.start()
        seen = {"A": 0, "B": 0, "changed": 0, "replaced": 0}
        try:
            for _ in range(150):
                try:
                    c = flce.evaluate(d, rank=1, mu=0.1).contributions
                except flce.FlceError as e:
                    key = "changed" if str(e).startswith("trace changed: ") else "replaced" if "times while being read" in str(e) else None
                    if key is None:
                        print("UNEXPECTED", type(e).__name__, e)
                        sys.exit(3)
                    seen[key] += 1
                    continue
                hit = [k for k, v in want.items() if c.shape == v.shape and c.tobytes() == v.tobytes()]
                if not hit:
                    print("MIXED", c)
                    sys.exit(4)
                seen[hit[0]] += 1
        finally:
            stop = True
            th.join()
        print("SEEN", seen)
        """, tmp_path, timeout=120)
    assert rc == 0, out
    seen = json.loads(out.split("SEEN ")[1].replace("'", '"'))
    assert seen["A"] + seen["B"] > 0, seen


# ---- writers: one at a time, a folder published whole --------------------------------------

WSHAPE = (4, 8, 10, 16)  # small: the two writers' renames overlap most often (~3% of starts did)


def _writer(w, base, trials, barrier, results):
    """writer w of the two: a trace of its own in each trial's folder, both started together"""
    T, n, C, d = WSHAPE
    P = np.full(WSHAPE, float(w + 1), np.float32)
    extra = dict(prototypes_alt=P + 10, class_weights=np.arange(1, C + 1)) if w else {}
    out = []
    for i in range(trials):
        barrier.wait(timeout=30)
        try:
            flce.write_trace(os.path.join(base, "t%d" % i), P, np.ones((T, n)), [10 * (w + 1) + k for k in range(n)], seed=w + 1,
                             **extra)
            out.append("ok")
        except flce.FlceError as e:
            out.append(str(e))
    results.put((w, out))


def test_two_writers_on_one_folder(tmp_path):
    """two processes write a trace each into one folder at the same moment, 1,000 times (the issue
    counted 200): the folder then holds one writer's trace whole (all its files, none of the
    other's), the other writer either wrote its own whole after it or was refused by the lock,
    saying so; without the lock about 3 in 100 folders held one writer's prototypes.npy beside
    the other's data_sizes.npy (28 and 31 of 1,000 in two tries)"""
    trials = 1000
    ctx = multiprocessing.get_context("fork")
    barrier, results = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(w, str(tmp_path), trials, barrier, results)) for w in (0, 1)]
    t0 = time.time()
    for p in procs:
        p.start()
    try:
        got = dict(results.get(timeout=120) for _ in procs)
    finally:
        for p in procs:
            p.join(10)
            if p.is_alive():
                p.kill()
    assert time.time() - t0 < 60
    files = {0: ["completion.json", "data_sizes.npy", "prototypes.npy", "selected.npy"],
             1: ["class_weights.npy", "completion.json", "data_sizes.npy", "prototypes.npy", "prototypes_alt.npy", "selected.npy"]}
    mixed = []
    for i in range(trials):
        t = tmp_path / ("t%d" % i)
        outcome = (got[0][i], got[1][i])
        assert "ok" in outcome, (i, outcome)
        for o in outcome:
            assert o == "ok" or o == ("%s: another process is writing this folder now (a trace, or a flce run): wait for it to end, "
                                      "or write elsewhere" % t), (i, o)
        w = int(np.load(t / "prototypes.npy").flat[0]) - 1  # whose prototypes are there
        whole = (sorted(os.listdir(t)) == files[w]
                 and np.array_equal(np.load(t / "prototypes.npy"), np.full(WSHAPE, w + 1, np.float32))
                 and np.load(t / "data_sizes.npy").tolist() == [10 * (w + 1) + k for k in range(WSHAPE[1])]
                 and json.loads((t / "completion.json").read_text())["seed"] == w + 1
                 and (not w or np.array_equal(np.load(t / "prototypes_alt.npy"), np.full(WSHAPE, 12, np.float32))))
        if not whole or got[w][i] != "ok":
            mixed.append((i, sorted(os.listdir(t)), outcome))
    assert not mixed, "%d of %d folders not one writer's whole trace: %s" % (len(mixed), trials, mixed[:5])
    assert sorted(os.listdir(tmp_path)) == sorted("t%d" % i for i in range(trials))  # no temporary folder left beside them


def test_a_writer_takes_the_lock_flce_run_takes(tmp_path):
    """a folder flock()ed by another process (as `flce run` locks its --out for its whole life),
    or whose folder above is (a run, whose trace it would be): refused at once, nothing written"""
    tr = trace_arrays(2, 3, 2, 4, 3)
    for locked, target in (("t", "t"), ("run", "run/trace")):
        (tmp_path / locked).mkdir(parents=True)
        holder = subprocess.Popen([sys.executable, "-c", "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDONLY); "
                                   "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)", str(tmp_path / locked)],
                                  stdout=subprocess.PIPE, text=True)
        try:
            assert holder.stdout.readline().strip() == "held"
            with pytest.raises(flce.UsageError, match="another process is writing"):
                flce.write_trace(tmp_path / target, **tr)
        finally:
            holder.kill()
            holder.wait()
        assert not (tmp_path / target / "prototypes.npy").exists()
        flce.write_trace(tmp_path / target, **tr)  # the lock released: written
        assert np.load(tmp_path / target / "prototypes.npy").shape == (2, 3, 2, 4)


def test_a_writer_never_writes_a_running_runs_trace(tmp_path):
    """`flce run` running (its trace folder holds only a trace's files until its end): a trace
    written there is refused (the run's lock on the folder above; its config.json), and the run
    ends as it would have"""
    out = tmp_path / "r"
    p = subprocess.Popen([FLCE_BIN, "run", "--algo", "flce"] + TINY + ["--seed", "5", "--out", str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(600):
            if (out / "trace" / "data_sizes.npy").exists() or p.poll() is not None:
                break
            time.sleep(0.01)
        assert p.poll() is None, "the run ended before its trace was seen"
        with pytest.raises(flce.UsageError, match="a flce run|the trace folder of a run"):
            flce.write_trace(out / "trace", **trace_arrays(2, 6, 10, 4, 1))
    finally:
        _, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    assert np.load(out / "trace" / "prototypes.npy").shape[:3] == (2, 6, 10)
    assert flce.read_run(out)["verified"] == ["contributions.csv"]


def test_a_writer_never_writes_an_interrupted_runs_trace(recorded, tmp_path):
    """the trace folder of a run without its Q.npy yet (a run interrupted: --resume continues
    from it) holds only a trace's files; it was once replaced. A folder above holding a
    config.json of its own (not a run's: no device.txt, no state.bin) is no run."""
    cp = tmp_path / "run"
    shutil.copytree(recorded, cp)
    for f in ("Q.npy", "X_completed.npy"):
        os.remove(cp / "trace" / f)
    before = {p.name: p.read_bytes() for p in (cp / "trace").iterdir()}
    with pytest.raises(flce.UsageError, match=r"trace: the trace folder of a run \(the folder above holds the run's config.json\)"):
        flce.write_trace(cp / "trace", **trace_arrays(2, 6, 10, 4, 1))
    assert {p.name: p.read_bytes() for p in (cp / "trace").iterdir()} == before
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "config.json").write_text("{}")
    flce.write_trace(tmp_path / "mine" / "trace", **trace_arrays(2, 6, 10, 4, 1))


# ---- read_run: regular files only, bounded, every row checked ------------------------------

READ = """
    import sys, warnings, flce
    warnings.simplefilter("ignore")
    try:
        flce.read_run(sys.argv[1])
        print("READ")
    except flce.FlceError as e:
        print("REFUSED", e)
    """


@pytest.mark.parametrize("name,kind", [("metrics.csv", "fifo"), ("contributions.csv", "fifo"), ("digests.txt", "fifo"),
                                       ("contributions.csv", "zero"), ("metrics.csv", "zero"), ("config.json", "fifo")])
def test_read_run_refuses_fifos_and_devices(recorded, tmp_path, name, kind):
    """a FIFO or a link to /dev/zero in a run folder: refused within the time limit, as flce
    eval refuses them (read_run once waited for ever on the FIFO, or read /dev/zero until the
    memory ran out)"""
    cp = tmp_path / "run"
    shutil.copytree(recorded, cp)
    os.remove(cp / name)
    if kind == "fifo":
        os.mkfifo(cp / name)
    else:
        os.symlink("/dev/zero", cp / name)
    rc, out = child(READ, cp, timeout=20, mem=2 << 30)
    what = "a FIFO, not a file" if kind == "fifo" else "a device, not a file"
    assert rc == 0 and "REFUSED %s: %s" % (cp / name, what) in out, out


def test_read_run_bounds_what_it_reads(recorded, tmp_path):
    """a file larger than read_run's bound (64 MiB, or max_bytes) is refused before it is read"""
    cp = tmp_path / "run"
    shutil.copytree(recorded, cp)
    with open(cp / "round_contributions.csv", "r+b") as f:
        f.truncate((64 << 20) + 1)  # (sparse: no disk used)
    with pytest.raises(flce.FlceError, match=r"round_contributions.csv: larger than 64 MiB"):
        flce.read_run(cp)
    size = os.path.getsize(recorded / "config.json")
    with pytest.raises(flce.FlceError, match=r"config.json: larger than %d bytes" % (size - 1)):
        flce.read_run(recorded, max_bytes=size - 1)


def damaged(recorded, tmp_path, name, file, edit, digest=False):
    """a copy of the run with file's lines edited; digest False: digests.txt without its
    contributions line (nothing else to catch the damage)"""
    cp = tmp_path / name
    shutil.copytree(recorded, cp)
    lines = (cp / file).read_text().splitlines()
    (cp / file).write_text("\n".join(edit(lines)) + "\n")
    if not digest:
        dg = (cp / "digests.txt").read_text().splitlines()
        (cp / "digests.txt").write_text("\n".join(l for l in dg if not l.startswith("contributions ")) + "\n")
    return cp


def test_read_run_checks_every_contributions_row(recorded, tmp_path):
    """with no digest to catch them, each damaged row of contributions.csv is refused by what is
    wrong with it (client -1 once landed on the last client, a repeated or missing row gave NaN)"""
    def row(k, text):  # row of client k (line k + 1) replaced
        return lambda ls: ls[:k + 1] + [text] + ls[k + 2:]
    cases = [("minus", row(5, "-1,0.1"), r"contributions.csv: row 7: client -1: not a client of the run \(0 to 5\)"),
             ("seven", row(5, "6,0.1"), r"row 7: client 6: not a client"),
             ("half", row(5, "4.5,0.1"), r"row 7: client 4.5: not a client"),
             ("twice", row(3, "2,0.1"), r"contributions.csv: row 5: client 2 again"),
             ("missing", lambda ls: ls[:5] + ls[6:], r"contributions.csv: 5 of 6 clients \(client 4 has no row\)"),
             ("inf", row(0, "0,inf"), r"row 2, column contribution: 'inf' is not a finite number"),
             ("nan", row(0, "0,nan"), r"row 2, column contribution: 'nan' is not a finite number"),
             ("empty", row(0, "0,"), r"row 2, column contribution: '' is not a finite number"),
             ("header", lambda ls: ["client,share"] + ls[1:], r"contributions.csv: no column contribution")]
    for name, edit, match in cases:
        with pytest.raises(flce.FlceError, match=match):
            flce.read_run(damaged(recorded, tmp_path, name, "contributions.csv", edit))


def test_read_run_says_when_nothing_checks_the_contributions(recorded, tmp_path):
    """an edited value with no digest line to check it against reads, but says so plainly
    (UnverifiedWarning, "unverified"); with the line, the contributions are "verified" and an
    edited value refused"""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        r = flce.read_run(recorded)
    assert not [w for w in seen if issubclass(w.category, flce.UnverifiedWarning)]
    assert r["verified"] == ["contributions.csv"] and "contributions.csv" not in r["unverified"]
    assert {"metrics.csv", "clients.csv", "round_contributions.csv", "config.json"} <= set(r["unverified"])

    def edit(ls):
        k, v = ls[3].split(",")
        return ls[:3] + ["%s,%.17g" % (k, float(v) + 0.01)] + ls[4:]
    cp = damaged(recorded, tmp_path, "edited", "contributions.csv", edit)
    with pytest.warns(flce.UnverifiedWarning, match="contributions.csv: not checked: its digests.txt has no contributions line"):
        r = flce.read_run(cp)
    want = float((recorded / "contributions.csv").read_text().splitlines()[3].split(",")[1]) + 0.01
    assert r["contributions"][2] == want and "contributions.csv" in r["unverified"] and r["verified"] == []
    os.remove(cp / "digests.txt")
    with pytest.warns(flce.UnverifiedWarning, match="it has no digests.txt"):
        flce.read_run(cp)
    with pytest.raises(flce.FlceError, match="not the contributions the run wrote"):
        flce.read_run(damaged(recorded, tmp_path, "edited2", "contributions.csv", edit, digest=True))


def test_read_run_checks_the_other_files(recorded, tmp_path):
    """round_contributions.csv (a repeated row once let the last one win), clients.csv,
    metrics.csv, digests.txt and costs.txt, each damaged one way, refused naming file and row"""
    rc = (recorded / "round_contributions.csv").read_text().splitlines()
    round1 = {int(l.split(",")[1]) for l in rc[1:] if l.startswith("1,")}
    cases = [("rc-twice", "round_contributions.csv", lambda ls: ls[:3] + [ls[1]] + ls[4:],
              r"round_contributions.csv: row 4: round 1, client 0 again"),
             ("rc-extra", "round_contributions.csv", lambda ls: ls + ["1,%d,0.1" % min(set(range(6)) - round1)],
              r"round_contributions.csv: round 1 has 4 clients' contributions, expected 3"),
             ("rc-short", "round_contributions.csv", lambda ls: ls[:-1], r"round_contributions.csv: round 4 has 2 clients"),
             ("rc-inf", "round_contributions.csv", lambda ls: ls[:1] + [ls[1].rsplit(",", 1)[0] + ",-inf"] + ls[2:],
              r"round_contributions.csv: row 2, column contribution: '-inf' is not a finite number"),
             ("cl-twice", "clients.csv", lambda ls: ls[:2] + [ls[1]] + ls[3:], r"clients.csv: row 3: client 0 again"),
             ("cl-gone", "clients.csv", lambda ls: ls[:-1], r"clients.csv: 5 of 6 clients \(client 5 has no row\)"),
             ("m-order", "metrics.csv", lambda ls: ls[:2] + [ls[3], ls[2]] + ls[4:], r"metrics.csv: row 3: round 3, expected 2"),
             ("m-inf", "metrics.csv", lambda ls: ls[:2] + [",".join(ls[2].split(",")[:1] + ["inf"] + ls[2].split(",")[2:])] + ls[3:],
              r"metrics.csv: row 3, column accuracy: 'inf' is not a finite number"),
             ("d-twice", "digests.txt", lambda ls: ls + ["contributions 0123456789abcdef"], r"digests.txt: line 6: contributions a second"),
             ("d-bad", "digests.txt", lambda ls: ls[:-1] + ["contributions 12"], r"digests.txt: line 5: '12' is not a digest"),
             ("c-neg", "costs.txt", lambda ls: ["final_server_seconds -1"] + ls[1:], r"costs.txt: line 1: '-1' is not a number of seconds")]
    assert len(rc) == 1 + 4 * 3 and len(round1) == 3
    for name, file, edit, match in cases:
        with pytest.raises(flce.FlceError, match=match):
            flce.read_run(damaged(recorded, tmp_path, name, file, edit, digest=True))
    cp = damaged(recorded, tmp_path, "cfg", "config.json", lambda ls: ls)
    cfg = json.loads((cp / "config.json").read_text())
    for bad in (-1, 0, 2.5, True, "6", 10 ** 7):
        (cp / "config.json").write_text(json.dumps(dict(cfg, clients=bad)))
        with pytest.raises(flce.FlceError, match=r'config.json: "clients" is missing or not a whole number from 1 to 1000000'):
            flce.read_run(cp)


# ---- hostile arguments: refused by name, only UsageError and FlceError ---------------------

def test_nul_inside_a_path_or_a_word_is_refused(tmp_path):
    """C would take a NUL for the end: write_trace(W + "/a\\0b") wrote W/a, reading="correct\\0x"
    was "correct"."""
    tr = trace_arrays(2, 3, 2, 4, 1)
    with pytest.raises(flce.UsageError, match="path: .*a NUL character inside the path"):
        flce.write_trace(str(tmp_path) + "/a\x00b", **tr)
    assert not (tmp_path / "a").exists()
    with pytest.raises(flce.UsageError, match="reading: 'correct\\\\x00x': a NUL character inside"):
        flce.write_trace(tmp_path / "t", **tr, reading="correct\x00x")
    with pytest.raises(flce.UsageError, match="reading: .*NUL"):
        flce.prototypes(np.ones((2, 2)), [0, 1], [0, 1], reading="correct\x00x")
    with pytest.raises(flce.UsageError, match="reading: .*NUL"):
        flce.TraceWriter(tmp_path / "w", clients=3, classes=2, sizes=[1, 2, 3], reading="all\x00")
    path = flce.write_trace(tmp_path / "t", **tr)
    for kw in (dict(solver="als\x00gd"), dict(rank="2\x003"), dict(missing="zero\x00"), dict(ablate=["M\x00V"]),
               dict(round_weights=str(tmp_path) + "/w\x00.txt"), dict(out=str(tmp_path) + "/o\x00p")):
        with pytest.raises(flce.UsageError, match="NUL"):
            flce.evaluate(path, **kw)
    with pytest.raises(flce.UsageError, match="trace: .*NUL"):
        flce.evaluate(str(path) + "\x00x")
    with pytest.raises(flce.UsageError, match="run_dir: .*NUL"):
        flce.read_run(str(tmp_path) + "/r\x00x")


def test_complex_object_and_nested_inputs_are_refused(tmp_path):
    """a complex prototype became real (a NumPy warning), an object array was converted, a 2-D
    boolean selected was flattened: each refused, naming the argument"""
    tr = trace_arrays(2, 3, 2, 4, 1)
    with pytest.raises(flce.UsageError, match="prototypes: complex numbers, expected real numbers"):
        flce.write_trace(tmp_path / "t", **dict(tr, prototypes=tr["prototypes"] + 1j))
    with pytest.raises(flce.UsageError, match="prototypes: Python objects, expected real numbers"):
        flce.write_trace(tmp_path / "t", **dict(tr, prototypes=tr["prototypes"].astype(object)))
    with pytest.raises(flce.UsageError, match="features: complex numbers"):
        flce.prototypes(np.ones((2, 2)) * 1j, [0, 1], reading="all")
    with pytest.raises(flce.UsageError, match="class_weights: text"):
        flce.write_trace(tmp_path / "t", **tr, class_weights=["1", "2"])
    with pytest.raises(flce.UsageError, match="sizes: complex numbers"):
        flce.write_trace(tmp_path / "t", **dict(tr, sizes=np.array([1, 2, 3]) + 0j))
    assert not (tmp_path / "t").exists()
    w = flce.TraceWriter(tmp_path / "w", clients=3, classes=2, sizes=[1, 2, 3], dim=4)
    with pytest.raises(flce.UsageError, match=r"selected: shape \(1, 3\)"):
        w.add_round(0, np.array([[True, False, True]]), np.zeros((2, 2, 4)))
    with pytest.raises(flce.UsageError, match=r"selected: shape \(2, 1\)"):
        w.add_round(0, [[0], [2]], np.zeros((2, 2, 4)))
    with pytest.raises(flce.UsageError, match="selected: a mask of 2 flags, expected one a client"):
        w.add_round(0, np.array([True, True]), np.zeros((2, 2, 4)))
    with pytest.raises(flce.UsageError, match="prototypes: complex numbers"):
        w.add_round(0, [0, 2], np.zeros((2, 2, 4)) + 1j)
    w.add_round(0, np.array([True, False, True]), np.zeros((2, 2, 4)))  # a mask of one flag a client is fine
    w.close()
    assert np.load(tmp_path / "w" / "selected.npy").tolist() == [[1, 0, 1]]


def test_sizes_are_capped_as_the_trace_writer_caps_them():
    """classes=2**31-1 once allocated ~16 GB; label 2**31-1 was told "C >= 1 needed" (C wrapped
    to -2**31); classes=-5 was a NumPy ValueError"""
    rc, out = child("""
        import numpy as np, flce
        for kw in (dict(classes=2**31 - 1), dict(classes=10001), dict(classes=-5), dict(classes=0), dict(labels=[0, 2**31 - 1])):
            try:
                flce.prototypes(np.ones((2, 2), np.float32), **dict(dict(labels=[0, 1], reading="all"), **kw))
                print("ACCEPTED", kw)
            except flce.UsageError as e:
                print("REFUSED", e)
        """, timeout=60, mem=3 << 30)
    assert rc == 0, out
    assert out.count("REFUSED") == 5 and "REFUSED classes = 2147483647: must be from 1 to 10000" in out, out
    assert "REFUSED classes = -5: must be from 1 to 10000" in out
    assert "REFUSED labels[1] = 2147483647: at most 10000 classes" in out
    with pytest.raises(flce.UsageError, match="clients = 100001: must be from 1 to 100000"):
        flce.TraceWriter("/nonexistent/x", clients=100001, classes=2, sizes=np.ones(100001))
    with pytest.raises(flce.UsageError, match="dim = 65537: must be from 1 to 65536"):
        flce.TraceWriter("/nonexistent/x", clients=2, classes=2, sizes=[1, 2], dim=65537)


class Recursive:
    def __fspath__(self):
        return os.fspath(self)


def test_only_usage_and_flce_errors_escape(recorded, tmp_path):
    """TypeError, MemoryError, RecursionError, ValueError and ctypes' ArgumentError once escaped
    where UsageError / FlceError are documented; each call here raises one of those two, in one
    line"""
    path = flce.write_trace(tmp_path / "t", **trace_arrays(2, 3, 2, 4, 1))
    z, y = np.ones((2, 2)), [0, 1]
    calls = [
        ("evaluate(5)", lambda: flce.evaluate(5), flce.UsageError, "trace: 5: a trace folder"),
        ("solver=5", lambda: flce.evaluate(path, solver=5), flce.UsageError, "solver: 5: a word"),
        ("ablate=[1]", lambda: flce.evaluate(path, ablate=[1]), flce.UsageError, "ablate: 1"),
        ("ablate=5", lambda: flce.evaluate(path, ablate=5), flce.UsageError, "ablate: 5"),
        ("tol=1j", lambda: flce.evaluate(path, tol=1j), flce.UsageError, "tol"),
        ("dict key", lambda: flce.evaluate(dict(trace_arrays(2, 3, 2, 4, 1), bogus=1)), flce.UsageError, "bogus"),
        ("reading=5", lambda: flce.prototypes(z, y, y, reading=5), flce.UsageError, "reading: 5"),
        ("classes=-5", lambda: flce.prototypes(z, y, y, classes=-5), flce.UsageError, "classes = -5"),
        ("path None", lambda: flce.TraceWriter(None, clients=3, classes=2, sizes=[1, 2, 3]), flce.UsageError, "path: None"),
        ("clients True", lambda: flce.TraceWriter(tmp_path / "b", clients=True, classes=2, sizes=[1]), flce.UsageError, "boolean"),
        ("recursive path", lambda: flce.evaluate(Recursive()), flce.UsageError, "recursion"),
        ("read_run(5)", lambda: flce.read_run(5), flce.UsageError, "run_dir: 5"),
        ("max_bytes", lambda: flce.read_run(recorded, max_bytes="x"), flce.UsageError, "max_bytes"),
        ("memory", lambda: flce.TraceWriter(tmp_path / "m", clients=100000, classes=10000, sizes=np.ones(100000), dim=65536)
         .add_round(0, [0], None), flce.FlceError, "out of memory"),
        ("dict protos", lambda: flce.TraceWriter(tmp_path / "d", clients=3, classes=2, sizes=[1, 2, 3], dim=2)
         .add_round(0, [0], {"0": np.zeros((2, 2))}), flce.UsageError, "key '0'"),
    ]
    for name, call, kind, text in calls:
        with pytest.raises(flce.FlceError) as e:
            call()
        assert type(e.value) is kind, (name, type(e.value), e.value)
        assert text in str(e.value) and "\n" not in str(e.value), (name, str(e.value))
