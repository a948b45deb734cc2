/* gtg.c: GTG-Shapley (Liu et al. 2022), guided truncation gradient Shapley: the Shapley value
 * of the utility v(S) (as FedSV's, flce_eng_utility) estimated with between-round truncation
 * (no evaluation when the round barely changes the utility, eps = 0.001), guided permutations
 * (each client first once per sweep of K), within-permutation truncation; at least max(30, K)
 * permutations, then stop when the running means moved by at most 5% on average against 10
 * permutations earlier (at most 1000). The model is FedAvg's. Contributions: the values
 * summed over rounds, clamped at 0, normalised. Over several processes, each permutation's
 * prefixes are evaluated at once, spread (some may then go unused by the truncation: the values
 * are the same). */
#include <math.h>

#include "method.h"

static const flce_setting *const SETTINGS[] = {&flce_setting_utility, NULL};

static flce_status gtg_check(const flce_run_cfg *c, flce_err *e) {
    if (c->per_round > 20) return flce_fail(e, FLCE_ERR_ARG, "--per-round %d: Shapley methods take at most 20", c->per_round);
    return FLCE_OK;
}

static flce_status gtg_server(engine *E, flce_err *e) {
    int K = E->K;
    flce_utility_ctx u = {E, e, 0};
    uint32_t all = ((uint32_t)1 << K) - 1;
    double v0 = flce_eng_utility(0, &u), vall = flce_eng_utility(all, &u), eps = 0.001;
    double sum[32] = {0}, hist[10][32];
    int m = 0, perm[32], minp = K > 30 ? K : 30;
    for (int i = 0; i < K; i++) E->rc[i] = 0;
    if (u.failed) return FLCE_ERR_NUMERIC;
    if (fabs(vall - v0) > eps) {
        flce_rng r;
        flce_rng_init(&r, flce_train_seed(E->cfg), FLCE_RNG_SHAPLEY, (uint32_t)E->t, 1);
        while (m < 1000) {
            flce_rng_permutation(&r, K, perm);
            int lead = m % K;
            for (int i = 0; i < K; i++)
                if (perm[i] == lead) {
                    perm[i] = perm[0];
                    perm[0] = lead;
                    break;
                }
            uint32_t s = 0, prefix[32];
            for (int j = 0; j < K; j++) prefix[j] = (j ? prefix[j - 1] : 0) | (uint32_t)1 << perm[j];
            flce_status pst = flce_eng_utilities(E, prefix, K, e); /* several processes: the prefixes at once */
            if (pst) return pst;
            double prev = v0;
            for (int j = 0; j < K; j++) {
                if (fabs(vall - prev) < eps) break;
                s |= (uint32_t)1 << perm[j];
                double cur = flce_eng_utility(s, &u);
                sum[perm[j]] += cur - prev;
                prev = cur;
            }
            if (u.failed) return FLCE_ERR_NUMERIC;
            double rel = 0;
            for (int i = 0; i < K; i++) {
                double avg = sum[i] / (m + 1);
                if (m >= 10) rel += fabs(avg - hist[m % 10][i]) / (fabs(avg) + 1e-12);
                hist[m % 10][i] = avg;
            }
            m++;
            if (m >= minp && m > 10 && rel / K <= 0.05) break;
        }
        for (int i = 0; i < K; i++) E->rc[i] = sum[i] / m;
    }
    flce_eng_fedavg(E);
    return FLCE_OK;
}

const flce_method flce_method_gtg = {
    .name = "gtg",
    .summary = "GTG-Shapley: FedAvg; guided, truncated Monte-Carlo Shapley values summed as contributions",
    .color = "#000000",
    .flags = FLCE_M_SHAPLEY | FLCE_M_CLAMP | FLCE_M_COUNTS,
    .settings = SETTINGS,
    .check = gtg_check,
    .server = gtg_server,
};
