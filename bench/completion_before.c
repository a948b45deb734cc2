/* completion_before.c: FLCE's completion exactly as it was before 2026-11-27 (commit 84a31a9,
 * reference/completion.c: dense sweeps over all T x n entries, one system at a time, one
 * thread), kept here for `flce-bench server` only: the baseline its completion rows are timed
 * against in the same run, and a check that today's code gives the same bits. Not used by any
 * program's results. The literal reading is left out. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "completion_before.h"

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

/* Eigen-decomposition of a symmetric r x r matrix A (destroyed) by cyclic Jacobi
 * rotations: A = W diag(lam) W^T. */
static void sym_eigen(double *A, int r, double *W, double *lam) {
    for (int i = 0; i < r * r; i++) W[i] = 0;
    for (int i = 0; i < r; i++) W[i * r + i] = 1;
    for (int sweep = 0; sweep < 60; sweep++) {
        double off = 0;
        for (int p = 0; p < r; p++)
            for (int q = p + 1; q < r; q++) off += A[p * r + q] * A[p * r + q];
        if (off < 1e-30) break;
        for (int p = 0; p < r; p++)
            for (int q = p + 1; q < r; q++) {
                double apq = A[p * r + q];
                if (fabs(apq) < 1e-300) continue;
                double theta = (A[q * r + q] - A[p * r + p]) / (2 * apq);
                double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
                double c = 1 / sqrt(t * t + 1), s = t * c;
                for (int k = 0; k < r; k++) { /* A <- J^T A J */
                    double akp = A[k * r + p], akq = A[k * r + q];
                    A[k * r + p] = c * akp - s * akq;
                    A[k * r + q] = s * akp + c * akq;
                }
                for (int k = 0; k < r; k++) {
                    double apk = A[p * r + k], aqk = A[q * r + k];
                    A[p * r + k] = c * apk - s * aqk;
                    A[q * r + k] = s * apk + c * aqk;
                }
                for (int k = 0; k < r; k++) {
                    double wkp = W[k * r + p], wkq = W[k * r + q];
                    W[k * r + p] = c * wkp - s * wkq;
                    W[k * r + q] = s * wkp + c * wkq;
                }
            }
    }
    for (int i = 0; i < r; i++) lam[i] = A[i * r + i];
}

/* Balance the factorisation: U <- U R, V <- R^-1 V with R chosen so that U^T U = V V^T
 * (diagonal). U V is unchanged and |U|^2 + |V|^2 falls to its minimum over all R (twice
 * the nuclear norm of U V), which removes the slow drift of plain ALS along the
 * factorisation's ambiguity. R = Gu^-1/2 Z L^1/4 where Gu = U^T U, Gv = V V^T and
 * Gu^1/2 Gv Gu^1/2 = Z L Z^T. Skipped when U or V is rank deficient. */
