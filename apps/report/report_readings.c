/* report_readings.c: the claims by reading (issue 30; the plan in docs/decisions.md, "The
 * readings experiment"). The paper leaves three choices open, and each is a setting:
 *   - FLCE's prototype samples: `correct` (the text) or `all` (the equation). It changes
 *     training (FLCE aggregates with its own weights), so each is its own run; each run also
 *     records the other reading's prototypes, so that its evaluation under the other reading
 *     tells the reading's effect on the evaluation apart from its effect on training;
 *   - a selected client's missing prototype in the completion: an observed `zero` or
 *     `unobserved` (evaluation only);
 *   - the baselines' contribution rule: `cos_global` (against the round's weighted global
 *     update: the harness's default), `cos_mean` (against the unweighted mean update),
 *     `cos_model` (local model against the new global model) or `weight` (the method's own
 *     aggregation weight); every run records all four (contributions_rules.csv).
 * For each configuration and each reading (FLCE's training and evaluation reading the same, as
 * a user of one reading would run it: 2 x 2 x 4 = 16), the KL claim is judged by the study's
 * rule: FLCE's KL minus each baseline's, paired over seeds on the same partition, a Student-t
 * 95% interval; the claim holds when every comparison lies below 0, does not hold when one lies
 * above, else inconclusive. FLCE's evaluations under each reading come from
 * RUN/readings/<samples>-<missing>-r<T>/contributions.csv (scripts/readings_eval.sh, flce eval),
 * the run's own contributions.csv for its own reading; nothing is recomputed from a summary. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "flce_eq.h"
#include "method.h"
#include "report.h"

enum { MAXC = 64, MAXS = REPORT_MAX_SEEDS, MAXB = 16, NPS = 2, NMISS = 2, NRULE = 4 };
static const char *const PS[NPS] = {"correct", "all"};
static const char *const MISS[NMISS] = {"zero", "unobserved"};
static const char *const RULE[NRULE] = {"cos_global", "cos_mean", "cos_model", "weight"};

typedef struct {
    char *key;         /* the configuration: the settings without seed, method and readings */
    const run_t *any;  /* one of its runs, for its name */
    int ns;            /* partitions (seeds) seen */
    char part[MAXS][17];
    unsigned long long seed[MAXS];
    double flce[NPS][NPS][NMISS][MAXS]; /* FLCE's KL: [training reading][evaluation reading][missing][seed], NaN: absent */
    double flce_acc[NPS][MAXS];
    int nb;
    char base[MAXB][32];
    double base_kl[MAXB][NRULE][MAXS], base_acc[MAXB][MAXS];
} rconf;

/* KL(c || data shares of run r) */
double report_kl_to_shares(const run_t *r, const double *c) {
    int n = r->clients, C = flce_dataset_classes(r->dataset) ? flce_dataset_classes(r->dataset) : 10;
    double *q = malloc(sizeof(double) * (size_t)n);
    if (!q || n < 1 || r->samples[0] <= 0) {
        free(q);
        return NAN;
    }
    flce_data_shares(r->samples, NULL, C, n, q);
    double k = flce_kl(c, q, n, NULL);
    free(q);
    return k >= 0 ? k : NAN; /* -1: an entry negative or not finite */
}

/* column `col` (1-based, after the client number) of a per-client CSV of run r (n rows) into
 * c [n]; 0 when the file is missing. A file that is there but does not hold every client once,
 * each row a client number and numbers (a row cut short, a client missing or repeated, a value
 * that is not a finite number), is damaged: report_damaged, 0 (it was once taken as absent, and
 * the reading left out of the tables without a word). */
int report_client_csv(report *R, const run_t *r, const char *path, int col, double *c) {
    FILE *f = flce_fopen_input(path);
    if (!f && flce_input_why[0]) {
        report_damaged(R, "%s: %s", path, flce_input_why);
        return 0;
    }
    if (!f) return 0;
    char line[1024];
    int got = 0, row = 1;
    const char *bad = NULL;
    for (int k = 0; k < r->clients; k++) c[k] = NAN;
    if (!fgets(line, sizeof line, f)) line[0] = '\0';
    while (!bad && fgets(line, sizeof line, f)) {
        row++;
        char *p = line, *end;
        long k = strtol(p, &end, 10);
        if (end == p || *end != ',') bad = "no client number";
        else if (k < 0 || k >= r->clients) bad = "a client out of range";
        else if (!isnan(c[k])) bad = "a repeated client";
        if (bad) break;
        p = end;
        double v = NAN;
        for (int j = 0; j < col && p && *p == ','; j++) {
            v = strtod(p + 1, &end);
            p = end == p + 1 ? NULL : end;
        }
        if (!p || !isfinite(v)) bad = "not a finite number in the column read";
        else c[k] = v, got++;
    }
    fclose(f);
    if (bad) report_damaged(R, "%s: row %d: %s", path, row, bad);
    else if (got != r->clients) report_damaged(R, "%s: %d of %d clients: damaged or truncated", path, got, r->clients);
    return !bad && got == r->clients;
}

