/* engine_impl.h: the engine's internals shared by engine.c (the round loop, files, set-up)
 * and algorithms.c (one unit per method: local objective, server step, contribution). */
#ifndef FLCE_ENGINE_IMPL_H
#define FLCE_ENGINE_IMPL_H

#include "engine.h"

typedef struct engine engine;

/* What a method adds to local training. */
typedef enum {
    LOCAL_PLAIN,  /* SGD on L_CE (FLCE adds lambda L_CL when `contrastive`) */
    LOCAL_PROX,   /* FedProx: + mu/2 |w_k - w|^2 */
    LOCAL_DITTO,  /* Ditto: a personal model trained beside the global copy */
    LOCAL_MOON,   /* MOON: + mu l_con(z, z_global, z_previous) */
} local_kind;

typedef struct {
    const char *name;
    int contrastive, prototypes, shapley;
    int report;        /* clients report the received model's loss and accuracy on their data */
    local_kind local;
    int shapley_clamp; /* contributions: running sums clamped at 0 before normalising */
    /* sizes of the method's state kept across rounds (saved in state.bin for --resume) */
    void (*state_size)(const engine *E, size_t *floats, size_t *doubles);
    void (*state_init)(engine *E);
    flce_status (*server)(engine *E, flce_err *e);
} algo_vt;

extern const algo_vt FLCE_ALGOS[];
extern const int FLCE_NALGOS;

struct engine {
    const flce_run_cfg *cfg;
    const algo_vt *algo;
    flce_dataset ds;
    flce_partition part;
    int n, K, T, C, CHW, d;
    float *train_x;      /* [train n][CHW], normalised, feature noise of the holder added */
    int32_t *entry_y;    /* label of each partition entry */
    int *val_idx, n_val; /* validation samples (train indices), excluded from every client */
    int n_test;
    uint64_t data_digest;          /* xxh3-64 of the dataset as loaded (config.json "data_digest") */
    float *test_x;
    int32_t *test_y;
    double *sizes;       /* [n] */
    int *held;           /* [n] classes held */
    flce_backend *be;
    flce_model m, m2, m3;          /* m2, m3: MOON's global and previous models */
    size_t S, P;                   /* state entries; trainable ones (parameters) among them */
    uint8_t *trainable;            /* [S]: 1 for a parameter, 0 for a BatchNorm running statistic */
    float *global, *states, *newg; /* [S], [K][S], [S] */
    int t;                         /* current round, 0-based */
    int *sel;                      /* [K] */
    float *protos;                 /* [n][C][d] of the round, NaN where none */
    uint8_t *present;              /* [n][C] */
    double *losses;                /* [K] mean local training loss */
    double *rep_loss, *rep_acc;    /* [K] the received model on the client's data (report) */
    double *omega, *rc;            /* [K] aggregation weights, this round's contributions */
    int fallback, nocorrect;
    double personal_acc;           /* Ditto: mean test accuracy of this round's personal models */
    /* state kept across rounds (saved for --resume) */
    double *g;                     /* [C][d] FLCE global prototypes */
    uint8_t *has_g;                /* [C] */
    double *contrib_sum;           /* [n] running contributions */
    double *rc_hist;               /* [T][n] each round's contributions, NaN where not selected */
    float *aux_f;                  /* method state, aux_fn floats */
    double *aux_d;                 /* method state, aux_dn doubles */
    size_t aux_fn, aux_dn;
    /* scratch */
    float *bx, *logits, *feat, *feat2, *feat3, *dzx, *tmp_state;
    int32_t *by;
    int *perm;
    double *vcache;                /* Shapley utility cache per round, [2^K] */
    /* files */
    char dir[1024];
    int fd_proto, fd_sel;
    size_t proto_off, sel_off;
    uint64_t chain_proto, chain_sel; /* checksums of the trace's rounds so far (state.bin) */
    int resume_done;                 /* --resume: the rounds state.bin says are done */
    flce_round_metrics *metrics;
};

/* Accuracy, macro-F1 and mean cross-entropy of m's current state on x [n] (any NULL out). */
flce_status flce_eng_evaluate(engine *E, flce_model *m, const float *x, const int32_t *y, int n, double *acc, double *f1,
                              double *loss, flce_err *e);
/* The same on client k's local data (inputs gathered from the training set). */
flce_status flce_eng_evaluate_client(engine *E, int k, double *acc, double *loss, flce_err *e);
/* One sample's logits l [C] against label y: the cross-entropy (float64, flce_dexp/dlog)
 * returned, the argmax (first maximum) in *pred. */
double flce_eng_logit_loss(const float *l, int C, int y, int *pred);
/* out = sum_i w_i states[slots[i]] (float32, ascending i). */
void flce_eng_aggregate(engine *E, const double *w, int K, const int *slots, float *out);
/* w_i = n_k / sum over the selected clients. */
void flce_eng_data_size_weights(engine *E, double *w);
/* The paper's cosine rule for this round into rc [K]: cos(d_i, newg - global) over the
 * parameters (trainable entries) only, d_i = states_i - global (or dirs[i], [K][P] over the
 * parameters, when given), clamped at 0, normalised over the round. */
void flce_eng_cosine_rule(engine *E, const float *newg, const float *dirs, double *rc);
/* The parameters (trainable entries) of a state vector [S] into out [P], in state order. */
void flce_eng_params(const engine *E, const float *state, float *out);
/* The BatchNorm rule for methods whose server rule is a step in parameter space (FedFV,
 * CGSV, q-FedAvg): newg's parameters come from params [P]; its running statistics are the
 * data-size-weighted average of the selected clients' (docs/baselines.md). */
void flce_eng_compose(engine *E, const float *params, float *newg);

#endif
