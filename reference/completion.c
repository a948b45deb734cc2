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
#include "parallel.h"

/* The fit's steps are inlined into fit_rank(), which fit() calls with the rank as a constant for
 * the grid's ranks: the compiler unrolls the r-long loops. The operations and their order are
 * the written ones either way (no reassociation: -fno-fast-math, -ffp-contract=off). */
#define STEP static inline __attribute__((always_inline))

void flce_completion_cfg_default(flce_completion_cfg *c) {
    memset(c, 0, sizeof *c); /* every field a default, those added later too (the round's rules: the text's) */
    c->rank = 0;
    c->mu = 1e-2;
    c->max_iter = 500;
    c->tol = 0; /* FLCE_COMPLETION_TOL */
    c->version = FLCE_COMPLETION_VERSION;
    c->threads = 0;
    c->gradient = 0;
    c->lr = 0.05;
    c->seed = 1;
    c->rank_auto = 1; /* the default since 2026-11-26, by the rule in docs/decisions.md */
    c->mu_auto = 1;
    c->folds = 5;
    c->literal = 0;
    c->missing_unobserved = 0;
    c->proto_all = 0;
    c->part = 0, c->parts = 1;
}

const int FLCE_CV_RANKS[FLCE_CV_NRANKS] = {1, 2, 4, 8};
const double FLCE_CV_MUS[FLCE_CV_NMUS] = {1e-3, 1e-2, 1e-1, 1};

int flce_completion_rank(int64_t obs, int T, int n) {
    int64_t r = obs / (2 * ((int64_t)T + n));
    if (r > 4) r = 4;
    if (r < 1) r = 1;
    return (int)r;
}

/* Solve A_q x = b_q for SOLVE_BLOCK symmetric positive definite systems A_q [r x r] (only the
 * lower triangle is read; overwritten) by Cholesky, x into b_q. The systems are interleaved
 * element by element, A_q[i][j] at A[(i r + j) SOLVE_BLOCK + q] and b_q[i] at b[i SOLVE_BLOCK +
 * q], so that the same operation on the four is one vector operation: each system sees exactly
 * the operations of solving it alone, in the same order (unused lanes hold the identity). */
#define SOLVE_BLOCK 4
#define SB SOLVE_BLOCK
STEP void spd_solve_many(double *restrict A, double *restrict b, int r) {
    for (int j = 0; j < r; j++) {
        double s[SB];
        for (int q = 0; q < SB; q++) s[q] = A[(j * r + j) * SB + q];
        for (int k = 0; k < j; k++)
            for (int q = 0; q < SB; q++) s[q] -= A[(j * r + k) * SB + q] * A[(j * r + k) * SB + q];
        for (int q = 0; q < SB; q++) A[(j * r + j) * SB + q] = sqrt(s[q]);
        for (int i = j + 1; i < r; i++) {
            double t[SB];
            for (int q = 0; q < SB; q++) t[q] = A[(i * r + j) * SB + q];
            for (int k = 0; k < j; k++)
                for (int q = 0; q < SB; q++) t[q] -= A[(i * r + k) * SB + q] * A[(j * r + k) * SB + q];
            for (int q = 0; q < SB; q++) A[(i * r + j) * SB + q] = t[q] / A[(j * r + j) * SB + q];
        }
    }
    for (int i = 0; i < r; i++) { /* L y = b */
        double t[SB];
        for (int q = 0; q < SB; q++) t[q] = b[i * SB + q];
        for (int k = 0; k < i; k++)
            for (int q = 0; q < SB; q++) t[q] -= A[(i * r + k) * SB + q] * b[k * SB + q];
        for (int q = 0; q < SB; q++) b[i * SB + q] = t[q] / A[(i * r + i) * SB + q];
    }
    for (int i = r - 1; i >= 0; i--) { /* L^T x = y */
        double t[SB];
        for (int q = 0; q < SB; q++) t[q] = b[i * SB + q];
        for (int k = i + 1; k < r; k++)
            for (int q = 0; q < SB; q++) t[q] -= A[(k * r + i) * SB + q] * b[k * SB + q];
        for (int q = 0; q < SB; q++) b[i * SB + q] = t[q] / A[(i * r + i) * SB + q];
    }
}

