"""FLCE from Python: record a trace from your own training loop, get the contributions
``flce eval`` gives, bit for bit (it is the same C code: libflce, api/flce.h).

    import flce
    w = flce.TraceWriter("run/trace", clients=10, classes=10, sizes=sizes, dim=64, seed=1)
    for t in range(T):
        protos = {k: flce.prototypes(z_k, y_k, pred_k)[0] for k in selected}   # [C][d], NaN where none
        w.add_round(t, selected, protos)
    w.close()
    res = flce.evaluate("run/trace")          # res.contributions [n], res.X [T][n][C], res.settings
    run = flce.read_run("runs/x/flce")        # a run folder of `flce run` as arrays and dicts

Errors from C arrive as ``flce.FlceError`` (``flce.UsageError`` for a wrong argument or a file
that does not fit) with the C message; a bad trace raises, it never crashes the interpreter.
The library is found at $FLCE_LIB, beside this file (an installed package), in the source
tree's build folder (../../build/libflce.so), or on the system's library path.
"""
import csv
import ctypes
import ctypes.util
import json
import math
import os
import tempfile

import numpy as np

__all__ = ["FlceError", "UsageError", "TraceWriter", "write_trace", "prototypes", "evaluate", "Evaluation", "read_run", "library_path"]


class FlceError(RuntimeError):
    """A failure of the work (a damaged trace, out of memory), with the C message."""


class UsageError(FlceError, ValueError):
    """A wrong argument: a shape, a word, a file that does not fit the trace."""


def _find_library():
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.environ.get("FLCE_LIB", ""), os.path.join(here, "libflce.so"),
                  os.path.join(here, "..", "..", "build", "libflce.so")]
    for c in candidates:
        if c and os.path.isfile(c):
            return os.path.abspath(c)
    found = ctypes.util.find_library("flce")
    if found:
        return found
    raise ImportError("flce: libflce.so not found: build it (cmake --build build: build/libflce.so), "
                      "or set FLCE_LIB to its path")


library_path = _find_library()
_lib = ctypes.CDLL(library_path)
_c_char_p, _c_int, _c_double, _c_u64, _c_size = ctypes.c_char_p, ctypes.c_int, ctypes.c_double, ctypes.c_uint64, ctypes.c_size_t
_ptr = ctypes.c_void_p
_lib.flce_api_version.restype = _c_int
_lib.flce_last_error.restype = _c_char_p
# version 2 (2026-11-28): flce_api_digest added; a library of another version is refused here,
# before any of its functions is looked up
if _lib.flce_api_version() != 2:
    raise ImportError("flce: %s has API version %d; this package knows version 2 (build libflce.so from the same "
                      "source)" % (library_path, _lib.flce_api_version()))
_lib.flce_api_prototypes.argtypes = [_ptr, _ptr, _ptr, _c_int, _c_int, _c_int, _c_char_p, _ptr, _ptr]
_lib.flce_api_trace_write.argtypes = [_c_char_p, _c_int, _c_int, _c_int, _c_int, _ptr, _ptr, _ptr, _ptr, _ptr, _c_char_p,
                                      _c_u64, _c_char_p, _c_char_p, _c_char_p]
_lib.flce_api_trace_shape.argtypes = [_c_char_p, _ptr]
_lib.flce_api_digest.argtypes = [_ptr, _c_size, _c_char_p]
_lib.flce_api_digest.restype = None
_lib.flce_api_evaluate.argtypes = [_c_char_p] + [_c_char_p] * 9 + [_c_int, _c_int, _c_int, _c_u64, _c_double, _c_int,
                                                                   _c_char_p, _ptr, _ptr, _ptr, _ptr, _ptr, _ptr, _c_char_p, _c_size]
for _f in ("flce_api_prototypes", "flce_api_trace_write", "flce_api_trace_shape", "flce_api_evaluate"):
    getattr(_lib, _f).restype = _c_int


def _check(status):
    if status == 0:
        return
    msg = _lib.flce_last_error().decode("utf-8", "replace")
    raise (UsageError if status == 2 else FlceError)(msg)


def _b(s):
    return None if s is None else os.fsencode(s) if isinstance(s, (str, os.PathLike)) else s


