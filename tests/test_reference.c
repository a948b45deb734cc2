/* test_reference.c: every FLCE equation on small cases worked out by hand (the working is
 * in each test's comment), and the properties docs/flce.md promises. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "flce_eq.h"

#define NEAR(a, b, tol) cr_assert(fabs((a) - (b)) <= (tol), "%s = %.17g, expected %.17g", #a, (double)(a), (double)(b))

Test(helpers, cosine_and_normalize) {
    double a[2] = {1, 0}, b[2] = {1, 1}, z[2] = {0, 0};
    NEAR(flce_cosine(a, b, 2), 1 / sqrt(2), 1e-15);
    cr_assert_eq(flce_cosine(a, z, 2), 0.0); /* a zero norm gives 0 */
    double x[3] = {1, 3, 99};
    uint8_t pr[3] = {1, 1, 0};
    flce_normalize(x, pr, 3); /* 1/4, 3/4, absent 0 */
    NEAR(x[0], 0.25, 0);
    NEAR(x[1], 0.75, 0);
    cr_assert_eq(x[2], 0.0);
    double y[3] = {0, 0, 5};
    flce_normalize(y, pr, 3); /* sum 0 over present: uniform */
    NEAR(y[0], 0.5, 0);
    NEAR(y[1], 0.5, 0);
    double w[2] = {INFINITY, 1};
    uint8_t both[2] = {1, 1};
    flce_normalize(w, both, 2); /* sum not finite: uniform */
    NEAR(w[0], 0.5, 0);
}

Test(mass, three_clients_by_hand) {
    /* p1 = p2 = (1,0), p3 = (0,1). pbar = (2/3, 1/3), |pbar| = sqrt5/3:
     * cos(p1,pbar) = 2/sqrt5, cos(p3,pbar) = 1/sqrt5 -> s = (2,2,1)/5.
     * phat = 2/5 (1,0) + 2/5 (1,0) + 1/5 (0,1) = (0.8, 0.2);
     * cos(p1,phat) = 0.8/|phat|, cos(p3,phat) = 0.2/|phat| -> M = (0.8,0.8,0.2)/1.8 = (4/9,4/9,1/9). */
    double p[6] = {1, 0, 1, 0, 0, 1}, M[3];
    uint8_t pr[3] = {1, 1, 1};
    flce_mass(p, pr, 3, 2, M);
    NEAR(M[0], 4.0 / 9, 1e-15);
    NEAR(M[1], 4.0 / 9, 1e-15);
    NEAR(M[2], 1.0 / 9, 1e-15);
}

Test(mass, negative_cosine_is_clamped) {
    /* p1 = (1,0), p2 = (-1,0.1): pbar = (0, 0.05): cos(p1,pbar) = 0, cos(p2,pbar) > 0 -> s = (0,1),
     * phat = p2; cos(p1,p2) < 0 -> 0; cos(p2,p2) = 1 -> M = (0,1). */
    double p[4] = {1, 0, -1, 0.1}, M[2];
    uint8_t pr[2] = {1, 1};
    flce_mass(p, pr, 2, 2, M);
    NEAR(M[0], 0, 0);
    NEAR(M[1], 1, 1e-15);
}

Test(velocity, distances_to_the_global_prototype) {
    /* g = (0,0): |p1 - g|^2 = 1, |p2 - g|^2 = 4 -> V = (0.2, 0.8); no g yet -> uniform */
    double p[4] = {1, 0, 0, 2}, g[2] = {0, 0}, V[2];
    uint8_t pr[2] = {1, 1};
    flce_velocity(p, pr, 2, 2, g, V);
    NEAR(V[0], 0.2, 1e-16);
    NEAR(V[1], 0.8, 1e-16);
    flce_velocity(p, pr, 2, 2, NULL, V);
    NEAR(V[0], 0.5, 0);
    NEAR(V[1], 0.5, 0);
}