/* The SOLVE_BLOCK ridge systems (sum of g g^T over the listed vectors + mu/2 I) x = sum of
 * val g, lane q from its list: rows idx[ptr[q] .. ptr[q + 1]), vector g = G[idx gs + i ge],
 * added in the list's order; lanes from m on the identity with b = 0. */
STEP void build_systems(double *restrict A, double *restrict b, int r, double mu, int m, const int *ptr,
                        const int *idx, const double *val, const double *G, int gs, int ge) {
    memset(A, 0, sizeof(double) * (size_t)r * r * SB);
    memset(b, 0, sizeof(double) * (size_t)r * SB);
    for (int q = 0; q < SB; q++)
        for (int i = 0; i < r; i++) A[(i * r + i) * SB + q] = q < m ? 0.5 * mu : 1.0;
    for (int q = 0; q < m; q++)
        for (int p = ptr[q]; p < ptr[q + 1]; p++) {
            double g[r];
            for (int i = 0; i < r; i++) g[i] = G[(size_t)idx[p] * gs + (size_t)i * ge]; /* gathered */
            for (int i = 0; i < r; i++) { /* the lower triangle: all the solve reads */
                b[i * SB + q] += val[p] * g[i];
                for (int j = 0; j <= i; j++) A[(i * r + j) * SB + q] += g[i] * g[j];
            }
        }
}

STEP double dot_uv(const double *U, const double *V, int t, int k, int r, int n) {
    double s = 0;
    for (int j = 0; j < r; j++) s += U[t * r + j] * V[j * n + k];
    return s;
}

/* The observed entries by row (each row's columns ascending) and by column (each column's rows
 * ascending): the sweeps below visit only these, in the order a dense loop over all T x n entries
 * that skips the unobserved ones would, so the sums (and bits) are those of that loop. */
typedef struct {
    int T, n;
    int64_t nobs;
    int *rp, *rk; /* row t: columns rk[rp[t] .. rp[t + 1]) */
    int *cp, *ct; /* column k: rows ct[cp[k] .. cp[k + 1]) */
    double *rx, *cx; /* the values in those orders */
} obs_index;

static void obs_free(obs_index *s) {
    free(s->rp), free(s->rk), free(s->cp), free(s->ct), free(s->rx), free(s->cx);
    memset(s, 0, sizeof *s);
}

static int obs_build(obs_index *s, const double *X, const uint8_t *obs, int T, int n) {
    memset(s, 0, sizeof *s);
    s->T = T, s->n = n;
    for (size_t i = 0; i < (size_t)T * n; i++) s->nobs += obs[i] != 0;
    size_t m = s->nobs ? (size_t)s->nobs : 1;
    s->rp = malloc(sizeof(int) * ((size_t)T + 1)), s->cp = flce_calloc((size_t)n + 1, sizeof(int));
    s->rk = malloc(sizeof(int) * m), s->ct = malloc(sizeof(int) * m);
    s->rx = malloc(sizeof(double) * m), s->cx = malloc(sizeof(double) * m);
    if (!s->rp || !s->cp || !s->rk || !s->ct || !s->rx || !s->cx) {
        obs_free(s);
        return -1;
    }
    int j = 0;
    for (int t = 0; t < T; t++) {
        s->rp[t] = j;
        for (int k = 0; k < n; k++)
            if (obs[(size_t)t * n + k]) s->rk[j] = k, s->rx[j] = X[(size_t)t * n + k], j++, s->cp[k + 1]++;
    }
    s->rp[T] = j;
    for (int k = 0; k < n; k++) s->cp[k + 1] += s->cp[k];
    int *fill = flce_calloc((size_t)n, sizeof(int));
    if (!fill) {
        obs_free(s);
        return -1;
    }
    for (int t = 0; t < T; t++) /* rows ascending: each column's list comes out ascending */
        for (int q = s->rp[t]; q < s->rp[t + 1]; q++) {
            int k = s->rk[q], at = s->cp[k] + fill[k]++;
            s->ct[at] = t, s->cx[at] = s->rx[q];
        }
    free(fill);
    return 0;
}

STEP double objective(const obs_index *s, const double *U, const double *V, int r, double mu) {
    double e = 0, reg = 0;
    for (int t = 0; t < s->T; t++)
        for (int q = s->rp[t]; q < s->rp[t + 1]; q++) {
            double d = s->rx[q] - dot_uv(U, V, t, s->rk[q], r, s->n);
            e += d * d;
        }
    for (int i = 0; i < s->T * r; i++) reg += U[i] * U[i];
    for (int i = 0; i < r * s->n; i++) reg += V[i] * V[i];
    return e + 0.5 * mu * reg;
}

