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

/* A setting of a method, declared in the method's file next to its hooks (fl/method.h:
 * flce_method.settings): the option parser, config.json (written, compared on --resume),
 * validation and --help all walk these declarations. A number, or one of a few words (stored as
 * the word's index). Several methods may share one (the Shapley utility). */
typedef struct flce_setting {
    const char *flag;    /* --flag; its config.json member is the flag with '_' for '-' */
    const char *choices; /* NULL: a number; "a|b|c": one of these words */
    double def;          /* the default (a word: its index) */
    double lo, hi;       /* limits: lo <= v <= hi (lo < v with lo_open) */
    int lo_open, integer;
    const char *help;    /* one line for --help: "Method: what it is" (the default is added) */
} flce_setting;
#define FLCE_MAX_SETTINGS 32

/* A strategic client (docs/attacks.md): what it does, which client, how strongly. */
typedef enum {
    FLCE_ATTACK_REPLICATE = 1, /* its data copied STRENGTH times (a whole number, 1 ..100) */
    FLCE_ATTACK_RANDOM_DATA,   /* a fraction STRENGTH of its samples' pixels replaced by uniform noise */
    FLCE_ATTACK_SHUFFLE_LABELS,/* a fraction STRENGTH of its samples' labels shuffled among them */
    FLCE_ATTACK_FLIP_LABELS,   /* a fraction STRENGTH of its labels y made C - 1 - y */
    FLCE_ATTACK_FREE_RIDER,    /* trains nothing: returns the global model (plus noise of std STRENGTH / t) */
    FLCE_ATTACK_INFLATE_COUNT, /* reports STRENGTH times its sample count to the methods that read counts */
    FLCE_ATTACK_FORGE_PROTOTYPES, /* uploads STRENGTH p for each prototype p */
} flce_attack_kind;
typedef struct {
    int kind, client;
    double strength;
} flce_attack;
#define FLCE_MAX_ATTACKS 8

/* Work reused across runs of one configuration (fl/memo.c): runs that differ only in the clients
 * they select (--members, --per-round), the training seed and the rounds tested repeat client
 * updates from the same model (flce truth's coalitions all start from one initial model) and test
 * evaluations of the same model. Given a memo (flce_run_cfg.memo), a run of one process takes a
 * client's update from it where the model received, the round, the client and the training seed
 * are the same (bytes compared, so the results are the same bits; only for a method without
 * client hooks or client state and without strategic clients), and a test evaluation where the
 * model is; it keeps its own for the runs after it within budget_bytes (the earliest rounds'
 * first). A run of other settings empties it. One thread at a time. */
typedef struct flce_memo flce_memo;
flce_memo *flce_memo_new(size_t budget_bytes); /* NULL: out of memory */
void flce_memo_free(flce_memo *m);
/* client updates reused, trained; test evaluations reused, run (by the runs given it so far) */
void flce_memo_counts(const flce_memo *m, long counts[4]);

