/* report_completion.c: the sensitivity of FLCE's final contributions to the completion, a
 * section of `flce report` (report.h; issue 21). Every FLCE run (no ablation) whose trace is
 * there is evaluated again, as `flce eval` would, with each setting below; runs that differ
 * only in the seed form one configuration. For each setting: the KL of the final contributions
 * to the data shares (mean and 95% interval over seeds) and the held-out error of the
 * completion (K-fold over the observed entries, the folds of the run's seed: the mean squared
 * error of predicting an observed entry from the others, averaged over the classes), so that a
 * reader sees whether the settings that predict the momentum better give a lower KL. Nothing is
 * chosen here by KL: the default was decided before the study (docs/decisions.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flce_eq.h"
#include "report.h"
#include "trace_io.h"

enum { V_AUTO, V_RANK1, V_RANK2, V_RANK4, V_RANK8, V_MU0001, V_MU01, V_MU1, V_GD, V_RULE, V_NONE, V_LITERAL, NV };

static const char *const VNAME[NV] = {
    "auto (the default: rank and mu by held-out error)", "rank 1, mu 0.01, ALS", "rank 2, mu 0.01, ALS", "rank 4, mu 0.01, ALS",
    "rank 8, mu 0.01, ALS", "rank 4, mu 0.001, ALS", "rank 4, mu 0.1, ALS", "rank 4, mu 1, ALS",
    "rank 4, mu 0.01, gradient descent", "the rank rule (the former default), mu 0.01, ALS", "no completion (-CMC)",
    "literal: all entries, unselected as 0, rank 4, gradient descent"};

/* The same as CSV fields (no commas). */
static const char *const VID[NV] = {"auto", "rank 1 mu 0.01 ALS", "rank 2 mu 0.01 ALS", "rank 4 mu 0.01 ALS", "rank 8 mu 0.01 ALS",
                                     "rank 4 mu 0.001 ALS", "rank 4 mu 0.1 ALS", "rank 4 mu 1 ALS", "rank 4 mu 0.01 gradient descent",
                                     "rank rule mu 0.01 ALS", "none", "literal rank 4 gradient descent"};

/* The completion settings of variant v (seed: the run's, so that auto's folds are the run's). */
static void variant(int v, uint64_t seed, flce_completion_cfg *cc, flce_ablation *ab) {
    static const int rank[NV] = {0, 1, 2, 4, 8, 4, 4, 4, 4, 0, 0, 4};
    static const double mu[NV] = {0, 1e-2, 1e-2, 1e-2, 1e-2, 1e-3, 1e-1, 1, 1e-2, 1e-2, 1e-2, 1e-2};
    flce_completion_cfg_default(cc);
    memset(ab, 0, sizeof *ab);
    cc->seed = seed;
    if (v == V_AUTO) return;
    cc->rank_auto = cc->mu_auto = 0;
    cc->rank = rank[v], cc->mu = mu[v];
    cc->gradient = v == V_GD || v == V_LITERAL;
    cc->literal = v == V_LITERAL;
    ab->no_completion = v == V_NONE;
}

/* KL and held-out error of each variant on one run's trace; 0 when the trace is missing or
 * cannot be evaluated (e says why; nothing is recorded for the run), -1 when the run kept no trace. */
