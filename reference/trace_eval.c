/* trace_eval.c: contributions from a recorded trace, the whole of Algorithm 1's server
 * side after the fact: round by round flce_round (mass, velocity, momentum, global
 * prototypes), the contribution matrix X[t][k][c] (observed where selected), its
 * per-class completion, and the final contribution with round and class weights. The
 * engine calls the same functions during a run, so a run's trace reproduces its
 * contributions exactly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flce_eq.h"
#include "parallel.h"

void flce_eval_result_free(flce_eval_result *r) {
    free(r->Q), free(r->X), free(r->CE), free(r->rank), free(r->iters), free(r->mu), free(r->cv_error), free(r->cv_grid);
    memset(r, 0, sizeof *r);
}

/* One class's completion: its T x n matrix from Q (unselected entries unobserved), completed
 * (or, with -CMC, left with zeros), into its slots of the result. */
typedef struct {
    const flce_trace *tr;
    const flce_ablation *ab;
    const flce_completion_cfg *cc;
    const uint8_t *present; /* [T][n][C] with cc->missing_unobserved, else NULL */
    flce_eval_result *res;
    flce_status *st;
    flce_err *err;
} class_job;

static void complete_class(void *ctx, int c) {
    class_job *J = ctx;
    const flce_trace *tr = J->tr;
    int T = tr->T, n = tr->n, C = tr->C;
    flce_eval_result *res = J->res;
    flce_completion_cfg cc = *J->cc;
    cc.threads = 1; /* the classes are what is spread */
    J->st[c] = FLCE_OK;
    if (cc.part < 0 || (cc.parts > 1 && c % cc.parts != cc.part)) { /* another process's class: its slots 0 */
        for (size_t i = 0; i < (size_t)T * n; i++) res->X[i * C + (size_t)c] = 0;
        return;
    }
    double *Xc = malloc((size_t)T * n * sizeof *Xc), *Xh = malloc((size_t)T * n * sizeof *Xh);
    uint8_t *mask = J->present ? malloc((size_t)T * n) : NULL;
    if (!Xc || !Xh || (J->present && !mask)) {
        free(Xc), free(Xh), free(mask);
        J->st[c] = flce_fail(&J->err[c], FLCE_ERR_NOMEM, "trace: out of memory");
        return;
    }
    for (int t = 0; t < T; t++)
        for (int k = 0; k < n; k++) {
            double q = res->Q[((size_t)t * n + k) * C + c];
            Xc[t * n + k] = isnan(q) ? 0 : q;
        }
    if (J->ab && J->ab->no_completion) {
        memcpy(Xh, Xc, (size_t)T * n * sizeof *Xh);
    } else {
        flce_completion_info info;
        if (mask) /* the reading "unobserved": a selected client's missing prototype is no observation */
            for (size_t i = 0; i < (size_t)T * n; i++) mask[i] = tr->selected[i] && J->present[i * C + (size_t)c];
        J->st[c] = flce_complete(Xc, mask ? mask : tr->selected, T, n, &cc, (uint32_t)c, Xh, &info, &J->err[c]);
        if (!J->st[c]) {
            res->rank[c] = info.rank;
            res->iters[c] = info.iters;
            res->mu[c] = info.mu;
            res->cv_error[c] = info.cv_error;
            memcpy(res->cv_grid + (size_t)c * FLCE_CV_NRANKS * FLCE_CV_NMUS, info.cv_grid, sizeof info.cv_grid);
        }
    }
    if (!J->st[c])
        for (int t = 0; t < T; t++)
            for (int k = 0; k < n; k++) res->X[((size_t)t * n + k) * C + c] = Xh[t * n + k];
    free(Xc), free(Xh), free(mask);
}

