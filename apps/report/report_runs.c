/* report_runs.c: the report's every-run page (runs.md, runs.html) and the per-run figures it
 * draws: each run's curves, contributions against the data shares, server cost, the summary
 * table, ablations, the distance to exact Shapley, class contributions, the heterogeneity sweep,
 * the noise runs and every run's settings and digests (report.h declares them; cmd_report.c
 * orders them into pages). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine.h" /* flce_algo_known */
#include "flce_eq.h"
#include "npy.h"
#include "report.h"
#include "run_reader.h"

/* Labels: the method and its ablations, made unique by the end of the run's path. */
void report_labels(report *R) {
    run_t *runs = R->runs;
    int nr = R->nr;
    for (int i = 0; i < nr; i++) { /* labels: the method and its ablations, made unique */
        run_t *r = &runs[i];
        snprintf(r->label, sizeof r->label, "%s%s%s", r->algo, r->ablate[0] ? " -" : "", r->ablate);
        for (char *c = r->label; *c; c++)
            if (*c == ' ' && c[1] && c != r->label + strlen(r->algo)) *c = '-';
        for (int j = 0; j < i; j++)
            if (!strcmp(runs[j].label, r->label)) {
                const char *b = r->dir + strlen(r->dir); /* the last two parts of the path */
                int slashes = 0;
                while (b > r->dir && slashes < 2) slashes += *--b == '/';
                if (*b == '/') b++;
                size_t l = strlen(r->label);
                snprintf(r->label + l, sizeof r->label - l, " (%s)", b);
                break;
            }
    }
}

/* Beyond this many runs a figure with a line or a bar per run is unreadable (and its legend
 * longer than a dozen entries): the per-run figures of runs.html are left out (their data stay
 * in runNN_metrics.csv and contributions.csv; report.html draws each configuration's seed means),
 * and the server cost is drawn per method. */
#define MANY_RUNS 12

/* The method of run i with its ablation ("flce -M"), the number of runs of it, and whether i is
 * its first run. */
static int method_of(const run_t *runs, int nr, int i, char *name, size_t cap, int *first) {
    int n = 0;
    *first = 1;
    for (int j = 0; j < nr; j++)
        if (!strcmp(runs[j].algo, runs[i].algo) && !strcmp(runs[j].ablate, runs[i].ablate)) {
            n++;
            if (j < i) *first = 0;
        }
    snprintf(name, cap, "%s%s%s", runs[i].algo, runs[i].ablate[0] ? " -" : "", runs[i].ablate);
    return n;
}

static void remove_figure(const char *name) { /* a figure of an earlier report in OUT */
    const char *ext[3] = {"png", "svg", "gp"};
    char n[200];
    for (int k = 0; k < 3; k++) {
        snprintf(n, sizeof n, "%s.%s", name, ext[k]);
        report_out_drop(n);
    }
}

/* The per-round data (runNN_metrics.csv) and the accuracy, macro-F1 and KL figures; 1 when the
 * folder cannot be written. */
static int section_curves(report *R) {
    run_t *runs = R->runs;
    int nr = R->nr;
    const char *out = R->out;
    /* the data behind the figures */
    char p[1400];
    for (int i = 0; i < nr; i++) {
        snprintf(p, sizeof p, "%s/run%02d_metrics.csv", out, i);
        FILE *f = report_fopen(p);
        if (!f) return 1; /* said by report_out_failed */
        fprintf(f, "round,accuracy,macro_f1,kl,server_seconds\n");
        for (int t = 0; t < runs[i].T; t++)
            fprintf(f, "%d,%.6f,%.6f,%.6f,%.6f\n", t + 1, runs[i].acc[t], runs[i].f1[t], runs[i].kl[t], runs[i].srv[t]);
        report_fclose(f);
    }
    const char *what[3][3] = {{"accuracy", "2", "test accuracy of the global model"},
                              {"macro_f1", "3", "macro-F1 of the global model"},
                              {"kl", "4", "KL(running contributions || data shares)"}};
    if (nr > MANY_RUNS) { /* no figure of every run (nor one of an earlier report in OUT) */
        for (int w = 0; w < 3; w++) remove_figure(what[w][0]);
        return 0;
    }
    int T = 1;
    for (int i = 0; i < nr; i++) T = runs[i].T > T ? runs[i].T : T;
    for (int w = 0; w < 3; w++) { /* one curve per run */
        flce_sbuf b = {0};
        flce_sbuf_printf(&b, "  set xlabel 'round'\n  set ylabel '%s'\n  set xtics %d\n  set key outside right\n  set grid\n  plot ", what[w][2],
                         report_round_tics(T));
        for (int i = 0; i < nr; i++)
            flce_sbuf_printf(&b, "%s'run%02d_metrics.csv' skip 1 using 1:%s with linespoints lw 2 pt 7 ps 0.5 lc rgb '%s'%s title '%s'",
                             i ? ", \\\n       " : "", i, what[w][1], color_of(runs[i].algo), runs[i].ablate[0] ? " dt 2" : "",
                             gp_safe(runs[i].label));
        flce_sbuf_printf(&b, "\n");
        R->figs_ok &= !b.oom && gnuplot(out, what[w][0], b.s) == 0;
        flce_sbuf_free(&b);
    }
    return 0;
}

