/* ditto.c: Ditto (Li et al. 2021): each client trains, on the same batches, the global copy
 * (plain SGD, uploaded) and its personal model v_k with the term lambda/2 |v_k - w|^2
 * (--ditto-lambda, default 1). The server and contributions are FedAvg's on the global copies;
 * the round also reports the mean test accuracy of the selected clients' personal models.
 * State: one personal model per client [n][S] in aux_f; aux_d[k] = 1 once client k has one.
 * Each slot reports its personal model's test accuracy in E->slot_value. */
#include <string.h>

#include "method.h"

static const flce_setting LAMBDA = {"ditto-lambda", NULL, 1.0, 0, 1e6, 0, 0, "Ditto: lambda, the pull of a personal model to the global"};
static const flce_setting *const SETTINGS[] = {&LAMBDA, &flce_setting_aggregation, NULL};

static void ditto_state_size(const engine *E, size_t *f, size_t *d) {
    *f = (size_t)E->n * E->S;
    *d = (size_t)E->n;
}

static float *personal(engine *E, int slot) { return E->aux_f + (size_t)E->sel[slot] * E->S; }
static float *mine(engine *E, int slot) { return E->states + (size_t)slot * E->S; }

static flce_status ditto_client_begin(engine *E, int slot, flce_err *e) {
    (void)e;
    if (!E->aux_d[E->sel[slot]]) memcpy(personal(E, slot), E->global, sizeof(float) * E->S); /* first participation */
    memcpy(mine(E, slot), E->global, sizeof(float) * E->S);
    return FLCE_OK;
}

/* Its two models share E->m's one momentum buffer per parameter: --momentum would mix them. */
static flce_status ditto_check(const flce_run_cfg *c, flce_err *e) {
    if (c->momentum != 0)
        return flce_fail(e, FLCE_ERR_ARG, "--momentum %g: Ditto trains two models through one optimiser state, so momentum would mix them (0 only)",
                         c->momentum);
    return FLCE_OK;
}

static flce_status ditto_local_step(engine *E, int slot, int nb, int first, flce_losses *l, flce_err *e) {
    /* the global copy: plain SGD on the batch */
    flce_model_set_state(&E->m, mine(E, slot));
    flce_status st = flce_model_forward_backward(&E->m, nb, E->bx, E->by, 0, 1.0f, l, e); /* no L_CL: tau unused */
    if (st) return st;
    if ((st = flce_eng_sgd(E, first, e))) return st;
    flce_model_get_state(&E->m, mine(E, slot));
    /* the personal model: + lambda/2 |v - w|^2 */
    flce_model_set_state(&E->m, personal(E, slot));
    flce_losses lp;
    if ((st = flce_model_forward_backward(&E->m, nb, E->bx, E->by, 0, 1.0f, &lp, e))) return st;
    flce_eng_add_prox(E, &E->m, E->global, (float)flce_eng_setting(E, &LAMBDA));
    if ((st = flce_eng_sgd(E, first, e))) return st;
    flce_model_get_state(&E->m, personal(E, slot));
    return FLCE_OK;
}

/* The personal model's test accuracy (reported as a mean over the round); E->m back to the
 * global copy, the upload. */
static flce_status ditto_client_end(engine *E, int slot, flce_err *e) {
    E->aux_d[E->sel[slot]] = 1;
    double acc;
    flce_model_set_state(&E->m, personal(E, slot));
    flce_status st = flce_eng_evaluate(E, &E->m, E->test_x, E->test_y, E->n_test, &acc, NULL, NULL, e);
    if (st) return st;
    E->slot_value[slot] = acc;
    flce_model_set_state(&E->m, mine(E, slot));
    return FLCE_OK;
}

/* metrics.csv's personal_accuracy: the mean over the round's slots */
static void ditto_report(engine *E, flce_round_metrics *m) {
    m->personal_acc = 0;
    for (int i = 0; i < E->K; i++) m->personal_acc += E->slot_value[i] / E->K;
}

const flce_method flce_method_ditto = {
    .name = "ditto",
    .summary = "Ditto: FedAvg on the global copies beside personal models; cosine-rule contributions",
    .color = "#59a14f",
    .flags = FLCE_M_PERSONAL | FLCE_M_CLIENT_STATE | FLCE_M_COSINE_RULES | FLCE_M_COUNTS,
    .settings = SETTINGS,
    .check = ditto_check,
    .state_size = ditto_state_size,
    .client_begin = ditto_client_begin,
    .local_step = ditto_local_step,
    .client_end = ditto_client_end,
    .server = flce_eng_fedavg_cosine,
    .report = ditto_report,
};
