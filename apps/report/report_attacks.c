/* report_attacks.c: strategic clients (docs/attacks.md): can a participant buy a larger share?
 * Every attacked run (config.json "attacks") is paired with the honest run of its seed: the run
 * whose config.json is its own without "attacks" (the same method, federation and flags). Per
 * arm (the attacks as given) and method, over the seeds with both runs:
 *   the attacker's share  its contribution over the sum of every client's, contributions below 0
 *                         taken as 0 (uniform where none is above 0); several attackers: their sum;
 *   d, h                  the mean paired difference (attacked minus honest) and its 95%
 *                         half-width (Student t, exact: report_stats.h);
 *   the verdict           the strategic-clients study's rule (docs/results/fmnist-attacks/PLAN.md),
 *                         with the threshold half an equal share, 1/(2n) for n clients:
 *                         manipulable where d >= 1/(2n) and d - h > 0, resists where d + h <
 *                         1/(2n), else undecided with what deciding would take (report_power of
 *                         d - 1/(2n)); "control: the honest bytes" where every pair's contributions
 *                         are equal (a method that cannot feel the attack);
 *   the accuracy's difference over the report's window, with its interval (not part of the verdict).
 * tools/attacks_table.py computes the same from the study's folders, independently (tests/cli_attack.sh
 * compares the two). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attacks.h"
#include "report.h"

typedef struct {
    int a[REPORT_MAX_SEEDS], h[REPORT_MAX_SEEDS], n; /* attacked and honest runs, paired by seed */
    int first, fed, method;                          /* its first attacked run; the order's keys */
    char spec[1024];                                 /* the attacks as given, space-separated */
    /* over the pairs (arm_stats): the attackers, the mean shares honest and attacked, d and its
     * half-width, the threshold, the accuracy's difference and half-width, the pairs of the same
     * contributions, the verdict */
    int who[FLCE_MAX_ATTACKS], nw, same;
    double hs, as, d, hw, thr, da, ha;
    const char *verdict;
} arm_t;

/* Run r's attacks: 0 where none, the count where each is KIND:CLIENT[:STRENGTH] with a client of
 * the run (at most FLCE_MAX_ATTACKS), -1 (said by report_damaged) where not; the attackers, each
 * once and in increasing order, into who [*nw], the attacks as given into spec. */
static int attacks_of(report *R, const run_t *r, int *who, int *nw, char *spec, size_t cap) {
    const cJSON *at = r->cfg ? cJSON_GetObjectItemCaseSensitive(r->cfg, "attacks") : NULL, *a;
    size_t n = 0;
    int k = 0;
    spec[0] = '\0', *nw = 0;
    if (!at) return 0;
    if (!cJSON_IsArray(at)) return report_damaged(R, "%s/config.json: \"attacks\" is not a list", r->dir), -1;
    cJSON_ArrayForEach(a, at) {
        flce_attack x;
        char why[160];
        if (!cJSON_IsString(a) || flce_attack_parse(a->valuestring, &x, why, sizeof why))
            return report_damaged(R, "%s/config.json: \"attacks\": %s", r->dir, cJSON_IsString(a) ? why : "not a string"), -1;
        if (x.client < 0 || x.client >= r->clients)
            return report_damaged(R, "%s/config.json: \"attacks\": %s: client %d of %d", r->dir, a->valuestring, x.client, r->clients), -1;
        if (k == FLCE_MAX_ATTACKS) return report_damaged(R, "%s/config.json: \"attacks\": more than %d", r->dir, FLCE_MAX_ATTACKS), -1;
        int at_ = 0;
        while (at_ < *nw && who[at_] < x.client) at_++;
        if (at_ == *nw || who[at_] != x.client) {
            memmove(who + at_ + 1, who + at_, sizeof *who * (size_t)(*nw - at_));
            who[at_] = x.client, ++*nw;
        }
        k++;
        flce_catf(spec, cap, &n, "%s%s", n ? " " : "", a->valuestring);
    }
    return k;
}

