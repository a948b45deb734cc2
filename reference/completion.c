/* completion.c: class contribution momentum completion (eq:prototype_p_complemention).
 * Per class, the T x n matrix X_c with its selection mask is factorised X_c ~ U V
 * (U: T x r, V: r x n) minimising
 *     E = sum_{(t,k) observed} (X[t][k] - u_t . v_k)^2 + mu/2 (|U|_F^2 + |V|_F^2)
 * by alternating least squares: with V fixed each row u_t is the exact ridge solution of
 *     (sum_{k obs} v_k v_k^T + mu/2 I) u_t = sum_{k obs} X[t][k] v_k
 * (Cholesky, float64), then the same for each v_k. Plain gradient descent on E is the
 * option the paper describes. Missing entries become max(0, u_t . v_k); observed
 * entries stay as they are. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flce_eq.h"

void flce_completion_cfg_default(flce_completion_cfg *c) {
    c->rank = 0;
    c->mu = 1e-2;
    c->max_iter = 500;
    c->tol = 1e-10;
    c->gradient = 0;
    c->lr = 0.05;
    c->seed = 1;
}

int flce_completion_rank(int64_t obs, int T, int n) {
    int64_t r = obs / (2 * ((int64_t)T + n));
    if (r > 4) r = 4;
    if (r < 1) r = 1;
    return (int)r;
}

/* Solve A x = b for symmetric positive definite A [r x r] (overwritten) by Cholesky. */
static void spd_solve(double *A, double *b, int r) {
    for (int j = 0; j < r; j++) {
        double s = A[j * r + j];
        for (int k = 0; k < j; k++) s -= A[j * r + k] * A[j * r + k];
        A[j * r + j] = sqrt(s);
        for (int i = j + 1; i < r; i++) {
            double t = A[i * r + j];
            for (int k = 0; k < j; k++) t -= A[i * r + k] * A[j * r + k];
            A[i * r + j] = t / A[j * r + j];
        }
    }
    for (int i = 0; i < r; i++) { /* L y = b */
        double t = b[i];
        for (int k = 0; k < i; k++) t -= A[i * r + k] * b[k];
        b[i] = t / A[i * r + i];
    }
    for (int i = r - 1; i >= 0; i--) { /* L^T x = y */
        double t = b[i];
        for (int k = i + 1; k < r; k++) t -= A[k * r + i] * b[k];
        b[i] = t / A[i * r + i];
    }
}

static double dot_uv(const double *U, const double *V, int t, int k, int r, int n) {
    double s = 0;
    for (int j = 0; j < r; j++) s += U[t * r + j] * V[j * n + k];
    return s;
}

static double objective(const double *X, const uint8_t *obs, const double *U, const double *V, int T, int n, int r,
                        double mu) {
    double e = 0, reg = 0;
    for (int t = 0; t < T; t++)
        for (int k = 0; k < n; k++)
            if (obs[t * n + k]) {
                double d = X[t * n + k] - dot_uv(U, V, t, k, r, n);
                e += d * d;
            }
    for (int i = 0; i < T * r; i++) reg += U[i] * U[i];
    for (int i = 0; i < r * n; i++) reg += V[i] * V[i];
    return e + 0.5 * mu * reg;
}

/* One ALS half-step: rows of U from V (or, with transposed indexing, columns of V from U). */
static void als_rows(const double *X, const uint8_t *obs, double *U, const double *V, int T, int n, int r, double mu,
                     double *A, double *b) {
    for (int t = 0; t < T; t++) {
        memset(A, 0, (size_t)r * r * sizeof *A);
        memset(b, 0, (size_t)r * sizeof *b);
        for (int i = 0; i < r; i++) A[i * r + i] = 0.5 * mu;
        for (int k = 0; k < n; k++) {
            if (!obs[t * n + k]) continue;
            for (int i = 0; i < r; i++) {
                b[i] += X[t * n + k] * V[i * n + k];
                for (int j = 0; j < r; j++) A[i * r + j] += V[i * n + k] * V[j * n + k];
            }
        }
        spd_solve(A, b, r);
        for (int i = 0; i < r; i++) U[t * r + i] = b[i];
    }
}

static void als_cols(const double *X, const uint8_t *obs, const double *U, double *V, int T, int n, int r, double mu,
                     double *A, double *b) {
    for (int k = 0; k < n; k++) {
        memset(A, 0, (size_t)r * r * sizeof *A);
        memset(b, 0, (size_t)r * sizeof *b);
        for (int i = 0; i < r; i++) A[i * r + i] = 0.5 * mu;
        for (int t = 0; t < T; t++) {
            if (!obs[t * n + k]) continue;
            for (int i = 0; i < r; i++) {
                b[i] += X[t * n + k] * U[t * r + i];
                for (int j = 0; j < r; j++) A[i * r + j] += U[t * r + i] * U[t * r + j];
            }
        }
        spd_solve(A, b, r);
        for (int i = 0; i < r; i++) V[i * n + k] = b[i];
    }
}

