/* flce_eq.h: the FLCE paper's equations as plain, readable C: the oracle.
 *
 * One function per equation, each named in its comment by the paper's label
 * (eq:method.*), exactly as docs/flce.md decides where the paper is silent. Server-side
 * equations run in float64 from float32 prototypes; logarithms use flce_dlog so every
 * machine gives the same bits. Arrays are C order; "present" masks say which clients
 * uploaded a prototype for the class (S_{t,c}). Nothing here allocates unless its
 * comment says so, and nothing returns NaN or Inf for finite inputs.
 */
#ifndef FLCE_EQ_H
#define FLCE_EQ_H

#include <stdint.h>

#include "base.h"

/* ---- local training: supervised contrastive loss (eq:method.losscl) ---------------- */
/* L_CL over a batch of N features z [N x d] with labels y, on L2-normalised features,
 * temperature tau. For anchor i, positives are j != i with y_j = y_i; the denominator
 * sums over all k != i; the mean runs over anchors with at least one positive (0 if none).
 * grad (may be NULL) receives dL/dz [N x d]. float64 definition; the training ops of each
 * backend follow it in float32. */
double flce_supcon_loss(const double *z, const int *y, int N, int d, double tau, double *grad);

/* ---- prototypes (eq:method.z) -------------------------------------------------------- */
/* p_c = mean of z over samples with label c that the model predicts as c (float64 sums in
 * sample order, then rounded to float32: what a client uploads). count[c] = how many;
 * when 0 the class gets no prototype (proto row filled with NaN). */
void flce_prototypes(const float *z, const int *label, const int *pred, int N, int d, int C, float *proto,
                     int *count);

/* The released code's prototype (Yao-Learning/FLCE algorithms/flce.py 429-436; docs/flce.md, "The
 * released code"): its accumulation keeps only the first correctly classified sample of each
 * class, so p_c is the feature of the first sample, in sample order, with label and prediction c
 * (rounded to float32 as uploaded); count[c] 1, or 0 and a NaN row where there is none. */
void flce_prototypes_first(const float *z, const int *label, const int *pred, int N, int d, int C, float *proto, int *count);

/* ---- helpers every equation uses ------------------------------------------------------ */
/* cos(a, b) = a.b / (|a||b|), 0 where either norm is 0. */
double flce_cosine(const double *a, const double *b, int d);
/* x_k <- x_k / sum over present k; uniform 1/|present| where the sum is 0 or not finite;
 * absent entries are set to 0. */
void flce_normalize(double *x, const uint8_t *present, int K);

/* ---- one class of one round: K clients, prototypes p [K x d] (rows of absent clients
 * are ignored) ------------------------------------------------------------------------ */
/* eq:method.prototype_m_norm: class contribution mass M [K]. pbar = mean of present p;
 * s_k = max(0, cos(p_k, pbar)) normalised; phat = sum s_k p_k;
 * M_k = max(0, cos(p_k, phat)) normalised. */
void flce_mass(const double *p, const uint8_t *present, int K, int d, double *M);
/* eq:method.prototype_v: class contribution velocity V [K]: ||p_k - g||^2 normalised;
 * uniform when g is NULL (the class has no global prototype yet). */
void flce_velocity(const double *p, const uint8_t *present, int K, int d, const double *g, double *V);

/* The round's equations as the authors' released code computes them, each a setting (docs/flce.md,
 * "The released code"; all 0: the text, this page's contract). */
typedef struct {
    int velocity_distance; /* V = ||p_k - g||, not squared (tools.py client_similarity_P 171-172) */
    int forget_absent;     /* a class absent from a round loses its global prototype, and a class
                            * without one takes g = 0: V = ||p_k|| (tools.py 153-159, 1347-1381) */
    double proto_clip;     /* a guard, not the paper's (docs/attacks.md, "The guard"): where > 0, each
                            * class's prototypes longer than proto_clip times the round's lower median
                            * length are shortened to it before the equations (flce_clip_prototypes);
                            * 0: off, the text */
} flce_round_rules;
/* The guard against forged prototypes: of the present rows of p [K x d], those whose Euclidean
 * length exceeds kappa x the lower median length (the ceil(m/2)-th smallest of the m present
 * ones) are scaled to that length, their directions kept; kappa <= 0 changes nothing. Returns the
 * number of rows shortened, -1 where out of memory. */
int flce_clip_prototypes(double *p, const uint8_t *present, int K, int d, double kappa);
/* flce_velocity under rules (NULL: the text's). */
void flce_velocity_rules(const double *p, const uint8_t *present, int K, int d, const double *g, const flce_round_rules *rules,
                         double *V);
