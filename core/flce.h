/* flce.h: the public header of the FLCE-harness core library.
 *
 * One include for every program: status codes and error context, float32 tensors and
 * their xxh3-64 digests, the seeded counter-based generator, the deterministic math
 * routines, datasets, federated partitions and the .npy reader/writer.
 * Names carry the prefix flce_; fallible functions return flce_status and write a
 * one-line explanation (file, what, why) into an flce_err the caller owns.
 */
#ifndef FLCE_H
#define FLCE_H

#include <stddef.h>
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

/* Format msg into e (when e is not NULL) and return s. */
flce_status flce_fail(flce_err *e, flce_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
const char *flce_status_name(flce_status s);

/* Allocation helpers: zeroed memory, NULL on failure or on a size overflow. */
void *flce_calloc(size_t count, size_t size);

/* mkdir -p: 0 when path is a directory afterwards, -1 otherwise (errno set). */
int flce_mkdirs(const char *path);

/* Write a whole file atomically: data goes to PATH.tmp, then is renamed to PATH.
 * On any failure nothing named PATH is left half-written. */
flce_status flce_write_file_atomic(const char *path, const void *data, size_t len, flce_err *e);

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

/* ---- datasets --------------------------------------------------------------------- */
typedef struct {
    int n, c, h, w;      /* samples, channels, height, width */
    int classes;
    uint8_t *pixels;     /* owned, n*c*h*w bytes, CHW per sample */
    uint8_t *labels;     /* owned, n labels < classes */
} flce_split;

typedef struct {
    char name[16];       /* fmnist, cifar10, cifar100, eurosat */
    char dir[512];       /* where it was read from */
    flce_split train, test;
    double mean[3], std[3]; /* per-channel statistics of the training split, in [0,1] units */
} flce_dataset;

#define FLCE_FMNIST_DIR "/usr/share/datasets/fashion-mnist"

/* Load a dataset by name from dir (NULL: the default place; only fmnist has one).
 * seed is used for EuroSAT's stratified 80/20 split only. */
flce_status flce_dataset_load(flce_dataset *ds, const char *name, const char *dir,
                              uint64_t seed, flce_err *e);
void flce_dataset_free(flce_dataset *ds);
/* Per-channel mean and std of the training split (double, fixed order). */
void flce_dataset_compute_stats(flce_dataset *ds);
/* Replace split (train when which = 0, test when 1) by a seeded stratified subset of
 * n samples (class proportions kept by largest remainders; sample order kept). */
flce_status flce_dataset_subset(flce_dataset *ds, int which, int n, uint64_t seed, flce_err *e);
/* Per-class counts of a split into counts[classes]. */
void flce_split_class_counts(const flce_split *s, int *counts);
/* Normalised float32 of sample i into out[c*h*w]: (x/255 - mean_ch) / std_ch. */
void flce_dataset_sample_f32(const flce_dataset *ds, const flce_split *s, int i, float *out);

/* Readers for one format each, exposed for tests. */
flce_status flce_read_idx_images(const char *path, flce_split *s, flce_err *e);
flce_status flce_read_idx_labels(const char *path, int classes, flce_split *s, flce_err *e);
flce_status flce_read_cifar_bin(const char *path, int label_bytes, int classes,
                                int max_records, flce_split *s, flce_err *e);
flce_status flce_read_jpeg_rgb(const char *path, int want_h, int want_w, uint8_t *chw,
                               flce_err *e);

/* ---- federated partitions --------------------------------------------------------- */
typedef struct {
    int iid;             /* 1: IID; 0: Dirichlet label skew */
    double dirichlet;    /* delta > 0, default 0.5 */
    int min_samples;     /* each client holds at least this many, default 10 */
    double label_noise;  /* flip rate of noisy clients, 0 = none */
    double feature_noise;/* Gaussian std (in normalised units) of noisy clients */
    double noisy_frac;   /* fraction of clients that are noisy, default 1.0 */
} flce_partition_cfg;

typedef struct {
    int n_clients, classes;
    int64_t *offsets;    /* n_clients + 1: client k holds entries offsets[k]..offsets[k+1]-1 */
    int32_t *index;      /* sample index into the training split, ascending per client */
    uint8_t *labels;     /* the label the client sees (after label noise) */
    uint8_t *noisy;      /* per client: 1 when noise was applied */
    float *feature_std;  /* per client: std of the Gaussian feature noise (0: none) */
    int64_t label_flips; /* total labels flipped */
} flce_partition;

void flce_partition_cfg_default(flce_partition_cfg *c);
flce_status flce_partition_make(flce_partition *p, const flce_split *train, int n_clients,
                                const flce_partition_cfg *cfg, uint64_t seed, flce_err *e);
void flce_partition_free(flce_partition *p);
/* Class counts of client k (after label noise) into counts[classes]. */
void flce_partition_counts(const flce_partition *p, int k, int *counts);
/* xxh3-64 of the partition's canonical little-endian serialisation. */
uint64_t flce_partition_digest(const flce_partition *p);

#endif
