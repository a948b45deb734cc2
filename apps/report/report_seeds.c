/* report_seeds.c: seeds as a dimension of every result (report.h). Runs whose config.json
 * differ only in the seed form one configuration; for each, over its n seeds: the mean and a
 * 95% confidence interval (Student t with n - 1 degrees of freedom) of final accuracy and
 * macro-F1 (means over the report's window), KL and diversity KL of the final contributions, and
 * the cumulative distance to canonical Shapley where an exact FedSV run of the same partition
 * exists for the seed; FLCE minus each baseline of the same configuration, paired seed by seed
 * (the same partition digest): mean, confidence interval, wins and losses; the per-round
 * accuracy, F1 and KL as the seed mean with a min-max band. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define MAXG 256


/* the method and its ablation, as one name for all seeds (the report's labels are made unique) */
const char *report_base_label(const run_t *r, char *o, size_t cap) {
    snprintf(o, cap, "%s%s%s", r->algo, r->ablate[0] ? " -" : "", r->ablate);
    for (char *c = o; *c; c++)
        if (*c == ' ' && c[1] && c != o + strlen(r->algo)) *c = '-';
    return o;
}

/* The readings a run was trained with where not the defaults (issue 30): two groups of FLCE runs
 * that differ only there would otherwise carry the same name in every table. */
static void reading_words(const run_t *r, char *o, size_t cap, size_t *n) {
    const cJSON *ps = r->cfg ? cJSON_GetObjectItemCaseSensitive(r->cfg, "prototypes") : NULL;
    const cJSON *mi = r->cfg ? cJSON_GetObjectItemCaseSensitive(r->cfg, "missing") : NULL;
    if (cJSON_IsString(ps) && strcmp(ps->valuestring, "correct")) flce_catf(o, cap, n, "; prototypes from %s samples", ps->valuestring);
    if (cJSON_IsString(mi) && strcmp(mi->valuestring, "zero")) flce_catf(o, cap, n, "; missing prototypes %s", mi->valuestring);
    report_released_words(r, o, cap, n); /* the released code's departures (issue 62) */
}

const char *report_configuration(const run_t *r, char *o, size_t cap) {
    report_configuration_base(r, o, cap);
    size_t n = strlen(o);
    reading_words(r, o, cap, &n);
    return o;
}

const char *report_configuration_base(const run_t *r, char *o, size_t cap) {
    size_t n = 0;
    o[0] = '\0';
    const cJSON *qs = r->cfg ? cJSON_GetObjectItemCaseSensitive(r->cfg, "quantity_skew") : NULL;
    if (!strcmp(r->partition, "quantity") && cJSON_IsNumber(qs)) flce_catf(o, cap, &n, "%s; quantity skew %g", r->dataset, qs->valuedouble);
    else {
        flce_catf(o, cap, &n, "%s; %s", r->dataset, strcmp(r->partition, "iid") ? "Dirichlet" : "IID");
        if (strcmp(r->partition, "iid")) flce_catf(o, cap, &n, " %g", r->dirichlet);
    }
    if (r->label_noise > 0 || r->feature_noise > 0) flce_catf(o, cap, &n, "; noise L%g F%g", r->label_noise, r->feature_noise);
    const cJSON *lr = r->cfg ? cJSON_GetObjectItemCaseSensitive(r->cfg, "lr") : NULL; /* said where not the paper's 0.01 */
    if (cJSON_IsNumber(lr) && lr->valuedouble != 0.01) flce_catf(o, cap, &n, "; lr %g", lr->valuedouble);
    if (r->cw) flce_catf(o, cap, &n, "; class weights");
    const cJSON *at = r->cfg ? cJSON_GetObjectItemCaseSensitive(r->cfg, "attacks") : NULL, *a; /* strategic clients (docs/attacks.md) */
    if (cJSON_IsArray(at)) {
        flce_catf(o, cap, &n, "; attacked:");
        cJSON_ArrayForEach(a, at) if (cJSON_IsString(a)) flce_catf(o, cap, &n, " %s", a->valuestring);
    }
    const cJSON *clip = r->cfg ? cJSON_GetObjectItemCaseSensitive(r->cfg, "prototype_clip") : NULL; /* FLCE's guard, where set */
    if (cJSON_IsNumber(clip) && clip->valuedouble > 0) flce_catf(o, cap, &n, "; guard K = %g", clip->valuedouble);
    flce_catf(o, cap, &n, "; %d rounds", r->T); /* no commas: it is a CSV field too */
    return o;
}


/* The runs grouped into configurations (equal settings but the seed; a run that repeats a
 * configuration and seed of its group is left out: it is a repeat, compared under "Repeated
 * runs"), and the distances to exact Shapley. */
typedef struct seeds_ctx {
    run_t *runs;
    int nr, ng;
    report_group g[MAXG];
    char *keys[MAXRUNS], *ckeys[MAXRUNS]; /* settings without the seed; and without algo and ablate too */
    double shd[MAXRUNS];                  /* cumulative KL distance to an exact FedSV run of the partition, NaN: none */
    const char *out;
    FILE *md, *ht;
    int nconf, conf[MAXG]; /* configurations (equal ckeys): the first group of each, in the report's order */
    int conf_of[MAXG];     /* each group's configuration (an index into conf) */
} seeds_ctx;

