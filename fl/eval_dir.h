/* eval_dir.h: a trace folder evaluated as `flce eval` evaluates it, for the command and the
 * C API (libflce) alike: the same settings, the same bits. */
#ifndef FLCE_EVAL_DIR_H
#define FLCE_EVAL_DIR_H

#include "trace_io.h"

/* What the caller chose; NULL (or 0) where it chose nothing: then the trace's completion.json,
 * else the default. Words as `flce eval`'s flags take them. */
typedef struct {
    const char *rank, *mu, *solver, *completion; /* "auto" | "rule" | R; "auto" | MU; "als" | "gd"; "masked" | "literal" */
    const char *proto_samples, *missing;         /* "correct" | "all"; "zero" | "unobserved" */
    const char *velocity, *absent_class;         /* "squared" | "distance"; "keep" | "forget" (the released code's) */
    const char *initial_prototypes;              /* "none" | "initial-model": round 1's previous global prototypes
                                                  * (NULL: the trace's initial_prototypes.npy where it has one) */
    const char *ablate;                          /* "M V Q CMC" (any of them; "" none); NULL: the trace's */
    const char *round_weights, *class_weights;   /* weight files (.npy float64 or a text list) */
    int rounds;                                  /* the first R rounds only; -1 (default): all */
    int max_iter;                                /* default 500 */
    int has_seed;                                /* seed given (else the trace's, else 1) */
    uint64_t seed;
    double tol; /* 0: the completion's own (1e-10) */
    int threads; /* 0: one per CPU (the results do not depend on it) */
} flce_eval_opts;
void flce_eval_opts_default(flce_eval_opts *o);
/* One --ablate word (any case) into ab: M, V, Q, CMC; CL into *cl, or, with cl NULL (a trace's
 * evaluation, where local training is over), refused. FLCE_ERR_ARG naming the word when it is
 * unknown or already set (a repeated letter is most likely another one mistyped). */
flce_status flce_ablation_word(const char *w, flce_ablation *ab, int *cl, flce_err *e);

typedef struct {
    flce_trace_files tf;      /* the trace as read (its T cut to the rounds evaluated) */
    flce_completion_cfg cc;   /* the completion's settings used */
    flce_ablation ab;         /* the ablations applied */
    flce_ablation ab_rec;     /* ... as recorded (a Q.npy trace holds its own M, V, Q) */
    flce_eval_result res;
    char dir[4096];           /* the trace folder read: never an output */
} flce_eval_run;

/* Evaluate the trace in dir: FLCE_OK, FLCE_ERR_ARG for what the caller chose wrong (a flag's
 * value, a weight file that does not fit: `flce eval`'s usage errors), another status for a
 * damaged trace or a failure of the work. Free r with flce_eval_run_free either way. */
flce_status flce_eval_dir(const char *dir, const flce_eval_opts *o, flce_eval_run *r, flce_err *e);
void flce_eval_run_free(flce_eval_run *r);
/* Q.npy, X_completed.npy, contributions.csv and completion_eval.json into out (made), whole or
 * not at all. */
flce_status flce_eval_write(const char *out, const flce_eval_run *r, flce_err *e);
/* FLCE_ERR_ARG when out is a run's own record, which an evaluation must never replace: a run
 * folder (it holds config.json: its contributions.csv is the run's result) or the trace folder
 * of one (its parent holds config.json: its Q.npy and X_completed.npy are what the run wrote),
 * nor a folder with a contributions.csv that no evaluation wrote (no completion_eval.json).
 * flce_eval_write checks it too; callers check first, before the evaluation's work. */
/* Also refused: out the trace folder it reads or inside it (trace_dir; NULL: not checked), and
 * an output that cannot be written, said before any work: a folder or another non-file where one
 * of the four files goes (FLCE_ERR_IO), a folder that takes no file (permission). */
flce_status flce_eval_out_check(const char *out, const char *trace_dir, flce_err *e);
/* The folder an evaluation of the trace in dir writes by default: dir's sibling DIR-eval
 * (trailing slashes dropped) into buf. */
void flce_eval_default_out(const char *dir, char *buf, size_t cap);

#endif