static int seed_slot(rconf *c, const run_t *r) {
    for (int s = 0; s < c->ns; s++)
        if (!strcmp(c->part[s], r->partdig)) return s;
    if (c->ns == MAXS) return -1;
    snprintf(c->part[c->ns], sizeof c->part[0], "%s", r->partdig);
    c->seed[c->ns] = r->seed;
    return c->ns++;
}

static int ps_of(const run_t *r) {
    const char *p = r->cfg ? flce_json_str(r->cfg, "prototypes") : NULL;
    return p && !strcmp(p, "all") ? 1 : 0;
}

static void rconf_init(rconf *c) {
    memset(c, 0, sizeof *c);
    for (int a = 0; a < NPS; a++) {
        for (int s = 0; s < MAXS; s++) c->flce_acc[a][s] = NAN;
        for (int b = 0; b < NPS; b++)
            for (int m = 0; m < NMISS; m++)
                for (int s = 0; s < MAXS; s++) c->flce[a][b][m][s] = NAN;
    }
    for (int b = 0; b < MAXB; b++)
        for (int s = 0; s < MAXS; s++) {
            c->base_acc[b][s] = NAN;
            for (int q = 0; q < NRULE; q++) c->base_kl[b][q][s] = NAN;
        }
}

/* The runs that carry readings, by configuration; the number of configurations. */
static int collect(report *R, rconf *cf) {
    static const char *drop[] = {"seed", "algo", "ablate", "prototypes", "missing"};
    int nc = 0;
    for (int i = 0; i < R->nr; i++) {
        const run_t *r = &R->runs[i];
        int flce = !strcmp(r->algo, "flce");
        const flce_method *M = flce_method_find(r->algo);
        if (r->ablate[0] || is_shapley(r->algo) || r->clients < 1) continue;
        if (!flce && !(M && (M->flags & FLCE_M_COSINE_RULES))) continue; /* its contributions follow a rule of its own (CGSV, q-FedAvg) */
        char p[1400];
        double *c = malloc(sizeof(double) * (size_t)r->clients);
        if (!c) return -1;
        char *key = flce_run_key(r, drop, 5);
        if (!key) {
            free(c);
            return -1;
        }
        int j = 0;
        while (j < nc && strcmp(cf[j].key, key)) j++;
        int have = 0; /* anything of a reading in this run */
        if (flce) {
            for (int e = 0; e < NPS && !have; e++)
                for (int m = 0; m < NMISS && !have; m++) {
                    snprintf(p, sizeof p, "%s/readings/%s-%s-r%d/contributions.csv", r->dir, PS[e], MISS[m], r->T);
                    have = report_client_csv(R, r, p, 1, c);
                }
        } else {
            snprintf(p, sizeof p, "%s/contributions_rules.csv", r->dir);
            have = report_client_csv(R, r, p, 1, c);
        }
        if (have && j == nc && nc == MAXC) report_over(R, "more than %d configurations in the readings' tables; give fewer runs", MAXC);
        if (!have || (j == nc && nc == MAXC)) {
            free(key), free(c);
            continue;
        }
        if (j == nc) rconf_init(&cf[nc]), cf[nc].key = key, cf[nc].any = r, nc++;
        else free(key);
        rconf *x = &cf[j];
        int s = seed_slot(x, r);
        if (s < 0) {
            report_over(R, "more than %d seeds of one configuration in the readings' tables (%s); give fewer runs", MAXS, r->dir);
            free(c);
            continue;
        }
        if (flce) {
            int a = ps_of(r);
            x->flce_acc[a][s] = r->fin_acc;
            for (int e = 0; e < NPS; e++)
                for (int m = 0; m < NMISS; m++) {
                    snprintf(p, sizeof p, "%s/readings/%s-%s-r%d/contributions.csv", r->dir, PS[e], MISS[m], r->T);
                    if (report_client_csv(R, r, p, 1, c)) x->flce[a][e][m][s] = report_kl_to_shares(r, c);
                    else if (e == a && m == 0) x->flce[a][e][m][s] = r->kl_final; /* its own reading: contributions.csv */
                }
        } else {
            int b = 0;
            while (b < x->nb && strcmp(x->base[b], r->algo)) b++;
            if (b == MAXB) {
                report_over(R, "more than %d baselines of one configuration in the readings' tables (%s); give fewer runs", MAXB, r->algo);
                free(c);
                continue;
            }
            if (b == x->nb) snprintf(x->base[x->nb++], sizeof x->base[0], "%s", r->algo);
            x->base_acc[b][s] = r->fin_acc;
            snprintf(p, sizeof p, "%s/contributions_rules.csv", r->dir);
            for (int q = 0; q < NRULE; q++)
                if (report_client_csv(R, r, p, q + 1, c)) x->base_kl[b][q][s] = report_kl_to_shares(r, c);
        }
        free(c);
    }
    return nc;
}

