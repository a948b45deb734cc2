/* run_reader.h: a finished run directory read back (config.json, device.txt, digests.txt,
 * metrics.csv, contributions.csv, round_contributions.csv, clients.csv), every size checked
 * before it is trusted: the reader behind `flce report`, for any command that reads runs. */
#ifndef FLCE_RUN_READER_H
#define FLCE_RUN_READER_H

#include "base.h"
#include "json.h"

#define MAXRUNS 1024 /* runs one report takes (the small-scale study: about 170; the strategic clients study: 890) */
/* The folder, under a run's released/, of its trajectory evaluated with every evaluation-side
 * departure an old trace allows (not the first-sample prototypes, which traces record since
 * 2026-12-01 only): scripts/released_eval.sh makes it */
#define FLCE_RELEASED_EVAL "velocity-absent-nocmc"

typedef struct {
    char dir[1024], label[96], algo[32], ablate[32], dataset[32], partition[16], backend[32], device[200], version[64];
    char config[8192], digests[1024];
    int clients, per_round, rounds, T, n;
    double dirichlet, label_noise, feature_noise, noisy;
    unsigned long long seed;
    double *acc, *f1, *kl, *srv, *cli, *pacc;
    double *contrib, *samples;
    int *held;
    int *noisy_k;      /* [clients] 1 where the client's data were made noisy (clients.csv) */
    double fin_acc, fin_f1, kl_final, kl_div, srv_mean;
    double *l2;        /* [clients] the released code's contribution rule, the normalised L2 norm of each
                        * update (contributions_rules.csv's l2_update); NULL where the run did not
                        * record it (FLCE, FedSV, ...; runs made before 2026-12-02) */
    double *rel_eval;  /* [clients] FLCE's trajectory evaluated as the released code evaluates it, the
                        * run's released/velocity-absent-nocmc/contributions.csv (scripts/released_eval.sh:
                        * flce eval --velocity distance --absent-class forget --ablate CMC); NULL where absent */
    double kl_mm;      /* the released code's KL of the contributions (flce_run_kl_released) */
    double kl_mm_l2;   /* the same of l2; NAN where l2 is NULL */
    double kl_mm_eval; /* the same of rel_eval; NAN where rel_eval is NULL */
    double srv_final;  /* server seconds after the last round (costs.txt: FLCE's completion); NAN where not recorded */
    double srv_all;    /* srv_mean plus srv_final spread over the rounds (srv_mean where not recorded) */
    double srv_paper;  /* server seconds after the last round as the paper describes that work (costs.txt
                        * final_server_seconds_paper: FLCE's one fixed-rank fit a class); NAN where not recorded */
    double *rc;        /* [T][clients] round contributions, NaN where not selected (NULL if absent) */
    char partdig[17];  /* the partition digest */
    char shapley[16];
    char denormals[16]; /* the float contract mode the run computed in (device.txt) */
    cJSON *cfg;         /* config.json, parsed */
    double *cw;         /* its class_weights (ncw of them); NULL: null, or ncw = -1: not a list of weights */
    int ncw;
} run_t;

/* Load one run directory: 0, or 2 when it is not a run directory (a usage error) and 1 when a
 * file is malformed, with the message in e. r is to be freed with flce_run_free either way. */
int flce_run_load(run_t *r, const char *dir, flce_err *e);
/* An input file opened for reading only if it is a regular file of at most FLCE_INPUT_MAX bytes
 * (a device, FIFO, folder or link loop in its place is refused, never read: /dev/zero once made
 * the report spin forever). NULL: missing (flce_input_why "") or refused (flce_input_why says
 * why, one line). */
#define FLCE_INPUT_MAX (1L << 30)
#include <stdio.h>
FILE *flce_fopen_input(const char *path);
extern char flce_input_why[160];
/* The summary figures: accuracy and F1 over the last `window` rounds, KL to the data shares. */
void flce_run_finish(run_t *r, int window);
/* The KL as the authors' released code computes it (KL_cmp.py; docs/flce.md, "The released
 * code") of contributions c of r's clients: flce_kl_minmax against the quality reference of r's
 * noise (flce_quality_reference: 1 for a clean client, 0.32 for feature noise, 1e-6 for label
 * noise; uniform without noise). NAN where undefined (all contributions equal; a noisy run
 * without clients.csv, which says which clients are noisy). */
double flce_run_kl_released(const run_t *r, const double *c);
void flce_run_free(run_t *r);
/* Whether RUN/released/<dep>/ (scripts/released_eval.sh) is an evaluation of run r with the flags
 * its name says: its completion_eval.json's seed r's, and its velocity, absent-class rule,
 * prototypes, round 1's reference and completion r's own with the name's departures ("velocity",
 * "absent", "nocmc", "first", "noinitial" and their combinations). 0 and the reason in why where
 * not (another run's, another departure's, or no flce eval's). */
int flce_run_released_eval_ok(const run_t *r, const char *dep, char *why, size_t cap);
/* Distance of r's cumulative contributions (round contributions summed, clamped at 0,
 * normalised) to those of an exact-Shapley run S on the same partition: the KL distance
 * (flce_kl_distance) returned, the Euclidean distance in *euclid; NAN when r and S do not fit
 * (no round contributions, another partition or length). */
double flce_run_shapley_cum(const run_t *r, const run_t *S, double *euclid);
/* The run's configuration without the members `drop` (e.g. the seed), as canonical text: two
 * runs with equal keys have equal settings apart from those (malloc'd; NULL when out of memory). */
char *flce_run_key(const run_t *r, const char *const *drop, int ndrop);
/* The names of the members whose values differ between two runs' config.json (but `skip`, when
 * not NULL), into out. */
void flce_run_differing(const run_t *a, const run_t *b, const char *skip, char *out, size_t cap);

#endif
