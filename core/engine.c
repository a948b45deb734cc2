/* engine.c: the federated engine (see engine.h). One round:
 *   1. select K of n clients (stream select, round t), ascending client order;
 *   2. each selected client loads the global model and runs E local epochs of SGD over its
 *      data in a seeded order (stream batch, round t, client k), with L_CE + lambda L_CL
 *      for FLCE and L_CE otherwise; FLCE clients then compute their prototypes;
 *   3. the algorithm's server step gives aggregation weights and the round's contributions;
 *      the new global model (all parameters and BatchNorm statistics) is the weighted sum;
 *   4. the global model is evaluated on the test set; files are written. */
#include "engine.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "npy.h"
#include "ops.h"

void flce_run_cfg_default(flce_run_cfg *c) {
    memset(c, 0, sizeof *c);
    c->algo = "flce";
    c->dataset = "fmnist";
    c->clients = 50;
    c->per_round = 10;
    c->rounds = 100;
    c->epochs = 1;
    c->batch = 64;
    flce_partition_cfg_default(&c->part);
    c->lr = 0.01;
    c->lambda = 1.0;
    c->tau = 0.5;
    c->backend = "cpu";
    c->seed = 1;
    c->mc_perms = 50;
    c->mc_eps = 0.001;
    c->eval_batch = 256;
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct engine engine;

typedef struct {
    const char *name;
    int contrastive, prototypes, shapley;
    flce_status (*server)(engine *E, flce_err *e);
} algo_vt;

struct engine {
    const flce_run_cfg *cfg;
    const algo_vt *algo;
    flce_dataset ds;
    flce_partition part;
    int n, K, T, C, CHW, d;
    float *train_x;      /* [train n][CHW], normalised, feature noise of the holder added */
    int32_t *entry_y;    /* label of each partition entry */
    int *val_idx, n_val; /* validation samples (train indices), excluded from every client */
    int n_test;
    float *test_x;
    int32_t *test_y;
    double *sizes;       /* [n] */
    int *held;           /* [n] classes held */
    flce_backend *be;
    flce_model m;
    size_t S;
    float *global, *states, *newg; /* [S], [K][S], [S] */
    int t;                         /* current round, 0-based */
    int *sel;                      /* [K] */
    float *protos;                 /* [n][C][d] of the round, NaN where none */
    uint8_t *present;              /* [n][C] */
    double *losses;                /* [K] */
    double *omega, *rc;            /* [K] */
    int fallback, nocorrect;
    /* algorithm state (saved for --resume) */
    double *g;                     /* [C][d] FLCE global prototypes */
    uint8_t *has_g;                /* [C] */
    double *contrib_sum;           /* [n] running contributions */
    /* scratch */
    float *bx, *logits, *feat;
    int32_t *by;
    int *perm;
    double *vcache;                /* Shapley utility cache per round, [2^K] */
    /* files */
    char dir[1024];
    int fd_proto, fd_sel;
    size_t proto_off, sel_off;
    flce_round_metrics *metrics;
};

/* ---- evaluation ----------------------------------------------------------------------- */
/* Accuracy, macro-F1 and mean cross-entropy of the model's current state on samples x [n]. */
static flce_status evaluate(engine *E, const float *x, const int32_t *y, int n, double *acc, double *f1, double *loss,
                            flce_err *e) {
    int C = E->C, B = E->cfg->eval_batch;
    int64_t *tp = flce_calloc((size_t)C, 8), *fp = flce_calloc((size_t)C, 8), *fn = flce_calloc((size_t)C, 8);
    if (!tp || !fp || !fn) {
        free(tp), free(fp), free(fn);
        return flce_fail(e, FLCE_ERR_NOMEM, "evaluate: out of memory");
    }
    int64_t right = 0;
    double ls = 0;
    for (int i0 = 0; i0 < n; i0 += B) {
        int nb = n - i0 < B ? n - i0 : B;
        flce_status st = flce_model_eval(&E->m, nb, x + (size_t)i0 * E->CHW, E->logits, NULL, e);
        if (st) {
            free(tp), free(fp), free(fn);
            return st;
        }
        for (int i = 0; i < nb; i++) {
            const float *l = E->logits + (size_t)i * C;
            int p = 0;
            double mx = l[0];
            for (int c = 1; c < C; c++)
                if (l[c] > mx) mx = l[c], p = c;
            double s = 0;
            for (int c = 0; c < C; c++) s += flce_dexp(l[c] - mx);
            ls += mx + flce_dlog(s) - l[y[i0 + i]];
            if (p == y[i0 + i]) right++, tp[p]++;
            else fp[p]++, fn[y[i0 + i]]++;
        }
    }
    double f = 0;
    int cls = 0;
    for (int c = 0; c < C; c++) {
        if (tp[c] + fn[c] == 0) continue; /* class absent from the evaluation set */
        double prec = tp[c] + fp[c] ? (double)tp[c] / (double)(tp[c] + fp[c]) : 0;
        double rec = (double)tp[c] / (double)(tp[c] + fn[c]);
        f += prec + rec > 0 ? 2 * prec * rec / (prec + rec) : 0;
        cls++;
    }
    if (acc) *acc = n ? (double)right / n : 0;
    if (f1) *f1 = cls ? f / cls : 0;
    if (loss) *loss = n ? ls / n : 0;
    free(tp), free(fp), free(fn);
    return FLCE_OK;
}

/* ---- local training ------------------------------------------------------------------- */
static flce_status client_update(engine *E, int slot, flce_err *e) {
    const flce_run_cfg *cfg = E->cfg;
    int k = E->sel[slot];
    int64_t lo = E->part.offsets[k], nk = E->part.offsets[k + 1] - lo;
    float lambda = (E->algo->contrastive && !cfg->ablate_cl) ? (float)cfg->lambda : 0.0f;
    flce_model_set_state(&E->m, E->global);
    flce_rng r;
    flce_rng_init(&r, cfg->seed, FLCE_RNG_BATCH, (uint32_t)E->t, (uint32_t)k);
    double lsum = 0;
    int nbatches = 0, first = 1;
    for (int ep = 0; ep < cfg->epochs; ep++) {
        flce_rng_permutation(&r, (int)nk, E->perm);
        for (int64_t b0 = 0; b0 < nk; b0 += cfg->batch) {
            int nb = (int)(nk - b0 < cfg->batch ? nk - b0 : cfg->batch);
            for (int i = 0; i < nb; i++) {
                int64_t ent = lo + E->perm[b0 + i];
                memcpy(E->bx + (size_t)i * E->CHW, E->train_x + (size_t)E->part.index[ent] * E->CHW, sizeof(float) * (size_t)E->CHW);
                E->by[i] = E->entry_y[ent];
            }
            flce_losses l;
            flce_status st = flce_model_forward_backward(&E->m, nb, E->bx, E->by, lambda, (float)cfg->tau, &l, e);
            if (st) return st;
            flce_model_sgd(&E->m, (float)cfg->lr, 0.0f, 0.0f, first);
            first = 0;
            lsum += l.loss;
            nbatches++;
        }
    }
    E->losses[slot] = nbatches ? lsum / nbatches : 0;
    flce_model_get_state(&E->m, E->states + (size_t)slot * E->S);
    if (!E->algo->prototypes) return FLCE_OK;
    /* eq:method.z: mean pooled feature of the samples of class c the model classifies as c
     * (evaluation mode), over all local samples, float64 sums in sample order */
    int C = E->C, d = E->d, B = cfg->eval_batch;
    double *sum = flce_calloc((size_t)C * d, sizeof *sum);
    int64_t *cnt = flce_calloc((size_t)C, sizeof *cnt), *held = flce_calloc((size_t)C, sizeof *held);
    if (!sum || !cnt || !held) {
        free(sum), free(cnt), free(held);
        return flce_fail(e, FLCE_ERR_NOMEM, "prototypes: out of memory");
    }
    for (int64_t i0 = 0; i0 < nk; i0 += B) {
        int nb = (int)(nk - i0 < B ? nk - i0 : B);
        for (int i = 0; i < nb; i++)
            memcpy(E->bx + (size_t)i * E->CHW, E->train_x + (size_t)E->part.index[lo + i0 + i] * E->CHW, sizeof(float) * (size_t)E->CHW);
        flce_status st = flce_model_eval(&E->m, nb, E->bx, E->logits, E->feat, e);
        if (st) {
            free(sum), free(cnt), free(held);
            return st;
        }
        for (int i = 0; i < nb; i++) {
            int y = E->entry_y[lo + i0 + i], p = 0;
            const float *l = E->logits + (size_t)i * C;
            for (int c = 1; c < C; c++)
                if (l[c] > l[p]) p = c;
            held[y]++;
            if (p != y) continue;
            cnt[y]++;
            for (int j = 0; j < d; j++) sum[(size_t)y * d + j] += E->feat[(size_t)i * d + j];
        }
    }
    float *pk = E->protos + (size_t)k * C * d;
    for (int c = 0; c < C; c++) {
        E->present[(size_t)k * C + c] = cnt[c] > 0;
        E->nocorrect += held[c] > 0 && cnt[c] == 0;
        for (int j = 0; j < d; j++) pk[(size_t)c * d + j] = cnt[c] ? (float)(sum[(size_t)c * d + j] / (double)cnt[c]) : NAN;
    }
    free(sum), free(cnt), free(held);
    return FLCE_OK;
}

/* ---- algorithms ----------------------------------------------------------------------- */
static void data_size_weights(engine *E, double *w) {
    double s = 0;
    for (int i = 0; i < E->K; i++) s += E->sizes[E->sel[i]];
    for (int i = 0; i < E->K; i++) w[i] = E->sizes[E->sel[i]] / s;
}

/* newg = sum_i w_i states_i (float32, ascending i: ref_weighted_sum) */
static void aggregate(engine *E, const double *w, int K, const int *slots, float *out) {
    float a[32];
    const float *xs[32];
    for (int i = 0; i < K; i++) {
        a[i] = (float)w[i];
        xs[i] = E->states + (size_t)slots[i] * E->S;
    }
    ref_weighted_sum(E->S, K, a, xs, out);
}

/* The paper's cosine rule: cos(w_k - w, w' - w) clamped at 0, normalised over S_t. */
static void cosine_rule(engine *E, const float *newg, double *rc) {
    double nu = 0;
    for (size_t j = 0; j < E->S; j++) nu += ((double)newg[j] - E->global[j]) * ((double)newg[j] - E->global[j]);
    uint8_t pr[32];
    for (int i = 0; i < E->K; i++) {
        const float *s = E->states + (size_t)i * E->S;
        double dot = 0, nk = 0;
        for (size_t j = 0; j < E->S; j++) {
            double a = (double)s[j] - E->global[j], b = (double)newg[j] - E->global[j];
            dot += a * b;
            nk += a * a;
        }
        rc[i] = nu > 0 && nk > 0 ? fmax(0, dot / (sqrt(nu) * sqrt(nk))) : 0;
        pr[i] = 1;
    }
    flce_normalize(rc, pr, E->K);
}

static flce_status server_fedavg(engine *E, flce_err *e) {
    (void)e;
    data_size_weights(E, E->omega);
    int slots[32];
    for (int i = 0; i < E->K; i++) slots[i] = i;
    aggregate(E, E->omega, E->K, slots, E->newg);
    cosine_rule(E, E->newg, E->rc);
    return FLCE_OK;
}

static flce_status server_flce(engine *E, flce_err *e) {
    int n = E->n, C = E->C, K = E->K;
    double *Q = malloc(sizeof *Q * (size_t)n * C);
    if (!Q) return flce_fail(e, FLCE_ERR_NOMEM, "server: out of memory");
    /* the same call flce eval makes on the trace: all n clients, absent ones not present */
    flce_status st = flce_round(E->protos, E->present, n, C, E->d, &E->cfg->ablate, E->g, E->has_g, Q, e);
    if (st) {
        free(Q);
        return st;
    }
    double Qk[32 * 1000 > 0 ? 1 : 1];
    (void)Qk;
    double *Qs = malloc(sizeof *Qs * (size_t)K * C), *sz = malloc(sizeof *sz * (size_t)K);
    if (!Qs || !sz) {
        free(Q), free(Qs), free(sz);
        return flce_fail(e, FLCE_ERR_NOMEM, "server: out of memory");
    }
    for (int i = 0; i < K; i++) {
        memcpy(Qs + (size_t)i * C, Q + (size_t)E->sel[i] * C, sizeof *Qs * (size_t)C);
        sz[i] = E->sizes[E->sel[i]];
    }
    E->fallback = flce_aggregation_weights(Qs, K, C, sz, E->omega); /* eq:method.aggregation_model */
    for (int i = 0; i < K; i++) { /* this round's share without completion: sum_c b_c Q */
        E->rc[i] = 0;
        for (int c = 0; c < C; c++) E->rc[i] += (E->cfg->class_weights ? E->cfg->class_weights[c] : 1.0 / C) * Qs[(size_t)i * C + c];
    }
    int slots[32];
    for (int i = 0; i < K; i++) slots[i] = i;
    aggregate(E, E->omega, K, slots, E->newg);
    free(Q), free(Qs), free(sz);
    return FLCE_OK;
}

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
    if (k) aggregate(E, w, k, slots, E->newg);
    else memcpy(E->newg, E->global, sizeof(float) * E->S);
    flce_model_set_state(&E->m, E->newg);
    double acc = 0, loss = 0;
    float *vx = E->train_x; /* validation samples are gathered below */
    (void)vx;
    int B = E->cfg->eval_batch, nv = E->n_val;
    int64_t right = 0;
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
    acc = nv ? (double)right / nv : 0;
    double v = E->cfg->utility_loss ? -(nv ? loss / nv : 0) : acc;
    E->vcache[mask] = v;
    return v;
}