def _at(name, i):
    return name + "".join("[%d]" % k for k in i)


def _arr(a, dtype, name, shape=None):
    """a C-contiguous array of dtype (a copy where needed), its shape checked. A value the
    conversion would change is refused, not rounded or wrapped: 10.5 or NaN where whole numbers
    go, 2**32 + 1 into an int32, -1 into an unsigned type, 1e39 into a float32."""
    dt = np.dtype(dtype)
    try:
        src = np.asarray(a)
        if dt.kind in "iu" and src.dtype.kind == "O" and all(type(v) is int for v in src.ravel()):
            for i, v in np.ndenumerate(src):  # whole numbers too large for any NumPy type
                if not np.iinfo(dt).min <= v <= np.iinfo(dt).max:
                    raise UsageError("%s = %d: outside %d to %d" % (_at(name, i), v, np.iinfo(dt).min, np.iinfo(dt).max))
        if dt.kind in "iu" and src.size and src.dtype.kind not in "iubO":
            if src.dtype.kind != "f":
                if src.ndim == 0:
                    raise UsageError("%s = %r: not a whole number" % (name, src.item()))
                raise UsageError("%s: %s, expected whole numbers" % (name, {"U": "text", "S": "bytes", "c": "complex numbers"}
                                                                      .get(src.dtype.kind, "values of type %s" % src.dtype)))
            with np.errstate(invalid="ignore"):
                bad = ~np.isfinite(src) | (src != np.floor(src))
            if bad.any():
                i = tuple(np.argwhere(bad)[0])
                raise UsageError("%s = %r: not a whole number" % (_at(name, i), src[i].item()))
        if dt.kind in "iu" and src.size and src.dtype.kind in "iuf":
            lo, hi = np.iinfo(dt).min, np.iinfo(dt).max
            bad = (src < lo) | (src > hi)
            if bad.any():
                i = tuple(np.argwhere(bad)[0])
                raise UsageError("%s = %d: outside %d to %d" % (_at(name, i), int(src[i]), lo, hi))
        if dt.kind == "f" and src.size and src.dtype.kind == "f" and src.dtype.itemsize > dt.itemsize:
            with np.errstate(over="ignore"):
                bad = np.isfinite(src) & ~np.isfinite(src.astype(dt))
            if bad.any():
                i = tuple(np.argwhere(bad)[0])
                raise UsageError("%s = %r: outside %s's range" % (_at(name, i), src[i].item(), dt))
        x = np.ascontiguousarray(src, dtype=dt)
    except UsageError:
        raise
    except (TypeError, ValueError) as e:
        raise UsageError("%s: %s" % (name, e)) from None
    if shape is not None and tuple(x.shape) != tuple(shape):
        raise UsageError("%s: shape %s, expected %s" % (name, tuple(x.shape), tuple(shape)))
    return x


def _int(v, name, dtype=np.int32):
    """a whole number that fits dtype (the C argument's type), else UsageError naming it"""
    if np.ndim(v) != 0:
        raise UsageError("%s: %r: one number expected" % (name, v))
    return int(_arr(v, dtype, name)[0])  # (a NumPy scalar becomes an array of one)


def _p(x):
    return None if x is None else x.ctypes.data_as(_ptr)


def prototypes(features, labels, predictions=None, reading="correct", classes=None):
    """eq:method.z: one prototype per class, the mean of the features of the samples of that
    class the model classifies right (reading "correct", the paper's text; predictions needed)
    or of all of them ("all", its equation). features [n][d] (float32), labels [n] and
    predictions [n] (class numbers). Returns (proto [C][d] float32, NaN where a class has none;
    count [C]: the samples that made each). C: `classes`, else max(labels) + 1."""
    z = _arr(features, np.float32, "features")
    if z.ndim != 2:
        raise UsageError("features: shape %s, expected [n][d]" % (z.shape,))
    n, d = z.shape
    y = _arr(labels, np.int32, "labels", (n,))
    if predictions is None and reading == "correct":
        raise UsageError("predictions: needed for reading \"correct\" (the samples the model classifies right); "
                         "reading=\"all\" takes every sample")
    pr = None if predictions is None else _arr(predictions, np.int32, "predictions", (n,))
    C = _int(classes, "classes") if classes is not None else (int(y.max()) + 1 if n else 1)
    out = np.empty((C, d), np.float32)
    count = np.empty(C, np.int32)
    _check(_lib.flce_api_prototypes(_p(z), _p(y), _p(pr), n, d, C, _b(reading), _p(out), _p(count)))
    return out, count


