/* flce.c: FLCE, the method of the paper (docs/flce.md), every equation from reference/:
 *   client: L_CE + lambda L_CL (eq:method.losscl; lambda = 0 under the ablation -CL), then one
 *           prototype per class (eq:method.z, flce_prototypes): the mean feature of the local
 *           samples of class c that the trained model classifies as c, uploaded with the model;
 *   server: class contribution momentum Q = mass x velocity from the prototypes
 *           (eq:method.prototype_m_norm .. eq:method.prototype_q, flce_round), aggregation
 *           weights from it (eq:method.aggregation_model, flce_aggregation_weights); this
 *           round's contribution sum_c b_c Q;
 *   final:  the whole trace evaluated as `flce eval` does (flce_eval_trace: completion of the
 *           unselected clients' momentum, eq:prototype_p_complemention, then the totals).
 * Settings: --lambda, --tau (L_CL); the completion's (--rank, --mu, ...) are flce eval's too
 * (flce_completion_cfg). State: the global prototypes g [C][d] of eq:method.prototype_m_norm and
 * whether each class has one yet, in aux_d ([C][d] then [C] as 0/1). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "method.h"
#include "npy.h"
#include "trace_io.h"

static const flce_setting LAMBDA = {"lambda", NULL, 1.0, 0, 1e6, 0, 0, "FLCE: weight of L_CL"};
static const flce_setting TAU = {"tau", NULL, 0.5, 0, 1e6, 1, 0, "FLCE: temperature of L_CL"};
static const flce_setting *const SETTINGS[] = {&LAMBDA, &TAU, NULL};

static void flce_state_size(const engine *E, size_t *f, size_t *d) {
    *f = 0;
    *d = (size_t)E->C * E->d + (size_t)E->C;
}

/* The ablations as flce eval reads them from completion.json ("M V Q CMC"). */
static void ablate_text(const flce_run_cfg *c, char *b, size_t cap) {
    snprintf(b, cap, "%s%s%s%s", c->ablate.no_mass ? "M " : "", c->ablate.no_velocity ? "V " : "",
             c->ablate.no_momentum ? "Q " : "", c->ablate.no_completion ? "CMC" : "");
}

/* trace/completion.json with the settings (the choices follow at the end). */
static flce_status flce_open(engine *E, flce_err *e) {
    if (!E->writer) return FLCE_OK;
    char p[1200], ab[32];
    flce_completion_cfg cc = E->cfg->completion;
    cc.seed = E->cfg->seed, cc.proto_all = E->cfg->proto_all;
    ablate_text(E->cfg, ab, sizeof ab);
    snprintf(p, sizeof p, "%s/trace/completion.json", E->dir);
    return flce_completion_record(p, &cc, ab, 0, NULL, e);
}

static flce_status flce_local_step(engine *E, int slot, int nb, int first, flce_losses *l, flce_err *e) {
    float lambda = E->cfg->ablate_cl ? 0.0f : (float)flce_eng_setting(E, &LAMBDA);
    return flce_eng_sgd_step(E, nb, first, lambda, (float)flce_eng_setting(E, &TAU), l, e);
}

/* eq:method.z over all local samples, the trained model in evaluation mode. */
static flce_status flce_client_end(engine *E, int slot, flce_err *e) {
    int k = E->sel[slot], C = E->C, d = E->d, B = E->cfg->eval_batch;
    int64_t nk = flce_eng_client_size(E, k);
    float *z = malloc(sizeof(float) * (size_t)(nk ? nk : 1) * d);
    int *label = malloc(sizeof(int) * (size_t)(nk ? nk : 1)), *pred = malloc(sizeof(int) * (size_t)(nk ? nk : 1));
    int *count = malloc(sizeof(int) * (size_t)C), *held = flce_calloc((size_t)C, sizeof(int));
    int32_t *y = malloc(sizeof(int32_t) * (size_t)B);
    flce_status st = FLCE_OK;
    if (!z || !label || !pred || !count || !held || !y) st = flce_fail(e, FLCE_ERR_NOMEM, "prototypes: out of memory");
    for (int64_t i0 = 0; i0 < nk && !st; i0 += B) {
        int nb = (int)(nk - i0 < B ? nk - i0 : B);
        flce_eng_gather(E, k, i0, nb, y);
        if ((st = flce_model_eval(&E->m, nb, E->bx, E->logits, z + (size_t)i0 * d, e))) break;
        for (int i = 0; i < nb; i++) {
            const float *l = E->logits + (size_t)i * C;
            int p = 0;
            for (int c = 1; c < C; c++)
                if (l[c] > l[p]) p = c;
            label[i0 + i] = y[i], pred[i0 + i] = p;
            held[y[i]]++;
        }
    }
    if (!st) { /* both readings from the same features: the run's (uploaded, aggregated with) and the
                * other (the trace's prototypes_alt.npy, for flce eval --proto-samples) */
        float *mine = E->protos + (size_t)k * C * d, *other = E->protos_alt + (size_t)k * C * d;
        flce_prototypes(z, label, pred, (int)nk, d, C, E->cfg->proto_all ? other : mine, count); /* correct: the text */
        for (int c = 0; c < C; c++) E->slot_value[slot] += held[c] > 0 && count[c] == 0; /* held, none classified right */
        flce_prototypes(z, label, label, (int)nk, d, C, E->cfg->proto_all ? mine : other, held); /* all: the equation */
        for (int c = 0; c < C; c++) E->present[(size_t)k * C + c] = (E->cfg->proto_all ? held[c] : count[c]) > 0;
    }
    free(z), free(label), free(pred), free(count), free(held), free(y);
    return st;
}

