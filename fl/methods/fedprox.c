/* fedprox.c: FedProx (Li et al. 2020): FedAvg whose clients add the proximal term
 * mu/2 |w_k - w|^2 to their loss (--prox-mu, default 0.01); its gradient mu (w_k - w) is added
 * after each backward pass. Server and contributions as FedAvg. */
#include "method.h"

static const flce_setting MU = {"prox-mu", NULL, 0.01, 0, 1e6, 0, 0, "FedProx: mu, the weight of the proximal term"};
static const flce_setting *const SETTINGS[] = {&MU, &flce_setting_aggregation, NULL};

static flce_status fedprox_local_step(engine *E, int slot, int nb, int first, flce_losses *l, flce_err *e) {
    flce_status st = flce_model_forward_backward(&E->m, nb, E->bx, E->by, 0, 1.0f, l, e); /* no L_CL: tau unused */
    if (st) return st;
    flce_eng_add_prox(E, &E->m, E->global, (float)flce_eng_setting(E, &MU));
    return flce_eng_sgd(E, first, e);
}

const flce_method flce_method_fedprox = {
    .name = "fedprox",
    .flags = FLCE_M_COSINE_RULES | FLCE_M_COUNTS,
    .summary = "FedProx: FedAvg with a proximal term in local training; cosine-rule contributions",
    .color = "#f28e2b",
    .settings = SETTINGS,
    .local_step = fedprox_local_step,
    .server = flce_eng_fedavg_cosine,
};