typedef struct {
    const char *algo;         /* a method of the registry (flce_method_names()) */
    const struct flce_method *method; /* or a method given directly (method.h); NULL: by the name in algo */
    flce_ablation ablate;     /* FLCE ablations M, V, Q, CMC */
    int ablate_cl;            /* -CL: lambda = 0 */
    const char *dataset, *data_dir;
    int clients, per_round, rounds, epochs, batch;
    /* local training and selection as the authors' released code does them (docs/flce.md, "The
     * released code"); 0: the text's */
    int local_steps;          /* S steps of a batch each (the data reshuffled each time it runs out) instead of --epochs */
    double momentum;          /* SGD momentum, its buffer restarted at each client's first step of a round */
    double weight_decay;      /* coupled: g + wd w */
    double clip_norm;         /* the gradients' total L2 norm clipped to it (ref_clip_grad_norm) */
    int schedule_sweep;       /* the first ceil(n / K) rounds select clients tK .. tK + K - 1 (mod n), then at random */
    int schedule_window;      /* every round: a window of h = floor(K / 2) clients, sh .. sh + h - 1 (mod n) with
                               * s = t mod ceil(n / h), and K - h drawn at random from the others (the released
                               * FedSV's, algorithms/fedsharplyavg.py 79-91; flce_eng_in_window) */
    int schedule_released;    /* --as-released without --schedule: each method's run takes its released code's
                               * selection (flce_method.released_schedule), set per method by flce run */
    /* a coalition trained alone (flce truth, issue 63): only these clients are ever selected, K of them
     * a round by the seeded stream (per_round is then at most their number); 0 members: every client */
    int members[64], nmembers;
    /* strategic clients (--attack KIND:CLIENT[:STRENGTH], fl/attacks.c, docs/attacks.md): none by default */
    flce_attack attacks[FLCE_MAX_ATTACKS];
    int nattacks;
    flce_partition_cfg part;
    double lr;
    int proto_first;          /* FLCE: a prototype is the first correctly classified sample of its class (the
                               * released code, flce_prototypes_first); proto_all then 0 */
    int proto_all;            /* FLCE: a prototype averages all samples of the class (the equation), not
                               * only those the model classifies right (the text; default 0) */
    double *class_weights;    /* [classes] or NULL (b_c = 1/C) */
    int train_subset, test_subset, val_size; /* 0: all / default */
    /* The backend to train on, handed over by the program (the engine never creates one): called
     * once the settings, the data and the run directory are checked, so that a usage error is
     * reported before any device is opened; the backend stays the caller's (not destroyed). */
    flce_backend *(*backend)(void *ud, flce_err *e);
    void *backend_ud;
    const char *denormals;    /* the --denormals asked for (auto, preserve, ftz; NULL: auto): every process of a
                               * job compares it before the backend says what it does */
    flce_comm *comm;          /* several processes (see above); NULL: one */
    uint64_t seed;
    /* the training's own seed (flce truth's --truth-seeds): the model's initialisation, the selection,
     * the batch order, the Monte-Carlo permutations and the completion's start draw from it, the data
     * (subsets, partition, noise, validation set) from seed; 0 in has_train_seed: seed (flce_train_seed) */
    uint64_t train_seed;
    int has_train_seed;
    int test_loss;            /* each round also the global model's test loss (metrics.csv's test_loss column) */
    int test_from;            /* the first round whose global model is evaluated on the test set (0 or 1: every
                               * round; flce truth: its window's first, T - W + 1): the rounds before it have no
                               * accuracy, macro-F1 or test loss (NaN; empty in metrics.csv). Training never reads
                               * them, so the models, their digests and the later rounds are the same bits. */
    const char *out;
    int resume, force;
    int eval_batch;           /* default 256 */
    int estimate;             /* time a step before the first round and tell progress what the run will take */
    flce_memo *memo;          /* work reused across runs (above); NULL: none */
    /* the methods' own settings (each declared in its method's file, fl/method.h), set with
     * flce_run_cfg_set; a setting not set has its declared default */
    struct {
        const struct flce_setting *s;
        double v;
    } set[FLCE_MAX_SETTINGS];
    int nset;
    flce_completion_cfg completion; /* FLCE's completion (its seed is the run's) */
} flce_run_cfg;

void flce_run_cfg_default(flce_run_cfg *c);
/* The seed of the training's streams: train_seed when given, else seed. */
uint64_t flce_train_seed(const flce_run_cfg *c);
/* The registry's settings, each once, in the order of the methods (and of each method's table). */
int flce_setting_count(void);
const flce_setting *flce_setting_at(int i);
/* The one with this flag (no "--"), or NULL. */
const flce_setting *flce_setting_find(const char *flag);
/* Whether the method of this name declares s. */
int flce_method_has_setting(const char *method, const flce_setting *s);
/* The methods that declare s, ", "-separated, into buf. */
const char *flce_setting_methods(const flce_setting *s, char *buf, size_t cap);
/* s's value as text ("0.01", "exact") into buf; the default when v is NAN. */
const char *flce_setting_text(const flce_setting *s, double v, char *buf, size_t cap);
/* Set a setting from its text (a number, or one of its words), its limits checked: a usage
 * error (FLCE_ERR_ARG) names --flag. */