static int group_runs(report *R, seeds_ctx *S) {
    static const char *seed_f[] = {"seed"}, *cmp_f[] = {"seed", "algo", "ablate"};
    run_t *runs = S->runs;
    for (int i = 0; i < S->nr; i++) {
        S->keys[i] = flce_run_key(&runs[i], seed_f, 1);
        S->ckeys[i] = flce_run_key(&runs[i], cmp_f, 3);
        if (!S->keys[i] || !S->ckeys[i]) return 0;
        int j = 0;
        while (j < S->ng && strcmp(S->g[j].key, S->keys[i])) j++;
        if (j == S->ng) {
            if (S->ng == MAXG) {
                report_over(R, "more than %d configurations (runs whose settings differ in more than the seed); give fewer runs", MAXG);
                continue;
            }
            S->g[S->ng].key = S->keys[i], S->g[S->ng].n = 0, S->ng++;
        }
        int repeat = 0;
        for (int q = 0; q < S->g[j].n; q++) repeat |= runs[S->g[j].m[q]].seed == runs[i].seed;
        if (!repeat && S->g[j].n == REPORT_MAX_SEEDS)
            report_over(R, "more than %d seeds of one configuration (%s, %s); give fewer runs", REPORT_MAX_SEEDS, runs[i].algo, runs[i].dir);
        else if (!repeat) S->g[j].m[S->g[j].n++] = i;
    }
    /* each group's runs by seed (then folder): its means and intervals summed in one order, whatever
     * order the folders were given in */
    for (int j = 0; j < S->ng; j++)
        for (int a = 1; a < S->g[j].n; a++)
            for (int b = a; b > 0; b--) {
                const run_t *x = &runs[S->g[j].m[b - 1]], *y = &runs[S->g[j].m[b]];
                if (x->seed < y->seed || (x->seed == y->seed && strcmp(x->dir, y->dir) <= 0)) break;
                int t = S->g[j].m[b - 1];
                S->g[j].m[b - 1] = S->g[j].m[b], S->g[j].m[b] = t;
            }
    /* the distance to canonical Shapley: of the exact FedSV runs on r's partition, the one of r's
     * configuration, else one in the text's form (validation utility, the aggregate as the next
     * model, the selected clients valued), else any; ties to the first folder by name, so that
     * the order of the folders given never changes the reference */
    for (int i = 0; i < S->nr; i++) {
        S->shd[i] = NAN;
        int best = -1, best_score = -1;
        for (int s = 0; s < S->nr; s++) {
            if (s == i || strcmp(runs[s].algo, "fedsv") || !strcmp(runs[s].shapley, "mc")) continue;
            double e;
            double k = flce_run_shapley_cum(&runs[i], &runs[s], &e);
            if (isnan(k)) continue;
            const char *us = flce_json_str(runs[s].cfg, "utility_set"), *pl = flce_json_str(runs[s].cfg, "players"),
                       *nm = flce_json_str(runs[s].cfg, "next_model");
            int text = !(us && !strcmp(us, "test")) && !(pl && !strcmp(pl, "drawn")) && !(nm && !strcmp(nm, "best"));
            int score = !strcmp(S->ckeys[s], S->ckeys[i]) ? 2 : text;
            if (score > best_score || (score == best_score && strcmp(runs[s].dir, runs[best].dir) < 0))
                best = s, best_score = score, S->shd[i] = k;
        }
    }
    return 1;
}

/* The order of configurations: IID before label skew (by Dirichlet parameter, smallest first)
 * before quantity skew; without noise before with; then by the configuration's words. */
static int conf_cmp(const run_t *a, const run_t *b) {
    int pa = !strcmp(a->partition, "iid") ? 0 : !strcmp(a->partition, "dirichlet") ? 1 : 2;
    int pb = !strcmp(b->partition, "iid") ? 0 : !strcmp(b->partition, "dirichlet") ? 1 : 2;
    if (pa != pb) return pa - pb;
    int na = a->label_noise > 0 || a->feature_noise > 0, nb = b->label_noise > 0 || b->feature_noise > 0;
    if (na != nb) return na - nb;
    if (pa == 1 && a->dirichlet != b->dirichlet) return a->dirichlet < b->dirichlet ? -1 : 1;
    char ca[200], cb[200];
    report_configuration(a, ca, sizeof ca), report_configuration(b, cb, sizeof cb);
    int c = strcmp(ca, cb);
    return c ? c : strcmp(a->dir, b->dir);
}

static void find_configurations(seeds_ctx *S) {
    for (int j = 0; j < S->ng; j++) {
        int c = 0;
        while (c < S->nconf && strcmp(S->ckeys[S->g[S->conf[c]].m[0]], S->ckeys[S->g[j].m[0]])) c++;
        if (c == S->nconf) S->conf[S->nconf++] = j;
    }
    for (int a = 1; a < S->nconf; a++) /* insertion sort: a handful */
        for (int b = a; b > 0 && conf_cmp(&S->runs[S->g[S->conf[b]].m[0]], &S->runs[S->g[S->conf[b - 1]].m[0]]) < 0; b--) {
            int t = S->conf[b];
            S->conf[b] = S->conf[b - 1], S->conf[b - 1] = t;
        }
    for (int j = 0; j < S->ng; j++)
        for (int c = 0; c < S->nconf; c++)
            if (!strcmp(S->ckeys[S->g[S->conf[c]].m[0]], S->ckeys[S->g[j].m[0]])) S->conf_of[j] = c;
}