Test(velocity, as_released_by_hand) {
    /* the released code's velocity ||p - g|| (not squared): g = (0,0), |p1 - g| = 1, |p2 - g| = 2
     * -> V = (1/3, 2/3); no g, a class that forgets: g taken as 0, the same numbers; no g under
     * the text: uniform */
    double p[4] = {1, 0, 0, 2}, g[2] = {0, 0}, V[2];
    uint8_t pr[2] = {1, 1};
    flce_round_rules dist = {1, 0, 0}, forget = {0, 1, 0}, both = {1, 1, 0};
    flce_velocity_rules(p, pr, 2, 2, g, &dist, V);
    NEAR(V[0], 1.0 / 3, 1e-16);
    NEAR(V[1], 2.0 / 3, 1e-16);
    flce_velocity_rules(p, pr, 2, 2, NULL, &forget, V); /* squared: (1, 4) -> (0.2, 0.8) */
    NEAR(V[0], 0.2, 1e-16);
    NEAR(V[1], 0.8, 1e-16);
    flce_velocity_rules(p, pr, 2, 2, NULL, &both, V);
    NEAR(V[0], 1.0 / 3, 1e-16);
    flce_velocity_rules(p, pr, 2, 2, NULL, &dist, V); /* distance alone keeps the text's uniform without g */
    NEAR(V[0], 0.5, 0);
}

Test(round, as_released_forgets_an_absent_class) {
    /* one class, p0 = (1,0), p1 = (0,2), no global prototype yet. Mass: pbar = (1/2, 1), s = (1/3, 2/3),
     * phat = (1/3, 4/3), M = (1/5, 4/5). The text: V uniform, Q = M = (1/5, 4/5). Forgetting (g = 0):
     * V = (1, 4)/5, Q = (1/25, 16/25)/(17/25) = (1/17, 16/17); with the distance, V = (1, 2)/3, Q = (1, 8)/9.
     * Then a round without the class: the text keeps g, the released code loses it. */
    float proto[4] = {1, 0, 0, 2};
    uint8_t pr[2] = {1, 1}, none[2] = {0, 0}, has_g[1];
    double g[2], Q[2];
    const flce_round_rules rules[3] = {{0, 0, 0}, {0, 1, 0}, {1, 1, 0}};
    const double want0[3] = {0.2, 1.0 / 17, 1.0 / 9};
    for (int r = 0; r < 3; r++) {
        has_g[0] = 0;
        cr_assert_eq(flce_round(proto, pr, 2, 1, 2, NULL, &rules[r], g, has_g, Q, NULL), FLCE_OK);
        NEAR(Q[0], want0[r], 1e-15);
        NEAR(Q[0] + Q[1], 1, 1e-15);
        cr_assert_eq(has_g[0], 1);
        cr_assert_eq(flce_round(proto, none, 2, 1, 2, NULL, &rules[r], g, has_g, Q, NULL), FLCE_OK);
        cr_assert_eq(has_g[0], r == 0, "rules %d: has_g %d after a round without the class", r, has_g[0]);
    }
}

Test(guard, clip_prototypes_by_hand) {
    /* lengths 3, 4, 20 and an absent row of 100: the lower median of (3, 4, 20) is 4, kappa 2 -> cap 8:
     * (12, 16) becomes (12, 16) x 8/20 = (4.8, 6.4); the rest unchanged */
    double p[8] = {3, 0, 0, 4, 12, 16, 100, 0};
    uint8_t pr[4] = {1, 1, 1, 0};
    cr_assert_eq(flce_clip_prototypes(p, pr, 4, 2, 2), 1);
    NEAR(p[4], 4.8, 1e-15);
    NEAR(p[5], 6.4, 1e-15);
    cr_assert(p[0] == 3 && p[1] == 0 && p[2] == 0 && p[3] == 4 && p[6] == 100 && p[7] == 0);
    /* two rows, lengths 1 and 10: the lower median is the shorter, 1; kappa 2 -> (0, 10) to (0, 2) */
    double q[4] = {1, 0, 0, 10};
    cr_assert_eq(flce_clip_prototypes(q, pr, 2, 2, 2), 1);
    cr_assert(q[0] == 1 && q[1] == 0 && q[2] == 0 && q[3] == 2);
    /* kappa 0: off; one row alone is its own median: never shortened */
    double r[4] = {1, 0, 0, 10};
    cr_assert_eq(flce_clip_prototypes(r, pr, 2, 2, 0), 0);
    cr_assert_eq(flce_clip_prototypes(r + 2, pr, 1, 2, 1), 0);
    cr_assert(r[3] == 10);
}

