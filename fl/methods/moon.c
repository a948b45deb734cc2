/* moon.c: MOON (Li et al. 2021): the local loss adds mu l_con(z, z_global, z_previous), the
 * model-contrastive loss of the representation against the received global model's and the
 * client's previous local model's (--moon-mu 1, --moon-tau 0.5; flce_moon_loss in
 * baselines.c); from a client's second participation on. Server and contributions as FedAvg.
 * State: each client's previous local model [n][S] in aux_f; aux_d[k] = 1 once it has one.
 * Not saved (made in open): two more models on the backend, the global and the previous, and
 * their features. */
#include <stdlib.h>

#include "baselines.h"
#include "method.h"

static const flce_setting MU = {"moon-mu", NULL, 1.0, 0, 1e6, 0, 0, "MOON: mu, the weight of the model-contrastive loss"};
static const flce_setting TAU = {"moon-tau", NULL, 0.5, 0, 1e6, 1, 0, "MOON: tau, its temperature"};
static const flce_setting *const SETTINGS[] = {&MU, &TAU, &flce_setting_aggregation, NULL};

typedef struct {
    flce_model global, previous;
    float *zg, *zp, *dz; /* [batch][FLCE_FEAT] their features, the loss's gradient */
} moon_priv;

static void moon_state_size(const engine *E, size_t *f, size_t *d) {
    *f = (size_t)E->n * E->S;
    *d = (size_t)E->n;
}

static void moon_close(engine *E) {
    moon_priv *p = E->priv;
    if (!p) return;
    flce_model_free(&p->global);
    flce_model_free(&p->previous);
    free(p->zg), free(p->zp), free(p->dz), free(p);
    E->priv = NULL;
}

static flce_status moon_open(engine *E, flce_err *e) {
    int MB = E->MB; /* the engine's model's: the same batches */
    const flce_split *tr = &E->ds.train;
    moon_priv *p = flce_calloc(1, sizeof *p);
    if (!p) return flce_fail(e, FLCE_ERR_NOMEM, "MOON: out of memory");
    E->priv = p;
    p->zg = malloc(sizeof(float) * (size_t)MB * FLCE_FEAT), p->zp = malloc(sizeof(float) * (size_t)MB * FLCE_FEAT);
    p->dz = malloc(sizeof(float) * (size_t)MB * FLCE_FEAT);
    if (!p->zg || !p->zp || !p->dz) return flce_fail(e, FLCE_ERR_NOMEM, "MOON: out of memory");
    flce_status st = flce_model_create(&p->global, E->be, tr->c, tr->h, tr->w, E->C, MB, e);
    if (!st) st = flce_model_create(&p->previous, E->be, tr->c, tr->h, tr->w, E->C, MB, e);
    return st;
}

static float *previous(engine *E, int slot) { return E->aux_f + (size_t)E->sel[slot] * E->S; }

static flce_status moon_client_begin(engine *E, int slot, flce_err *e) {
    (void)e;
    moon_priv *p = E->priv;
    flce_model_set_state(&p->global, E->global);
    if (E->aux_d[E->sel[slot]]) flce_model_set_state(&p->previous, previous(E, slot));
    return FLCE_OK;
}

static flce_status moon_local_step(engine *E, int slot, int nb, int first, flce_losses *l, flce_err *e) {
    moon_priv *p = E->priv;
    flce_status st = flce_model_forward_train(&E->m, nb, E->bx, E->by, e);
    if (st) return st;
    double lc = 0;
    const float *dz = NULL;
    if (E->aux_d[E->sel[slot]]) {
        flce_model_read_features(&E->m, E->feat);
        if ((st = flce_model_eval(&p->global, nb, E->bx, NULL, p->zg, e))) return st;
        if ((st = flce_model_eval(&p->previous, nb, E->bx, NULL, p->zp, e))) return st;
        lc = flce_moon_loss(nb, FLCE_FEAT, E->feat, p->zg, p->zp, flce_eng_setting(E, &MU), flce_eng_setting(E, &TAU), p->dz);
        dz = p->dz;
    }
    flce_model_backward(&E->m, 0, 1.0f, dz, l); /* no L_CL: its tau unused */
    l->loss += (float)lc;
    return flce_eng_sgd(E, first, e);
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
    .color = "#b07aa1",
    .flags = FLCE_M_CLIENT_STATE | FLCE_M_COSINE_RULES | FLCE_M_COUNTS,
    .settings = SETTINGS,
    .state_size = moon_state_size,
    .open = moon_open,
    .close = moon_close,
    .client_begin = moon_client_begin,
    .local_step = moon_local_step,
    .client_end = moon_client_end,
    .server = flce_eng_fedavg_cosine,
};
