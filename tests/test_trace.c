/* test_trace.c: the trace evaluator by its properties on seeded random traces: Q sums to
 * 1 per class per round over the clients that hold the class; completion leaves observed
 * entries unchanged and gives finite, non-negative entries; contributions form a
 * distribution; -CMC does not depend on the order of clients; the same input gives the
 * same bits; degenerate rounds give defined results, malformed traces clear errors. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "flce_eq.h"

enum { T = 12, N = 8, C = 3, D = 5, K = 3 };
static float proto[T * N * C * D];
static uint8_t sel[T * N];

static void make_trace(uint64_t seed, int empty_round) {
    flce_rng r;
    flce_rng_init(&r, seed, FLCE_RNG_TEST, 20, 0);
    for (int i = 0; i < T * N * C * D; i++) proto[i] = NAN;
    memset(sel, 0, sizeof sel);
    for (int t = 0; t < T; t++) {
        if (t == empty_round) continue;
        int s[K];
        flce_rng_sample(&r, N, K, s);
        for (int j = 0; j < K; j++) {
            sel[t * N + s[j]] = 1;
            for (int c = 0; c < C; c++) {
                if (flce_rng_uniform(&r) < 0.25) continue; /* client lacks the class */
                for (int i = 0; i < D; i++)
                    proto[((t * N + s[j]) * C + c) * D + i] = (float)(flce_rng_normal(&r) + c);
            }
        }
    }
}

static flce_trace trace(void) { return (flce_trace){T, N, C, D, proto, sel, NULL, NULL, NULL, NULL, NULL}; }

Test(trace, properties_of_a_random_trace) {
    make_trace(1, 5); /* round 5 selects nobody */
    flce_trace tr = trace();
    flce_completion_cfg cc;
    flce_completion_cfg_default(&cc);
    flce_eval_result a, b;
    flce_err e = {{0}};
    cr_assert_eq(flce_eval_trace(&tr, NULL, &cc, &a, &e), FLCE_OK, "%s", e.msg);
    cr_assert_eq(flce_eval_trace(&tr, NULL, &cc, &b, &e), FLCE_OK);
    for (int t = 0; t < T; t++)
        for (int c = 0; c < C; c++) {
            double s = 0;
            int m = 0;
            for (int k = 0; k < N; k++) {
                double q = a.Q[(t * N + k) * C + c], x = a.X[(t * N + k) * C + c];
                cr_assert(isfinite(x) && x >= 0, "X[%d][%d][%d] = %g", t, k, c, x);
                if (!sel[t * N + k]) {
                    cr_assert(isnan(q));
                    continue;
                }
                cr_assert_eq(x, q, "observed entry changed"); /* bit for bit */
                int present = !isnan(proto[((t * N + k) * C + c) * D]);
                if (!present) cr_assert_eq(q, 0.0);
                s += q;
                m += present;
            }
            if (m) cr_assert(fabs(s - 1) < 1e-14, "round %d class %d: sum %g", t, c, s);
        }
    double s = 0;
    for (int k = 0; k < N; k++) {
        cr_assert(a.CE[k] >= 0);
        s += a.CE[k];
    }
    cr_assert(fabs(s - 1) < 1e-14);
    cr_assert_eq(memcmp(a.CE, b.CE, sizeof(double) * N), 0, "not deterministic");
    cr_assert_eq(memcmp(a.X, b.X, sizeof(double) * T * N * C), 0);
    flce_eval_result_free(&a);
    flce_eval_result_free(&b);
}

Test(trace, no_completion_ignores_client_order) {
    make_trace(2, -1);
    static float p2[T * N * C * D];
    static uint8_t s2[T * N];
    int perm[N];
    flce_rng r;
    flce_rng_init(&r, 3, FLCE_RNG_TEST, 21, 0);
    flce_rng_permutation(&r, N, perm);
    for (int t = 0; t < T; t++)
        for (int k = 0; k < N; k++) {
            s2[t * N + perm[k]] = sel[t * N + k];
            memcpy(p2 + (t * N + perm[k]) * C * D, proto + (t * N + k) * C * D, sizeof(float) * C * D);
        }
    flce_ablation ab = {0, 0, 0, 1};
    flce_completion_cfg cc;
    flce_completion_cfg_default(&cc);
    flce_trace tr = trace(), tr2 = {T, N, C, D, p2, s2, NULL, NULL, NULL, NULL, NULL};
    flce_eval_result a, b;
    cr_assert_eq(flce_eval_trace(&tr, &ab, &cc, &a, NULL), FLCE_OK);
    cr_assert_eq(flce_eval_trace(&tr2, &ab, &cc, &b, NULL), FLCE_OK);
    for (int k = 0; k < N; k++) cr_assert(fabs(a.CE[k] - b.CE[perm[k]]) < 1e-14);
    /* -CMC: missing entries are 0 */
    for (int i = 0; i < T * N; i++)
        if (!sel[i])
            for (int c = 0; c < C; c++) cr_assert_eq(a.X[i * C + c], 0.0);
    flce_eval_result_free(&a);
    flce_eval_result_free(&b);
}

