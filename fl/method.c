/* method.c: the pieces the methods share (method.h): data-size weights, the weighted sum of
 * uploads (the backends' aggregation order), FedAvg's rule, the paper's cosine rule for
 * contributions, the parameters of a state vector and the BatchNorm rule for methods that step
 * in parameter space, and the Shapley utility v(S) of FedSV and GTG. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "method.h"
#include "ops.h"
#include "baselines.h"
#include "engine_int.h"

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

void flce_eng_fedavg(engine *E) {
    flce_eng_data_size_weights(E, E->omega);
    if (flce_eng_setting(E, &flce_setting_aggregation) == 1) /* the released code's plain mean */
        for (int i = 0; i < E->K; i++) E->omega[i] = 1.0 / E->K;
    int slots[32];
    for (int i = 0; i < E->K; i++) slots[i] = i;
    flce_eng_aggregate(E, E->omega, E->K, slots, E->newg);
}

flce_status flce_eng_fedavg_cosine(engine *E, flce_err *e) {
    (void)e;
    flce_eng_fedavg(E);
    flce_eng_cosine_rule(E, E->newg, NULL, E->rc);
    return FLCE_OK;
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

const char *const FLCE_RULE_NAMES[FLCE_NRULES] = {"cos_global", "cos_mean", "cos_model", "weight", "l2_update"};

/* The other readings of the cosine rule (method.h): against the unweighted mean of the
 * updates, and model to model; and the released code's L2 norm of each update; into E->rules
 * [K][FLCE_NRULES] (columns 1, 2 and 4). */
static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void cosine_readings(engine *E, const float *newg, const float *dirs) {
    double t0 = now_s();
    int K = E->K;
    size_t P = E->P;
    double *mean = flce_calloc(P ? P : 1, sizeof(double)), c1[32], c2[32], c3[32];
    uint8_t pr[32];
    if (!mean) { /* out of memory: the readings of this round unknown */
        for (int i = 0; i < K; i++)
            E->rules[i * FLCE_NRULES + FLCE_RULE_COS_MEAN] = E->rules[i * FLCE_NRULES + FLCE_RULE_COS_MODEL] = E->rules[i * FLCE_NRULES + FLCE_RULE_L2] = NAN;
        return;
    }
    for (int i = 0; i < K; i++) { /* mean_j d_j, clients in slot order */
        const float *s = E->states + (size_t)i * E->S, *dv = dirs ? dirs + (size_t)i * P : NULL;
        for (size_t j = 0, o = 0; j < E->S; j++) {
            if (!E->trainable[j]) continue;
            mean[o] += dv ? (double)dv[o] : (double)s[j] - E->global[j];
            o++;
        }
    }
    double nm = 0, ng = 0;
    for (size_t o = 0; o < P; o++) mean[o] /= K, nm += mean[o] * mean[o];
    for (size_t j = 0; j < E->S; j++)
        if (E->trainable[j]) ng += (double)newg[j] * newg[j];
    for (int i = 0; i < K; i++) {
        const float *s = E->states + (size_t)i * E->S, *dv = dirs ? dirs + (size_t)i * P : NULL;
        double dm = 0, nd = 0, dw = 0, nw = 0;
        for (size_t j = 0, o = 0; j < E->S; j++) {
            if (!E->trainable[j]) continue;
            double a = dv ? (double)dv[o] : (double)s[j] - E->global[j];
            dm += a * mean[o], nd += a * a;
            dw += (double)s[j] * newg[j], nw += (double)s[j] * s[j];
            o++;
        }
        c1[i] = nm > 0 && nd > 0 ? fmax(0, dm / (sqrt(nm) * sqrt(nd))) : 0;
        c2[i] = ng > 0 && nw > 0 ? fmax(0, dw / (sqrt(ng) * sqrt(nw))) : 0;
        double u = 0; /* the released code's: every float of the state, the local model less the global */
        for (size_t j = 0; j < E->S; j++) u += ((double)s[j] - E->global[j]) * ((double)s[j] - E->global[j]);
        c3[i] = sqrt(u);
        pr[i] = 1;
    }
    flce_normalize(c1, pr, K);
    flce_normalize(c2, pr, K);
    flce_normalize(c3, pr, K); /* each norm over their sum, as released (equal shares where every update is 0) */
    for (int i = 0; i < K; i++)
        E->rules[i * FLCE_NRULES + FLCE_RULE_COS_MEAN] = c1[i], E->rules[i * FLCE_NRULES + FLCE_RULE_COS_MODEL] = c2[i], E->rules[i * FLCE_NRULES + FLCE_RULE_L2] = c3[i];
    free(mean);
    E->rules_s += now_s() - t0;
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
    if (E->rules) {
        for (int i = 0; i < E->K; i++) E->rules[i * FLCE_NRULES + FLCE_RULE_COS_GLOBAL] = rc[i];
        cosine_readings(E, newg, dirs);
    }
}

void flce_eng_record_readings(engine *E) {
    if (!E->rules) return;
    double t0 = now_s(), before = E->rules_s, scratch[32];
    flce_eng_cosine_rule(E, E->newg, NULL, scratch);
    E->rules_s = before + (now_s() - t0);
}

void flce_eng_pv_close(flce_param_view *v) {
    free(v->g), free(v->st), free(v->out);
    v->g = v->st = v->out = NULL;
}

flce_status flce_eng_pv_open(engine *E, flce_param_view *v, const char *who, flce_err *e) {
    v->g = malloc(sizeof(float) * E->P), v->out = malloc(sizeof(float) * E->P);
    v->st = malloc(sizeof(float) * E->P * (size_t)E->K);
    if (!v->g || !v->st || !v->out) {
        flce_eng_pv_close(v);
        return flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", who);
    }
    flce_eng_params(E, E->global, v->g);
    for (int i = 0; i < E->K; i++) flce_eng_params(E, E->states + (size_t)i * E->S, v->st + (size_t)i * E->P);
    return FLCE_OK;
}

void flce_eng_utility_reset(engine *E) {
    for (uint32_t i = 0; i < ((uint32_t)1 << E->K); i++) E->vcache[i] = NAN;
}

const flce_setting flce_setting_aggregation = {"aggregation", "size|mean", 0, 0, 0, 0, 0,
                                               "FedAvg family: the model aggregated weighted by data size (size, the text) or as a plain mean (mean, the released code)"};

const flce_setting flce_setting_utility = {"utility", "accuracy|loss", 0, 0, 0, 0, 0,
                                           "Shapley methods: the utility v(S), validation accuracy or minus the loss"};

/* the released FedSV measures v(S) on the test set (algorithms/fedsharplyavg.py 301-303, 337-338) */
const flce_setting flce_setting_utility_set = {"utility-set", "validation|test", 0, 0, 0, 0, 0,
                                               "Shapley methods: v(S) on the server's validation set (the text) or on the test set (test, the released FedSV)"};

double flce_eng_state_utility(engine *E, const float *state, void *ud) {
    flce_utility_ctx *u = ud;
    flce_model_set_state(&E->m, state);
    int test = flce_eng_setting(E, &flce_setting_utility_set) == 1;
    int B = E->cfg->eval_batch, nv = test ? E->n_test : E->n_val;
    int64_t right = 0;
    double loss = 0;
    for (int i0 = 0; i0 < nv; i0 += B) {
        int nb = nv - i0 < B ? nv - i0 : B;
        for (int i = 0; i < nb; i++)
            memcpy(E->bx + (size_t)i * E->CHW, test ? E->test_x + (size_t)(i0 + i) * E->CHW : E->train_x + (size_t)E->val_idx[i0 + i] * E->CHW,
                   sizeof(float) * (size_t)E->CHW);
        if (flce_model_eval(&E->m, nb, E->bx, E->logits, NULL, u->e)) {
            u->failed = 1;
            return 0;
        }
        for (int i = 0; i < nb; i++) {
            int p, y = test ? E->test_y[i0 + i] : E->ds.train.labels[E->val_idx[i0 + i]];
            loss += flce_eng_logit_loss(E->logits + (size_t)i * E->C, E->C, y, &p);
            right += p == y;
        }
    }
    return flce_eng_setting(E, &flce_setting_utility) == 1 ? -(nv ? loss / nv : 0) : (nv ? (double)right / nv : 0);
}

void flce_eng_coalition_weights(const engine *E, uint32_t mask, int *slots, double *w, int *k) {
    double s = 0;
    *k = 0;
    for (int i = 0; i < E->K; i++)
        if (mask >> i & 1) slots[*k] = i, w[*k] = E->sizes[E->sel[i]], s += w[(*k)++];
    for (int i = 0; i < *k; i++) w[i] /= s;
}

double flce_eng_utility(uint32_t mask, void *ud) {
    flce_utility_ctx *u = ud;
    engine *E = u->E;
    if (!isnan(E->vcache[mask])) return E->vcache[mask];
    int slots[32], k;
    double w[32];
    flce_eng_coalition_weights(E, mask, slots, w, &k);
    if (k) flce_eng_aggregate(E, w, k, slots, E->newg);
    else memcpy(E->newg, E->global, sizeof(float) * E->S);
    double v = flce_eng_state_utility(E, E->newg, ud);
    if (u->failed) return 0;
    E->vcache[mask] = v;
    return v;
}

flce_status flce_eng_evaluate(engine *E, flce_model *model, const float *x, const int32_t *y, int n, double *acc,
                              double *f1, double *loss, flce_err *e) {
    return eng_evaluate(E, model, x, y, n, acc, f1, loss, 0, e);
}

flce_status flce_eng_evaluate_client(engine *E, int k, double *acc, double *loss, flce_err *e) {
    int64_t lo = E->part.offsets[k], nk = E->part.offsets[k + 1] - lo;
    int B = E->cfg->eval_batch, C = E->C;
    int64_t right = 0;
    double ls = 0;
    for (int64_t i0 = 0; i0 < nk; i0 += B) {
        int nb = (int)(nk - i0 < B ? nk - i0 : B);
        for (int i = 0; i < nb; i++)
            memcpy(E->bx + (size_t)i * E->CHW, E->train_x + (size_t)E->part.index[lo + i0 + i] * E->CHW, sizeof(float) * (size_t)E->CHW);
        flce_status st = flce_model_eval(&E->m, nb, E->bx, E->logits, NULL, e);
        if (st) return st;
        for (int i = 0; i < nb; i++) {
            int y = E->entry_y[lo + i0 + i], p;
            ls += flce_eng_logit_loss(E->logits + (size_t)i * C, C, y, &p);
            right += p == y;
        }
    }
    *acc = nk ? (double)right / (double)nk : 0;
    *loss = nk ? ls / (double)nk : 0;
    return FLCE_OK;
}

void flce_eng_add_prox(engine *E, flce_model *m, const float *ref, float mu) {
    size_t o = 0;
    for (int i = 0; i < m->nparams; i++) {
        flce_param *p = &m->p[i];
        if (p->trainable) {
            float *w = E->dzx, *g = E->dzx + p->n;
            m->be->buf_read(m->be, p->w, 0, w, p->n * sizeof(float));
            m->be->buf_read(m->be, p->g, 0, g, p->n * sizeof(float));
            flce_prox_grad(p->n, g, w, ref + o, mu);
            m->be->buf_write(m->be, p->g, 0, g, p->n * sizeof(float));
        }
        o += p->n;
    }
}

int64_t flce_eng_client_size(const engine *E, int k) { return E->part.offsets[k + 1] - E->part.offsets[k]; }

int flce_eng_window_start(const engine *E) {
    int h = E->K / 2;
    return (E->t % ((E->n + h - 1) / h)) * h;
}

int flce_eng_in_window(const engine *E, int k) {
    if (!E->cfg->schedule_window) return 0;
    return (k - flce_eng_window_start(E) + E->n) % E->n < E->K / 2;
}

void flce_eng_gather(engine *E, int k, int64_t i0, int nb, int32_t *y) {
    int64_t lo = E->part.offsets[k] + i0;
    for (int i = 0; i < nb; i++) {
        memcpy(E->bx + (size_t)i * E->CHW, E->train_x + (size_t)E->part.index[lo + i] * E->CHW, sizeof(float) * (size_t)E->CHW);
        if (y) y[i] = E->entry_y[lo + i];
    }
}

double flce_eng_setting(const engine *E, const flce_setting *s) {
    /* a setting the method does not declare reads as its default, whatever the run sets for the
     * methods beside it (--as-released sets every method's): a shared piece it calls (flce_eng_fedavg's
     * --aggregation, flce_eng_utility's --utility-set) then computes what its config.json, which
     * lists its own settings only, says */
    return flce_method_declares(E->algo, s) ? flce_run_cfg_get(E->cfg, s) : s->def;
}

flce_status flce_eng_sgd(engine *E, int first, flce_err *e) {
    const flce_run_cfg *c = E->cfg;
    if (c->clip_norm > 0 && flce_model_clip(&E->m, c->clip_norm, e) < 0) return FLCE_ERR_NOMEM;
    flce_model_sgd(&E->m, (float)c->lr, (float)c->momentum, (float)c->weight_decay, first);
    return FLCE_OK;
}

flce_status flce_eng_sgd_step(engine *E, int nb, int first, float lambda, float tau, flce_losses *l, flce_err *e) {
    flce_status st = flce_model_forward_backward(&E->m, nb, E->bx, E->by, lambda, tau, l, e);
    return st ? st : flce_eng_sgd(E, first, e);
}