/* One claim under one reading: "FLCE's metric below (sign -1) or above (sign +1) every
 * baseline's", paired over seeds; the comparison furthest from the claim into worst. Returns 1
 * holds, -1 does not hold, 0 inconclusive, 2 nothing to compare. */
static int judge(const rconf *c, const double *fl, double (*base)[MAXS], int sign, char *worst, size_t cap, FILE *csv,
                 const char *claim, const char *conf, const char *reading, report_decide *dec) {
    int any = 0, fail = 0, open = 0;
    double wd = INFINITY;
    worst[0] = '\0';
    for (int b = 0; b < c->nb; b++) {
        double d[MAXS];
        int n = 0;
        for (int s = 0; s < c->ns; s++)
            if (!isnan(fl[s]) && !isnan(base[b][s])) d[n++] = fl[s] - base[b][s];
        if (!n) continue;
        double mean, half;
        report_mean_ci(d, n, &mean, &half);
        int v = n < 2 || isnan(half) ? 0 : sign * mean - half > 0 ? 1 : sign * mean + half < 0 ? -1 : 0;
        any = 1, fail |= v < 0, open |= v == 0;
        if (dec) {
            char nm[64];
            snprintf(nm, sizeof nm, "FLCE - %s", c->base[b]);
            report_decide_add(dec, mean, half, n, v, nm);
        }
        if (sign * mean < wd) {
            wd = sign * mean;
            if (n > 1) snprintf(worst, cap, "FLCE - %s %+.4f ± %.4f (n=%d)", c->base[b], mean, half, n);
            else snprintf(worst, cap, "FLCE - %s %+.4f (n=1)", c->base[b], mean);
        }
        if (csv) {
            fprintf(csv, "%s,%s,%s,%s,%.10g,", csv_q(claim), csv_q(conf), csv_q(reading), csv_q(c->base[b]), mean);
            if (n > 1 && !isnan(half)) fprintf(csv, "%.10g", half); /* empty: one seed */
            fprintf(csv, ",%d,%s", n, v > 0 ? "holds" : v < 0 ? "fails" : "inconclusive");
            report_power_t pw = report_power(mean, n > 1 ? half : NAN, n);
            report_power_csv(csv, &pw);
            fputc('\n', csv);
        }
    }
    return !any ? 2 : fail ? -1 : open ? 0 : 1;
}

/* 1 when some reading of configuration c can be judged: FLCE and a baseline, of one seed at least */
static int judged(const rconf *c) {
    for (int a = 0; a < NPS; a++)
        for (int m = 0; m < NMISS; m++)
            for (int q = 0; q < NRULE; q++) {
                double bk[MAXB][MAXS];
                char w[200];
                for (int b = 0; b < c->nb; b++) memcpy(bk[b], c->base_kl[b][q], sizeof bk[b]);
                if (judge(c, c->flce[a][a][m], bk, -1, w, sizeof w, NULL, NULL, NULL, NULL, NULL) != 2) return 1;
            }
    return 0;
}