Test(trace, one_client_per_round_and_weights) {
    /* one selected client per round, every class: Q = 1 for it; with -CMC the contribution of
     * client k is (rounds it was selected) / T */
    make_trace(4, -1);
    for (int t = 0; t < T; t++)
        for (int k = 0; k < N; k++) {
            sel[t * N + k] = k == t % N;
            for (int c = 0; c < C; c++)
                for (int i = 0; i < D; i++) proto[((t * N + k) * C + c) * D + i] = k == t % N ? (float)(i + 1) : NAN;
        }
    flce_ablation ab = {0, 0, 0, 1};
    flce_completion_cfg cc;
    flce_completion_cfg_default(&cc);
    flce_trace tr = trace();
    flce_eval_result a;
    cr_assert_eq(flce_eval_trace(&tr, &ab, &cc, &a, NULL), FLCE_OK);
    for (int k = 0; k < N; k++) cr_assert(fabs(a.CE[k] - (k < T - N ? 2.0 : 1.0) / T) < 1e-15, "%d: %g", k, a.CE[k]);
    flce_eval_result_free(&a);
    /* round weights: only round 0 counts -> client 0 gets everything */
    double rw[T] = {1};
    tr.round_weights = rw;
    cr_assert_eq(flce_eval_trace(&tr, &ab, &cc, &a, NULL), FLCE_OK);
    cr_assert_eq(a.CE[0], 1.0);
    flce_eval_result_free(&a);
}

Test(trace, malformed_traces) {
    make_trace(5, -1);
    flce_completion_cfg cc;
    flce_completion_cfg_default(&cc);
    flce_trace tr = trace();
    flce_eval_result a;
    flce_err e = {{0}};
    int k = 0;
    while (sel[0 * N + k]) k++; /* an unselected client in round 0 */
    for (int i = 0; i < D; i++) proto[((0 * N + k) * C + 1) * D + i] = 1;
    cr_assert_eq(flce_eval_trace(&tr, NULL, &cc, &a, &e), FLCE_ERR_FORMAT);
    cr_assert(strstr(e.msg, "not selected"), "%s", e.msg);
    make_trace(5, -1);
    while (!sel[0 * N + k]) k = (k + 1) % N;
    for (int c = 0; c < C; c++) proto[((0 * N + k) * C + c) * D + 2] = NAN;
    proto[((0 * N + k) * C + 0) * D + 0] = 1;
    cr_assert_eq(flce_eval_trace(&tr, NULL, &cc, &a, &e), FLCE_ERR_FORMAT);
    cr_assert(strstr(e.msg, "partly NaN"), "%s", e.msg);
}

Test(trace, initial_prototypes_by_hand) {
    /* one round, two clients, two classes, each client's prototype (1,0) and (0,2) in both. Mass:
     * pbar = (1/2, 1), s = (1/3, 2/3), phat = (1/3, 4/3), M = (1/5, 4/5). Round 1's previous global
     * prototypes (the released code's g^0): class 0 has g = (0,0), so V = (1, 4)/5 and
     * Q = (1/25, 16/25)/(17/25) = (1/17, 16/17); class 1 has none (a NaN row): V uniform, Q = M =
     * (1/5, 4/5), as both classes without g^0 */
    float p[2 * 2 * 2] = {1, 0, 1, 0, 0, 2, 0, 2};
    uint8_t s[2] = {1, 1};
    double g0[2 * 2] = {0, 0, NAN, NAN};
    flce_ablation ab = {0, 0, 0, 1};
    flce_completion_cfg cc;
    flce_completion_cfg_default(&cc);
    flce_trace tr = {1, 2, 2, 2, p, s, NULL, NULL, NULL, NULL, g0};
    flce_eval_result a, b;
    cr_assert_eq(flce_eval_trace(&tr, &ab, &cc, &a, NULL), FLCE_OK);
    tr.initial_g = NULL;
    cr_assert_eq(flce_eval_trace(&tr, &ab, &cc, &b, NULL), FLCE_OK);
    const double want_a[4] = {1.0 / 17, 0.2, 16.0 / 17, 0.8}, want_b[4] = {0.2, 0.2, 0.8, 0.8}; /* [client][class] */
    for (int i = 0; i < 4; i++) {
        cr_assert(fabs(a.Q[i] - want_a[i]) < 1e-15, "with g^0: Q[%d] = %.17g, want %.17g", i, a.Q[i], want_a[i]);
        cr_assert(fabs(b.Q[i] - want_b[i]) < 1e-15, "without: Q[%d] = %.17g, want %.17g", i, b.Q[i], want_b[i]);
    }
    flce_eval_result_free(&a), flce_eval_result_free(&b);
    g0[2] = 1; /* class 1's row partly NaN */
    tr.initial_g = g0;
    flce_err e = {{0}};
    cr_assert_eq(flce_eval_trace(&tr, &ab, &cc, &a, &e), FLCE_ERR_FORMAT);
    cr_assert(strstr(e.msg, "initial_prototypes.npy: class 1 is partly NaN"), "%s", e.msg);
}
