/* base.h: the base part of FLCE-harness (docs/architecture.md), which depends on nothing of
 * ours: status codes and error context, files written atomically, float32 tensors and their
 * xxh3-64 digests, the seeded counter-based generator and the deterministic double math.
 * (The .npy and safetensors formats, the float32 math library and the denormal modes are
 * base too, each with its own header.)
 * Names carry the prefix flce_; fallible functions return flce_status and write a
 * one-line explanation (file, what, why) into an flce_err the caller owns.
 */
#ifndef FLCE_BASE_H
#define FLCE_BASE_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#ifndef FLCE_VERSION
#define FLCE_VERSION "0.0.0"
#endif

/* ---- status and errors ------------------------------------------------------------ */
typedef enum {
    FLCE_OK = 0,
    FLCE_ERR_IO,      /* a file is missing or unreadable */
    FLCE_ERR_FORMAT,  /* a file is readable but malformed, truncated or oversized */
    FLCE_ERR_ARG,     /* an argument or configuration is invalid */
    FLCE_ERR_NOMEM,   /* an allocation failed */
    FLCE_ERR_NUMERIC, /* a computation cannot produce a defined result */
} flce_status;

typedef struct {
    char msg[512]; /* one line, no trailing newline */
} flce_err;

/* Every control character of s (a newline, a tab, ...) replaced by '?', in place: an error
 * that echoes what it was given stays one line. Returns s. */
