/* test_rules.c: the BatchNorm rule of docs/baselines.md ("BatchNorm buffers"), checked on the
 * engine's output against values worked out from another method's output:
 *   with one client per round and one round, every method trains the same client on the
 *   same batches from the same initial model w, so FedAvg's final model is that client's model
 *   w_1 (weight 1). Then, over the parameters (u = w_1 - w):
 *     CGSV      w + 0.15 u / (|u| + 1e-7)          (a step of length Gamma)
 *     q-FedAvg  w + c u, c = F / (L |u|^2 + F) in (0, 1), F the loss of w on the client's data
 *               (c is measured: the step must lie along u, every parameter)
 *     FedFa     w + (1 - 0.9) u                     (pi = 1; the first momentum step)
 *     FedFV     w - (w - w_1) = w_1                 (one update: no projection, scale 1)
 *   and every method's running statistics are w_1's bit for bit (the data-size average of
 *   one client; FedFa's w'). Before the rule, CGSV normalised the whole state: its parameter
 *   step was far shorter than Gamma and its running statistics hardly moved.
 * Also the cosine rule over parameters only, and the released code's L2 update-norm rule over the
 * whole state, by hand on a four-entry state. */
#include <criterion/criterion.h>
#include <math.h>

#include "method.h"
#include "testutil.h"
#include "cpu.h"
#include "ref_backend.h"

static char dir[256];
static size_t S;
static float *init_state, *trainable_mask;

static flce_backend *given_backend(void *ud, flce_err *e) { return ud; }

static float *final_state(const char *algo) {
    flce_run_cfg c;
    flce_run_cfg_default(&c);
    char out[512];
    snprintf(out, sizeof out, "%s/%s", dir, algo);
    c.algo = algo, c.clients = 10, c.per_round = 1, c.rounds = 1, c.batch = 32, c.seed = 5;
    c.train_subset = 600, c.test_subset = 50, c.val_size = 20, c.out = out;
    flce_backend *be = flce_backend_cpu(2);
    cr_assert_not_null(be);
    c.backend = given_backend, c.backend_ud = be;
    flce_run_summary sum;
    flce_err e;
    flce_status st = flce_run(&c, NULL, NULL, &sum, &e);
    be->destroy(be);
    cr_assert_eq(st, FLCE_OK, "%s: %s", algo, e.msg);
    flce_model m;
    cr_assert_eq(flce_model_create(&m, flce_backend_reference(), 1, 28, 28, 10, 1, &e), FLCE_OK);
    char p[600];
    snprintf(p, sizeof p, "%s/model.safetensors", out);
    cr_assert_eq(flce_model_load(&m, p, &e), FLCE_OK, "%s", e.msg);
    S = flce_model_state_size(&m);
    float *s = malloc(S * sizeof *s);
    flce_model_get_state(&m, s);
    if (!init_state) {
        init_state = malloc(S * sizeof *s), trainable_mask = malloc(S * sizeof *s);
        flce_model_init(&m, 5);
        flce_model_get_state(&m, init_state);
        for (int i = 0, o = 0; i < m.nparams; o += (int)m.p[i].n, i++)
            for (size_t j = 0; j < m.p[i].n; j++) trainable_mask[o + j] = (float)m.p[i].trainable;
    }
    flce_model_free(&m);
    return s;
}

static void setup(void) { tu_tmpdir(dir, sizeof dir); }
static void teardown(void) { tu_rm_rf(dir); }