/* One ALS half-step: each row u_t from V, the exact ridge solution of
 *     (sum_{k obs} v_k v_k^T + mu/2 I) u_t = sum_{k obs} X[t][k] v_k,
 * SOLVE_BLOCK rows solved together. A, b: room for SOLVE_BLOCK systems. */
STEP void als_rows(const obs_index *s, double *U, const double *V, int r, double mu, double *A, double *b) {
    for (int t0 = 0; t0 < s->T; t0 += SB) {
        int m = s->T - t0 < SB ? s->T - t0 : SB;
        build_systems(A, b, r, mu, m, s->rp + t0, s->rk, s->rx, V, 1, s->n); /* v_k: column k of V */
        spd_solve_many(A, b, r);
        for (int q = 0; q < m; q++)
            for (int i = 0; i < r; i++) U[(t0 + q) * r + i] = b[i * SB + q];
    }
}

/* The other half: each column v_k from U, likewise. */
STEP void als_cols(const obs_index *s, const double *U, double *V, int r, double mu, double *A, double *b) {
    int n = s->n;
    for (int k0 = 0; k0 < n; k0 += SB) {
        int m = n - k0 < SB ? n - k0 : SB;
        build_systems(A, b, r, mu, m, s->cp + k0, s->ct, s->cx, U, r, 1); /* u_t: row t of U */
        spd_solve_many(A, b, r);
        for (int q = 0; q < m; q++)
            for (int i = 0; i < r; i++) V[i * n + k0 + q] = b[i * SB + q];
    }
}

/* Eigen-decomposition of a symmetric r x r matrix A (destroyed) by cyclic Jacobi
 * rotations: A = W diag(lam) W^T. */