Test(guard, forged_prototype_scaled_back) {
    /* one class, p0 = (1,0), p1 = (0,2) or forged (0,20), no global prototype yet. Under the guard at
     * kappa 1 the lower median length is 1 and p1 becomes (0,1) either way: pbar = (1/2,1/2), s = (1/2,1/2),
     * phat = (1/2,1/2), M = (1/2,1/2), V uniform: Q = (1/2,1/2) and g = (1/2,1/2). Without it, (0,2)
     * gives Q = (1/5, 4/5) (the test above). */
    float honest[4] = {1, 0, 0, 2}, forged[4] = {1, 0, 0, 20};
    uint8_t pr[2] = {1, 1}, has_g[1];
    double g[2], Q[2];
    const flce_round_rules guard = {0, 0, 1};
    for (int f = 0; f < 2; f++) {
        has_g[0] = 0;
        cr_assert_eq(flce_round(f ? forged : honest, pr, 2, 1, 2, NULL, &guard, g, has_g, Q, NULL), FLCE_OK);
        NEAR(Q[0], 0.5, 1e-15);
        NEAR(Q[1], 0.5, 1e-15);
        NEAR(g[0], 0.5, 1e-15);
        NEAR(g[1], 0.5, 1e-15);
    }
}

Test(momentum, product_normalised) {
    /* M = (4/9,4/9,1/9), V = (1/2,1/4,1/4): MV = (8,4,1)/36 -> Q = (8,4,1)/13 */
    double M[3] = {4.0 / 9, 4.0 / 9, 1.0 / 9}, V[3] = {0.5, 0.25, 0.25}, Q[3];
    uint8_t pr[3] = {1, 1, 1};
    flce_momentum(M, V, pr, 3, Q);
    NEAR(Q[0], 8.0 / 13, 1e-15);
    NEAR(Q[1], 4.0 / 13, 1e-15);
    NEAR(Q[2], 1.0 / 13, 1e-15);
}

Test(aggregation, global_prototype_and_model_weights) {
    /* g = 0.25 (1,0) + 0.75 (0,4) = (0.25, 3) */
    double p[4] = {1, 0, 0, 4}, Q[2] = {0.25, 0.75}, g[2];
    uint8_t pr[2] = {1, 1};
    flce_global_prototype(p, Q, pr, 2, 2, g);
    NEAR(g[0], 0.25, 0);
    NEAR(g[1], 3, 0);
    /* Q = [[0.5, 1], [0.5, 0]]: row sums 1.5, 0.5 -> omega = (0.75, 0.25) */
    double Qm[4] = {0.5, 1, 0.5, 0}, sizes[2] = {10, 30}, om[2];
    cr_assert_eq(flce_aggregation_weights(Qm, 2, 2, sizes, om), 0);
    NEAR(om[0], 0.75, 0);
    NEAR(om[1], 0.25, 0);
    /* no prototype at all: data-size weights (10, 30)/40 */
    double Z[4] = {0};
    cr_assert_eq(flce_aggregation_weights(Z, 2, 2, sizes, om), 1);
    NEAR(om[0], 0.25, 0);
    NEAR(om[1], 0.75, 0);
}

Test(round, two_rounds_by_hand) {
    /* Round 1 (no g yet): V uniform, Q = M = (4/9,4/9,1/9) (mass test), g = (8/9, 1/9).
     * Round 2, same prototypes: |p1-g|^2 = |p2-g|^2 = 2/81, |p3-g|^2 = 128/81 -> V = (2,2,128)/132;
     * MV ∝ (8, 8, 128) -> Q = (1/18, 1/18, 8/9). */
    float proto[6] = {1, 0, 1, 0, 0, 1};
    uint8_t pr[3] = {1, 1, 1}, has_g[1] = {0};
    double g[2], Q[3];
    cr_assert_eq(flce_round(proto, pr, 3, 1, 2, NULL, NULL, g, has_g, Q, NULL), FLCE_OK);
    NEAR(Q[0], 4.0 / 9, 1e-15);
    NEAR(Q[2], 1.0 / 9, 1e-15);
    cr_assert_eq(has_g[0], 1);
    NEAR(g[0], 8.0 / 9, 1e-15);
    NEAR(g[1], 1.0 / 9, 1e-15);
    cr_assert_eq(flce_round(proto, pr, 3, 1, 2, NULL, NULL, g, has_g, Q, NULL), FLCE_OK);
    NEAR(Q[0], 1.0 / 18, 1e-14);
    NEAR(Q[1], 1.0 / 18, 1e-14);
    NEAR(Q[2], 8.0 / 9, 1e-14);
}