/* Contributions per client against the data shares (figure and CSV). */
static void section_contributions(report *R) {
    run_t *runs = R->runs;
    int nr = R->nr;
    const char *out = R->out;
    char p[1400];
    /* contributions per client, against the data shares */
    snprintf(p, sizeof p, "%s/contributions.csv", out);
    FILE *f = report_fopen(p);
    int n0 = nr ? runs[0].clients : 0, same_n = 1;
    for (int i = 0; i < nr; i++) same_n &= runs[i].clients == n0;
    if (f && same_n && nr) {
        double tot = 0;
        for (int k = 0; k < n0; k++) tot += runs[0].samples[k];
        fprintf(f, "client,data_share");
        for (int i = 0; i < nr; i++) fprintf(f, ",%s", csv_q(runs[i].label));
        fprintf(f, "\n");
        for (int k = 0; k < n0; k++) {
            fprintf(f, "%d,%.6f", k, tot > 0 ? runs[0].samples[k] / tot : 0);
            for (int i = 0; i < nr; i++) fprintf(f, ",%.6f", runs[i].contrib[k]);
            fprintf(f, "\n");
        }
        report_fclose(f);
        if (nr > MANY_RUNS) { /* a bar per run and client: unreadable; the CSV has them */
            remove_figure("contributions");
            return;
        }
        flce_sbuf b = {0};
        flce_sbuf_printf(&b, "  set xlabel 'client'\n  set ylabel 'share of the whole training'\n  set key outside right\n"
                             "  set style data histograms\n  set style histogram clustered gap 1\n  set style fill solid 0.85\n"
                             "  set xtics 0,5\n  set yrange [0:*]\n  plot 'contributions.csv' skip 1 using 2:xtic(1) title 'data share' lc rgb '#bbbbbb'");
        for (int i = 0; i < nr; i++)
            flce_sbuf_printf(&b, ", '' skip 1 using %d title '%s' lc rgb '%s'", i + 3, gp_safe(runs[i].label), color_of(runs[i].algo));
        flce_sbuf_printf(&b, "\n");
        R->figs_ok &= !b.oom && gnuplot(out, "contributions", b.s) == 0;
        flce_sbuf_free(&b);
    } else if (f) report_fclose(f);
}

/* Server seconds per round of each run (figure and CSV). */
static void section_server_cost(report *R) {
    run_t *runs = R->runs;
    int nr = R->nr;
    const char *out = R->out;
    char p[1400], body[16384];
    /* server cost per method */
    snprintf(p, sizeof p, "%s/server_cost.csv", out);
    FILE *f = report_fopen(p);
    if (f) {
        fprintf(f, "method,server_seconds_per_round,color\n");
        for (int i = 0; i < nr; i++) fprintf(f, "%s,%.9f,%s\n", csv_q(runs[i].label), runs[i].srv_all > 0 ? runs[i].srv_all : 1e-9, color_of(runs[i].algo));
        report_fclose(f);
        const char *csv = "server_cost.csv";
        if (nr > MANY_RUNS) { /* a bar per method: the mean over its runs (server_cost_methods.csv) */
            csv = "server_cost_methods.csv";
            snprintf(p, sizeof p, "%s/%s", out, csv);
            if (!(f = report_fopen(p))) return;
            fprintf(f, "method,server_seconds_per_round,runs\n");
            for (int i = 0; i < nr; i++) {
                char m[96];
                int first, k = method_of(runs, nr, i, m, sizeof m, &first);
                if (!first) continue;
                double sum = 0;
                for (int j = 0; j < nr; j++)
                    if (!strcmp(runs[j].algo, runs[i].algo) && !strcmp(runs[j].ablate, runs[i].ablate)) sum += runs[j].srv_all;
                fprintf(f, "%s,%.9f,%d\n", csv_q(m), sum / k > 0 ? sum / k : 1e-9, k);
            }
            report_fclose(f);
        }
        snprintf(body, sizeof body,
                 "  set xlabel '%s'\n  set ylabel 'server seconds per round (log scale)'\n  set logscale y\n  set style fill solid 0.85\n"
                 "  set boxwidth 0.6\n  set xtics rotate by -30\n  set grid ytics\n"
                 "  plot '%s' skip 1 using 0:2:(0.6):xtic(1) with boxes lc rgb '#1f77b4' notitle\n", nr > MANY_RUNS ? "method" : "run", csv);
        R->figs_ok &= gnuplot(out, "server_cost", body) == 0;
    }
}

/* The server's cost per round (the figure made by section_server_cost). */
void report_server_figure(report *R) {
    char p[1400];
    struct stat sb;
    snprintf(p, sizeof p, "%s/server_cost.png", R->out);
    if (stat(p, &sb) != 0) return;
    const char *what = R->nr > MANY_RUNS ? "mean over the runs of each method (server_cost_methods.csv)" : "each run (server_cost.csv)";
    fprintf(R->md, "\n## Server cost\n\nServer seconds per round, %s, FLCE's completion after the last round spread over the rounds "
                   "(the claims table judges the completion as the paper describes it).\n\n![server cost](server_cost.png) ([SVG](server_cost.svg))\n", what);
    fprintf(R->ht, "<h2>Server cost</h2><p>Server seconds per round, %s, FLCE's completion after the last round spread over the rounds "
                   "(the claims table judges the completion as the paper describes it).</p><img src='server_cost.svg' width='860' height='480' "
                   "alt='server seconds per round'>\n", what);
}

