/* fedsv.c: FedSV (Wang et al. 2020), federated Shapley value: every round, the Shapley value
 * of each selected client for the utility v(S) (validation accuracy, or minus the loss, of the
 * data-size-weighted average of the coalition's models; flce_eng_utility): exact over all 2^K
 * coalitions (flce_shapley_exact) or by truncated Monte-Carlo permutations (--shapley mc,
 * --mc-perms, --mc-eps; flce_shapley_mc), exact only up to K = 12. The model is FedAvg's.
 * Contributions: the values summed over rounds, clamped at 0, normalised.
 * As its authors released it (algorithms/fedsharplyavg.py; docs/flce.md, "The released code"),
 * each a setting: --utility-set test (every v(S) on the test set, 301-303 and 337-338),
 * --players drawn with --schedule window (the window 82-87 and 5 drawn from the rest 89-91; exact
 * Shapley over the drawn, 285 and 381, the window's in every coalition 284-293 and valued 0,
 * 270-275), --next-model best (the next global model the coalition of highest utility strictly
 * above the round's aggregate, 305-307, 349-353, 361), --aggregation mean (the round's aggregate a
 * plain mean, 245-260). In that form the grand coalition's utility is the round's aggregate's
 * (359), the others' their data-size-weighted average's (326-338). */
#include <math.h>

#include <stdlib.h>
#include <string.h>

#include "method.h"

static const flce_setting SHAPLEY = {"shapley", "exact|mc", 0, 0, 0, 0, 0, "FedSV: exact (K <= 12) or mc (Monte-Carlo permutations)"};
static const flce_setting PERMS = {"mc-perms", NULL, 50, 1, 1e6, 0, 1, "FedSV: Monte-Carlo permutations"};
/* a permutation stops once |v(N) - v(prefix)| < eps: with the accuracy utility (in [0, 1]) an eps
 * of 1 or more stops every one at its first client, every value 0 (checked in fedsv_check) */
static const flce_setting EPS = {"mc-eps", NULL, 0.001, 0, 1e6, 0, 0, "FedSV: Monte-Carlo truncation, 0 <= eps (< 1 with --utility accuracy)"};
static const flce_setting PLAYERS = {"players", "selected|drawn", 0, 0, 0, 0, 0,
                                     "FedSV: Shapley over every selected client (the text) or, with --schedule window, over the ones drawn at random, "
                                     "the window's in every coalition and valued 0 (drawn, the released code)"};
static const flce_setting NEXT = {"next-model", "aggregate|best", 0, 0, 0, 0, 0,
                                  "FedSV: the next global model the round's aggregate (the text) or the evaluated coalition of highest utility where "
                                  "one beats it (best, the released code)"};
static const flce_setting *const SETTINGS[] = {&SHAPLEY, &PERMS, &EPS, &flce_setting_utility, &flce_setting_utility_set, &flce_setting_aggregation,
                                               &PLAYERS, &NEXT, NULL};

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
    int drawn = flce_run_cfg_get(c, &PLAYERS) == 1, best = flce_run_cfg_get(c, &NEXT) == 1;
    if ((drawn || best) && monte_carlo(c))
        return flce_fail(e, FLCE_ERR_ARG, "--%s: the released FedSV's exact form, and --shapley mc samples permutations", drawn ? "players drawn" : "next-model best");
    if (drawn && !c->schedule_window)
        return flce_fail(e, FLCE_ERR_ARG, "--players drawn: values the clients drawn beside --schedule window's, and the schedule is %s",
                         c->schedule_sweep ? "sweep" : "random");
    return FLCE_OK;
}

/* The released form (--players drawn, --next-model best): the m players (slots not in the window),
 * the fixed window F (a mask of slots, empty unless drawn), the round's aggregate and its
 * utility, v of a players' coalition s its slots with F's. */
typedef struct {
    flce_utility_ctx *u;
    int m, pl[32];
    uint32_t F;
    double v_all;
} released_game;

static uint32_t slots_of(const released_game *g, uint32_t s) {
    uint32_t mask = g->F;
    for (int j = 0; j < g->m; j++)
        if (s >> j & 1) mask |= (uint32_t)1 << g->pl[j];
    return mask;
}

