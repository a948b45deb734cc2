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

#include "baselines.h"
#include "engine_impl.h"
#include "ops.h"

void flce_eng_data_size_weights(engine *E, double *w) {
    double s = 0;
    for (int i = 0; i < E->K; i++) s += E->sizes[E->sel[i]];
    for (int i = 0; i < E->K; i++) w[i] = E->sizes[E->sel[i]] / s;
}

double flce_eng_logit_loss(const float *l, int C, int y, int *pred) {
    int p = 0;
    double mx = l[0], s = 0;
    for (int c = 1; c < C; c++)
        if (l[c] > mx) mx = l[c], p = c;
    for (int c = 0; c < C; c++) s += flce_dexp(l[c] - mx);
    *pred = p;
    return mx + flce_dlog(s) - l[y];
}

void flce_eng_aggregate(engine *E, const double *w, int K, const int *slots, float *out) {
    float a[32];
    const float *xs[32];
    for (int i = 0; i < K; i++) {
        a[i] = (float)w[i];
        xs[i] = E->states + (size_t)slots[i] * E->S;
    }
    ref_weighted_sum(E->S, K, a, xs, out); /* the backends' aggregation op, k ascending */
}

void flce_eng_params(const engine *E, const float *state, float *out) {
    for (size_t j = 0, o = 0; j < E->S; j++)
        if (E->trainable[j]) out[o++] = state[j];
}

void flce_eng_compose(engine *E, const float *params, float *newg) {
    double w[32];
    int slots[32];
    flce_eng_data_size_weights(E, w);
    for (int i = 0; i < E->K; i++) slots[i] = i;
    flce_eng_aggregate(E, w, E->K, slots, newg); /* running statistics: the data-size average */
    for (size_t j = 0, o = 0; j < E->S; j++)
        if (E->trainable[j]) newg[j] = params[o++];
}