flce_status flce_eval_trace(const flce_trace *tr, const flce_ablation *ab, const flce_completion_cfg *cc,
                            flce_eval_result *res, flce_err *e) {
    memset(res, 0, sizeof *res);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int T = tr->T, n = tr->n, C = tr->C, d = tr->d;
    if (T < 1 || n < 1 || C < 1 || (tr->prototypes ? d < 1 : !tr->Q))
        return flce_fail(e, FLCE_ERR_FORMAT, "trace: empty dimension (T %d, n %d, C %d, d %d)", T, n, C, d);
    size_t tnc = (size_t)T * n * C;
    res->Q = malloc(tnc * sizeof *res->Q);
    res->X = malloc(tnc * sizeof *res->X);
    res->CE = malloc((size_t)n * sizeof *res->CE);
    res->rank = flce_calloc((size_t)C, sizeof *res->rank);
    res->iters = flce_calloc((size_t)C, sizeof *res->iters);
    res->mu = malloc((size_t)C * sizeof *res->mu);
    res->cv_error = malloc((size_t)C * sizeof *res->cv_error);
    res->cv_grid = malloc((size_t)C * FLCE_CV_NRANKS * FLCE_CV_NMUS * sizeof *res->cv_grid);
    double *g = flce_calloc((size_t)C * d, sizeof *g), *Qt = malloc((size_t)n * C * sizeof *Qt);
    uint8_t *has_g = flce_calloc((size_t)C, 1), *present = malloc((size_t)n * C), *pres_all = NULL;
    flce_status st = FLCE_OK;
    if (!res->Q || !res->X || !res->CE || !res->rank || !res->iters || !res->mu || !res->cv_error || !res->cv_grid || !g || !Qt || !has_g || !present) {
        st = flce_fail(e, FLCE_ERR_NOMEM, "trace: out of memory");
        goto out;
    }
    for (int c = 0; c < C; c++) res->mu[c] = NAN, res->cv_error[c] = NAN;
    for (int i = 0; i < C * FLCE_CV_NRANKS * FLCE_CV_NMUS; i++) res->cv_grid[i] = NAN;
    if (cc->missing_unobserved && !(ab && ab->no_completion)) {
        if (!tr->prototypes && !tr->present) {
            st = flce_fail(e, FLCE_ERR_ARG, "trace: the reading --missing unobserved needs prototypes.npy (this trace has Q.npy only)");
            goto out;
        }
        if (!(pres_all = malloc(tnc))) {
            st = flce_fail(e, FLCE_ERR_NOMEM, "trace: out of memory");
            goto out;
        }
    }
    if (!tr->prototypes) { /* the recorded momentum: only the completion and the totals to redo */
        if (ab && (ab->no_mass || ab->no_velocity || ab->no_momentum)) {
            st = flce_fail(e, FLCE_ERR_ARG, "trace: the ablations M, V and Q need prototypes.npy (this trace has Q.npy only)");
            goto out;
        }
        for (size_t i = 0; i < tnc; i++) {
            double q = tr->Q[i];
            int sel = tr->selected[i / ((size_t)n * C) * n + i / C % n] != 0;
            if (sel ? !(q >= 0 && isfinite(q)) : !isnan(q)) {
                st = flce_fail(e, FLCE_ERR_FORMAT, "Q.npy: round %zu client %zu class %zu is %g (%s)", i / ((size_t)n * C), i / C % n,
                               i % C, q, sel ? "a selected client's momentum is finite and >= 0" : "NaN where not selected");
                goto out;
            }
            res->Q[i] = q;
        }
        if (pres_all) memcpy(pres_all, tr->present, tnc);
    }
    if (tr->initial_g && tr->prototypes) /* round 1's previous global prototypes: a class with a finite row has one */
        for (int c = 0; c < C; c++) {
            const double *r = tr->initial_g + (size_t)c * d;
            int fin = 0;
            for (int j = 0; j < d; j++) fin += isfinite(r[j]) != 0;
            if (fin != 0 && fin != d) {
                st = flce_fail(e, FLCE_ERR_FORMAT, "initial_prototypes.npy: class %d is partly NaN", c);
                goto out;
            }
            if (fin) memcpy(g + (size_t)c * d, r, sizeof *g * (size_t)d), has_g[c] = 1;
        }
    for (int t = 0; t < T && !st && tr->prototypes; t++) {
        const float *pt = tr->prototypes + (size_t)t * n * C * d;
        int any = 0;
        for (int k = 0; k < n; k++) {
            int sel = tr->selected[t * n + k] != 0;
            for (int c = 0; c < C; c++) {
                const float *v = pt + ((size_t)k * C + c) * d;
                int nans = 0;
                for (int j = 0; j < d; j++) nans += isnan(v[j]) != 0;
                if (nans != 0 && nans != d) {
                    st = flce_fail(e, FLCE_ERR_FORMAT, "prototypes.npy: round %d client %d class %d is partly NaN", t, k, c);
                    goto out;
                }
                if (!sel && nans == 0) {
                    st = flce_fail(e, FLCE_ERR_FORMAT,
                                   "prototypes.npy: round %d client %d class %d has a prototype but the client was not selected",
                                   t, k, c);
                    goto out;
                }
                present[k * C + c] = sel && nans == 0;
                if (pres_all) pres_all[((size_t)t * n + k) * C + c] = present[k * C + c];
                any |= present[k * C + c];
            }
        }
        st = flce_round(pt, present, n, C, d, ab, &cc->rules, g, has_g, Qt, e);
        if (st) {
            if (e) {
                char m[sizeof e->msg];
                memcpy(m, e->msg, sizeof m);
                flce_fail(e, st, "prototypes.npy: round %d: %.400s", t, m);
            }
            goto out;
        }
        int sel_any = 0;
        for (int k = 0; k < n; k++) sel_any |= tr->selected[t * n + k] != 0;
        res->fallback_rounds += sel_any && !any;
        for (int k = 0; k < n; k++)
            for (int c = 0; c < C; c++)
                res->Q[((size_t)t * n + k) * C + c] = tr->selected[t * n + k] ? Qt[k * C + c] : NAN;
    }
    { /* the classes' completions, spread over the threads (each class's results in its own
       * slots; the first failing class's error, as one thread would have met it) */
        flce_status *sts = malloc(sizeof *sts * (size_t)C);
        flce_err *errs = malloc(sizeof *errs * (size_t)C);
        if (!sts || !errs) {
            free(sts), free(errs);
            st = flce_fail(e, FLCE_ERR_NOMEM, "trace: out of memory");
            goto out;
        }
        class_job J = {tr, ab, cc, pres_all, res, sts, errs};
        flce_parallel_for(C, cc->threads, complete_class, &J);
        for (int c = 0; c < C && !st; c++)
            if ((st = sts[c]) && e) *e = errs[c];
        free(sts), free(errs);
        if (st) goto out;
    }
    if ((st = flce_final_contribution(res->X, T, n, C, tr->round_weights, tr->class_weights, res->CE, e))) goto out;
    {
        struct timespec t1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        res->seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    }
out:
    free(g), free(Qt), free(has_g), free(present), free(pres_all);
    if (st) flce_eval_result_free(res);
    return st;
}