static flce_status flce_server(engine *E, flce_err *e) {
    int n = E->n, C = E->C, K = E->K;
    double *Q = malloc(sizeof *Q * (size_t)n * C), *Qs = malloc(sizeof *Qs * (size_t)K * C), *sz = malloc(sizeof *sz * (size_t)K);
    double *g = E->aux_d, *has = E->aux_d + (size_t)C * E->d; /* the state: g, and which classes have one */
    uint8_t *has_g = malloc((size_t)C);
    if (!Q || !Qs || !sz || !has_g) {
        free(Q), free(Qs), free(sz), free(has_g);
        return flce_fail(e, FLCE_ERR_NOMEM, "server: out of memory");
    }
    for (int c = 0; c < C; c++) has_g[c] = has[c] != 0;
    /* the same call flce eval makes on the trace: all n clients, absent ones not present */
    flce_status st = flce_round(E->protos, E->present, n, C, E->d, &E->cfg->ablate, g, has_g, Q, e);
    for (int c = 0; c < C; c++) has[c] = has_g[c];
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
    free(Q), free(Qs), free(sz), free(has_g);
    return st;
}

/* metrics.csv's prototypes_none_correct: the round's (client, class held) pairs with no prototype */
static void flce_report(engine *E, flce_round_metrics *m) {
    for (int i = 0; i < E->K; i++) m->proto_nocorrect += (int)E->slot_value[i];
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* From the trace the run wrote, by the evaluator, so that `flce eval DIR/trace` gives the same
 * numbers; the completion's choices, Q and the completed matrix beside it. */
static flce_status flce_final(engine *E, double *CE, double comp_s[2], flce_err *e) {
    char p[1200], ab[32];
    int n = E->n;
    flce_npy pr = {0}, se = {0};
    snprintf(p, sizeof p, "%s/trace/prototypes.npy", E->dir);
    flce_status st = flce_npy_read(p, &pr, e);
    snprintf(p, sizeof p, "%s/trace/selected.npy", E->dir);
    if (!st) st = flce_npy_read(p, &se, e);
    if (!st) {
        flce_trace tr = {E->T, n, E->C, E->d, pr.data, se.data, NULL, E->cfg->class_weights, NULL};
        flce_completion_cfg cc = E->cfg->completion;
        cc.seed = E->cfg->seed, cc.proto_all = E->cfg->proto_all;
        flce_eval_result res;
        double t0 = now_s();
        st = flce_eval_trace(&tr, &E->cfg->ablate, &cc, &res, e);
        comp_s[0] = now_s() - t0;
        if (!st && !E->cfg->ablate.no_completion && !cc.rank_auto && !cc.mu_auto) comp_s[1] = comp_s[0]; /* one fit a class already */
        else if (!st && !E->cfg->ablate.no_completion) { /* the paper's completion, timed for the cost claim: one fit a
                                                      * class at the rule's rank, mu 0.01 (its results are not used) */
            flce_completion_cfg pc = cc;
            flce_eval_result pres;
            pc.rank_auto = pc.mu_auto = 0, pc.rank = 0, pc.mu = 1e-2, pc.literal = 0;
            t0 = now_s();
            flce_status ps = flce_eval_trace(&tr, &E->cfg->ablate, &pc, &pres, e);
            comp_s[1] = now_s() - t0;
            if (ps) comp_s[1] = NAN, st = ps;
            else flce_eval_result_free(&pres);
        }
        if (!st) {
            memcpy(CE, res.CE, sizeof *CE * (size_t)n);
            snprintf(p, sizeof p, "%s/trace/completion.json", E->dir); /* the settings, and what auto chose */
            ablate_text(E->cfg, ab, sizeof ab);
            st = flce_completion_record(p, &cc, ab, E->C, &res, e);
            int64_t shp[3] = {E->T, n, E->C};
            snprintf(p, sizeof p, "%s/trace/Q.npy", E->dir);
            if (!st) st = flce_npy_write(p, FLCE_NPY_F64, 3, shp, res.Q, e);
            snprintf(p, sizeof p, "%s/trace/X_completed.npy", E->dir);
            if (!st) st = flce_npy_write(p, FLCE_NPY_F64, 3, shp, res.X, e);
            flce_eval_result_free(&res);
        }
    }
    flce_npy_free(&pr);
    flce_npy_free(&se);
    return st;
}

const flce_method flce_method_flce = {
    .name = "flce",
    .summary = "FLCE: class contribution momentum from prototypes; aggregation and completed contributions from it",
    .color = "#d62728",
    .flags = FLCE_M_PROTOTYPES,
    .settings = SETTINGS,
    .state_size = flce_state_size,
    .open = flce_open,
    .local_step = flce_local_step,
    .client_end = flce_client_end,
    .server = flce_server,
    .report = flce_report,
    .final = flce_final,
};