Test(rules, parameters_only_and_running_statistics_averaged, .init = setup, .fini = teardown, .timeout = FLCE_HANG_GUARD) {
    float *w1 = final_state("fedavg"), *cg = final_state("cgsv"), *qf = final_state("qfedavg");
    float *fa = final_state("fedfa"), *fv = final_state("fedfv");
    const float *w = init_state;
    double uu = 0, moved_stats = 0;
    size_t nstats = 0;
    for (size_t j = 0; j < S; j++) {
        if (trainable_mask[j]) uu += ((double)w1[j] - w[j]) * ((double)w1[j] - w[j]);
        else moved_stats += fabs((double)w1[j] - w[j]), nstats++;
    }
    double un = sqrt(uu);
    cr_assert(un > 1e-3, "the client's update is too small to test with: |u| = %g", un);
    cr_assert(nstats > 0 && moved_stats / nstats > 1e-3, "the client's running statistics did not move");
    /* q-FedAvg's factor c, from its step projected on u */
    double dq = 0;
    for (size_t j = 0; j < S; j++)
        if (trainable_mask[j]) dq += ((double)qf[j] - w[j]) * ((double)w1[j] - w[j]);
    double c = dq / uu, L = 1 / 0.01, F = c * L * uu / (1 - c);
    cr_assert(c > 0 && c < 1, "q-FedAvg's step is not a fraction of u: c = %g", c);
    /* F: the initial model's mean loss on the client's data in evaluation mode, where the running
     * statistics (0, 1) do not normalise: large logits, a loss of tens, not ln 10 */
    cr_assert(F > 1 && F < 100, "the loss q-FedAvg's step implies is implausible: F = %g", F);
    double cg_norm = 0;
    for (size_t j = 0; j < S; j++) {
        double u = (double)w1[j] - w[j];
        if (!trainable_mask[j]) {
            cr_assert_eq(memcmp(&cg[j], &w1[j], 4), 0, "CGSV running statistic %zu: %g, the client's %g", j, cg[j], w1[j]);
            cr_assert_eq(memcmp(&qf[j], &w1[j], 4), 0, "q-FedAvg running statistic %zu", j);
            cr_assert_eq(memcmp(&fa[j], &w1[j], 4), 0, "FedFa running statistic %zu", j);
            cr_assert_eq(memcmp(&fv[j], &w1[j], 4), 0, "FedFV running statistic %zu", j);
            continue;
        }
        double tol = 2e-6 * (fabs(w[j]) + fabs(w1[j])) + 1e-9;
        double want_cg = w[j] + 0.15 * u / (un + 1e-7);
        cr_assert(fabs(cg[j] - want_cg) <= tol, "CGSV parameter %zu: %.9g, want %.9g", j, cg[j], want_cg);
        cg_norm += ((double)cg[j] - w[j]) * ((double)cg[j] - w[j]);
        cr_assert(fabs(qf[j] - (w[j] + c * u)) <= tol, "q-FedAvg parameter %zu: %.9g, want %.9g", j, qf[j], w[j] + c * u);
        cr_assert(fabs(fa[j] - (w[j] + 0.1 * u)) <= tol, "FedFa parameter %zu: %.9g, want %.9g", j, fa[j], w[j] + 0.1 * u);
        cr_assert(fabs(fv[j] - w1[j]) <= tol, "FedFV parameter %zu: %.9g, want %.9g", j, fv[j], w1[j]);
    }
    cr_assert(fabs(sqrt(cg_norm) - 0.15) < 1e-4, "CGSV's step has length %g, not Gamma = 0.15", sqrt(cg_norm));
    free(w1), free(cg), free(qf), free(fa), free(fv), free(init_state), free(trainable_mask);
}

Test(rules, cosine_rule_sees_parameters_only) {
    /* state (p0, p1, s0, s1): two parameters, two running statistics. global 0; client 1 moved
     * the parameters by (1, 0) and the statistics by (100, 0); client 2 by (0, 1) and (0, -100);
     * new global (1, 1, 50, -50). Over the parameters: cos((1,0), (1,1)) = cos((0,1), (1,1)) =
     * 1/sqrt2 for both, normalised (0.5, 0.5). Over the whole state client 2's cosine would be
     * (1 + 5000) / (sqrt(10001) sqrt(5002)) and client 1's (1 + 5000) / the same: also equal, so
     * the statistics are made unequal: client 2's statistics move by (0, 0) instead. */
    engine E;
    memset(&E, 0, sizeof E);
    uint8_t tr[4] = {1, 1, 0, 0};
    float g[4] = {0, 0, 0, 0}, st[8] = {1, 0, 100, 0, 0, 1, 0, 0}, ng[4] = {1, 1, 50, 0};
    double rc[2];
    E.S = 4, E.P = 2, E.K = 2, E.trainable = tr, E.global = g, E.states = st;
    flce_eng_cosine_rule(&E, ng, NULL, rc);
    cr_assert(fabs(rc[0] - 0.5) < 1e-15 && fabs(rc[1] - 0.5) < 1e-15, "rc = (%.17g, %.17g), want (0.5, 0.5)", rc[0], rc[1]);
    /* directions given over the parameters ([K][P]): (1, 0) and (-1, 0): the second clamps to 0 */
    float dirs[4] = {1, 0, -1, 0};
    flce_eng_cosine_rule(&E, ng, dirs, rc);
    cr_assert(rc[0] == 1 && rc[1] == 0, "rc = (%g, %g), want (1, 0)", rc[0], rc[1]);
}

