/* data.h: the data part of FLCE-harness (docs/architecture.md): datasets (Fashion-MNIST,
 * CIFAR-10/100, EuroSAT) read from their files, seeded subsets, and federated partitions
 * (IID, Dirichlet label skew, label and feature noise). Knows nothing of training. Depends on
 * base only. */
#ifndef FLCE_DATA_H
#define FLCE_DATA_H

#include "base.h"

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

/* fmnist's default folder: the environment's FLCE_FMNIST_DIR where set and not empty, else the
 * folder Debian's dataset-fashion-mnist installs */
#define FLCE_FMNIST_DIR "/usr/share/datasets/fashion-mnist"

/* The dataset names ("fmnist, cifar10, cifar100, eurosat") and a name's classes (0: unknown). */
const char *flce_dataset_names(void);
int flce_dataset_classes(const char *name);
/* Load a dataset by name from dir (NULL: the default place; only fmnist has one, FLCE_FMNIST_DIR).
 * seed is used for EuroSAT's stratified 80/20 split only. */
flce_status flce_dataset_load(flce_dataset *ds, const char *name, const char *dir,
                              uint64_t seed, flce_err *e);
void flce_dataset_free(flce_dataset *ds);
/* While on, flce_dataset_load keeps a copy of the last dataset it read and answers a load of the
 * same name, folder and seed with a copy of it, the files not read again (a process that trains
 * many coalitions of one federation, flce truth, decodes its files once; a change to them meanwhile
 * goes unseen), and flce_dataset_load_subsets with copies of only the subsets. Off frees the copy. */
void flce_dataset_keep(int on);
/* The digest of a dataset as read (both splits: sizes, classes, pixels, labels); 0 out of memory. */
uint64_t flce_dataset_digest(const flce_dataset *ds);
/* flce_dataset_load, *digest its flce_dataset_digest, then flce_dataset_subset of the training
 * split to train_n and the test split to test_n samples (0: the whole split); nothing left in ds
 * on an error. */
flce_status flce_dataset_load_subsets(flce_dataset *ds, const char *name, const char *dir, uint64_t seed, int train_n,
                                      int test_n, uint64_t *digest, flce_err *e);
/* Per-channel mean and std of the training split (double, fixed order). */
void flce_dataset_compute_stats(flce_dataset *ds);
/* Replace split (train when which = 0, test when 1) by a seeded stratified subset of
 * n samples (class proportions kept by largest remainders; sample order kept). */
flce_status flce_dataset_subset(flce_dataset *ds, int which, int n, uint64_t seed, flce_err *e);
/* Per-class counts of a split into counts[classes]. */
void flce_split_class_counts(const flce_split *s, int *counts);
/* Normalised float32 of sample i into out[c*h*w]: (x/255 - mean_ch) / std_ch. */
void flce_dataset_sample_f32(const flce_dataset *ds, const flce_split *s, int i, float *out);
/* The same normalisation of one sample's pixels p [c][hw] (0..255) into out. */
void flce_dataset_pixels_f32(const flce_dataset *ds, int c, size_t hw, const uint8_t *p, float *out);
/* The authors' released feature noise (generate_data_flceh.py add_gaussian_noise_based_on_data
 * 275-288) on one client's n samples (split indices index[0..n)): every pixel (0..255) of them
 * plus Gaussian noise of std mult x the standard deviation of all their pixels (numpy's np.std,
 * over n, not n - 1), then min-max rescaled over the client to 0..255 and truncated to whole
 * values (astype(np.uint8)); equal values everywhere give 0. The noise of a sample is drawn from
 * (seed, FLCE_RNG_FEATURE_NOISE, 0, its index), as this harness's own. out: [n][c h w]. */
void flce_noise_released(const flce_split *s, const int32_t *index, int64_t n, double mult, uint64_t seed, uint8_t *out);

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
    double quantity_skew;/* > 0: labels IID, client sizes proportional to a Dirichlet(quantity_skew) draw
                          * (iid and dirichlet then unused); 0: off */
    int min_samples;     /* each client holds at least this many, default 10 */
    double label_noise;  /* flip rate of noisy clients, 0 = none */
    double feature_noise;/* Gaussian std (in normalised units) of noisy clients */
    double noisy_frac;   /* fraction of clients that are noisy, default 1.0 */
    /* the authors' released data generator (generate_data_flceh.py; docs/flce.md, "The released
     * code"); 0: this harness's */
    int balance;         /* Dirichlet: a client already holding N / n samples gets no share of the
                          * classes drawn after (its share zeroed, the others renormalised) */
    int noisy_last;      /* the noisy clients are the last ones, not a seeded draw */
    int label_next;      /* a flipped label becomes (y + 1) mod C, not a uniformly drawn other class */
    int noise_data_std;  /* feature noise of std feature_noise x the client's own pixels' standard deviation,
                          * added to its pixels, which are then min-max rescaled to 0..255 whole values
                          * (flce_noise_released), not std feature_noise added to the normalised values */
    /* a client holding a copy of another's data (flce truth's study: a truth where the value is not
     * the data share): client dup_to's samples become dup_from's (labels, noise and all; its own are
     * left out of the federation); duplicate 0: none */
    int duplicate, dup_from, dup_to;
} flce_partition_cfg;

typedef struct {
    int n_clients, classes;
    int64_t *offsets;    /* n_clients + 1: client k holds entries offsets[k]..offsets[k+1]-1 */
    int32_t *index;      /* sample index into the training split, ascending per client */
    uint8_t *labels;     /* the label the client sees (after label noise) */
    uint8_t *noisy;      /* per client: 1 when noise was applied */
    float *feature_std;  /* per client: std of the Gaussian feature noise (0: none) */
    int noise_data_std;  /* the cfg's: feature_std is a multiple of each client's pixels' std (flce_noise_released) */
    int64_t label_flips; /* total labels flipped */
} flce_partition;

void flce_partition_cfg_default(flce_partition_cfg *c);
/* "A:B" (whole numbers >= 0) into c's duplicate, dup_from = A, dup_to = B; 0, or -1 when the text
 * is not of that form (the clients' range is checked by flce_partition_make). */
int flce_parse_duplicate(const char *s, flce_partition_cfg *c);
flce_status flce_partition_make(flce_partition *p, const flce_split *train, int n_clients,
                                const flce_partition_cfg *cfg, uint64_t seed, flce_err *e);
void flce_partition_free(flce_partition *p);
/* Class counts of client k (after label noise) into counts[classes]. */
void flce_partition_counts(const flce_partition *p, int k, int *counts);
/* xxh3-64 of the partition's canonical little-endian serialisation. */
uint64_t flce_partition_digest(const flce_partition *p);

#endif