class TraceWriter:
    """A trace that `flce eval` (and `flce.evaluate`) reads, written from your own loop.

    TraceWriter(path, clients, classes, sizes, dim=64, rounds=None, reading="correct", seed=1,
    class_weights=None, rank=None, mu=None, missing=None), then add_round(round, selected,
    prototypes, present=None, prototypes_alt=None) for rounds 0, 1, ... in order, then close().
    selected: the client numbers of the round; prototypes: their prototypes, [len(selected)][C][d]
    (or a dict client -> [C][d]); a class a client has no prototype of is NaN (or False in
    present [len(selected)][C]). prototypes_alt: the other reading's, the same way (optional).
    The files are written at close(), checked first (nothing is written when they do not hold)."""

    def __init__(self, path, clients, classes, sizes, dim=64, rounds=None, reading="correct", seed=1, class_weights=None,
                 rank=None, mu=None, missing=None):
        self.path, self.n, self.C, self.d = os.fspath(path), _int(clients, "clients"), _int(classes, "classes"), _int(dim, "dim")
        if self.n < 1 or self.C < 1 or self.d < 1:
            raise UsageError("clients, classes and dim must be at least 1")
        self.sizes = _arr(sizes, np.int64, "sizes", (self.n,))
        self.cw = None if class_weights is None else _arr(class_weights, np.float64, "class_weights", (self.C,))
        self.reading, self.seed, self.rank, self.mu, self.missing = reading, _int(seed, "seed", np.uint64), rank, mu, missing
        self.expected = None if rounds is None else _int(rounds, "rounds")
        self.protos, self.alts, self.selected = [], [], []
        self.closed = False

    def _round_array(self, sel, values, present, name):
        full = np.full((self.n, self.C, self.d), np.nan, np.float32)
        if values is None:
            return full
        if isinstance(values, dict):
            if sorted(values) != sorted(sel):
                raise UsageError("%s: clients %s, but the round selected %s" % (name, sorted(values), sorted(sel)))
            values = [values[k] for k in sel]
        v = _arr(values, np.float32, name, (len(sel), self.C, self.d))
        if present is not None:
            pm = _arr(present, np.bool_, "present", (len(sel), self.C))
            v = v.copy()
            v[~pm] = np.nan
        for i, k in enumerate(sel):
            full[k] = v[i]
        return full

    def add_round(self, round, selected, prototypes, present=None, prototypes_alt=None):
        if self.closed:
            raise UsageError("add_round: the trace is closed")
        if _int(round, "round") != len(self.selected):
            raise UsageError("add_round: round %d, expected round %d (rounds are added in order from 0)" % (round, len(self.selected)))
        sel = [int(k) for k in (np.flatnonzero(np.asarray(selected)) if np.asarray(selected).dtype == np.bool_
                                else _arr(selected, np.int64, "selected").ravel())]
        if len(set(sel)) != len(sel) or any(k < 0 or k >= self.n for k in sel):
            raise UsageError("add_round: selected %s: distinct client numbers from 0 to %d" % (sel, self.n - 1))
        row = np.zeros(self.n, np.uint8)
        row[sel] = 1
        p = self._round_array(sel, prototypes, present, "prototypes")  # checked before anything is kept
        alt = None if prototypes_alt is None else self._round_array(sel, prototypes_alt, None, "prototypes_alt")
        self.selected.append(row)
        self.protos.append(p)
        self.alts.append(alt)

    def close(self):
        if self.closed:
            return
        T = len(self.selected)
        if T == 0:
            raise UsageError("close: no round added")
        if self.expected is not None and T != int(self.expected):
            raise UsageError("close: %d rounds added, %d announced" % (T, self.expected))
        if any(a is None for a in self.alts) and not all(a is None for a in self.alts):
            raise UsageError("close: prototypes_alt given in some rounds only")
        P = np.ascontiguousarray(np.stack(self.protos))
        A = None if self.alts[0] is None else np.ascontiguousarray(np.stack(self.alts))
        S = np.ascontiguousarray(np.stack(self.selected))
        _check(_lib.flce_api_trace_write(_b(self.path), T, self.n, self.C, self.d, _p(P), _p(S), _p(self.sizes), _p(self.cw),
                                         _p(A), _b(self.reading), self.seed, _b(self.rank), _b(self.mu), _b(self.missing)))
        self.closed = True

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        if kind is None:
            self.close()


