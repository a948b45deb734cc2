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

Every error is a ``flce.UsageError`` (a wrong argument, a file that does not fit; a ValueError)
or a ``flce.FlceError`` (a damaged file, a failure of the work; a RuntimeError), with the C
message where C found it; a bad trace raises, it never crashes the interpreter. The library is
found at $FLCE_LIB, beside this file (an installed package), in the source tree's build folder
(../../build/libflce.so), or on the system's library path.
"""
import csv
import ctypes
import ctypes.util
import functools
import io
import json
import math
import os
import stat
import tempfile
import warnings

import numpy as np

__all__ = ["FlceError", "UsageError", "UnverifiedWarning", "TraceWriter", "write_trace", "prototypes", "evaluate", "Evaluation",
           "read_run", "library_path", "MAX_BYTES"]


class FlceError(RuntimeError):
    """A failure of the work (a damaged trace, out of memory), with the C message."""


class UsageError(FlceError, ValueError):
    """A wrong argument: a shape, a word, a file that does not fit the trace."""


class UnverifiedWarning(UserWarning):
    """read_run: a file that a finished run's digests.txt covers has no digest there to check it
    against (contributions.csv without its "contributions" line, a run without digests.txt)."""


# the trace's caps, as libflce's trace writer and reader hold them (api/flce_api.c, fl/trace_io.c)
MAX_ROUNDS, MAX_CLIENTS, MAX_CLASSES, MAX_DIM = 1000000, 100000, 10000, 65536
# read_run reads at most this many bytes of one file of a run (its max_bytes= raises it); the
# CSV files of a run of this harness are far smaller (a round's contributions: ~30 bytes a client)
MAX_BYTES = 64 << 20
_SMALL_BYTES = 1 << 20  # config.json, digests.txt, costs.txt


def _one_line(e):
    m = str(e) or type(e).__name__
    return " ".join(m.split())


def _api(f):
    """a public function or method: only UsageError and FlceError leave it, each one line naming
    the function (a TypeError of a wrong type, a ValueError, ctypes' ArgumentError, a
    RecursionError become UsageError; MemoryError and anything else FlceError)"""
    name = f.__qualname__.replace(".__init__", "")

    @functools.wraps(f)
    def wrapper(*args, **kw):
        try:
            return f(*args, **kw)
        except (FlceError, Warning):  # (a warning that a filter turned into an error passes as it is)
            raise
        except MemoryError as e:
            raise FlceError("%s: out of memory%s" % (name, ": " + _one_line(e) if str(e) else "")) from None
        except (TypeError, ValueError, ctypes.ArgumentError, OverflowError, IndexError, KeyError, AttributeError,
                RecursionError) as e:
            raise UsageError("%s: %s" % (name, _one_line(e))) from None
        except Exception as e:
            raise FlceError("%s: %s: %s" % (name, type(e).__name__, _one_line(e))) from None
    return wrapper


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
# version 3: flce_api_evaluate takes the sizes of the arrays it fills (2: flce_api_digest); a
# library of another version is refused here, before any of its functions is looked up
_API_VERSION = 3
if _lib.flce_api_version() != _API_VERSION:
    raise ImportError("flce: %s has API version %d; this package knows version %d (build libflce.so from the same "
                      "source)" % (library_path, _lib.flce_api_version(), _API_VERSION))
_lib.flce_api_prototypes.argtypes = [_ptr, _ptr, _ptr, _c_int, _c_int, _c_int, _c_char_p, _ptr, _ptr]
_lib.flce_api_trace_write.argtypes = [_c_char_p, _c_int, _c_int, _c_int, _c_int, _ptr, _ptr, _ptr, _ptr, _ptr, _c_char_p,
                                      _c_u64, _c_char_p, _c_char_p, _c_char_p]
_lib.flce_api_trace_shape.argtypes = [_c_char_p, _ptr]
_lib.flce_api_digest.argtypes = [_ptr, _c_size, _c_char_p]
_lib.flce_api_digest.restype = None
_lib.flce_api_evaluate.argtypes = ([_c_char_p] + [_c_char_p] * 9 + [_c_int, _c_int, _c_int, _c_u64, _c_double, _c_int, _c_char_p]
                                   + [_c_int, _c_int, _c_int] + [_ptr] * 6 + [_c_char_p, _c_size])
for _f in ("flce_api_prototypes", "flce_api_trace_write", "flce_api_trace_shape", "flce_api_evaluate"):
    getattr(_lib, _f).restype = _c_int


def _check(status):
    if status == 0:
        return
    msg = _lib.flce_last_error().decode("utf-8", "replace")
    raise (UsageError if status == 2 else FlceError)(msg)


def _path(p, name):
    """a path for C (bytes): a str, bytes or os.PathLike; a NUL inside (which C would take for
    its end: "W/a\\0b" as "W/a") is refused"""
    try:
        b = os.fsencode(p)
    except TypeError:
        raise UsageError("%s: %r: a path expected (str, bytes or os.PathLike)" % (name, p)) from None
    if b"\0" in b:
        raise UsageError("%s: %r: a NUL character inside the path" % (name, p))
    if not b:
        raise UsageError("%s: an empty path" % name)
    return b


def _word(w, name, numbers=False):
    """a word for C (bytes) or None: text (numbers: also a number, written as Python writes it);
    a NUL inside ("correct\\0x", which C would read as "correct") is refused"""
    if w is None:
        return None
    if numbers and isinstance(w, (int, float, np.integer, np.floating)) and not isinstance(w, (bool, np.bool_)):
        w = str(w)
    if not isinstance(w, str):
        raise UsageError("%s: %r: %s expected" % (name, w, "a word or a number" if numbers else "a word (text)"))
    if "\0" in w:
        raise UsageError("%s: %r: a NUL character inside" % (name, w))
    return w.encode("utf-8")


def _at(name, i):
    return name + "".join("[%d]" % k for k in i)


_KINDS = {"U": "text", "S": "bytes", "c": "complex numbers", "b": "booleans", "O": "Python objects", "V": "records",
          "M": "dates", "m": "time spans"}


def _arr(a, dtype, name, shape=None):
    """a C-contiguous array of dtype (a copy where needed), its shape checked. A value the
    conversion would change is refused, not rounded, wrapped or cut: 10.5 or NaN where whole
    numbers go, 2**32 + 1 into an int32, -1 into an unsigned type, 1e39 into a float32, a
    complex number (its imaginary part), text, an object."""
    dt = np.dtype(dtype)
    try:
        src = np.asarray(a)
    except (TypeError, ValueError, RecursionError) as e:
        raise UsageError("%s: %s" % (name, _one_line(e))) from None
    k = src.dtype.kind
    if dt.kind in "iu" and k == "O" and src.size and all(type(v) is int for v in src.ravel()):
        for i, v in np.ndenumerate(src):  # whole numbers too large for any NumPy type
            if not np.iinfo(dt).min <= v <= np.iinfo(dt).max:
                raise UsageError("%s = %d: outside %d to %d" % (_at(name, i), v, np.iinfo(dt).min, np.iinfo(dt).max))
    allowed = "iubf" if dt.kind in "iu" else "biu" if dt.kind == "b" else "iuf"
    if dt.kind == "b" and k in "iu" and src.size and ((src != 0) & (src != 1)).any():
        i = tuple(np.argwhere((src != 0) & (src != 1))[0])
        raise UsageError("%s = %d: not a flag (True, False, 1 or 0)" % (_at(name, i), int(src[i])))
    if src.size and k not in allowed and not (k == "O" and dt.kind in "iu" and all(type(v) is int for v in src.ravel())):
        if src.ndim == 0 and k not in "cO":
            raise UsageError("%s = %r: not %s" % (name, src.item(), "a whole number" if dt.kind in "iu" else "a number"))
        raise UsageError("%s: %s, expected %s" % (name, _KINDS.get(k, "values of type %s" % src.dtype),
                                                  "whole numbers" if dt.kind in "iu" else "booleans" if dt.kind == "b"
                                                  else "real numbers"))
    if dt.kind in "iu" and src.size and k == "f":
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(src) | (src != np.floor(src))
        if bad.any():
            i = tuple(np.argwhere(bad)[0])
            raise UsageError("%s = %r: not a whole number" % (_at(name, i), src[i].item()))
    if dt.kind in "iu" and src.size and k in "iuf":
        lo, hi = np.iinfo(dt).min, np.iinfo(dt).max
        bad = (src < lo) | (src > hi)
        if bad.any():
            i = tuple(np.argwhere(bad)[0])
            raise UsageError("%s = %d: outside %d to %d" % (_at(name, i), int(src[i]), lo, hi))
    if dt.kind == "f" and src.size and k == "f" and src.dtype.itemsize > dt.itemsize:
        with np.errstate(over="ignore"):
            bad = np.isfinite(src) & ~np.isfinite(src.astype(dt))
        if bad.any():
            i = tuple(np.argwhere(bad)[0])
            raise UsageError("%s = %r: outside %s's range" % (_at(name, i), src[i].item(), dt))
    try:
        x = np.ascontiguousarray(src, dtype=dt)
    except (TypeError, ValueError, OverflowError) as e:
        raise UsageError("%s: %s" % (name, _one_line(e))) from None
    if shape is not None and tuple(x.shape) != tuple(shape):
        raise UsageError("%s: shape %s, expected %s" % (name, tuple(x.shape), tuple(shape)))
    return x


def _int(v, name, dtype=np.int32, lo=None, hi=None):
    """a whole number that fits dtype (the C argument's type) and lo..hi where given, else
    UsageError naming it"""
    if isinstance(v, (bool, np.bool_)):
        raise UsageError("%s = %r: a whole number expected, not a boolean" % (name, v))
    if np.ndim(v) != 0:
        raise UsageError("%s: %r: one number expected" % (name, v))
    x = int(_arr(v, dtype, name).ravel()[0])
    if (lo is not None and x < lo) or (hi is not None and x > hi):
        raise UsageError("%s = %d: must be from %d to %d" % (name, x, lo, hi))
    return x


def _p(x):
    return None if x is None else x.ctypes.data_as(_ptr)


@_api
def prototypes(features, labels, predictions=None, reading="correct", classes=None):
    """eq:method.z: one prototype per class, the mean of the features of the samples of that
    class the model classifies right (reading "correct", the paper's text; predictions needed)
    or of all of them ("all", its equation), or the first sample classified right ("first", the
    authors' released code). features [n][d] (float32), labels [n] and
    predictions [n] (class numbers). Returns (proto [C][d] float32, NaN where a class has none;
    count [C]: the samples that made each). C: `classes`, else max(labels) + 1; at most 10,000
    classes and 65,536 features, as a trace holds them."""
    rd = _word(reading, "reading")
    z = _arr(features, np.float32, "features")
    if z.ndim != 2:
        raise UsageError("features: shape %s, expected [n][d]" % (z.shape,))
    n, d = z.shape
    if not 1 <= d <= MAX_DIM:
        raise UsageError("features: %d features a sample, expected 1 to %d (a trace's cap)" % (d, MAX_DIM))
    if n > np.iinfo(np.int32).max:
        raise UsageError("features: %d samples, at most %d at once" % (n, np.iinfo(np.int32).max))
    y = _arr(labels, np.int32, "labels", (n,))
    if predictions is None and reading in ("correct", "first"):
        raise UsageError("predictions: needed for reading \"%s\" (the samples the model classifies right); " % reading +
                         "reading=\"all\" takes every sample")
    pr = None if predictions is None else _arr(predictions, np.int32, "predictions", (n,))
    if classes is not None:
        C = _int(classes, "classes", lo=1, hi=MAX_CLASSES)
    else:
        top = int(y.max()) if n else 0
        if top >= MAX_CLASSES:
            i = int(np.argmax(y))
            raise UsageError("labels[%d] = %d: at most %d classes (labels 0 to %d), as a trace holds them"
                             % (i, top, MAX_CLASSES, MAX_CLASSES - 1))
        C = max(top + 1, 1)  # (a negative label is then named by C)
    out = np.empty((C, d), np.float32)
    count = np.empty(C, np.int32)
    _check(_lib.flce_api_prototypes(_p(z), _p(y), _p(pr), n, d, C, rd, _p(out), _p(count)))
    return out, count


class TraceWriter:
    """A trace that `flce eval` (and `flce.evaluate`) reads, written from your own loop.

    TraceWriter(path, clients, classes, sizes, dim=64, rounds=None, reading="correct", seed=1,
    class_weights=None, rank=None, mu=None, missing=None), then add_round(round, selected,
    prototypes, present=None, prototypes_alt=None) for rounds 0, 1, ... in order, then close().
    selected: the client numbers of the round (or a boolean mask [clients]); prototypes: their
    prototypes, [len(selected)][C][d] (or a dict client -> [C][d]); a class a client has no
    prototype of is NaN (or False in present [len(selected)][C]). prototypes_alt: the other
    reading's, the same way (optional). The files are written at close(), checked first (nothing
    is written when they do not hold)."""

    @_api
    def __init__(self, path, clients, classes, sizes, dim=64, rounds=None, reading="correct", seed=1, class_weights=None,
                 rank=None, mu=None, missing=None):
        self._bpath = _path(path, "path")
        self.path = os.fspath(path)
        self.n = _int(clients, "clients", lo=1, hi=MAX_CLIENTS)
        self.C = _int(classes, "classes", lo=1, hi=MAX_CLASSES)
        self.d = _int(dim, "dim", lo=1, hi=MAX_DIM)
        self.sizes = _arr(sizes, np.int64, "sizes", (self.n,))
        self.cw = None if class_weights is None else _arr(class_weights, np.float64, "class_weights", (self.C,))
        self._words = (_word(reading, "reading"), _word(rank, "rank", True), _word(mu, "mu", True), _word(missing, "missing"))
        self.reading, self.seed, self.rank, self.mu, self.missing = reading, _int(seed, "seed", np.uint64), rank, mu, missing
        self.expected = None if rounds is None else _int(rounds, "rounds", lo=1, hi=MAX_ROUNDS)
        self.protos, self.alts, self.selected = [], [], []
        self.closed = False

    def _round_array(self, sel, values, present, name):
        full = np.full((self.n, self.C, self.d), np.nan, np.float32)
        if values is None:
            return full
        if isinstance(values, dict):
            keys = []
            for k in values:
                if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
                    raise UsageError("%s: key %r: a client number expected" % (name, k))
                keys.append(int(k))
            if sorted(keys) != sorted(sel):
                raise UsageError("%s: clients %s, but the round selected %s" % (name, sorted(keys), sorted(sel)))
            byk = {int(k): v for k, v in values.items()}
            values = [_arr(byk[k], np.float32, "%s[%d]" % (name, k), (self.C, self.d)) for k in sel]
            values = np.stack(values) if values else np.zeros((0, self.C, self.d), np.float32)
        v = _arr(values, np.float32, name, (len(sel), self.C, self.d))
        if present is not None:
            pm = _arr(present, np.bool_, "present", (len(sel), self.C))
            v = v.copy()
            v[~pm] = np.nan
        for i, k in enumerate(sel):
            full[k] = v[i]
        return full

    @_api
    def add_round(self, round, selected, prototypes, present=None, prototypes_alt=None):
        if self.closed:
            raise UsageError("add_round: the trace is closed")
        if _int(round, "round") != len(self.selected):
            raise UsageError("add_round: round %d, expected round %d (rounds are added in order from 0)" % (round, len(self.selected)))
        if self.expected is not None and len(self.selected) >= self.expected:
            raise UsageError("add_round: round %d, but %d rounds were announced" % (round, self.expected))
        if len(self.selected) >= MAX_ROUNDS:
            raise UsageError("add_round: at most %d rounds (a trace's cap)" % MAX_ROUNDS)
        s = np.asarray(selected)
        if s.ndim != 1:
            raise UsageError("selected: shape %s, expected one client number (or one flag a client) per entry" % (s.shape,))
        if s.dtype == np.bool_:
            if s.shape != (self.n,):
                raise UsageError("selected: a mask of %d flags, expected one a client (%d)" % (len(s), self.n))
            sel = [int(k) for k in np.flatnonzero(s)]
        else:
            sel = [int(k) for k in _arr(s, np.int64, "selected")]
        if len(set(sel)) != len(sel) or any(k < 0 or k >= self.n for k in sel):
            raise UsageError("add_round: selected %s: distinct client numbers from 0 to %d" % (sel, self.n - 1))
        row = np.zeros(self.n, np.uint8)
        row[sel] = 1
        p = self._round_array(sel, prototypes, present, "prototypes")  # checked before anything is kept
        alt = None if prototypes_alt is None else self._round_array(sel, prototypes_alt, None, "prototypes_alt")
        self.selected.append(row)
        self.protos.append(p)
        self.alts.append(alt)

    @_api
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
        reading, rank, mu, missing = self._words
        _check(_lib.flce_api_trace_write(self._bpath, T, self.n, self.C, self.d, _p(P), _p(S), _p(self.sizes), _p(self.cw),
                                         _p(A), reading, self.seed, rank, mu, missing))
        self.closed = True

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        if kind is None:
            self.close()


@_api
def write_trace(path, prototypes, selected, sizes, class_weights=None, prototypes_alt=None, reading="correct", seed=1,
                rank=None, mu=None, missing=None):
    """A whole trace at once from its arrays: prototypes [T][n][C][d] (NaN where none), selected
    [T][n] (0/1), sizes [n]; the rest as TraceWriter's. Returns path (for flce.evaluate). The
    folder is written under the lock `flce run` takes (another writer's lock is a UsageError)
    and swapped in whole: never a mix of two writers' files."""
    bpath = _path(path, "path")
    words = (_word(reading, "reading"), _word(rank, "rank", True), _word(mu, "mu", True), _word(missing, "missing"))
    P = _arr(prototypes, np.float32, "prototypes")
    if P.ndim != 4:
        raise UsageError("prototypes: shape %s, expected [T][n][C][d]" % (P.shape,))
    T, n, C, d = P.shape
    for v, name, hi in ((T, "rounds", MAX_ROUNDS), (n, "clients", MAX_CLIENTS), (C, "classes", MAX_CLASSES), (d, "features", MAX_DIM)):
        if not 1 <= v <= hi:
            raise UsageError("prototypes: shape %s: %d %s, expected 1 to %d" % (P.shape, v, name, hi))
    S = _arr(selected, np.uint8, "selected", (T, n))
    N = _arr(sizes, np.int64, "sizes", (n,))
    A = None if prototypes_alt is None else _arr(prototypes_alt, np.float32, "prototypes_alt", (T, n, C, d))
    W = None if class_weights is None else _arr(class_weights, np.float64, "class_weights", (C,))
    _check(_lib.flce_api_trace_write(bpath, T, n, C, d, _p(P), _p(S), _p(N), _p(W), _p(A), words[0],
                                     _int(seed, "seed", np.uint64), words[1], words[2], words[3]))
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
    if w is None:
        return None
    if isinstance(w, (str, bytes, os.PathLike)):
        return _path(w, name)
    a = _arr(w, np.float64, name)
    if a.ndim != 1:
        raise UsageError("%s: shape %s, expected one weight per %s" % (name, a.shape, name.split("_")[0]))
    path = os.path.join(tmp, name + ".txt")
    with open(path, "w") as f:
        f.write("\n".join(repr(float(x)) for x in a) + "\n")  # repr: the shortest text that reads back as the same double
    return os.fsencode(path)


def _trace_shape(path):
    """T, n, C, d of the trace in path (bytes), as libflce reads it"""
    shape = np.zeros(4, np.int64)
    _check(_lib.flce_api_trace_shape(path, _p(shape)))
    return [int(v) for v in shape]


_TRACE_KEYS = ("prototypes", "selected", "sizes", "class_weights", "prototypes_alt", "reading", "seed", "rank", "mu", "missing")


@_api
def evaluate(trace, rank=None, mu=None, solver=None, completion=None, proto_samples=None, missing=None, ablate=None,
             round_weights=None, class_weights=None, rounds=None, max_iter=None, seed=None, tol=0.0, threads=0, out=None):
    """FLCE's contributions from a trace: `flce eval TRACE` with these flags, the same bits.
    trace: a trace folder, a TraceWriter (closed first), or a dict of a trace's arrays
    (write_trace's arguments: prototypes, selected, sizes, ...). Settings left None are the trace's
    (its completion.json) or the defaults; ablate: a list of "M", "V", "Q", "CMC" (None: the
    trace's; [] none);
    round_weights, class_weights: a file or a sequence of numbers. out: also write flce eval's
    files there. Returns an Evaluation. A trace replaced by one of another shape while it is
    evaluated is refused (UsageError "trace changed: ..."), never copied into arrays of the
    shape read first."""
    if isinstance(trace, TraceWriter):
        trace.close()
        trace = trace.path
    if isinstance(trace, dict):  # the arrays of a trace: written to a temporary folder, then evaluated there
        unknown = sorted(str(k) for k in trace if k not in _TRACE_KEYS)
        if unknown:
            raise UsageError("trace: %s: not an argument of write_trace (%s)" % (", ".join(unknown), ", ".join(_TRACE_KEYS)))
        with tempfile.TemporaryDirectory(prefix="flce-trace-") as tmp:
            write_trace(os.path.join(tmp, "trace"), **trace)
            return evaluate(os.path.join(tmp, "trace"), rank=rank, mu=mu, solver=solver, completion=completion,
                            proto_samples=proto_samples, missing=missing, ablate=ablate, round_weights=round_weights,
                            class_weights=class_weights, rounds=rounds, max_iter=max_iter, seed=seed, tol=tol, threads=threads, out=out)
    if not isinstance(trace, (str, bytes, os.PathLike)):
        raise UsageError("trace: %r: a trace folder, a TraceWriter or a dict of a trace's arrays expected" % (trace,))
    btrace = _path(trace, "trace")
    words = [_word(rank, "rank", True), _word(mu, "mu", True), _word(solver, "solver"), _word(completion, "completion"),
             _word(proto_samples, "proto_samples"), _word(missing, "missing")]
    if isinstance(ablate, str):
        ablate = [ablate]
    if ablate is not None:
        try:
            ablate = list(ablate)
        except TypeError:
            raise UsageError("ablate: %r: a list of M, V, Q, CMC expected" % (ablate,)) from None
        for a in ablate:
            if not isinstance(a, str) or not a or any(ch.isspace() for ch in a):
                raise UsageError("ablate: %r: each one of M, V, Q, CMC" % (a,))
        words.append(_word(" ".join(ablate), "ablate"))
    else:
        words.append(None)
    bout = None if out is None else _path(out, "out")
    max_iter = None if max_iter is None else _int(max_iter, "max_iter")
    seed = None if seed is None else _int(seed, "seed", np.uint64)
    threads = _int(threads, "threads")
    if isinstance(tol, (bool, np.bool_)) or not isinstance(tol, (int, float, np.integer, np.floating)):
        raise UsageError("tol %r: not a number" % (tol,))
    tol = float(tol)
    T, n, C, _ = _trace_shape(btrace)
    if rounds is not None:
        rounds = _int(rounds, "rounds")
        if not 1 <= rounds <= T:
            raise UsageError("rounds %s: must be from 1 to %d (the trace's rounds)" % (rounds, T))
        T = rounds
    contributions, Q, X = np.empty(n), np.empty((T, n, C)), np.empty((T, n, C))
    rk, mus, cv = np.empty(C, np.int32), np.empty(C), np.empty(C)
    settings = ctypes.create_string_buffer(4096)
    with tempfile.TemporaryDirectory(prefix="flce-") as tmp:
        rw, cw = _weights_file(round_weights, tmp, "round_weights"), _weights_file(class_weights, tmp, "class_weights")
        # T, n, C: what the arrays were made for; a trace of another shape there now is refused in C
        st = _lib.flce_api_evaluate(btrace, *words[:6], words[6], rw, cw, -1 if rounds is None else rounds,
                                    -1 if max_iter is None else max_iter, seed is not None, 0 if seed is None else seed, tol,
                                    threads, bout, T, n, C, _p(contributions), _p(Q), _p(X), _p(rk), _p(mus), _p(cv), settings,
                                    len(settings))
    if st:  # a weights file written here from a sequence: the message names the argument instead
        msg = _lib.flce_last_error().decode("utf-8", "replace")
        for name, given in (("round_weights", round_weights), ("class_weights", class_weights)):
            if given is not None and not isinstance(given, (str, bytes, os.PathLike)) and "/%s.txt: " % name in msg:
                msg = name + msg[msg.index("/%s.txt" % name) + len(name) + 5:]
        raise (UsageError if st == 2 else FlceError)(msg)
    used = json.loads(settings.value.decode())
    return Evaluation(contributions=contributions, Q=Q, X=X, rank=rk, mu=mus, cv_error=cv,
                      fallback_rounds=int(used.pop("fallback_rounds", 0)), settings=used)


_WHAT = ((stat.S_ISDIR, "a folder, not a file"), (stat.S_ISFIFO, "a FIFO, not a file"), (stat.S_ISCHR, "a device, not a file"),
         (stat.S_ISBLK, "a device, not a file"))


def _mib(n):
    return "%d MiB" % (n >> 20) if n >= 1 << 20 and not n % (1 << 20) else "%d bytes" % n


def _read_file(path, cap):
    """the bytes of path, a regular file of at most cap bytes (a link to one is followed), else
    FlceError as `flce eval` says it: a FIFO is opened without blocking and refused, so are a
    device (a link to /dev/zero) and a folder, and no more than cap bytes are read of a file
    that grows. None when there is no such file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except OSError as e:
        raise FlceError("%s: cannot open: %s" % (path, e.strerror)) from None
    try:
        sb = os.fstat(fd)
        for test, what in _WHAT:
            if test(sb.st_mode):
                raise FlceError("%s: %s" % (path, what))
        if not stat.S_ISREG(sb.st_mode):
            raise FlceError("%s: not a regular file" % path)
        too_big = FlceError("%s: larger than %s: not a run's file (read_run(..., max_bytes=) reads larger ones)" % (path, _mib(cap)))
        if sb.st_size > cap:
            raise too_big
        os.set_blocking(fd, True)
        chunks, got = [], 0
        while True:
            b = os.read(fd, min(1 << 20, cap + 1 - got))
            if not b:
                break
            chunks.append(b)
            got += len(b)
            if got > cap:
                raise too_big
        return b"".join(chunks)
    except OSError as e:
        raise FlceError("%s: cannot read: %s" % (path, e.strerror)) from None
    finally:
        os.close(fd)


def _text(path, data):
    if b"\0" in data:
        raise FlceError("%s: a NUL byte at byte %d: not a text file" % (path, data.index(b"\0")))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise FlceError("%s: byte %d: not UTF-8 text" % (path, e.start)) from None


def _csv_columns(path, data, empty_ok=()):
    """a CSV file of the run as one float array per column, every row checked: as many cells as
    the header, each a finite number (empty: NaN, only in the columns empty_ok names), or a
    FlceError naming the file, row and column, as `flce report` refuses them"""
    try:
        rows = csv.reader(io.StringIO(_text(path, data), newline=""))
        head = next(rows, None)
        if head is None:
            raise FlceError("%s: empty (no header)" % path)
        if len(set(head)) != len(head) or not all(head):
            raise FlceError("%s: header %s: a column named twice or not at all" % (path, ",".join(head)))
        cols = [[] for _ in head]
        for i, r in enumerate(rows, start=2):
            if len(r) != len(head):
                raise FlceError("%s: row %d: %d cells, the header has %d" % (path, i, len(r), len(head)))
            for h, col, v in zip(head, cols, r):
                if v == "" and (h in empty_ok or empty_ok == "*"):
                    col.append(math.nan)
                    continue
                try:
                    x = float(v)
                except ValueError:
                    x = None
                if x is None or not math.isfinite(x):
                    raise FlceError("%s: row %d, column %s: %r is not a finite number" % (path, i, h, v[:40]))
                col.append(x)
    except csv.Error as e:
        raise FlceError("%s: %s" % (path, _one_line(e))) from None
    return {h: np.array(c, dtype=float) for h, c in zip(head, cols)}


def _need(path, cols, names):
    missing = [c for c in names if c not in cols]
    if missing:
        raise FlceError("%s: no column %s" % (path, ", ".join(missing)))


def _client_rows(path, cols, n, what="client"):
    """the rows of a file of one row a client: each client 0 to n-1 once, every one of them;
    returns the row order (client numbers as ints)"""
    _need(path, cols, [what])
    k = cols[what]
    seen = np.zeros(n, bool)
    for i, v in enumerate(k):
        if v != math.floor(v) or not 0 <= v < n:
            raise FlceError("%s: row %d: client %g: not a client of the run (0 to %d)" % (path, i + 2, v, n - 1))
        if seen[int(v)]:
            raise FlceError("%s: row %d: client %d again (one row a client)" % (path, i + 2, int(v)))
        seen[int(v)] = True
    if not seen.all():
        raise FlceError("%s: %d of %d clients (client %d has no row): damaged or truncated"
                        % (path, int(seen.sum()), n, int(np.flatnonzero(~seen)[0])))
    return k.astype(np.int64)


def _key_values(path, data, numbers):
    """digests.txt or costs.txt: one `name value` a line (comment lines, #, read past); a name
    twice, or a value that is not a digest (16 hex digits, or none) or not a finite number of
    seconds >= 0, is a FlceError naming the line"""
    kv = {}
    for i, line in enumerate(_text(path, data).splitlines(), start=1):
        parts = line.split()
        if not parts or parts[0].startswith("#"):  # a comment (a re-timed study's costs.txt)
            continue
        if len(parts) != 2:
            raise FlceError("%s: line %d: %r: expected a name and a value" % (path, i, line[:60]))
        name, v = parts
        if name in kv:
            raise FlceError("%s: line %d: %s a second time" % (path, i, name))
        if numbers:
            try:
                x = float(v)
            except ValueError:
                x = None
            if x is None or not (math.isfinite(x) and x >= 0):
                raise FlceError("%s: line %d: %r is not a number of seconds (finite, >= 0)" % (path, i, v[:40]))
            kv[name] = x
        else:
            if not (v == "none" or (len(v) == 16 and all(c in "0123456789abcdef" for c in v))):
                raise FlceError("%s: line %d: %r is not a digest (16 hex digits, or none)" % (path, i, v[:40]))
            kv[name] = v
    return kv


def _whole(config, key, lo, hi, path):
    v = config.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not (lo <= v <= hi) or v != math.floor(v):
        raise FlceError("%s: \"%s\" is missing or not a whole number from %d to %d" % (path, key, lo, hi))
    return int(v)


@_api
def read_run(run_dir, max_bytes=MAX_BYTES):
    """A run folder of `flce run` as Python values: config (dict), metrics (dict of arrays per
    column of metrics.csv, one entry a round), contributions [n], round_contributions [T][n] (NaN
    where not selected), clients (dict of arrays: samples, classes_held, noisy), digests (dict),
    costs (dict); the readings of the cosine rule where the run recorded them. verified: the
    files checked against digests.txt; unverified: the files read that no digest covers (a
    contributions.csv among them also warns, UnverifiedWarning). Only regular files are read
    (a FIFO or a device is refused), each at most max_bytes (config.json, digests.txt and
    costs.txt at most 1 MiB), every row checked."""
    cap = _int(max_bytes, "max_bytes", np.int64, lo=1, hi=1 << 40)
    d = os.fsdecode(_path(run_dir, "run_dir"))
    cfg_path = os.path.join(d, "config.json")
    if not os.path.lexists(cfg_path):
        if not os.path.isdir(d):
            raise UsageError("%s: %s" % (d, "not a folder" if os.path.lexists(d) else "no such folder"))
        subs = sorted(x for x in os.listdir(d) if os.path.isfile(os.path.join(d, x, "config.json")))
        if subs:  # flce run with several methods: a folder of runs, one per method
            raise UsageError("%s: a folder of runs (%s), not a run: read one of them, e.g. %s"
                             % (d, ", ".join(subs), os.path.join(d, subs[0])))
        raise UsageError("%s: not a run folder (no config.json)" % d)

    def need(name, cap=cap):
        p = os.path.join(d, name)
        b = _read_file(p, cap)
        if b is None:
            raise FlceError("%s: no such file" % p)
        return p, b

    def maybe(name, cap=cap):
        p = os.path.join(d, name)
        return p, _read_file(p, cap)

    p, b = need("config.json", min(cap, _SMALL_BYTES))
    try:
        config = json.loads(_text(p, b))
    except (ValueError, RecursionError) as e:
        raise FlceError("%s: %s" % (p, _one_line(e))) from None
    if not isinstance(config, dict):
        raise FlceError("%s: not a JSON object" % p)
    # what the rest trusts: the sizes that arrays and loops depend on (as flce report checks them)
    n = _whole(config, "clients", 1, 1000000, p)
    rounds = _whole(config, "rounds", 1, 10000000, p)
    per_round = _whole(config, "per_round", 1, n, p) if "per_round" in config else None
    run = {"dir": d, "config": config}
    unverified, verified = ["config.json"], []

    p, b = need("metrics.csv")
    m = _csv_columns(p, b, empty_ok="*")
    _need(p, m, ["round"])
    T = len(m["round"])
    if T > rounds:
        raise FlceError("%s: %d rounds, config.json's run has %d" % (p, T, rounds))
    if not np.array_equal(m["round"], np.arange(1, T + 1)):
        i = int(np.flatnonzero(m["round"] != np.arange(1, T + 1))[0])
        raise FlceError("%s: row %d: round %s, expected %d (rounds 1, 2, ... in order)"
                        % (p, i + 2, "missing" if math.isnan(m["round"][i]) else "%g" % m["round"][i], i + 1))
    run["metrics"] = m
    unverified.append("metrics.csv")

    p, b = need("contributions.csv")
    con = _csv_columns(p, b)
    _need(p, con, ["client", "contribution"])
    k = _client_rows(p, con, n)
    c = np.full(n, np.nan)
    c[k] = con["contribution"]
    run["contributions"] = c

    p, b = need("clients.csv")
    cl = _csv_columns(p, b)
    _client_rows(p, cl, n)
    run["clients"] = cl
    unverified.append("clients.csv")

    p, b = maybe("round_contributions.csv")
    if b is not None:  # [T][n], T the rounds of metrics.csv (as flce report reads it)
        r = _csv_columns(p, b)
        _need(p, r, ["round", "client", "contribution"])
        rd, kk = r["round"], r["client"]
        mat = np.full((T, n), np.nan)
        per = np.zeros(T + 1, np.int64)
        for i in range(len(rd)):
            t, q = rd[i], kk[i]
            if not (1 <= t <= T and t == math.floor(t) and 0 <= q < n and q == math.floor(q)):
                raise FlceError("%s: row %d: round %g, client %g: not a round of metrics.csv (1 to %d) and a client (0 to %d)"
                                % (p, i + 2, t, q, T, n - 1))
            if not math.isnan(mat[int(t) - 1, int(q)]):
                raise FlceError("%s: row %d: round %d, client %d again (one row a client a round)" % (p, i + 2, int(t), int(q)))
            mat[int(t) - 1, int(q)] = r["contribution"][i]
            per[int(t)] += 1
        if per_round is not None:
            short = [t for t in range(1, T + 1) if per[t] != per_round]
            if short:
                raise FlceError("%s: round %d has %d clients' contributions, expected %d (per_round): damaged or truncated"
                                % (p, short[0], per[short[0]], per_round))
        run["round_contributions"] = mat
        unverified.append("round_contributions.csv")
    p, b = maybe("contributions_rules.csv")
    if b is not None:
        rules = _csv_columns(p, b)
        _client_rows(p, rules, n)
        run["contributions_rules"] = {h: v for h, v in rules.items() if h != "client"}
        unverified.append("contributions_rules.csv")
    for name, key in (("digests.txt", "digests"), ("costs.txt", "costs")):
        p, b = maybe(name, min(cap, _SMALL_BYTES))
        if b is not None:
            run[key] = _key_values(p, b, numbers=key == "costs")
            if key == "costs":
                unverified.append(name)
    # the contributions must be those the run computed: the digest it wrote into digests.txt
    # (of the n doubles, written %.17g and so read back exactly), as `flce report` checks
    want = run.get("digests", {}).get("contributions")
    cpath = os.path.join(d, "contributions.csv")
    if want is not None:
        cc = np.ascontiguousarray(run["contributions"], dtype="<f8")
        got = ctypes.create_string_buffer(17)
        _lib.flce_api_digest(_p(cc), cc.nbytes, got)
        if got.value.decode() != want:
            raise FlceError("%s: not the contributions the run wrote (their digest is not digests.txt's): changed since" % cpath)
        verified.append("contributions.csv")
    else:
        unverified.append("contributions.csv")
        why = "its digests.txt has no contributions line" if "digests" in run else "it has no digests.txt (an unfinished run?)"
        warnings.warn(UnverifiedWarning("%s: not checked: %s, so an edited value cannot be told from the run's"
                                        % (cpath, why)), stacklevel=3)
    run["verified"], run["unverified"] = verified, unverified
    return run
