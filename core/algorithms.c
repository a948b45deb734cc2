/* algorithms.c: the methods, one small unit each, behind algo_vt (engine_impl.h): what the
 * server does with the uploads and what it reports as contributions (their local
 * objectives are in the engine's client_update, selected by `local`). The rules are those
 * of docs/baselines.md:
 *   FLCE      eq:method.prototype_m_norm .. aggregation_model via reference/flce_eq.c
 *   FedAvg    w = sum p_k w_k; cosine rule              FedProx  the same, + prox term locally
 *   Ditto     FedAvg on the global copies; cosine rule  MOON     FedAvg; cosine rule
 *   FedSV     FedAvg; exact / Monte-Carlo Shapley      GTG      FedAvg; GTG-Shapley
 *   FedFV     gradient projection; cosine rule on the projected g_i
 *   CGSV      reputation-weighted normalised gradients; final reputations
 *   q-FedAvg  q-weighted update; F_k^q / sum h summed
 *   FedFa     accuracy- and frequency-weighted average with server momentum; pi summed */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_impl.h"

void flce_eng_data_size_weights(engine *E, double *w) {
    double s = 0;
    for (int i = 0; i < E->K; i++) s += E->sizes[E->sel[i]];
    for (int i = 0; i < E->K; i++) w[i] = E->sizes[E->sel[i]] / s;
}

void flce_eng_aggregate(engine *E, const double *w, int K, const int *slots, float *out) {
    float a[32];
    const float *xs[32];
    for (int i = 0; i < K; i++) {
        a[i] = (float)w[i];
        xs[i] = E->states + (size_t)slots[i] * E->S;
    }
    /* y = sum_k a_k x_k, k ascending (reference/ops.h) */
    for (size_t j = 0; j < E->S; j++) {
        float acc = 0.0f;
        for (int k = 0; k < K; k++) acc = acc + a[k] * xs[k][j];
        out[j] = acc;
    }
}

void flce_eng_cosine_rule(engine *E, const float *newg, const float *dirs, double *rc) {
    double nu = 0;
    for (size_t j = 0; j < E->S; j++) nu += ((double)newg[j] - E->global[j]) * ((double)newg[j] - E->global[j]);
    uint8_t pr[32];
    for (int i = 0; i < E->K; i++) {
        const float *s = dirs ? dirs + (size_t)i * E->S : E->states + (size_t)i * E->S;
        double dot = 0, nk = 0;
        for (size_t j = 0; j < E->S; j++) {
            double a = dirs ? (double)s[j] : (double)s[j] - E->global[j], b = (double)newg[j] - E->global[j];
            dot += a * b;
            nk += a * a;
        }
        rc[i] = nu > 0 && nk > 0 ? fmax(0, dot / (sqrt(nu) * sqrt(nk))) : 0;
        pr[i] = 1;
    }
    flce_normalize(rc, pr, E->K);
}

static void fedavg_step(engine *E) {
    flce_eng_data_size_weights(E, E->omega);
    int slots[32];
    for (int i = 0; i < E->K; i++) slots[i] = i;
    flce_eng_aggregate(E, E->omega, E->K, slots, E->newg);
}

/* FedAvg, FedProx, Ditto, MOON: data-size-weighted averaging, cosine-rule contributions */
static flce_status server_fedavg(engine *E, flce_err *e) {
    (void)e;
    fedavg_step(E);
    flce_eng_cosine_rule(E, E->newg, NULL, E->rc);
    return FLCE_OK;
}