int report_readings(report *R) {
    rconf *cf = calloc(MAXC, sizeof *cf);
    if (!cf) return 0;
    int nc = collect(R, cf), judged_any = 0;
    for (int k = 0; k < nc; k++) judged_any |= judged(&cf[k]);
    if (nc <= 0 || !judged_any) { /* nothing to judge (no FLCE run beside a baseline): no section of empty tables */
        for (int k = 0; k < nc; k++) free(cf[k].key);
        free(cf);
        return nc >= 0;
    }
    FILE *md = R->md, *ht = R->ht, *csv = NULL;
    char p[1200];
    snprintf(p, sizeof p, "%s/readings_claims.csv", R->out);
    if ((csv = report_fopen(p))) fprintf(csv, "claim,configuration,reading,baseline,mean_difference,half_width_95,n,verdict,sd,"
                                               "detectable_difference,seeds_to_decide\n");
    fprintf(md, "\n## Claims by reading\n\n");
    fprintf(ht, "<h2>Claims by reading</h2>\n");
    const char *intro =
        "The paper leaves three choices open, and each is a setting (docs/decisions.md, the readings experiment): FLCE's "
        "prototype samples (correct: the text; all: the equation), a selected client's missing prototype in the completion "
        "(an observed zero, or unobserved), and the baselines' contribution rule (cos_global: against the round's weighted "
        "global update, the harness's default; cos_mean: against the unweighted mean update; cos_model: local model against "
        "the new global model; weight: the method's own aggregation weight). Each row judges the KL claim under one reading "
        "(FLCE trained and evaluated with the same prototype samples) by the study's rule: FLCE's KL minus each baseline's, "
        "paired over seeds, a 95% interval; holds when every comparison lies below 0.";
    fprintf(md, "%s\n\n", intro);
    fprintf(ht, "<p>%s</p>\n", intro);
    /* the summary: per configuration, the 16 readings counted by verdict */
    static const char *sh[] = {"configuration", "seeds", "holds under", "does not hold under", "inconclusive under"};
    rtable st;
    rt_begin_class(&st, md, ht, "small", 5, sh);
    const char *claim = "FLCE's KL the lowest except FedSV";
    for (int k = 0; k < nc; k++) {
        rconf *c = &cf[k];
        char conf[200], lists[3][2048] = {"", "", ""};
        size_t ln[3] = {0, 0, 0};
        int cnt[3] = {0, 0, 0};
        report_configuration_base(c->any, conf, sizeof conf);
        for (int a = 0; a < NPS; a++)
            for (int m = 0; m < NMISS; m++)
                for (int q = 0; q < NRULE; q++) {
                    char rd[96], w[200];
                    snprintf(rd, sizeof rd, "%s/%s/%s", PS[a], MISS[m], RULE[q]);
                    double bk[MAXB][MAXS];
                    for (int b = 0; b < c->nb; b++) memcpy(bk[b], c->base_kl[b][q], sizeof bk[b]);
                    int v = judge(c, c->flce[a][a][m], bk, -1, w, sizeof w, csv, claim, conf, rd, NULL);
                    if (v == 2) continue;
                    int slot = v > 0 ? 0 : v < 0 ? 1 : 2;
                    cnt[slot]++;
                    flce_catf(lists[slot], sizeof lists[slot], &ln[slot], "%s%s", ln[slot] ? "; " : "", rd);
                }
        if (!cnt[0] && !cnt[1] && !cnt[2]) continue; /* no FLCE run with readings here */
        char c0[2100], c1[2100], c2[2100];
        snprintf(c0, sizeof c0, "%d: %s", cnt[0], lists[0]), snprintf(c1, sizeof c1, "%d: %s", cnt[1], lists[1]);
        snprintf(c2, sizeof c2, "%d: %s", cnt[2], lists[2]);
        rt_row_begin(&st, NULL);
        rt_cell(&st, conf, NULL, NULL, 0);
        char ns[16];
        snprintf(ns, sizeof ns, "%d", c->ns);
        rt_cell(&st, ns, NULL, NULL, 0);
        rt_cell(&st, c0, NULL, cnt[0] ? "holds" : NULL, 0), rt_cell(&st, c1, NULL, cnt[1] ? "fails" : NULL, 0);
        rt_cell(&st, c2, NULL, cnt[2] ? "open" : NULL, 0);
        rt_row_end(&st);
    }
    rt_end(&st);
    const char *key = "A reading is written samples/missing/rule: FLCE's prototype samples (training and evaluation), "
                      "its missing prototypes, the baselines' contribution rule. The claim tested: \"FLCE's KL the lowest "
                      "except FedSV\" (FedSV and the other Shapley methods are not among these runs).";
    fprintf(md, "\n%s\n", key);
    fprintf(ht, "<p>%s</p>\n", key);
    /* per configuration: every reading's numbers, and FLCE's KL by training and evaluation reading */
    for (int k = 0; k < nc; k++) {
        rconf *c = &cf[k];
        if (!judged(c)) continue;
        char conf[200];
        report_configuration_base(c->any, conf, sizeof conf);
        fprintf(md, "\n### %s: each reading\n\n", MD(conf));
        fprintf(ht, "<details><summary>%s: each reading (%d seed%s)</summary>\n", H(conf), c->ns, c->ns == 1 ? "" : "s");
        static const char *h[] = {"reading", "FLCE's KL", "the comparison furthest from the claim", "verdict"};
        rtable t;
        rt_begin_class(&t, md, ht, "small", 4, h);
        for (int a = 0; a < NPS; a++)
            for (int m = 0; m < NMISS; m++)
                for (int q = 0; q < NRULE; q++) {
                    char rd[96], w[200], kl[64];
                    snprintf(rd, sizeof rd, "%s/%s/%s", PS[a], MISS[m], RULE[q]);
                    double bk[MAXB][MAXS];
                    for (int b = 0; b < c->nb; b++) memcpy(bk[b], c->base_kl[b][q], sizeof bk[b]);
                    report_decide dec = {0};
                    int v = judge(c, c->flce[a][a][m], bk, -1, w, sizeof w, NULL, NULL, NULL, NULL, &dec);
                    char vw[128], dw[96];
                    report_decide_words(&dec, 4, dw, sizeof dw);
                    snprintf(vw, sizeof vw, "%s%s%s", v > 0 ? "holds" : v < 0 ? "does not hold" : "inconclusive", v == 0 && dw[0] ? ": " : "",
                             v == 0 ? dw : "");
                    if (v == 2) continue;
                    report_fmt_ci(kl, sizeof kl, c->flce[a][a][m], c->ns, 4);
                    rt_row_begin(&t, NULL);
                    rt_cell(&t, rd, NULL, NULL, 0), rt_cell(&t, kl, NULL, NULL, 0), rt_cell(&t, w, NULL, NULL, 0);
                    rt_cell(&t, vw, NULL, v > 0 ? "holds" : v < 0 ? "fails" : "open", 0);
                    rt_row_end(&t);
                }
        rt_end(&t);
        /* the prototype reading's effect on evaluation against its effect on training */
        static const char *h2[] = {"FLCE trained with", "evaluated: correct, zero", "evaluated: all, zero", "evaluated: correct, unobserved",
                                   "evaluated: all, unobserved", "accuracy"};
        rt_begin_class(&t, md, ht, "small", 6, h2);
        for (int a = 0; a < NPS; a++) {
            int any = 0;
            for (int s = 0; s < c->ns; s++) any |= !isnan(c->flce_acc[a][s]);
            if (!any) continue;
            char cell[4][64], acc[64];
            for (int m = 0; m < NMISS; m++)
                for (int e = 0; e < NPS; e++) report_fmt_ci(cell[m * 2 + e], sizeof cell[0], c->flce[a][e][m], c->ns, 4);
            report_fmt_ci(acc, sizeof acc, c->flce_acc[a], c->ns, 4);
            rt_rowf(&t, "%s samples\t%s\t%s\t%s\t%s\t%s", PS[a], cell[0], cell[1], cell[2], cell[3], acc);
        }
        rt_end(&t);
        char note[300];
        snprintf(note, sizeof note, "FLCE's KL (mean ± 95%% interval over seeds) by the prototype samples it trained with and "
                                    "those of its evaluation: a row is one training trajectory, evaluated four ways.");
        fprintf(md, "\n%s\n", note);
        fprintf(ht, "<p>%s</p></details>\n", note);
    }
    if (csv) {
        report_fclose(csv);
        fprintf(md, "\nEvery comparison: [readings_claims.csv](readings_claims.csv).\n");
        fprintf(ht, "<p>Every comparison: <a href=\"readings_claims.csv\">readings_claims.csv</a>.</p>\n");
    }
    for (int k = 0; k < nc; k++) free(cf[k].key);
    free(cf);
    return 1;
}

