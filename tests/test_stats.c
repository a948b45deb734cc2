/* test_stats.c: the report's statistics (apps/report/report_stats.c) against values worked out
 * another way: Student t quantiles in closed form (1, 2 and 4 degrees of freedom), by numerical
 * integration of the density here (Simpson's rule, 1 to 40 degrees of freedom), a printed t table
 * and the normal limit; the power of a comparison by hand from a t table at 3 and 10 seeds, at
 * d = 0 and sd = 0, and by a simulation of the t test at the detectable difference. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_stats.h"
#include "testutil.h"

#define PI_ 3.14159265358979323846

#define NEAR(a, b, tol) cr_assert(fabs((a) - (b)) <= (tol), "%s = %.17g, expected %.17g", #a, (double)(a), (double)(b))

/* P(0 <= T <= x) by Simpson's rule on the density, 20000 intervals */
static double simpson_half(double x, int df) {
    double nu = df, c = exp(lgamma((nu + 1) / 2) - lgamma(nu / 2)) / sqrt(nu * PI_);
    int k = 20000;
    double h = x / k, s = 0;
    for (int i = 0; i <= k; i++) {
        double t = i * h, f = c * pow(1 + t * t / nu, -(nu + 1) / 2);
        s += (i == 0 || i == k ? 1 : i % 2 ? 4 : 2) * f;
    }
    return s * h / 3;
}

static double simpson_quantile(double p, int df) { /* bisection on the integral */
    double lo = 0, hi = 64;
    for (int it = 0; it < 60; it++) {
        double mid = (lo + hi) / 2;
        if (0.5 + simpson_half(mid, df) < p) lo = mid;
        else hi = mid;
    }
    return (lo + hi) / 2;
}

Test(stats, t_closed_forms) {
    /* 1 degree of freedom (Cauchy): tan(pi (p - 1/2)); 2: (2p - 1) / sqrt(2 p (1 - p)) */
    double ps[] = {0.8, 0.9, 0.975, 0.995, 0.3, 0.025};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        double p = ps[i];
        NEAR(report_t_quantile(p, 1), tan(PI_ * (p - 0.5)), 1e-10 * fabs(tan(PI_ * (p - 0.5))));
        NEAR(report_t_quantile(p, 2), (2 * p - 1) / sqrt(2 * p * (1 - p)), 1e-11);
        /* 4: with a = 4p(1 - p), q = cos(acos(sqrt a) / 3) / sqrt a, t = sign(p - 1/2) 2 sqrt(q - 1) */
        double a = 4 * p * (1 - p), q = cos(acos(sqrt(a)) / 3) / sqrt(a), t4 = (p > 0.5 ? 2 : -2) * sqrt(q - 1);
        NEAR(report_t_quantile(p, 4), t4, 1e-11);
    }
    /* the report's old table said 4.303 for 2 degrees of freedom; exactly 0.95 / sqrt(0.04875) */
    NEAR(report_t95(2), 4.302652729749464, 1e-12);
    NEAR(report_t95(1), 12.706204736174707, 1e-9);
    cr_assert(isnan(report_t95(0)) && isnan(report_t_quantile(1, 5)) && isnan(report_t_quantile(0, 5)));
    cr_assert(report_t_quantile(0.5, 7) == 0);
}

Test(stats, t_by_integration) {
    for (int df = 1; df <= 40; df += (df < 12 ? 1 : 7)) {
        NEAR(report_t_quantile(0.975, df), simpson_quantile(0.975, df), 1e-7);
        NEAR(report_t_quantile(0.8, df), simpson_quantile(0.8, df), 1e-7);
    }
}

Test(stats, t_table_and_limit) {
    /* a printed table (three decimals): two-sided 95% and one-sided 80% */
    static const struct {
        int df;
        double t975, t80;
    } tab[] = {{3, 3.182, 0.978}, {5, 2.571, 0.920}, {9, 2.262, 0.883}, {10, 2.228, 0.879}, {29, 2.045, 0.854}, {30, 2.042, 0.854}};
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        NEAR(report_t95(tab[i].df), tab[i].t975, 5e-4);
        NEAR(report_t_quantile(0.8, tab[i].df), tab[i].t80, 5e-4);
    }
    /* the normal's quantiles in the limit */
    NEAR(report_t95(1000000), 1.959963984540054, 1e-5);
    NEAR(report_t_quantile(0.8, 1000000), 0.8416212335729143, 1e-5);
    /* the distribution function inverts the quantile */
    for (int df = 1; df < 60; df += 3)
        for (double p = 0.01; p < 1; p += 0.07) NEAR(report_t_cdf(report_t_quantile(p, df), df), p, 1e-12);
}