static double share(const run_t *r, const int *who, int nw) {
    double s = 0, w = 0;
    for (int i = 0; i < r->clients; i++) s += r->contrib[i] > 0 ? r->contrib[i] : 0;
    for (int q = 0; q < nw; q++) w += r->contrib[who[q]] > 0 ? r->contrib[who[q]] : 0;
    return s == 0 ? (double)nw / r->clients : w / s; /* none above 0: the uniform shares */
}

static int method_index(const char *algo) {
    for (int i = 0; i < flce_method_count(); i++)
        if (!strcmp(flce_method_name(i), algo)) return i;
    return flce_method_count();
}

static int arm_cmp(const void *x, const void *y) {
    const arm_t *a = x, *b = y;
    int c = a->fed - b->fed;
    if (!c) c = strcmp(a->spec, b->spec);
    if (!c) c = a->method - b->method;
    return c ? c : a->first - b->first;
}

/* The arms of the runs into arms [cap] (pairs found); their count, -1 when out of memory, or -2
 * where a config.json is damaged (report_damaged has said so) or a limit is passed (report_over). */
static int collect(report *R, arm_t *arms, int cap) {
    static const char *const DROP_SEED[] = {"seed"}, *const DROP_PAIR[] = {"seed", "attacks"},
                             *const DROP_FED[] = {"seed", "attacks", "algo", "ablate"};
    char **kseed = calloc((size_t)R->nr * 3, sizeof *kseed), **kpair = kseed ? kseed + R->nr : NULL, **kfed = kseed ? kseed + 2 * R->nr : NULL;
    unsigned char *hit = calloc((size_t)R->nr, 1);
    int na = 0, ok = kseed && hit, said = 0;
    for (int i = 0; i < R->nr && ok; i++) {
        int who[FLCE_MAX_ATTACKS], nw;
        char spec[1024];
        int k = attacks_of(R, &R->runs[i], who, &nw, spec, sizeof spec);
        if (k < 0) ok = 0, said = 1;
        hit[i] = k > 0;
        kpair[i] = flce_run_key(&R->runs[i], DROP_PAIR, 2);
        if (!kpair[i] || (k > 0 && (!(kseed[i] = flce_run_key(&R->runs[i], DROP_SEED, 1)) || !(kfed[i] = flce_run_key(&R->runs[i], DROP_FED, 4)))))
            ok = 0;
    }
    for (int i = 0; i < R->nr && ok; i++) {
        if (!hit[i]) continue;
        const run_t *r = &R->runs[i];
        int h = -1, m = -1;
        for (int j = 0; j < R->nr && h < 0; j++) /* its honest run: the first of its seed */
            if (!hit[j] && R->runs[j].seed == r->seed && !strcmp(kpair[j], kpair[i])) h = j;
        if (h < 0) continue;
        for (int q = 0; q < na && m < 0; q++)
            if (!strcmp(kseed[arms[q].first], kseed[i])) m = q;
        if (m < 0) {
            if (na == cap) {
                report_over(R, "strategic clients: more than %d arms and methods: report them in parts", cap);
                ok = 0, said = 1;
                break;
            }
            m = na++;
            memset(&arms[m], 0, sizeof arms[m]);
            arms[m].first = i, arms[m].method = method_index(r->algo);
            int who[FLCE_MAX_ATTACKS], nw;
            attacks_of(R, r, who, &nw, arms[m].spec, sizeof arms[m].spec);
            arms[m].fed = i;
            for (int q = 0; q < i; q++) /* the federation's first attacked run: its place in the order */
                if (hit[q] && !strcmp(kfed[q], kfed[i])) {
                    arms[m].fed = q;
                    break;
                }
        }
        arm_t *A = &arms[m];
        int dup = 0;
        for (int s = 0; s < A->n; s++) dup |= R->runs[A->a[s]].seed == r->seed; /* a repeat of a seed: left out */
        if (dup) continue;
        if (A->n == REPORT_MAX_SEEDS) {
            report_over(R, "strategic clients: more than %d seeds of %s under %s", REPORT_MAX_SEEDS, r->algo, A->spec);
            ok = 0, said = 1;
            break;
        }
        A->a[A->n] = i, A->h[A->n] = h, A->n++;
    }
    for (int i = 0; kseed && i < 3 * R->nr; i++) free(kseed[i]);
    free(kseed), free(hit);
    if (!ok) return said ? -2 : -1;
    qsort(arms, (size_t)na, sizeof *arms, arm_cmp);
    return na;
}

