/* method.h: the method interface: how a federated method plugs into the engine (engine.c).
 *
 * A method is one file under fl/methods/ that defines one `flce_method` (hooks below, any of
 * them NULL for the default) and one line in the registry (fl/methods/registry.c), from which
 * `--algo`, `all` and the help text are made. docs/adding-a-method.md walks through it. The
 * engine runs every round the same way for every method:
 *
 *   select K clients (seeded, ascending)
 *   for each selected client (slot i, client k = E->sel[i]), on the model E->m:
 *       load the global model; client_begin; for every batch (E->bx, E->by): local_step;
 *       client_end (what the client uploads beyond its model: FLCE's prototypes); the
 *       model's state becomes the upload E->states[i]
 *   server: the new global model E->newg, the aggregation weights E->omega [K] and this
 *       round's contributions E->rc [K] (added to the running sums E->contrib_sum)
 *   evaluate, write the round's files and state.bin
 *   at the end: final, the contributions of every client (default: the running sums,
 *       normalised)
 *
 * A method owns its settings and its state. Settings: a table of flce_setting (engine.h) in its
 * file, read with flce_eng_setting; the engine makes the flags, config.json, the limit checks
 * and --help from it. State across rounds: the floats and doubles its state_size hook asks for
 * (E->aux_f, E->aux_d), which the engine allocates, saves in state.bin and restores on --resume:
 * nothing else may carry over between rounds. What it needs besides and does not save (MOON's
 * two extra models) it makes in open and frees in close, behind E->priv.
 * The rules of the baselines are pure functions in baselines.h, FLCE's equations are in
 * reference/flce_eq.h; the helpers flce_eng_* below are the pieces methods share. */
#ifndef FLCE_METHOD_H
#define FLCE_METHOD_H

#include "engine.h"

typedef struct engine engine;

enum {
    FLCE_M_PROTOTYPES = 1, /* clients upload class prototypes (E->protos, E->present): the engine writes the trace */
    FLCE_M_COUNTS = 256,   /* its aggregation or its scores read the clients' sample counts (E->sizes) beyond a
                              fallback: flce_eng_data_size_weights, flce_eng_coalition_weights, flce_eng_compose */
    FLCE_M_CLAMP = 2,      /* running contributions are clamped at 0 before normalising (Shapley methods) */
    FLCE_M_PERSONAL = 4,   /* reports the mean test accuracy of personal models (metrics.csv's personal_accuracy) */
    FLCE_M_CLIENT_STATE = 8, /* state per client: aux_f [n][S] and aux_d [n], changed by the client hooks of that client
                                (they travel with the client's upload when the run is spread over processes) */
    FLCE_M_COSINE_RULES = 32,   /* contributions by the cosine rule (flce_eng_cosine_rule): the engine also records
                                   every reading of that rule (FLCE_RULE_*) in round_contributions_rules.csv and
                                   contributions_rules.csv */
    FLCE_M_SHAPLEY = 64,        /* contributions are Shapley values (exact or sampled): the paper leaves these out
                                   of its KL, distance and diversity comparisons, and so does the report */
    FLCE_M_RULE_READINGS = 128, /* contributions by its own rule; every reading of the cosine rule recorded beside them
                                   as with FLCE_M_COSINE_RULES (flce_eng_record_readings), the released code's L2 rule
                                   among them (CGSV, q-FedAvg: tools.py cal_client_contribution) */
};

/* The readings of "the similarity from the local model of participants to the global model"
 * (docs/baselines.md), recorded for the methods that use the cosine rule; the first is the
 * rule their contributions follow. */