/* The summary table (accuracy, macro-F1, KL, server cost) and the figures made so far. */
void report_summary_table(report *R) {
    run_t *runs = R->runs;
    int nr = R->nr;
    const char *out = R->out;
    FILE *md = R->md, *ht = R->ht;
    char p[1400];
    static const char *intro = "Means over %s (the paper: the last 100 of 1,000). KL: the final contributions "
                               "against the data shares (plain, and diversity-weighted). Server s/round: the rounds' server time and "
                               "the work after the last round (FLCE's completion, costs.txt) spread over them.";
    static const char *heads[] = {"#", "method", "dataset", "partition", "rounds", "accuracy", "macro-F1", "KL", "KL (diversity)", "server s/round"};
    fprintf(md, "\n## Every run: accuracy, macro-F1 and contribution KL\n\n");
    fprintf(md, intro, window_phrase(R));
    fprintf(md, "\n");
    fprintf(ht, "<h2>Every run: accuracy, macro-F1 and contribution KL</h2><p>");
    fprintf(ht, intro, window_phrase(R));
    fprintf(ht, "</p>\n");
    rtable t;
    rt_begin(&t, md, ht, 10, heads);
    for (int i = 0; i < nr; i++) {
        run_t *r = &runs[i];
        char part[96];
        if (!strcmp(r->partition, "iid")) snprintf(part, sizeof part, "IID");
        else snprintf(part, sizeof part, "Dirichlet %g", r->dirichlet);
        if (r->label_noise > 0 || r->feature_noise > 0)
            snprintf(part + strlen(part), sizeof part - strlen(part), ", noise L%g F%g", r->label_noise, r->feature_noise);
        rt_rowt(&t, r->label, 1, "%02d\t%s\t%s\t%d\t%.4f\t%.4f\t%.5f\t%.5f\t%.4g", i, r->dataset, part, r->T, r->fin_acc, r->fin_f1,
                r->kl_final, r->kl_div, r->srv_all);
    }
    rt_end(&t);
    const char *figs[4][2] = {{"accuracy", "Test accuracy of the global model per round"},
                              {"macro_f1", "Macro-F1 of the global model per round"},
                              {"kl", "KL of the running contributions to the data shares per round (FLCE: before completion)"},
                              {"contributions", "Final contributions per client against the data shares"}};
    if (nr > MANY_RUNS) {
        static const char *many = "More than 12 runs: a figure with a line or a bar per run would be unreadable; each run's "
                                  "numbers per round are in runNN_metrics.csv (NN: its # above), the final contributions "
                                  "per client in contributions.csv, and the report draws each configuration's seed means and "
                                  "bands (report.html, Each configuration).";
        fprintf(md, "\n%s\n", many);
        fprintf(ht, "<p>%s</p>\n", many);
    }
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s.png", out, figs[i][0]);
        struct stat sb;
        if (stat(p, &sb) != 0) continue;
        fprintf(md, "\n### %s\n\n![%s](%s.png) ([SVG](%s.svg))\n", figs[i][1], figs[i][1], figs[i][0], figs[i][0]);
        fprintf(ht, "<h3>%s</h3><img src='%s.svg' alt='%s' width='860'>\n", figs[i][1], figs[i][0], figs[i][1]);
    }
}

/* Ablation: FLCE variants of otherwise equal settings. */
void report_ablation(report *R) {
    run_t *runs = R->runs;
    int nr = R->nr;
    FILE *md = R->md, *ht = R->ht;
    /* ablation: FLCE variants of otherwise equal settings */
    int have_abl = 0;
    for (int i = 0; i < nr; i++) have_abl |= !strcmp(runs[i].algo, "flce") && runs[i].ablate[0];
    if (have_abl) {
        static const char *heads[] = {"variant", "KL", "delta to FLCE", "accuracy"};
        fprintf(md, "\n## Ablation (KL of FLCE and its variants), run by run\n");
        fprintf(ht, "<h2>Ablation (KL of FLCE and its variants), run by run</h2>\n");
        rtable t;
        rt_begin(&t, md, ht, 4, heads);
        double base = NAN;
        for (int i = 0; i < nr; i++)
            if (!strcmp(runs[i].algo, "flce") && !runs[i].ablate[0]) base = runs[i].kl_final;
        for (int i = 0; i < nr; i++) {
            if (strcmp(runs[i].algo, "flce")) continue;
            rt_rowt(&t, runs[i].label, 0, "%.5f\t%+.5f\t%.4f", runs[i].kl_final, runs[i].kl_final - base, runs[i].fin_acc);
        }
        rt_end(&t);
    }
}

/* Distance to the canonical (exact) Shapley value, per round and cumulative, against a FedSV
 * run on the same partition. */