/* eq:method.prototype_p: class contribution momentum Q [K] = M V normalised. */
void flce_momentum(const double *M, const double *V, const uint8_t *present, int K, double *Q);
/* eq:method.aggregation_prototype: g = sum_k Q_k p_k over present k. */
void flce_global_prototype(const double *p, const double *Q, const uint8_t *present, int K, int d, double *g);

/* ---- the model aggregation weights (eq:method.aggregation_model) ---------------------- */
/* omega_k = sum_c Q[k][c] / sum_{k,c} Q[k][c] for Q [K x C]. Where the total is 0 (no
 * prototype uploaded in the round), omega falls back to data-size weights
 * sizes_k / sum sizes and the function returns 1 (else 0). */
int flce_aggregation_weights(const double *Q, int K, int C, const double *sizes, double *omega);

/* ---- ablations (Table "ablation") ---------------------------------------------------- */
typedef struct {
    int no_mass;       /* -M: Q = V */
    int no_velocity;   /* -V: Q = M */
    int no_momentum;   /* -Q: Q = 1/|S_{t,c}| */
    int no_completion; /* -CMC: missing entries are 0 */
} flce_ablation;

/* ---- a whole server round ------------------------------------------------------------ */
/* From the float32 prototypes of K clients, proto [K x C x d], with present [K x C]:
 * Q [K x C] per class (eq:method.prototype_m_norm .. prototype_p, with the ablation), and
 * the global prototypes g [C x d] updated in place (eq:method.aggregation_prototype) for
 * every class present; has_g [C] says which classes have one. rules (NULL: the text's) as
 * the released code computes the velocity and treats an absent class. A present prototype with
 * a non-finite entry is an FLCE_ERR_NUMERIC error naming client and class. */
flce_status flce_round(const float *proto, const uint8_t *present, int K, int C, int d, const flce_ablation *ab,
                       const flce_round_rules *rules, double *g, uint8_t *has_g, double *Q, flce_err *e);

/* ---- contribution matrix completion (eq:prototype_p_complemention) -------------------- */
typedef struct {
    int rank;        /* fixed rank when not rank_auto; 0: the rule r = min(4, floor(obs / (2 (T + n)))), at least 1 */
    double mu;       /* ridge weight when not mu_auto, 1e-2 */
    int max_iter;    /* default 500 (ALS) */
    double tol;      /* a fit stops when the objective's relative change is at most this; 0 (default):
                      * FLCE_COMPLETION_TOL */
    int version;     /* FLCE_COMPLETION_VERSION: see below */
    int threads;     /* threads for the folds (flce_complete) and classes (flce_eval_trace); 0: one per
                      * online CPU. The results do not depend on it. */
    int gradient;    /* 1: plain gradient descent instead of ALS */
    double lr;       /* gradient descent step, default 0.05 */
    uint64_t seed;   /* start of U and V, and the cross-validation folds */
    int rank_auto;   /* 1 (default): the rank from FLCE_CV_RANKS chosen by K-fold held-out error */
    int mu_auto;     /* 1 (default): mu from FLCE_CV_MUS chosen likewise (with the rank when both) */
    int folds;       /* K of the cross-validation, default 5 */
    int literal;     /* 1: the paper's equation read literally (flce_complete_literal) */
    int missing_unobserved; /* a selected client without a prototype of the class: 0 (default) its momentum
                             * is an observed 0; 1 the entry is unobserved and the completion fills it
                             * (flce_eval_trace; docs/flce.md, the readings) */
    int proto_first; /* recorded only: the prototypes evaluated are the released code's first correctly
                      * classified sample of each class (flce_prototypes_first); proto_all then 0 */
    int proto_all;   /* recorded only: the prototypes evaluated average all samples of their class (1) or
                      * those classified right (0, the default); the trace's files say which is which */
    int initial_model; /* recorded only: round 1's previous global prototypes came from the initial model
                        * (the trace's initial_g, FLCE's --initial-prototypes initial-model) */
    flce_round_rules rules; /* the round's equations (velocity, absent classes): the text's by default;
                             * recorded in completion.json ("velocity", "absent_class") */
    int part, parts; /* flce_eval_trace completes only the classes c with c % parts == part (parts <= 1:
                      * all; part < 0: none), leaving the others' X 0: one share of the work of several
                      * processes (fl/methods/flce.c). Default 0, 1. */
} flce_completion_cfg;