static void balance(double *U, double *V, int T, int n, int r, double *work) {
    double *Gu = work, *Gv = Gu + r * r, *W = Gv + r * r, *Z = W + r * r, *M = Z + r * r, *R = M + r * r,
           *Ri = R + r * r, *H = Ri + r * r, *Hi = H + r * r, *lam = Hi + r * r, *mu = lam + r, *row = mu + r;
    for (int i = 0; i < r; i++)
        for (int j = 0; j < r; j++) {
            double a = 0, b = 0;
            for (int t = 0; t < T; t++) a += U[t * r + i] * U[t * r + j];
            for (int k = 0; k < n; k++) b += V[i * n + k] * V[j * n + k];
            Gu[i * r + j] = a;
            Gv[i * r + j] = b;
        }
    sym_eigen(Gu, r, W, lam);
    double lmax = 0;
    for (int i = 0; i < r; i++) lmax = fmax(lmax, lam[i]);
    for (int i = 0; i < r; i++)
        if (!(lam[i] > 1e-12 * lmax) || !(lmax > 0)) return;
    for (int i = 0; i < r; i++) /* H = Gu^1/2, Hi = Gu^-1/2 */
        for (int j = 0; j < r; j++) {
            double h = 0, hi = 0;
            for (int k = 0; k < r; k++) {
                h += W[i * r + k] * sqrt(lam[k]) * W[j * r + k];
                hi += W[i * r + k] / sqrt(lam[k]) * W[j * r + k];
            }
            H[i * r + j] = h;
            Hi[i * r + j] = hi;
        }
    for (int i = 0; i < r; i++) /* M = H Gv H */
        for (int j = 0; j < r; j++) {
            double m = 0;
            for (int a = 0; a < r; a++)
                for (int b = 0; b < r; b++) m += H[i * r + a] * Gv[a * r + b] * H[b * r + j];
            M[i * r + j] = m;
        }
    sym_eigen(M, r, Z, mu);
    for (int i = 0; i < r; i++)
        if (!(mu[i] > 0)) return;
    for (int i = 0; i < r; i++) /* R = Hi Z L^1/4, Ri = L^-1/4 Z^T H */
        for (int j = 0; j < r; j++) {
            double a = 0, b = 0;
            for (int k = 0; k < r; k++) {
                a += Hi[i * r + k] * Z[k * r + j];
                b += Z[k * r + i] * H[k * r + j];
            }
            R[i * r + j] = a * sqrt(sqrt(mu[j]));
            Ri[i * r + j] = b / sqrt(sqrt(mu[i]));
        }
    for (int t = 0; t < T; t++) {
        for (int j = 0; j < r; j++) {
            double a = 0;
            for (int k = 0; k < r; k++) a += U[t * r + k] * R[k * r + j];
            row[j] = a;
        }
        for (int j = 0; j < r; j++) U[t * r + j] = row[j];
    }
    for (int k = 0; k < n; k++) {
        for (int i = 0; i < r; i++) {
            double a = 0;
            for (int j = 0; j < r; j++) a += Ri[i * r + j] * V[j * n + k];
            row[i] = a;
        }
        for (int i = 0; i < r; i++) V[i * n + k] = row[i];
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

/* Completion with a given rank (0: the default rule) and ridge weight. */
static flce_status complete_fixed(const double *X, const uint8_t *obs, int T, int n, const flce_completion_cfg *cfg,
                                  uint32_t stream, int rank, double mu_w, double *Xhat, flce_completion_info *info,
                                  flce_err *e) {
    int64_t nobs = 0;
    double mean = 0;
    for (int i = 0; i < T * n; i++)
        if (obs[i]) {
            if (!isfinite(X[i])) return flce_fail(e, FLCE_ERR_NUMERIC, "completion: observed entry %d is not finite", i);
            nobs++;
            mean += X[i];
        }
    int r = rank > 0 ? rank : flce_completion_rank(nobs, T, n);
    if (r > T) r = T;
    if (r > n) r = n;
    if (r < 1) r = 1;
    info->rank = r;
    info->iters = 0;
    info->objective = 0;
    info->mu = mu_w;
    if (nobs == 0) { /* nothing observed: nothing to complete from; missing entries are 0 */
        for (int i = 0; i < T * n; i++) Xhat[i] = 0;
        return FLCE_OK;
    }
    mean /= (double)nobs;
    double *U = flce_calloc((size_t)T * r, sizeof *U), *V = flce_calloc((size_t)r * n, sizeof *V);
    double *A = flce_calloc((size_t)r * r, sizeof *A), *b = flce_calloc((size_t)r, sizeof *b);
    double *gU = flce_calloc((size_t)T * r, sizeof *gU), *gV = flce_calloc((size_t)r * n, sizeof *gV);
    double *work = flce_calloc((size_t)10 * r * r + 3 * (size_t)r, sizeof *work);
    if (!U || !V || !A || !b || !gU || !gV || !work) {
        free(U), free(V), free(A), free(b), free(gU), free(gV), free(work);
        return flce_fail(e, FLCE_ERR_NOMEM, "completion: out of memory (T %d, n %d, rank %d)", T, n, r);
    }
    flce_rng rng;
    flce_rng_init(&rng, cfg->seed, FLCE_RNG_COMPLETION, stream, 0);
    double scale = sqrt((mean > 1e-3 ? mean : 1e-3) / r);
    for (int i = 0; i < T * r; i++) U[i] = scale * flce_rng_uniform(&rng);
    for (int i = 0; i < r * n; i++) V[i] = scale * flce_rng_uniform(&rng);
    double prev = objective(X, obs, U, V, T, n, r, mu_w), obj = prev;
    for (int it = 1; it <= cfg->max_iter; it++) {
        if (cfg->gradient) {
            gd_step(X, obs, U, V, T, n, r, mu_w, cfg->lr, gU, gV);
        } else {
            als_rows(X, obs, U, V, T, n, r, mu_w, A, b);
            als_cols(X, obs, U, V, T, n, r, mu_w, A, b);
            balance(U, V, T, n, r, work);
        }
        obj = objective(X, obs, U, V, T, n, r, mu_w);
        info->iters = it;
        if (fabs(prev - obj) <= (cfg->tol > 0 ? cfg->tol : 1e-10) * (prev > 1e-300 ? prev : 1e-300)) break;
        prev = obj;
    }
    info->objective = obj;
    for (int t = 0; t < T; t++)
        for (int k = 0; k < n; k++) {
            double v = dot_uv(U, V, t, k, r, n);
            Xhat[t * n + k] = obs[t * n + k] ? X[t * n + k] : (v > 0 && isfinite(v) ? v : 0);
        }
    free(U), free(V), free(A), free(b), free(gU), free(gV), free(work);
    return FLCE_OK;
}

static flce_status before_cv_error(const double *X, const uint8_t *obs, int T, int n, const flce_completion_cfg *cfg, uint32_t stream,
                          int rank, double mu, double *err, flce_err *e) {
    int K = cfg->folds > 1 ? cfg->folds : 5;
    size_t tn = (size_t)T * n;
    int *fold = malloc(sizeof *fold * tn);
    uint8_t *train = malloc(tn);
    double *Xh = malloc(sizeof *Xh * tn);
    if (!fold || !train || !Xh) {
        free(fold), free(train), free(Xh);
        return flce_fail(e, FLCE_ERR_NOMEM, "completion: out of memory for cross-validation");
    }
    flce_cv_folds(obs, T, n, K, cfg->seed, stream, fold);
    double se = 0;
    int64_t held = 0;
    flce_status st = FLCE_OK;
    for (int f = 0; f < K && !st; f++) {
        int any = 0;
        for (size_t i = 0; i < tn; i++) train[i] = obs[i] && fold[i] != f, any |= fold[i] == f;
        if (!any) continue;
        flce_completion_info info;
        if ((st = complete_fixed(X, train, T, n, cfg, stream, rank, mu, Xh, &info, e))) break;
        for (size_t i = 0; i < tn; i++)
            if (fold[i] == f) se += (Xh[i] - X[i]) * (Xh[i] - X[i]), held++;
    }
    free(fold), free(train), free(Xh);
    *err = held ? se / (double)held : NAN;
    return st;
}

flce_status flce_complete_before(const double *X, const uint8_t *obs, int T, int n, const flce_completion_cfg *cfg,
                          uint32_t stream, double *Xhat, flce_completion_info *info, flce_err *e) {
    for (int a = 0; a < FLCE_CV_NRANKS; a++)
        for (int b = 0; b < FLCE_CV_NMUS; b++) info->cv_grid[a][b] = NAN;
    info->cv_error = NAN;
    if (!cfg->rank_auto && !cfg->mu_auto) return complete_fixed(X, obs, T, n, cfg, stream, cfg->rank, cfg->mu, Xhat, info, e);
    /* the grid: every candidate's K-fold held-out error; the smallest rank, then the largest mu,
     * within 5% of the best (plus a floor of 1e-9 of the data's mean square, for exact fits) */
    int64_t nobs = 0;
    double ms = 0;
    for (int i = 0; i < T * n; i++)
        if (obs[i]) nobs++, ms += X[i] * X[i];
    ms = nobs ? ms / (double)nobs : 0;
    int fixed_r = cfg->rank > 0 ? cfg->rank : flce_completion_rank(nobs, T, n);
    double best = INFINITY;
    flce_status st = FLCE_OK;
    for (int a = 0; a < FLCE_CV_NRANKS && !st; a++) {
        int r = cfg->rank_auto ? FLCE_CV_RANKS[a] : fixed_r;
        if (!cfg->rank_auto && a > 0) break;
        if (r > T || r > n) continue;
        for (int b = 0; b < FLCE_CV_NMUS && !st; b++) {
            double mu = cfg->mu_auto ? FLCE_CV_MUS[b] : cfg->mu;
            if (!cfg->mu_auto && b > 0) break;
            double err = NAN;
            if ((st = before_cv_error(X, obs, T, n, cfg, stream, r, mu, &err, e))) break;
            info->cv_grid[a][b] = err;
            if (err < best) best = err;
        }
    }
    if (st) return st;
    int pick_r = cfg->rank_auto ? 0 : fixed_r;
    double pick_mu = cfg->mu, pick_err = NAN;
    if (isfinite(best)) {
        double lim = best * 1.05 + 1e-9 * ms;
        int found = 0;
        for (int a = 0; a < FLCE_CV_NRANKS && !found; a++)
            for (int b = FLCE_CV_NMUS - 1; b >= 0 && !found; b--)
                if (info->cv_grid[a][b] <= lim) {
                    found = 1;
                    pick_r = cfg->rank_auto ? FLCE_CV_RANKS[a] : fixed_r;
                    pick_mu = cfg->mu_auto ? FLCE_CV_MUS[b] : cfg->mu;
                    pick_err = info->cv_grid[a][b];
                }
    }
    double grid[FLCE_CV_NRANKS][FLCE_CV_NMUS];
    memcpy(grid, info->cv_grid, sizeof grid);
    st = complete_fixed(X, obs, T, n, cfg, stream, pick_r, pick_mu, Xhat, info, e);
    memcpy(info->cv_grid, grid, sizeof grid);
    info->cv_error = pick_err;
    return st;
}