static void gd_step(const double *X, const uint8_t *obs, double *U, double *V, int T, int n, int r, double mu,
                    double lr, double *gU, double *gV) {
    for (int i = 0; i < T * r; i++) gU[i] = mu * U[i];
    for (int i = 0; i < r * n; i++) gV[i] = mu * V[i];
    for (int t = 0; t < T; t++)
        for (int k = 0; k < n; k++) {
            if (!obs[t * n + k]) continue;
            double res = X[t * n + k] - dot_uv(U, V, t, k, r, n);
            for (int j = 0; j < r; j++) {
                gU[t * r + j] -= 2 * res * V[j * n + k];
                gV[j * n + k] -= 2 * res * U[t * r + j];
            }
        }
    for (int i = 0; i < T * r; i++) U[i] -= lr * gU[i];
    for (int i = 0; i < r * n; i++) V[i] -= lr * gV[i];
}

flce_status flce_complete(const double *X, const uint8_t *obs, int T, int n, const flce_completion_cfg *cfg,
                          uint32_t stream, double *Xhat, flce_completion_info *info, flce_err *e) {
    int64_t nobs = 0;
    double mean = 0;
    for (int i = 0; i < T * n; i++)
        if (obs[i]) {
            if (!isfinite(X[i])) return flce_fail(e, FLCE_ERR_NUMERIC, "completion: observed entry %d is not finite", i);
            nobs++;
            mean += X[i];
        }
    int r = cfg->rank > 0 ? cfg->rank : flce_completion_rank(nobs, T, n);
    if (r > T) r = T;
    if (r > n) r = n;
    if (r < 1) r = 1;
    info->rank = r;
    info->iters = 0;
    info->objective = 0;
    if (nobs == 0) { /* nothing observed: nothing to complete from; missing entries are 0 */
        for (int i = 0; i < T * n; i++) Xhat[i] = 0;
        return FLCE_OK;
    }
    mean /= (double)nobs;
    double *U = flce_calloc((size_t)T * r, sizeof *U), *V = flce_calloc((size_t)r * n, sizeof *V);
    double *A = flce_calloc((size_t)r * r, sizeof *A), *b = flce_calloc((size_t)r, sizeof *b);
    double *gU = flce_calloc((size_t)T * r, sizeof *gU), *gV = flce_calloc((size_t)r * n, sizeof *gV);
    if (!U || !V || !A || !b || !gU || !gV) {
        free(U), free(V), free(A), free(b), free(gU), free(gV);
        return flce_fail(e, FLCE_ERR_NOMEM, "completion: out of memory (T %d, n %d, rank %d)", T, n, r);
    }
    flce_rng rng;
    flce_rng_init(&rng, cfg->seed, FLCE_RNG_COMPLETION, stream, 0);
    double scale = sqrt((mean > 1e-3 ? mean : 1e-3) / r);
    for (int i = 0; i < T * r; i++) U[i] = scale * flce_rng_uniform(&rng);
    for (int i = 0; i < r * n; i++) V[i] = scale * flce_rng_uniform(&rng);
    double prev = objective(X, obs, U, V, T, n, r, cfg->mu), obj = prev;
    for (int it = 1; it <= cfg->max_iter; it++) {
        if (cfg->gradient) {
            gd_step(X, obs, U, V, T, n, r, cfg->mu, cfg->lr, gU, gV);
        } else {
            als_rows(X, obs, U, V, T, n, r, cfg->mu, A, b);
            als_cols(X, obs, U, V, T, n, r, cfg->mu, A, b);
        }
        obj = objective(X, obs, U, V, T, n, r, cfg->mu);
        info->iters = it;
        if (fabs(prev - obj) <= cfg->tol * (prev > 1e-300 ? prev : 1e-300)) break;
        prev = obj;
    }
    info->objective = obj;
    for (int t = 0; t < T; t++)
        for (int k = 0; k < n; k++) {
            double v = dot_uv(U, V, t, k, r, n);
            Xhat[t * n + k] = obs[t * n + k] ? X[t * n + k] : (v > 0 && isfinite(v) ? v : 0);
        }
    free(U), free(V), free(A), free(b), free(gU), free(gV);
    return FLCE_OK;
}
