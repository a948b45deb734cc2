/* test_method.c: a method added from outside the library, through the public interface
 * (method.h), as docs/adding-a-method.md tells a researcher to: "equal", which averages the
 * uploads with equal weights and credits every selected client 1/K per round. It keeps one
 * double of state (the rounds served) and counts its hooks. Checked against values worked out
 * independently of the engine:
 *   - the selection of each round drawn here from the seeded stream the engine documents
 *     (stream select, round t; K of n, docs/formats.md), so the final contributions must be
 *     (times selected) / (T K) for every client;
 *   - the hooks run K times per round (client_begin, client_end), once per batch (local_step:
 *     ceil(n_k / batch) for each selected client k, the client sizes from clients.csv), once
 *     per round (server); the state survives between rounds (it counts T at the end);
 *   - the final model is the equal-weight average: here only its digest's existence and the
 *     run's files are checked, the rule itself is FedAvg's op with other weights. */
#include <criterion/criterion.h>
#include <math.h>

#include "cpu.h"
#include "json.h"
#include "method.h"
#include "testutil.h"

static int n_begin, n_end, n_step, n_server;

static void equal_state_size(const engine *E, size_t *f, size_t *d) {
    *f = 0;
    *d = 1;
}

static flce_status equal_begin(engine *E, int slot, flce_err *e) {
    n_begin++;
    return FLCE_OK;
}

static flce_status equal_step(engine *E, int slot, int nb, int first, flce_losses *l, flce_err *e) {
    n_step++;
    return flce_eng_sgd_step(E, nb, first, 0.0f, 1.0f, l, e);
}

static flce_status equal_end(engine *E, int slot, flce_err *e) {
    n_end++;
    return FLCE_OK;
}

static flce_status equal_server(engine *E, flce_err *e) {
    int slots[32];
    n_server++;
    for (int i = 0; i < E->K; i++) slots[i] = i, E->omega[i] = 1.0 / E->K, E->rc[i] = 1.0 / E->K;
    flce_eng_aggregate(E, E->omega, E->K, slots, E->newg);
    E->aux_d[0] += 1;
    return FLCE_OK;
}

static const flce_method EQUAL = {
    .name = "equal",
    .summary = "equal weights; 1/K to every selected client",
    .state_size = equal_state_size,
    .client_begin = equal_begin,
    .local_step = equal_step,
    .client_end = equal_end,
    .server = equal_server,
};

static double rounds_served = -1;
static flce_status served_final(engine *E, double *CE, double *seconds, flce_err *e) {
    rounds_served = E->aux_d[0];
    uint8_t all[64];
    for (int k = 0; k < E->n; k++) CE[k] = E->contrib_sum[k], all[k] = 1;
    flce_normalize(CE, all, E->n);
    return FLCE_OK;
}

static flce_backend *given(void *ud, flce_err *e) { return ud; }