/* ---- the horizon (issue 30 item 5) ---------------------------------------------------------
 * Where a configuration's runs are longer than the first round it is judged at, the KL claim at
 * rounds 30, 100 and 200 (FLCE_REPORT_HORIZON: other rounds, comma-separated): FLCE's
 * contributions as flce eval gives them from the trace's first R rounds (RUN/readings/<its
 * samples>-zero-r<R>, scripts/readings_eval.sh; what FLCE would have reported had training stopped
 * there), each baseline's running contributions at round R (its metrics.csv KL of round R). */
enum { MAXR = 8 };

typedef struct {
    char *key;
    const run_t *any;
    int ns, nr, R[MAXR], minT;
    char part[MAXS][17];
    unsigned long long seed[MAXS];
    double flce[NPS][MAXR][MAXS];
    int nb;
    char base[MAXB][32];
    double base_kl[MAXB][MAXR][MAXS];
    const double *curve[NPS + MAXB][MAXS]; /* each line's per-round KL (metrics.csv), per seed */
} hconf;

/* The rounds judged: FLCE_REPORT_HORIZON's (whole numbers from 1 to 1,000,000 separated by
 * commas or spaces, at most MAXR), else 30, 100 and 200. -1: the variable is malformed. */
static int horizon_rounds(int *R) {
    const char *env = getenv("FLCE_REPORT_HORIZON");
    int n = 0;
    if (!env || !*env) {
        R[0] = 30, R[1] = 100, R[2] = 200;
        return 3;
    }
    for (const char *p = env;;) {
        while (*p == ',' || *p == ' ') p++;
        if (!*p) break;
        char *end;
        errno = 0;
        long v = *p >= '0' && *p <= '9' ? strtol(p, &end, 10) : 0;
        if (v < 1 || v > 1000000 || errno || n == MAXR || (*end && *end != ',' && *end != ' ')) return -1;
        R[n++] = (int)v;
        p = end;
    }
    return n ? n : -1;
}

/* The runs grouped into the horizon's configurations (cf, *nc of them): per seed, FLCE's KL at each
 * judged round (from its readings) and each baseline's, and every line's per-round KL. */
