/* report_stats.c: the report's statistics (report_stats.h). Student's t from the regularised
 * incomplete beta function, I_x(a, b), by its continued fraction (modified Lentz), written here
 * from the definitions:
 *   P(T <= t) = 1 - I_{df / (df + t^2)}(df / 2, 1 / 2) / 2 for t >= 0, symmetric below 0;
 *   the density (1 + t^2 / df)^(-(df + 1) / 2) Gamma((df + 1) / 2) / (sqrt(df pi) Gamma(df / 2)). */
#include "report_stats.h"

#define PI_ 3.14159265358979323846

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* I_x(a, b) for 0 <= x <= 1: the continued fraction where it converges fast (x < (a + 1) /
 * (a + b + 2)), else 1 - I_{1 - x}(b, a). */
static double beta_cf(double a, double b, double x) {
    const double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    if (fabs(d) < tiny) d = tiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 1000; m++) {
        double m2 = 2.0 * m;
        double num = m * (b - m) * x / ((a + m2 - 1) * (a + m2)); /* the even step */
        d = 1 + num * d, c = 1 + num / c;
        if (fabs(d) < tiny) d = tiny;
        if (fabs(c) < tiny) c = tiny;
        d = 1 / d, h *= d * c;
        num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1)); /* the odd step */
        d = 1 + num * d, c = 1 + num / c;
        if (fabs(d) < tiny) d = tiny;
        if (fabs(c) < tiny) c = tiny;
        d = 1 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-16) break;
    }
    return h;
}