def write_trace(path, prototypes, selected, sizes, class_weights=None, prototypes_alt=None, reading="correct", seed=1,
                rank=None, mu=None, missing=None):
    """A whole trace at once from its arrays: prototypes [T][n][C][d] (NaN where none), selected
    [T][n] (0/1), sizes [n]; the rest as TraceWriter's. Returns path (for flce.evaluate)."""
    P = _arr(prototypes, np.float32, "prototypes")
    if P.ndim != 4:
        raise UsageError("prototypes: shape %s, expected [T][n][C][d]" % (P.shape,))
    T, n, C, d = P.shape
    S = _arr(selected, np.uint8, "selected", (T, n))
    N = _arr(sizes, np.int64, "sizes", (n,))
    A = None if prototypes_alt is None else _arr(prototypes_alt, np.float32, "prototypes_alt", (T, n, C, d))
    W = None if class_weights is None else _arr(class_weights, np.float64, "class_weights", (C,))
    _check(_lib.flce_api_trace_write(_b(os.fspath(path)), T, n, C, d, _p(P), _p(S), _p(N), _p(W), _p(A), _b(reading),
                                     _int(seed, "seed", np.uint64),
                                     _b(None if rank is None else str(rank)), _b(None if mu is None else str(mu)), _b(missing)))
    return path


