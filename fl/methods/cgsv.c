/* cgsv.c: CGSV (Xu et al. 2021), cosine-gradient Shapley value: the normalised updates
 * g_k = Gamma u_k / |u_k| (Gamma = 0.15) are combined with the selected clients' reputations
 * as weights (data shares while none has one yet), each client's reputation moves towards
 * cos(g_k, g) (alpha = 0.95, at least 1e-3; flce_cgsv_round), and w' = w + g on the parameters
 * (running statistics by the BatchNorm rule). Contributions: the final reputations.
 * State: the reputations r [n] in aux_d, 0 until a client is first selected, normalised to sum
 * 1 after every round. */
#include "baselines.h"
#include "method.h"

static void cgsv_state_size(const engine *E, size_t *f, size_t *d) {
    *f = 0;
    *d = (size_t)E->n;
}

static flce_status cgsv_server(engine *E, flce_err *e) {
    double r[32], w[32], rs = 0;
    for (int i = 0; i < E->K; i++) rs += r[i] = E->aux_d[E->sel[i]];
    if (rs > 0)
        for (int i = 0; i < E->K; i++) w[i] = r[i] / rs;
    else flce_eng_data_size_weights(E, w);
    flce_param_view v;
    flce_status st = flce_eng_pv_open(E, &v, "CGSV", e);
    if (st) return st;
    if (flce_cgsv_round(E->K, E->P, v.g, v.st, 0.15, 0.95, w, r, v.out)) {
        flce_eng_pv_close(&v);
        return flce_fail(e, FLCE_ERR_NOMEM, "CGSV: out of memory");
    }
    flce_eng_compose(E, v.out, E->newg);
    flce_eng_pv_close(&v);
    for (int i = 0; i < E->K; i++) E->aux_d[E->sel[i]] = r[i], E->rc[i] = 0, E->omega[i] = w[i];
    double tot = 0;
    for (int k = 0; k < E->n; k++) tot += E->aux_d[k];
    for (int k = 0; k < E->n; k++) E->aux_d[k] /= tot; /* tot >= K * 1e-3 */
    for (int k = 0; k < E->n; k++) E->contrib_sum[k] = E->aux_d[k]; /* contributions: the reputations */
    flce_eng_record_readings(E); /* the other rules beside (the released code's L2 among them) */
    return FLCE_OK;
}

const flce_method flce_method_cgsv = {
    .name = "cgsv",
    .summary = "CGSV: reputation-weighted normalised updates; the reputations as contributions",
    .color = "#ff9da7",
    .flags = FLCE_M_RULE_READINGS | FLCE_M_COUNTS,
    .state_size = cgsv_state_size,
    .server = cgsv_server,
};