void report_shapley(report *R) {
    run_t *runs = R->runs;
    int nr = R->nr;
    const char *out = R->out;
    FILE *md = R->md, *ht = R->ht;
    char p[1400];
    /* distance to the canonical (exact) Shapley value, per round and cumulative, against a
     * FedSV run on the same partition */
    int sv = -1;
    for (int i = 0; i < nr; i++)
        if (!strcmp(runs[i].algo, "fedsv") && strcmp(runs[i].shapley, "mc") && runs[i].rc) sv = i;
    if (sv >= 0) {
        run_t *S0 = &runs[sv];
        int nrow = 0;
        snprintf(p, sizeof p, "%s/shapley_distance.csv", out);
        FILE *fd = report_fopen(p); /* NULL: the failure is recorded, the numbers still computed */
        if (fd) {
            fprintf(fd, "round");
            for (int i = 0; i < nr; i++)
                if (i != sv && runs[i].rc && !strcmp(runs[i].partdig, S0->partdig) && runs[i].T == S0->T) fprintf(fd, ",%s", csv_q(runs[i].label));
            fprintf(fd, "\n");
        }
        double *a = malloc(sizeof(double) * (size_t)S0->clients), *b = malloc(sizeof(double) * (size_t)S0->clients);
        double meanE[MAXRUNS] = {0}, meanK[MAXRUNS] = {0}, cumE[MAXRUNS] = {0}, cumK[MAXRUNS] = {0};
        for (int t = 0; t < S0->T; t++) {
            if (fd) fprintf(fd, "%d", t + 1);
            for (int i = 0; i < nr; i++) {
                run_t *r = &runs[i];
                if (i == sv || !r->rc || strcmp(r->partdig, S0->partdig) || r->T != S0->T) continue;
                int m = 0;
                for (int k = 0; k < S0->clients; k++) {
                    double x = r->rc[(size_t)t * r->clients + k], y = S0->rc[(size_t)t * S0->clients + k];
                    if (isnan(x) || isnan(y)) continue;
                    a[m] = fmax(0, x), b[m] = fmax(0, y), m++;
                }
                double sa = 0, sb = 0;
                for (int j = 0; j < m; j++) sa += a[j], sb += b[j];
                for (int j = 0; j < m; j++) a[j] = sa > 0 ? a[j] / sa : 1.0 / m, b[j] = sb > 0 ? b[j] / sb : 1.0 / m;
                double E2 = m ? flce_euclidean(a, b, m) : NAN, KL = m ? flce_kl_distance(a, b, m) : NAN;
                if (fd) fprintf(fd, ",%.6f", E2);
                meanE[i] += E2 / S0->T, meanK[i] += KL / S0->T;
            }
            if (fd) fprintf(fd, "\n");
        }
        /* cumulative: running sums to the end, each normalised (Shapley clamped at 0) */
        for (int i = 0; i < nr; i++) {
            run_t *r = &runs[i];
            if (i == sv || !r->rc || strcmp(r->partdig, S0->partdig) || r->T != S0->T) continue;
            cumK[i] = flce_run_shapley_cum(r, S0, &cumE[i]);
            nrow++;
        }
        report_fclose(fd);
        free(a), free(b);
        if (nrow) {
            flce_sbuf gp = {0};
            flce_sbuf_printf(&gp, "  set xlabel 'round'\n  set ylabel 'Euclidean distance to exact Shapley'\n"
                                 "  set key outside right\n  set grid\n  plot ");
            int col = 2;
            for (int i = 0; i < nr; i++) {
                run_t *r = &runs[i];
                if (i == sv || !r->rc || strcmp(r->partdig, S0->partdig) || r->T != S0->T) continue;
                flce_sbuf_printf(&gp, "%s'shapley_distance.csv' skip 1 using 1:%d with linespoints lw 2 pt 7 ps 0.5 lc rgb '%s'%s title '%s'",
                                 col > 2 ? ", \\\n       " : "", col, color_of(r->algo), r->ablate[0] ? " dt 2" : "", gp_safe(r->label));
                col++;
            }
            flce_sbuf_printf(&gp, "\n");
            R->figs_ok &= !gp.oom && gnuplot(out, "shapley_distance", gp.s) == 0;
            flce_sbuf_free(&gp);
            fprintf(md, "\n## Distance to the canonical Shapley value\n\nAgainst %s (exact Shapley per round, same partition): per round, the selected clients' "
                        "contributions of the round (clamped at 0, normalised) against the round's Shapley values; cumulative: the final sums.\n", MD(S0->dir));
            fprintf(ht, "<h2>Distance to the canonical Shapley value</h2><p>Against <code>%s</code> (exact Shapley per round, same partition): per round, the selected clients' "
                        "contributions of the round (clamped at 0, normalised) against the round's Shapley values; cumulative: the final sums.</p>\n", H(S0->dir));
            static const char *heads[] = {"method", "mean Euclidean per round", "mean KL per round", "cumulative Euclidean", "cumulative KL"};
            rtable t;
            rt_begin(&t, md, ht, 5, heads);
            for (int i = 0; i < nr; i++) {
                run_t *r = &runs[i];
                if (i == sv || !r->rc || strcmp(r->partdig, S0->partdig) || r->T != S0->T) continue;
                rt_rowt(&t, r->label, 0, "%.4f\t%.4f\t%.4f\t%.4f", meanE[i], meanK[i], cumE[i], cumK[i]);
            }
            rt_end(&t);
            fprintf(ht, "<img src='shapley_distance.svg' width='860' height='480' alt='distance to Shapley per round'>\n");
            fprintf(md, "\n![distance to Shapley per round](shapley_distance.png) ([SVG](shapley_distance.svg))\n");
        }
    }
}