static void horizon_collect(report *R, const int *rounds, int nrounds, hconf *cf, int *nc) {
    static const char *drop[] = {"seed", "algo", "ablate", "prototypes", "missing"};
    double *c = NULL;
    for (int i = 0; i < R->nr; i++) {
        const run_t *r = &R->runs[i];
        if (r->ablate[0] || is_shapley(r->algo) || r->clients < 1 || nrounds < 1 || r->T <= rounds[0]) continue;
        char *key = flce_run_key(r, drop, 5);
        if (!key) break;
        int j = 0;
        while (j < *nc && strcmp(cf[j].key, key)) j++;
        if (j == *nc && *nc == MAXC) {
            report_over(R, "more than %d configurations in the horizon's tables; give fewer runs", MAXC);
            free(key);
            continue;
        }
        if (j == *nc) {
            hconf *h = &cf[(*nc)++];
            h->key = key, h->any = r, h->minT = r->T;
            for (int a = 0; a < NPS; a++)
                for (int q = 0; q < MAXR; q++)
                    for (int s = 0; s < MAXS; s++) h->flce[a][q][s] = NAN;
            for (int b = 0; b < MAXB; b++)
                for (int q = 0; q < MAXR; q++)
                    for (int s = 0; s < MAXS; s++) h->base_kl[b][q][s] = NAN;
        } else free(key);
        hconf *h = &cf[j];
        if (r->T < h->minT) h->minT = r->T;
        int s = 0;
        while (s < h->ns && strcmp(h->part[s], r->partdig)) s++;
        if (s == h->ns) {
            if (s == MAXS) {
                report_over(R, "more than %d seeds of one configuration in the horizon's tables (%s); give fewer runs", MAXS, r->dir);
                continue;
            }
            snprintf(h->part[s], sizeof h->part[0], "%s", r->partdig), h->seed[s] = r->seed, h->ns++;
        }
        if (!(c = realloc(c, sizeof(double) * (size_t)r->clients))) break;
        int line = ps_of(r); /* FLCE's prototype reading, or NPS + the baseline's index */
        if (strcmp(r->algo, "flce")) {
            int b = 0;
            while (b < h->nb && strcmp(h->base[b], r->algo)) b++;
            if (b == MAXB) {
                report_over(R, "more than %d baselines of one configuration in the horizon's tables (%s); give fewer runs", MAXB, r->algo);
                continue;
            }
            if (b == h->nb) snprintf(h->base[h->nb++], sizeof h->base[0], "%s", r->algo);
            line = NPS + b;
        }
        h->curve[line][s] = r->kl;
        for (int q = 0; q < nrounds; q++) {
            if (rounds[q] > r->T) continue;
            if (!strcmp(r->algo, "flce")) {
                char p[1400];
                int a = ps_of(r);
                snprintf(p, sizeof p, "%s/readings/%s-zero-r%d/contributions.csv", r->dir, PS[a], rounds[q]);
                if (report_client_csv(R, r, p, 1, c)) h->flce[a][q][s] = report_kl_to_shares(r, c);
                else if (rounds[q] == r->T) h->flce[a][q][s] = r->kl_final;
            } else h->base_kl[line - NPS][q][s] = r->kl[rounds[q] - 1]; /* the running contributions' KL at round R */
        }
    }
    free(c);
}

/* The mean, smallest and largest of the seeds' values v[0..ns) that are numbers, as three CSV
 * fields (empty where none is) */
static void csv_range(FILE *f, const double *v, int ns) {
    double sm = 0, lo = INFINITY, hi = -INFINITY;
    int m = 0;
    for (int s = 0; s < ns; s++)
        if (!isnan(v[s])) sm += v[s], lo = fmin(lo, v[s]), hi = fmax(hi, v[s]), m++;
    if (m) fprintf(f, ",%.6g,%.6g,%.6g", sm / m, lo, hi);
    else fprintf(f, ",,,");
}

/* One configuration's table: a row per judged round and FLCE reading, with the verdict; and
 * NAME.csv, the figure's points (mean, smallest, largest over seeds). */
