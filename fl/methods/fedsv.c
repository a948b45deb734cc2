/* fedsv.c: FedSV (Wang et al. 2020), federated Shapley value: every round, the Shapley value
 * of each selected client for the utility v(S) (validation accuracy, or minus the loss, of the
 * data-size-weighted average of the coalition's models; flce_eng_utility): exact over all 2^K
 * coalitions (flce_shapley_exact) or by truncated Monte-Carlo permutations (--shapley mc,
 * --mc-perms, --mc-eps; flce_shapley_mc), exact only up to K = 12. The model is FedAvg's.
 * Contributions: the values summed over rounds, clamped at 0, normalised. */
#include <math.h>

#include <stdlib.h>

#include "method.h"

static const flce_setting SHAPLEY = {"shapley", "exact|mc", 0, 0, 0, 0, 0, "FedSV: exact (K <= 12) or mc (Monte-Carlo permutations)"};
static const flce_setting PERMS = {"mc-perms", NULL, 50, 1, 1e6, 0, 1, "FedSV: Monte-Carlo permutations"};
/* a permutation stops once |v(N) - v(prefix)| < eps: with the accuracy utility (in [0, 1]) an eps
 * of 1 or more stops every one at its first client, every value 0 (checked in fedsv_check) */
static const flce_setting EPS = {"mc-eps", NULL, 0.001, 0, 1e6, 0, 0, "FedSV: Monte-Carlo truncation, 0 <= eps (< 1 with --utility accuracy)"};
static const flce_setting *const SETTINGS[] = {&SHAPLEY, &PERMS, &EPS, &flce_setting_utility, &flce_setting_aggregation, NULL};

static int monte_carlo(const flce_run_cfg *c) { return flce_run_cfg_get(c, &SHAPLEY) == 1; }

static flce_status fedsv_check(const flce_run_cfg *c, flce_err *e) {
    if (!monte_carlo(c) && (flce_run_cfg_get(c, &PERMS) != PERMS.def || flce_run_cfg_get(c, &EPS) != EPS.def))
        return flce_fail(e, FLCE_ERR_ARG, "--mc-perms, --mc-eps: settings of --shapley mc (exact Shapley draws no permutations)");
    double eps = flce_run_cfg_get(c, &EPS);
    if (flce_run_cfg_get(c, &flce_setting_utility) == 0 && eps >= 1)
        return flce_fail(e, FLCE_ERR_ARG, "--mc-eps %g: below 1 with --utility accuracy (the utilities lie in [0, 1]: every permutation would stop "
                         "at its first client, every value 0)", eps);
    if (!monte_carlo(c) && c->per_round > 12)
        return flce_fail(e, FLCE_ERR_ARG, "--per-round %d: exact Shapley needs at most 12 (use --shapley mc)", c->per_round);
    if (c->per_round > 20) return flce_fail(e, FLCE_ERR_ARG, "--per-round %d: Shapley methods take at most 20", c->per_round);
    return FLCE_OK;
}

static flce_status fedsv_server(engine *E, flce_err *e) {
    flce_utility_ctx u = {E, e, 0};
    double phi[32];
    flce_status st;
    if (monte_carlo(E->cfg) || E->K > 12) {
        st = flce_shapley_mc(E->K, flce_eng_utility, &u, (int)flce_eng_setting(E, &PERMS), flce_eng_setting(E, &EPS), flce_train_seed(E->cfg),
                             (uint32_t)E->t, phi, NULL, e);
    } else { /* every coalition: their utilities beforehand, spread over the processes (one: nothing) */
        uint32_t nm = (uint32_t)1 << E->K, *all = malloc(sizeof *all * nm);
        if (!all) return flce_fail(e, FLCE_ERR_NOMEM, "FedSV: out of memory");
        for (uint32_t m = 0; m < nm; m++) all[m] = m;
        st = flce_eng_utilities(E, all, (int)nm, e);
        free(all);
        if (!st) st = flce_shapley_exact(E->K, flce_eng_utility, &u, phi, e);
    }
    if (st) return st;
    if (u.failed) return FLCE_ERR_NUMERIC;
    for (int i = 0; i < E->K; i++) E->rc[i] = phi[i]; /* summed over rounds, clamped at 0 at the end */
    flce_eng_fedavg(E);
    return FLCE_OK;
}

const flce_method flce_method_fedsv = {
    .name = "fedsv",
    .summary = "FedSV: FedAvg; per-round Shapley values (exact, or Monte-Carlo) summed as contributions",
    .color = "#17becf",
    .flags = FLCE_M_SHAPLEY | FLCE_M_CLAMP,
    .settings = SETTINGS,
    .check = fedsv_check,
    .server = fedsv_server,
};