class Evaluation:
    """What flce.evaluate returns: contributions [n] (sum 1), Q and X [T][n][C] (the observed
    momentum, NaN where not selected; the completed matrix), rank and mu [C] (the completion's,
    per class), cv_error [C] (held-out error of the choice, NaN unless auto), settings (dict),
    fallback_rounds (the rounds in which no selected client had a prototype: their momentum is
    uniform; every round such, the contributions say nothing and are uniform too)."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __repr__(self):
        fb = ", fallback_rounds=%d" % self.fallback_rounds if self.fallback_rounds else ""
        return "Evaluation(n=%d, rounds=%d%s, settings=%s)" % (len(self.contributions), self.Q.shape[0], fb, self.settings)


def _weights_file(w, tmp, name):
    """a sequence of weights as the file flce eval reads (a file's path passes through); its
    errors then name the argument, not the temporary file"""
    if w is None or isinstance(w, (str, os.PathLike)):
        return w
    a = _arr(w, np.float64, name)
    if a.ndim != 1:
        raise UsageError("%s: shape %s, expected one weight per %s" % (name, a.shape, name.split("_")[0]))
    path = os.path.join(tmp, name + ".txt")
    with open(path, "w") as f:
        f.write("\n".join(repr(float(x)) for x in a) + "\n")  # repr: the shortest text that reads back as the same double
    return path


def evaluate(trace, rank=None, mu=None, solver=None, completion=None, proto_samples=None, missing=None, ablate=None,
             round_weights=None, class_weights=None, rounds=None, max_iter=None, seed=None, tol=0.0, threads=0, out=None):
    """FLCE's contributions from a trace: `flce eval TRACE` with these flags, the same bits.
    trace: a trace folder, a TraceWriter (closed first), or a dict of a trace's arrays
    (write_trace's arguments: prototypes, selected, sizes, ...). Settings left None are the trace's
    (its completion.json) or the defaults; ablate: a list of "M", "V", "Q", "CMC" (None: the
    trace's; [] none);
    round_weights, class_weights: a file or a sequence of numbers. out: also write flce eval's
    files there. Returns an Evaluation."""
    if isinstance(trace, TraceWriter):
        trace.close()
        trace = trace.path
    if isinstance(trace, dict):  # the arrays of a trace: written to a temporary folder, then evaluated there
        with tempfile.TemporaryDirectory(prefix="flce-trace-") as tmp:
            write_trace(os.path.join(tmp, "trace"), **trace)
            return evaluate(os.path.join(tmp, "trace"), rank=rank, mu=mu, solver=solver, completion=completion,
                            proto_samples=proto_samples, missing=missing, ablate=ablate, round_weights=round_weights,
                            class_weights=class_weights, rounds=rounds, max_iter=max_iter, seed=seed, tol=tol, threads=threads, out=out)
    trace = os.fspath(trace)
    shape = np.zeros(4, np.int64)
    _check(_lib.flce_api_trace_shape(_b(trace), _p(shape)))
    T, n, C = int(shape[0]), int(shape[1]), int(shape[2])
    if rounds is not None:
        rounds = _int(rounds, "rounds")
        if not 1 <= rounds <= T:
            raise UsageError("rounds %s: must be from 1 to %d (the trace's rounds)" % (rounds, T))
        T = rounds
    max_iter = None if max_iter is None else _int(max_iter, "max_iter")
    seed = None if seed is None else _int(seed, "seed", np.uint64)
    threads = _int(threads, "threads")
    try:
        tol = float(tol)
    except (TypeError, ValueError):
        raise UsageError("tol %r: not a number" % (tol,)) from None
    if isinstance(ablate, str):
        ablate = [ablate]
    contributions, Q, X = np.empty(n), np.empty((T, n, C)), np.empty((T, n, C))
    rk, mus, cv = np.empty(C, np.int32), np.empty(C), np.empty(C)
    settings = ctypes.create_string_buffer(4096)
    with tempfile.TemporaryDirectory(prefix="flce-") as tmp:
        rw, cw = _weights_file(round_weights, tmp, "round_weights"), _weights_file(class_weights, tmp, "class_weights")
        st = _lib.flce_api_evaluate(_b(trace), _b(None if rank is None else str(rank)), _b(None if mu is None else str(mu)),
                                    _b(solver), _b(completion), _b(proto_samples), _b(missing),
                                    _b(None if ablate is None else " ".join(ablate)),
                                    _b(rw), _b(cw), -1 if rounds is None else rounds, -1 if max_iter is None else max_iter,
                                    seed is not None, 0 if seed is None else seed, tol, threads, _b(out),
                                    _p(contributions), _p(Q), _p(X), _p(rk), _p(mus), _p(cv), settings, len(settings))
    if st:  # a weights file written here from a sequence: the message names the argument instead
        msg = _lib.flce_last_error().decode("utf-8", "replace")
        for name, given in (("round_weights", round_weights), ("class_weights", class_weights)):
            if given is not None and not isinstance(given, (str, os.PathLike)) and "/%s.txt: " % name in msg:
                msg = name + msg[msg.index("/%s.txt" % name) + len(name) + 5:]
        raise (UsageError if st == 2 else FlceError)(msg)
    used = json.loads(settings.value.decode())
    return Evaluation(contributions=contributions, Q=Q, X=X, rank=rk, mu=mus, cv_error=cv,
                      fallback_rounds=int(used.pop("fallback_rounds", 0)), settings=used)


def _csv_columns(path):
    """a CSV file of the run as one float array per column; a row of another length or a cell
    that is not a number (empty: NaN) is a FlceError naming the file, row and column, as `flce
    report` refuses them: never a column silently of text or short"""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        return {}
    head = rows[0]
    cols = {h: [] for h in head}
    for i, r in enumerate(rows[1:], start=2):
        if len(r) != len(head):
            raise FlceError("%s: row %d: %d cells, the header has %d" % (path, i, len(r), len(head)))
        for h, v in zip(head, r):
            try:
                cols[h].append(float(v) if v != "" else math.nan)
            except ValueError:
                raise FlceError("%s: row %d, column %s: %r is not a number" % (path, i, h, v)) from None
    return {h: np.array(v, dtype=float) for h, v in cols.items()}


def read_run(run_dir):
    """A run folder of `flce run` as Python values: config (dict), metrics (dict of arrays per
    column of metrics.csv, one entry a round), contributions [n], round_contributions [T][n] (NaN
    where not selected), clients (dict of arrays: samples, classes_held, noisy), digests (dict),
    costs (dict); the readings of the cosine rule where the run recorded them."""
    d = os.fspath(run_dir)
    if not os.path.isfile(os.path.join(d, "config.json")):
        if not os.path.isdir(d):
            raise UsageError("%s: no such folder" % d)
        subs = sorted(x for x in os.listdir(d) if os.path.isfile(os.path.join(d, x, "config.json")))
        if subs:  # flce run with several methods: a folder of runs, one per method
            raise UsageError("%s: a folder of runs (%s), not a run: read one of them, e.g. %s"
                             % (d, ", ".join(subs), os.path.join(d, subs[0])))
        raise UsageError("%s: not a run folder (no config.json)" % d)
    try:
        with open(os.path.join(d, "config.json")) as f:
            config = json.load(f)
    except (ValueError, OSError) as e:
        raise FlceError("%s: %s" % (os.path.join(d, "config.json"), e)) from None
    if not isinstance(config, dict):
        raise FlceError("%s: not a JSON object" % os.path.join(d, "config.json"))
    run = {"dir": d, "config": config}
    try:
        run["metrics"] = _csv_columns(os.path.join(d, "metrics.csv"))
        con = _csv_columns(os.path.join(d, "contributions.csv"))
        n = int(config["clients"])
        c = np.full(n, np.nan)
        c[con["client"].astype(int)] = con["contribution"]
        run["contributions"] = c
        run["clients"] = _csv_columns(os.path.join(d, "clients.csv"))
        rc = os.path.join(d, "round_contributions.csv")
        if os.path.isfile(rc):  # [T][n], T the rounds of metrics.csv (as flce report reads it)
            r = _csv_columns(rc)
            T = len(run["metrics"].get("round", []))
            rd, k = r.get("round", np.zeros(0)), r.get("client", np.zeros(0))
            bad = ~((rd >= 1) & (rd <= T) & (rd == np.floor(rd)) & (k >= 0) & (k < n) & (k == np.floor(k)))
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise FlceError("%s: row %d: round %g, client %g: not a round of metrics.csv (1 to %d) and a client (0 to %d)"
                                % (rc, i + 2, rd[i], k[i], T, n - 1))
            m = np.full((T, n), np.nan)
            m[rd.astype(int) - 1, k.astype(int)] = r["contribution"]
            run["round_contributions"] = m
        rules = os.path.join(d, "contributions_rules.csv")
        if os.path.isfile(rules):
            run["contributions_rules"] = {k: v for k, v in _csv_columns(rules).items() if k != "client"}
        for name, key in (("digests.txt", "digests"), ("costs.txt", "costs")):
            p = os.path.join(d, name)
            if os.path.isfile(p):
                kv = {}
                with open(p) as f:
                    for i, line in enumerate(f, start=1):
                        parts = line.split()
                        if len(parts) < 2 or parts[0].startswith("#"):  # a comment (a re-timed study's costs.txt)
                            continue
                        try:
                            kv[parts[0]] = parts[1] if key == "digests" else float(parts[1])
                        except ValueError:
                            raise FlceError("%s: line %d: %r is not a number" % (p, i, parts[1])) from None
                run[key] = kv
    except (KeyError, ValueError, IndexError, OSError) as e:
        raise FlceError("%s: %s" % (d, e)) from None
    # the contributions must be those the run computed: the digest it wrote into digests.txt
    # (of the n doubles, written %.17g and so read back exactly), as `flce report` checks
    want = run.get("digests", {}).get("contributions")
    if want is not None:
        c = np.ascontiguousarray(run["contributions"], dtype="<f8")
        got = ctypes.create_string_buffer(17)
        _lib.flce_api_digest(_p(c), c.nbytes, got)
        if got.value.decode() != want:
            raise FlceError("%s: not the contributions the run wrote (their digest is not digests.txt's): changed since"
                            % os.path.join(d, "contributions.csv"))
    return run
