/* flce_api.c: libflce's C API (flce.h) over the harness's own functions: the prototypes
 * (flce_prototypes), the trace files (the .npy writer and the completion record that `flce run`
 * uses) and the evaluation (flce_eval_dir, what `flce eval` calls). Nothing here computes an
 * equation of its own. */
#define _GNU_SOURCE /* renameat2 (RENAME_EXCHANGE): a trace folder swapped in whole */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <time.h>
#include <unistd.h>

#include "eval_dir.h"
#include "flce.h"

static _Thread_local char last_error[sizeof(((flce_err *)0)->msg)];

int flce_api_version(void) { return FLCE_API_VERSION; }
const char *flce_last_error(void) { return last_error; }

/* 0, 2 (an argument: FLCE_ERR_ARG) or 1, the message kept */
static int done(flce_status st, const flce_err *e) {
    if (!st) {
        last_error[0] = '\0';
        return 0;
    }
    snprintf(last_error, sizeof last_error, "%s", e->msg);
    return st == FLCE_ERR_ARG ? 2 : 1;
}

static int arg_error(const char *msg) {
    snprintf(last_error, sizeof last_error, "%s", msg);
    return 2;
}

int flce_api_prototypes(const float *z, const int32_t *labels, const int32_t *pred, int n, int d, int C, const char *reading,
                        float *proto, int32_t *count) {
    int all = reading && !strcmp(reading, "all"), first = reading && !strcmp(reading, "first");
    if (!reading || (!all && !first && strcmp(reading, "correct"))) return arg_error("reading: correct, all or first");
    if (n < 0 || d < 1 || C < 1 || d > 65536 || C > 10000) /* the trace's caps (flce_api_trace_write) */
        return arg_error("prototypes: n >= 0, d from 1 to 65536 and C from 1 to 10000 needed");
    if (!z || !labels || !proto || !count || (!all && !pred)) return arg_error("prototypes: an array is missing");
    for (int i = 0; i < n; i++) {
        if (labels[i] < 0 || labels[i] >= C) {
            snprintf(last_error, sizeof last_error, "labels[%d] = %d: not a class of %d", i, labels[i], C);
            return 2;
        }
        if (!all && (pred[i] < 0 || pred[i] >= C)) {
            snprintf(last_error, sizeof last_error, "predictions[%d] = %d: not a class of %d", i, pred[i], C);
            return 2;
        }
    }
    for (size_t i = 0; i < (size_t)n * d; i++)
        if (!isfinite(z[i])) {
            snprintf(last_error, sizeof last_error, "features[%zu][%zu] is not finite", i / (size_t)d, i % (size_t)d);
            return 2;
        }
    if (first) flce_prototypes_first(z, (const int *)labels, (const int *)pred, n, d, C, proto, (int *)count); /* the released code's */
    else flce_prototypes(z, (const int *)labels, (const int *)(all ? labels : pred), n, d, C, proto, (int *)count);
    last_error[0] = '\0';
    return 0;
}

/* prototypes [T][n][C][d]: NaN for every class of a client not selected, each class vector of a
 * selected client all finite or all NaN (as the evaluator requires) */
static int check_protos(const char *what, int T, int n, int C, int d, const float *p, const uint8_t *sel) {
    for (int t = 0; t < T; t++)
        for (int k = 0; k < n; k++)
            for (int c = 0; c < C; c++) {
                const float *v = p + (((size_t)t * n + k) * C + c) * d;
                int nan = 0;
                for (int j = 0; j < d; j++) nan += isnan(v[j]) ? 1 : isinf(v[j]) ? d + 1 : 0;
                if (nan > d) {
                    snprintf(last_error, sizeof last_error, "%s[%d][%d][%d]: an infinite value", what, t, k, c);
                    return 2;
                }
                if (nan && nan < d) {
                    snprintf(last_error, sizeof last_error, "%s[%d][%d][%d]: partly NaN (a prototype is all finite or all NaN)", what, t, k, c);
                    return 2;
                }
                if (!sel[(size_t)t * n + k] && nan < d) {
                    snprintf(last_error, sizeof last_error, "%s[%d][%d][%d]: a prototype of a client not selected in round %d", what, t, k,
                             c, t + 1);
                    return 2;
                }
            }
    return 0;
}

/* The files a trace written here consists of; a folder holding anything else is not ours to
 * write into (a run's folder, the trace folder of a run: its Q.npy and X_completed.npy are the
 * run's record). */