Test(rules, l2_update_rule_sees_the_whole_state) {
    /* the released code's baselines' contributions (tools.py cal_client_contribution): each
     * update's L2 norm over every float of the state, running statistics too, over their sum.
     * global 0; client 1 moved (1, 0, 100, 0): norm sqrt(10001); client 2 (0, 1, 0, 0): norm 1;
     * shares sqrt(10001) / (sqrt(10001) + 1) and 1 / (sqrt(10001) + 1). Over the parameters alone
     * both would be 0.5. Directions given (FedFV's) do not change it: the models are what moved. */
    engine E;
    memset(&E, 0, sizeof E);
    uint8_t tr[4] = {1, 1, 0, 0};
    float g[4] = {0, 0, 0, 0}, st[8] = {1, 0, 100, 0, 0, 1, 0, 0}, ng[4] = {1, 1, 50, 0}, dirs[4] = {1, 0, -1, 0};
    double rc[2], rules[2 * FLCE_NRULES];
    E.S = 4, E.P = 2, E.K = 2, E.trainable = tr, E.global = g, E.states = st, E.rules = rules;
    cr_assert_str_eq(FLCE_RULE_NAMES[FLCE_RULE_L2], "l2_update");
    double a = sqrt(10001.0), want0 = a / (a + 1), want1 = 1 / (a + 1);
    for (int pass = 0; pass < 2; pass++) {
        flce_eng_cosine_rule(&E, ng, pass ? dirs : NULL, rc);
        double r0 = rules[0 * FLCE_NRULES + FLCE_RULE_L2], r1 = rules[1 * FLCE_NRULES + FLCE_RULE_L2];
        cr_assert(fabs(r0 - want0) < 1e-15 && fabs(r1 - want1) < 1e-15, "pass %d: l2 shares (%.17g, %.17g), want (%.17g, %.17g)", pass, r0, r1,
                  want0, want1);
    }
}

Test(rules, readings_beside_a_rule_of_its_own) {
    /* CGSV and q-FedAvg (FLCE_M_RULE_READINGS): the readings recorded from E->newg, the method's
     * own contributions E->rc untouched; the same case as above: L2 shares sqrt(10001) / (sqrt(10001)
     * + 1) and 1 / (sqrt(10001) + 1), cos_global over the parameters (0.5, 0.5) */
    engine E;
    memset(&E, 0, sizeof E);
    uint8_t tr[4] = {1, 1, 0, 0};
    float g[4] = {0, 0, 0, 0}, st[8] = {1, 0, 100, 0, 0, 1, 0, 0}, ng[4] = {1, 1, 50, 0};
    double rc[2] = {0.9, 0.1}, rules[2 * FLCE_NRULES];
    E.S = 4, E.P = 2, E.K = 2, E.trainable = tr, E.global = g, E.states = st, E.newg = ng, E.rc = rc, E.rules = rules;
    flce_eng_record_readings(&E);
    double a = sqrt(10001.0);
    cr_assert(rc[0] == 0.9 && rc[1] == 0.1, "the method's contributions changed: (%g, %g)", rc[0], rc[1]);
    cr_assert(fabs(rules[FLCE_RULE_L2] - a / (a + 1)) < 1e-15 && fabs(rules[FLCE_NRULES + FLCE_RULE_L2] - 1 / (a + 1)) < 1e-15);
    cr_assert(fabs(rules[FLCE_RULE_COS_GLOBAL] - 0.5) < 1e-15 && fabs(rules[FLCE_NRULES + FLCE_RULE_COS_GLOBAL] - 0.5) < 1e-15);
    cr_assert(E.rules_s >= 0);
}