int report_seeds_open(report *R) {
    seeds_ctx *S = calloc(1, sizeof *S);
    if (!S) return 0;
    S->runs = R->runs, S->nr = R->nr, S->out = R->out;
    R->S = S;
    if (!group_runs(R, S)) return 0;
    find_configurations(S);
    R->one_seed = 1; /* no configuration with two seeds of a method: no claim can be judged */
    for (int j = 0; j < S->ng; j++) R->one_seed &= S->g[j].n < 2;
    return 1;
}

void report_seeds_close(report *R) {
    seeds_ctx *S = R->S;
    if (!S) return;
    for (int i = 0; i < S->nr; i++) free(S->keys[i]), free(S->ckeys[i]);
    free(S);
    R->S = NULL;
}

/* The seeds of group j, as "1-3" or "1, 4, 7" (in o). */
static const char *seed_list(const seeds_ctx *S, const int *m, int n, char *o, size_t cap) {
    unsigned long long v[MAXRUNS];
    int k = 0;
    for (int q = 0; q < n && k < MAXRUNS; q++) {
        unsigned long long x = S->runs[m[q]].seed;
        int seen = 0;
        for (int i = 0; i < k; i++) seen |= v[i] == x;
        if (!seen) v[k++] = x;
    }
    for (int a = 1; a < k; a++)
        for (int b = a; b > 0 && v[b] < v[b - 1]; b--) {
            unsigned long long t = v[b];
            v[b] = v[b - 1], v[b - 1] = t;
        }
    size_t len = 0;
    o[0] = '\0';
    for (int i = 0; i < k;) {
        int j = i;
        while (j + 1 < k && v[j + 1] == v[j] + 1) j++;
        if (j > i + 1) flce_catf(o, cap, &len, "%s%llu-%llu", i ? ", " : "", v[i], v[j]);
        else
            for (int q = i; q <= j; q++) flce_catf(o, cap, &len, "%s%llu", q ? ", " : "", v[q]);
        i = j + 1;
    }
    return o;
}

/* The runs of configuration c (all its groups), for seed_list. */
static int conf_runs(const seeds_ctx *S, int c, int *m, int cap) {
    int n = 0;
    for (int j = 0; j < S->ng; j++)
        if (S->conf_of[j] == c)
            for (int q = 0; q < S->g[j].n && n < cap; q++) m[n++] = S->g[j].m[q];
    return n;
}

int report_nconf(const report *R) { return R->S ? R->S->nconf : 0; }

int report_conf_members(const report *R, int c, int *m, int cap, int *most_seeds) {
    const seeds_ctx *S = R->S;
    *most_seeds = 0;
    if (!S || c < 0 || c >= S->nconf) return 0;
    for (int j = 0; j < S->ng; j++)
        if (S->conf_of[j] == c && S->g[j].n > *most_seeds) *most_seeds = S->g[j].n;
    return conf_runs(S, c, m, cap);
}

void report_what_was_run(report *R) {
    seeds_ctx *S = R->S;
    FILE *md = R->md, *ht = R->ht;
    char lab[96], seeds[200], conf[200];
    int methods = 0, abl = 0;
    for (int j = 0; j < S->ng; j++) { /* distinct methods and FLCE variants over all configurations */
        const run_t *r = &S->runs[S->g[j].m[0]];
        int first = 1;
        for (int k = 0; k < j && first; k++) {
            const run_t *o = &S->runs[S->g[k].m[0]];
            first = strcmp(o->algo, r->algo) || strcmp(o->ablate, r->ablate);
        }
        if (first) methods += !r->ablate[0], abl += r->ablate[0] != 0;
    }
    static int all[MAXRUNS];
    for (int i = 0; i < S->nr; i++) all[i] = i;
    seed_list(S, all, S->nr, seeds, sizeof seeds);
    char variants[64] = "";
    if (abl) snprintf(variants, sizeof variants, " and %d FLCE variant%s", abl, abl > 1 ? "s" : "");
    const char *sw = strpbrk(seeds, ",-") ? "seeds" : "seed";
    fprintf(md, "%d runs: %d method%s%s in %d configuration%s, %s %s. Each configuration has its section below "
                "([Each configuration](#each-configuration)); every run's numbers, figures and digests: [runs.md](runs.md).\n",
            S->nr, methods, methods > 1 ? "s" : "", variants, S->nconf, S->nconf > 1 ? "s" : "", sw, seeds);
    fprintf(ht, "<p>%d runs: %d method%s%s in %d configuration%s, %s %s. Every run's numbers, figures and digests: "
                "<a href='runs.html'>runs.html</a>.</p>\n",
            S->nr, methods, methods > 1 ? "s" : "", variants, S->nconf, S->nconf > 1 ? "s" : "", sw, H(seeds));
    static const char *heads[] = {"configuration", "methods", "seeds"};
    rtable t;
    rt_begin_class(&t, md, ht, "small", 3, heads);
    for (int c = 0; c < S->nconf; c++) {
        int m[MAXRUNS];
        int n = conf_runs(S, c, m, MAXRUNS);
        seed_list(S, m, n, seeds, sizeof seeds);
        char ms[600] = "", vs[200] = "";
        size_t len = 0, vl = 0;
        for (int j = 0; j < S->ng; j++) { /* the methods, then FLCE's variants in one parenthesis */
            const run_t *r = &S->runs[S->g[j].m[0]];
            if (S->conf_of[j] != c) continue;
            if (r->ablate[0]) flce_catf(vs, sizeof vs, &vl, "%s%s", vl ? ", " : "", report_base_label(r, lab, sizeof lab) + 5);
            else flce_catf(ms, sizeof ms, &len, "%s%s", len ? ", " : "", r->algo);
        }
        if (vl) flce_catf(ms, sizeof ms, &len, " (FLCE variants %s)", vs);
        report_configuration(&S->runs[S->g[S->conf[c]].m[0]], conf, sizeof conf);
        char href[32];
        snprintf(href, sizeof href, "#conf-%d", c + 1);
        rt_row_begin(&t, NULL);
        rt_cell(&t, conf, href, NULL, 0);
        rt_cell(&t, ms, NULL, NULL, 0);
        rt_cell(&t, seeds, NULL, NULL, 0);
        rt_row_end(&t);
    }
    rt_end(&t);
}