/* Class contributions of FLCE runs: global shares per class against the class weights, and
 * per client (class_contributions_NN, made before the pages: report.html's clients section shows
 * it too; R->class_fig). */
static void class_figures(report *R) {
    run_t *runs = R->runs;
    int nr = R->nr;
    const char *out = R->out;
    const char *prog = R->prog;
    char p[1400], body[16384];
    /* class contributions of FLCE runs: global shares per class against the class weights,
     * and per client */
    for (int i = 0; i < nr; i++) {
        run_t *r = &runs[i];
        if (strcmp(r->algo, "flce")) continue;
        snprintf(p, sizeof p, "%s/trace/X_completed.npy", r->dir);
        flce_npy X;
        if (flce_npy_read(p, &X, NULL)) continue;
        if (X.dtype != FLCE_NPY_F64 || X.ndim != 3) {
            flce_npy_free(&X);
            continue;
        }
        int classes = flce_dataset_classes(r->dataset) ? flce_dataset_classes(r->dataset) : 10;
        if (X.shape[0] != r->T || X.shape[1] != r->clients || X.shape[2] != classes) {
            fprintf(stderr, "%s: %s: shape (%lld, %lld, %lld) does not fit the run (%d rounds, %d clients, %d classes): "
                            "no class contributions for it\n", prog, p, (long long)X.shape[0], (long long)X.shape[1],
                    (long long)X.shape[2], r->T, r->clients, classes);
            flce_npy_free(&X);
            continue;
        }
        int T = (int)X.shape[0], N = (int)X.shape[1], C = (int)X.shape[2];
        const double *x = X.data;
        double *bw = malloc(sizeof(double) * (size_t)C), *g = calloc((size_t)C, 8), tot = 0, btot = 0;
        if (!bw || !g) {
            free(bw), free(g), flce_npy_free(&X);
            continue;
        }
        for (int c = 0; c < C; c++) bw[c] = r->cw && r->ncw == C ? r->cw[c] : 1.0 / C;
        if (r->ncw != 0 && r->ncw != C) /* null is 0 weights, said by nothing; anything else must fit */
            fprintf(stderr, "%s: %s/config.json: class_weights is not a list of %d non-negative numbers: shown as 1/%d each\n",
                    prog, r->dir, C, C);
        for (int c = 0; c < C; c++) btot += bw[c];
        snprintf(p, sizeof p, "%s/class_contributions_%02d.csv", out, i);
        FILE *fc = report_fopen(p); /* NULL: the failure is recorded, the shares still computed */
        if (fc) {
            fprintf(fc, "client");
            for (int c = 0; c < C; c++) fprintf(fc, ",%d", c);
            fprintf(fc, "\n");
        }
        for (int k = 0; k < N; k++) {
            if (fc) fprintf(fc, "%d", k);
            for (int c = 0; c < C; c++) {
                double v = 0;
                for (int t = 0; t < T; t++) v += x[((size_t)t * N + k) * C + c];
                v *= bw[c];
                g[c] += v, tot += v;
                if (fc) fprintf(fc, ",%.6g", v);
            }
            if (fc) fprintf(fc, "\n");
        }
        report_fclose(fc);
        snprintf(p, sizeof p, "%s/class_global_%02d.csv", out, i);
        if ((fc = report_fopen(p))) {
            fprintf(fc, "class,contribution_share,class_weight_share\n");
            for (int c = 0; c < C; c++) fprintf(fc, "%d,%.6f,%.6f\n", c, tot > 0 ? g[c] / tot : 0, bw[c] / btot);
            report_fclose(fc);
        }
        /* the bars from 0 (autoscaled, they once began at 0.04: a small class looked like none),
         * their key below the panel (inside, it covered a bar); the heat map a cell per client and
         * class, drawn as rectangles (pixels), white at 0: the SVG once held a 10 x N bitmap that
         * the browser stretched into a blur; its ranges half a cell past the first and the last
         * (autoscaled to the cells' centres, client 0's row and the last were drawn half high) */
        snprintf(body, sizeof body,
                 "  set multiplot layout 1,2 title 'FLCE class contributions: %s'\n"
                 "  set style data histograms\n  set style fill solid 0.85\n  set xlabel 'class'\n  set ylabel 'share'\n  set key below horizontal\n"
                 "  set yrange [0:*]\n"
                 "  plot 'class_global_%02d.csv' skip 1 using 2:xtic(1) title 'contribution' lc rgb '%s', '' skip 1 using 3 title 'class weight' lc rgb '#bbbbbb'\n"
                 "  set style data lines\n  set xtics 1\n  set ytics %s\n  set xrange [-0.5:%d.5]\n  set yrange [-0.5:%d.5]\n  set xlabel 'class'\n"
                 "  set ylabel 'client'\n  unset key\n  set cblabel 'b_c sum_t X'\n  set cbrange [0:*]\n"
                 "  set palette defined (0 '#ffffff', 0.35 '#fdbb84', 0.7 '#e34a33', 1 '#7f0000')\n"
                 "  plot 'class_contributions_%02d.csv' matrix rowheaders columnheaders using 1:2:3 with image pixels\n  unset multiplot\n",
                 gp_safe(r->label), i, color_of(r->algo), N <= 25 ? "1" : "autofreq", C - 1, N - 1, i);
        char nm[32];
        snprintf(nm, sizeof nm, "class_contributions_%02d", i);
        R->figs_ok &= gnuplot(out, nm, body) == 0;
        R->class_fig[i] = 1;
        free(bw), free(g);
        flce_npy_free(&X);
    }
}