char *flce_one_line(char *s);
/* Format msg into e (when e is not NULL), one line (flce_one_line), and return s. */
flce_status flce_fail(flce_err *e, flce_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
const char *flce_status_name(flce_status s);

/* Allocation helpers: zeroed memory, NULL on failure or on a size overflow. */
void *flce_calloc(size_t count, size_t size);
/* p, a buffer of n bytes just allocated and not yet touched, that the system may now back with
 * 2 MiB pages where it has any (madvise MADV_HUGEPAGE of its whole 2 MiB pages, from 4 MiB up):
 * a decoded dataset of 47 MB is then touched in a few dozen page faults rather than 11,500, which
 * these machines pay dearly for. Contents unchanged; a hint the system may refuse. A page of
 * the buffer touched then brings in its whole 2 MiB page (memory for the parts no batch uses,
 * time to compact where the kernel has no free huge page). Returns p. */
void *flce_huge(void *p, size_t n);

/* Text built piece by piece. flce_catf appends to a fixed buffer and never writes past it:
 * what does not fit is cut off, *len stays below cap (the buffer stays NUL-terminated).
 * flce_sbuf grows as needed (start from {0}; free with flce_sbuf_free); where memory runs out,
 * oom is set and s holds what fitted before. */
void flce_catf(char *buf, size_t cap, size_t *len, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
typedef struct {
    char *s;
    size_t len, cap;
    int oom;
} flce_sbuf;
void flce_sbuf_printf(flce_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void flce_sbuf_free(flce_sbuf *b);

/* The absolute path that path names once made: its deepest existing ancestor resolved (links
 * followed), the rest appended as written (malloc'd; NULL when out of memory or no ancestor
 * resolves). flce_path_within: 1 when path (so resolved) is the existing folder dir or inside it
 * (an output that would land in an input). */
char *flce_path_resolved(const char *path);
int flce_path_within(const char *path, const char *dir);
/* A number as every numeric flag and word takes it: the whole text one decimal number
 * (strtod), finite, and 0 or of a magnitude a normal double holds (2.2e-308 to 1.8e308): NULL
 * with the value in *x, or why not ("not a finite number", "too close to 0 ..."). */
const char *flce_number(const char *s, double *x);
/* 0 when the folder path, or the nearest existing folder above it (where it would be made),
 * takes files; -1 otherwise (errno set; ENOTDIR: a file there), that folder's path into where. */
int flce_path_writable(const char *path, char *where, size_t cap);
/* mkdir -p: 0 when path is a directory afterwards, -1 otherwise (errno set). */
int flce_mkdirs(const char *path);

/* Write a whole file atomically: data goes to PATH.tmp, then is renamed to PATH.
 * On any failure nothing named PATH is left half-written. */
flce_status flce_write_file_atomic(const char *path, const void *data, size_t len, flce_err *e);
/* path opened for reading ("rb") only when it is a regular file: a FIFO does not block the open,
 * and a FIFO, device or folder is refused. NULL with why (cap bytes) saying what the path is ("a
 * FIFO, not a file") or why the open failed (strerror); errno is ENOENT when there is nothing. */
FILE *flce_fopen_regular(const char *path, char *why, size_t cap);

/* ---- tensors and digests ---------------------------------------------------------- */
#define FLCE_MAX_DIMS 4
typedef struct {
    float *data;                  /* owned, n floats */
    int64_t shape[FLCE_MAX_DIMS]; /* unused trailing dims are 1 */
    int ndim;                     /* 0..4 */
    int64_t n;                    /* product of shape */
} flce_tensor;

/* Allocate a zeroed tensor of the given shape. */
flce_status flce_tensor_init(flce_tensor *t, int ndim, const int64_t *shape, flce_err *e);
void flce_tensor_free(flce_tensor *t);
/* xxh3-64 of the raw little-endian bytes. */
uint64_t flce_digest(const void *data, size_t len);
uint64_t flce_tensor_digest(const flce_tensor *t);
/* 16 lowercase hex digits and a NUL into out[17]. */
void flce_digest_hex(uint64_t d, char out[17]);

/* ---- seeded counter-based randomness (Philox-4x32-10) ----------------------------- */
/* Every stream is keyed by (seed, purpose, round, client), never by the order in which
 * things run: key = seed, counter = (block, purpose, round, client). */
typedef enum {
    FLCE_RNG_TEST = 0,
    FLCE_RNG_PARTITION,     /* class proportions and sample assignment */
    FLCE_RNG_NOISY_CLIENTS, /* which clients are noisy */
    FLCE_RNG_LABEL_NOISE,   /* per client: which labels flip and to what */
    FLCE_RNG_FEATURE_NOISE, /* per sample: Gaussian feature noise */
    FLCE_RNG_SUBSET,        /* stratified train/test subsets */
    FLCE_RNG_SPLIT,         /* EuroSAT 80/20 split */
    FLCE_RNG_SELECT,        /* per round: client selection */
    FLCE_RNG_BATCH,         /* per round and client: batch order */
    FLCE_RNG_INIT,          /* model initialisation */
    FLCE_RNG_SHAPLEY,       /* Monte-Carlo permutations */
    FLCE_RNG_COMPLETION,    /* matrix completion start */
    FLCE_RNG_VALSET,        /* server validation set */
    FLCE_RNG_BENCH,         /* synthetic benchmark inputs */
    FLCE_RNG_COALITIONS,    /* flce truth --coalitions sample:M: which coalitions */
    FLCE_RNG_ATTACK,        /* a strategic client's own draws (fl/attacks.c): which samples, random pixels, noise */
} flce_rng_purpose;

typedef struct {
    uint32_t key[2];
    uint32_t ctr[4];  /* ctr[0] counts blocks; ctr[1..3] = purpose, round, client */
    uint32_t buf[4];  /* the current output block */
    int pos;          /* next unused word of buf (4: empty) */
    int has_spare;    /* polar method keeps its second normal */
    double spare;
} flce_rng;

/* The raw Philox-4x32-10 bijection (Salmon et al. 2011), for known-answer tests. */
void flce_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);
void flce_rng_init(flce_rng *r, uint64_t seed, uint32_t purpose, uint32_t round, uint32_t client);
uint32_t flce_rng_u32(flce_rng *r);
double flce_rng_uniform(flce_rng *r);      /* [0, 1), 53 random bits */
double flce_rng_uniform_pos(flce_rng *r);  /* (0, 1) */
uint32_t flce_rng_below(flce_rng *r, uint32_t n); /* uniform on 0..n-1, unbiased; n >= 1 */
double flce_rng_normal(flce_rng *r);       /* N(0, 1), Marsaglia's polar method */
double flce_rng_log_gamma(flce_rng *r, double alpha); /* log of a Gamma(alpha, 1) draw */
/* Dirichlet(alpha, ..., alpha) over n components into out[n] (sums to 1). alpha > 0. */
void flce_rng_dirichlet(flce_rng *r, double alpha, int n, double *out);
/* A uniformly random permutation of 0..n-1 (Fisher-Yates). */
void flce_rng_permutation(flce_rng *r, int n, int *out);
/* k distinct values of 0..n-1 without replacement, in draw order. k <= n. */
void flce_rng_sample(flce_rng *r, int n, int k, int *out);

/* ---- deterministic double math (host side: RNG, partitions) ----------------------- */
/* Built from + - * /, sqrt and bit operations only, so results do not depend on libm. */
double flce_dlog(double x);
double flce_dexp(double x);

#endif
