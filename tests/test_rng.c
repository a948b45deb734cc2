/* test_rng.c: Philox-4x32-10 against the published known-answer vectors of Random123
 * (kat_vectors), stream keying, and the distributions by their defining properties
 * (moments within 5 standard errors, chi-square of counts, permutations). The
 * deterministic log/exp are checked against libm. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "base.h"

Test(philox, known_answer_vectors) {
    /* Random123 kat_vectors: counter, key -> output */
    static const uint32_t v[3][10] = {
        {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d, 0x41c83b0e,
         0xa20bc7c6, 0x6d5451fd},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09, 0x94fdcceb,
         0x5001e420, 0x24126ea1},
    };
    for (int i = 0; i < 3; i++) {
        uint32_t out[4];
        flce_philox4x32_10(v[i], v[i] + 4, out);
        for (int j = 0; j < 4; j++) cr_assert_eq(out[j], v[i][6 + j], "vector %d word %d: %08x", i, j, out[j]);
    }
}

Test(philox, stream_is_counter_of_purpose_round_client) {
    /* the first block of stream (seed, p, r, c) is philox(ctr = (0, p, r, c), key = seed) */
    uint64_t seed = 0x0123456789abcdefull;
    flce_rng r;
    flce_rng_init(&r, seed, 3, 7, 11);
    uint32_t ctr[4] = {0, 3, 7, 11}, key[2] = {0x89abcdef, 0x01234567}, out[4];
    flce_philox4x32_10(ctr, key, out);
    for (int j = 0; j < 4; j++) cr_assert_eq(flce_rng_u32(&r), out[j]);
    ctr[0] = 1;
    flce_philox4x32_10(ctr, key, out);
    cr_assert_eq(flce_rng_u32(&r), out[0]);
}

Test(philox, streams_differ_and_repeat) {
    flce_rng a, b;
    uint32_t first[5];
    uint64_t seeds[5] = {1, 2, 1, 1, 1};
    uint32_t p[5] = {1, 1, 2, 1, 1}, rd[5] = {0, 0, 0, 1, 0}, cl[5] = {0, 0, 0, 0, 1};
    for (int i = 0; i < 5; i++) {
        flce_rng_init(&a, seeds[i], p[i], rd[i], cl[i]);
        first[i] = flce_rng_u32(&a);
        for (int j = 0; j < i; j++) cr_assert_neq(first[i], first[j]);
    }
    flce_rng_init(&a, 9, 1, 2, 3);
    flce_rng_init(&b, 9, 1, 2, 3);
    for (int i = 0; i < 1000; i++) cr_assert_eq(flce_rng_u32(&a), flce_rng_u32(&b));
}

Test(rng, uniform_moments) {
    flce_rng r;
    flce_rng_init(&r, 42, FLCE_RNG_TEST, 0, 0);
    const int N = 1000000;
    double s = 0, s2 = 0, mn = 1, mx = 0;
    for (int i = 0; i < N; i++) {
        double u = flce_rng_uniform(&r);
        cr_assert(u >= 0.0 && u < 1.0);
        s += u;
        s2 += u * u;
        if (u < mn) mn = u;
        if (u > mx) mx = u;
    }
    double m = s / N, v = s2 / N - m * m;
    cr_assert(fabs(m - 0.5) < 5 * sqrt(1.0 / 12 / N), "mean %g", m);
    cr_assert(fabs(v - 1.0 / 12) < 5 * sqrt(1.0 / 180 / N), "var %g", v); /* var of u^2 ~ 1/180 */
    cr_assert(mn < 1e-5 && mx > 1 - 1e-5);
}

Test(rng, below_is_uniform_chi_square) {
    flce_rng r;
    flce_rng_init(&r, 5, FLCE_RNG_TEST, 1, 0);
    int cnt[7] = {0};
    const int N = 70000;
    for (int i = 0; i < N; i++) {
        uint32_t x = flce_rng_below(&r, 7);
        cr_assert(x < 7);
        cnt[x]++;
    }
    double chi = 0;
    for (int i = 0; i < 7; i++) chi += (cnt[i] - 10000.0) * (cnt[i] - 10000.0) / 10000.0;
    cr_assert(chi < 27.9, "chi-square %g with 6 dof (p = 1e-4 at 27.9)", chi);
    cr_assert_eq(flce_rng_below(&r, 1), 0);
}

Test(rng, normal_moments) {
    flce_rng r;
    flce_rng_init(&r, 7, FLCE_RNG_TEST, 2, 0);
    const int N = 1000000;
    double s = 0, s2 = 0, s4 = 0;
    for (int i = 0; i < N; i++) {
        double x = flce_rng_normal(&r);
        s += x;
        s2 += x * x;
        s4 += x * x * x * x;
    }
    cr_assert(fabs(s / N) < 5 / sqrt(N), "mean %g", s / N);
    cr_assert(fabs(s2 / N - 1) < 5 * sqrt(2.0 / N), "var %g", s2 / N);
    cr_assert(fabs(s4 / N - 3) < 5 * sqrt(96.0 / N), "4th moment %g", s4 / N); /* var x^4 = 105 - 9 */
}