static const char *const TRACE_FILES[] = {"prototypes.npy", "prototypes_alt.npy", "selected.npy", "data_sizes.npy",
                                          "class_weights.npy", "completion.json", "prototypes_first.npy"};
enum { NTF = sizeof TRACE_FILES / sizeof TRACE_FILES[0] };

/* 0 when dir is absent, empty or holds only a trace written here (and leftovers of one that
 * was interrupted), and is not the trace folder of a run; else 2 with the reason kept. path: the
 * folder to look into (resolved), dir: its name in messages. */
static int trace_dir_ours(const char *path, const char *dir) {
    char run_trace[64] = "", run[64] = "", other[256] = "";
    DIR *dd = opendir(path);
    if (dd) { /* absent (or not a folder: flce_mkdirs says so) */
        for (struct dirent *en; (en = readdir(dd));) {
            const char *nm = en->d_name;
            if (!strcmp(nm, ".") || !strcmp(nm, "..") || !strncmp(nm, ".flce-tmp-", 10)) continue;
            int ours = 0;
            for (int i = 0; i < NTF && !ours; i++) ours = !strcmp(nm, TRACE_FILES[i]);
            if (ours) continue;
            if (!strcmp(nm, "Q.npy") || !strcmp(nm, "X_completed.npy")) snprintf(run_trace, sizeof run_trace, "%s", nm);
            else if (!strcmp(nm, "config.json") || !strcmp(nm, "digests.txt")) snprintf(run, sizeof run, "%s", nm);
            else if (!other[0]) snprintf(other, sizeof other, "%.255s", nm);
        }
        closedir(dd);
    }
    if (run_trace[0])
        snprintf(last_error, sizeof last_error, "%s: the trace folder of a run (its %s is the run's record): give another folder",
                 dir, run_trace);
    else if (run[0])
        snprintf(last_error, sizeof last_error, "%s: a run folder (it holds %s): give another folder", dir, run);
    else if (other[0])
        snprintf(last_error, sizeof last_error, "%s: holds %s, not a file of a trace: give a new or empty folder, or a trace "
                 "written here", dir, other);
    if (run_trace[0] || run[0] || other[0]) return 2;
    /* the trace folder of a run that has not written its Q.npy yet (one running, or interrupted:
     * --resume continues from it): the folder above holds the run's config.json and device.txt
     * (written together, before the first round), or its state.bin */
    char p[PATH_MAX + 32];
    struct stat sb;
    snprintf(p, sizeof p, "%s/../config.json", path);
    int cfg = stat(p, &sb) == 0;
    snprintf(p, sizeof p, "%s/../device.txt", path);
    int dev = stat(p, &sb) == 0;
    snprintf(p, sizeof p, "%s/../state.bin", path);
    if (cfg && (dev || stat(p, &sb) == 0)) {
        snprintf(last_error, sizeof last_error, "%s: the trace folder of a run (the folder above holds the run's config.json): give "
                 "another folder", dir);
        return 2;
    }
    return 0;
}

/* The folder that path names, open and flock()ed exclusively: the lock `flce run` takes on its
 * --out folder (fl/run_files.c), so that one writer at a time writes it. The folder locked is
 * the one path names once the lock is held (a writer that finished meanwhile swapped another
 * in: that one is locked instead). The fd, or -1 with the message kept and *rc 2 (another
 * process writes it) or 1. A file system without flock() is written unlocked, as flce run does. */
static int lock_dir(const char *path, const char *dir, int *rc) {
    int waited = 0;
    for (int tries = 0; tries < 1000; tries++) {
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
            if (errno == ENOENT && mkdir(path, 0755) == 0) continue; /* removed by a writer that failed: made again */
            snprintf(last_error, sizeof last_error, "%s: cannot open: %s", dir, strerror(errno));
            return *rc = 1, -1;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int er = errno;
            if (er == ENOLCK || er == EOPNOTSUPP || er == EINVAL) return fd;
            /* held: by readers only (flce eval, evaluate() share-lock a trace while they read it), whom
             * the writer waits for (at most 600 s), or by a writer, which refuses it at once */
            int readers = er == EWOULDBLOCK && flock(fd, LOCK_SH | LOCK_NB) == 0;
            close(fd);
            if (readers && waited++ < 30000) {
                struct timespec ts = {0, 20000000};
                nanosleep(&ts, NULL);
                tries--;
                continue;
            }
            if (er == EWOULDBLOCK) {
                snprintf(last_error, sizeof last_error, "%s: another process is writing this folder now (a trace, or a flce run): "
                         "wait for it to end, or write elsewhere", dir);
                return *rc = 2, -1;
            }
            snprintf(last_error, sizeof last_error, "%s: cannot lock: %s", dir, strerror(er));
            return *rc = 1, -1;
        }
        struct stat a, b;
        if (fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) return fd;
        close(fd); /* replaced while being locked: the folder there now */
    }
    snprintf(last_error, sizeof last_error, "%s: replaced by other writers again and again while this one tried to lock it", dir);
    return *rc = 1, -1;
}