static const char *verdict_of(int n, double d, double h, double thr, int same) {
    if (same == n) return "control: the honest bytes";
    if (n >= 2 && d >= thr && d - h > 0) return "manipulable";
    if (n >= 2 && d + h < thr) return "resists";
    return "undecided";
}

static void arm_stats(report *R, arm_t *A) {
    const run_t *r0 = &R->runs[A->a[0]];
    char spec[1024];
    double diff[REPORT_MAX_SEEDS], dacc[REPORT_MAX_SEEDS];
    attacks_of(R, r0, A->who, &A->nw, spec, sizeof spec);
    A->hs = A->as = 0, A->same = 0;
    for (int s = 0; s < A->n; s++) {
        const run_t *a = &R->runs[A->a[s]], *h = &R->runs[A->h[s]];
        double x = share(h, A->who, A->nw), y = share(a, A->who, A->nw);
        A->hs += x, A->as += y, diff[s] = y - x, dacc[s] = a->fin_acc - h->fin_acc;
        int eq = 1; /* the same values (one key: the same clients); -0 and 0 alike, as tools/attacks_table.py compares */
        for (int i = 0; i < a->clients && eq; i++) eq = h->contrib[i] == a->contrib[i];
        A->same += eq;
    }
    A->hs /= A->n, A->as /= A->n, A->thr = 1.0 / (2.0 * r0->clients);
    report_mean_ci(diff, A->n, &A->d, &A->hw);
    report_mean_ci(dacc, A->n, &A->da, &A->ha);
    A->verdict = verdict_of(A->n, A->d, A->hw, A->thr, A->same);
}

/* The figure (attacks.png/.svg; the data of panel NN in attacks_NN.csv): a panel per configuration
 * and attacks, a row per method, d with its 95% interval, 0 dashed and the threshold 1/(2n)
 * dotted; Okabe-Ito's vermillion where manipulable, bluish green where it resists, grey where
 * undecided, light grey for a control. 1 when made or left out (*H 0: taller than
 * REPORT_FIG_MAX_PX), 0 when it failed; its size into *W, *H. */