/* The class contributions of each FLCE run (the figures made by class_figures). */
void report_class_contributions(report *R) {
    for (int i = 0; i < R->nr; i++) {
        if (!R->class_fig[i]) continue;
        char nm[32];
        snprintf(nm, sizeof nm, "class_contributions_%02d", i);
        fprintf(R->md, "\n### Class contributions: %s\n\nGlobal share of each class in the completed contribution matrix (weighted by b_c) against the class weights given, "
                       "and per client (the data: `class_contributions_%02d.csv`).\n\n![class contributions](%s.png) ([SVG](%s.svg))\n", MD(R->runs[i].label), i, nm, nm);
        fprintf(R->ht, "<h3>Class contributions: %s</h3><p>Global share of each class in the completed contribution matrix (weighted by b_c) against the class weights given, "
                       "and per client.</p><img src='%s.svg' width='860' alt='class contributions'>\n", H(R->runs[i].label), nm);
    }
}

/* The smallest Dirichlet parameter above last among the runs of line a (alg_of[i] == a; a < 0:
 * every line), or INFINITY: the sweep's parameters in ascending order. */
static double next_dirichlet(const run_t *runs, int nr, const int *alg_of, int a, double last) {
    double d = INFINITY;
    for (int i = 0; i < nr; i++)
        if ((a < 0 ? alg_of[i] >= 0 : alg_of[i] == a) && runs[i].dirichlet > last) d = fmin(d, runs[i].dirichlet);
    return d;
}