static void horizon_table(report *R, const hconf *h, const int *rounds, int nrounds, const char *name) {
    const char *heads[4 + MAXB];
    int nh = 0;
    heads[nh++] = "round", heads[nh++] = "FLCE samples", heads[nh++] = "FLCE's KL";
    for (int b = 0; b < h->nb; b++) heads[nh++] = h->base[b];
    heads[nh++] = "verdict (the comparison furthest from the claim)";
    rtable t;
    rt_begin_class(&t, R->md, R->ht, "small", nh, heads);
    char p[1300];
    snprintf(p, sizeof p, "%s/%s.csv", R->out, name);
    FILE *f = report_fopen(p);
    if (f) {
        fprintf(f, "round");
        for (int a = 0; a < NPS; a++) fprintf(f, ",flce_%s,flce_%s_min,flce_%s_max", PS[a], PS[a], PS[a]);
        for (int b = 0; b < h->nb; b++) fprintf(f, ",%s,%s_min,%s_max", csv_q(h->base[b]), csv_q(h->base[b]), csv_q(h->base[b]));
        fprintf(f, "\n");
    }
    for (int q = 0; q < nrounds; q++) {
        if (rounds[q] > h->minT) continue;
        if (f) {
            fprintf(f, "%d", rounds[q]);
            for (int a = 0; a < NPS + h->nb; a++) csv_range(f, a < NPS ? h->flce[a][q] : h->base_kl[a - NPS][q], h->ns);
            fprintf(f, "\n");
        }
        for (int a = 0; a < NPS; a++) {
            int any = 0;
            for (int s = 0; s < h->ns; s++) any |= !isnan(h->flce[a][q][s]);
            if (!any) continue;
            double bk[MAXB][MAXS];
            for (int b = 0; b < h->nb; b++) memcpy(bk[b], h->base_kl[b][q], sizeof bk[b]);
            rconf tmp; /* judge's view: the seeds and baselines */
            tmp.ns = h->ns, tmp.nb = h->nb;
            memcpy(tmp.base, h->base, sizeof tmp.base);
            char w[200], cell[64], rd[16];
            report_decide dec = {0};
            int v = judge(&tmp, h->flce[a][q], bk, -1, w, sizeof w, NULL, NULL, NULL, NULL, &dec);
            char dw[96];
            report_decide_words(&dec, 4, dw, sizeof dw);
            snprintf(rd, sizeof rd, "%d", rounds[q]);
            rt_row_begin(&t, NULL);
            rt_cell(&t, rd, NULL, NULL, 0), rt_cell(&t, PS[a], NULL, NULL, 0);
            report_fmt_ci(cell, sizeof cell, h->flce[a][q], h->ns, 4);
            rt_cell(&t, cell, NULL, NULL, 0);
            for (int b = 0; b < h->nb; b++) {
                report_fmt_ci(cell, sizeof cell, h->base_kl[b][q], h->ns, 4);
                rt_cell(&t, cell, NULL, NULL, 0);
            }
            char vw[380];
            snprintf(vw, sizeof vw, "%s: %s%s%s", v > 0 ? "holds" : v < 0 ? "does not hold" : v == 0 ? "inconclusive" : "n/a", w,
                     v == 0 && dw[0] ? "; " : "", v == 0 ? dw : "");
            rt_cell(&t, vw, NULL, v > 0 ? "holds" : v < 0 ? "fails" : "open", 0);
            rt_row_end(&t);
        }
    }
    rt_end(&t);
    if (f) report_fclose(f);
}

/* RNAME.csv: each line's KL every round (the running contributions: FLCE's from the observed
 * prototypes without completion), mean over seeds, smallest and largest; has[L]: line L has a curve */
static void horizon_rounds_csv(report *R, const hconf *h, const char *rname, int *has) {
    char p[1300];
    snprintf(p, sizeof p, "%s/%s.csv", R->out, rname);
    for (int L = 0; L < NPS + h->nb; L++)
        for (int s = 0; s < h->ns; s++) has[L] |= h->curve[L][s] != NULL;
    FILE *fr = report_fopen(p);
    if (!fr) return;
    fprintf(fr, "round");
    for (int L = 0; L < NPS + h->nb; L++) {
        char nm[48];
        if (L < NPS) snprintf(nm, sizeof nm, "flce_%s", PS[L]);
        else snprintf(nm, sizeof nm, "%s", h->base[L - NPS]);
        fprintf(fr, ",%s,%s_min,%s_max", csv_q(nm), csv_q(nm), csv_q(nm));
    }
    fprintf(fr, "\n");
    for (int rd = 0; rd < h->minT; rd++) {
        fprintf(fr, "%d", rd + 1);
        for (int L = 0; L < NPS + h->nb; L++) {
            double sm = 0, lo = INFINITY, hi = -INFINITY;
            int m = 0;
            for (int s = 0; s < h->ns; s++)
                if (h->curve[L][s]) {
                    double v = h->curve[L][s][rd];
                    sm += v, lo = fmin(lo, v), hi = fmax(hi, v), m++;
                }
            if (m) fprintf(fr, ",%.6g,%.6g,%.6g", sm / m, lo, hi);
            else fprintf(fr, ",,,");
        }
        fprintf(fr, "\n");
    }
    report_fclose(fr);
}

/* The figure: every round's KL, seed mean with a band to the smallest and largest seed; FLCE's
 * contributions with completion at the rounds judged as points with their range. */