/* The first screen's answer to "how accurate is each method" (issue 81): a row per method of each
 * configuration, its final accuracy and macro-F1 (the last round's) and their means over the
 * window, each the mean over its seeds; folded under a summary past GLANCE_ROWS rows (a study of
 * many configurations), so that the sections still begin near the top. */
#define GLANCE_ROWS 12
void report_glance(report *R) {
    seeds_ctx *S = R->S;
    run_t *runs = S->runs;
    FILE *md = R->md, *ht = R->ht;
    int rows = 0, confs = S->nconf > 1;
    for (int j = 0; j < S->ng; j++) rows += S->g[j].n > 0;
    if (!rows) return;
    char txt[600];
    snprintf(txt, sizeof txt, "**Accuracy and macro-F1 of each method**: final, after a run's last round; mean, over %s%s. "
             "Where a method has several seeds, each is the mean over them (n); intervals: [Each configuration](#each-configuration).",
             window_phrase(R), confs ? "; a row per method of each configuration" : "");
    fprintf(md, "\n%s\n", txt);
    if (rows > GLANCE_ROWS) fprintf(ht, "<details><summary>Accuracy and macro-F1 of each method: %d rows (%d configurations), folded</summary>\n", rows, S->nconf);
    fprintf(ht, "<p><b>Accuracy and macro-F1 of each method</b>: final, after a run's last round; mean, over %s%s. Where a method "
                "has several seeds, each is the mean over them (n); intervals: <a href='#conf-1'>each configuration</a>.</p>\n",
            H(window_phrase(R)), confs ? "; a row per method of each configuration" : "");
    static const char *heads[] = {"configuration", "method", "n", "final accuracy", "final macro-F1", "accuracy, mean", "macro-F1, mean"};
    rtable t;
    rt_begin_class(&t, md, ht, "glance", 6 + confs, heads + !confs);
    for (int c = 0; c < S->nconf; c++) {
        int first = 1;
        for (int pass = 0; pass < 2; pass++) /* the methods, then FLCE's variants, as in the configuration's table */
            for (int j = 0; j < S->ng; j++) {
                const run_t *r0 = &runs[S->g[j].m[0]];
                if (S->conf_of[j] != c || (r0->ablate[0] != 0) != pass || !S->g[j].n) continue;
                double v[4] = {0, 0, 0, 0};
                int n = S->g[j].n;
                for (int q = 0; q < n; q++) {
                    const run_t *r = &runs[S->g[j].m[q]];
                    v[0] += r->T ? r->acc[r->T - 1] / n : NAN, v[1] += r->T ? r->f1[r->T - 1] / n : NAN;
                    v[2] += r->fin_acc / n, v[3] += r->fin_f1 / n;
                }
                char lab[96], conf[200], num[5][32];
                report_base_label(r0, lab, sizeof lab);
                report_configuration(r0, conf, sizeof conf);
                snprintf(num[0], sizeof num[0], "%d", n);
                for (int k = 0; k < 4; k++) snprintf(num[k + 1], sizeof num[k + 1], "%.4f", v[k]);
                rt_row_begin(&t, NULL);
                if (confs) rt_cell2(&t, conf, first ? conf : "", NULL, NULL, 0);
                rt_cell(&t, lab, NULL, NULL, 0);
                for (int k = 0; k < 5; k++) rt_cell(&t, num[k], NULL, NULL, 0);
                rt_row_end(&t);
                first = 0;
            }
    }
    rt_end(&t);
    if (rows > GLANCE_ROWS) fprintf(ht, "</details>\n");
}