static int evaluate_run(const run_t *r, double kl[NV], double err[NV], flce_err *ep) {
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/trace", r->dir);
    flce_trace_files tf;
    int wb = 0;
    char pp[1200];
    snprintf(pp, sizeof pp, "%s/prototypes.npy", dir);
    FILE *probe = fopen(pp, "rb");
    if (!probe) return -1; /* no trace kept (a packed study keeps the normal experiment's only): not an error */
    fclose(probe);
    flce_err e0, *e = ep ? ep : &e0;
    if (flce_trace_load(dir, NULL, NULL, &tf, &wb, e)) return 0;
    const flce_trace tr = tf.tr;
    int T = tr.T, n = tr.n, C = tr.C, ok = 1;
    double *shares = malloc(sizeof *shares * (size_t)n), *Xc = malloc(sizeof *Xc * (size_t)T * n);
    if (!shares || !Xc) ok = 0;
    else flce_data_shares(tf.sizes, NULL, C, n, shares);
    for (int v = 0; v < NV && ok; v++) {
        flce_completion_cfg cc;
        flce_ablation ab;
        flce_eval_result res;
        variant(v, r->seed, &cc, &ab);
        if (flce_eval_trace(&tr, &ab, &cc, &res, e)) {
            ok = 0;
            break;
        }
        kl[v] = flce_kl(res.CE, shares, n, NULL);
        err[v] = NAN;
        if (v != V_NONE && v != V_LITERAL) { /* the masked completions: held-out error of the setting each class used */
            double tot = 0;
            for (int c = 0; c < C && ok; c++) {
                for (int i = 0; i < T * n; i++) {
                    double q = res.Q[(size_t)i * C + c];
                    Xc[i] = isnan(q) ? 0 : q;
                }
                double ec;
                if (flce_cv_error(Xc, tr.selected, T, n, &cc, (uint32_t)c, res.rank[c], res.mu[c], &ec, e)) ok = 0;
                else tot += ec / C;
            }
            err[v] = tot;
        }
        flce_eval_result_free(&res);
    }
    free(shares), free(Xc);
    flce_trace_files_free(&tf);
    return ok ? 1 : 0;
}

/* One configuration's table: the variants' KL over its seeds and held-out errors. */
static void config_table(const run_t *r0, int nrun, double (*kl)[NV], double (*err)[NV], FILE *md, FILE *ht) {
    char conf[160], c1[64], c2[64];
    report_configuration(r0, conf, sizeof conf);
    static const char *heads[] = {"completion", "KL (mean ± 95% CI)", "held-out MSE (mean ± 95% CI)"};
    fprintf(md, "\n### %s (%d seed%s)\n", MD(conf), nrun, nrun == 1 ? "" : "s");
    fprintf(ht, "<details><summary>%s (%d seed%s)</summary>", H(conf), nrun, nrun == 1 ? "" : "s");
    rtable t;
    rt_begin(&t, md, ht, 3, heads);
    double mk[NV], me[NV], h;
    int masked = 0;
    double xs[NV], ys[NV];
    for (int v = 0; v < NV; v++) {
        double a[64], b[64];
        for (int i = 0; i < nrun; i++) a[i] = kl[i][v], b[i] = err[i][v];
        report_fmt_ci(c1, sizeof c1, a, nrun, 5);
        if (isnan(b[0])) snprintf(c2, sizeof c2, "n/a");
        else if (report_mean_ci(b, nrun, &me[v], &h) > 1) snprintf(c2, sizeof c2, "%.3g ± %.2g", me[v], h);
        else snprintf(c2, sizeof c2, "%.3g (n=1)", me[v]);
        report_mean_ci(a, nrun, &mk[v], &h);
        if (!isnan(b[0])) xs[masked] = me[v], ys[masked] = mk[v], masked++;
        rt_rowf(&t, "%s\t%s\t%s", VNAME[v], c1, c2);
    }
    rt_end(&t);
    fprintf(ht, "</details>\n");
    double rho = report_spearman(xs, ys, masked);
    fprintf(md, "\nOver the %d masked completions: Spearman's rank correlation of held-out error and KL, ρ = %.2f "
                "(positive: the settings that predict the momentum better also give a lower KL).\n", masked, rho);
    fprintf(ht, "<p>Over the %d masked completions: Spearman's rank correlation of held-out error and KL, ρ = %.2f "
                "(positive: the settings that predict the momentum better also give a lower KL).</p>\n", masked, rho);
}