/* Heterogeneity sweep: runs of one method that differ in the Dirichlet parameter. */
void report_heterogeneity(report *R) {
    run_t *runs = R->runs;
    int nr = R->nr;
    const char *out = R->out;
    FILE *md = R->md, *ht = R->ht;
    char p[1400];
    /* heterogeneity sweep: runs of one method that differ in the Dirichlet parameter */
    int sweep = 0;
    for (int i = 0; i < nr && !sweep; i++)
        for (int j = 0; j < nr; j++)
            if (j != i && !strcmp(runs[i].algo, runs[j].algo) &&
                !strcmp(runs[i].ablate, runs[j].ablate) && !strcmp(runs[i].partition, "dirichlet") &&
                !strcmp(runs[j].partition, "dirichlet") && runs[i].dirichlet != runs[j].dirichlet && runs[i].label_noise == 0 &&
                runs[j].label_noise == 0 && runs[i].feature_noise == 0 && runs[j].feature_noise == 0)
                sweep = 1;
    if (sweep) {
        snprintf(p, sizeof p, "%s/heterogeneity.csv", out);
        FILE *fh = report_fopen(p); /* NULL: the failure is recorded, the sweep still drawn */
        if (fh) fprintf(fh, "method,dirichlet,accuracy,kl\n");
        int rows = nr <= MANY_RUNS; /* many runs: each run's numbers in heterogeneity.csv, the figure draws the sweep */
        fprintf(md, "\n## Heterogeneity sweep\n\nEach method's final accuracy and KL against the Dirichlet parameter of otherwise equal "
                    "settings (every run: [heterogeneity.csv](heterogeneity.csv)).\n\n");
        fprintf(ht, "<h2>Heterogeneity sweep</h2><p>Each method's final accuracy and KL against the Dirichlet parameter of otherwise equal "
                    "settings (every run: <a href='heterogeneity.csv'>heterogeneity.csv</a>).</p>\n");
        static const char *heads[] = {"method", "Dirichlet", "accuracy", "KL"};
        rtable t;
        if (rows) rt_begin(&t, md, ht, 4, heads);
        char algos[16][48]; /* the methods' labels (with FLCE's prototype reading: another line) */
        int na = 0, alg_of[MAXRUNS];
        for (int i = 0; i < nr; i++) {
            run_t *r = &runs[i];
            alg_of[i] = -1;
            if (strcmp(r->partition, "dirichlet") || r->label_noise > 0 || r->feature_noise > 0 || r->ablate[0] ||
                r->ncw != 0)
                continue; /* the sweep compares plain runs only */
            if (fh) fprintf(fh, "%s,%g,%.6f,%.6f\n", csv_q(r->algo), r->dirichlet, r->fin_acc, r->kl_final);
            if (rows) rt_rowt(&t, r->algo, 0, "%g\t%.4f\t%.5f", r->dirichlet, r->fin_acc, r->kl_final);
            char lab[48];
            report_method_label(r, lab, sizeof lab);
            int a2 = 0;
            while (a2 < na && strcmp(algos[a2], lab)) a2++;
            if (a2 == na && na < 16) snprintf(algos[na++], sizeof algos[0], "%s", lab);
            alg_of[i] = a2 < na ? a2 : -1;
        }
        report_fclose(fh);
        if (rows) rt_end(&t);
        /* one file per method line, by Dirichlet parameter (no shell pipe in the script): the mean
         * over the runs at each parameter (seeds) and the smallest and largest of them; it once
         * drew the first run found at each, one seed of five, FLCE's two readings mixed */
        for (int a2 = 0; a2 < na; a2++) {
            snprintf(p, sizeof p, "%s/heterogeneity_%02d.csv", out, a2);
            FILE *fa = report_fopen(p);
            if (!fa) continue;
            fprintf(fa, "method,dirichlet,accuracy,accuracy_min,accuracy_max,kl,kl_min,kl_max,runs\n");
            for (double last = -1, dnext; (dnext = next_dirichlet(runs, nr, alg_of, a2, last)) != INFINITY; last = dnext) {
                double sa = 0, sk = 0, amin = INFINITY, amax = -INFINITY, kmin = INFINITY, kmax = -INFINITY;
                int k = 0;
                for (int i = 0; i < nr; i++) {
                    if (alg_of[i] != a2 || runs[i].dirichlet != dnext) continue;
                    double acc = runs[i].fin_acc, kl = runs[i].kl_final;
                    sa += acc, sk += kl, k++;
                    amin = fmin(amin, acc), amax = fmax(amax, acc), kmin = fmin(kmin, kl), kmax = fmax(kmax, kl);
                }
                fprintf(fa, "%s,%g,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%d\n", csv_q(gp_safe(algos[a2])), dnext, sa / k, amin, amax,
                        sk / k, kmin, kmax, k);
            }
            report_fclose(fa);
        }
        flce_sbuf b = {0};
        double dlo = INFINITY, dhi = 0; /* the parameters' range, widened so that the end points' bars show */
        for (int i = 0; i < nr; i++)
            if (alg_of[i] >= 0) dlo = fmin(dlo, runs[i].dirichlet), dhi = fmax(dhi, runs[i].dirichlet);
        flce_sbuf_printf(&b, "  set multiplot layout 1,2\n  set logscale x\n  set xrange [%g:%g]\n  set xlabel 'Dirichlet parameter (log scale)'\n"
                             "  set grid\n  set key below horizontal font ',9'\n  set xtics (", dlo / 1.4, dhi * 1.4);
        for (double last = 0, d, nt = 0; (d = next_dirichlet(runs, nr, alg_of, -1, last)) != INFINITY; nt++, last = d)
            flce_sbuf_printf(&b, "%s%g", nt ? ", " : "", d); /* a tic at each parameter run */
        flce_sbuf_printf(&b, ")\n");
        for (int w = 0; w < 2; w++) {
            flce_sbuf_printf(&b, "  set ylabel '%s'\n  plot ", w ? "KL(contributions || data shares)" : "accuracy");
            for (int a2 = 0; a2 < na; a2++) {
                char alg[32];
                snprintf(alg, sizeof alg, "%s", algos[a2]);
                alg[strcspn(alg, " ")] = '\0'; /* the colour is the algorithm's; another reading is dashed */
                flce_sbuf_printf(&b, "%s'heterogeneity_%02d.csv' skip 1 using 2:%d:%d:%d with yerrorlines lw 2 pt 7 lc rgb '%s'%s title '%s'",
                                 a2 ? ", " : "", a2, w ? 6 : 3, w ? 7 : 4, w ? 8 : 5, color_of(alg),
                                 strchr(algos[a2], ' ') ? " dt 2" : "", gp_safe(algos[a2]));
            }
            flce_sbuf_printf(&b, "\n");
        }
        flce_sbuf_printf(&b, "  unset multiplot\n");
        R->figs_ok &= !b.oom && gnuplot(out, "heterogeneity", b.s) == 0;
        flce_sbuf_free(&b);
        fprintf(md, "\nEach point: the mean over the runs (seeds) at that parameter; the bar from the smallest to the largest.\n");
        fprintf(ht, "<p>Each point: the mean over the runs (seeds) at that parameter; the bar from the smallest to the largest.</p>\n");
        fprintf(md, "\n![heterogeneity](heterogeneity.png) ([SVG](heterogeneity.svg))\n");
        fprintf(ht, "<img src='heterogeneity.svg' width='860' height='480' alt='heterogeneity sweep'>\n");
    }
}

