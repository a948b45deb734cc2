/* fedfa.c: FedFa (Huang et al. 2020), fairness-aware aggregation: weights pi_k mixing the
 * clients' accuracy of the received model on their data and how often they were selected
 * (beta = 0.5; flce_fedfa_weights); w' = sum pi_k w_k, and on the parameters server momentum
 * m <- gamma m + (1 - gamma)(w' - w), w <- w + m (gamma = 0.9; the sign: docs/decisions.md);
 * running statistics those of w'. Contributions: pi summed over rounds.
 * State: the momentum m [P] in aux_f; the times each client was selected f [n] in aux_d. */
#include "baselines.h"
#include "method.h"

static void fedfa_state_size(const engine *E, size_t *f, size_t *d) {
    *f = E->P;
    *d = (size_t)E->n;
}

static flce_status fedfa_client_begin(engine *E, int slot, flce_err *e) {
    return flce_eng_evaluate_client(E, E->sel[slot], &E->rep_acc[slot], &E->rep_loss[slot], e);
}

static flce_status fedfa_server(engine *E, flce_err *e) {
    (void)e;
    int K = E->K;
    const float gamma = 0.9f;
    double f[32] = {0};
    for (int i = 0; i < K; i++) f[i] = E->aux_d[E->sel[i]] += 1; /* this round counts */
    flce_fedfa_weights(K, E->rep_acc, f, 0.5, E->omega);
    for (int i = 0; i < K; i++) E->rc[i] = E->omega[i];
    int slots[32];
    for (int i = 0; i < K; i++) slots[i] = i;
    flce_eng_aggregate(E, E->omega, K, slots, E->newg); /* w' */
    for (size_t j = 0, o = 0; j < E->S; j++) {
        if (!E->trainable[j]) continue; /* running statistics: those of w' */
        E->aux_f[o] = gamma * E->aux_f[o] + (1.0f - gamma) * (E->newg[j] - E->global[j]);
        E->newg[j] = E->global[j] + E->aux_f[o++];
    }
    return FLCE_OK;
}

const flce_method flce_method_fedfa = {
    .name = "fedfa",
    .summary = "FedFa: accuracy- and frequency-weighted average with server momentum; the weights summed",
    .color = "#edc948",
    .state_size = fedfa_state_size,
    .client_begin = fedfa_client_begin,
    .server = fedfa_server,
};