Test(stats, mean_ci_by_hand) {
    /* 0.1, 0.2, 0.3: mean 0.2, sd 0.1, half-width t(0.975, 2) 0.1 / sqrt 3 */
    double v[] = {0.1, NAN, 0.2, 0.3}, m, h;
    cr_assert_eq(report_mean_ci(v, 4, &m, &h), 3);
    NEAR(m, 0.2, 1e-15);
    NEAR(h, 4.302652729749464 * 0.1 / sqrt(3), 1e-12);
    cr_assert_eq(report_mean_ci(v, 1, &m, &h), 1);
    cr_assert(isnan(h));
}

/* at 3 seeds: differences 0.1, 0.2, 0.3 (d = 0.2, sd = 0.1) */
Test(stats, power_three_seeds) {
    double h = 4.302652729749464 * 0.1 / sqrt(3);
    report_power_t p = report_power(0.2, h, 3);
    NEAR(p.sd, 0.1, 1e-12);
    /* (4.302653 + 1.060660) 0.1 / sqrt 3 = 0.309651 */
    NEAR(p.detectable, (4.302652729749464 + 1.0606601717798212) * 0.1 / sqrt(3), 1e-10);
    /* by hand from the table: m = 4: (3.182 + 0.978) 0.1 / 2 = 0.208 > 0.2; m = 5: (2.776 + 0.941)
     * 0.1 / sqrt 5 = 0.1662 <= 0.2 */
    cr_assert_eq(p.seeds, 5);
    char w[128];
    cr_assert_str_eq(report_power_words(&p, 3, 3, w, sizeof w), "decides at about 5 seeds");
    /* the sign of d does not matter */
    cr_assert_eq(report_power(-0.2, h, 3).seeds, 5);
}

/* at 10 seeds, sd 1: the half-width is t(0.975, 9) / sqrt 10 */
Test(stats, power_ten_seeds) {
    double h = 2.2621571627982 / sqrt(10);
    report_power_t p = report_power(0.5, h, 10);
    NEAR(p.sd, 1, 1e-9);
    NEAR(p.detectable, (2.2621571627982 + 0.883) / sqrt(10), 5e-4 / sqrt(10)); /* t(0.80, 9) = 0.883 in the table */
    /* table: m = 33: (2.037 + 0.853) / sqrt 33 = 0.5031 > 0.5; m = 34: (2.035 + 0.853) / sqrt 34 = 0.4953 */
    cr_assert_eq(p.seeds, 34);
    /* a difference too small for 100 seeds: (1.984 + 0.845) / 10 = 0.283 > 0.2 */
    report_power_t q = report_power(0.2, h, 10);
    cr_assert_eq(q.seeds, REPORT_SEEDS_OVER);
    char w[128];
    cr_assert_str_eq(report_power_words(&q, 10, 3, w, sizeof w), "the 10 seeds run detect only |d| >= 0.995");
    /* a difference large enough for 2 seeds: (12.706 + 1.376) / sqrt 2 = 9.958 */
    cr_assert_eq(report_power(10, h, 10).seeds, 2);
    cr_assert_eq(report_power(9.9, h, 10).seeds, 3);
}

Test(stats, power_degenerate) {
    report_power_t p = report_power(0, 0.3, 5); /* d = 0: no number of seeds decides */
    cr_assert_eq(p.seeds, REPORT_SEEDS_NA);
    cr_assert(p.sd > 0 && p.detectable > 0);
    p = report_power(0.1, 0, 5); /* sd = 0 */
    cr_assert_eq(p.seeds, REPORT_SEEDS_NA);
    cr_assert(p.sd == 0 && p.detectable == 0);
    char w[160];
    cr_assert(strstr(report_power_words(&p, 5, 3, w, sizeof w), "same difference"));
    p = report_power(0.1, NAN, 1); /* one seed */
    cr_assert(isnan(p.sd) && isnan(p.detectable) && p.seeds == REPORT_SEEDS_NA);
    cr_assert_str_eq(report_power_words(&p, 1, 3, w, sizeof w), "");
    /* the CSV fields */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    report_power_csv(f, &p);
    p = report_power(0, 0.3, 5);
    report_power_csv(f, &p);
    p = report_power(0.2, 2.2621571627982 / sqrt(10), 10);
    report_power_csv(f, &p);
    fclose(f);
    cr_assert(!strncmp(buf, ",,,", 3));
    cr_assert(strstr(buf, ",n/a,") && strstr(buf, ",>100"), "%s", buf);
    free(buf);
}

