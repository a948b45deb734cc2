/* report_stats.h: the statistics every section of `flce report` uses, in one place
 * (report_stats.c): Student t quantiles (exact, not a rounded table), a mean with its 95%
 * interval, the power of a paired comparison over seeds, Spearman's rank correlation. Nothing
 * here reads runs or writes pages: it is tested on its own (tests/test_stats.c). */
#ifndef FLCE_REPORT_STATS_H
#define FLCE_REPORT_STATS_H

#include <stddef.h>
#include <stdio.h>

/* The p quantile of Student's t with df degrees of freedom (0 < p < 1, df >= 1), to about 1e-12
 * relative: the regularised incomplete beta function inverted by a safeguarded Newton step; NaN
 * outside that range. report_t95(df) = report_t_quantile(0.975, df): the two-sided 95% quantile
 * (4.302653 for 2 degrees of freedom, where the report once used the table's 4.303). */
double report_t_quantile(double p, int df);
double report_t95(int df);
/* P(T <= x) for Student's t with df degrees of freedom. */
double report_t_cdf(double x, int df);

/* The mean of v [n] (NaN entries left out) and the half-width of its 95% confidence interval
 * (Student t, k - 1 degrees of freedom for k values counted; NaN with one value); returns k. */
int report_mean_ci(const double *v, int n, double *mean, double *half);
/* "m ± h", "m (n=1)" or "n/a", with `digits` decimals. */
void report_fmt_ci(char *o, size_t cap, const double *v, int n, int digits);

/* What deciding would take (issue 80), for a mean difference d over n seeds whose 95% interval
 * has half-width h (the verdict: holds where d - h > 0, fails where d + h < 0):
 *   sd         = h sqrt(n) / t(0.975, n - 1), the spread of one seed's difference;
 *   detectable = (t(0.975, n - 1) + t(0.80, n - 1)) sd / sqrt(n), the smallest |d| that n seeds
 *                decide with probability about 0.8;
 *   seeds      = the smallest m >= 2 with (t(0.975, m - 1) + t(0.80, m - 1)) sd / sqrt(m) <= |d|:
 *                the seeds a new study would need at the observed difference and spread (a
 *                plug-in estimate); REPORT_SEEDS_OVER where none up to 100, REPORT_SEEDS_NA where
 *                d or sd is 0 (or not a number).
 * All NaN (seeds REPORT_SEEDS_NA) where n < 2 or h is not a number. */
#define REPORT_SEEDS_NA 0
#define REPORT_SEEDS_OVER 101
typedef struct {
    double sd, detectable;
    int seeds;
} report_power_t;
report_power_t report_power(double d, double half, int n);
/* The three as CSV fields, each after a comma: ",sd,detectable,seeds" (seeds "n/a" or ">100";
 * all three empty where sd is not a number). */
void report_power_csv(FILE *f, const report_power_t *p);
/* The words beside an inconclusive verdict: "decides at about m seeds" where seeds is a number,
 * else "the N seeds run detect only |d| >= x" (x the detectable difference with `digits`
 * decimals); "" where there is no spread to speak of (n < 2). Into o [cap]; returns o. */
const char *report_power_words(const report_power_t *p, int n, int digits, char *o, size_t cap);

/* A verdict made of several comparisons (a claim against every baseline) is decided when each
 * of them is: report_decide_add takes each comparison (d, h, n, its verdict: 1 holds, -1 fails, 0
 * inconclusive) and keeps the inconclusive one that needs the most seeds (one that no number up
 * to 100 decides before any that some number does; among those, the one whose |d| lies furthest
 * below what its seeds detect); report_decide_words says it as report_power_words does, followed
 * by " (NAME)" where the comparison was named, or "" where no comparison was inconclusive. Start
 * from {0}. */
typedef struct {
    report_power_t p;
    int n, set;
    double key;
    char name[64]; /* the comparison's name, said after the words where given ("against fedavg") */
} report_decide;
void report_decide_add(report_decide *k, double d, double half, int n, int verdict, const char *name);
const char *report_decide_words(const report_decide *k, int digits, char *o, size_t cap);

/* Spearman's rank correlation of x and y [n] (ties: average ranks); NaN when either is constant. */
double report_spearman(const double *x, const double *y, int n);

#endif
