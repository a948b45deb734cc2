/* test_memo.c: the memo of work runs share (fl/memo.c, flce truth --reuse-mb), through the public
 * interface (engine.h). What is expected is worked out from the runs' own settings, not read
 * from the memo:
 *   - a run given again with the same memo trains nothing and tests nothing of its own: every
 *     update it needs and every model it tests are the run before's (its counts of reused work
 *     equal the run before's counts of work done), and its final model is the same bytes;
 *   - a run that differs in a setting that can change bits (the learning rate, the evaluation
 *     batch, the backend's denormal mode) reuses nothing: the memo is emptied, the counts of
 *     reused work stay as they were. The evaluation batch is not in config.json: before
 *     the memo keyed on it beside config.json, a run of another evaluation batch took the
 *     earlier run's test results. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "cpu.h"
#include "method.h"
#include "testutil.h"

static flce_backend *given(void *ud, flce_err *e) {
    (void)e;
    return ud;
}

/* The final model's digest line of digests.txt in out (the line whole, into d). */
static void final_digest(const char *out, char *d, size_t cap) {
    char p[400], line[256];
    snprintf(p, sizeof p, "%s/digests.txt", out);
    FILE *f = fopen(p, "r");
    cr_assert_not_null(f, "%s", p);
    d[0] = 0;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "final_model", 11)) snprintf(d, cap, "%s", line);
    fclose(f);
    cr_assert(d[0], "%s: no final_model line", p);
}

static void run(flce_memo *m, flce_backend *be, const char *out, double lr, int eval_batch, long c[4]) {
    flce_run_cfg c0;
    flce_run_cfg_default(&c0);
    c0.method = flce_method_find("fedavg");
    cr_assert_not_null(c0.method);
    c0.clients = 3, c0.per_round = 2, c0.rounds = 2, c0.batch = 32, c0.seed = 7, c0.lr = lr;
    c0.train_subset = 300, c0.test_subset = 60, c0.val_size = 12, c0.eval_batch = eval_batch;
    c0.out = out, c0.force = 1, c0.memo = m;
    c0.backend = given, c0.backend_ud = be;
    flce_run_summary sum;
    flce_err e;
    flce_status st = flce_run(&c0, NULL, NULL, &sum, &e);
    cr_assert_eq(st, FLCE_OK, "%s", e.msg);
    flce_memo_counts(m, c);
}

Test(memo, reused_only_for_the_same_settings, .timeout = FLCE_HANG_GUARD) {
    char dir[256], a[300], b[300], x[300], da[256], db[256];
    tu_tmpdir(dir, sizeof dir);
    snprintf(a, sizeof a, "%s/a", dir), snprintf(b, sizeof b, "%s/b", dir), snprintf(x, sizeof x, "%s/x", dir);
    flce_backend *be = flce_backend_cpu(2);
    cr_assert_not_null(be);
    flce_memo *m = flce_memo_new((size_t)64 << 20);
    cr_assert_not_null(m);
    long c1[4], c2[4], c3[4], c4[4];

    run(m, be, a, 0.05, 256, c1);
    cr_assert_eq(c1[0], 0, "the first run reused %ld updates", c1[0]);
    cr_assert_eq(c1[1], 2 * 2, "2 rounds x 2 clients trained: %ld", c1[1]); /* T K */
    cr_assert_eq(c1[2], 0);
    cr_assert(c1[3] >= 2, "at least the 2 rounds' models tested: %ld", c1[3]);

    run(m, be, b, 0.05, 256, c2); /* again: all of it the first run's */
    cr_assert_eq(c2[0], c1[1], "updates reused %ld, the first run trained %ld", c2[0], c1[1]);
    cr_assert_eq(c2[1], c1[1], "the second run trained %ld", c2[1] - c1[1]);
    cr_assert_eq(c2[2], c1[3], "evaluations reused %ld, the first run ran %ld", c2[2], c1[3]);
    cr_assert_eq(c2[3], c1[3], "the second run tested %ld", c2[3] - c1[3]);
    final_digest(a, da, sizeof da), final_digest(b, db, sizeof db);
    cr_assert_str_eq(da, db);

    run(m, be, x, 0.05, 128, c3); /* another evaluation batch: nothing reused */
    cr_assert_eq(c3[0], c2[0], "updates reused across evaluation batches: %ld", c3[0] - c2[0]);
    cr_assert_eq(c3[2], c2[2], "evaluations reused across evaluation batches: %ld", c3[2] - c2[2]);
    cr_assert_eq(c3[1], c2[1] + 2 * 2);

    run(m, be, x, 0.02, 128, c4); /* another learning rate: nothing reused */
    cr_assert_eq(c4[0], c3[0], "updates reused across learning rates: %ld", c4[0] - c3[0]);
    cr_assert_eq(c4[2], c3[2], "evaluations reused across learning rates: %ld", c4[2] - c3[2]);

    flce_memo_free(m);
    be->destroy(be);
    tu_rm_rf(dir);
}