/* A simulation of the paired t test: differences normal with mean the detectable difference and
 * the plug-in sd; the share of draws whose 95% interval excludes 0 is about 0.8 (the plug-in
 * formula is the normal approximation of the non-central t: a little below at few seeds). */
static double normal(uint64_t *s) {
    double u[2];
    for (int i = 0; i < 2; i++) {
        *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
        u[i] = ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
    }
    return sqrt(-2 * log(u[0])) * cos(2 * PI_ * u[1]);
}

Test(stats, power_by_simulation) {
    int ns[] = {3, 10};
    for (int k = 0; k < 2; k++) {
        int n = ns[k];
        report_power_t p = report_power(1, report_t95(n - 1) * 1 / sqrt((double)n), n); /* sd 1 */
        uint64_t s = 0x9e3779b97f4a7c15ull + (uint64_t)n;
        int hit = 0, draws = 20000;
        for (int i = 0; i < draws; i++) {
            double v[16], m, h;
            for (int j = 0; j < n; j++) v[j] = p.detectable + normal(&s);
            report_mean_ci(v, n, &m, &h);
            hit += m - h > 0;
        }
        double rate = (double)hit / draws;
        cr_assert(rate > 0.74 && rate < 0.83, "%d seeds: the t test decided %.3f of the draws at the detectable difference", n, rate);
    }
}

/* A claim of several comparisons: what deciding it would take is the inconclusive comparison that
 * needs the most seeds; one that no number up to 100 decides before any that some number does. */
Test(stats, decide_the_binding_comparison) {
    report_decide k = {0};
    char w[160];
    cr_assert_str_eq(report_decide_words(&k, 3, w, sizeof w), "");
    double h3 = 4.302652729749464 * 0.1 / sqrt(3); /* sd 0.1 at 3 seeds */
    report_decide_add(&k, 0.5, h3, 3, 1, "decided");  /* holds: not what deciding would take */
    cr_assert_str_eq(report_decide_words(&k, 3, w, sizeof w), "");
    report_decide_add(&k, 0.2, h3, 3, 0, "FLCE - a"); /* 5 seeds (power_three_seeds) */
    cr_assert_str_eq(report_decide_words(&k, 3, w, sizeof w), "decides at about 5 seeds (FLCE - a)");
    report_decide_add(&k, 0.3, h3, 3, 0, "FLCE - b"); /* fewer: (2.776 + 0.941) 0.1 / sqrt 5 < 0.3, m = 3: 0.3097 > 0.3 */
    cr_assert_str_eq(report_decide_words(&k, 3, w, sizeof w), "decides at about 5 seeds (FLCE - a)");
    report_decide_add(&k, 0.001, h3, 3, 0, "FLCE - c"); /* none up to 100 */
    cr_assert_str_eq(report_decide_words(&k, 3, w, sizeof w), "the 3 seeds run detect only |d| >= 0.310 (FLCE - c)");
    report_decide_add(&k, 0.15, h3, 3, 0, "FLCE - d"); /* a number decides it: c still binds */
    cr_assert_str_eq(report_decide_words(&k, 3, w, sizeof w), "the 3 seeds run detect only |d| >= 0.310 (FLCE - c)");
}

Test(stats, spearman_by_hand) {
    double x[] = {1, 2, 3, 4}, y[] = {10, 30, 20, 40}, c[] = {5, 5, 5, 5};
    /* ranks 1 2 3 4 against 1 3 2 4: 1 - 6 (0 + 1 + 1 + 0) / (4 (16 - 1)) = 0.8 */
    NEAR(report_spearman(x, y, 4), 0.8, 1e-15);
    cr_assert(isnan(report_spearman(x, c, 4)));
}