static flce_status server_flce(engine *E, flce_err *e) {
    int n = E->n, C = E->C, K = E->K;
    double *Q = malloc(sizeof *Q * (size_t)n * C), *Qs = malloc(sizeof *Qs * (size_t)K * C), *sz = malloc(sizeof *sz * (size_t)K);
    if (!Q || !Qs || !sz) {
        free(Q), free(Qs), free(sz);
        return flce_fail(e, FLCE_ERR_NOMEM, "server: out of memory");
    }
    /* the same call flce eval makes on the trace: all n clients, absent ones not present */
    flce_status st = flce_round(E->protos, E->present, n, C, E->d, &E->cfg->ablate, E->g, E->has_g, Q, e);
    if (!st) {
        for (int i = 0; i < K; i++) {
            memcpy(Qs + (size_t)i * C, Q + (size_t)E->sel[i] * C, sizeof *Qs * (size_t)C);
            sz[i] = E->sizes[E->sel[i]];
        }
        E->fallback = flce_aggregation_weights(Qs, K, C, sz, E->omega); /* eq:method.aggregation_model */
        for (int i = 0; i < K; i++) { /* this round's share before completion: sum_c b_c Q */
            E->rc[i] = 0;
            for (int c = 0; c < C; c++)
                E->rc[i] += (E->cfg->class_weights ? E->cfg->class_weights[c] : 1.0 / C) * Qs[(size_t)i * C + c];
        }
        int slots[32];
        for (int i = 0; i < K; i++) slots[i] = i;
        flce_eng_aggregate(E, E->omega, K, slots, E->newg);
    }
    free(Q), free(Qs), free(sz);
    return st;
}

/* ---- Shapley methods ------------------------------------------------------------------ */
typedef struct {
    engine *E;
    flce_err *e;
    int failed;
} util_ctx;

/* v(S): validation accuracy (or minus the loss) of the data-size-weighted average of the
 * models of coalition S; v({}) = the round's incoming global model. Cached per round. */
static double utility(uint32_t mask, void *ud) {
    util_ctx *u = ud;
    engine *E = u->E;
    if (!isnan(E->vcache[mask])) return E->vcache[mask];
    int slots[32], k = 0;
    double w[32], s = 0;
    for (int i = 0; i < E->K; i++)
        if (mask >> i & 1) slots[k] = i, w[k] = E->sizes[E->sel[i]], s += w[k++];
    for (int i = 0; i < k; i++) w[i] /= s;
    if (k) flce_eng_aggregate(E, w, k, slots, E->newg);
    else memcpy(E->newg, E->global, sizeof(float) * E->S);
    flce_model_set_state(&E->m, E->newg);
    int B = E->cfg->eval_batch, nv = E->n_val;
    int64_t right = 0;
    double loss = 0;
    for (int i0 = 0; i0 < nv; i0 += B) {
        int nb = nv - i0 < B ? nv - i0 : B;
        for (int i = 0; i < nb; i++)
            memcpy(E->bx + (size_t)i * E->CHW, E->train_x + (size_t)E->val_idx[i0 + i] * E->CHW, sizeof(float) * (size_t)E->CHW);
        if (flce_model_eval(&E->m, nb, E->bx, E->logits, NULL, u->e)) {
            u->failed = 1;
            return 0;
        }
        for (int i = 0; i < nb; i++) {
            const float *l = E->logits + (size_t)i * E->C;
            int p = 0, y = E->ds.train.labels[E->val_idx[i0 + i]];
            double mx = l[0], sm = 0;
            for (int c = 1; c < E->C; c++)
                if (l[c] > mx) mx = l[c], p = c;
            for (int c = 0; c < E->C; c++) sm += flce_dexp(l[c] - mx);
            loss += mx + flce_dlog(sm) - l[y];
            right += p == y;
        }
    }
    double v = E->cfg->utility_loss ? -(nv ? loss / nv : 0) : (nv ? (double)right / nv : 0);
    E->vcache[mask] = v;
    return v;
}

static flce_status server_fedsv(engine *E, flce_err *e) {
    for (uint32_t i = 0; i < ((uint32_t)1 << E->K); i++) E->vcache[i] = NAN;
    util_ctx u = {E, e, 0};
    double phi[32];
    flce_status st;
    if (E->cfg->shapley_mc || E->K > 12)
        st = flce_shapley_mc(E->K, utility, &u, E->cfg->mc_perms, E->cfg->mc_eps, E->cfg->seed, (uint32_t)E->t, phi, NULL, e);
    else st = flce_shapley_exact(E->K, utility, &u, phi, e);
    if (st) return st;
    if (u.failed) return FLCE_ERR_NUMERIC;
    for (int i = 0; i < E->K; i++) E->rc[i] = phi[i]; /* summed over rounds, clamped at 0 at the end */
    fedavg_step(E);
    return FLCE_OK;
}