int report_verdicts(report *R) {
    seeds_ctx *S = R->S;
    /* the claims table first, into memory: it gathers the forest's rows */
    char *mb = NULL, *hb = NULL;
    size_t ml = 0, hl = 0;
    FILE *md = open_memstream(&mb, &ml), *ht = open_memstream(&hb, &hl);
    if (!md || !ht) {
        if (md) fclose(md);
        if (ht) fclose(ht);
        free(mb), free(hb);
        return 0;
    }
    int order[MAXG], no = 0;
    for (int c = 0; c < S->nconf; c++)
        for (int j = 0; j < S->ng; j++)
            if (S->conf_of[j] == c) order[no++] = j;
    report_claims(S->runs, S->g, S->ng, order, S->ckeys, S->shd, S->out, md, ht);
    fclose(md), fclose(ht);
    int W = 1000, H = 0, ok = report_forest_figure(S->out, &W, &H);
    fprintf(R->md, "\n## Claims of the paper, measured\n\n");
    fprintf(R->ht, "<h2>Claims of the paper, measured</h2>\n");
    /* one seed: every verdict is inconclusive (n=1) and the forest's dots have no bars; the claims
     * follow the clients, folded, saying why (issue 65: a report on one's own runs opened on them) */
    static const char *fold = "The paper's claims need at least two seeds of a configuration (a 95% interval over seeds): "
                              "with one seed, as here, every verdict is inconclusive (n=1). Their forest plot, table and rule:";
    if (R->one_seed) {
        fprintf(R->md, "%s\n\n", fold);
        fprintf(R->ht, "<details class='claims'><summary>%s</summary>\n", fold);
    }
    if (report_forest_rows() && !H)
        report_para(R->md, R->ht, "The forest plot of these claims is left out: its rows would make it taller than a figure is drawn "
                                  "(30,000 pixels). The table below has every comparison.");
    else if (report_forest_rows()) {
        static const char *cap = "Each row: a claim in one configuration; the dot is the mean paired difference of the comparison "
                                 "furthest from the claim (FLCE minus that baseline, or a variant minus FLCE), turned so that "
                                 "right of the dashed zero line is the claim's side; the bar its 95% interval. Bluish green: the "
                                 "claim holds there, vermillion (orange-red): it does not hold, grey: inconclusive. Each panel has its own units (accuracy, "
                                 "KL, distance). Server cost is a ratio: in the table.";
        fprintf(R->md, "![The claims: FLCE minus the baseline furthest from each claim, 95%% intervals](forest.png) ([SVG](forest.svg))\n\n%s\n", cap);
        fprintf(R->ht, "<figure class='verdicts'><img src='forest.svg' width='%d' height='%d' alt='forest plot of the claims'>"
                       "<figcaption>%s</figcaption></figure>\n", W, H, cap);
    }
    fwrite(mb, 1, ml, R->md), fwrite(hb, 1, hl, R->ht);
    if (R->one_seed) fprintf(R->ht, "</details>\n");
    free(mb), free(hb);
    return ok;
}