Test(method, added_from_a_test_file, .timeout = FLCE_HANG_GUARD) {
    char dir[256], out[300], p[400];
    tu_tmpdir(dir, sizeof dir);
    snprintf(out, sizeof out, "%s/equal", dir);
    flce_method m = EQUAL;
    m.final = served_final;
    flce_run_cfg c;
    flce_run_cfg_default(&c);
    const int n = 8, K = 3, T = 3, batch = 32;
    uint64_t seed = 11;
    c.method = &m, c.clients = n, c.per_round = K, c.rounds = T, c.batch = batch, c.seed = seed;
    c.train_subset = 600, c.test_subset = 50, c.val_size = 20, c.out = out;
    flce_backend *be = flce_backend_cpu(2);
    cr_assert_not_null(be);
    c.backend = given, c.backend_ud = be;
    flce_run_summary sum;
    flce_err e;
    flce_status st = flce_run(&c, NULL, NULL, &sum, &e);
    be->destroy(be);
    cr_assert_eq(st, FLCE_OK, "%s", e.msg);

    /* the selection, drawn here */
    int times[8] = {0};
    for (int t = 0; t < T; t++) {
        flce_rng r;
        int sel[3];
        flce_rng_init(&r, seed, FLCE_RNG_SELECT, (uint32_t)t, 0);
        flce_rng_sample(&r, n, K, sel);
        for (int i = 0; i < K; i++) times[sel[i]]++;
    }
    snprintf(p, sizeof p, "%s/contributions.csv", out);
    FILE *f = fopen(p, "r");
    cr_assert_not_null(f);
    char line[256];
    cr_assert_not_null(fgets(line, sizeof line, f)); /* header */
    for (int k = 0; k < n; k++) {
        int client;
        double v;
        cr_assert_eq(fscanf(f, "%d,%lf\n", &client, &v), 2);
        cr_assert_eq(client, k);
        cr_assert_float_eq(v, times[k] / (double)(T * K), 1e-15, "client %d: %.17g, expected %d/%d", k, v, times[k], T * K);
    }
    fclose(f);

    /* the hooks: per client and round, per batch, per round; the state across rounds */
    int steps = 0;
    snprintf(p, sizeof p, "%s/clients.csv", out);
    f = fopen(p, "r");
    cr_assert_not_null(f);
    cr_assert_not_null(fgets(line, sizeof line, f));
    int size[8];
    for (int k = 0; k < n; k++) {
        int client, held, noisy;
        double s;
        cr_assert_eq(fscanf(f, "%d,%lf,%d,%d\n", &client, &s, &held, &noisy), 4);
        size[k] = (int)s;
    }
    fclose(f);
    for (int k = 0; k < n; k++) steps += times[k] * ((size[k] + batch - 1) / batch);
    cr_assert_eq(n_begin, T * K);
    cr_assert_eq(n_end, T * K);
    cr_assert_eq(n_server, T);
    cr_assert_eq(n_step, steps, "local steps %d, expected %d", n_step, steps);
    cr_assert_eq(rounds_served, (double)T);
    /* the method's name is the run's */
    snprintf(p, sizeof p, "%s/config.json", out);
    flce_status js;
    cJSON *cfg = flce_json_read(p, 1 << 20, &js, &e);
    cr_assert_not_null(cfg, "%s", e.msg);
    cr_assert_str_eq(flce_json_str(cfg, "algo"), "equal");
    cJSON_Delete(cfg);
    tu_rm_rf(dir);
}

Test(method, registry_lists_every_method_once) {
    /* `all`, --algo and the help come from the registry: FLCE and the paper's ten baselines (a
     * method added later joins them), names unique */
    static const char *const paper[] = {"flce", "fedavg", "fedprox", "ditto", "moon", "fedfv", "cgsv", "qfedavg", "fedfa", "fedsv", "gtg"};
    for (size_t i = 0; i < sizeof paper / sizeof paper[0]; i++) cr_assert_not_null(flce_method_find(paper[i]), "%s missing", paper[i]);
    cr_assert_geq(flce_method_count(), 11);
    for (int i = 0; i < flce_method_count(); i++) {
        const char *a = flce_method_name(i);
        cr_assert_eq(flce_method_find(a), flce_method_at(i));
        cr_assert_not_null(flce_method_at(i)->server, "%s: no server step", a);
        cr_assert_not_null(strstr(flce_method_help(), a));
        for (int j = 0; j < i; j++) cr_assert_str_neq(a, flce_method_name(j));
        /* the report draws each method in its own colour: "#rrggbb", none shared */
        const char *c = flce_method_at(i)->color;
        cr_assert(c && strlen(c) == 7 && c[0] == '#' && strspn(c + 1, "0123456789abcdef") == 6, "%s: colour '%s'", a, c ? c : "(none)");
        for (int j = 0; j < i; j++) cr_assert_str_neq(c, flce_method_at(j)->color, "%s and %s share a colour", a, flce_method_name(j));
    }
    cr_assert_null(flce_method_find("nope"));
    /* the Shapley methods, which the report leaves out of the KL, distance and diversity claims */
    cr_assert(flce_method_find("fedsv")->flags & FLCE_M_SHAPLEY);
    cr_assert(flce_method_find("gtg")->flags & FLCE_M_SHAPLEY);
    cr_assert_not(flce_method_find("fedavg")->flags & FLCE_M_SHAPLEY);
}