enum {
    FLCE_RULE_COS_GLOBAL, /* cos(d_i, newg - global): the update against the round's global update (the method's rule) */
    FLCE_RULE_COS_MEAN,   /* cos(d_i, mean_j d_j): against the unweighted mean of the round's updates */
    FLCE_RULE_COS_MODEL,  /* cos(w_i, newg): the local model against the new global model (parameters, not updates) */
    FLCE_RULE_WEIGHT,     /* the method's own aggregation weight omega_i */
    FLCE_RULE_L2,         /* ||w_i - global||: the L2 norm of the client's update, every float of the state (BatchNorm's
                           * running statistics too), as the authors' released code records its baselines' contributions
                           * (tools.py cal_client_contribution 1383-1403) */
    FLCE_NRULES
};
extern const char *const FLCE_RULE_NAMES[FLCE_NRULES];

typedef struct flce_method {
    const char *name;    /* the --algo name: lower case, no spaces */
    const char *summary; /* one line for the help text: the rule and the contributions */
    const char *color;   /* its colour in the report's figures ("#rrggbb") */
    unsigned flags;      /* FLCE_M_* */
    /* The selection its authors' released code makes, which --as-released gives its run: 0 random
     * (the text's), 1 the sweep of FLCE's first rounds, 2 FedSV's window (docs/flce.md). */
    int released_schedule;
    /* Its settings (NULL-terminated; NULL: none): each a flag of `flce run`, a member of
     * config.json, a line of --help, its limits checked by the engine. */
    const flce_setting *const *settings;
    /* Checks across settings the limits of one cannot express (usage errors name the flag). */
    flce_status (*check)(const flce_run_cfg *c, flce_err *e);
    /* State across rounds: how many floats and doubles (E->aux_f, E->aux_d, zeroed), and their
     * first values. */
    void (*state_size)(const engine *E, size_t *floats, size_t *doubles);
    void (*state_init)(engine *E);
    /* Once per run, after the model exists: what else the method needs and does not save
     * (MOON: two more models), behind E->priv; close frees it (also after a failed open). */
    flce_status (*open)(engine *E, flce_err *e);
    void (*close)(engine *E);
    /* Before local training of slot i (E->m holds the global model). */
    flce_status (*client_begin)(engine *E, int slot, flce_err *e);
    /* One local step on the batch E->bx [nb], E->by [nb]; first: the first step of this client
     * this round. Default: SGD on the cross-entropy (flce_eng_sgd_step with lambda 0). The loss
     * goes into l->loss (averaged over the batches into E->losses). */
    flce_status (*local_step)(engine *E, int slot, int nb, int first, flce_losses *l, flce_err *e);
    /* After local training: what the client uploads beyond its model (prototypes; one number
     * E->slot_value[slot] for the round's report). When it returns, E->m must hold the model
     * the client uploads. */
    flce_status (*client_end)(engine *E, int slot, flce_err *e);
    /* The server step (required): E->newg, E->omega, E->rc from E->states [K][S], E->global. */
    flce_status (*server)(engine *E, flce_err *e);
    /* After the server step, on every process: the method's columns of this round's metrics
     * (fallback, proto_nocorrect, personal_acc), from E->slot_value and what its server kept. */
    void (*report)(engine *E, flce_round_metrics *m);
    /* Final contributions CE [n] (sum 1) after the last round; seconds[0]: the time of any
     * completion step, seconds[1]: the time of that step as the paper describes it where the
     * method's differs (FLCE: one fit a class at a fixed rank; written to costs.txt as
     * final_server_seconds_paper), NAN otherwise (both preset so). Default: the running sums
     * (clamped with FLCE_M_CLAMP), normalised. Under mpirun it runs on every process (E->writer
     * on rank 0 only; only rank 0's CE is used): a hook may share its work out, each process
     * taking part in the same exchanges (FLCE's completion by class), or do it on rank 0 alone
     * (E->writer) and nothing elsewhere. */
    flce_status (*final)(engine *E, double *CE, double seconds[2], flce_err *e);
} flce_method;