/* GTG-Shapley: between-round truncation when the round barely changes the utility; guided
 * permutations (each client first once per sweep of K); within-permutation truncation; at
 * least max(30, K) permutations, then stop when the running means moved by at most 5% on
 * average against 10 permutations earlier (at most 1000). */
static flce_status server_gtg(engine *E, flce_err *e) {
    int K = E->K;
    for (uint32_t i = 0; i < ((uint32_t)1 << K); i++) E->vcache[i] = NAN;
    util_ctx u = {E, e, 0};
    uint32_t all = ((uint32_t)1 << K) - 1;
    double v0 = utility(0, &u), vall = utility(all, &u), eps = 0.001;
    double sum[32] = {0}, hist[10][32];
    int m = 0, perm[32], minp = K > 30 ? K : 30;
    for (int i = 0; i < K; i++) E->rc[i] = 0;
    if (u.failed) return FLCE_ERR_NUMERIC;
    if (fabs(vall - v0) > eps) {
        flce_rng r;
        flce_rng_init(&r, E->cfg->seed, FLCE_RNG_SHAPLEY, (uint32_t)E->t, 1);
        while (m < 1000) {
            flce_rng_permutation(&r, K, perm);
            int lead = m % K;
            for (int i = 0; i < K; i++)
                if (perm[i] == lead) {
                    perm[i] = perm[0];
                    perm[0] = lead;
                    break;
                }
            uint32_t s = 0;
            double prev = v0;
            for (int j = 0; j < K; j++) {
                if (fabs(vall - prev) < eps) break;
                s |= (uint32_t)1 << perm[j];
                double cur = utility(s, &u);
                sum[perm[j]] += cur - prev;
                prev = cur;
            }
            if (u.failed) return FLCE_ERR_NUMERIC;
            double rel = 0;
            for (int i = 0; i < K; i++) {
                double avg = sum[i] / (m + 1);
                if (m >= 10) rel += fabs(avg - hist[m % 10][i]) / (fabs(avg) + 1e-12);
                hist[m % 10][i] = avg;
            }
            m++;
            if (m >= minp && m > 10 && rel / K <= 0.05) break;
        }
        for (int i = 0; i < K; i++) E->rc[i] = sum[i] / m;
    }
    fedavg_step(E);
    return FLCE_OK;
}

/* ---- FedFV ------------------------------------------------------------------------------ */
/* aux_f: the projected update directions g_i of the last round [K][S]; aux_d[0]: how many
 * are stored, aux_d[1..K]: their clients, aux_d[K+1]: the round they come from. */
static void fedfv_size(const engine *E, size_t *f, size_t *d) {
    *f = (size_t)E->K * E->S;
    *d = (size_t)E->K + 2;
}

static double dotf(const float *a, const float *b, size_t n) {
    double s = 0;
    for (size_t j = 0; j < n; j++) s += (double)a[j] * b[j];
    return s;
}

/* g_i <- g_i - (<g_j, g_i> / |g_j|^2) g_j when <g_j, g_i> < 0 (float32, element by element) */
static void project(float *gi, const float *gj, size_t n) {
    double dot = dotf(gj, gi, n), nn = dotf(gj, gj, n);
    if (dot >= 0 || nn <= 0) return;
    float c = (float)(dot / nn);
    for (size_t j = 0; j < n; j++) gi[j] = gi[j] - c * gj[j];
}

static const double *SORT_KEYS;
static int cmp_by_key(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    double kx = SORT_KEYS[x], ky = SORT_KEYS[y];
    if (kx != ky) return kx < ky ? -1 : 1;
    return (x > y) - (x < y);
}