int report_completion(report *R) {
    run_t *runs = R->runs;
    int nr = R->nr;
    const char *out = R->out;
    FILE *md = R->md, *ht = R->ht;
    static const char *seed_f[] = {"seed"};
    int idx[MAXRUNS], ne = 0;
    double (*kl)[NV] = calloc(MAXRUNS, sizeof *kl), (*err)[NV] = calloc(MAXRUNS, sizeof *err);
    char *key[MAXRUNS] = {0};
    if (!kl || !err) {
        free(kl), free(err);
        return 0;
    }
    int nflce = 0, nokeep = 0; /* FLCE runs, and those whose trace kept no prototypes */
    for (int i = 0; i < nr; i++) {
        const run_t *r = &runs[i];
        if (strcmp(r->algo, "flce") || r->ablate[0]) continue;
        int dup = 0; /* the same configuration and seed twice (a repeat): once */
        char *k = flce_run_key(r, NULL, 0);
        for (int j = 0; j < ne && k; j++) dup |= !strcmp(key[j], k);
        flce_err e = {{0}};
        int got = k && !dup ? evaluate_run(r, kl[ne], err[ne], &e) : -1;
        if (got == 0) fprintf(stderr, "flce report: %s/trace: the completion sensitivity left it out: %s\n", r->dir, e.msg);
        if (k && !dup) nflce++, nokeep += got == -1;
        if (got != 1) {
            free(k);
            continue;
        }
        key[ne] = k, idx[ne++] = i;
    }
    if (ne) {
        fprintf(md, "\n## FLCE's completion: sensitivity\n\nEvery FLCE run's trace evaluated again (as `flce eval` does) with the "
                    "completion's settings varied; the model and the prototypes are the run's. KL: final contributions against the "
                    "data shares. Held-out MSE: 5-fold over the observed entries of each class's momentum matrix (the folds of "
                    "the run's seed), the completion's error in predicting an entry left out, averaged over the classes; "
                    "n/a where the setting does not complete from observed entries. The default (auto) was fixed before "
                    "the study by a rule written in advance (docs/decisions.md); nothing here is chosen by KL. Data: "
                    "`completion_sensitivity.csv`.\n");
        fprintf(ht, "<h2>FLCE's completion: sensitivity</h2><p>Every FLCE run's trace evaluated again (as <code>flce eval</code> "
                    "does) with the completion's settings varied. KL: final contributions against the data shares. Held-out MSE: "
                    "5-fold over the observed entries, averaged over the classes; n/a where the setting does not complete from "
                    "observed entries. The default (auto) was fixed before the study (docs/decisions.md).</p>\n");
        if (nokeep) { /* say which runs are here: the section covers only the traces at hand */
            fprintf(md, "\nHere: the %d of the %d FLCE runs whose trace keeps its prototypes; the other %d were read from "
                        "an archive, which leaves them out (scripts/study_pack.sh).\n", ne, nflce, nokeep);
            fprintf(ht, "<p>Here: the %d of the %d FLCE runs whose trace keeps its prototypes; the other %d were read from an "
                        "archive, which leaves them out (scripts/study_pack.sh).</p>\n", ne, nflce, nokeep);
        }
        char p[1400];
        snprintf(p, sizeof p, "%s/completion_sensitivity.csv", out);
        FILE *cs = report_fopen(p);
        if (cs) fprintf(cs, "run,seed,configuration,completion,kl,heldout_mse\n");
        int *done = calloc((size_t)ne, sizeof *done);
        for (int a = 0; a < ne && done; a++) {
            if (done[a]) continue;
            const char *drop[1] = {seed_f[0]};
            char *ka = flce_run_key(&runs[idx[a]], drop, 1);
            double (*gk)[NV] = calloc((size_t)ne, sizeof *gk), (*ge)[NV] = calloc((size_t)ne, sizeof *ge);
            int ng = 0;
            for (int b = a; b < ne && ka && gk && ge; b++) {
                char *kb = flce_run_key(&runs[idx[b]], drop, 1);
                if (kb && !strcmp(ka, kb) && ng < 64) {
                    done[b] = 1;
                    memcpy(gk[ng], kl[b], sizeof kl[b]), memcpy(ge[ng], err[b], sizeof err[b]), ng++;
                    char conf[160];
                    report_configuration(&runs[idx[b]], conf, sizeof conf);
                    for (int v = 0; cs && v < NV; v++)
                        fprintf(cs, "%s,%llu,%s,%s,%.17g,%.17g\n", csv_q(runs[idx[b]].dir), runs[idx[b]].seed, csv_q(conf),
                                VID[v], kl[b][v], err[b][v]);
                }
                free(kb);
            }
            if (ng) config_table(&runs[idx[a]], ng, gk, ge, md, ht);
            free(ka), free(gk), free(ge);
        }
        free(done);
        if (cs) report_fclose(cs);
    }
    for (int i = 0; i < ne; i++) free(key[i]);
    free(kl), free(err);
    return 1;
}