/* The seconds the rounds still to run will take on this machine (fl/estimate.c: a training step
 * and an evaluation batch of a scratch model timed; NAN when none could be timed), *step_s the
 * step's; *partial 1 where the estimate leaves out work it cannot size (Shapley evaluations). */
double flce_eng_estimate(engine *E, double *step_s, int *partial);

/* The registry (fl/methods/registry.c), in the order of `all` (names and help: engine.h). */
const flce_method *flce_method_at(int i);
/* NULL when no method has that name. */
const flce_method *flce_method_find(const char *name);

struct engine {
    const flce_run_cfg *cfg;
    const flce_method *algo;
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
    double *sizes;       /* [n] the sample counts the methods read: the clients' own, or what a client
                          * reports (an inflate-count attack, fl/attacks.c) */
    double *data_sizes;  /* [n] the samples each client holds, where they differ from sizes; NULL: sizes */
    int *held;           /* [n] classes held */
    flce_backend *be;
    flce_model m;                  /* the model that trains */
    size_t S, P;                   /* state entries; trainable ones (parameters) among them */
    uint8_t *trainable;            /* [S]: 1 for a parameter, 0 for a BatchNorm running statistic */
    float *global, *states, *newg; /* [S], [K][S], [S] */
    int t;                         /* current round, 0-based */
    int *sel;                      /* [K] */
    float *protos;                 /* [n][C][d] of the round, NaN where none */
    float *protos_alt;             /* [n][C][d] the other reading's prototypes (FLCE: correct <-> all; correct
                                    * when the run's is first), for the trace's prototypes_alt.npy */
    float *protos_first;           /* [n][C][d] the released code's first-correct-sample prototypes, for the
                                    * trace's prototypes_first.npy */
    uint8_t *present;              /* [n][C] */
    double *losses;                /* [K] mean local training loss */
    double *rep_loss, *rep_acc;    /* [K] the received model on the client's data (report) */
    double *omega, *rc;            /* [K] aggregation weights, this round's contributions */
    double *rules;                 /* [K][FLCE_NRULES] this round's contribution under each reading (FLCE_M_COSINE_RULES) */
    double *rules_hist;            /* [T][n][FLCE_NRULES] every round's, NaN where not selected (saved for --resume) */
    double rules_s;                /* seconds spent on the other readings this round: not the method's server cost */
    double *slot_value;            /* [K] one number per slot a method's client hooks report, sent with the upload
                                    * (FLCE: classes held with no prototype; Ditto: its personal model's accuracy) */
    int fallback;                  /* this round's server used a fallback rule (FLCE: no prototype; report) */
    int *owner;                    /* [K] the rank that trains each slot (0 in one process) */
    const flce_comm *comm;         /* NULL: one process */
    flce_memo *memo;               /* cfg->memo where this run uses it (eng_memo_attach), else NULL */
    int writer;                    /* 1 on the rank that writes the run folder (rank 0; the only one without comm) */
    /* state kept across rounds (saved for --resume) */
    double *contrib_sum;           /* [n] running contributions */
    double *rc_hist;               /* [T][n] each round's contributions, NaN where not selected */
    float *aux_f;                  /* the method's state, aux_fn floats (state_size) */
    double *aux_d;                 /* the method's state, aux_dn doubles */
    size_t aux_fn, aux_dn;
    void *priv;                    /* what the method's open made (not saved), freed by its close */
    /* scratch */
    int MB;                        /* the largest batch a model of the run takes (flce_eng_max_batch) */
    float *bx, *logits, *feat, *dzx, *tmp_state;
    int32_t *by;
    int *perm;
    double *vcache;                /* Shapley utility cache per round, [2^K] */
    /* files */
    char dir[1024];
    char *settings;                  /* the settings a state.bin belongs to (config.json compact, newline, the
                                      * partition's digest): in its header, compared on --resume */
    int fd_proto, fd_proto_alt, fd_proto_first, fd_sel;
    int fd_lock;                     /* the run folder, open and flock()ed for the run's whole life (the writer's) */
    size_t proto_off, proto_alt_off, proto_first_off, sel_off;
    uint64_t chain_proto, chain_sel; /* checksums of the trace's rounds so far (state.bin) */
    int resume_done;                 /* --resume: the rounds state.bin says are done */
    flce_round_metrics *metrics;
    double *test_loss;             /* [T] the global model's test loss after each round (cfg->test_loss), else NULL */
};