/* The completion's version, recorded in completion.json ("version"; a record without one was
 * written by version 1): a change of what the completion computes gets a new number, and a
 * trace of another version is refused rather than evaluated differently. Version 1: balanced
 * ALS from the seeded start for every fit (each candidate and fold of the cross-validation
 * too), to a relative change of the objective of FLCE_COMPLETION_TOL or max_iter sweeps.
 * Faster code that gives the same bits keeps the number (2026-11-27: sweeps over the observed
 * entries only, systems solved four at a time, folds and classes over threads). */
#define FLCE_COMPLETION_VERSION 1
#define FLCE_COMPLETION_TOL 1e-10

/* The candidates of --rank auto and --mu auto. */
#define FLCE_CV_NRANKS 4
#define FLCE_CV_NMUS 4
extern const int FLCE_CV_RANKS[FLCE_CV_NRANKS];    /* 1, 2, 4, 8 */
extern const double FLCE_CV_MUS[FLCE_CV_NMUS];     /* 1e-3, 1e-2, 1e-1, 1 */

typedef struct {
    int rank, iters;
    double objective;
    double mu;        /* the ridge weight used */
    double cv_error;  /* with auto: the chosen setting's mean held-out squared error (NaN otherwise) */
    /* with auto: every candidate's mean held-out squared error, [rank index][mu index] (NaN:
     * not a candidate) */
    double cv_grid[FLCE_CV_NRANKS][FLCE_CV_NMUS];
} flce_completion_info;

void flce_completion_cfg_default(flce_completion_cfg *c);
/* The default rank for obs observed entries of a T x n matrix. */
int flce_completion_rank(int64_t obs, int T, int n);
/* Complete one class: X [T x n] with mask obs [T x n] (1 = observed) into Xhat [T x n]:
 * observed entries unchanged, missing ones max(0, (U V)[t][k]), U [T x r], V [r x n]
 * minimising sum_obs (X - UV)^2 + mu/2 (|U|^2 + |V|^2). stream selects the RNG stream
 * of the start (the class index). Allocates its work space. */
flce_status flce_complete(const double *X, const uint8_t *obs, int T, int n, const flce_completion_cfg *cfg,
                          uint32_t stream, double *Xhat, flce_completion_info *info, flce_err *e);
/* The K folds of the observed entries: fold[i] in 0..K-1 for observed i (a seeded
 * permutation of the observed entries, dealt round-robin), -1 for the others. Stream
 * (seed, completion, stream, 1): independent of the completion's start (client 0). */
void flce_cv_folds(const uint8_t *obs, int T, int n, int K, uint64_t seed, uint32_t stream, int *fold);
/* Mean squared error on held-out observed entries of completing with (rank, mu): for each
 * fold, complete from the other folds' entries (cfg's solver and start) and compare
 * max(0, u_t . v_k) with the held-out X; averaged over all observed entries. */
flce_status flce_cv_error(const double *X, const uint8_t *obs, int T, int n, const flce_completion_cfg *cfg, uint32_t stream,
                          int rank, double mu, double *err, flce_err *e);
/* The paper's completion equation read literally: min ||X - U V||_F^2 over all entries, the
 * unselected ones as the zeros X holds there, by gradient descent (cfg->lr, cfg->max_iter
 * steps, no ridge, no early stop) from a small seeded start; Xhat = max(0, U V) everywhere,
 * observed entries included. */
flce_status flce_complete_literal(const double *X, int T, int n, const flce_completion_cfg *cfg, uint32_t stream, double *Xhat,
                                  flce_completion_info *info, flce_err *e);

/* ---- final contribution (eq:contribution_each) --------------------------------------- */
/* CE_k = sum_t a_t sum_c b_c Xhat[t][k][c], normalised over the n clients (uniform when
 * all are 0). a NULL: 1/T; b NULL: 1/C. Fails (FLCE_ERR_NUMERIC) when a sum is not finite
 * (weights so large that it overflows). */
flce_status flce_final_contribution(const double *Xhat, int T, int n, int C, const double *a, const double *b,
                                    double *CE, flce_err *e);

/* ---- metrics ------------------------------------------------------------------------- */
/* KL(P || Q) = sum P_k ln(P_k / Q_k); terms with P_k = 0 are 0. Returns -1 (and sets e)
 * where some Q_k = 0 < P_k or an input is negative or not finite. */