Test(round, ablations_change_only_q) {
    /* second round of the case above: -M gives V = (2,2,128)/132, -V gives M, -Q gives 1/3 */
    float proto[6] = {1, 0, 1, 0, 0, 1};
    uint8_t pr[3] = {1, 1, 1};
    flce_ablation abs[3] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}};
    double want[3][3] = {{2.0 / 132, 2.0 / 132, 128.0 / 132}, {4.0 / 9, 4.0 / 9, 1.0 / 9}, {1.0 / 3, 1.0 / 3, 1.0 / 3}};
    for (int a = 0; a < 3; a++) {
        uint8_t has_g[1] = {1};
        double g[2] = {8.0 / 9, 1.0 / 9}, Q[3];
        cr_assert_eq(flce_round(proto, pr, 3, 1, 2, &abs[a], NULL, g, has_g, Q, NULL), FLCE_OK);
        for (int k = 0; k < 3; k++) NEAR(Q[k], want[a][k], 1e-14);
    }
}

Test(round, q_sums_to_one_per_class_and_ignores_client_order) {
    flce_rng r;
    flce_rng_init(&r, 4, FLCE_RNG_TEST, 0, 0);
    enum { K = 7, C = 4, D = 5 };
    float proto[K * C * D], perm_proto[K * C * D];
    uint8_t pr[K * C], perm_pr[K * C];
    int perm[K];
    flce_rng_permutation(&r, K, perm);
    for (int i = 0; i < K * C * D; i++) proto[i] = (float)flce_rng_normal(&r);
    for (int i = 0; i < K * C; i++) pr[i] = flce_rng_uniform(&r) < 0.7;
    pr[0 * C + 3] = 1; /* class 3 held by client 0 only */
    for (int k = 1; k < K; k++) pr[k * C + 3] = 0;
    for (int k = 0; k < K; k++) {
        memcpy(perm_proto + perm[k] * C * D, proto + k * C * D, sizeof(float) * C * D);
        memcpy(perm_pr + perm[k] * C, pr + k * C, C);
    }
    double g[C * D], g2[C * D], Q[K * C], Q2[K * C];
    uint8_t hg[C] = {0}, hg2[C] = {0};
    for (int round = 0; round < 3; round++) {
        cr_assert_eq(flce_round(proto, pr, K, C, D, NULL, NULL, g, hg, Q, NULL), FLCE_OK);
        cr_assert_eq(flce_round(perm_proto, perm_pr, K, C, D, NULL, NULL, g2, hg2, Q2, NULL), FLCE_OK);
        for (int c = 0; c < C; c++) {
            double s = 0;
            int m = 0;
            for (int k = 0; k < K; k++) {
                if (!pr[k * C + c]) cr_assert_eq(Q[k * C + c], 0.0);
                s += Q[k * C + c];
                m += pr[k * C + c];
                NEAR(Q2[perm[k] * C + c], Q[k * C + c], 1e-13);
            }
            if (m) NEAR(s, 1.0, 1e-14);
        }
        NEAR(Q[0 * C + 3], 1.0, 0); /* a class held by one client: Q = 1 */
        for (int i = 0; i < C * D; i++) NEAR(g2[i], g[i], 1e-12);
    }
}