/* An engine without data or run folder, for benchmarks of the server steps: the model (ResNet20
 * for c x h x w inputs and C classes) on be, cfg's clients, per_round and rounds, client sizes
 * sizes [n], every array of a run allocated as flce_run allocates it and the method's state
 * initialised. The caller fills what a round needs (global, states, sel, protos, present; for
 * utilities train_x, val_idx, n_val, ds.train.labels, malloc'd: the engine frees them). Close
 * with flce_engine_close, also after a failure. */
flce_status flce_engine_open_synthetic(engine *E, const flce_run_cfg *cfg, const flce_method *algo, flce_backend *be, int c, int h,
                                       int w, int C, const double *sizes, flce_err *e);
/* Another method (or the same) on the same synthetic engine: its state allocated afresh and
 * initialised, as before a run's first round. */
flce_status flce_engine_set_method(engine *E, const flce_method *algo, flce_err *e);
void flce_engine_close(engine *E);
/* state.bin of E->dir written for `done` rounds, or read back and checked as --resume does
 * (E->settings: the settings text it must belong to; *done: the rounds it holds). For the tests
 * and the state.bin fuzz target; a run uses them through flce_run. */
flce_status flce_engine_state_save(engine *E, int done, flce_err *e);
flce_status flce_engine_state_load(engine *E, int *done, flce_err *e);

/* Every process's status agreed (several processes): when any failed, every one fails with
 * the message of the lowest failing rank; st itself in one process. */
flce_status flce_eng_agree(engine *E, flce_status st, flce_err *e);
/* The value of one of the method's settings for this run (its default when not set, and for a
 * setting the method does not declare in its settings). */
double flce_eng_setting(const engine *E, const flce_setting *s);
/* 1 when method m lists setting s (the same object or the same flag) among its settings. */
int flce_method_declares(const flce_method *m, const flce_setting *s);
/* The default local step: forward and backward of L_CE + lambda L_CL (temperature tau) on E->m
 * (L_CL skipped when lambda is 0, tau then unused), then plain SGD (no momentum, no weight
 * decay) at the run's learning rate. */
flce_status flce_eng_sgd_step(engine *E, int nb, int first, float lambda, float tau, flce_losses *l, flce_err *e);
/* The optimiser's step on E->m's gradients: --clip-norm (through the host), then SGD with --lr,
 * --momentum (first: its buffer restarts) and --weight-decay. Every method's local step ends so. */
flce_status flce_eng_sgd(engine *E, int first, flce_err *e);
/* g <- g + mu (w - ref) for every trainable parameter of m (a proximal term's gradient, on the
 * host, element by element in parameter order), between backward and SGD. */
void flce_eng_add_prox(engine *E, flce_model *m, const float *ref, float mu);
/* Client k's samples into E->bx (and their labels into y, when not NULL): entries [i0, i0 + nb)
 * of its partition, in partition order. */
void flce_eng_gather(engine *E, int k, int64_t i0, int nb, int32_t *y);
/* Whether client k is in round E->t's window of --schedule window (cfg->schedule_window): h =
 * floor(K / 2) clients from s h (mod n), s = t mod ceil(n / h); 0 without that schedule. */
int flce_eng_in_window(const engine *E, int k);
/* The first client of round E->t's window (s h, s = t mod ceil(n / h), h = floor(K / 2)). */
int flce_eng_window_start(const engine *E);
/* The number of samples client k holds. */
int64_t flce_eng_client_size(const engine *E, int k);
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
 * parameters, when given), clamped at 0, normalised over the round. With E->rules, also the
 * other readings (FLCE_RULE_COS_MEAN, FLCE_RULE_COS_MODEL), each clamped and normalised alike. */
