/* report_reference.c: the reference rows of `flce report` (issue 30): what the server knows
 * without any method, and a ground truth other than the data shares.
 *   - Trivial rules, from the runs' own selections (round_contributions.csv): uniform, the
 *     number of rounds each client was selected, and the data-size aggregation weights summed
 *     over those rounds; their KL to the data shares beside each method's, and per method the
 *     Spearman correlation of its final contributions with the data sizes and with the
 *     selection counts. A method whose KL is not below the best trivial rule's adds nothing the
 *     server did not already know; the section says so where it happens.
 *   - Runs with noisy clients: the AUC of each method's final contributions at ranking the
 *     noisy clients below the clean ones (1: every clean client above every noisy one; 0.5:
 *     no better than chance), mean and 95% interval over seeds.
 * Every figure is computed here from the run files; nothing from a run's own summary. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flce_eq.h"
#include "report.h"

enum { RULE_UNIFORM, RULE_SELECTED, RULE_SIZEW, NRULES };
static const char *const RULE_NAMES[NRULES] = {"uniform", "rounds selected", "data-size weights summed over the rounds selected"};

/* The trivial rules of run r into tr [NRULES][n] (each normalised) and the selection counts into
 * sel [n]; 0 when the run recorded no selections. */
static int trivial_rules(const run_t *r, double *tr, double *sel) {
    int n = r->clients;
    if (!r->rc || n < 1) return 0;
    uint8_t *all = malloc((size_t)n);
    if (!all) return 0;
    for (int k = 0; k < n; k++) sel[k] = 0, all[k] = 1, tr[RULE_UNIFORM * n + k] = 1, tr[RULE_SIZEW * n + k] = 0;
    for (int t = 0; t < r->T; t++) {
        double tot = 0;
        for (int k = 0; k < n; k++)
            if (!isnan(r->rc[(size_t)t * n + k])) tot += r->samples[k];
        for (int k = 0; k < n; k++)
            if (!isnan(r->rc[(size_t)t * n + k])) sel[k] += 1, tr[RULE_SIZEW * n + k] += tot > 0 ? r->samples[k] / tot : 0;
    }
    for (int k = 0; k < n; k++) tr[RULE_SELECTED * n + k] = sel[k];
    for (int q = 0; q < NRULES; q++) flce_normalize(tr + (size_t)q * n, all, n);
    free(all);
    return 1;
}

/* AUC of contributions c at ranking the noisy clients below the clean ones; NaN without both. */
static double noisy_auc(const run_t *r) {
    double s = 0;
    long pairs = 0;
    for (int a = 0; a < r->clients; a++)
        for (int b = 0; b < r->clients; b++)
            if (!r->noisy_k[a] && r->noisy_k[b]) s += r->contrib[a] > r->contrib[b] ? 1 : r->contrib[a] == r->contrib[b] ? 0.5 : 0, pairs++;
    return pairs ? s / (double)pairs : NAN;
}

const char *report_method_label(const run_t *r, char *o, size_t cap) {
    size_t n = 0;
    o[0] = '\0';
    flce_catf(o, cap, &n, "%s", r->algo);
    if (r->ablate[0]) flce_catf(o, cap, &n, " -%s", r->ablate);
    const char *ps = r->cfg ? flce_json_str(r->cfg, "prototypes") : NULL;
    if (!strcmp(r->algo, "flce") && ps && !strcmp(ps, "all")) flce_catf(o, cap, &n, " (all samples)");
    return o;
}

#define MAXG 256
#define MAXM 32
#define MAXS REPORT_MAX_SEEDS

typedef struct {
    char conf[200];
    int nseeds;
    unsigned long long seed[MAXS];
    double rule_kl[NRULES][MAXS];
    int nm;
    char method[MAXM][64];
    double kl[MAXM][MAXS], sp_size[MAXM][MAXS], sp_sel[MAXM][MAXS], auc[MAXM][MAXS];
    int noisy;
} conf_t;

static int seed_index(conf_t *c, unsigned long long seed) {
    for (int i = 0; i < c->nseeds; i++)
        if (c->seed[i] == seed) return i;
    if (c->nseeds == MAXS) return -1;
    c->seed[c->nseeds] = seed;
    for (int q = 0; q < NRULES; q++) c->rule_kl[q][c->nseeds] = NAN;
    for (int m = 0; m < MAXM; m++) c->kl[m][c->nseeds] = c->sp_size[m][c->nseeds] = c->sp_sel[m][c->nseeds] = c->auc[m][c->nseeds] = NAN;
    return c->nseeds++;
}

