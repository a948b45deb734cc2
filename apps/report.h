/* report.h: what the parts of `flce report` share: escaping for gnuplot scripts and HTML,
 * running gnuplot, the colour of a method, and the sections written by other files. */
#ifndef FLCE_REPORT_H
#define FLCE_REPORT_H

#include <stdio.h>

#include "run_reader.h"

/* A method's colour in every figure. */
const char *color_of(const char *algo);
/* Text from run files for a gnuplot script: only letters, digits and " _.,:()+-/=#" survive. */
const char *gp_safe(const char *s);
/* Text from run files for report.html, escaped (& < > " '). Rotating buffers. */
const char *H(const char *s);
/* Write DIR/NAME.gp (the terminal set-up, then body) and run gnuplot on it in DIR. */
int gnuplot(const char *dir, const char *name, const char *body);

/* The mean of v [n] (NaN entries left out) and the half-width of its 95% confidence interval
 * (Student t, n - 1 degrees of freedom; NaN with one value); returns how many counted. */
int report_mean_ci(const double *v, int n, double *mean, double *half);
/* "m ± h", "m (n=1)" or "n/a", with `digits` decimals. */
void report_fmt_ci(char *o, size_t cap, const double *v, int n, int digits);
/* Spearman's rank correlation of x and y [n] (ties: average ranks); NaN when either is constant. */
double report_spearman(const double *x, const double *y, int n);
/* A run's configuration in words: "fmnist; Dirichlet 0.5", with its noise and weights. */
const char *report_configuration(const run_t *r, char *o, size_t cap);

/* The completion sensitivity section (report_completion.c): every FLCE run's trace evaluated
 * again with the completion's settings varied (rank, ridge weight, solver, none, auto, the
 * literal reading), the KL of each over seeds and each setting's held-out error. Returns 0 when
 * nothing could be evaluated for a reason worth saying (said on stderr). */
int report_completion(run_t *runs, int nr, const char *out, FILE *md, FILE *ht);

/* The seeds section (report_seeds.c): runs whose config.json differ only in the seed, as one
 * configuration: means and 95% confidence intervals (Student t) of the summary figures, paired
 * differences FLCE minus each baseline seed by seed, the per-round figures as mean and band,
 * and which field keeps runs of one method apart. Returns 0 when a figure failed. */
int report_seeds(run_t *runs, int nr, const char *out, FILE *md, FILE *ht);

/* The reference rows (report_reference.c, issue 30): trivial contribution rules from the runs'
 * own selections and their KL beside each method's, Spearman correlations with data sizes and
 * selection counts, and for runs with noisy clients the AUC at ranking them below the clean
 * ones. Returns 0 when out of memory. */
int report_reference(run_t *runs, int nr, const char *out, FILE *md, FILE *ht);

#endif