void flce_eng_cosine_rule(engine *E, const float *newg, const float *dirs, double *rc);
/* Every reading of the cosine rule for this round into E->rules, E->rc left as it is (methods with
 * FLCE_M_RULE_READINGS, at the end of their server step, E->newg made); its seconds are not
 * the method's server cost. */
void flce_eng_record_readings(engine *E);
/* The parameters (trainable entries) of a state vector [S] into out [P], in state order. */
void flce_eng_params(const engine *E, const float *state, float *out);
/* The BatchNorm rule for methods whose server rule is a step in parameter space (FedFV,
 * CGSV, q-FedAvg): newg's parameters come from params [P]; its running statistics are the
 * data-size-weighted average of the selected clients' (docs/baselines.md). */
void flce_eng_compose(engine *E, const float *params, float *newg);

/* FedAvg's rule: data-size weights into E->omega and their average into E->newg. */
void flce_eng_fedavg(engine *E);
/* The server step of FedAvg and the methods that keep its aggregation (FedProx, Ditto, MOON):
 * flce_eng_fedavg, contributions by the cosine rule. */
flce_status flce_eng_fedavg_cosine(engine *E, flce_err *e);

/* The parameters of the global model [P], of the K uploads [K][P] and room for a result [P]
 * (methods that step in parameter space: FedFV, CGSV, q-FedAvg); `who` names the method in an
 * out-of-memory error. Close it with flce_eng_pv_close. */
typedef struct {
    float *g, *st, *out;
} flce_param_view;
flce_status flce_eng_pv_open(engine *E, flce_param_view *v, const char *who, flce_err *e);
void flce_eng_pv_close(flce_param_view *v);

/* The Shapley utility v(S) of the coalition mask S of this round's slots: the validation
 * accuracy (or minus the loss, --utility loss) of the data-size-weighted average of their
 * models, on the validation set (or the test set, --utility-set test); v({}) is the round's
 * incoming global model. Cached per round in E->vcache (the engine
 * clears it before each server step). ud: a
 * flce_utility_ctx, whose `failed` is set (and e filled) when an evaluation fails. Uses E->newg
 * and E->m as scratch. */
typedef struct {
    engine *E;
    flce_err *e;
    int failed;
} flce_utility_ctx;
void flce_eng_utility_reset(engine *E);
/* The Shapley methods' shared setting --utility (accuracy or loss), read by flce_eng_utility. */
extern const flce_setting flce_setting_utility;
/* The FedAvg family's aggregation (flce_eng_fedavg): data-size weights (the text) or the plain
 * mean of the released code (algorithms/fedavg.py 211-227). */
extern const flce_setting flce_setting_aggregation;
double flce_eng_utility(uint32_t mask, void *ud);
/* The Shapley methods' --utility-set: validation (the text) or test (the released FedSV). */
extern const flce_setting flce_setting_utility_set;
/* The utility of the model state [S] (on --utility-set, as --utility says); E->m as scratch. */
double flce_eng_state_utility(engine *E, const float *state, void *ud);
/* The coalition mask's slots and their data-size weights (summing to 1) into slots [*k], w [*k]. */
void flce_eng_coalition_weights(const engine *E, uint32_t mask, int *slots, double *w, int *k);
/* Several processes: the utilities of these coalitions computed beforehand, spread over the
 * ranks (each once), into every rank's cache; a method that knows which coalitions it is about
 * to ask for (GTG: a permutation's prefixes) calls it first. One process: nothing (each is
 * computed when asked for). The values are the same either way. */
flce_status flce_eng_utilities(engine *E, const uint32_t *masks, int count, flce_err *e);

#endif
