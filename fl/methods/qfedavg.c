/* qfedavg.c: q-FedAvg (Li et al. 2020), fair resource allocation: with L = 1/lr and the losses
 * F_k of the received model on the clients' data, dw_k = L (w - w_k), the step
 * w' = w - sum F_k^q dw_k / sum h_k (q = 1; flce_qfedavg_round) on the parameters (running
 * statistics by the BatchNorm rule). Contributions: F_k^q / sum h, summed over rounds. */
#include "baselines.h"
#include "method.h"

static flce_status qfedavg_client_begin(engine *E, int slot, flce_err *e) {
    return flce_eng_evaluate_client(E, E->sel[slot], &E->rep_acc[slot], &E->rep_loss[slot], e);
}

static flce_status qfedavg_server(engine *E, flce_err *e) {
    double F[32], h[32];
    for (int i = 0; i < E->K; i++) F[i] = E->rep_loss[i] + 1e-10;
    flce_param_view v;
    flce_status st = flce_eng_pv_open(E, &v, "q-FedAvg", e);
    if (st) return st;
    flce_qfedavg_round(E->K, E->P, v.g, v.st, F, E->cfg->lr, 1.0, v.out, h, E->rc);
    flce_eng_compose(E, v.out, E->newg);
    flce_eng_pv_close(&v);
    for (int i = 0; i < E->K; i++) E->omega[i] = E->rc[i];
    flce_eng_record_readings(E); /* the other rules beside (the released code's L2 among them) */
    return FLCE_OK;
}

const flce_method flce_method_qfedavg = {
    .name = "qfedavg",
    .summary = "q-FedAvg: loss-weighted (q = 1) update; F^q / sum h summed as contributions",
    .color = "#bab0ac",
    .flags = FLCE_M_RULE_READINGS | FLCE_M_COUNTS,
    .client_begin = qfedavg_client_begin,
    .server = qfedavg_server,
};