static double released_v(uint32_t s, void *ud) {
    released_game *g = ud;
    return s == ((uint32_t)1 << g->m) - 1 ? g->v_all : flce_eng_utility(slots_of(g, s), g->u);
}

/* The coalition the released code keeps: the first, by size and then in the combinations' order,
 * of highest utility strictly above the aggregate's (its empty coalition of players only where the
 * window is in it: without one it would be the incoming model); 0 where none beats it. */
static int released_best(const engine *E, const released_game *g, uint32_t *best) {
    double top = g->v_all;
    int found = 0, idx[32];
    for (int r = g->F ? 0 : 1; r < g->m; r++) {
        for (int j = 0; j < r; j++) idx[j] = j;
        for (;;) {
            uint32_t s = 0;
            for (int j = 0; j < r; j++) s |= (uint32_t)1 << idx[j];
            double v = E->vcache[slots_of(g, s)];
            if (v > top) top = v, *best = slots_of(g, s), found = 1;
            int j = r - 1; /* the next combination in lexicographic order */
            while (j >= 0 && idx[j] == g->m - r + j) j--;
            if (j < 0) break;
            idx[j]++;
            for (int q = j + 1; q < r; q++) idx[q] = idx[q - 1] + 1;
        }
    }
    return found;
}

static flce_status released_server(engine *E, flce_err *e) {
    int K = E->K, drawn = flce_eng_setting(E, &PLAYERS) == 1;
    flce_utility_ctx u = {E, e, 0};
    released_game g = {&u, 0, {0}, 0, 0};
    for (int i = 0; i < K; i++) {
        if (drawn && flce_eng_in_window(E, E->sel[i])) g.F |= (uint32_t)1 << i;
        else g.pl[g.m++] = i;
    }
    flce_eng_fedavg(E); /* the round's aggregate (plain mean with --aggregation mean), kept aside */
    float *agg = malloc(sizeof *agg * E->S);
    uint32_t nm = (uint32_t)1 << g.m, *masks = malloc(sizeof *masks * nm);
    double om[32], phi[32];
    flce_status st = agg && masks ? FLCE_OK : flce_fail(e, FLCE_ERR_NOMEM, "FedSV: out of memory");
    if (!st) {
        memcpy(agg, E->newg, sizeof *agg * E->S), memcpy(om, E->omega, sizeof om[0] * (size_t)K);
        g.v_all = flce_eng_state_utility(E, agg, &u);
        for (uint32_t s = 0; s + 1 < nm; s++) masks[s] = slots_of(&g, s);
        if (!u.failed) st = flce_eng_utilities(E, masks, (int)nm - 1, e);
        if (!st && !u.failed) st = flce_shapley_exact(g.m, released_v, &g, phi, e);
    }
    if (!st && u.failed) st = FLCE_ERR_NUMERIC;
    if (!st) {
        for (int i = 0; i < K; i++) E->rc[i] = 0; /* the window's: valued 0 */
        for (int j = 0; j < g.m; j++) E->rc[g.pl[j]] = phi[j];
        uint32_t best = 0;
        int slots[32], k;
        if (flce_eng_setting(E, &NEXT) == 1 && released_best(E, &g, &best)) {
            double w[32];
            flce_eng_coalition_weights(E, best, slots, w, &k);
            flce_eng_aggregate(E, w, k, slots, E->newg);
            for (int i = 0; i < K; i++) E->omega[i] = 0;
            for (int i = 0; i < k; i++) E->omega[slots[i]] = w[i];
        } else memcpy(E->newg, agg, sizeof *agg * E->S), memcpy(E->omega, om, sizeof om[0] * (size_t)K);
    }
    free(agg), free(masks);
    return st;
}

static flce_status fedsv_server(engine *E, flce_err *e) {
    if (flce_eng_setting(E, &PLAYERS) == 1 || flce_eng_setting(E, &NEXT) == 1) return released_server(E, e);
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
    .color = "#76b7b2",
    .flags = FLCE_M_SHAPLEY | FLCE_M_CLAMP | FLCE_M_COUNTS,
    .released_schedule = 2, /* algorithms/fedsharplyavg.py 81-91: clients k..k+4 (k = 0, 5, ..., 45, 0, ...) and 5 of the rest at random */
    .settings = SETTINGS,
    .check = fedsv_check,
    .server = fedsv_server,
};