static flce_status server_fedfv(engine *E, flce_err *e) {
    int K = E->K;
    size_t S = E->S;
    float *g = malloc(sizeof(float) * S * (size_t)K), *orig = malloc(sizeof(float) * S * (size_t)K), *mean = malloc(sizeof(float) * S);
    if (!g || !orig || !mean) {
        free(g), free(orig), free(mean);
        return flce_fail(e, FLCE_ERR_NOMEM, "FedFV: out of memory");
    }
    for (int i = 0; i < K; i++) /* g_k = w - w_k */
        for (size_t j = 0; j < S; j++) orig[(size_t)i * S + j] = E->global[j] - E->states[(size_t)i * S + j];
    memcpy(g, orig, sizeof(float) * S * (size_t)K);
    int order[32];
    for (int i = 0; i < K; i++) order[i] = i;
    SORT_KEYS = E->rep_loss; /* ascending loss of the received model; ties by slot */
    qsort(order, (size_t)K, sizeof(int), cmp_by_key);
    int keep = (int)ceil(0.1 * K); /* alpha = 0.1: the highest-loss clients keep g_k */
    for (int a = 0; a < K - keep; a++) {
        int i = order[a];
        for (int b = 0; b < K; b++) {
            int j = order[b];
            if (j != i) project(g + (size_t)i * S, orig + (size_t)j * S, S);
        }
    }
    /* g = mean g_i; the norm it is rescaled to: |mean of the original g_k| */
    double mn = 0;
    for (size_t j = 0; j < S; j++) {
        float a = 0.0f, o = 0.0f;
        for (int i = 0; i < K; i++) a = a + g[(size_t)i * S + j], o = o + orig[(size_t)i * S + j];
        mean[j] = a * (1.0f / (float)K);
        float om = o * (1.0f / (float)K);
        mn += (double)om * om;
    }
    /* external conflicts: the stored directions of clients seen last round (tau = 1) and
     * not selected now */
    int stored = (int)E->aux_d[0];
    if (stored > 0 && (int)E->aux_d[K + 1] == E->t - 1)
        for (int s = 0; s < stored; s++) {
            int client = (int)E->aux_d[1 + s], now = 0;
            for (int i = 0; i < K; i++) now |= E->sel[i] == client;
            if (!now) project(mean, E->aux_f + (size_t)s * S, S);
        }
    double gn = dotf(mean, mean, S);
    float scale = gn > 0 ? (float)(sqrt(mn) / sqrt(gn)) : 1.0f;
    for (size_t j = 0; j < S; j++) E->newg[j] = E->global[j] - mean[j] * scale;
    /* contributions: cosine rule on the projected directions (w_k - w taken as -g_i) */
    for (size_t q = 0; q < S * (size_t)K; q++) orig[q] = -g[q];
    flce_eng_cosine_rule(E, E->newg, orig, E->rc);
    memcpy(E->aux_f, g, sizeof(float) * S * (size_t)K);
    E->aux_d[0] = K;
    for (int i = 0; i < K; i++) E->aux_d[1 + i] = E->sel[i];
    E->aux_d[K + 1] = E->t;
    for (int i = 0; i < K; i++) E->omega[i] = 1.0 / K;
    free(g), free(orig), free(mean);
    return FLCE_OK;
}

/* ---- CGSV ------------------------------------------------------------------------------- */
/* aux_d: reputations r [n], initially the data shares (the first round's weights). */
static void cgsv_size(const engine *E, size_t *f, size_t *d) {
    *f = 0;
    *d = (size_t)E->n;
}

static void cgsv_init(engine *E) {
    double s = 0;
    for (int k = 0; k < E->n; k++) s += E->sizes[k];
    for (int k = 0; k < E->n; k++) E->aux_d[k] = E->sizes[k] / s;
}

