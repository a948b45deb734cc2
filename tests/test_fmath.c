/* test_fmath.c: the deterministic float32 math library against libm in double precision
 * (the correctly rounded reference, rounded to float): ulp bounds over wide ranges, and
 * the edge cases (0, subnormals, huge, inf, NaN). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "base.h"
#include "fmath.h"

static double ulp_err(float got, double want) {
    float w = (float)want;
    if (got == w) return 0;
    if (isinf(w) || isinf(got)) return INFINITY;
    double u = nextafterf(fabsf(w), INFINITY) - fabsf(w);
    return fabs((double)got - want) / u;
}

static float rand_float(flce_rng *r, int emin, int emax) {
    double m = 1 + flce_rng_uniform(r);
    int e = emin + (int)flce_rng_below(r, (uint32_t)(emax - emin + 1));
    return (float)ldexp(m, e);
}

Test(fmath, recip_rsqrt_within_2_sqrt_div_within_3_ulp) {
    flce_rng r;
    flce_rng_init(&r, 1, FLCE_RNG_TEST, 30, 0);
    double w_rc = 0, w_rs = 0, w_sq = 0, w_dv = 0;
    for (int i = 0; i < 300000; i++) {
        float x = rand_float(&r, -149, 127), y = rand_float(&r, -60, 60);
        if (flce_rng_below(&r, 2)) x = -x;
        w_rc = fmax(w_rc, ulp_err(fm_recip(x), 1.0 / x));
        float ax = fabsf(x);
        w_rs = fmax(w_rs, ulp_err(fm_rsqrt(ax), 1.0 / sqrt(ax)));
        w_sq = fmax(w_sq, ulp_err(fm_sqrt(ax), sqrt(ax)));
        float b = rand_float(&r, -60, 60);
        w_dv = fmax(w_dv, ulp_err(fm_div(y, b), (double)y / b));
    }
    printf("fmath ulp: recip %g, rsqrt %g, sqrt %g, div %g\n", w_rc, w_rs, w_sq, w_dv);
    cr_assert(w_rc <= 2, "recip %g ulp", w_rc);
    cr_assert(w_rs <= 2, "rsqrt %g ulp", w_rs);
    cr_assert(w_sq <= 3, "sqrt %g ulp", w_sq);
    cr_assert(w_dv <= 3, "div %g ulp", w_dv);
}

Test(fmath, exp_within_3_and_log_within_4_ulp) {
    flce_rng r;
    flce_rng_init(&r, 2, FLCE_RNG_TEST, 31, 0);
    double w_e = 0, w_l = 0;
    for (int i = 0; i < 300000; i++) {
        float x = (float)((flce_rng_uniform(&r) - 0.5) * 170); /* results stay normal */
        w_e = fmax(w_e, ulp_err(fm_exp(x), exp((double)x)));
        float y = rand_float(&r, -126, 127);
        double ly = log((double)y);
        if (fabs(ly) > 1e-2) w_l = fmax(w_l, ulp_err(fm_log(y), ly));
    }
    for (float y = 0.5f; y < 2.0f; y = nextafterf(y, 3) + 1e-4f) /* near 1: absolute error */
        cr_assert(fabs(fm_log(y) - log((double)y)) < 2e-7 * fmax(1, fabs(log((double)y))) + 6e-8, "log(%g)", y);
    printf("fmath ulp: exp %g, log %g\n", w_e, w_l);
    cr_assert(w_e <= 3, "exp %g ulp", w_e);
    cr_assert(w_l <= 4, "log %g ulp", w_l);
}

Test(fmath, edge_cases) {
    float inf = INFINITY, sub = 1e-40f;
    cr_assert(isinf(fm_recip(0.0f)) && fm_recip(0.0f) > 0);
    cr_assert(isinf(fm_recip(-0.0f)) && fm_recip(-0.0f) < 0);
    cr_assert(fm_recip(inf) == 0 && isnan(fm_recip(NAN)));
    cr_assert(ulp_err(fm_recip(sub), 1.0 / sub) <= 2);
    cr_assert(ulp_err(fm_recip(3e38f), 1.0 / 3e38) <= 2, "1/3e38 is subnormal: %g", fm_recip(3e38f));
    cr_assert(isinf(fm_rsqrt(0.0f)) && fm_rsqrt(inf) == 0 && isnan(fm_rsqrt(-1.0f)) && isnan(fm_rsqrt(NAN)));
    cr_assert(ulp_err(fm_rsqrt(sub), 1.0 / sqrt(sub)) <= 2);
    cr_assert(fm_sqrt(0.0f) == 0 && isinf(fm_sqrt(inf)) && isnan(fm_sqrt(-2.0f)));
    cr_assert(ulp_err(fm_sqrt(sub), sqrt(sub)) <= 2);
    cr_assert(fm_exp(0.0f) == 1.0f);
    cr_assert(isinf(fm_exp(100.0f)) && fm_exp(-200.0f) == 0 && isnan(fm_exp(NAN)));
    cr_assert(fm_exp(-inf) == 0 && isinf(fm_exp(inf)));
    cr_assert(ulp_err(fm_exp(-100.0f), exp(-100.0)) <= 3, "subnormal exp: %g", fm_exp(-100.0f));
    cr_assert(fm_log(1.0f) == 0.0f);
    cr_assert(isinf(fm_log(0.0f)) && fm_log(0.0f) < 0 && isnan(fm_log(-1.0f)) && isinf(fm_log(inf)));
    cr_assert(ulp_err(fm_log(sub), log((double)sub)) <= 4);
    cr_assert(ulp_err(fm_log(1.4e-45f), log((double)1.4e-45f)) <= 4);
}