void flce_eng_cosine_rule(engine *E, const float *newg, const float *dirs, double *rc) {
    double nu = 0;
    for (size_t j = 0; j < E->S; j++)
        if (E->trainable[j]) nu += ((double)newg[j] - E->global[j]) * ((double)newg[j] - E->global[j]);
    uint8_t pr[32];
    for (int i = 0; i < E->K; i++) {
        const float *s = E->states + (size_t)i * E->S, *dv = dirs ? dirs + (size_t)i * E->P : NULL;
        double dot = 0, nk = 0;
        for (size_t j = 0, o = 0; j < E->S; j++) {
            if (!E->trainable[j]) continue;
            double a = dv ? (double)dv[o++] : (double)s[j] - E->global[j], b = (double)newg[j] - E->global[j];
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
            int p, y = E->ds.train.labels[E->val_idx[i0 + i]];
            loss += flce_eng_logit_loss(E->logits + (size_t)i * E->C, E->C, y, &p);
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

/* ---- methods whose server rule is a step in parameter space ------------------------------ */
/* FedFV, CGSV, q-FedAvg and FedFa's momentum see the parameters only: the running statistics
 * of BatchNorm are not parameters (docs/baselines.md, "BatchNorm buffers"). pv_open gathers
 * the parameters of the global model [P], of the K uploads [K][P] and room for the result [P]. */
typedef struct {
    float *g, *st, *out;
} param_view;

static void pv_close(param_view *v) { free(v->g), free(v->st), free(v->out); }

static flce_status pv_open(engine *E, param_view *v, const char *who, flce_err *e) {
    v->g = malloc(sizeof(float) * E->P), v->out = malloc(sizeof(float) * E->P);
    v->st = malloc(sizeof(float) * E->P * (size_t)E->K);
    if (!v->g || !v->st || !v->out) {
        pv_close(v);
        return flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", who);
    }
    flce_eng_params(E, E->global, v->g);
    for (int i = 0; i < E->K; i++) flce_eng_params(E, E->states + (size_t)i * E->S, v->st + (size_t)i * E->P);
    return FLCE_OK;
}

/* ---- FedFV ------------------------------------------------------------------------------ */
/* aux_f: the projected update directions g_i of the last round [K][P]; aux_d[0]: how many
 * are stored, aux_d[1..K]: their clients, aux_d[K+1]: the round they come from. */
static void fedfv_size(const engine *E, size_t *f, size_t *d) {
    *f = (size_t)E->K * E->P;
    *d = (size_t)E->K + 2;
}

static double dotf(const float *a, const float *b, size_t n) {
    double s = 0;
    for (size_t j = 0; j < n; j++) s += (double)a[j] * b[j];
    return s;
}

static flce_status server_fedfv(engine *E, flce_err *e) {
    int K = E->K;
    size_t P = E->P;
    param_view v;
    flce_status st = pv_open(E, &v, "FedFV", e);
    if (st) return st;
    float *g = flce_calloc(P * (size_t)K, sizeof(float)), *orig = v.st, *mean = v.out;
    if (!g) {
        pv_close(&v);
        return flce_fail(e, FLCE_ERR_NOMEM, "FedFV: out of memory");
    }
    for (int i = 0; i < K; i++) /* g_k = w - w_k (parameters) */
        for (size_t j = 0; j < P; j++) orig[(size_t)i * P + j] = v.g[j] - orig[(size_t)i * P + j];
    flce_fedfv_project(K, P, orig, E->rep_loss, 0.1, g); /* alpha = 0.1 */
    /* g = mean g_i; the norm it is rescaled to: |mean of the original g_k| */
    double mn = 0;
    for (size_t j = 0; j < P; j++) {
        float a = 0.0f, o = 0.0f;
        for (int i = 0; i < K; i++) a = a + g[(size_t)i * P + j], o = o + orig[(size_t)i * P + j];
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
            if (!now) flce_project_conflict(P, mean, E->aux_f + (size_t)s * P);
        }
    double gn = dotf(mean, mean, P);
    float scale = gn > 0 ? (float)(sqrt(mn) / sqrt(gn)) : 1.0f;
    for (size_t j = 0; j < P; j++) mean[j] = v.g[j] - mean[j] * scale; /* w - g */
    flce_eng_compose(E, mean, E->newg);
    /* contributions: cosine rule on the projected directions (w_k - w taken as -g_i) */
    for (size_t q = 0; q < P * (size_t)K; q++) orig[q] = -g[q];
    flce_eng_cosine_rule(E, E->newg, orig, E->rc);
    memcpy(E->aux_f, g, sizeof(float) * P * (size_t)K);
    E->aux_d[0] = K;
    for (int i = 0; i < K; i++) E->aux_d[1 + i] = E->sel[i];
    E->aux_d[K + 1] = E->t;
    for (int i = 0; i < K; i++) E->omega[i] = 1.0 / K;
    free(g);
    pv_close(&v);
    return FLCE_OK;
}

/* ---- CGSV ------------------------------------------------------------------------------- */
/* aux_d: reputations r [n], 0 until a client is first selected (as rs = zeros(N) in the
 * public code), normalised to sum 1 after every round. The aggregation weights are the
 * selected clients' reputations, normalised over them; data shares while none of them has a
 * reputation yet (the first round). */
static void cgsv_size(const engine *E, size_t *f, size_t *d) {
    *f = 0;
    *d = (size_t)E->n;
}

static flce_status server_cgsv(engine *E, flce_err *e) {
    double r[32], w[32], rs = 0;
    for (int i = 0; i < E->K; i++) rs += r[i] = E->aux_d[E->sel[i]];
    if (rs > 0)
        for (int i = 0; i < E->K; i++) w[i] = r[i] / rs;
    else flce_eng_data_size_weights(E, w);
    param_view v;
    flce_status st = pv_open(E, &v, "CGSV", e);
    if (st) return st;
    flce_cgsv_round(E->K, E->P, v.g, v.st, 0.15, 0.95, w, r, v.out);
    flce_eng_compose(E, v.out, E->newg);
    pv_close(&v);
    for (int i = 0; i < E->K; i++) E->aux_d[E->sel[i]] = r[i], E->rc[i] = 0, E->omega[i] = w[i];
    double tot = 0;
    for (int k = 0; k < E->n; k++) tot += E->aux_d[k];
    for (int k = 0; k < E->n; k++) E->aux_d[k] /= tot; /* tot >= K * 1e-3 */
    for (int k = 0; k < E->n; k++) E->contrib_sum[k] = E->aux_d[k]; /* contributions: the reputations */
    return FLCE_OK;
}

/* ---- q-FedAvg --------------------------------------------------------------------------- */
static flce_status server_qfedavg(engine *E, flce_err *e) {
    double F[32], h[32];
    for (int i = 0; i < E->K; i++) F[i] = E->rep_loss[i] + 1e-10;
    param_view v;
    flce_status st = pv_open(E, &v, "q-FedAvg", e);
    if (st) return st;
    flce_qfedavg_round(E->K, E->P, v.g, v.st, F, E->cfg->lr, 1.0, v.out, h, E->rc);
    flce_eng_compose(E, v.out, E->newg);
    pv_close(&v);
    for (int i = 0; i < E->K; i++) E->omega[i] = E->rc[i];
    return FLCE_OK;
}

/* ---- FedFa ------------------------------------------------------------------------------ */
/* aux_f: server momentum m over the parameters [P]; aux_d: times selected so far f [n].
 * w' = sum pi_k w_k (the whole state: its running statistics are the new model's); on the
 * parameters m <- gamma m + (1 - gamma)(w' - w), w <- w + m (the sign: docs/decisions.md). */
static void fedfa_size(const engine *E, size_t *f, size_t *d) {
    *f = E->P;
    *d = (size_t)E->n;
}

static flce_status server_fedfa(engine *E, flce_err *e) {
    (void)e;
    int K = E->K;
    const float gamma = 0.9f;
    double f[32] = {0};
    for (int i = 0; i < K; i++) f[i] = E->aux_d[E->sel[i]] += 1; /* this round counts */
    flce_fedfa_weights(K, E->rep_acc, f, 0.5, E->omega);
    for (int i = 0; i < K; i++) E->rc[i] = E->omega[i];
    int slots[32];
    for (int i = 0; i < K; i++) slots[i] = i;
    flce_eng_aggregate(E, E->omega, K, slots, E->newg); /* w' */
    for (size_t j = 0, o = 0; j < E->S; j++) {
        if (!E->trainable[j]) continue; /* running statistics: those of w' */
        E->aux_f[o] = gamma * E->aux_f[o] + (1.0f - gamma) * (E->newg[j] - E->global[j]);
        E->newg[j] = E->global[j] + E->aux_f[o++];
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
    {"cgsv", 0, 0, 0, 0, LOCAL_PLAIN, 0, cgsv_size, NULL, server_cgsv},
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
