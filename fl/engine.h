/* engine.h: the federated engine (Algorithm 1 of the FLCE paper and the baselines): seeded
 * client selection, local training on a backend, the algorithm's server step, evaluation,
 * and the run directory (docs/formats.md): config.json, metrics.csv, trace/,
 * contributions.csv, model.safetensors, digests.txt, written as rounds finish, so that a
 * killed run leaves valid files and --resume continues it to the same digests.
 *
 * The methods plug in through fl/method.h (one file each in fl/methods/); this header is what
 * a program needs: the settings, the run, its summary, the registry's names, and the processes
 * of a run spread over several (flce_comm). */
#ifndef FLCE_ENGINE_H
#define FLCE_ENGINE_H

#include "data.h"
#include "flce_eq.h"
#include "model.h"

/* The processes of a run spread over several (MPI ranks; the program provides it, the engine
 * knows only this interface): every rank runs the whole engine on the same data, trains the
 * selected clients assigned to it and sends their uploads to all; the server step is computed
 * by every rank from the same inputs, so every rank holds the same state, and rank 0 alone
 * writes the run folder. NULL in flce_run_cfg: one process. */
typedef struct flce_comm {
    int rank, size;
    int round;                /* the round under way (set by the engine; 0: before the first), for messages */
    void *ctx;
    /* bytes of root's buf into every rank's buf */
    flce_status (*bcast)(struct flce_comm *c, void *buf, size_t bytes, int root, flce_err *e);
    /* v [n] summed element by element over the ranks, the sum in every rank's v */
    flce_status (*sum_i64)(struct flce_comm *c, int64_t *v, int n, flce_err *e);
} flce_comm;

/* The longest --out a run accepts (its files' paths are built in fixed buffers). */
#define FLCE_MAX_OUT_PATH 900

typedef struct {
    const char *algo;         /* a method of the registry (flce_method_names()) */
    const struct flce_method *method; /* or a method given directly (method.h); NULL: by the name in algo */
    flce_ablation ablate;     /* FLCE ablations M, V, Q, CMC */
    int ablate_cl;            /* -CL: lambda = 0 */
    const char *dataset, *data_dir;
    int clients, per_round, rounds, epochs, batch;
    flce_partition_cfg part;
    double lr, lambda, tau;
    int proto_all;            /* FLCE: a prototype averages all samples of the class (the equation), not
                               * only those the model classifies right (the text; default 0) */
    double *class_weights;    /* [classes] or NULL (b_c = 1/C) */
    int train_subset, test_subset, val_size; /* 0: all / default */
    /* The backend to train on, handed over by the program (the engine never creates one): called
     * once the settings, the data and the run directory are checked, so that a usage error is
     * reported before any device is opened; the backend stays the caller's (not destroyed). */
    flce_backend *(*backend)(void *ud, flce_err *e);
    void *backend_ud;
    flce_comm *comm;          /* several processes (see above); NULL: one */
    uint64_t seed;
    const char *out;
    int resume, force;
    int shapley_mc;           /* FedSV: Monte-Carlo instead of exact */
    int mc_perms;             /* default 50 */
    double mc_eps;            /* truncation, default 0.001 */
    int utility_loss;         /* Shapley utility: negative validation loss instead of accuracy */
    int eval_batch;           /* default 256 */
    double prox_mu;           /* FedProx mu, default 0.01 */
    double ditto_lambda;      /* Ditto lambda, default 1 */
    double moon_mu, moon_tau; /* MOON mu 1, tau 0.5 */
    flce_completion_cfg completion; /* FLCE's completion (its seed is the run's) */
} flce_run_cfg;

void flce_run_cfg_default(flce_run_cfg *c);
/* 1 when name is a method of the registry. */
int flce_algo_known(const char *name);
/* The registry's method names, ", "-separated, in the order of `all`; and the help text: one
 * line per method, "  name      summary\n". */
const char *flce_method_names(void);
const char *flce_method_help(void);
/* The i-th method's name (0 <= i < flce_method_count()), for `all`. */
int flce_method_count(void);
const char *flce_method_name(int i);

typedef struct {
    int round;                 /* 1-based */
    double acc, macro_f1, mean_loss, kl;
    double server_s, client_s;
    int64_t bytes_up, bytes_down;
    int fallback;              /* FLCE: no prototype in the round, data-size weights used */
    int proto_nocorrect;       /* prototypes not uploaded: class held but none classified right */
    double personal_acc;       /* Ditto: mean test accuracy of the round's personal models */
} flce_round_metrics;

/* Progress: called after every round (and never by the library on its own terminal). */
typedef void (*flce_progress_fn)(void *ud, const flce_round_metrics *m, int rounds, double elapsed_s);

typedef struct {
    double final_acc, final_f1;   /* mean over the last min(10, T) rounds */
    double kl, kl_div;            /* KL of the final contributions to data shares (plain, diversity-weighted) */
    double server_s, client_s;    /* totals */
    double completion_s;          /* FLCE: the completion at the end */
    int rounds_done;
    char device[160];
} flce_run_summary;

/* Validate cfg (every usage error is FLCE_ERR_ARG with one line naming the flag), then
 * run or resume the experiment into cfg->out. */
flce_status flce_run(const flce_run_cfg *cfg, flce_progress_fn progress, void *ud, flce_run_summary *sum, flce_err *e);

#endif