/* The means and intervals of the groups of configuration c (md, ht; every group into cs). */
static void conf_means(seeds_ctx *S, int c, FILE *md, FILE *ht, FILE *cs) {
    run_t *runs = S->runs;
    char lab[96];
    static const char *heads[] = {"method", "n", "accuracy", "macro-F1", "KL", "Spearman with data shares", "KL (diversity)",
                                  "distance to Shapley"};
    rtable t;
    rt_begin_class(&t, md, ht, "means", 8, heads);
    for (int pass = 0; pass < 2; pass++) /* the methods, then FLCE's variants */
    for (int j = 0; j < S->ng; j++) {
        if (S->conf_of[j] != c || (runs[S->g[j].m[0]].ablate[0] != 0) != pass) continue;
        double v[6][64];
        int n = S->g[j].n;
        for (int q = 0; q < n; q++) {
            const run_t *r = &runs[S->g[j].m[q]];
            v[0][q] = r->fin_acc, v[1][q] = r->fin_f1, v[2][q] = r->kl_final, v[3][q] = r->kl_div, v[4][q] = S->shd[S->g[j].m[q]];
            v[5][q] = report_spearman(r->contrib, r->samples, r->clients); /* rank agreement with the data shares, beside KL */
        }
        char cc[6][64], conf[200];
        for (int k = 0; k < 6; k++) report_fmt_ci(cc[k], sizeof cc[k], v[k], n, k < 2 ? 4 : k == 5 ? 3 : 5);
        const run_t *r0 = &runs[S->g[j].m[0]];
        report_configuration(r0, conf, sizeof conf);
        report_base_label(r0, lab, sizeof lab);
        rt_rowf(&t, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s", lab, n, cc[0], cc[1], cc[2], cc[5], cc[3], cc[4]);
        if (cs) { /* the Spearman columns last: the earlier columns keep their places */
            fprintf(cs, "%s,%s,%d", csv_q(gp_safe(lab)), csv_q(gp_safe(conf)), n);
            for (int k = 0; k < 6; k++) {
                double m, h;
                report_mean_ci(v[k], n, &m, &h);
                fprintf(cs, ",%.6f,%.6f", m, h);
            }
            fprintf(cs, "\n");
        }
    }
    rt_end(&t);
}

/* FLCE minus each baseline of configuration c, paired by partition (md, ht; paired.csv). */
static void conf_paired(seeds_ctx *S, int c, FILE *md, FILE *ht, FILE *pc) {
    run_t *runs = S->runs;
    report_group *g = S->g;
    char lab[96];
    int rows = 0;
    rtable t;
    for (int a = 0; a < S->ng; a++) {
        const run_t *fa = &runs[g[a].m[0]];
        if (S->conf_of[a] != c || strcmp(fa->algo, "flce") || fa->ablate[0]) continue;
        for (int b = 0; b < S->ng; b++) {
            const run_t *fb = &runs[g[b].m[0]];
            if (b == a || S->conf_of[b] != c || !strcmp(fb->algo, "flce")) continue;
            double d[3][REPORT_MAX_SEEDS];
            int np = 0, aw = 0, al = 0, kw = 0, kls = 0;
            for (int x = 0; x < g[a].n; x++)
                for (int y = 0; y < g[b].n; y++) {
                    const run_t *ra = &runs[g[a].m[x]], *rb = &runs[g[b].m[y]];
                    if (strcmp(ra->partdig, rb->partdig) || np == REPORT_MAX_SEEDS) continue;
                    d[0][np] = ra->fin_acc - rb->fin_acc, d[1][np] = ra->fin_f1 - rb->fin_f1, d[2][np] = ra->kl_final - rb->kl_final;
                    aw += d[0][np] > 0, al += d[0][np] < 0, kw += d[2][np] < 0, kls += d[2][np] > 0;
                    np++;
                }
            if (!np) continue;
            if (!rows++) {
                static const char *heads[] = {"baseline", "pairs", "Δ accuracy", "wins/losses", "Δ macro-F1", "Δ KL", "wins/losses"};
                fprintf(md, "\nFLCE minus each baseline, paired seed by seed (the same partition); FLCE wins with a higher accuracy "
                            "and F1, a lower KL.\n");
                fprintf(ht, "<details><summary>FLCE minus each baseline, paired seed by seed (the same partition); FLCE wins with a "
                            "higher accuracy and F1, a lower KL</summary>");
                rt_begin(&t, md, ht, 7, heads);
            }
            char cc[3][64], conf[200];
            for (int k = 0; k < 3; k++) report_fmt_ci(cc[k], sizeof cc[k], d[k], np, k < 2 ? 4 : 5);
            report_configuration(fb, conf, sizeof conf);
            report_base_label(fb, lab, sizeof lab);
            rt_rowf(&t, "%s\t%d\t%s\t%d/%d\t%s\t%s\t%d/%d", lab, np, cc[0], aw, al, cc[1], cc[2], kw, kls);
            if (pc) {
                double m[3], h[3];
                for (int k = 0; k < 3; k++) report_mean_ci(d[k], np, &m[k], &h[k]);
                fprintf(pc, "%s,%s,%d,%.6f,%.6f,%d,%d,%.6f,%.6f,%.6f,%.6f,%d,%d\n", csv_q(gp_safe(lab)), csv_q(gp_safe(conf)), np, m[0], h[0],
                        aw, al, m[1], h[1], m[2], h[2], kw, kls);
            }
        }
    }
    if (rows) rt_end(&t), fprintf(ht, "</details>\n");
}

/* The lines of configuration c's per-round figure (variants: 1, FLCE and its variants; 0, the
 * plain methods). */
static int conf_rounds_lines(const seeds_ctx *S, int c, int variants) {
    int n = 0;
    for (int j = 0; j < S->ng; j++) {
        const run_t *r0 = &S->runs[S->g[j].m[0]];
        n += S->conf_of[j] == c && !(variants ? strcmp(r0->algo, "flce") : r0->ablate[0] != 0);
    }
    return n;
}

/* Configuration c's per-round figures: the seed mean and min-max band of each method (variants:
 * ablations 0, only the plain methods; 1, FLCE and its variants), accuracy and KL side by side,
 * each panel with its legend below it (three entries a row: the figure grows a row's height for
 * each row); the figure's name into name and its height into *height, 0 when it failed, -1 when
 * it has no line. */
static int conf_rounds_figure(seeds_ctx *S, int c, int variants, char *name, size_t cap, int *height) {
    run_t *runs = S->runs;
    char lab[96], path[1400];
    snprintf(name, cap, "conf%02d_%s", c + 1, variants ? "ablations" : "rounds");
    if (variants) { /* only where FLCE has variants in this configuration */
        int any = 0;
        for (int j = 0; j < S->ng; j++) any |= S->conf_of[j] == c && runs[S->g[j].m[0]].ablate[0];
        if (!any) return -1;
    }
    *height = 310 + 18 * ((conf_rounds_lines(S, c, variants) + 2) / 3);
    int T = 1;
    for (int j = 0; j < S->ng; j++)
        for (int q = 0; q < S->g[j].n; q++)
            if (S->conf_of[j] == c && runs[S->g[j].m[q]].T > T) T = runs[S->g[j].m[q]].T;
    flce_sbuf b = {0};
    flce_sbuf_printf(&b, "  set multiplot layout 1,2\n  set xlabel 'round'\n  set xtics %d\n  set grid\n  set style fill transparent solid 0.15 noborder\n"
                         "  set key below horizontal maxcols 3 font ',10' spacing 0.9\n", report_round_tics(T));
    int lines = 0;
    for (int w = 0; w < 2; w++) {
        flce_sbuf_printf(&b, "  set ylabel '%s'\n  plot ", w ? "KL(running contributions || data shares)" : "test accuracy");
        int curves = 0;
        for (int j = 0; j < S->ng; j++) {
            const run_t *r0 = &runs[S->g[j].m[0]];
            if (S->conf_of[j] != c) continue;
            if (variants ? strcmp(r0->algo, "flce") : r0->ablate[0] != 0) continue;
            snprintf(path, sizeof path, "%s/%s_%02d.csv", S->out, name, j);
            if (w == 0) { /* the data, once */
                FILE *f = report_fopen(path);
                if (!f) continue;
                fprintf(f, "round,accuracy,accuracy_min,accuracy_max,kl,kl_min,kl_max\n");
                for (int t = 0; t < r0->T; t++) {
                    double sa = 0, la = INFINITY, ha = -INFINITY, sk = 0, lk = INFINITY, hk = -INFINITY;
                    int k = 0;
                    for (int q = 0; q < S->g[j].n; q++) {
                        const run_t *r = &runs[S->g[j].m[q]];
                        if (t >= r->T) continue;
                        sa += r->acc[t], la = fmin(la, r->acc[t]), ha = fmax(ha, r->acc[t]);
                        sk += r->kl[t], lk = fmin(lk, r->kl[t]), hk = fmax(hk, r->kl[t]), k++;
                    }
                    if (k) fprintf(f, "%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f\n", t + 1, sa / k, la, ha, sk / k, lk, hk);
                }
                report_fclose(f);
            }
            const char *col = color_of(r0->algo), *dt = "";
            if (r0->ablate[0]) { /* the variants: FLCE's red, dashed in turn */
                static const char *dts[] = {" dt 2", " dt 3", " dt 4", " dt 5", " dt (8,4,2,4)"};
                dt = dts[curves % 5];
            }
            char title[140]; /* each panel its legend (the accuracy panel once had none) */
            snprintf(title, sizeof title, "title '%s (n=%d)'", gp_safe(report_base_label(r0, lab, sizeof lab)), S->g[j].n);
            flce_sbuf_printf(&b, "%s'%s_%02d.csv' skip 1 using 1:%d:%d with filledcurves lc rgb '%s' notitle, "
                                 "'' skip 1 using 1:%d with lines lw 2 lc rgb '%s'%s %s",
                             curves ? ", \\\n       " : "", name, j, w ? 6 : 3, w ? 7 : 4, col, w ? 5 : 2, col, dt, title);
            curves++;
        }
        if (!curves) flce_sbuf_printf(&b, "NaN notitle");
        flce_sbuf_printf(&b, "\n");
        lines += curves;
    }
    flce_sbuf_printf(&b, "  unset multiplot\n");
    int ok = lines == 0 ? -1 : !b.oom && gnuplot_sized(S->out, name, 980, *height, b.s) == 0;
    flce_sbuf_free(&b);
    return ok;
}

/* The class contributions of configuration c's FLCE runs (plain FLCE): each class's share of the
 * completed matrix (weighted by b_c), the mean over seeds with its range, against the class
 * weights' shares; 0 when it failed, -1 when there is nothing to draw. */
#define CLASS_FIG_H 270 /* its height: 250, and a row for the key below */
static int conf_class_figure(seeds_ctx *S, int c, char *name, size_t cap) {
    run_t *runs = S->runs;
    int j = 0;
    while (j < S->ng && (S->conf_of[j] != c || strcmp(runs[S->g[j].m[0]].algo, "flce") || runs[S->g[j].m[0]].ablate[0])) j++;
    if (j == S->ng) return -1;
    double share[64][128], wshare[128];
    int n = 0, C = 0;
    for (int q = 0; q < S->g[j].n && n < 64; q++) {
        int Cq = report_class_shares(&runs[S->g[j].m[q]], share[n], wshare, 128);
        if (Cq > 0 && (!C || Cq == C)) C = Cq, n++;
    }
    if (!n) return -1;
    snprintf(name, cap, "conf%02d_classes", c + 1);
    char path[1400];
    snprintf(path, sizeof path, "%s/%s.csv", S->out, name);
    FILE *f = report_fopen(path);
    if (!f) return 0;
    fprintf(f, "class,share_mean,share_min,share_max,class_weight_share\n");
    for (int k = 0; k < C; k++) {
        double s = 0, lo = INFINITY, hi = -INFINITY;
        for (int q = 0; q < n; q++) s += share[q][k], lo = fmin(lo, share[q][k]), hi = fmax(hi, share[q][k]);
        fprintf(f, "%d,%.6f,%.6f,%.6f,%.6f\n", k, s / n, lo, hi, wshare[k]);
    }
    report_fclose(f);
    char body[1200]; /* the key below the bars (inside, it covered one), no text below 9 px */
    snprintf(body, sizeof body,
             "  set style data histograms\n  set style histogram errorbars gap 1 lw 1\n  set style fill solid 0.85\n  set xlabel 'class' font ',10'\n"
             "  set ylabel 'share' font ',10'\n  set key below horizontal font ',10'\n  set yrange [0:*]\n"
             "  set xtics font ',9'\n  set ytics font ',9'\n"
             "  plot '%s.csv' skip 1 using 2:3:4:xtic(1) title 'FLCE (%d seed%s)' lc rgb '%s', "
             "'' skip 1 using 5:5:5 title 'class weight' lc rgb '#bbbbbb'\n",
             name, n, n > 1 ? "s" : "", color_of("flce"));
    return gnuplot_sized(S->out, name, 330, CLASS_FIG_H, body) == 0;
}

int report_configurations(report *R) {
    seeds_ctx *S = R->S;
    FILE *md = R->md, *ht = R->ht;
    char path[1400], conf[200], seeds[200], name[64];
    int ok = 1;
    snprintf(path, sizeof path, "%s/seeds.csv", S->out);
    FILE *cs = report_fopen(path);
    if (cs) fprintf(cs, "method,configuration,n,accuracy,accuracy_ci,macro_f1,macro_f1_ci,kl,kl_ci,kl_div,kl_div_ci,shapley_kl,shapley_kl_ci,"
                        "spearman_data_shares,spearman_data_shares_ci\n");
    snprintf(path, sizeof path, "%s/paired.csv", S->out);
    FILE *pc = report_fopen(path);
    if (pc) fprintf(pc, "baseline,configuration,pairs,d_accuracy,d_accuracy_ci,acc_wins,acc_losses,d_macro_f1,d_macro_f1_ci,d_kl,d_kl_ci,kl_wins,kl_losses\n");
    fprintf(md, "\n## Each configuration\n\nRuns whose `config.json` differ only in the method and the seed. Each cell: the mean over "
                "the n seeds ± the half-width of its 95%% confidence interval (Student t, n - 1 degrees of freedom); accuracy and "
                "macro-F1 over %s, KL of the final contributions to the data shares, Spearman: their rank correlation with the data "
                "shares (1: the same order; ties ranked by their mean rank), distance to Shapley: the "
                "cumulative KL distance to an exact FedSV run of the same partition and seed. Figures: the seed mean per round, "
                "the band from the smallest to the largest seed.\n", window_phrase(R));
    fprintf(ht, "<h2>Each configuration</h2><p>Runs whose <code>config.json</code> differ only in the method and the seed. Each "
                "cell: the mean over the n seeds ± the half-width of its 95%% confidence interval (Student t, n - 1 degrees of "
                "freedom); accuracy and macro-F1 over %s, KL of the final contributions to the data shares, Spearman: their rank "
                "correlation with the data shares (1: the same order; ties ranked by their mean rank), distance to Shapley: the cumulative KL distance to an exact FedSV run of the same partition and seed. Figures: "
                "the seed mean per round, the band from the smallest to the largest seed.</p>\n", H(window_phrase(R)));
    for (int c = 0; c < S->nconf; c++) {
        int m[MAXRUNS];
        int n = conf_runs(S, c, m, MAXRUNS);
        report_configuration(&S->runs[S->g[S->conf[c]].m[0]], conf, sizeof conf);
        seed_list(S, m, n, seeds, sizeof seeds);
        fprintf(md, "\n### %s\n\n<a id='conf-%d'></a>Seeds %s.\n", MD(conf), c + 1, seeds);
        fprintf(ht, "<h3 id='conf-%d'>%s</h3><p>Seeds %s.</p>\n", c + 1, H(conf), H(seeds));
        for (int v = 0; v < 2; v++) {
            int fh = 310, f = conf_rounds_figure(S, c, v, name, sizeof name, &fh);
            if (f < 0) continue;
            ok &= f;
            const char *what = v ? "FLCE and its ablations" : "Accuracy and KL per round";
            fprintf(md, "\n![%s: %s](%s.png) ([SVG](%s.svg))\n", what, MD(conf), name, name);
            fprintf(ht, "<img class='rounds' src='%s.svg' width='980' height='%d' alt='%s per round, %s'>\n", name, fh, what, H(conf));
        }
        /* the means table and FLCE's class contributions side by side in HTML (they wrap on a narrow screen) */
        fprintf(ht, "<div class='pair'><div>");
        conf_means(S, c, md, ht, cs);
        fprintf(ht, "</div>");
        int f = conf_class_figure(S, c, name, sizeof name);
        if (f >= 0) {
            ok &= f;
            fprintf(md, "\nFLCE's class contributions (the completed matrix, weighted by b_c, summed over rounds and clients): "
                        "![class contributions](%s.png) ([SVG](%s.svg))\n", name, name);
            fprintf(ht, "<figure><img src='%s.svg' width='330' height='%d' alt='class contributions, %s'><figcaption>FLCE's class "
                        "contributions: each class's share of the completed matrix (weighted by b_c), seed mean and range, against "
                        "the class weights' shares (grey)</figcaption></figure>", name, CLASS_FIG_H, H(conf));
        }
        fprintf(ht, "</div>\n");
        conf_paired(S, c, md, ht, pc);
    }
    if (cs) report_fclose(cs);
    if (pc) report_fclose(pc);
    return ok;
}

/* Each method's configurations that are not one over seeds, and the fields that set them apart. */
void report_configurations_apart(report *R) {
    seeds_ctx *S = R->S;
    run_t *runs = S->runs;
    report_group *g = S->g;
    FILE *md = R->md, *ht = R->ht;
    char lab[96], path[1400];
    int said = 0;
    for (int a = 0; a < S->ng; a++) {
        const run_t *ra = &runs[g[a].m[0]];
        report_base_label(ra, lab, sizeof lab);
        int first = 1, count = 1;
        for (int b = 0; b < a && first; b++) first = strcmp(report_base_label(&runs[g[b].m[0]], path, sizeof path), lab) != 0;
        if (!first) continue; /* said with the method's first configuration */
        char diff[600] = "", one[400];
        size_t used = 0;
        for (int b = a + 1; b < S->ng; b++) {
            const run_t *rb = &runs[g[b].m[0]];
            if (strcmp(report_base_label(rb, path, sizeof path), lab)) continue;
            count++;
            flce_run_differing(ra, rb, "seed", one, sizeof one);
            for (char *t = strtok(one, ", "); t; t = strtok(NULL, ", ")) { /* the union of the fields, once each */
                char pat[80];
                snprintf(pat, sizeof pat, "`%s`", t);
                if (!strstr(diff, pat)) flce_catf(diff, sizeof diff, &used, "%s%s", used ? ", " : "", pat);
            }
        }
        if (count < 2) continue;
        if (!said++) {
            fprintf(md, "\n## Configurations of one method\n");
            fprintf(ht, "<h2>Configurations of one method</h2>\n");
        }
        fprintf(md, "\n- %s: %d configurations, not one over seeds: they differ in %s.\n", lab, count, diff);
        fprintf(ht, "<p>%s: %d configurations, not one over seeds: they differ in %s.</p>\n", H(lab), count, H(diff));
    }
}
