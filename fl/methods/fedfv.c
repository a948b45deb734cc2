/* fedfv.c: FedFV (Wang et al. 2021), federated learning with fair averaging: the updates
 * g_k = w - w_k (parameters) are projected to remove conflicts (the ceil(alpha K) highest-loss
 * clients kept, alpha = 0.1; flce_fedfv_project), averaged, projected against last round's
 * stored directions of clients not selected now (tau = 1), rescaled to the norm of the plain
 * mean, and applied: w' = w - g. Running statistics by the BatchNorm rule (flce_eng_compose).
 * Contributions: the cosine rule on the projected directions. Clients report the received
 * model's loss on their data (it orders the projection).
 * State: the projected directions of the last round [K][P] in aux_f; aux_d[0] how many,
 * aux_d[1..K] their clients, aux_d[K+1] their round. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baselines.h"
#include "method.h"

static void fedfv_state_size(const engine *E, size_t *f, size_t *d) {
    *f = (size_t)E->K * E->P;
    *d = (size_t)E->K + 2;
}

static flce_status fedfv_client_begin(engine *E, int slot, flce_err *e) {
    return flce_eng_evaluate_client(E, E->sel[slot], &E->rep_acc[slot], &E->rep_loss[slot], e);
}

static double dotf(const float *a, const float *b, size_t n) {
    double s = 0;
    for (size_t j = 0; j < n; j++) s += (double)a[j] * b[j];
    return s;
}

static flce_status fedfv_server(engine *E, flce_err *e) {
    int K = E->K;
    size_t P = E->P;
    flce_param_view v;
    flce_status st = flce_eng_pv_open(E, &v, "FedFV", e);
    if (st) return st;
    float *g = flce_calloc(P * (size_t)K, sizeof(float)), *orig = v.st, *mean = v.out;
    if (!g) {
        flce_eng_pv_close(&v);
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
    flce_eng_pv_close(&v);
    return FLCE_OK;
}

const flce_method flce_method_fedfv = {
    .name = "fedfv",
    .summary = "FedFV: conflict-projected update directions; cosine-rule contributions on them",
    .color = "#9c755f",
    .state_size = fedfv_state_size,
    .client_begin = fedfv_client_begin,
    .flags = FLCE_M_COSINE_RULES | FLCE_M_COUNTS,
    .server = fedfv_server,
};