/* the entries of folder path that are not a trace's files (nor leftovers of an interrupted
 * write): the first one's name into name, 0 when none */
static int foreign_entry(const char *path, char *name, size_t cap) {
    DIR *dd = opendir(path);
    name[0] = '\0';
    if (!dd) return 0;
    for (struct dirent *en; (en = readdir(dd));) {
        const char *nm = en->d_name;
        int ours = !strcmp(nm, ".") || !strcmp(nm, "..") || !strncmp(nm, ".flce-tmp-", 10);
        for (int i = 0; i < NTF && !ours; i++) ours = !strcmp(nm, TRACE_FILES[i]);
        if (!ours) {
            snprintf(name, cap, "%s", nm);
            break;
        }
    }
    closedir(dd);
    return name[0] != '\0';
}

/* a folder of a trace's files (and leftovers of .flce-tmp- files) removed */
static void remove_trace_dir(const char *path) {
    char p[PATH_MAX + 300];
    DIR *dd = opendir(path);
    if (dd) {
        for (struct dirent *en; (en = readdir(dd));) {
            const char *nm = en->d_name;
            int ours = !strncmp(nm, ".flce-tmp-", 10);
            for (int i = 0; i < NTF && !ours; i++) ours = !strcmp(nm, TRACE_FILES[i]);
            if (ours && snprintf(p, sizeof p, "%s/%s", path, nm) < (int)sizeof p) unlink(p);
        }
        closedir(dd);
    }
    rmdir(path);
}

static atomic_uint tmp_counter;