Test(rng, gamma_mean_and_variance_equal_alpha) {
    double alphas[4] = {0.1, 0.5, 1.0, 3.7};
    for (int a = 0; a < 4; a++) {
        flce_rng r;
        flce_rng_init(&r, 11, FLCE_RNG_TEST, 3, (uint32_t)a);
        const int N = 400000;
        double s = 0, s2 = 0, al = alphas[a];
        for (int i = 0; i < N; i++) {
            double g = exp(flce_rng_log_gamma(&r, al));
            s += g;
            s2 += g * g;
        }
        double m = s / N, v = s2 / N - m * m;
        /* Gamma(a,1): mean a, var a, var of x^2 = a(a+1)(a+2)(a+3) - (a(a+1))^2 */
        cr_assert(fabs(m - al) < 5 * sqrt(al / N), "alpha %g mean %g", al, m);
        double v2 = al * (al + 1) * (al + 2) * (al + 3) - al * al * (al + 1) * (al + 1);
        cr_assert(fabs(v - al) < 5 * sqrt(v2 / N) + 5 * sqrt(al / N), "alpha %g var %g", al, v);
    }
}

Test(rng, dirichlet_sums_to_one_with_mean_one_over_n) {
    flce_rng r;
    flce_rng_init(&r, 3, FLCE_RNG_TEST, 4, 0);
    double q[10], mean[10] = {0};
    const int N = 20000;
    for (int i = 0; i < N; i++) {
        flce_rng_dirichlet(&r, 0.5, 10, q);
        double s = 0;
        for (int k = 0; k < 10; k++) {
            cr_assert(q[k] >= 0);
            s += q[k];
            mean[k] += q[k] / N;
        }
        cr_assert(fabs(s - 1) < 1e-12);
    }
    /* Dir(0.5 x 10): var of a component = (1/10)(9/10)/(5+1) = 0.015 */
    for (int k = 0; k < 10; k++) cr_assert(fabs(mean[k] - 0.1) < 5 * sqrt(0.015 / N), "mean[%d] %g", k, mean[k]);
    /* a tiny alpha concentrates on one component but never gives NaN */
    flce_rng_dirichlet(&r, 1e-3, 10, q);
    double mx = 0;
    for (int k = 0; k < 10; k++) {
        cr_assert(isfinite(q[k]));
        if (q[k] > mx) mx = q[k];
    }
    cr_assert(mx > 0.99);
}

Test(rng, permutation_and_sample) {
    flce_rng r;
    flce_rng_init(&r, 8, FLCE_RNG_TEST, 5, 0);
    int p[6], pos0[6] = {0};
    for (int t = 0; t < 60000; t++) {
        flce_rng_permutation(&r, 6, p);
        int seen[6] = {0};
        for (int i = 0; i < 6; i++) {
            cr_assert(p[i] >= 0 && p[i] < 6 && !seen[p[i]]);
            seen[p[i]] = 1;
            if (p[i] == 0) pos0[i]++;
        }
    }
    double chi = 0;
    for (int i = 0; i < 6; i++) chi += (pos0[i] - 10000.0) * (pos0[i] - 10000.0) / 10000.0;
    cr_assert(chi < 25.7, "chi-square %g, 5 dof", chi);
    int s[50];
    flce_rng_sample(&r, 50, 50, s);
    int seen[50] = {0};
    for (int i = 0; i < 50; i++) {
        cr_assert(!seen[s[i]]);
        seen[s[i]] = 1;
    }
    flce_rng_sample(&r, 100, 10, s);
    for (int i = 0; i < 10; i++)
        for (int j = 0; j < i; j++) cr_assert_neq(s[i], s[j]);
}

static double ulps(double a, double b) {
    if (a == b) return 0;
    return fabs(a - b) / (nextafter(fabs(b), INFINITY) - fabs(b));
}

Test(dmath, log_and_exp_agree_with_libm) {
    flce_rng r;
    flce_rng_init(&r, 1, FLCE_RNG_TEST, 6, 0);
    double worst_l = 0, worst_e = 0;
    for (int i = 0; i < 200000; i++) {
        double x = ldexp(1.0 + flce_rng_uniform(&r), (int)flce_rng_below(&r, 2000) - 1000);
        double u = ulps(flce_dlog(x), log(x));
        if (u > worst_l && fabs(log(x)) > 1e-3) worst_l = u;
        double y = (flce_rng_uniform(&r) - 0.5) * 1400;
        u = ulps(flce_dexp(y), exp(y));
        if (u > worst_e) worst_e = u;
    }
    cr_assert(worst_l <= 2, "log: %g ulp", worst_l);
    cr_assert(worst_e <= 2, "exp: %g ulp", worst_e);
    /* near 1, absolute error is what matters */
    for (double x = 0.9; x < 1.1; x += 1e-4) cr_assert(fabs(flce_dlog(x) - log(x)) < 1e-17 + 4e-16 * fabs(log(x)));
    cr_assert_eq(flce_dlog(1.0), 0.0);
    cr_assert_eq(flce_dexp(0.0), 1.0);
    cr_assert(isinf(flce_dlog(0.0)) && flce_dlog(0.0) < 0);
    cr_assert(isnan(flce_dlog(-1.0)));
    cr_assert(fabs(flce_dlog(4.9406564584124654e-324) - log(4.9406564584124654e-324)) < 1e-12);
    cr_assert_eq(flce_dexp(-1000.0), 0.0);
    cr_assert(isinf(flce_dexp(1000.0)));
}