/* The methods' settings tables (engine.h: flce_setting): each flag once, its default within its
 * limits, the values given checked against limits worked out from the methods' papers and
 * docs/baselines.md (mu, lambda >= 0; temperatures > 0; permutations a whole number >= 1). */
Test(method, settings_tables) {
    flce_run_cfg c;
    flce_err e;
    flce_run_cfg_default(&c);
    int n = flce_setting_count();
    cr_assert_geq(n, 10);
    for (int i = 0; i < n; i++) {
        const flce_setting *s = flce_setting_at(i);
        cr_assert_eq(flce_setting_find(s->flag), s);
        for (int j = 0; j < i; j++) cr_assert_str_neq(s->flag, flce_setting_at(j)->flag);
        cr_assert_eq(flce_run_cfg_set_value(&c, s, s->def, &e), FLCE_OK, "--%s: its default refused: %s", s->flag, e.msg);
        char who[200];
        cr_assert(strlen(flce_setting_methods(s, who, sizeof who)) > 0, "--%s: no method declares it", s->flag);
    }
    flce_run_cfg_default(&c);
    const flce_setting *mu = flce_setting_find("prox-mu"), *tau = flce_setting_find("moon-tau"), *perms = flce_setting_find("mc-perms");
    const flce_setting *sh = flce_setting_find("shapley"), *ut = flce_setting_find("utility");
    cr_assert(mu && tau && perms && sh && ut);
    cr_assert(flce_method_has_setting("fedprox", mu) && !flce_method_has_setting("flce", mu));
    cr_assert(flce_method_has_setting("fedsv", ut) && flce_method_has_setting("gtg", ut) && !flce_method_has_setting("fedavg", ut));
    cr_assert_float_eq(flce_run_cfg_get(&c, mu), 0.01, 0); /* the default when not set */
    cr_assert_eq(flce_run_cfg_set(&c, mu, "0.25", &e), FLCE_OK);
    cr_assert_float_eq(flce_run_cfg_get(&c, mu), 0.25, 0);
    cr_assert_eq(flce_run_cfg_set(&c, mu, "0", &e), FLCE_OK); /* mu = 0: FedAvg's local step */
    cr_assert_eq(flce_run_cfg_set(&c, mu, "-0.1", &e), FLCE_ERR_ARG);
    cr_assert_not_null(strstr(e.msg, "--prox-mu"), "%s", e.msg);
    cr_assert_eq(flce_run_cfg_set(&c, mu, "abc", &e), FLCE_ERR_ARG);
    cr_assert_eq(flce_run_cfg_set(&c, tau, "0", &e), FLCE_ERR_ARG); /* a temperature > 0 */
    cr_assert_eq(flce_run_cfg_set(&c, perms, "1.5", &e), FLCE_ERR_ARG);
    cr_assert_eq(flce_run_cfg_set(&c, perms, "0", &e), FLCE_ERR_ARG);
    cr_assert_eq(flce_run_cfg_set(&c, perms, "7", &e), FLCE_OK);
    cr_assert_eq(flce_run_cfg_set(&c, sh, "mc", &e), FLCE_OK);
    cr_assert_float_eq(flce_run_cfg_get(&c, sh), 1, 0); /* the word's index in "exact|mc" */
    char t[32];
    cr_assert_str_eq(flce_setting_text(sh, flce_run_cfg_get(&c, sh), t, sizeof t), "mc");
    cr_assert_eq(flce_run_cfg_set(&c, sh, "exactly", &e), FLCE_ERR_ARG);
    cr_assert_not_null(strstr(e.msg, "exact,mc"), "%s", e.msg);
    cr_assert_float_eq(flce_run_cfg_get(&c, mu), 0, 0); /* the refused values left the last one */
}