int flce_api_trace_write(const char *dir, int T, int n, int C, int d, const float *prototypes, const uint8_t *selected,
                         const int64_t *sizes, const double *class_weights, const float *prototypes_alt, const char *reading,
                         uint64_t seed, const char *rank, const char *mu, const char *missing) {
    flce_err e = {{0}};
    if (!dir || !*dir) return arg_error("trace: no folder given");
    if (strlen(dir) > 4000) return arg_error("trace: the folder's name is longer than 4000 bytes");
    if (T < 1 || n < 1 || C < 1 || d < 1 || T > 1000000 || n > 100000 || C > 10000 || d > 65536)
        return arg_error("trace: T, n, C and d must be at least 1 (and T <= 1e6, n <= 1e5, C <= 1e4, d <= 65536)");
    if (!prototypes || !selected || !sizes) return arg_error("trace: prototypes, selected and sizes are needed");
    if (!reading || (strcmp(reading, "correct") && strcmp(reading, "all") && strcmp(reading, "first"))) return arg_error("reading: correct, all or first");
    if (missing && strcmp(missing, "zero") && strcmp(missing, "unobserved")) return arg_error("missing: zero or unobserved");
    if (seed > ((uint64_t)1 << 53)) return arg_error("seed: at most 2^53");
    for (size_t i = 0; i < (size_t)T * n; i++)
        if (selected[i] > 1) {
            snprintf(last_error, sizeof last_error, "selected[%zu][%zu] = %d: 0 or 1", i / (size_t)n, i % (size_t)n, selected[i]);
            return 2;
        }
    for (int k = 0; k < n; k++)
        if (sizes[k] < 1) {
            snprintf(last_error, sizeof last_error, "sizes[%d] = %lld: a client holds at least one sample", k, (long long)sizes[k]);
            return 2;
        }
    if (class_weights) {
        double s = 0;
        for (int c = 0; c < C; c++) {
            if (!(class_weights[c] >= 0) || !isfinite(class_weights[c])) return arg_error("class_weights: finite and >= 0");
            s += class_weights[c];
        }
        if (!(s > 0)) return arg_error("class_weights: all 0");
        if (!isfinite(s)) return arg_error("class_weights: their sum overflows (they are relative: scale them down)");
    }
    int rc = check_protos("prototypes", T, n, C, d, prototypes, selected);
    if (!rc && prototypes_alt) rc = check_protos("prototypes_alt", T, n, C, d, prototypes_alt, selected);
    if (rc) return rc;
    flce_completion_cfg cc;
    flce_completion_cfg_default(&cc);
    flce_status st = flce_completion_parse(rank, mu, NULL, NULL, &cc, &e);
    if (st) return done(st, &e);
    cc.seed = seed, cc.proto_all = !strcmp(reading, "all"), cc.proto_first = !strcmp(reading, "first"), cc.missing_unobserved = missing && !strcmp(missing, "unobserved");

    /* The folder above, shared-locked: a flce run holds it (exclusively, for its whole life) when
     * this folder would be its trace, as a writer of that folder as a trace would. */
    char real[PATH_MAX], parent[PATH_MAX + 8], tmpd[PATH_MAX + 100];
    {
        size_t len = strlen(dir);
        while (len > 1 && dir[len - 1] == '/') len--;
        const char *sl = memrchr(dir, '/', len);
        snprintf(parent, sizeof parent, "%.*s", sl ? (sl == dir ? 1 : (int)(sl - dir)) : 1, sl ? dir : ".");
    }
    int pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd = -1;
    if (pfd >= 0 && flock(pfd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
        close(pfd);
        snprintf(last_error, sizeof last_error, "%s: another process is writing the folder it is in now (a flce run, whose trace "
                 "it would be, or a trace): wait for it to end, or write elsewhere", dir);
        return 2;
    }
    struct stat sb;
    int made = stat(dir, &sb) != 0;
    if (flce_mkdirs(dir) != 0 || !realpath(dir, real)) {
        if (pfd >= 0) close(pfd);
        snprintf(last_error, sizeof last_error, "%s: cannot create the folder", dir);
        return 1;
    }
    if ((fd = lock_dir(real, dir, &rc)) < 0) { /* another writer's: never removed here */
        if (pfd >= 0) close(pfd);
        return rc;
    }
    if ((rc = trace_dir_ours(real, dir))) {
        if (made) rmdir(real);
        close(fd);
        if (pfd >= 0) close(pfd);
        return rc;
    }
    /* Every file is written into a new folder beside this one, which is then swapped in whole
     * (renameat2 RENAME_EXCHANGE) and the old one removed: a reader sees the old trace or the new,
     * never a mix, and a failure (or a kill) leaves the folder as it was. Where the folder cannot
     * be swapped (a file system without the exchange, a folder above that cannot be written), the
     * files are written under temporary names inside it and renamed one at a time, under the lock. */
    const char *base = strrchr(real, '/');
    base = base ? base + 1 : real;
    int sibling = 0;
    if (strcmp(real, "/")) {
        snprintf(tmpd, sizeof tmpd, "%.*s.flce-tmp-%ld-%u-%.64s", (int)(base - real), real, (long)getpid(),
                 atomic_fetch_add(&tmp_counter, 1), base);
        sibling = mkdir(tmpd, 0755) == 0;
        if (sibling && !made && stat(real, &sb) == 0) chmod(tmpd, sb.st_mode & 07777); /* the folder's own mode kept */
    }
    char tmp[NTF][PATH_MAX + 200], fin[NTF][PATH_MAX + 100];
    for (int i = 0; i < NTF; i++) {
        if (sibling) snprintf(tmp[i], sizeof tmp[i], "%s/%s", tmpd, TRACE_FILES[i]);
        else snprintf(tmp[i], sizeof tmp[i], "%s/.flce-tmp-%ld-%s", real, (long)getpid(), TRACE_FILES[i]);
        snprintf(fin[i], sizeof fin[i], "%s/%s", real, TRACE_FILES[i]);
    }
    int64_t sp[4] = {T, n, C, d}, ss[2] = {T, n}, sn[1] = {n}, sc[1] = {C};
    int have[NTF] = {1, prototypes_alt != NULL, 1, 1, class_weights != NULL, 1, 0}; /* prototypes_first.npy: a run's, never written here */
    st = flce_npy_write(tmp[0], FLCE_NPY_F32, 4, sp, prototypes, &e);
    if (!st && prototypes_alt) st = flce_npy_write(tmp[1], FLCE_NPY_F32, 4, sp, prototypes_alt, &e);
    if (!st) st = flce_npy_write(tmp[2], FLCE_NPY_U8, 2, ss, selected, &e);
    if (!st) st = flce_npy_write(tmp[3], FLCE_NPY_I64, 1, sn, sizes, &e);
    if (!st && class_weights) st = flce_npy_write(tmp[4], FLCE_NPY_F64, 1, sc, class_weights, &e);
    if (!st) st = flce_completion_record(tmp[5], &cc, "", 0, NULL, NULL, &e); /* as flce run writes it before its first round */
    int swapped = 0;
    if (!st && sibling && renameat2(AT_FDCWD, tmpd, AT_FDCWD, real, RENAME_EXCHANGE) == 0) {
        /* tmpd holds the old folder now: anything in it that is not a trace's (put there meanwhile
         * by a program that takes no lock) is never removed: the old folder goes back, nothing written */
        char other[256];
        if (foreign_entry(tmpd, other, sizeof other)) {
            if (renameat2(AT_FDCWD, tmpd, AT_FDCWD, real, RENAME_EXCHANGE) == 0) {
                snprintf(last_error, sizeof last_error, "%s: holds %s, not a file of a trace (put there while the trace was "
                         "written): nothing written", dir, other);
                remove_trace_dir(tmpd);
            } else
                snprintf(last_error, sizeof last_error, "%s: written, but %s, put there meanwhile, is now in %s", dir, other, tmpd);
            close(fd);
            if (pfd >= 0) close(pfd);
            return 2;
        }
        swapped = 1;
        remove_trace_dir(tmpd);
    }
    for (int i = 0; !st && !swapped && i < NTF; i++)
        if (have[i] ? rename(tmp[i], fin[i]) != 0 : (unlink(fin[i]) != 0 && errno != ENOENT))
            st = flce_fail(&e, FLCE_ERR_IO, "%s: cannot %s: %s", fin[i], have[i] ? "write" : "remove", strerror(errno));
    if (!swapped) {
        for (int i = 0; i < NTF; i++) unlink(tmp[i]); /* (nothing there when they were renamed) */
        if (sibling) rmdir(tmpd);
    }
    if (st && made) rmdir(real);
    close(fd); /* the lock: released */
    if (pfd >= 0) close(pfd);
    return done(st, &e);
}

void flce_api_digest(const void *data, size_t len, char *out) { flce_digest_hex(flce_digest(data, len), out); }

/* A read of the trace in dir that began and ended with the same folder there read one trace: a
 * writer of this API swaps a new folder in whole, never an old one back, and the folder held open
 * from the start (fd) keeps its inode number from being reused meanwhile. read_begin: the fd
 * (-1: no such folder) and its identity; read_same: whether dir names that folder still. */
static int read_begin(const char *dir, struct stat *sb) {
    int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (fd >= 0 && fstat(fd, sb) != 0) close(fd), fd = -1;
    return fd;
}
static int read_same(const char *dir, const struct stat *a) {
    struct stat b;
    return stat(dir, &b) == 0 && a->st_dev == b.st_dev && a->st_ino == b.st_ino;
}
enum { READ_TRIES = 20 };

int flce_api_trace_shape(const char *dir, int64_t *shape) {
    flce_err e = {{0}};
    struct stat sb;
    int fd = read_begin(dir, &sb);
    if (fd < 0) {
        snprintf(last_error, sizeof last_error, "%s: no such trace directory", dir ? dir : "(none)");
        return 2;
    }
    if (!shape) return close(fd), arg_error("trace_shape: no array for the shape");
    for (int tries = 0; tries < READ_TRIES; tries++) {
        flce_trace_files tf;
        int bad = 0;
        flce_status st = flce_trace_load(dir, NULL, NULL, &tf, &bad, &e);
        if (!st) shape[0] = tf.tr.T, shape[1] = tf.tr.n, shape[2] = tf.tr.C, shape[3] = tf.tr.d;
        if (!st) flce_trace_files_free(&tf);
        if (read_same(dir, &sb)) return close(fd), done(st, &e);
        close(fd); /* replaced while being read: read again */
        if ((fd = read_begin(dir, &sb)) < 0) {
            snprintf(last_error, sizeof last_error, "%s: no such trace directory", dir);
            return 2;
        }
    }
    close(fd);
    snprintf(last_error, sizeof last_error, "%s: replaced by other writers %d times while being read", dir, READ_TRIES);
    return 1;
}

int flce_api_evaluate(const char *dir, const char *rank, const char *mu, const char *solver, const char *completion,
                      const char *proto_samples, const char *missing, const char *ablate, const char *round_weights,
                      const char *class_weights, int rounds, int max_iter, int has_seed, uint64_t seed, double tol, int threads,
                      const char *out_dir, int T_given, int n_given, int C_given, double *contributions, double *Q, double *X,
                      int32_t *rank_used, double *mu_used, double *cv_error, char *settings, size_t cap) {
    flce_err e = {{0}};
    flce_eval_opts o;
    flce_eval_opts_default(&o);
    o.rank = rank, o.mu = mu, o.solver = solver, o.completion = completion, o.proto_samples = proto_samples, o.missing = missing;
    o.ablate = ablate, o.round_weights = round_weights, o.class_weights = class_weights;
    o.rounds = rounds, o.max_iter = max_iter > 0 ? max_iter : 500, o.has_seed = has_seed, o.seed = seed, o.tol = tol, o.threads = threads;
    if (max_iter == 0 || max_iter < -1) return arg_error("max_iter: at least 1");
    if (T_given < 1 || n_given < 1 || C_given < 1)
        return arg_error("evaluate: T, n and C (the sizes the output arrays were made for) must be at least 1");
    flce_eval_run r;
    flce_status st = FLCE_OK;
    struct stat sb;
    int fd = read_begin(dir, &sb), stable = 0;
    for (int tries = 0; tries < READ_TRIES && !stable; tries++) {
        st = flce_eval_dir(dir, &o, &r, &e);
        stable = fd < 0 || read_same(dir, &sb); /* (no folder: flce_eval_dir said so) */
        if (!stable) { /* replaced while being read: read again */
            flce_eval_run_free(&r);
            close(fd);
            fd = read_begin(dir, &sb);
        }
    }
    if (fd >= 0) close(fd);
    if (!stable) {
        snprintf(last_error, sizeof last_error, "%s: replaced by other writers %d times while being read", dir, READ_TRIES);
        return 1;
    }
    /* the arrays were made for the shape the caller read before; a trace replaced since then by
     * one of another shape is never copied into them */
    if (!st && (r.tf.tr.T != T_given || r.tf.tr.n != n_given || r.tf.tr.C != C_given)) {
        snprintf(last_error, sizeof last_error, "trace changed: %s holds %d rounds (evaluated) x %d clients x %d classes now, the "
                 "arrays given are for %d x %d x %d (replaced after its shape was read): nothing copied", dir, r.tf.tr.T, r.tf.tr.n,
                 r.tf.tr.C, T_given, n_given, C_given);
        flce_eval_run_free(&r);
        return 2;
    }
    if (!st && out_dir) st = flce_eval_write(out_dir, &r, &e);
    if (!st) {
        size_t T = (size_t)r.tf.tr.T, n = (size_t)r.tf.tr.n, C = (size_t)r.tf.tr.C;
        if (contributions) memcpy(contributions, r.res.CE, sizeof(double) * n);
        if (Q) memcpy(Q, r.res.Q, sizeof(double) * T * n * C);
        if (X) memcpy(X, r.res.X, sizeof(double) * T * n * C);
        for (size_t c = 0; c < C; c++) {
            if (rank_used) rank_used[c] = r.res.rank[c];
            if (mu_used) mu_used[c] = r.res.mu[c];
            if (cv_error) cv_error[c] = r.res.cv_error ? r.res.cv_error[c] : NAN;
        }
        if (settings && cap) {
            cJSON *js = cJSON_CreateObject();
            char *txt = NULL;
            if (js && flce_completion_settings_add(js, &r.cc)) {
                cJSON_AddStringToObject(js, "missing", r.cc.missing_unobserved ? "unobserved" : "zero");
                cJSON_AddStringToObject(js, "prototypes", r.cc.proto_first ? "first" : r.cc.proto_all ? "all" : "correct");
                flce_json_add_number(js, "seed", (double)r.cc.seed);
                char ab[32];
                snprintf(ab, sizeof ab, "%s%s%s%s", r.ab.no_mass ? "M " : "", r.ab.no_velocity ? "V " : "", r.ab.no_momentum ? "Q " : "",
                         r.ab.no_completion ? "CMC" : "");
                cJSON_AddStringToObject(js, "ablate", ab);
                flce_json_add_number(js, "rounds", (double)T);
                /* the rounds in which no selected client uploaded a prototype (each spread uniformly):
                 * flce eval prints them; the Python API once returned uniform shares without a word */
                flce_json_add_number(js, "fallback_rounds", (double)r.res.fallback_rounds);
                txt = cJSON_PrintUnformatted(js);
            }
            snprintf(settings, cap, "%s", txt ? txt : "{}");
            free(txt);
            cJSON_Delete(js);
        }
    }
    flce_eval_run_free(&r);
    return done(st, &e);
}