/* Noise experiments. */
void report_noise(report *R) {
    run_t *runs = R->runs;
    int nr = R->nr;
    FILE *md = R->md, *ht = R->ht;
    /* noise experiments */
    int noisy = 0;
    for (int i = 0; i < nr; i++) noisy |= runs[i].label_noise > 0 || runs[i].feature_noise > 0;
    if (noisy) {
        static const char *heads[] = {"method", "partition", "label noise", "feature noise", "noisy clients", "accuracy", "KL"};
        fprintf(md, "\n## Noise experiments, run by run\n");
        fprintf(ht, "<h2>Noise experiments, run by run</h2>\n");
        rtable t;
        rt_begin(&t, md, ht, 7, heads);
        for (int i = 0; i < nr; i++) {
            run_t *r = &runs[i];
            if (!(r->label_noise > 0 || r->feature_noise > 0)) continue;
            char part[32];
            if (!strcmp(r->partition, "iid")) snprintf(part, sizeof part, "IID");
            else snprintf(part, sizeof part, "Dirichlet %g", r->dirichlet);
            rt_rowt(&t, r->label, 0, "%s\t%g\t%g\t%g\t%.4f\t%.5f", part, r->label_noise, r->feature_noise, r->noisy, r->fin_acc, r->kl_final);
        }
        rt_end(&t);
    }
}

/* Reproducibility: settings, seeds, program, backend, device and digests of every run; runs
 * of one configuration compared. */
void report_runs(report *R) {
    run_t *runs = R->runs;
    int nr = R->nr;
    FILE *md = R->md, *ht = R->ht;
    /* reproducibility: settings, seeds, program, backend, device, digests; repeated runs */
    fprintf(md, "\n## Runs, settings and digests\n\n");
    fprintf(ht, "<h2>Runs, settings and digests</h2>\n");
    if (nr > 12) { /* many runs (a study): one row each; the full settings in each folder's config.json (and, in HTML, below) */
        static const char *intro = "Every run's settings are its folder's config.json; program, backend and device of the first: ";
        static const char *heads[] = {"run", "folder", "seed", "final model", "contributions"};
        fprintf(md, "%sflce %s, %s, %s, denormals %s.\n", intro, MD(runs[0].version), MD(runs[0].backend), MD(runs[0].device),
                MD(runs[0].denormals));
        fprintf(ht, "<p>%sflce %s, %s, %s, denormals %s.</p>\n", intro, H(runs[0].version), H(runs[0].backend), H(runs[0].device),
                H(runs[0].denormals));
        rtable t;
        rt_begin(&t, md, ht, 5, heads);
        for (int i = 0; i < nr; i++) {
            char fm[17] = "", ct[17] = "", seed[24];
            const char *a = strstr(runs[i].digests, "final_model "), *b = strstr(runs[i].digests, "contributions ");
            if (a) sscanf(a, "final_model %16s", fm);
            if (b) sscanf(b, "contributions %16s", ct);
            snprintf(seed, sizeof seed, "%llu", runs[i].seed);
            const char *cells[5] = {runs[i].label, runs[i].dir, seed, fm, ct};
            rt_row(&t, cells);
        }
        rt_end(&t);
    }
    for (int i = 0; i < nr; i++) {
        run_t *r = &runs[i];
        if (nr <= 12) fprintf(md, "### %s\n\n%s: %s, %d clients, %d per round, %d rounds, seed %llu; flce %s, backend %s, device %s, denormals %s\n\n"
                    "Digests:\n\n%s\n%s%s\n\nConfiguration (`config.json`):\n\n%sjson\n%s%s\n",
                MD(r->label), MD(r->dir), MD(r->dataset), r->clients, r->per_round, r->rounds, r->seed, MD(r->version), MD(r->backend), MD(r->device),
                MD(r->denormals), md_fence(r->digests), r->digests, md_fence(r->digests), md_fence(r->config), r->config, md_fence(r->config));
        fprintf(ht, "<h3>%s</h3><p><code>%s</code>: %s, %d clients, %d per round, %d rounds, seed %llu; flce %s, backend %s, device %s, denormals %s</p>"
                    "<p>Digests:</p><pre>%s</pre><details><summary>Configuration (config.json)</summary><pre>%s</pre></details>\n",
                H(r->label), H(r->dir), H(r->dataset), r->clients, r->per_round, r->rounds, r->seed, H(r->version), H(r->backend), H(r->device),
                H(r->denormals), H(r->digests), H(r->config));
    }
    int groups = 0;
    for (int i = 0; i < nr; i++)
        for (int j = i + 1; j < nr; j++) {
            if (!flce_json_equal(runs[i].cfg, runs[j].cfg)) continue;
            int same = !strcmp(runs[i].digests, runs[j].digests);
            if (!groups++) fprintf(md, "\n## Repeated runs\n\n"), fprintf(ht, "<h2>Repeated runs</h2>\n");
            fprintf(md, "- %s and %s (one configuration): digests %s\n", MD(runs[i].dir), MD(runs[j].dir), same ? "identical, bit for bit" : "**differ**");
            fprintf(ht, "<p><code>%s</code> and <code>%s</code> (one configuration): digests %s</p>\n", H(runs[i].dir), H(runs[j].dir),
                    same ? "identical, bit for bit" : "<b>differ</b>");
        }
    if (!groups) {
        fprintf(md, "\nNo two runs share a configuration, so no repeat was compared.\n");
        fprintf(ht, "<p>No two runs share a configuration, so no repeat was compared.</p>\n");
    }
}


/* The data behind the per-run figures and the figures (runs.html); 1 when the curves' data could
 * not be written (the report stops there). */
int report_run_figures(report *R) {
    if (section_curves(R)) return 1;
    section_contributions(R);
    section_server_cost(R);
    class_figures(R);
    return 0;
}