static flce_status server_cgsv(engine *E, flce_err *e) {
    int K = E->K;
    size_t S = E->S;
    const float Gamma = 0.15f;
    float *gk = malloc(sizeof(float) * S * (size_t)K), *g = malloc(sizeof(float) * S);
    if (!gk || !g) {
        free(gk), free(g);
        return flce_fail(e, FLCE_ERR_NOMEM, "CGSV: out of memory");
    }
    for (int i = 0; i < K; i++) { /* u_k = w_k - w; g_k = Gamma u_k / (|u_k| + 1e-7) */
        float *gi = gk + (size_t)i * S;
        for (size_t j = 0; j < S; j++) gi[j] = E->states[(size_t)i * S + j] - E->global[j];
        float c = (float)(Gamma / (sqrt(dotf(gi, gi, S)) + 1e-7));
        for (size_t j = 0; j < S; j++) gi[j] = gi[j] * c;
    }
    double rs = 0;
    for (int i = 0; i < K; i++) rs += E->aux_d[E->sel[i]];
    for (int i = 0; i < K; i++) E->omega[i] = E->aux_d[E->sel[i]] / rs;
    for (size_t j = 0; j < S; j++) {
        float a = 0.0f;
        for (int i = 0; i < K; i++) a = a + (float)E->omega[i] * gk[(size_t)i * S + j];
        g[j] = a;
    }
    double gg = dotf(g, g, S);
    for (int i = 0; i < K; i++) { /* phi_k = cos(g_k, g); r_k <- 0.95 r_k + 0.05 phi_k, >= 1e-3 */
        const float *gi = gk + (size_t)i * S;
        double nn = dotf(gi, gi, S), phi = nn > 0 && gg > 0 ? dotf(gi, g, S) / (sqrt(nn) * sqrt(gg)) : 0;
        double *r = &E->aux_d[E->sel[i]];
        *r = 0.95 * *r + 0.05 * phi;
        if (*r < 1e-3) *r = 1e-3;
        E->rc[i] = 0; /* CGSV reports its final reputations, not running sums */
    }
    for (size_t j = 0; j < S; j++) E->newg[j] = E->global[j] + g[j];
    for (int k = 0; k < E->n; k++) E->contrib_sum[k] = E->aux_d[k];
    for (int i = 0; i < K; i++) E->rc[i] = 0;
    free(gk), free(g);
    return FLCE_OK;
}

/* ---- q-FedAvg --------------------------------------------------------------------------- */
static double powq(double x, double q) { return q == 1.0 ? x : flce_dexp(q * flce_dlog(x)); }

static flce_status server_qfedavg(engine *E, flce_err *e) {
    int K = E->K;
    size_t S = E->S;
    const double q = 1.0, L = 1.0 / E->cfg->lr;
    double *h = malloc(sizeof(double) * (size_t)K), hs = 0, Fq[32];
    float *D = malloc(sizeof(float) * S);
    if (!h || !D) {
        free(h), free(D);
        return flce_fail(e, FLCE_ERR_NOMEM, "q-FedAvg: out of memory");
    }
    for (int i = 0; i < K; i++) { /* dw_k = L (w - w_k); h_k = q F^(q-1) |dw_k|^2 + L F^q */
        double F = E->rep_loss[i] + 1e-10, nn = 0;
        for (size_t j = 0; j < S; j++) {
            double dw = L * ((double)E->global[j] - E->states[(size_t)i * S + j]);
            nn += dw * dw;
        }
        Fq[i] = powq(F, q);
        h[i] = q * powq(F, q - 1) * nn + L * Fq[i];
        hs += h[i];
    }
    for (size_t j = 0; j < S; j++) { /* w <- w - sum_k F^q dw_k / sum_k h_k */
        double a = 0;
        for (int i = 0; i < K; i++) a += Fq[i] * L * ((double)E->global[j] - E->states[(size_t)i * S + j]);
        D[j] = (float)(a / hs);
        E->newg[j] = E->global[j] - D[j];
    }
    for (int i = 0; i < K; i++) {
        E->rc[i] = Fq[i] / hs;
        E->omega[i] = Fq[i] * L / hs;
    }
    free(h), free(D);
    return FLCE_OK;
}

/* ---- FedFa ------------------------------------------------------------------------------ */
/* aux_f: server momentum m [S]; aux_d: times selected so far f [n].
 * Sign: w <- w + m, as the FedFa paper moves the model along its momentum of the
 * aggregate update w' - w. The public re-implementation's w - eta m steps away from the
 * clients' models and damps training; we do not follow it (docs/decisions.md). */