Test(round, degenerate_inputs) {
    /* all-zero prototypes: cosines are 0 -> uniform M; no g -> uniform V; Q uniform, finite */
    float zero[6] = {0};
    uint8_t pr[3] = {1, 1, 1}, hg[1] = {0};
    double g[2], Q[3];
    cr_assert_eq(flce_round(zero, pr, 3, 1, 2, NULL, NULL, g, hg, Q, NULL), FLCE_OK);
    for (int k = 0; k < 3; k++) NEAR(Q[k], 1.0 / 3, 1e-16);
    /* again: all distances 0 -> uniform, not NaN */
    cr_assert_eq(flce_round(zero, pr, 3, 1, 2, NULL, NULL, g, hg, Q, NULL), FLCE_OK);
    for (int k = 0; k < 3; k++) NEAR(Q[k], 1.0 / 3, 1e-16);
    /* one client */
    float one[2] = {3, 4};
    uint8_t p1[1] = {1}, hg1[1] = {0};
    cr_assert_eq(flce_round(one, p1, 1, 1, 2, NULL, NULL, g, hg1, Q, NULL), FLCE_OK);
    NEAR(Q[0], 1, 0);
    /* an empty round: nothing present -> Q = 0, g untouched */
    uint8_t none[3] = {0, 0, 0}, hg3[1] = {1};
    double gk[2] = {7, 8};
    cr_assert_eq(flce_round(zero, none, 3, 1, 2, NULL, NULL, gk, hg3, Q, NULL), FLCE_OK);
    for (int k = 0; k < 3; k++) cr_assert_eq(Q[k], 0.0);
    cr_assert(gk[0] == 7 && gk[1] == 8);
    /* a NaN prototype marked as uploaded is a clear error */
    float bad[6] = {1, 0, NAN, 0, 0, 1};
    flce_err e = {{0}};
    cr_assert_eq(flce_round(bad, pr, 3, 1, 2, NULL, NULL, g, hg, Q, &e), FLCE_ERR_NUMERIC);
    cr_assert(strstr(e.msg, "client 1 class 0"), "%s", e.msg);
}

Test(final, contribution_with_round_and_class_weights) {
    /* T = 2, n = 2, C = 2; t0: k0 (1,0), k1 (0,1); t1: both (0.5,0.5).
     * a = b = 1/2: CE = (0.5, 0.5). b = (1,0): k0 = .5*1 + .5*.5 = .75, k1 = 0 + .25 -> (.75,.25).
     * a = (0,1): (0.5, 0.5). */
    double X[8] = {1, 0, 0, 1, 0.5, 0.5, 0.5, 0.5}, CE[2];
    cr_assert_eq(flce_final_contribution(X, 2, 2, 2, NULL, NULL, CE, NULL), FLCE_OK);
    NEAR(CE[0], 0.5, 0);
    double b[2] = {1, 0}, a[2] = {0, 1};
    cr_assert_eq(flce_final_contribution(X, 2, 2, 2, NULL, b, CE, NULL), FLCE_OK);
    NEAR(CE[0], 0.75, 1e-16);
    NEAR(CE[1], 0.25, 1e-16);
    cr_assert_eq(flce_final_contribution(X, 2, 2, 2, a, b, CE, NULL), FLCE_OK);
    NEAR(CE[0], 0.5, 0);
    double Z[8] = {0};
    cr_assert_eq(flce_final_contribution(Z, 2, 2, 2, NULL, NULL, CE, NULL), FLCE_OK); /* nothing: uniform */
    NEAR(CE[0], 0.5, 0);
}

Test(final, weights_too_large_to_sum_fail_not_uniform) {
    /* the weights are relative: b = (1e300, 0) gives the b = (1, 0) shares (.75, .25) */
    double X[8] = {1, 0, 0, 1, 0.5, 0.5, 0.5, 0.5}, CE[2];
    double b[2] = {1e300, 0}, big[2] = {1e300, 1e300};
    cr_assert_eq(flce_final_contribution(X, 2, 2, 2, NULL, b, CE, NULL), FLCE_OK);
    NEAR(CE[0], 0.75, 1e-15);
    NEAR(CE[1], 0.25, 1e-15);
    /* a_t b_c = 1e600 overflows: a failure, once normalised silently to (.5, .5) */
    flce_err e = {0};
    cr_assert_eq(flce_final_contribution(X, 2, 2, 2, big, big, CE, &e), FLCE_ERR_NUMERIC);
    cr_assert(strstr(e.msg, "client 0's weighted sum is inf"), "%s", e.msg);
    /* each client's sum finite (1e308 and 1e308), their total not */
    double Y[8] = {1, 0, 1, 0, 1, 0, 1, 0}, one[2] = {1.6e308, 0};
    cr_assert_eq(flce_final_contribution(Y, 2, 2, 2, NULL, one, CE, &e), FLCE_ERR_NUMERIC);
    cr_assert(strstr(e.msg, "add up to more than"), "%s", e.msg);
}