static int attacks_figure(report *R, const arm_t *arms, int na, int *W, int *H) {
    const int row_px = 20, title_px = 26, below_px = 46, panel_px = title_px + 18 + below_px, top_px = 6, bottom_px = 30;
    *W = 1000, *H = top_px + bottom_px;
    for (int q = 0; q < na; q++) /* a panel's frame where its configuration or attacks begin, a row each */
        *H += (!q || arms[q - 1].fed != arms[q].fed || strcmp(arms[q - 1].spec, arms[q].spec) ? panel_px : 0) + row_px;
    if (*H > REPORT_FIG_MAX_PX) return *H = 0, 1;
    int longest = 0; /* the row labels whole, left of the panels: about 6.5 pixels a character */
    for (int q = 0; q < na; q++) {
        char lab[96];
        int len = (int)strlen(report_method_label(&R->runs[arms[q].a[0]], lab, sizeof lab));
        longest = len > longest ? len : longest;
    }
    int label_px = (int)(longest * 6.5) + 24 + 26;
    *W = label_px + 700 > 1000 ? label_px + 700 : 1000;
    flce_sbuf b = {0};
    flce_sbuf_printf(&b, "  set multiplot\n  set lmargin at screen %.4f\n  set rmargin at screen %.4f\n  set grid xtics\n  set key off\n"
                         "  set xtics font ',9'\n  set ytics font ',9' noenhanced\n  set format x '%%g'\n"
                         "  set xlabel 'share of the attackers, attacked minus honest (95%% interval); dotted: half an equal share' font ',9' offset 0,0.5\n",
                     (double)(label_px > 160 ? label_px : 160) / *W, 1 - 30.0 / *W);
    int y = top_px, ok = 1;
    for (int q = 0, p = 0; q < na && ok; p++) {
        int k = 1;
        while (q + k < na && arms[q + k].fed == arms[q].fed && !strcmp(arms[q + k].spec, arms[q].spec)) k++;
        char path[1200], conf[400], title[1500], lab[96];
        snprintf(path, sizeof path, "%s/attacks_%02d.csv", R->out, p);
        FILE *f = report_fopen(path);
        if (!f) {
            ok = 0;
            break;
        }
        fprintf(f, "y,difference,low,high,color,method,verdict\n");
        double lo = 0, hi = arms[q].thr;
        for (int r = 0; r < k; r++) {
            const arm_t *A = &arms[q + r];
            double h = isnan(A->hw) ? 0 : A->hw;
            int col = !strcmp(A->verdict, "manipulable") ? 0xd55e00 : !strcmp(A->verdict, "resists") ? 0x009e73
                    : !strcmp(A->verdict, "undecided")   ? 0x7f7f7f : 0xc8c8c8;
            fprintf(f, "%d,%.6g,%.6g,%.6g,%d,%s,%s\n", k - 1 - r, A->d, A->d - h, A->d + h, col,
                    csv_q(gp_safe(report_method_label(&R->runs[A->a[0]], lab, sizeof lab))), A->verdict);
            lo = fmin(lo, A->d - h), hi = fmax(hi, fmax(A->thr, A->d + h));
        }
        report_fclose(f);
        report_configuration(&R->runs[arms[q].h[0]], conf, sizeof conf);
        snprintf(title, sizeof title, "%s; %s", conf, arms[q].spec);
        char safe[1500]; /* gp_safe's characters and the semicolons, whole (gp_safe stops at 127) */
        size_t i = 0;
        for (; title[i] && i + 1 < sizeof safe; i++) {
            unsigned char c = (unsigned char)title[i];
            safe[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr(" _.,:;()+-/=#", c) ? (char)c : '_';
        }
        safe[i] = '\0';
        double pad = (hi - lo) * 0.06 + 1e-9, top = 1 - (double)(y + title_px) / *H, bot = 1 - (double)(y + panel_px - below_px + row_px * k) / *H;
        flce_sbuf_printf(&b, "  set tmargin at screen %.4f\n  set bmargin at screen %.4f\n  set title '%s' font ',10' noenhanced offset 0,-0.4\n"
                             "  set xrange [%.6g:%.6g]\n  set yrange [-0.6:%d.4]\n  unset arrow\n"
                             "  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'\n"
                             "  set arrow from first %.6g, graph 0 to first %.6g, graph 1 nohead dt 3 lw 1.5 lc rgb '#444444'\n"
                             "  plot 'attacks_%02d.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle\n",
                         top, bot, safe, lo - pad, hi + pad, k - 1, arms[q].thr, arms[q].thr, p);
        y += panel_px + row_px * k, q += k;
    }
    /* the y axis's label once, over every panel's rows (a panel of one row is too short for it) */
    flce_sbuf_printf(&b, "  set tmargin at screen %.4f\n  set bmargin at screen %.4f\n  set lmargin at screen %.4f\n  set rmargin at screen %.4f\n"
                         "  unset title\n  unset xlabel\n  unset arrow\n  unset border\n  unset tics\n  unset grid\n  set xrange [0:1]\n"
                         "  set yrange [0:1]\n  set ylabel 'method (a row each, in every panel)' font ',9'\n  plot NaN notitle\n",
                     1 - (double)(top_px + title_px) / *H, 1 - (double)(y - below_px) / *H, 40.0 / *W, 41.0 / *W);
    flce_sbuf_printf(&b, "  unset multiplot\n");
    ok = ok && !b.oom && gnuplot_sized(R->out, "attacks", *W, *H, b.s) == 0;
    flce_sbuf_free(&b);
    return ok;
}

int report_attacks(report *R) {
    enum { CAP = MAXRUNS }; /* an arm has a run of its own: never more */
    arm_t *arms = malloc(CAP * sizeof *arms);
    if (!arms) return 0;
    int na = collect(R, arms, CAP);
    if (na <= 0) {
        free(arms);
        return na != -1; /* -2: said already (a damaged file, a limit) */
    }
    for (int q = 0; q < na; q++) arm_stats(R, &arms[q]);
    FILE *md = R->md, *ht = R->ht, *csv;
    char p[1200];
    snprintf(p, sizeof p, "%s/attacks.csv", R->out);
    if ((csv = report_fopen(p)))
        fprintf(csv, "configuration,attacks,attackers,method,n,honest_share,attacked_share,difference,half_width,threshold,sd,"
                     "detectable_difference,seeds_to_decide,verdict,accuracy_difference,accuracy_half_width,runs_identical_to_honest,seeds\n");
    fprintf(md, "\n## Strategic clients\n\n");
    fprintf(ht, "<h2>Strategic clients</h2>\n");
    report_para(md, ht,
                "Can a participant buy a larger share? Each attacked run is paired with the honest run of its seed (the same method, "
                "federation and flags, without the attacks; docs/attacks.md). The attacker's share: its contribution over the sum of "
                "every client's, those below 0 taken as 0 (several attackers: their sum). d: the mean paired difference, attacked minus "
                "honest, with its 95% interval (Student t, exact). The verdict (the rule of the strategic-clients study's plan): "
                "**manipulable** where d is at least half an equal share, 1/(2n) for n clients, and its interval lies above 0; **resists** "
                "where the interval lies below half an equal share; otherwise **undecided**, with the seeds a new study would need at this "
                "difference from the threshold and this spread (a plug-in estimate); a **control** where every pair's contributions are "
                "the same values (a method that cannot feel the attack). The accuracy's difference is beside it and not part of the verdict.");
    int W, H, fig = attacks_figure(R, arms, na, &W, &H);
    R->figs_ok &= fig;
    if (fig && !H)
        report_para(md, ht, "The figure is left out: its panels would make it taller than a figure is drawn (30,000 pixels). "
                            "The table below has every row.");
    else if (fig) {
        static const char *cap = "Each panel: a configuration and its attacks; each row: a method, the dot its d (the attacker's share "
                                 "attacked minus honest, mean over the seeds paired), the bar its 95% interval; dashed: 0, dotted: half "
                                 "an equal share, the verdict's threshold. Vermillion (orange-red): manipulable, bluish green: resists, "
                                 "grey: undecided, light grey: a control (the honest bytes).";
        fprintf(md, "![Strategic clients: the attacker's share, attacked minus honest, 95%% intervals](attacks.png) ([SVG](attacks.svg))\n\n%s\n", cap);
        fprintf(ht, "<figure class='verdicts'><img src='attacks.svg' width='%d' height='%d' alt='the attacker share, attacked minus honest'>"
                    "<figcaption>%s</figcaption></figure>\n", W, H, cap);
    }
    static const char *hd[] = {"configuration", "attacks", "method", "seeds", "attacker's share, honest", "attacked", "d (95% interval)",
                               "verdict", "accuracy, attacked minus honest"};
    rtable t;
    rt_begin_class(&t, md, ht, "small", 9, hd);
    for (int q = 0; q < na; q++) {
        const arm_t *A = &arms[q];
        const run_t *r0 = &R->runs[A->a[0]];
        char conf[400], lab[96], seeds[REPORT_MAX_SEEDS * 21 + 1] = "", attackers[FLCE_MAX_ATTACKS * 12] = "";
        size_t sl = 0, al = 0;
        for (int i = 0; i < A->nw; i++) flce_catf(attackers, sizeof attackers, &al, "%s%d", al ? " " : "", A->who[i]);
        for (int s = 0; s < A->n; s++) flce_catf(seeds, sizeof seeds, &sl, "%s%llu", sl ? " " : "", R->runs[A->a[s]].seed);
        report_power_t pw = report_power(A->d - A->thr, A->hw, A->n);
        const char *v = A->verdict;
        report_configuration(&R->runs[A->h[0]], conf, sizeof conf);
        report_method_label(r0, lab, sizeof lab);
        if (csv) {
            fprintf(csv, "%s,%s,%s,%s,%d,%.6f,%.6f,%.6f,", csv_q(conf), csv_q(A->spec), attackers, csv_q(lab), A->n, A->hs, A->as, A->d);
            if (isnan(A->hw)) fputs(",", csv);
            else fprintf(csv, "%.6f,", A->hw);
            fprintf(csv, "%.6f", A->thr);
            report_power_csv(csv, &pw);
            fprintf(csv, ",%s,%.6f,", v, A->da);
            if (!isnan(A->ha)) fprintf(csv, "%.6f", A->ha);
            fprintf(csv, ",%d,%s\n", A->same, seeds);
        }
        char sh[40], sa[40], dc[120], vc[300], ac[80], ns[16];
        snprintf(sh, sizeof sh, "%.3f", A->hs), snprintf(sa, sizeof sa, "%.3f", A->as), snprintf(ns, sizeof ns, "%d", A->n);
        if (isnan(A->hw)) snprintf(dc, sizeof dc, "%+.3f (one seed)", A->d);
        else snprintf(dc, sizeof dc, "%+.3f (%+.3f to %+.3f)", A->d, A->d - A->hw, A->d + A->hw);
        if (!strcmp(v, "undecided") && A->n >= 2 && pw.seeds >= 2 && pw.seeds <= 100)
            snprintf(vc, sizeof vc, "undecided; decides at about %d seeds", pw.seeds);
        else if (!strcmp(v, "undecided") && A->n >= 2) /* report_power_words's |d| is here d's distance from the threshold */
            snprintf(vc, sizeof vc, "undecided; the %d seeds run detect only |d - 1/(2n)| >= %.3f", A->n, pw.detectable);
        else snprintf(vc, sizeof vc, "%s", v);
        if (isnan(A->ha)) snprintf(ac, sizeof ac, "%+.3f", A->da);
        else snprintf(ac, sizeof ac, "%+.3f ± %.3f", A->da, A->ha);
        int newconf = !q || arms[q - 1].fed != A->fed, newarm = newconf || strcmp(arms[q - 1].spec, A->spec);
        rt_row_begin(&t, NULL);
        rt_cell(&t, newconf ? conf : "", NULL, NULL, 0), rt_cell(&t, newarm ? A->spec : "", NULL, NULL, 0);
        rt_cell(&t, lab, NULL, NULL, 0), rt_cell(&t, ns, NULL, NULL, 0), rt_cell(&t, sh, NULL, NULL, 0), rt_cell(&t, sa, NULL, NULL, 0);
        rt_cell(&t, dc, NULL, NULL, 0);
        rt_cell(&t, vc, NULL, !strcmp(v, "resists") ? "holds" : !strcmp(v, "manipulable") ? "fails" : NULL, !strcmp(v, "manipulable"));
        rt_cell(&t, ac, NULL, NULL, 0);
        rt_row_end(&t);
    }
    rt_end(&t);
    report_para(md, ht, "Each row's numbers: attacks.csv (the configuration, the attacks, the attackers, the method, the seeds paired, "
                        "the attacker's mean share honest and attacked, d and its 95% half-width, the threshold 1/(2n), what deciding "
                        "would take for d against the threshold: the spread of one seed's difference, the smallest distance from the "
                        "threshold the seeds run detect with probability 0.8, the seeds a new study would need; the verdict, the "
                        "accuracy's difference and half-width, how many pairs gave the same contributions, the seeds; the figure's "
                        "panels: attacks_NN.csv).");
    if (csv) report_fclose(csv);
    free(arms);
    return 1;
}
