/* moon.c: MOON (Li et al. 2021): the local loss adds mu l_con(z, z_global, z_previous), the
 * model-contrastive loss of the representation against the received global model's and the
 * client's previous local model's (--moon-mu 1, --moon-tau 0.5; flce_moon_loss in
 * baselines.c); from a client's second participation on. Server and contributions as FedAvg.
 * State: each client's previous local model [n][S] in aux_f; aux_d[k] = 1 once it has one.
 * Two more models on the backend: E->m2 (global), E->m3 (previous). */
#include "baselines.h"
#include "method.h"

static void moon_state_size(const engine *E, size_t *f, size_t *d) {
    *f = (size_t)E->n * E->S;
    *d = (size_t)E->n;
}

static flce_status moon_open(engine *E, flce_err *e) {
    int MB = E->cfg->batch > E->cfg->eval_batch ? E->cfg->batch : E->cfg->eval_batch;
    const flce_split *tr = &E->ds.train;
    flce_status st = flce_model_create(&E->m2, E->be, tr->c, tr->h, tr->w, E->C, MB, e);
    if (!st) st = flce_model_create(&E->m3, E->be, tr->c, tr->h, tr->w, E->C, MB, e);
    return st;
}

static float *previous(engine *E, int slot) { return E->aux_f + (size_t)E->sel[slot] * E->S; }

static flce_status moon_client_begin(engine *E, int slot, flce_err *e) {
    (void)e;
    flce_model_set_state(&E->m2, E->global);
    if (E->aux_d[E->sel[slot]]) flce_model_set_state(&E->m3, previous(E, slot));
    return FLCE_OK;
}

static flce_status moon_local_step(engine *E, int slot, int nb, int first, flce_losses *l, flce_err *e) {
    const flce_run_cfg *cfg = E->cfg;
    flce_status st = flce_model_forward_train(&E->m, nb, E->bx, E->by, e);
    if (st) return st;
    double lc = 0;
    const float *dz = NULL;
    if (E->aux_d[E->sel[slot]]) {
        flce_model_read_features(&E->m, E->feat);
        if ((st = flce_model_eval(&E->m2, nb, E->bx, NULL, E->feat2, e))) return st;
        if ((st = flce_model_eval(&E->m3, nb, E->bx, NULL, E->feat3, e))) return st;
        lc = flce_moon_loss(nb, FLCE_FEAT, E->feat, E->feat2, E->feat3, cfg->moon_mu, cfg->moon_tau, E->dzx);
        dz = E->dzx;
    }
    flce_model_backward(&E->m, 0, (float)cfg->tau, dz, l);
    l->loss += (float)lc;
    flce_model_sgd(&E->m, (float)cfg->lr, 0.0f, 0.0f, first);
    return FLCE_OK;
}

/* The local model becomes the previous one, next time. */
static flce_status moon_client_end(engine *E, int slot, flce_err *e) {
    (void)e;
    flce_model_get_state(&E->m, previous(E, slot));
    E->aux_d[E->sel[slot]] = 1;
    return FLCE_OK;
}

const flce_method flce_method_moon = {
    .name = "moon",
    .summary = "MOON: FedAvg with a model-contrastive local loss; cosine-rule contributions",
    .color = "#9467bd",
    .flags = FLCE_M_CLIENT_STATE | FLCE_M_COSINE_RULES,
    .state_size = moon_state_size,
    .open = moon_open,
    .client_begin = moon_client_begin,
    .local_step = moon_local_step,
    .client_end = moon_client_end,
    .server = flce_eng_fedavg_cosine,
};