Test(metrics, kl_by_hand) {
    /* KL((.5,.5) || (.25,.75)) = .5 ln 2 + .5 ln(2/3) */
    double P[2] = {0.5, 0.5}, Q[2] = {0.25, 0.75};
    NEAR(flce_kl(P, Q, 2, NULL), 0.5 * log(2) + 0.5 * log(2.0 / 3), 1e-15);
    cr_assert_eq(flce_kl(P, P, 2, NULL), 0.0); /* 0 exactly when equal */
    double P0[2] = {0, 1}, Q1[2] = {0.5, 0.5};
    NEAR(flce_kl(P0, Q1, 2, NULL), log(2), 1e-15); /* P = 0 terms are 0 */
    double Qz[2] = {1, 0};
    flce_err e = {{0}};
    cr_assert_eq(flce_kl(P, Qz, 2, &e), -1.0);
    cr_assert(strstr(e.msg, "Q[1] = 0"), "%s", e.msg);
    cr_assert(flce_kl(P, Q1, 2, NULL) == 0.0);
    /* KL > 0 when different */
    cr_assert(flce_kl(Q, P, 2, NULL) > 0);
}

Test(metrics, kl_minmax_as_released_by_hand) {
    /* (0.95, 1, 1.05) rescaled to (0.01, 0.505, 1), sum 1.515; against uniform:
     * sum p ln(3 p) with p = (0.01, 0.505, 1) / 1.515 */
    double P5[3] = {0.95, 1.0, 1.05}, P50[3] = {0.5, 1.0, 1.5}, U[3] = {1, 1, 1};
    double want = 0;
    for (int k = 0; k < 3; k++) {
        double p = (0.01 + 0.99 * k / 2.0) / 1.515;
        want += p * log(3 * p);
    }
    NEAR(flce_kl_minmax(P5, U, 3, NULL), want, 1e-14);
    /* the metric sees only where each client lies between the extremes: +-5% and +-50% score alike,
     * and the uniform reference's scale does not matter */
    double U7[3] = {7, 7, 7};
    NEAR(flce_kl_minmax(P50, U7, 3, NULL), want, 1e-14);
    /* 49 equal contributions and one high outlier (the 2.0): 49 at 0.01 and one at 1, total
     * 1.49, against uniform over 50: 49 (0.01/1.49) ln(0.5/1.49) + (1/1.49) ln(50/1.49) */
    double P[50], Q[50];
    for (int k = 0; k < 50; k++) P[k] = 0.02, Q[k] = 1;
    P[7] = 0.5;
    double out = 49 * (0.01 / 1.49) * log(0.5 / 1.49) + (1 / 1.49) * log(50 / 1.49);
    NEAR(flce_kl_minmax(P, Q, 50, NULL), out, 1e-13);
    cr_assert(fabs(out - 1.9988) < 1e-4, "%g", out);
    /* all equal: the released code's 0/0, refused with a reason */
    flce_err e = {{0}};
    cr_assert_eq(flce_kl_minmax(U, U, 3, &e), -1.0);
    cr_assert(strstr(e.msg, "every contribution is equal"), "%s", e.msg);
    /* the quality reference: clean 1, Gaussian 0.32, label noise 1e-6 */
    int noise[3] = {0, 1, 2};
    double R[3];
    flce_quality_reference(noise, 3, R);
    cr_assert(R[0] == 1 && R[1] == 0.32 && R[2] == 1e-6);
}

Test(metrics, shares_and_distances) {
    double sizes[2] = {10, 30}, Qd[2];
    flce_data_shares(sizes, NULL, 10, 2, Qd);
    NEAR(Qd[0], 0.25, 0);
    int held[2] = {10, 2}; /* 10*10/10 = 10 and 30*2/10 = 6 -> (10, 6)/16 */
    flce_data_shares(sizes, held, 10, 2, Qd);
    NEAR(Qd[0], 10.0 / 16, 1e-16);
    double a[3] = {0, 3, 0}, b[3] = {4, 0, 0};
    NEAR(flce_euclidean(a, b, 3), 5, 0);
    double p[2] = {0.5, 0.5};
    cr_assert_eq(flce_kl_distance(p, p, 2), 0.0);
    double z[2] = {1, 0};
    cr_assert(isfinite(flce_kl_distance(p, z, 2)) && flce_kl_distance(p, z, 2) > 1);
}