int report_reference(report *R) {
    run_t *runs = R->runs;
    int nr = R->nr;
    const char *out = R->out;
    FILE *md = R->md, *ht = R->ht;
    conf_t *cs = calloc(MAXG, sizeof *cs);
    if (!cs) return 0;
    int nc = 0;
    for (int i = 0; i < nr; i++) {
        const run_t *r = &runs[i];
        int n = r->clients;
        double *tr = malloc(sizeof(double) * (size_t)n * (NRULES + 2)), *sel = tr ? tr + (size_t)n * NRULES : NULL, *sh = sel ? sel + n : NULL;
        if (!tr || !trivial_rules(r, tr, sel)) {
            free(tr);
            continue;
        }
        char conf[200], ml[64];
        report_configuration(r, conf, sizeof conf);
        report_method_label(r, ml, sizeof ml);
        int c = 0;
        while (c < nc && strcmp(cs[c].conf, conf)) c++;
        if (c == nc && nc < MAXG) snprintf(cs[nc++].conf, sizeof cs[0].conf, "%s", conf);
        if (c == MAXG) {
            report_over(R, "more than %d configurations in the reference rules' table; give fewer runs", MAXG);
            free(tr);
            continue;
        }
        conf_t *C = &cs[c];
        int s = seed_index(C, r->seed), m = 0;
        while (m < C->nm && strcmp(C->method[m], ml)) m++;
        if (m == C->nm && C->nm < MAXM) snprintf(C->method[C->nm++], sizeof C->method[0], "%s", ml);
        if (s < 0 || m == MAXM) {
            report_over(R, s < 0 ? "more than %d seeds of one configuration in the reference rules' table (%s); give fewer runs"
                                 : "more than %d methods of one configuration in the reference rules' table (%s); give fewer runs",
                        s < 0 ? MAXS : MAXM, conf);
            free(tr);
            continue;
        }
        flce_data_shares(r->samples, NULL, 10, n, sh);
        for (int q = 0; q < NRULES; q++)
            if (isnan(C->rule_kl[q][s])) C->rule_kl[q][s] = flce_kl(tr + (size_t)q * n, sh, n, NULL);
        C->kl[m][s] = r->kl_final;
        C->sp_size[m][s] = report_spearman(r->contrib, r->samples, n);
        C->sp_sel[m][s] = report_spearman(r->contrib, sel, n);
        C->auc[m][s] = noisy_auc(r);
        C->noisy |= !isnan(C->auc[m][s]);
        free(tr);
    }
    if (!nc) {
        free(cs);
        return 1;
    }
    char p[1400];
    snprintf(p, sizeof p, "%s/reference_rules.csv", out);
    FILE *f = report_fopen(p);
    snprintf(p, sizeof p, "%s/noise_auc.csv", out);
    FILE *fa = report_fopen(p);
    if (f) fprintf(f, "configuration,rule_or_method,seeds,kl_mean,kl_half,spearman_sizes_mean,spearman_selected_mean\n");
    if (fa) fprintf(fa, "configuration,method,seeds,auc_mean,auc_half\n");
    fprintf(md, "\n## Reference rules and a second ground truth\n\n"
                "What the server knows without any method, from the runs' own selections: the KL to the data shares of three "
                "trivial contribution rules (uniform; the rounds each client was selected; the data-size aggregation weights "
                "summed over those rounds), beside each method's; and per method the Spearman correlation of its final "
                "contributions with the data sizes and with the selection counts. A method whose mean KL is not below the best "
                "trivial rule's says nothing about the data shares the server did not already know. Means and 95%% intervals "
                "over seeds. Data: `reference_rules.csv`, `noise_auc.csv`.\n");
    fprintf(ht, "<h2>Reference rules and a second ground truth</h2>\n<p>What the server knows without any method: the KL to the "
                "data shares of three trivial rules (uniform; rounds selected; data-size weights summed over the rounds "
                "selected) beside each method's, and each method's Spearman correlation with the data sizes and the selection "
                "counts. A method whose mean KL is not below the best trivial rule's says nothing about the data shares the "
                "server did not already know. Data: <code>reference_rules.csv</code>, <code>noise_auc.csv</code>.</p>\n");
    char a[64], b[64], c3[64];
    for (int c = 0; c < nc; c++) {
        conf_t *C = &cs[c];
        static const char *heads[] = {"rule or method", "KL to data shares", "Spearman with data sizes", "Spearman with rounds selected"};
        fprintf(md, "\n### %s (%d seed%s)\n", MD(C->conf), C->nseeds, C->nseeds == 1 ? "" : "s");
        fprintf(ht, "<details><summary>%s (%d seed%s)</summary>\n", H(C->conf), C->nseeds, C->nseeds == 1 ? "" : "s");
        rtable t;
        rt_begin(&t, md, ht, 4, heads);
        double best = INFINITY;
        int bq = 0;
        for (int q = 0; q < NRULES; q++) {
            double mean, half;
            report_mean_ci(C->rule_kl[q], C->nseeds, &mean, &half);
            if (mean < best) best = mean, bq = q;
            report_fmt_ci(a, sizeof a, C->rule_kl[q], C->nseeds, 4);
            rt_rowf(&t, "%s (rule)\t%s\t\t", RULE_NAMES[q], a);
            if (f) fprintf(f, "%s,%s,%d,%.6f,%.6f,,\n", csv_q(C->conf), RULE_NAMES[q], C->nseeds, mean, half);
        }
        char worse[400] = "";
        size_t wl = 0;
        for (int m = 0; m < C->nm; m++) {
            double mean, half, ss, sh2, ls, lh;
            int k = report_mean_ci(C->kl[m], C->nseeds, &mean, &half);
            report_mean_ci(C->sp_size[m], C->nseeds, &ss, &sh2);
            report_mean_ci(C->sp_sel[m], C->nseeds, &ls, &lh);
            report_fmt_ci(a, sizeof a, C->kl[m], C->nseeds, 4);
            report_fmt_ci(b, sizeof b, C->sp_size[m], C->nseeds, 2);
            report_fmt_ci(c3, sizeof c3, C->sp_sel[m], C->nseeds, 2);
            rt_rowf(&t, "%s (n=%d)\t%s\t%s\t%s", C->method[m], k, a, b, c3);
            if (f) fprintf(f, "%s,%s,%d,%.6f,%.6f,%.6f,%.6f\n", csv_q(C->conf), csv_q(C->method[m]), k, mean, half, ss, ls);
            if (k && !(mean < best)) flce_catf(worse, sizeof worse, &wl, "%s%s", wl ? ", " : "", C->method[m]);
        }
        rt_end(&t);
        if (wl) {
            fprintf(md, "\nNot below the best trivial rule (*%s*, KL %.4f): %s.\n", RULE_NAMES[bq], best, worse);
            fprintf(ht, "<p>Not below the best trivial rule (<i>%s</i>, KL %.4f): %s.</p>\n", RULE_NAMES[bq], best, H(worse));
        }
        if (!C->noisy) {
            fprintf(ht, "</details>\n");
            continue;
        }
        static const char *aheads[] = {"method", "AUC"};
        fprintf(md, "\nNoisy clients ranked below clean ones (AUC of the final contributions; 0.5: chance):\n");
        fprintf(ht, "<p>Noisy clients ranked below clean ones (AUC of the final contributions; 0.5: chance):</p>\n");
        rt_begin(&t, md, ht, 2, aheads);
        for (int m = 0; m < C->nm; m++) {
            double mean, half;
            int k = report_mean_ci(C->auc[m], C->nseeds, &mean, &half);
            if (!k) continue;
            report_fmt_ci(a, sizeof a, C->auc[m], C->nseeds, 3);
            rt_rowf(&t, "%s (n=%d)\t%s", C->method[m], k, a);
            if (fa) fprintf(fa, "%s,%s,%d,%.6f,%.6f\n", csv_q(C->conf), csv_q(C->method[m]), k, mean, half);
        }
        rt_end(&t);
        fprintf(ht, "</details>\n");
    }
    if (f) report_fclose(f);
    if (fa) report_fclose(fa);
    free(cs);
    return 1;
}