static void fedfa_size(const engine *E, size_t *f, size_t *d) {
    *f = E->S;
    *d = (size_t)E->n;
}

static flce_status server_fedfa(engine *E, flce_err *e) {
    (void)e;
    int K = E->K;
    size_t S = E->S;
    const double beta = 0.5;
    const float gamma = 0.9f;
    double acc_s = 0, f_s = 0, A[32], F[32], as = 0, fs = 0;
    for (int i = 0; i < K; i++) E->aux_d[E->sel[i]] += 1; /* this round counts */
    for (int i = 0; i < K; i++) acc_s += E->rep_acc[i], f_s += E->aux_d[E->sel[i]];
    for (int i = 0; i < K; i++) {
        A[i] = -flce_dlog(E->rep_acc[i] / (acc_s > 0 ? acc_s : 1) + 1e-6) / flce_dlog(2.0);
        F[i] = -flce_dlog(1 - E->aux_d[E->sel[i]] / f_s + 1e-5) / flce_dlog(2.0);
        as += A[i], fs += F[i];
    }
    for (int i = 0; i < K; i++) {
        double a = as > 0 ? A[i] / as : 1.0 / K, f = fs > 0 ? F[i] / fs : 1.0 / K;
        E->omega[i] = (1 - beta) * a + beta * f;
        E->rc[i] = E->omega[i];
    }
    int slots[32];
    for (int i = 0; i < K; i++) slots[i] = i;
    flce_eng_aggregate(E, E->omega, K, slots, E->newg); /* w' */
    for (size_t j = 0; j < S; j++) {
        E->aux_f[j] = gamma * E->aux_f[j] + (1.0f - gamma) * (E->newg[j] - E->global[j]);
        E->newg[j] = E->global[j] + E->aux_f[j];
    }
    return FLCE_OK;
}

/* ---- Ditto, MOON state -------------------------------------------------------------------- */
/* aux_f: one model per client [n][S] (Ditto: personal models; MOON: previous local models);
 * aux_d: 1 where the client has one. */
static void per_client_size(const engine *E, size_t *f, size_t *d) {
    *f = (size_t)E->n * E->S;
    *d = (size_t)E->n;
}

const algo_vt FLCE_ALGOS[] = {
    /* name     contr proto shap rep local        clamp state_size       init       server */
    {"flce", 1, 1, 0, 0, LOCAL_PLAIN, 0, NULL, NULL, server_flce},
    {"fedavg", 0, 0, 0, 0, LOCAL_PLAIN, 0, NULL, NULL, server_fedavg},
    {"fedprox", 0, 0, 0, 0, LOCAL_PROX, 0, NULL, NULL, server_fedavg},
    {"ditto", 0, 0, 0, 0, LOCAL_DITTO, 0, per_client_size, NULL, server_fedavg},
    {"moon", 0, 0, 0, 0, LOCAL_MOON, 0, per_client_size, NULL, server_fedavg},
    {"fedfv", 0, 0, 0, 1, LOCAL_PLAIN, 0, fedfv_size, NULL, server_fedfv},
    {"cgsv", 0, 0, 0, 0, LOCAL_PLAIN, 0, cgsv_size, cgsv_init, server_cgsv},
    {"qfedavg", 0, 0, 0, 1, LOCAL_PLAIN, 0, NULL, NULL, server_qfedavg},
    {"fedfa", 0, 0, 0, 1, LOCAL_PLAIN, 0, fedfa_size, NULL, server_fedfa},
    {"fedsv", 0, 0, 1, 0, LOCAL_PLAIN, 1, NULL, NULL, server_fedsv},
    {"gtg", 0, 0, 1, 0, LOCAL_PLAIN, 1, NULL, NULL, server_gtg},
};
const int FLCE_NALGOS = (int)(sizeof FLCE_ALGOS / sizeof FLCE_ALGOS[0]);

int flce_algo_known(const char *name) {
    for (int i = 0; i < FLCE_NALGOS; i++)
        if (!strcmp(name, FLCE_ALGOS[i].name)) return 1;
    return 0;
}