static void fedavg_step(engine *E) {
    data_size_weights(E, E->omega);
    int slots[32];
    for (int i = 0; i < E->K; i++) slots[i] = i;
    aggregate(E, E->omega, E->K, slots, E->newg);
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

/* GTG-Shapley (docs/baselines.md): between-round truncation when the round barely changes
 * the utility; guided permutations (each client first once per sweep of K); within-
 * permutation truncation; at least max(30, K) permutations, then stop when the running
 * means moved by at most 5% on average against 10 permutations earlier (at most 1000). */
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
            int lead = m % K; /* guided: client `lead` goes first */
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

static const algo_vt ALGOS[] = {
    {"flce", 1, 1, 0, server_flce},
    {"fedavg", 0, 0, 0, server_fedavg},
    {"fedsv", 0, 0, 1, server_fedsv},
    {"gtg", 0, 0, 1, server_gtg},
};

/* ---- files ---------------------------------------------------------------------------- */
static flce_status write_text(engine *E, const char *name, const char *text, flce_err *e) {
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", E->dir, name);
    return flce_write_file_atomic(p, text, strlen(text), e);
}

/* Every setting that decides the results (not the backend: all backends give the same bits). */
static void json_config(engine *E, char *buf, size_t cap) {
    const flce_run_cfg *c = E->cfg;
    size_t n = 0;
    n += (size_t)snprintf(buf + n, cap - n,
                          "{\n  \"algo\": \"%s\",\n  \"ablate\": \"%s%s%s%s%s\",\n"
                          "  \"dataset\": \"%s\",\n  \"clients\": %d,\n  \"per_round\": %d,\n"
                          "  \"rounds\": %d,\n  \"partition\": \"%s\",\n  \"dirichlet\": %.17g,\n  \"min_samples\": %d,\n"
                          "  \"label_noise\": %.17g,\n  \"feature_noise\": %.17g,\n  \"noisy_clients\": %.17g,\n"
                          "  \"epochs\": %d,\n  \"batch\": %d,\n  \"lr\": %.17g,\n  \"lambda\": %.17g,\n  \"tau\": %.17g,\n"
                          "  \"train_subset\": %d,\n  \"test_subset\": %d,\n  \"val_size\": %d,\n  \"shapley\": \"%s\",\n"
                          "  \"mc_perms\": %d,\n  \"mc_eps\": %.17g,\n  \"utility\": \"%s\",\n  \"seed\": %llu,\n",
                          c->algo, c->ablate.no_mass ? "M " : "", c->ablate.no_velocity ? "V " : "",
                          c->ablate.no_momentum ? "Q " : "", c->ablate_cl ? "CL " : "", c->ablate.no_completion ? "CMC" : "",
                          c->dataset, c->clients, c->per_round, c->rounds, c->part.iid ? "iid" : "dirichlet",
                          c->part.dirichlet, c->part.min_samples, c->part.label_noise, c->part.feature_noise,
                          c->part.noisy_frac, c->epochs, c->batch, c->lr, c->lambda, c->tau, c->train_subset,
                          c->test_subset, E->n_val, c->shapley_mc ? "mc" : "exact", c->mc_perms, c->mc_eps,
                          c->utility_loss ? "loss" : "accuracy", (unsigned long long)c->seed);
    n += (size_t)snprintf(buf + n, cap - n, "  \"class_weights\": ");
    if (c->class_weights) {
        for (int i = 0; i < E->C; i++) n += (size_t)snprintf(buf + n, cap - n, "%s%.17g", i ? ", " : "[", c->class_weights[i]);
        snprintf(buf + n, cap - n, "]\n}\n");
    } else snprintf(buf + n, cap - n, "null\n}\n");
}

static flce_status write_metrics(engine *E, int rounds, flce_err *e) {
    size_t cap = 256 + (size_t)rounds * 256, n = 0;
    char *b = malloc(cap);
    if (!b) return flce_fail(e, FLCE_ERR_NOMEM, "metrics: out of memory");
    n += (size_t)snprintf(b, cap, "round,accuracy,macro_f1,mean_local_loss,kl,server_seconds,client_seconds,bytes_up,"
                                  "bytes_down,fallback,prototypes_none_correct\n");
    for (int i = 0; i < rounds; i++) {
        flce_round_metrics *m = &E->metrics[i];
        n += (size_t)snprintf(b + n, cap - n, "%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%lld,%lld,%d,%d\n", m->round, m->acc,
                              m->macro_f1, m->mean_loss, m->kl, m->server_s, m->client_s, (long long)m->bytes_up,
                              (long long)m->bytes_down, m->fallback, m->proto_nocorrect);
    }
    flce_status st = write_text(E, "metrics.csv", b, e);
    free(b);
    return st;
}

static flce_status pwrite_all(int fd, const void *p, size_t len, size_t off, const char *what, flce_err *e) {
    const char *c = p;
    while (len) {
        ssize_t w = pwrite(fd, c, len, (off_t)off);
        if (w <= 0) return flce_fail(e, FLCE_ERR_IO, "%s: write failed: %s", what, strerror(errno));
        c += w, len -= (size_t)w, off += (size_t)w;
    }
    return FLCE_OK;
}

/* A full-size .npy file filled with `fill` (one element), open for in-place writes of its
 * rows: a killed run leaves a valid trace whose later rounds are empty. */
static flce_status npy_prealloc(engine *E, const char *name, flce_npy_dtype dt, int ndim, const int64_t *shape,
                                const void *fill, int keep, int *fd, size_t *off, flce_err *e) {
    char p[1200];
    snprintf(p, sizeof p, "%s/trace/%s", E->dir, name);
    unsigned char hdr[640];
    size_t hl = flce_npy_header(dt, ndim, shape, hdr, sizeof hdr), item = flce_npy_itemsize(dt);
    size_t count = 1;
    for (int i = 0; i < ndim; i++) count *= (size_t)shape[i];
    *off = hl;
    struct stat sb;
    if (keep && stat(p, &sb) == 0 && (size_t)sb.st_size == hl + count * item) { /* --resume: reuse it */
        *fd = open(p, O_RDWR);
        if (*fd < 0) return flce_fail(e, FLCE_ERR_IO, "%s: cannot open: %s", p, strerror(errno));
        return FLCE_OK;
    }
    char tmp[1210];
    snprintf(tmp, sizeof tmp, "%s.tmp", p);
    int f = open(tmp, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (f < 0) return flce_fail(e, FLCE_ERR_IO, "%s: cannot create: %s", tmp, strerror(errno));
    flce_status st = pwrite_all(f, hdr, hl, 0, p, e);
    size_t chunk = 1 << 16;
    unsigned char *buf = malloc(chunk * item);
    if (!buf) st = flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", p);
    for (size_t i = 0; buf && i < chunk; i++) memcpy(buf + i * item, fill, item);
    for (size_t done = 0; !st && done < count; done += chunk) {
        size_t nn = count - done < chunk ? count - done : chunk;
        st = pwrite_all(f, buf, nn * item, hl + done * item, p, e);
    }
    free(buf);
    if (!st && rename(tmp, p) != 0) st = flce_fail(e, FLCE_ERR_IO, "%s: cannot rename: %s", p, strerror(errno));
    if (st) {
        close(f);
        remove(tmp);
        return st;
    }
    *fd = f;
    return FLCE_OK;
}

/* state.bin: what --resume needs: the rounds done, the global model, the server state and
 * the metrics so far. Written atomically after every round. */
#define STATE_MAGIC 0x31534c46u /* "FLS1" */

static flce_status save_state(engine *E, int done, flce_err *e) {
    size_t sz = 16 + E->S * 4 + (size_t)E->C * E->d * 8 + (size_t)E->C + (size_t)E->n * 8 + (size_t)done * sizeof(flce_round_metrics);
    unsigned char *b = malloc(sz), *p = b;
    if (!b) return flce_fail(e, FLCE_ERR_NOMEM, "state: out of memory");
    uint32_t hdr[4] = {STATE_MAGIC, (uint32_t)done, (uint32_t)E->S, (uint32_t)E->n};
    memcpy(p, hdr, 16), p += 16;
    memcpy(p, E->global, E->S * 4), p += E->S * 4;
    memcpy(p, E->g, (size_t)E->C * E->d * 8), p += (size_t)E->C * E->d * 8;
    memcpy(p, E->has_g, (size_t)E->C), p += E->C;
    memcpy(p, E->contrib_sum, (size_t)E->n * 8), p += (size_t)E->n * 8;
    memcpy(p, E->metrics, (size_t)done * sizeof(flce_round_metrics));
    char path[1200];
    snprintf(path, sizeof path, "%s/state.bin", E->dir);
    flce_status st = flce_write_file_atomic(path, b, sz, e);
    free(b);
    return st;
}

static flce_status load_state(engine *E, int *done, flce_err *e) {
    char path[1200];
    snprintf(path, sizeof path, "%s/state.bin", E->dir);
    FILE *f = fopen(path, "rb");
    if (!f) return flce_fail(e, FLCE_ERR_ARG, "--resume: %s has no state.bin (nothing to continue)", E->dir);
    uint32_t hdr[4];
    flce_status st = FLCE_OK;
    if (fread(hdr, 4, 4, f) != 4 || hdr[0] != STATE_MAGIC || hdr[2] != (uint32_t)E->S || hdr[3] != (uint32_t)E->n ||
        hdr[1] > (uint32_t)E->T)
        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: not a state file of this configuration", path);
    else {
        *done = (int)hdr[1];
        size_t want = E->S * 4;
        int ok = fread(E->global, 1, want, f) == want;
        ok = ok && fread(E->g, 8, (size_t)E->C * E->d, f) == (size_t)E->C * E->d;
        ok = ok && fread(E->has_g, 1, (size_t)E->C, f) == (size_t)E->C;
        ok = ok && fread(E->contrib_sum, 8, (size_t)E->n, f) == (size_t)E->n;
        ok = ok && fread(E->metrics, sizeof(flce_round_metrics), (size_t)*done, f) == (size_t)*done;
        if (!ok) st = flce_fail(e, FLCE_ERR_FORMAT, "%s: truncated", path);
    }
    fclose(f);
    return st;
}

/* ---- set-up --------------------------------------------------------------------------- */
static flce_status validate(const flce_run_cfg *c, const algo_vt **algo, flce_err *e) {
    *algo = NULL;
    for (size_t i = 0; i < sizeof ALGOS / sizeof ALGOS[0]; i++)
        if (!strcmp(c->algo, ALGOS[i].name)) *algo = &ALGOS[i];
    if (!*algo) return flce_fail(e, FLCE_ERR_ARG, "--algo '%s': unknown (flce, fedavg, fedsv, gtg)", c->algo);
    int abl = c->ablate.no_mass || c->ablate.no_velocity || c->ablate.no_momentum || c->ablate.no_completion || c->ablate_cl;
    if (abl && strcmp(c->algo, "flce")) return flce_fail(e, FLCE_ERR_ARG, "--ablate applies to --algo flce only");
    if (c->clients < 2) return flce_fail(e, FLCE_ERR_ARG, "--clients %d: must be at least 2", c->clients);
    if (c->per_round < 1 || c->per_round > c->clients)
        return flce_fail(e, FLCE_ERR_ARG, "--per-round %d: must be between 1 and --clients (%d)", c->per_round, c->clients);
    if (c->per_round > 32) return flce_fail(e, FLCE_ERR_ARG, "--per-round %d: at most 32", c->per_round);
    if ((*algo)->shapley && !c->shapley_mc && c->per_round > 12 && !strcmp(c->algo, "fedsv"))
        return flce_fail(e, FLCE_ERR_ARG, "--per-round %d: exact Shapley needs at most 12 (use --shapley mc)", c->per_round);
    if ((*algo)->shapley && c->per_round > 20) return flce_fail(e, FLCE_ERR_ARG, "--per-round %d: Shapley methods take at most 20", c->per_round);
    if (c->rounds < 1) return flce_fail(e, FLCE_ERR_ARG, "--rounds %d: must be at least 1", c->rounds);
    if (c->epochs < 1) return flce_fail(e, FLCE_ERR_ARG, "--epochs %d: must be at least 1", c->epochs);
    if (c->batch < 2 || c->batch > 4096) return flce_fail(e, FLCE_ERR_ARG, "--batch %d: must be 2..4096", c->batch);
    if (!c->part.iid && !(c->part.dirichlet > 0)) return flce_fail(e, FLCE_ERR_ARG, "--dirichlet %g: must be > 0", c->part.dirichlet);
    if (!(c->lr > 0)) return flce_fail(e, FLCE_ERR_ARG, "--lr %g: must be > 0", c->lr);
    if (!(c->lambda >= 0)) return flce_fail(e, FLCE_ERR_ARG, "--lambda %g: must be >= 0", c->lambda);
    if (!(c->tau > 0)) return flce_fail(e, FLCE_ERR_ARG, "--tau %g: must be > 0", c->tau);
    if (c->mc_perms < 1) return flce_fail(e, FLCE_ERR_ARG, "--mc-perms %d: must be at least 1", c->mc_perms);
    if (c->train_subset < 0 || c->test_subset < 0 || c->val_size < 0)
        return flce_fail(e, FLCE_ERR_ARG, "subset and validation sizes must be positive");
    if (c->part.label_noise < 0 || c->part.label_noise > 1) return flce_fail(e, FLCE_ERR_ARG, "--label-noise %g: must be in [0, 1]", c->part.label_noise);
    if (c->part.feature_noise < 0) return flce_fail(e, FLCE_ERR_ARG, "--feature-noise %g: must be >= 0", c->part.feature_noise);
    if (strcmp(c->backend, "cpu") && strcmp(c->backend, "reference"))
        return flce_fail(e, FLCE_ERR_ARG, "--backend '%s': unknown or not built (cpu, reference)", c->backend);
    return FLCE_OK;
}

/* An existing run directory: refuse unless --force (start over) or --resume (continue). */
static flce_status prepare_dir(engine *E, flce_err *e) {
    const flce_run_cfg *c = E->cfg;
    snprintf(E->dir, sizeof E->dir, "%s", c->out);
    struct stat sb;
    char p[1200];
    snprintf(p, sizeof p, "%s/config.json", E->dir);
    int exists = stat(p, &sb) == 0;
    if (c->resume) {
        if (!exists) return flce_fail(e, FLCE_ERR_ARG, "--resume: %s holds no run (no config.json)", E->dir);
    } else if (exists && !c->force) {
        return flce_fail(e, FLCE_ERR_ARG, "--out %s already holds a run (use --resume to continue it or --force to overwrite)", E->dir);
    }
    if (mkdir(E->dir, 0755) != 0 && errno != EEXIST)
        return flce_fail(e, FLCE_ERR_IO, "--out %s: cannot create: %s", E->dir, strerror(errno));
    snprintf(p, sizeof p, "%s/trace", E->dir);
    if (mkdir(p, 0755) != 0 && errno != EEXIST) return flce_fail(e, FLCE_ERR_IO, "%s: cannot create: %s", p, strerror(errno));
    if (c->force && !c->resume) { /* start over: nothing of the old run may survive */
        const char *old[] = {"state.bin", "metrics.csv", "contributions.csv", "digests.txt", "model.safetensors",
                             "trace/prototypes.npy", "trace/selected.npy", "trace/Q.npy", "trace/X_completed.npy",
                             "trace/contributions.csv", "trace/class_weights.npy", "trace/completion.json", "trace/data_sizes.npy"};
        for (size_t i = 0; i < sizeof old / sizeof old[0]; i++) {
            snprintf(p, sizeof p, "%s/%s", E->dir, old[i]);
            remove(p);
        }
    }
    return FLCE_OK;
}

static flce_status setup_data(engine *E, flce_err *e) {
    const flce_run_cfg *c = E->cfg;
    flce_status st = flce_dataset_load(&E->ds, c->dataset, c->data_dir, c->seed, e);
    if (st == FLCE_ERR_IO) st = FLCE_ERR_ARG; /* a missing folder or file: a usage error, before any work */
    if (st) return st;
    if (c->train_subset && (st = flce_dataset_subset(&E->ds, 0, c->train_subset, c->seed, e))) return st;
    if (c->test_subset && (st = flce_dataset_subset(&E->ds, 1, c->test_subset, c->seed, e))) return st;
    flce_split *tr = &E->ds.train;
    E->C = tr->classes;
    E->CHW = tr->c * tr->h * tr->w;
    /* the server's validation set (Shapley utility): seeded, stratified, excluded from every
     * client whatever the algorithm, so that all methods share one partition */
    int nv = c->val_size ? c->val_size : (tr->n / 10 < 1000 ? tr->n / 10 : 1000);
    if (nv >= tr->n - c->clients) return flce_fail(e, FLCE_ERR_ARG, "--val-size %d: leaves too little training data", nv);
    int *counts = flce_calloc((size_t)E->C, sizeof *counts), *pick = malloc(sizeof *pick * (size_t)tr->n);
    int *members = malloc(sizeof *members * (size_t)tr->n);
    uint8_t *isval = flce_calloc((size_t)tr->n, 1);
    E->val_idx = malloc(sizeof *E->val_idx * (size_t)(nv ? nv : 1));
    if (!counts || !pick || !members || !isval || !E->val_idx) {
        free(counts), free(pick), free(members), free(isval);
        return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
    }
    flce_split_class_counts(tr, counts);
    int given = 0;
    for (int cl = 0; cl < E->C && nv; cl++) {
        int q = (int)((int64_t)nv * counts[cl] / tr->n), m = 0;
        if (cl == E->C - 1) q = nv - given;
        if (q > counts[cl]) q = counts[cl];
        for (int i = 0; i < tr->n; i++)
            if (tr->labels[i] == cl) members[m++] = i;
        flce_rng r;
        flce_rng_init(&r, c->seed, FLCE_RNG_VALSET, 0, (uint32_t)cl);
        flce_rng_sample(&r, m, q, pick);
        for (int j = 0; j < q; j++) isval[members[pick[j]]] = 1;
        given += q;
    }
    E->n_val = 0;
    for (int i = 0; i < tr->n; i++)
        if (isval[i]) E->val_idx[E->n_val++] = i;
    /* the clients' split: the training samples outside the validation set */
    flce_split rest = *tr;
    rest.n = tr->n - E->n_val;
    rest.labels = malloc((size_t)(rest.n > 0 ? rest.n : 1));
    if (!rest.labels) return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
    int *map = members;
    for (int i = 0, o = 0; i < tr->n; i++)
        if (!isval[i]) rest.labels[o] = tr->labels[i], map[o++] = i;
    st = flce_partition_make(&E->part, &rest, c->clients, &c->part, c->seed, e);
    free(rest.labels);
    if (!st) /* partition indices are into `rest`: map them to training indices */
        for (int64_t j = 0; j < E->part.offsets[c->clients]; j++) E->part.index[j] = map[E->part.index[j]];
    free(counts), free(pick), free(members), free(isval);
    if (st) return st;
    /* normalised inputs; a noisy client's samples get their feature noise here, keyed by
     * sample index (the same noise every epoch: it belongs to the data) */
    E->train_x = malloc(sizeof(float) * (size_t)tr->n * E->CHW);
    E->test_x = malloc(sizeof(float) * (size_t)E->ds.test.n * E->CHW);
    E->test_y = malloc(sizeof(int32_t) * (size_t)E->ds.test.n);
    E->entry_y = malloc(sizeof(int32_t) * (size_t)(E->part.offsets[c->clients] + 1));
    E->sizes = malloc(sizeof(double) * (size_t)c->clients);
    E->held = flce_calloc((size_t)c->clients, sizeof(int));
    if (!E->train_x || !E->test_x || !E->test_y || !E->entry_y || !E->sizes || !E->held)
        return flce_fail(e, FLCE_ERR_NOMEM, "out of memory for the dataset");
    for (int i = 0; i < tr->n; i++) flce_dataset_sample_f32(&E->ds, tr, i, E->train_x + (size_t)i * E->CHW);
    for (int i = 0; i < E->ds.test.n; i++) {
        flce_dataset_sample_f32(&E->ds, &E->ds.test, i, E->test_x + (size_t)i * E->CHW);
        E->test_y[i] = E->ds.test.labels[i];
    }
    int *cc = flce_calloc((size_t)E->C, sizeof *cc);
    for (int k = 0; k < c->clients; k++) {
        float sd = E->part.feature_std[k];
        E->sizes[k] = (double)(E->part.offsets[k + 1] - E->part.offsets[k]);
        flce_partition_counts(&E->part, k, cc);
        for (int cl = 0; cl < E->C; cl++) E->held[k] += cc[cl] > 0;
        for (int64_t j = E->part.offsets[k]; j < E->part.offsets[k + 1]; j++) {
            E->entry_y[j] = E->part.labels[j];
            if (sd <= 0) continue;
            flce_rng r;
            flce_rng_init(&r, c->seed, FLCE_RNG_FEATURE_NOISE, 0, (uint32_t)E->part.index[j]);
            float *x = E->train_x + (size_t)E->part.index[j] * E->CHW;
            for (int q = 0; q < E->CHW; q++) x[q] = x[q] + (float)(flce_rng_normal(&r) * sd);
        }
    }
    free(cc);
    E->n_test = E->ds.test.n;
    return FLCE_OK;
}

static void engine_free(engine *E) {
    if (E->be) {
        flce_model_free(&E->m);
        if (E->be->destroy) E->be->destroy(E->be);
    }
    flce_dataset_free(&E->ds);
    flce_partition_free(&E->part);
    free(E->train_x), free(E->entry_y), free(E->val_idx), free(E->test_x), free(E->test_y), free(E->sizes), free(E->held);
    free(E->global), free(E->states), free(E->newg), free(E->sel), free(E->protos), free(E->present), free(E->losses);
    free(E->omega), free(E->rc), free(E->g), free(E->has_g), free(E->contrib_sum), free(E->bx), free(E->logits), free(E->feat);
    free(E->by), free(E->perm), free(E->vcache), free(E->metrics);
    if (E->fd_proto > 0) close(E->fd_proto);
    if (E->fd_sel > 0) close(E->fd_sel);
}

/* Final contributions: FLCE from its trace by the evaluator (so that `flce eval DIR/trace`
 * gives the same numbers); the others from their running sums (Shapley values clamped at 0). */
static flce_status final_contributions(engine *E, double *CE, double *comp_s, flce_err *e) {
    int n = E->n;
    if (strcmp(E->algo->name, "flce")) {
        uint8_t *all = malloc((size_t)n);
        if (!all) return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
        for (int k = 0; k < n; k++) {
            CE[k] = E->algo->shapley ? fmax(0, E->contrib_sum[k]) : E->contrib_sum[k];
            all[k] = 1;
        }
        flce_normalize(CE, all, n);
        free(all);
        return FLCE_OK;
    }
    char p[1200];
    flce_npy pr = {0}, se = {0};
    snprintf(p, sizeof p, "%s/trace/prototypes.npy", E->dir);
    flce_status st = flce_npy_read(p, &pr, e);
    snprintf(p, sizeof p, "%s/trace/selected.npy", E->dir);
    if (!st) st = flce_npy_read(p, &se, e);
    if (!st) {
        flce_trace tr = {E->T, n, E->C, E->d, pr.data, se.data, NULL, E->cfg->class_weights};
        flce_completion_cfg cc;
        flce_completion_cfg_default(&cc);
        cc.seed = E->cfg->seed;
        flce_eval_result res;
        double t0 = now_s();
        st = flce_eval_trace(&tr, &E->cfg->ablate, &cc, &res, e);
        *comp_s = now_s() - t0;
        if (!st) {
            memcpy(CE, res.CE, sizeof *CE * (size_t)n);
            int64_t shp[3] = {E->T, n, E->C};
            snprintf(p, sizeof p, "%s/trace/Q.npy", E->dir);
            st = flce_npy_write(p, FLCE_NPY_F64, 3, shp, res.Q, e);
            snprintf(p, sizeof p, "%s/trace/X_completed.npy", E->dir);
            if (!st) st = flce_npy_write(p, FLCE_NPY_F64, 3, shp, res.X, e);
            flce_eval_result_free(&res);
        }
    }
    flce_npy_free(&pr);
    flce_npy_free(&se);
    return st;
}

static uint64_t file_digest(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    XXH3_state_t *s = XXH3_createState();
    XXH3_64bits_reset(s);
    unsigned char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) XXH3_64bits_update(s, buf, n);
    fclose(f);
    uint64_t d = XXH3_64bits_digest(s);
    XXH3_freeState(s);
    return d;
}

/* ---- the run -------------------------------------------------------------------------- */
flce_status flce_run(const flce_run_cfg *cfg, flce_progress_fn progress, void *ud, flce_run_summary *sum, flce_err *e) {
    engine E0, *E = &E0;
    memset(E, 0, sizeof *E);
    memset(sum, 0, sizeof *sum);
    E->cfg = cfg;
    E->fd_proto = E->fd_sel = -1;
    flce_status st = validate(cfg, &E->algo, e);
    if (st) return st;
    if ((st = setup_data(E, e))) goto out;
    if ((st = prepare_dir(E, e))) goto out;
    E->n = cfg->clients, E->K = cfg->per_round, E->T = cfg->rounds, E->d = FLCE_FEAT;
    E->be = flce_backend_create(cfg->backend, e);
    if (!E->be) {
        st = FLCE_ERR_ARG;
        goto out;
    }
    snprintf(sum->device, sizeof sum->device, "%s", E->be->device);
    int MB = cfg->batch > cfg->eval_batch ? cfg->batch : cfg->eval_batch;
    if ((st = flce_model_create(&E->m, E->be, E->ds.train.c, E->ds.train.h, E->ds.train.w, E->C, MB, e))) {
        E->be->destroy(E->be);
        E->be = NULL;
        goto out;
    }
    flce_model_init(&E->m, cfg->seed);
    E->S = flce_model_state_size(&E->m);
    int n = E->n, K = E->K, C = E->C, d = E->d;
    int64_t maxk = 0;
    for (int k = 0; k < n; k++) maxk = E->part.offsets[k + 1] - E->part.offsets[k] > maxk ? E->part.offsets[k + 1] - E->part.offsets[k] : maxk;
    E->global = malloc(E->S * 4), E->states = malloc(E->S * 4 * (size_t)K), E->newg = malloc(E->S * 4);
    E->sel = malloc(sizeof(int) * (size_t)K), E->protos = malloc(sizeof(float) * (size_t)n * C * d);
    E->present = malloc((size_t)n * C), E->losses = malloc(sizeof(double) * (size_t)K);
    E->omega = malloc(sizeof(double) * (size_t)K), E->rc = malloc(sizeof(double) * (size_t)K);
    E->g = flce_calloc((size_t)C * d, sizeof(double)), E->has_g = flce_calloc((size_t)C, 1);
    E->contrib_sum = flce_calloc((size_t)n, sizeof(double));
    E->bx = malloc(sizeof(float) * (size_t)MB * E->CHW), E->by = malloc(sizeof(int32_t) * (size_t)MB);
    E->logits = malloc(sizeof(float) * (size_t)MB * C), E->feat = malloc(sizeof(float) * (size_t)MB * d);
    E->perm = malloc(sizeof(int) * (size_t)(maxk + 1)), E->vcache = malloc(sizeof(double) * ((size_t)1 << (K < 21 ? K : 1)));
    E->metrics = flce_calloc((size_t)E->T, sizeof(flce_round_metrics));
    if (!E->global || !E->states || !E->newg || !E->sel || !E->protos || !E->present || !E->losses || !E->omega || !E->rc ||
        !E->g || !E->has_g || !E->contrib_sum || !E->bx || !E->by || !E->logits || !E->feat || !E->perm || !E->vcache ||
        !E->metrics) {
        st = flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
        goto out;
    }
    flce_model_get_state(&E->m, E->global);
    uint64_t d_init = flce_digest(E->global, E->S * 4), d_part = flce_partition_digest(&E->part);

    char cfgjson[8192], p[1200];
    json_config(E, cfgjson, sizeof cfgjson);
    int done = 0;
    if (cfg->resume) {
        snprintf(p, sizeof p, "%s/config.json", E->dir);
        FILE *f = fopen(p, "rb");
        char old[8192] = {0};
        size_t got = f ? fread(old, 1, sizeof old - 1, f) : 0;
        if (f) fclose(f);
        if (got == 0 || strcmp(old, cfgjson) != 0) {
            st = flce_fail(e, FLCE_ERR_ARG, "--resume: the settings differ from those of the run in %s (see its config.json)", E->dir);
            goto out;
        }
        if ((st = load_state(E, &done, e))) goto out;
    } else if ((st = write_text(E, "config.json", cfgjson, e))) goto out;
    snprintf(p, sizeof p, "flce %s\nbackend %s\ndevice %s\n", FLCE_VERSION, E->be->name, E->be->device);
    write_text(E, "device.txt", p, NULL);

    /* the trace (FLCE): full-size files written in place round by round */
    if (E->algo->prototypes) {
        float nan = NAN;
        uint8_t zero = 0;
        int64_t sp[4] = {E->T, n, C, d}, ss[2] = {E->T, n}, sn[1] = {n};
        if ((st = npy_prealloc(E, "prototypes.npy", FLCE_NPY_F32, 4, sp, &nan, cfg->resume, &E->fd_proto, &E->proto_off, e)))
            goto out;
        if ((st = npy_prealloc(E, "selected.npy", FLCE_NPY_U8, 2, ss, &zero, cfg->resume, &E->fd_sel, &E->sel_off, e))) goto out;
        int64_t *sizes = malloc(sizeof(int64_t) * (size_t)n);
        for (int k = 0; k < n; k++) sizes[k] = (int64_t)E->sizes[k];
        snprintf(p, sizeof p, "%s/trace/data_sizes.npy", E->dir);
        st = flce_npy_write(p, FLCE_NPY_I64, 1, sn, sizes, e);
        free(sizes);
        if (st) goto out;
        if (cfg->class_weights) {
            int64_t sc[1] = {C};
            snprintf(p, sizeof p, "%s/trace/class_weights.npy", E->dir);
            if ((st = flce_npy_write(p, FLCE_NPY_F64, 1, sc, cfg->class_weights, e))) goto out;
        }
        char cj[256];
        snprintf(cj, sizeof cj, "{\"seed\": %llu, \"ablate\": \"%s%s%s%s\"}\n", (unsigned long long)cfg->seed,
                 cfg->ablate.no_mass ? "M " : "", cfg->ablate.no_velocity ? "V " : "", cfg->ablate.no_momentum ? "Q " : "",
                 cfg->ablate.no_completion ? "CMC" : "");
        if ((st = write_text(E, "trace/completion.json", cj, e))) goto out;
    }

    double t_start = now_s(), *Qd = malloc(sizeof(double) * (size_t)n), *run = malloc(sizeof(double) * (size_t)n);
    uint8_t *all = malloc((size_t)n), *selrow = malloc((size_t)n);
    if (!Qd || !run || !all || !selrow) {
        free(Qd), free(run), free(all), free(selrow);
        st = flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
        goto out;
    }
    flce_data_shares(E->sizes, NULL, C, n, Qd);
    for (int k = 0; k < n; k++) all[k] = 1;
    for (E->t = done; E->t < E->T && !st; E->t++) {
        flce_round_metrics *m = &E->metrics[E->t];
        memset(m, 0, sizeof *m);
        m->round = E->t + 1;
        flce_rng r;
        flce_rng_init(&r, cfg->seed, FLCE_RNG_SELECT, (uint32_t)E->t, 0);
        flce_rng_sample(&r, n, K, E->sel);
        for (int i = 1; i < K; i++) /* ascending client order: the aggregation order */
            for (int j = i; j > 0 && E->sel[j - 1] > E->sel[j]; j--) {
                int tmp = E->sel[j];
                E->sel[j] = E->sel[j - 1];
                E->sel[j - 1] = tmp;
            }
        for (size_t i = 0; i < (size_t)n * C * d; i++) E->protos[i] = NAN;
        memset(E->present, 0, (size_t)n * C);
        E->nocorrect = 0;
        E->fallback = 0;
        double t0 = now_s();
        for (int i = 0; i < K && !st; i++) st = client_update(E, i, e);
        if (st) break;
        m->client_s = now_s() - t0;
        t0 = now_s();
        if ((st = E->algo->server(E, e))) break;
        m->server_s = now_s() - t0;
        for (int i = 0; i < K; i++) E->contrib_sum[E->sel[i]] += E->rc[i];
        memcpy(E->global, E->newg, E->S * 4);
        /* bytes: the model down to every selected client, models and prototypes up */
        int nprot = 0;
        for (size_t i = 0; i < (size_t)n * C; i++) nprot += E->present[i];
        m->bytes_down = (int64_t)K * (int64_t)E->S * 4;
        m->bytes_up = (int64_t)K * (int64_t)E->S * 4 + (int64_t)nprot * d * 4;
        m->fallback = E->fallback;
        m->proto_nocorrect = E->nocorrect;
        double ls = 0;
        for (int i = 0; i < K; i++) ls += E->losses[i];
        m->mean_loss = ls / K;
        flce_model_set_state(&E->m, E->global);
        if ((st = evaluate(E, E->test_x, E->test_y, E->n_test, &m->acc, &m->macro_f1, NULL, e))) break;
        for (int k = 0; k < n; k++) run[k] = E->algo->shapley ? fmax(0, E->contrib_sum[k]) : E->contrib_sum[k];
        flce_normalize(run, all, n);
        m->kl = flce_kl(run, Qd, n, NULL);
        if (E->algo->prototypes) {
            for (int k = 0; k < n; k++) selrow[k] = 0;
            for (int i = 0; i < K; i++) {
                int k = E->sel[i];
                selrow[k] = 1;
                st = pwrite_all(E->fd_proto, E->protos + (size_t)k * C * d, sizeof(float) * (size_t)C * d,
                                E->proto_off + sizeof(float) * ((size_t)E->t * n + k) * C * d, "trace/prototypes.npy", e);
                if (st) break;
            }
            if (!st) st = pwrite_all(E->fd_sel, selrow, (size_t)n, E->sel_off + (size_t)E->t * n, "trace/selected.npy", e);
            if (st) break;
        }
        if ((st = write_metrics(E, E->t + 1, e))) break;
        if ((st = save_state(E, E->t + 1, e))) break;
        if (progress) progress(ud, m, E->T, now_s() - t_start);
        const char *kill = getenv("FLCE_TEST_KILL_AFTER"); /* tests: die as a SIGKILL would, after round N */
        if (kill && atoi(kill) == E->t + 1) _exit(137);
    }
    free(Qd), free(run), free(all), free(selrow);
    if (st) goto out;

    /* the end: contributions, checkpoint, digests */
    double *CE = malloc(sizeof(double) * (size_t)n), comp_s = 0;
    if (!CE) {
        st = flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
        goto out;
    }
    if ((st = final_contributions(E, CE, &comp_s, e))) {
        free(CE);
        goto out;
    }
    size_t cap = 64 + (size_t)n * 48, len = 0;
    char *csv = malloc(cap);
    len += (size_t)snprintf(csv, cap, "client,contribution\n");
    for (int k = 0; k < n; k++) len += (size_t)snprintf(csv + len, cap - len, "%d,%.17g\n", k, CE[k]);
    st = write_text(E, "contributions.csv", csv, e);
    free(csv);
    flce_model_set_state(&E->m, E->global);
    snprintf(p, sizeof p, "%s/model.safetensors", E->dir);
    if (!st) st = flce_model_save(&E->m, p, e);
    double *Qd2 = malloc(sizeof(double) * (size_t)n), *shares = malloc(sizeof(double) * (size_t)n);
    flce_data_shares(E->sizes, NULL, C, n, shares);
    sum->kl = flce_kl(CE, shares, n, NULL);
    flce_data_shares(E->sizes, E->held, C, n, Qd2);
    sum->kl_div = flce_kl(CE, Qd2, n, NULL);
    if (!st) {
        char dg[1024], h[6][17];
        flce_digest_hex(d_part, h[0]);
        flce_digest_hex(d_init, h[1]);
        flce_digest_hex(flce_digest(E->global, E->S * 4), h[2]);
        snprintf(p, sizeof p, "%s/trace/prototypes.npy", E->dir);
        uint64_t tp = E->algo->prototypes ? file_digest(p) : 0;
        snprintf(p, sizeof p, "%s/trace/selected.npy", E->dir);
        uint64_t ts = E->algo->prototypes ? file_digest(p) : 0;
        flce_digest_hex(tp ^ (ts * 0x9E3779B97F4A7C15ull), h[3]);
        flce_digest_hex(flce_digest(CE, sizeof(double) * (size_t)n), h[4]);
        snprintf(dg, sizeof dg,
                 "partition %s\ninitial_model %s\nfinal_model %s\ntrace %s\ncontributions %s\n", h[0], h[1], h[2],
                 E->algo->prototypes ? h[3] : "none", h[4]);
        st = write_text(E, "digests.txt", dg, e);
    }
    free(CE), free(Qd2), free(shares);
    int w = E->T < 10 ? E->T : 10;
    for (int i = E->T - w; i < E->T; i++) {
        sum->final_acc += E->metrics[i].acc / w;
        sum->final_f1 += E->metrics[i].macro_f1 / w;
    }
    for (int i = 0; i < E->T; i++) sum->server_s += E->metrics[i].server_s, sum->client_s += E->metrics[i].client_s;
    sum->completion_s = comp_s;
    sum->rounds_done = E->T;
out:
    engine_free(E);
    return st;
}