flce_status flce_run_cfg_set(flce_run_cfg *c, const flce_setting *s, const char *text, flce_err *e);
/* A value within the limits (checked: FLCE_ERR_ARG naming --flag otherwise). */
flce_status flce_run_cfg_set_value(flce_run_cfg *c, const flce_setting *s, double v, flce_err *e);
/* The value set, or s's default. */
double flce_run_cfg_get(const flce_run_cfg *c, const flce_setting *s);
/* 1 when name is a method of the registry. */
int flce_algo_known(const char *name);
/* The registry's method names, ", "-separated, in the order of `all`; and the help text: one
 * line per method, "  name      summary\n". */
const char *flce_method_names(void);
const char *flce_method_help(void);
/* The i-th method's name (0 <= i < flce_method_count()), for `all`. */
int flce_method_count(void);
const char *flce_method_name(int i);
/* The selection a method's released code makes (--as-released): 0 random, 1 FLCE's sweep, 2 FedSV's
 * window; 0 for an unknown name. */
int flce_method_released_schedule(const char *name);

typedef struct {
    int round;                 /* 1-based */
    double acc, macro_f1, mean_loss, kl;
    double server_s, client_s;
    int64_t bytes_up, bytes_down;
    int fallback;              /* FLCE: no prototype in the round, data-size weights used */
    int proto_nocorrect;       /* prototypes not uploaded: class held but none classified right */
    double personal_acc;       /* Ditto: mean test accuracy of the round's personal models */
} flce_round_metrics;

/* Progress: called once before the first round (elapsed_s -1, m->round the rounds done already;
 * with cfg->estimate, m->client_s the seconds the rounds to run will take on this machine,
 * flce_eng_estimate's, NAN where none, m->server_s one training step's and m->fallback 1 where
 * the estimate leaves work out; the other metrics 0) and after every round (and never by the
 * library on its own terminal). */
typedef void (*flce_progress_fn)(void *ud, const flce_round_metrics *m, int rounds, double elapsed_s);

typedef struct {
    double final_acc, final_f1;   /* mean over the last min(10, T) rounds (those of them tested: test_from) */
    double kl, kl_div;            /* KL of the final contributions to data shares (plain, diversity-weighted) */
    double server_s, client_s;    /* totals */
    double completion_s;          /* FLCE: the completion at the end */
    int rounds_done;
    int already_finished;         /* --resume found the run finished: nothing was run or written */
    char device[160];
} flce_run_summary;

/* 1 when dir holds runs of its own: summary.csv (a run of several methods) or a sub-folder with
 * a config.json; the first of them ("summary.csv" or "NAME/") into sub. A run's folder that does
 * mixes two runs (flce run refuses to make one, flce report to read one). */
int flce_holds_runs(const char *dir, char *sub, size_t cap);

/* The settings' checks of flce_run alone (the method's own included), nothing read or written:
 * a program running several methods checks each before the first starts. */
flce_status flce_run_check(const flce_run_cfg *cfg, flce_err *e);
/* Validate cfg (every usage error is FLCE_ERR_ARG with one line naming the flag), then
 * run or resume the experiment into cfg->out. */
flce_status flce_run(const flce_run_cfg *cfg, flce_progress_fn progress, void *ud, flce_run_summary *sum, flce_err *e);

/* The initial model of cfg's run (the same data, partition and initialisation as flce_run, nothing
 * trained or written) on the test set: its accuracy and mean loss, and the digests of the model
 * (digests.txt's initial_model) and of the partition. flce truth's value of the empty coalition.
 * sizes (cfg->clients entries) and n_test, where not NULL: the samples each client holds and the
 * test set's size (flce truth's cost of a coalition). */
flce_status flce_initial_eval(const flce_run_cfg *cfg, double *acc, double *loss, uint64_t *model_digest, uint64_t *part_digest,
                              double *sizes, int *n_test, flce_err *e);

#endif