double flce_kl(const double *P, const double *Q, int n, flce_err *e);
/* KL as the authors' released code computes it (Yao-Learning/FLCE 71754e2, KL_cmp.py 85-89 and
 * 105; docs/flce.md, "The released code"): the contributions P min-max rescaled to [0.01, 1]
 * (P'_k = 0.01 + 0.99 (P_k - min) / (max - min)), P' and Q each normalised to sum 1, then
 * sum P'_k ln(P'_k / Q'_k) (scipy.stats.entropy). It measures where each client lies between the
 * lowest and the highest, not how far the shares are from Q: every set of distinct values with the
 * same order statistics up to scale scores the same. Returns -1 (and sets e) where all P are equal
 * (the released code's 0/0: NaN), an input is negative or not finite, or some Q is 0. */
double flce_kl_minmax(const double *P, const double *Q, int n, flce_err *e);
/* The released code's reference of its noise experiments (KL_cmp.py 50-65): 1 for a clean
 * client, 0.32 for Gaussian feature noise, 1e-6 for label noise (noise [n]: 0 clean, 1
 * feature, 2 label); without noise, uniform. */
void flce_quality_reference(const int *noise, int n, double *Q);
/* Data shares |D_k| / sum |D| into Qd [n]; diversity-weighted when classes_held is not
 * NULL: proportional to |D_k| classes_held_k / C. */
void flce_data_shares(const double *sizes, const int *classes_held, int C, int n, double *Qd);
/* Euclidean distance between two vectors. */
double flce_euclidean(const double *a, const double *b, int n);
/* KL distance to a reference distribution ref: both normalised, with 1e-12 added to every
 * entry before normalising so that zeros of the reference stay finite. */
double flce_kl_distance(const double *p, const double *ref, int n);

/* ---- Shapley values ----------------------------------------------------------------- */
/* The utility of a coalition given as a bit mask of players. */
typedef double (*flce_utility_fn)(uint32_t coalition, void *ctx);
/* Exact Shapley values of n <= 20 players (all 2^n coalitions, each evaluated once). */
flce_status flce_shapley_exact(int n, flce_utility_fn v, void *ctx, double *phi, flce_err *e);
/* Monte-Carlo permutation sampling (perms permutations from the seeded stream), with
 * truncation: within a permutation, once |v(S) - v(all)| < eps the remaining marginals
 * are 0 (eps 0: no truncation). Returns the number of utility calls in *calls. */
flce_status flce_shapley_mc(int n, flce_utility_fn v, void *ctx, int perms, double eps, uint64_t seed,
                            uint32_t round, double *phi, int64_t *calls, flce_err *e);

/* ---- the evaluator: contributions from a recorded trace ------------------------------ */
typedef struct {
    int T, n, C, d;
    const float *prototypes;     /* [T x n x C x d], NaN where none uploaded; or NULL and Q given */
    const uint8_t *selected;     /* [T x n] */
    const double *round_weights; /* [T] or NULL */
    const double *class_weights; /* [C] or NULL */
    const double *Q;             /* without prototypes: the momentum recorded [T x n x C] (a run's Q.npy,
                                  * NaN where not selected), completed as it is (d is then 0) */
    const uint8_t *present;      /* with Q, for --missing unobserved: [T x n x C], 1 where the selected
                                  * client uploaded the class's prototype; NULL: unknown */
    const double *initial_g;     /* [C x d] round 1's previous global prototypes, a row of NaN where a class
                                  * has none (the released code's, from the initial model: FLCE's
                                  * --initial-prototypes initial-model); NULL: none, round 1's velocity
                                  * uniform (the text) */
} flce_trace;

typedef struct {
    double *Q;          /* [T x n x C]: observed Q, NaN where the client was not selected */
    double *X;          /* [T x n x C]: completed (or, with -CMC, missing = 0) */
    double *CE;         /* [n]: final contributions, sum 1 */
    int *rank;          /* [C] completion rank per class (0 with -CMC) */
    double *mu;         /* [C] ridge weight per class */
    double *cv_error;   /* [C] chosen setting's held-out error (NaN unless auto) */
    double *cv_grid;    /* [C][FLCE_CV_NRANKS][FLCE_CV_NMUS] with auto, else NaN */
    int *iters;         /* [C] completion iterations */
    int64_t fallback_rounds; /* rounds where omega fell back to data sizes */
    double seconds;          /* wall time of the evaluation (a cost, not a result: in no digest) */
} flce_eval_result;

/* Run the server equations round by round over the trace, complete, and combine.
 * Validates the trace (a finite prototype of an unselected client, a partly-NaN
 * prototype: FLCE_ERR_FORMAT). Allocates the result's arrays. */
flce_status flce_eval_trace(const flce_trace *tr, const flce_ablation *ab, const flce_completion_cfg *cc,
                            flce_eval_result *res, flce_err *e);
void flce_eval_result_free(flce_eval_result *r);

#endif