STEP void sym_eigen(double *A, int r, double *W, double *lam) {
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
STEP void balance(double *U, double *V, int T, int n, int r, double *work) {
    double *Gu = work, *Gv = Gu + r * r, *W = Gv + r * r, *Z = W + r * r, *M = Z + r * r, *R = M + r * r,
           *Ri = R + r * r, *H = Ri + r * r, *Hi = H + r * r, *lam = Hi + r * r, *mu = lam + r, *row = mu + r,
           *sq = row + r, *P = sq + r; /* sq, P: values used r times, computed once */
    for (int i = 0; i < r; i++)
        for (int j = i; j < r; j++) { /* symmetric: each product the same either way round */
            double a = 0, b = 0;
            for (int t = 0; t < T; t++) a += U[t * r + i] * U[t * r + j];
            for (int k = 0; k < n; k++) b += V[i * n + k] * V[j * n + k];
            Gu[i * r + j] = Gu[j * r + i] = a;
            Gv[i * r + j] = Gv[j * r + i] = b;
        }
    sym_eigen(Gu, r, W, lam);
    double lmax = 0;
    for (int i = 0; i < r; i++) lmax = fmax(lmax, lam[i]);
    for (int i = 0; i < r; i++)
        if (!(lam[i] > 1e-12 * lmax) || !(lmax > 0)) return;
    for (int k = 0; k < r; k++) sq[k] = sqrt(lam[k]);
    double *E = Z, *D = M; /* W_ik sqrt(lam_k) and W_ik / sqrt(lam_k), once each (Z, M: free until below) */
    for (int i = 0; i < r; i++)
        for (int k = 0; k < r; k++) E[i * r + k] = W[i * r + k] * sq[k], D[i * r + k] = W[i * r + k] / sq[k];
    for (int i = 0; i < r; i++) /* H = Gu^1/2, Hi = Gu^-1/2 */
        for (int j = 0; j < r; j++) {
            double h = 0, hi = 0;
            for (int k = 0; k < r; k++) {
                h += E[i * r + k] * W[j * r + k];
                hi += D[i * r + k] * W[j * r + k];
            }
            H[i * r + j] = h;
            Hi[i * r + j] = hi;
        }
    for (int i = 0; i < r; i++) { /* M = H Gv H: m_ij = sum over a, b of (H_ia Gv_ab) H_bj */
        for (int a = 0; a < r; a++)
            for (int b = 0; b < r; b++) P[a * r + b] = H[i * r + a] * Gv[a * r + b];
        for (int j = 0; j < r; j++) {
            double m = 0;
            for (int a = 0; a < r; a++)
                for (int b = 0; b < r; b++) m += P[a * r + b] * H[b * r + j];
            M[i * r + j] = m;
        }
    }
    sym_eigen(M, r, Z, mu);
    for (int i = 0; i < r; i++)
        if (!(mu[i] > 0)) return;
    for (int k = 0; k < r; k++) sq[k] = sqrt(sqrt(mu[k]));
    for (int i = 0; i < r; i++) /* R = Hi Z L^1/4, Ri = L^-1/4 Z^T H */
        for (int j = 0; j < r; j++) {
            double a = 0, b = 0;
            for (int k = 0; k < r; k++) {
                a += Hi[i * r + k] * Z[k * r + j];
                b += Z[k * r + i] * H[k * r + j];
            }
            R[i * r + j] = a * sq[j];
            Ri[i * r + j] = b / sq[i];
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

static void gd_step(const obs_index *s, double *U, double *V, int r, double mu, double lr, double *gU, double *gV) {
    int T = s->T, n = s->n;
    for (int i = 0; i < T * r; i++) gU[i] = mu * U[i];
    for (int i = 0; i < r * n; i++) gV[i] = mu * V[i];
    for (int t = 0; t < T; t++)
        for (int q = s->rp[t]; q < s->rp[t + 1]; q++) {
            int k = s->rk[q];
            double res = s->rx[q] - dot_uv(U, V, t, k, r, n);
            for (int j = 0; j < r; j++) {
                gU[t * r + j] -= 2 * res * V[j * n + k];
                gV[j * n + k] -= 2 * res * U[t * r + j];
            }
        }
    for (int i = 0; i < T * r; i++) U[i] -= lr * gU[i];
    for (int i = 0; i < r * n; i++) V[i] -= lr * gV[i];
}

/* The stopping tolerance: cfg->tol where set (> 0), else the default 1e-10. */
static double version_tol(const flce_completion_cfg *cfg) { return cfg->tol > 0 ? cfg->tol : FLCE_COMPLETION_TOL; }

/* The work space of one fit of rank up to r (U, V, and the solver's scratch). */
typedef struct {
    double *U, *V, *A, *b, *gU, *gV, *work;
} fit_space;

static void space_free(fit_space *w) {
    free(w->U), free(w->V), free(w->A), free(w->b), free(w->gU), free(w->gV), free(w->work);
    memset(w, 0, sizeof *w);
}

static int space_alloc(fit_space *w, int T, int n, int r) {
    memset(w, 0, sizeof *w);
    w->U = flce_calloc((size_t)T * r, sizeof(double)), w->V = flce_calloc((size_t)r * n, sizeof(double));
    w->A = flce_calloc((size_t)SOLVE_BLOCK * r * r, sizeof(double)), w->b = flce_calloc((size_t)SOLVE_BLOCK * r, sizeof(double));
    w->gU = flce_calloc((size_t)T * r, sizeof(double)), w->gV = flce_calloc((size_t)r * n, sizeof(double));
    w->work = flce_calloc((size_t)11 * r * r + 4 * (size_t)r, sizeof(double));
    if (w->U && w->V && w->A && w->b && w->gU && w->gV && w->work) return 0;
    space_free(w);
    return -1;
}

/* The seeded start: U, V uniform in [0, sqrt(max(mean observed, 1e-3) / r)) from the stream
 * (seed, completion, stream, sub). */
static void seeded_start(double *U, double *V, int T, int n, int r, double mean, uint64_t seed, uint32_t stream,
                         uint32_t sub) {
    flce_rng rng;
    flce_rng_init(&rng, seed, FLCE_RNG_COMPLETION, stream, sub);
    double scale = sqrt((mean > 1e-3 ? mean : 1e-3) / r);
    for (int i = 0; i < T * r; i++) U[i] = scale * flce_rng_uniform(&rng);
    for (int i = 0; i < r * n; i++) V[i] = scale * flce_rng_uniform(&rng);
}

static double obs_mean(const obs_index *s) {
    double m = 0;
    for (int64_t q = 0; q < s->nobs; q++) m += s->rx[q];
    return s->nobs ? m / (double)s->nobs : 0;
}

/* Sweeps from the U, V in w until the objective's relative change is at most tol, or max_iter
 * sweeps: balanced ALS (or gradient descent). Returns the sweeps made; *obj the objective. */
STEP int fit_rank(const obs_index *s, fit_space *w, int r, double mu, const flce_completion_cfg *cfg, double tol,
                  double *obj) {
    double prev = objective(s, w->U, w->V, r, mu), cur = prev;
    int iters = 0;
    for (int it = 1; it <= cfg->max_iter; it++) {
        if (cfg->gradient) {
            gd_step(s, w->U, w->V, r, mu, cfg->lr, w->gU, w->gV);
        } else {
            als_rows(s, w->U, w->V, r, mu, w->A, w->b);
            als_cols(s, w->U, w->V, r, mu, w->A, w->b);
            balance(w->U, w->V, s->T, s->n, r, w->work);
        }
        cur = objective(s, w->U, w->V, r, mu);
        iters = it;
        if (fabs(prev - cur) <= tol * (prev > 1e-300 ? prev : 1e-300)) break;
        prev = cur;
    }
    *obj = cur;
    return iters;
}
static int fit(const obs_index *s, fit_space *w, int r, double mu, const flce_completion_cfg *cfg, double tol, double *obj) {
    switch (r) {
    case 1: return fit_rank(s, w, 1, mu, cfg, tol, obj);
    case 2: return fit_rank(s, w, 2, mu, cfg, tol, obj);
    case 4: return fit_rank(s, w, 4, mu, cfg, tol, obj);
    case 8: return fit_rank(s, w, 8, mu, cfg, tol, obj);
    default: return fit_rank(s, w, r, mu, cfg, tol, obj);
    }
}

/* What a fit predicts for entry (t, k): max(0, u_t . v_k), 0 where not finite. */
static double predict(const double *U, const double *V, int t, int k, int r, int n) {
    double v = dot_uv(U, V, t, k, r, n);
    return v > 0 && isfinite(v) ? v : 0;
}

static int clamp_rank(int r, int T, int n) {
    if (r > T) r = T;
    if (r > n) r = n;
    return r < 1 ? 1 : r;
}

/* Completion with a given rank (0: the default rule) and ridge weight, from the seeded start. */
static flce_status complete_fixed(const double *X, const uint8_t *obs, int T, int n, const flce_completion_cfg *cfg,
                                  uint32_t stream, int rank, double mu_w, double *Xhat, flce_completion_info *info,
                                  flce_err *e) {
    for (int i = 0; i < T * n; i++)
        if (obs[i] && !isfinite(X[i])) return flce_fail(e, FLCE_ERR_NUMERIC, "completion: observed entry %d is not finite", i);
    obs_index s;
    if (obs_build(&s, X, obs, T, n)) return flce_fail(e, FLCE_ERR_NOMEM, "completion: out of memory (T %d, n %d)", T, n);
    int r = clamp_rank(rank > 0 ? rank : flce_completion_rank(s.nobs, T, n), T, n);
    info->rank = r;
    info->iters = 0;
    info->objective = 0;
    info->mu = mu_w;
    if (s.nobs == 0) { /* nothing observed: nothing to complete from; missing entries are 0 */
        for (int i = 0; i < T * n; i++) Xhat[i] = 0;
        obs_free(&s);
        return FLCE_OK;
    }
    fit_space w;
    if (space_alloc(&w, T, n, r)) {
        obs_free(&s);
        return flce_fail(e, FLCE_ERR_NOMEM, "completion: out of memory (T %d, n %d, rank %d)", T, n, r);
    }
    seeded_start(w.U, w.V, T, n, r, obs_mean(&s), cfg->seed, stream, 0);
    info->iters = fit(&s, &w, r, mu_w, cfg, version_tol(cfg), &info->objective);
    for (int t = 0; t < T; t++)
        for (int k = 0; k < n; k++)
            Xhat[t * n + k] = obs[t * n + k] ? X[t * n + k] : predict(w.U, w.V, t, k, r, n);
    space_free(&w);
    obs_free(&s);
    return FLCE_OK;
}

void flce_cv_folds(const uint8_t *obs, int T, int n, int K, uint64_t seed, uint32_t stream, int *fold) {
    int m = 0;
    for (int i = 0; i < T * n; i++) fold[i] = -1, m += obs[i] != 0;
    if (m == 0 || K < 1) return;
    int *idx = malloc(sizeof *idx * (size_t)m), *perm = malloc(sizeof *perm * (size_t)m);
    if (!idx || !perm) {
        free(idx), free(perm);
        for (int i = 0, j = 0; i < T * n; i++) /* no memory for a permutation: folds in order */
            if (obs[i]) fold[i] = j++ % K;
        return;
    }
    for (int i = 0, j = 0; i < T * n; i++)
        if (obs[i]) idx[j++] = i;
    flce_rng r;
    flce_rng_init(&r, seed, FLCE_RNG_COMPLETION, stream, 1);
    flce_rng_permutation(&r, m, perm);
    for (int j = 0; j < m; j++) fold[idx[perm[j]]] = j % K;
    free(idx), free(perm);
}

static int cv_k(const flce_completion_cfg *cfg) { return cfg->folds > 1 ? cfg->folds : 5; }

flce_status flce_cv_error(const double *X, const uint8_t *obs, int T, int n, const flce_completion_cfg *cfg, uint32_t stream,
                          int rank, double mu, double *err, flce_err *e) {
    int K = cv_k(cfg);
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

/* ---- the cross-validation grid, its folds spread over threads ---------------------------- */
/* The candidates: ranks[a] (0: none) and mus[b] (0: none), in the grid's indices. */
typedef struct {
    int ranks[FLCE_CV_NRANKS];
    double mus[FLCE_CV_NMUS];
} cv_grid_spec;

typedef struct {
    const double *X;
    const uint8_t *obs;
    const int *fold;
    int T, n;
    const flce_completion_cfg *cfg;
    uint32_t stream;
    const cv_grid_spec *g;
    double **d2;      /* [K]: fold f's squared held-out errors, [cell][its held-out entries in order] */
    int64_t *held;    /* [K] */
    flce_status *st;  /* [K] */
    flce_err *err;    /* [K] */
} cv_job;

/* Fold f: every candidate completed from the other folds' entries, each fit from the seeded
 * start (exactly the fits flce_cv_error makes), and the squared error of each held-out entry
 * kept in entry order, so that the caller sums them in flce_cv_error's order. */
static void cv_fold(void *ctx, int f) {
    cv_job *J = ctx;
    int T = J->T, n = J->n;
    size_t tn = (size_t)T * n;
    flce_err *e = &J->err[f];
    J->st[f] = FLCE_OK;
    int64_t h = 0;
    for (size_t i = 0; i < tn; i++) h += J->fold[i] == f;
    J->held[f] = h;
    uint8_t *train = malloc(tn);
    J->d2[f] = malloc(sizeof(double) * (size_t)FLCE_CV_NRANKS * FLCE_CV_NMUS * (size_t)(h ? h : 1));
    if (!train || !J->d2[f]) {
        free(train);
        J->st[f] = flce_fail(e, FLCE_ERR_NOMEM, "completion: out of memory for cross-validation");
        return;
    }
    for (size_t i = 0; i < tn; i++) train[i] = J->obs[i] && J->fold[i] != f;
    obs_index s;
    if (!h || obs_build(&s, J->X, train, T, n)) {
        if (h) J->st[f] = flce_fail(e, FLCE_ERR_NOMEM, "completion: out of memory for cross-validation");
        free(train);
        return;
    }
    int rmax = 1;
    for (int a = 0; a < FLCE_CV_NRANKS; a++) rmax = J->g->ranks[a] > rmax ? J->g->ranks[a] : rmax;
    fit_space w;
    if (space_alloc(&w, T, n, clamp_rank(rmax, T, n))) {
        J->st[f] = flce_fail(e, FLCE_ERR_NOMEM, "completion: out of memory for cross-validation");
        free(train), obs_free(&s);
        return;
    }
    double mean = obs_mean(&s), tol = version_tol(J->cfg), obj;
    for (int a = 0; a < FLCE_CV_NRANKS; a++)
        for (int b = 0; b < FLCE_CV_NMUS; b++) {
            if (J->g->ranks[a] < 1 || !(J->g->mus[b] > 0)) continue;
            double *d2 = J->d2[f] + ((size_t)a * FLCE_CV_NMUS + b) * (size_t)h;
            int r = clamp_rank(J->g->ranks[a], T, n);
            if (s.nobs) {
                seeded_start(w.U, w.V, T, n, r, mean, J->cfg->seed, J->stream, 0);
                fit(&s, &w, r, J->g->mus[b], J->cfg, tol, &obj);
            }
            int64_t q = 0;
            for (int t = 0; t < T; t++)
                for (int k = 0; k < n; k++) {
                    size_t i = (size_t)t * n + k;
                    if (J->fold[i] != f) continue;
                    double d = (s.nobs ? predict(w.U, w.V, t, k, r, n) : 0) - J->X[i]; /* nothing to train on: 0 */
                    d2[q++] = d * d;
                }
        }
    space_free(&w);
    free(train), obs_free(&s);
}

flce_status flce_complete_literal(const double *X, int T, int n, const flce_completion_cfg *cfg, uint32_t stream, double *Xhat,
                                  flce_completion_info *info, flce_err *e) {
    size_t tn = (size_t)T * n;
    double mean = 0;
    for (size_t i = 0; i < tn; i++) {
        if (!isfinite(X[i])) return flce_fail(e, FLCE_ERR_NUMERIC, "completion: entry %zu is not finite", i);
        mean += X[i];
    }
    mean /= (double)tn;
    int r = cfg->rank > 0 ? cfg->rank : flce_completion_rank((int64_t)tn, T, n);
    if (r > T) r = T;
    if (r > n) r = n;
    memset(info, 0, sizeof *info);
    info->rank = r, info->mu = 0, info->cv_error = NAN;
    uint8_t *all = malloc(tn);
    obs_index s = {0};
    fit_space w = {0};
    if (!all || (memset(all, 1, tn), obs_build(&s, X, all, T, n)) || space_alloc(&w, T, n, r)) {
        free(all), obs_free(&s), space_free(&w);
        return flce_fail(e, FLCE_ERR_NOMEM, "completion: out of memory (T %d, n %d, rank %d)", T, n, r);
    }
    flce_rng rng;
    flce_rng_init(&rng, cfg->seed, FLCE_RNG_COMPLETION, stream, 0);
    double scale = 0.1 * sqrt((mean > 1e-3 ? mean : 1e-3) / r); /* a small start */
    for (int i = 0; i < T * r; i++) w.U[i] = scale * flce_rng_uniform(&rng);
    for (int i = 0; i < r * n; i++) w.V[i] = scale * flce_rng_uniform(&rng);
    for (int it = 1; it <= cfg->max_iter; it++) gd_step(&s, w.U, w.V, r, 0.0, cfg->lr, w.gU, w.gV);
    info->iters = cfg->max_iter;
    info->objective = objective(&s, w.U, w.V, r, 0.0);
    int bad = !isfinite(info->objective);
    for (int t = 0; t < T; t++)
        for (int k = 0; k < n; k++) Xhat[t * n + k] = predict(w.U, w.V, t, k, r, n);
    free(all), obs_free(&s), space_free(&w);
    if (bad) return flce_fail(e, FLCE_ERR_NUMERIC, "completion --completion literal: gradient descent diverged (lr %g): use a smaller --lr",
                              cfg->lr);
    return FLCE_OK;
}

/* The grid of held-out errors (flce_cv_error for every candidate, bit for bit), the folds
 * spread over cfg->threads. */
static flce_status cv_grid(const double *X, const uint8_t *obs, int T, int n, const flce_completion_cfg *cfg, uint32_t stream,
                           const cv_grid_spec *g, double grid[FLCE_CV_NRANKS][FLCE_CV_NMUS], flce_err *e) {
    int K = cv_k(cfg);
    size_t tn = (size_t)T * n;
    int *fold = malloc(sizeof *fold * tn);
    double **d2 = flce_calloc((size_t)K, sizeof *d2);
    int64_t *held = malloc(sizeof *held * (size_t)K);
    flce_status *sts = malloc(sizeof *sts * (size_t)K);
    flce_err *errs = malloc(sizeof *errs * (size_t)K);
    if (!fold || !d2 || !held || !sts || !errs) {
        free(fold), free(d2), free(held), free(sts), free(errs);
        return flce_fail(e, FLCE_ERR_NOMEM, "completion: out of memory for cross-validation");
    }
    flce_cv_folds(obs, T, n, K, cfg->seed, stream, fold);
    cv_job J = {X, obs, fold, T, n, cfg, stream, g, d2, held, sts, errs};
    flce_parallel_for(K, cfg->threads, cv_fold, &J);
    flce_status st = FLCE_OK;
    int64_t nheld = 0;
    for (int f = 0; f < K && !st; f++) /* the first failing fold's error: the same for any threads */
        if ((st = sts[f]) && e) *e = errs[f];
    for (int f = 0; f < K; f++) nheld += held[f];
    for (int a = 0; a < FLCE_CV_NRANKS && !st; a++)
        for (int b = 0; b < FLCE_CV_NMUS; b++) {
            if (g->ranks[a] < 1 || !(g->mus[b] > 0)) continue;
            double se = 0; /* one running sum, folds in order, entries in order: flce_cv_error's */
            for (int f = 0; f < K; f++)
                for (int64_t q = 0; q < held[f]; q++) se += d2[f][((size_t)a * FLCE_CV_NMUS + b) * (size_t)held[f] + (size_t)q];
            grid[a][b] = nheld ? se / (double)nheld : NAN;
        }
    for (int f = 0; f < K; f++) free(d2[f]);
    free(fold), free(d2), free(held), free(sts), free(errs);
    return st;
}

flce_status flce_complete(const double *X, const uint8_t *obs, int T, int n, const flce_completion_cfg *cfg,
                          uint32_t stream, double *Xhat, flce_completion_info *info, flce_err *e) {
    for (int a = 0; a < FLCE_CV_NRANKS; a++)
        for (int b = 0; b < FLCE_CV_NMUS; b++) info->cv_grid[a][b] = NAN;
    info->cv_error = NAN;
    if (cfg->version != FLCE_COMPLETION_VERSION)
        return flce_fail(e, FLCE_ERR_ARG, "completion version %d: this build knows version %d only", cfg->version,
                         FLCE_COMPLETION_VERSION);
    if (cfg->literal) {
        double *Xz = malloc(sizeof *Xz * (size_t)T * n);
        if (!Xz) return flce_fail(e, FLCE_ERR_NOMEM, "completion: out of memory");
        for (int i = 0; i < T * n; i++) Xz[i] = obs[i] ? X[i] : 0; /* the unselected entries: the zeros the paper says they hold */
        flce_status st = flce_complete_literal(Xz, T, n, cfg, stream, Xhat, info, e);
        free(Xz);
        return st;
    }
    if (!cfg->rank_auto && !cfg->mu_auto) return complete_fixed(X, obs, T, n, cfg, stream, cfg->rank, cfg->mu, Xhat, info, e);
    /* the grid: every candidate's K-fold held-out error; the smallest rank, then the largest mu,
     * within 5% of the best (plus a floor of 1e-9 of the data's mean square, for exact fits) */
    int64_t nobs = 0;
    double ms = 0;
    for (int i = 0; i < T * n; i++)
        if (obs[i]) {
            if (!isfinite(X[i])) return flce_fail(e, FLCE_ERR_NUMERIC, "completion: observed entry %d is not finite", i);
            nobs++, ms += X[i] * X[i];
        }
    ms = nobs ? ms / (double)nobs : 0;
    int fixed_r = cfg->rank > 0 ? cfg->rank : flce_completion_rank(nobs, T, n);
    cv_grid_spec g;
    for (int a = 0; a < FLCE_CV_NRANKS; a++) {
        int r = cfg->rank_auto ? FLCE_CV_RANKS[a] : a == 0 ? fixed_r : 0;
        g.ranks[a] = r > T || r > n ? 0 : r;
    }
    for (int b = 0; b < FLCE_CV_NMUS; b++) g.mus[b] = cfg->mu_auto ? FLCE_CV_MUS[b] : b == 0 ? cfg->mu : 0;
    flce_status st = cv_grid(X, obs, T, n, cfg, stream, &g, info->cv_grid, e);
    if (st) return st;
    double best = INFINITY;
    for (int a = 0; a < FLCE_CV_NRANKS; a++)
        for (int b = 0; b < FLCE_CV_NMUS; b++)
            if (info->cv_grid[a][b] < best) best = info->cv_grid[a][b];
    int pick_r = cfg->rank_auto ? 0 : fixed_r;
    double pick_mu = cfg->mu, pick_err = NAN;
    if (isfinite(best)) {
        double lim = best * 1.05 + 1e-9 * ms;
        int found = 0;
        for (int a = 0; a < FLCE_CV_NRANKS && !found; a++)
            for (int b = FLCE_CV_NMUS - 1; b >= 0 && !found; b--)
                if (info->cv_grid[a][b] <= lim) {
                    found = 1;
                    pick_r = g.ranks[a];
                    pick_mu = g.mus[b];
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