static double incbeta(double a, double b, double x) {
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    if (x < (a + 1) / (a + b + 2)) return front * beta_cf(a, b, x) / a;
    return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double report_t_cdf(double x, int df) {
    if (df < 1 || isnan(x)) return NAN;
    if (isinf(x)) return x > 0 ? 1 : 0;
    double nu = df, tail = 0.5 * incbeta(nu / 2, 0.5, nu / (nu + x * x));
    return x >= 0 ? 1 - tail : tail;
}

static double t_pdf(double x, int df) {
    double nu = df;
    return exp(lgamma((nu + 1) / 2) - lgamma(nu / 2) - 0.5 * log(nu * PI_) - (nu + 1) / 2 * log1p(x * x / nu));
}

static double quantile_upper(double p, int df) { /* p > 1/2: the t > 0 with P(T <= t) = p */
    double lo = 0, hi = 1;
    while (report_t_cdf(hi, df) < p && hi < 1e12) lo = hi, hi *= 2;
    double t = (lo + hi) / 2;
    for (int it = 0; it < 200; it++) {
        double f = report_t_cdf(t, df) - p;
        if (f == 0) return t;
        if (f < 0) lo = t;
        else hi = t;
        double next = t - f / t_pdf(t, df);
        if (!(next > lo && next < hi)) next = (lo + hi) / 2; /* Newton left the bracket: bisect */
        if (fabs(next - t) <= 1e-15 * fabs(t) || hi - lo <= 1e-15 * hi) return next;
        t = next;
    }
    return t;
}

double report_t_quantile(double p, int df) {
    if (df < 1 || !(p > 0 && p < 1)) return NAN;
    if (p == 0.5) return 0;
    /* the two quantiles the report asks for again and again, kept once worked out */
    static double q975[256], q80[256];
    double *memo = df < 256 ? (p == 0.975 ? &q975[df] : p == 0.8 ? &q80[df] : NULL) : NULL;
    if (memo && *memo) return *memo;
    double q = p > 0.5 ? quantile_upper(p, df) : -quantile_upper(1 - p, df);
    if (memo) *memo = q;
    return q;
}

double report_t95(int df) { return report_t_quantile(0.975, df); }

int report_mean_ci(const double *v, int n, double *mean, double *half) {
    double s = 0;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (!isnan(v[i])) s += v[i], k++;
    *mean = k ? s / k : NAN;
    double ss = 0;
    for (int i = 0; i < n; i++)
        if (!isnan(v[i])) ss += (v[i] - *mean) * (v[i] - *mean);
    *half = k > 1 ? report_t95(k - 1) * sqrt(ss / (k - 1)) / sqrt((double)k) : NAN;
    return k;
}

void report_fmt_ci(char *o, size_t cap, const double *v, int n, int digits) {
    double m, h;
    int k = report_mean_ci(v, n, &m, &h);
    if (!k) snprintf(o, cap, "n/a");
    else if (k == 1) snprintf(o, cap, "%.*f (n=1)", digits, m);
    else snprintf(o, cap, "%.*f ± %.*f", digits, m, digits, h);
}

report_power_t report_power(double d, double half, int n) {
    report_power_t p = {NAN, NAN, REPORT_SEEDS_NA};
    if (n < 2 || isnan(half)) return p;
    p.sd = half * sqrt((double)n) / report_t95(n - 1);
    p.detectable = (report_t95(n - 1) + report_t_quantile(0.8, n - 1)) * p.sd / sqrt((double)n);
    if (isnan(d) || d == 0 || !(p.sd > 0)) return p;
    p.seeds = REPORT_SEEDS_OVER;
    for (int m = 2; m <= 100; m++)
        if ((report_t95(m - 1) + report_t_quantile(0.8, m - 1)) * p.sd / sqrt((double)m) <= fabs(d)) {
            p.seeds = m;
            break;
        }
    return p;
}

void report_power_csv(FILE *f, const report_power_t *p) {
    if (isnan(p->sd)) {
        fputs(",,,", f);
        return;
    }
    fprintf(f, ",%.10g,%.10g,", p->sd, p->detectable);
    if (p->seeds == REPORT_SEEDS_NA) fputs("n/a", f);
    else if (p->seeds == REPORT_SEEDS_OVER) fputs(">100", f);
    else fprintf(f, "%d", p->seeds);
}

const char *report_power_words(const report_power_t *p, int n, int digits, char *o, size_t cap) {
    if (isnan(p->sd)) snprintf(o, cap, "%s", "");
    else if (p->sd == 0) snprintf(o, cap, "every seed gives the same difference: no number of seeds changes the verdict");
    else if (p->seeds >= 2 && p->seeds <= 100) snprintf(o, cap, "decides at about %d seeds", p->seeds);
    else snprintf(o, cap, "the %d seeds run detect only |d| >= %.*f", n, digits, p->detectable);
    return o;
}

void report_decide_add(report_decide *k, double d, double half, int n, int verdict, const char *name) {
    if (verdict || n < 2 || isnan(half)) return;
    report_power_t p = report_power(d, half, n);
    double key = p.seeds >= 2 && p.seeds <= 100 ? p.seeds : 1e6 + (p.detectable - fabs(d));
    if (!k->set || key > k->key) {
        k->p = p, k->n = n, k->key = key, k->set = 1;
        snprintf(k->name, sizeof k->name, "%s", name ? name : "");
    }
}

const char *report_decide_words(const report_decide *k, int digits, char *o, size_t cap) {
    if (!k->set) {
        snprintf(o, cap, "%s", "");
        return o;
    }
    report_power_words(&k->p, k->n, digits, o, cap);
    size_t l = strlen(o);
    if (k->name[0] && l + 1 < cap) snprintf(o + l, cap - l, " (%s)", k->name);
    return o;
}

double report_spearman(const double *x, const double *y, int n) {
    double *rx = malloc(sizeof(double) * (size_t)n * 2), *ry = rx ? rx + n : NULL;
    if (!rx) return NAN;
    for (int i = 0; i < n; i++) {
        double lx = 0, ex = 0, ly = 0, ey = 0;
        for (int j = 0; j < n; j++) lx += x[j] < x[i], ex += x[j] == x[i], ly += y[j] < y[i], ey += y[j] == y[i];
        rx[i] = lx + (ex + 1) / 2, ry[i] = ly + (ey + 1) / 2;
    }
    /* average ranks always sum to n (n + 1) / 2: the mean exactly, so that a constant vector
     * gives sxx = 0 exactly (summing rx[i] / n once gave 1e-16 and a correlation of 0, not NaN) */
    double mx = (n + 1) / 2.0, my = mx, sxy = 0, sxx = 0, syy = 0;
    for (int i = 0; i < n; i++) sxy += (rx[i] - mx) * (ry[i] - my), sxx += (rx[i] - mx) * (rx[i] - mx), syy += (ry[i] - my) * (ry[i] - my);
    free(rx);
    return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
}