Test(losscl, hand_value) {
    /* z1 = z2 = (1,0), z3 = (-1,0), y = (0,0,1), tau = 1. Anchor 1: positive 2, sim 1; other
     * sim -1: l1 = -(1 - ln(e + 1/e)) = ln(1 + e^-2). Anchor 2 the same; anchor 3 has no
     * positive. L = ln(1 + e^-2) = 0.12692801104297252. */
    double z[6] = {1, 0, 1, 0, -1, 0};
    int y[3] = {0, 0, 1};
    NEAR(flce_supcon_loss(z, y, 3, 2, 1.0, NULL), log(1 + exp(-2)), 1e-15);
    /* two samples of one class: one positive and nothing else in the denominator: 0 */
    int y2[2] = {0, 0};
    NEAR(flce_supcon_loss(z, y2, 2, 2, 0.5, NULL), 0.0, 1e-15);
    /* no anchor has a positive: 0 by definition */
    int y3[3] = {0, 1, 2};
    cr_assert_eq(flce_supcon_loss(z, y3, 3, 2, 0.5, NULL), 0.0);
    /* scale invariance: features are L2-normalised first */
    double z2[6] = {3, 0, 0.5, 0, -7, 0};
    NEAR(flce_supcon_loss(z2, y, 3, 2, 1.0, NULL), log(1 + exp(-2)), 1e-15);
}

Test(losscl, gradient_matches_finite_differences) {
    enum { N = 6, D = 4 };
    double z[N * D], g[N * D];
    int y[N] = {0, 1, 0, 2, 1, 0};
    flce_rng r;
    flce_rng_init(&r, 2, FLCE_RNG_TEST, 1, 0);
    for (int i = 0; i < N * D; i++) z[i] = flce_rng_normal(&r);
    flce_supcon_loss(z, y, N, D, 0.5, g);
    for (int i = 0; i < N * D; i++) {
        double h = 1e-6, s = z[i];
        z[i] = s + h;
        double lp = flce_supcon_loss(z, y, N, D, 0.5, NULL);
        z[i] = s - h;
        double lm = flce_supcon_loss(z, y, N, D, 0.5, NULL);
        z[i] = s;
        NEAR(g[i], (lp - lm) / (2 * h), 1e-7);
    }
}

Test(prototypes, first_correct_as_released) {
    /* the released code keeps one sample a class: the first classified right. Class 0: sample 0
     * is class 0 but predicted 1 (misclassified, skipped), sample 2 is the first right -> z2 =
     * (3, 6), not the mean with sample 3 (4, 8); class 1: sample 1 right -> z1; class 2: held,
     * never right -> none */
    float z[10] = {1, 2, 10, 20, 3, 6, 5, 10, 7, 7}, proto[6];
    int label[5] = {0, 1, 0, 0, 2}, pred[5] = {1, 1, 0, 0, 0}, count[3];
    flce_prototypes_first(z, label, pred, 5, 2, 3, proto, count);
    cr_assert(count[0] == 1 && count[1] == 1 && count[2] == 0);
    cr_assert(proto[0] == 3.0f && proto[1] == 6.0f, "%g %g", proto[0], proto[1]);
    cr_assert(proto[2] == 10.0f && proto[3] == 20.0f);
    cr_assert(isnan(proto[4]) && isnan(proto[5]));
    flce_prototypes(z, label, pred, 5, 2, 3, proto, count); /* the text's mean: (3 + 5, 6 + 10) / 2 */
    cr_assert(proto[0] == 4.0f && proto[1] == 8.0f && count[0] == 2);
}

Test(prototypes, mean_of_correctly_classified) {
    /* class 0: samples 0 (pred 0) and 2 (pred 0), sample 3 is class 0 but predicted 1 ->
     * p_0 = mean of z0, z2 = ((1+3)/2, (2+6)/2) = (2, 4); class 1: sample 1 predicted 0 -> none */
    float z[8] = {1, 2, 10, 10, 3, 6, 100, 100}, proto[4];
    int label[4] = {0, 1, 0, 0}, pred[4] = {0, 0, 0, 1}, count[2];
    flce_prototypes(z, label, pred, 4, 2, 2, proto, count);
    cr_assert(count[0] == 2 && count[1] == 0);
    cr_assert(proto[0] == 2.0f && proto[1] == 4.0f);
    cr_assert(isnan(proto[2]) && isnan(proto[3]));
}
