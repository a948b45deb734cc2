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

int report_trivial_rules(const run_t *r, double *tr, double *sel) { return trivial_rules(r, tr, sel); }

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

/* The runs' rules, KL, Spearman correlations and noise AUC, by configuration, seed and method
 * (cs, *nc of them). */
static void reference_collect(report *R, conf_t *cs, int *nc) {
    for (int i = 0; i < R->nr; i++) {
        const run_t *r = &R->runs[i];
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
        while (c < *nc && strcmp(cs[c].conf, conf)) c++;
        if (c == *nc && *nc < MAXG) snprintf(cs[(*nc)++].conf, sizeof cs[0].conf, "%s", conf);
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
}

/* One configuration's table of rules and methods (rows into f, reference_rules.csv), the
 * methods not below the best rule, and the noise AUC (rows into fa, noise_auc.csv). */
static void reference_conf(report *R, const conf_t *C, FILE *f, FILE *fa) {
    FILE *md = R->md, *ht = R->ht;
    char a[64], b[64], c3[64];
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
    if (C->noisy) {
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
    }
    fprintf(ht, "</details>\n");
}

int report_reference(report *R) {
    conf_t *cs = calloc(MAXG, sizeof *cs);
    if (!cs) return 0;
    int nc = 0;
    reference_collect(R, cs, &nc);
    if (!nc) {
        free(cs);
        return 1;
    }
    char p[1400];
    snprintf(p, sizeof p, "%s/reference_rules.csv", R->out);
    FILE *f = report_fopen(p);
    snprintf(p, sizeof p, "%s/noise_auc.csv", R->out);
    FILE *fa = report_fopen(p);
    if (f) fprintf(f, "configuration,rule_or_method,seeds,kl_mean,kl_half,spearman_sizes_mean,spearman_selected_mean\n");
    if (fa) fprintf(fa, "configuration,method,seeds,auc_mean,auc_half\n");
    fprintf(R->md, "\n## Reference rules and a second ground truth\n\n"
                   "What the server knows without any method, from the runs' own selections: the KL to the data shares of three "
                   "trivial contribution rules (uniform; the rounds each client was selected; the data-size aggregation weights "
                   "summed over those rounds), beside each method's; and per method the Spearman correlation of its final "
                   "contributions with the data sizes and with the selection counts. A method whose mean KL is not below the best "
                   "trivial rule's says nothing about the data shares the server did not already know. Means and 95%% intervals "
                   "over seeds. Data: `reference_rules.csv`, `noise_auc.csv`.\n");
    fprintf(R->ht, "<h2>Reference rules and a second ground truth</h2>\n<p>What the server knows without any method: the KL to the "
                   "data shares of three trivial rules (uniform; rounds selected; data-size weights summed over the rounds "
                   "selected) beside each method's, and each method's Spearman correlation with the data sizes and the selection "
                   "counts. A method whose mean KL is not below the best trivial rule's says nothing about the data shares the "
                   "server did not already know. Data: <code>reference_rules.csv</code>, <code>noise_auc.csv</code>.</p>\n");
    for (int c = 0; c < nc; c++) reference_conf(R, &cs[c], f, fa);
    if (f) report_fclose(f);
    if (fa) report_fclose(fa);
    free(cs);
    return 1;
}

/* ---- the clients (issue 65): what a report on one's own runs opens on ------------------ */

static void csv_num(FILE *f, double v, char end) { /* empty where NaN */
    if (!isnan(v)) fprintf(f, "%.6f", v);
    fputc(end, f);
}

static void fmt_or_na(char *o, size_t cap, double v, int digits) {
    if (isnan(v)) snprintf(o, cap, "n/a");
    else snprintf(o, cap, "%.*f", digits, v);
}

/* One configuration's clients as the section shows them: the runs shown (same clients; use[],
 * nu) and those drawn as bars (no variants; bars[], nb), the data shares and the trivial rules. */
typedef struct {
    report *R;
    const run_t *r0; /* the first run */
    int N;           /* clients */
    char conf[200], name[40], seed[32];
    double *sh, *tr, *sel; /* data shares [N]; the rules [NRULES][N]; the rounds selected [N] */
    int rules;             /* the rules were recorded */
    int use[MAXM], nu, bars[MAXM], nb;
} clients_view;

/* NAME.csv: a row per client (samples, data share, each method's contribution, the rules) */
static void clients_csv(const clients_view *v) {
    const run_t *runs = v->R->runs;
    int N = v->N;
    char path[1400], lab[64];
    snprintf(path, sizeof path, "%s/%s.csv", v->R->out, v->name);
    FILE *f = report_fopen(path);
    if (!f) return;
    fprintf(f, "client,samples,data_share");
    for (int u = 0; u < v->nu; u++) fprintf(f, ",%s", csv_q(report_method_label(&runs[v->use[u]], lab, sizeof lab)));
    if (v->rules) fprintf(f, ",uniform,rounds_selected,size_weights_selected,times_selected");
    fprintf(f, "\n");
    for (int k = 0; k < N; k++) {
        fprintf(f, "%d,%.17g,%.6f", k, v->r0->samples[k], v->sh[k]);
        for (int u = 0; u < v->nu; u++) fprintf(f, ",%.6f", runs[v->use[u]].contrib[k]);
        if (v->rules)
            fprintf(f, ",%.6f,%.6f,%.6f,%.17g", v->tr[RULE_UNIFORM * N + k], v->tr[RULE_SELECTED * N + k], v->tr[RULE_SIZEW * N + k], v->sel[k]);
        fprintf(f, "\n");
    }
    report_fclose(f);
}

/* The figure: a group of bars per client (data share, then each method), the rules as marks; its
 * heading and caption; 0 when gnuplot failed. */
static int clients_figure(const clients_view *v) {
    const run_t *runs = v->R->runs;
    int N = v->N, K = 1 + v->nb, entries = K + (v->rules ? 3 : 0), key_below = entries > 8; /* many methods: the key below, 6 a row */
    int fig_h = key_below ? 300 + 22 * ((entries + 5) / 6) : 340;
    double w = 0.8 / K;
    char lab[64];
    flce_sbuf b = {0};
    flce_sbuf_printf(&b, "  set xlabel 'client'\n  set ylabel 'share (each series sums to 1)'\n  set key %s\n"
                         "  set yrange [0:*]\n  set xrange [-0.6:%d.6]\n  set xtics %d\n  set grid ytics\n  set style fill solid 0.85 noborder\n"
                         "  plot '%s.csv' skip 1 using ($1%+.4f):3:(%.4f) with boxes lc rgb '#333333' lw 1.5 fs empty border title 'data share'",
                     key_below ? "below horizontal maxcols 6" : "outside right top", N - 1, N <= 25 ? 1 : 5, v->name, -(K - 1) / 2.0 * w, w);
    for (int s = 0; s < v->nb; s++) {
        const run_t *r = &runs[v->use[v->bars[s]]];
        flce_sbuf_printf(&b, ", \\\n       '' skip 1 using ($1%+.4f):%d:(%.4f) with boxes lc rgb '%s' title '%s'", (s + 1 - (K - 1) / 2.0) * w,
                         4 + v->bars[s], w, color_of(r->algo), gp_safe(report_method_label(r, lab, sizeof lab)));
    }
    if (v->rules) /* the marks black on a white halo: seen on any bar, a black one (GTG's) too */
        flce_sbuf_printf(&b, ", \\\n       '' skip 1 using 1:%d with points pt 6 ps 1.1 lw 4 lc rgb '#ffffff' notitle"
                             ", \\\n       '' skip 1 using 1:%d with points pt 2 ps 1.1 lw 4 lc rgb '#ffffff' notitle"
                             ", \\\n       '' skip 1 using 1:%d with points pt 6 ps 1.1 lw 1.5 lc rgb '#000000' title 'rule: rounds selected'"
                             ", \\\n       '' skip 1 using 1:%d with points pt 2 ps 1.1 lw 1.5 lc rgb '#000000' title 'rule: data-size weights'"
                             ", \\\n       %.9g with lines dt 2 lw 1.5 lc rgb '#555555' title 'rule: uniform'",
                         4 + v->nu + 1, 4 + v->nu + 2, 4 + v->nu + 1, 4 + v->nu + 2, 1.0 / N);
    flce_sbuf_printf(&b, "\n");
    int ok = !b.oom && gnuplot_sized(v->R->out, v->name, 980, fig_h, b.s) == 0;
    flce_sbuf_free(&b);
    fprintf(v->R->md, "\n### %s (seed %s)\n\n![each client's contribution beside its data share: %s](%s.png) ([SVG](%s.svg); data: `%s.csv`)\n",
            MD(v->conf), v->seed, MD(v->conf), v->name, v->name, v->name);
    fprintf(v->R->ht, "<h3>%s (seed %s)</h3>\n<figure><img src='%s.svg' width='980' height='%d' alt='each client&#39;s contribution beside its "
                      "data share, %s'><figcaption>Each client: its share of the training data (the hollow bar), each method's share of the final "
                      "contributions, and the rules that need no method (circle: the rounds it was selected; cross: the data-size "
                      "weights summed over those rounds; dashed: uniform). Data: <a href='%s.csv'>%s.csv</a>.</figcaption></figure>\n",
            H(v->conf), v->seed, v->name, fig_h, H(v->conf), v->name, v->name);
    return ok;
}

/* A row of clients_summary.csv */
static void summary_row(FILE *fs, const clients_view *v, const char *who, double kl, double s1, double s2) {
    if (!fs) return;
    fprintf(fs, "%s,%s,%s,", csv_q(v->conf), v->seed, who);
    csv_num(fs, kl, ',');
    csv_num(fs, s1, ',');
    csv_num(fs, s2, '\n');
}

/* KL to the data shares and Spearman with them and with the rounds selected, of each rule and
 * method; then which methods came closer than the best rule. */
static void clients_table(const clients_view *v, FILE *fs) {
    const run_t *runs = v->R->runs;
    FILE *md = v->R->md, *ht = v->R->ht;
    int N = v->N;
    static const char *heads[] = {"rule or method", "KL to data shares", "Spearman with data shares", "Spearman with rounds selected"};
    rtable t;
    rt_begin_class(&t, md, ht, "means", 4, heads);
    char a[32], b1[32], c1[32], lab[64], who[96];
    double best = INFINITY;
    int bq = -1;
    for (int q = 0; v->rules && q < NRULES; q++) {
        const double *x = v->tr + (size_t)q * N;
        double kl = flce_kl(x, v->sh, N, NULL), s1 = report_spearman(x, v->r0->samples, N), s2 = report_spearman(x, v->sel, N);
        if (kl < 0) kl = NAN; /* a share of 0 where the rule gives more */
        if (kl < best) best = kl, bq = q;
        fmt_or_na(a, sizeof a, kl, 4), fmt_or_na(b1, sizeof b1, s1, 3), fmt_or_na(c1, sizeof c1, s2, 3);
        rt_rowf(&t, "%s (rule)\t%s\t%s\t%s", RULE_NAMES[q], a, b1, c1);
        snprintf(who, sizeof who, "%s (rule)", RULE_NAMES[q]);
        summary_row(fs, v, who, kl, s1, s2);
    }
    char below[400] = "", above[400] = "";
    size_t bl = 0, al = 0;
    for (int u = 0; u < v->nu; u++) {
        const run_t *r = &runs[v->use[u]];
        double kl = r->kl_final, s1 = report_spearman(r->contrib, r->samples, N), s2 = v->rules ? report_spearman(r->contrib, v->sel, N) : NAN;
        report_method_label(r, lab, sizeof lab);
        fmt_or_na(a, sizeof a, kl, 4), fmt_or_na(b1, sizeof b1, s1, 3), fmt_or_na(c1, sizeof c1, s2, 3);
        rt_rowt(&t, lab, 0, "%s\t%s\t%s", a, b1, c1);
        summary_row(fs, v, csv_q(lab), kl, s1, s2);
        if (bq >= 0 && !isnan(kl)) {
            if (kl < best) flce_catf(below, sizeof below, &bl, "%s%s", bl ? ", " : "", lab);
            else flce_catf(above, sizeof above, &al, "%s%s", al ? ", " : "", lab);
        }
    }
    rt_end(&t);
    if (bq >= 0 && (bl || al)) {
        char line[1200];
        snprintf(line, sizeof line, "Closer to the data shares than the best rule that needs no method (%s, KL %.4f): %s; not closer: %s.",
                 RULE_NAMES[bq], best, bl ? below : "none", al ? above : "none");
        fprintf(md, "\n%s\n", MD(line));
        fprintf(ht, "<p>%s</p>\n", H(line));
    }
}

/* Every client's numbers (HTML: folded) */
static void clients_numbers(const clients_view *v) {
    const run_t *runs = v->R->runs;
    FILE *md = v->R->md, *ht = v->R->ht;
    int N = v->N;
    const char *hd[3 + MAXM + 2];
    char hl[MAXM][64];
    int nh = 0;
    hd[nh++] = "client", hd[nh++] = "samples", hd[nh++] = "data share";
    for (int u = 0; u < v->nu; u++) hd[nh++] = report_method_label(&runs[v->use[u]], hl[u], sizeof hl[u]);
    if (v->rules) hd[nh++] = "rounds selected", hd[nh++] = "data-size weights (rule)";
    fprintf(md, "\nEvery client's numbers (shares of the whole):\n");
    fprintf(ht, "<details><summary>Every client's numbers (shares of the whole)</summary>");
    rtable t;
    rt_begin_class(&t, md, ht, "means", nh, hd);
    for (int k = 0; k < N; k++) {
        char cell[64];
        rt_row_begin(&t, NULL);
        snprintf(cell, sizeof cell, "%d", k), rt_cell(&t, cell, NULL, NULL, 0);
        snprintf(cell, sizeof cell, "%g", v->r0->samples[k]), rt_cell(&t, cell, NULL, NULL, 0);
        snprintf(cell, sizeof cell, "%.4f", v->sh[k]), rt_cell(&t, cell, NULL, NULL, 0);
        for (int u = 0; u < v->nu; u++) snprintf(cell, sizeof cell, "%.4f", runs[v->use[u]].contrib[k]), rt_cell(&t, cell, NULL, NULL, 0);
        if (v->rules) {
            snprintf(cell, sizeof cell, "%g", v->sel[k]), rt_cell(&t, cell, NULL, NULL, 0);
            snprintf(cell, sizeof cell, "%.4f", v->tr[RULE_SIZEW * N + k]), rt_cell(&t, cell, NULL, NULL, 0);
        }
        rt_row_end(&t);
    }
    rt_end(&t);
    fprintf(ht, "</details>\n");
}

/* FLCE's class contributions (the figures of runs.html), for the runs shown that have one */
static void clients_classes(const clients_view *v) {
    report *R = v->R;
    char lab[64];
    for (int u = 0; u < v->nu; u++) {
        int i = v->use[u];
        if (!R->class_fig[i]) continue;
        report_method_label(&R->runs[i], lab, sizeof lab);
        fprintf(R->md, "\n%s's class contributions: each class's share of the completed contribution matrix (weighted by b_c) against "
                       "the class weights' shares, and each client's per class (`class_contributions_%02d.csv`).\n\n"
                       "![class contributions, %s](class_contributions_%02d.png) ([SVG](class_contributions_%02d.svg))\n",
                MD(lab), i, MD(lab), i, i);
        fprintf(R->ht, "<figure><img src='class_contributions_%02d.svg' width='860' height='480' alt='class contributions, %s'>"
                       "<figcaption>%s's class contributions: left, each class's share of the completed contribution matrix "
                       "(weighted by b_c) against the class weights' shares (grey); right, each client's per class. Data: "
                       "<a href='class_contributions_%02d.csv'>class_contributions_%02d.csv</a>.</figcaption></figure>\n",
                i, H(lab), H(lab), i, i);
    }
}

/* Configuration c (one seed of each method, runs m[0..n)): its per-client figure, tables and
 * class contributions into R->md/R->ht, its rows into fs (clients_summary.csv); 0 when a figure
 * failed. */
static int clients_of(report *R, int c, const int *m, int n, FILE *fs) {
    run_t *runs = R->runs;
    clients_view v0 = {.R = R, .r0 = &runs[m[0]], .N = runs[m[0]].clients}, *v = &v0;
    int N = v->N;
    report_configuration(v->r0, v->conf, sizeof v->conf);
    snprintf(v->name, sizeof v->name, "conf%02d_clients", c + 1);
    snprintf(v->seed, sizeof v->seed, "%llu", v->r0->seed);
    v->sh = malloc(sizeof(double) * (size_t)N * (NRULES + 2));
    if (!v->sh) return 1;
    v->tr = v->sh + N, v->sel = v->tr + (size_t)N * NRULES;
    flce_data_shares(v->r0->samples, NULL, 10, N, v->sh);
    for (int q = 0; q < n && !v->rules; q++) /* the trivial rules, from the selections of the first run that recorded them */
        if (runs[m[q]].clients == N) v->rules = trivial_rules(&runs[m[q]], v->tr, v->sel);
    if (n > MAXM) report_over(R, "more than %d methods of one configuration in the clients' table (%s); give fewer runs", MAXM, v->conf);
    for (int q = 0; q < n && v->nu < MAXM; q++) {
        if (runs[m[q]].clients != N) continue;
        v->use[v->nu++] = m[q];
        if (!runs[m[q]].ablate[0]) v->bars[v->nb++] = v->nu - 1;
    }
    clients_csv(v);
    int ok = clients_figure(v);
    clients_table(v, fs);
    clients_numbers(v);
    clients_classes(v);
    free(v->sh);
    return ok;
}

int report_clients(report *R) {
    FILE *fs = NULL;
    int said = 0, ok = 1;
    static int m[MAXRUNS];
    for (int c = 0; c < report_nconf(R); c++) {
        int most, n = report_conf_members(R, c, m, MAXRUNS, &most);
        if (!n || most >= 2) continue; /* with seeds: its section under Each configuration */
        if (!said++) {
            static const char *intro =
                "What each method gave each client, beside the client's share of the training data and the rules "
                "that need no method (uniform; the rounds each client was selected; the data-size aggregation weights "
                "summed over those rounds): the KL of each to the data shares (0: the same shares) and Spearman's rank "
                "correlation with them (1: the same order; ties take their mean rank). Data:";
            fprintf(R->md, "\n## Clients: contributions beside data shares\n\n%s `clients_summary.csv`.\n", intro);
            fprintf(R->ht, "<h2>Clients: contributions beside data shares</h2>\n<p>%s <a href='clients_summary.csv'>clients_summary.csv</a>.</p>\n",
                    H(intro));
            char path[1400];
            snprintf(path, sizeof path, "%s/clients_summary.csv", R->out);
            if ((fs = report_fopen(path)))
                fprintf(fs, "configuration,seed,rule_or_method,kl,spearman_data_shares,spearman_rounds_selected\n");
        }
        ok &= clients_of(R, c, m, n, fs);
    }
    if (fs) report_fclose(fs);
    return ok;
}