static void horizon_figure(report *R, const hconf *h, int nrounds, const char *conf, const char *name, const char *rname, const int *has) {
    flce_sbuf b = {0};
    flce_sbuf_printf(&b, "  set datafile separator ','\n  set xlabel 'round'\n  set ylabel 'KL(contributions || data shares)'\n"
                         "  set logscale y\n  set xrange [1:%g]\n  set grid\n  set key below horizontal maxcols 2 font ',10'\n  plot ", h->minT * 1.02 + 0.1);
    int curves = 0;
    for (int L = 0; L < NPS + h->nb; L++) {
        if (!has[L]) continue;
        const char *nm = L < NPS ? (L ? "FLCE (all samples), running" : "FLCE (correct samples), running") : h->base[L - NPS];
        const char *colr = color_of(L < NPS ? "flce" : h->base[L - NPS]);
        int col = 2 + 3 * L;
        flce_sbuf_printf(&b, "%s'%s.csv' skip 1 using 1:%d:%d with filledcurves fs transparent solid 0.15 noborder lc rgb '%s' notitle, \\\n"
                             "       '%s.csv' skip 1 using 1:%d with lines lw 2 lc rgb '%s'%s title '%s'",
                         curves++ ? ", \\\n       " : "", rname, col + 1, col + 2, colr, rname, col, colr, L == 1 ? " dt 2" : "", gp_safe(nm));
    }
    for (int a = 0; a < NPS; a++) { /* the judged points (horizonNN.csv: FLCE's columns first) */
        int any = 0;
        for (int q = 0; q < nrounds; q++)
            for (int s = 0; s < h->ns; s++) any |= !isnan(h->flce[a][q][s]);
        if (!any) continue;
        flce_sbuf_printf(&b, "%s'%s.csv' skip 1 using 1:%d:%d:%d with yerrorbars pt %d ps 1.2 lw 2 lc rgb '%s' title '%s'",
                         curves++ ? ", \\\n       " : "", name, 2 + 3 * a, 3 + 3 * a, 4 + 3 * a, a ? 6 : 7, color_of("flce"),
                         a ? "FLCE (all samples), with completion, at the rounds judged" : "FLCE (correct samples), with completion, at the rounds judged");
    }
    flce_sbuf_printf(&b, "\n");
    int fig_h = 380 + 18 * ((curves + 1) / 2); /* the key below the curves (inside, it covered them), two entries a row */
    if (curves && !b.oom && gnuplot_sized(R->out, name, 860, fig_h, b.s) == 0) {
        const char *cap = "Every round: each method's KL of its running contributions (FLCE's: from the observed prototypes, "
                          "without completion), the mean over seeds with a band from the smallest to the largest seed. "
                          "Points: FLCE's contributions with completion (what it reports) at the rounds judged, mean and range over seeds";
        fprintf(R->md, "\n![KL every round: %s](%s.png)\n\n%s ([SVG](%s.svg); data: [every round](%s.csv), [the rounds judged](%s.csv)).\n",
                MD(conf), name, cap, name, rname, name);
        fprintf(R->ht, "<figure><img src='%s.svg' width='860' height='%d' alt='KL every round'><figcaption>%s (<a href='%s.png'>PNG</a>; data: "
                       "<a href='%s.csv'>every round</a>, <a href='%s.csv'>the rounds judged</a>)</figcaption></figure>\n",
                name, fig_h, cap, name, rname, name);
    } else if (curves) R->figs_ok = 0;
    flce_sbuf_free(&b);
}

int report_horizon(report *R) {
    int rounds[MAXR], nrounds = horizon_rounds(rounds);
    if (nrounds < 0) {
        report_over(R, "FLCE_REPORT_HORIZON '%s': rounds from 1 to 1000000 separated by commas (at most %d)",
                    getenv("FLCE_REPORT_HORIZON"), MAXR);
        return 0;
    }
    hconf *cf = calloc(MAXC, sizeof *cf);
    if (!cf) return 0;
    int nc = 0, shown = 0;
    horizon_collect(R, rounds, nrounds, cf, &nc);
    for (int k = 0; k < nc; k++) {
        hconf *h = &cf[k];
        int nq = 0, any_flce = 0;
        for (int q = 0; q < nrounds; q++) nq += rounds[q] <= h->minT;
        for (int a = 0; a < NPS; a++)
            for (int q = 0; q < nrounds; q++)
                for (int s = 0; s < h->ns; s++) any_flce |= !isnan(h->flce[a][q][s]);
        if (nq < 2 || !any_flce || !h->nb) continue;
        char conf[200], name[32], rname[48];
        report_configuration_base(h->any, conf, sizeof conf);
        if (!shown++) {
            const char *intro = "The paper trains 1,000 rounds; the study 30. Here the KL claim (\"FLCE's KL the lowest except FedSV\") "
                                "is judged again at later rounds of the same runs: FLCE's contributions as flce eval gives them from "
                                "the trace's first R rounds (what FLCE would have reported had training stopped there; its prototype "
                                "samples as trained, a missing prototype an observed zero), each baseline's running contributions "
                                "(its default rule, cos_global) at round R. Verdicts by the study's rule over seeds.";
            fprintf(R->md, "\n## The horizon\n\n%s\n", intro);
            fprintf(R->ht, "<h2>The horizon</h2>\n<p>%s</p>\n", intro);
        }
        snprintf(name, sizeof name, "horizon%02d", k + 1);
        snprintf(rname, sizeof rname, "%s_rounds", name);
        fprintf(R->md, "\n### %s: %d seed%s, %d rounds\n\n", MD(conf), h->ns, h->ns == 1 ? "" : "s", h->minT);
        fprintf(R->ht, "<h3>%s: %d seed%s, %d rounds</h3>\n", H(conf), h->ns, h->ns == 1 ? "" : "s", h->minT);
        horizon_table(R, h, rounds, nrounds, name);
        int has[NPS + MAXB] = {0};
        horizon_rounds_csv(R, h, rname, has);
        horizon_figure(R, h, nrounds, conf, name, rname, has);
    }
    for (int k = 0; k < nc; k++) free(cf[k].key);
    free(cf);
    return 1;
}
