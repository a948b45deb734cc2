/* report_released.c: the paper's text and its released code (issue 62; the plan in
 * docs/decisions.md, "The study under the released code"). Each run of the study is placed by the
 * departures its config.json records, counted only where its method has them (FLCE, FedAvg,
 * FedSV; docs/flce.md, "The released code"):
 *   (a) the text: none;
 *   (b) as released: every departure its method's released code has (the data's where the
 *       configuration has them: the balancing step where non-IID, the noise as made where noisy);
 *   (c) the text plus one departure: a training-side one run alone (the other methods then come
 *       from (a) on the same seed and partition), or an evaluation-side one on (a)'s own
 *       trajectories: FLCE's RUN/released/<departure>/ (scripts/released_eval.sh) and the
 *       baselines' L2 rule (contributions_rules.csv's l2_update).
 * A run with any other setting of these members is none of the study's and is left out here.
 * The claims, each judged by the study's rule (FLCE minus the baseline, paired over seeds, a
 * Student-t 95% interval; a comparison holds when its interval lies on the claim's side, fails
 * when on the other; the claim holds when every comparison holds, fails when one fails): FLCE's
 * accuracy and macro-F1 at least FedAvg's and FedSV's; FLCE's KL below FedAvg's under the text's
 * metric (KL to the data shares) and under the released one (flce_kl_minmax against uniform, or
 * against the quality reference where clients are noisy: the noise claim); the completion
 * helps (FLCE's KL below its KL without completion, RUN/released/nocmc). A departure flips a
 * claim where its verdict under (c) differs from (a)'s. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flce_eq.h"
#include "report.h"

enum { MAXC = 16, MAXS = REPORT_MAX_SEEDS, NM = 3, NCL = 5 };
enum { G_PROTO = 1, G_VEL = 2, G_ABSENT = 4, G_CLS = 8, G_INIT = 16, G_CMC = 32, G_SCHED = 64, G_LOCAL = 128, G_MEAN = 256,
       G_FEDSV = 512, G_BAL = 1024, G_NOISE = 2048, NG = 12 };
static const char *const METH[NM] = {"flce", "fedavg", "fedsv"};
static const unsigned RELEVANT[NM] = {G_PROTO | G_VEL | G_ABSENT | G_CLS | G_INIT | G_CMC | G_SCHED | G_LOCAL | G_BAL | G_NOISE,
                                      G_MEAN | G_LOCAL | G_BAL | G_NOISE, G_MEAN | G_LOCAL | G_SCHED | G_FEDSV | G_BAL | G_NOISE};
static const unsigned RELEASED[NM] = {G_PROTO | G_VEL | G_ABSENT | G_CLS | G_INIT | G_CMC | G_SCHED | G_LOCAL, G_MEAN | G_LOCAL,
                                      G_MEAN | G_LOCAL | G_SCHED | G_FEDSV};
/* the arms: (a), (b), one per training-side group, then the evaluation-side ones on (a) */
enum { A_TEXT, A_REL, A_G0, A_EVEL = A_G0 + NG, A_EABSENT, A_ENOCMC, A_EFIRST, A_EL2, NA };
static const char *const ARM[NA] = {"(a) the text", "(b) as released", "prototypes: first correct sample (trained)",
                                    "velocity unsquared (trained)", "absent classes forgotten (trained)", "L_CL times tau",
                                    "round 1's prototypes from the initial model", "no completion (trained)",
                                    "selection (FLCE's sweep; FedSV's window)", "local training: 50 steps, momentum, decay, clipping",
                                    "plain-mean aggregation", "FedSV's form: drawn players, test set, best coalition",
                                    "the partition's balancing step", "the noise as made (last 40%, (y + 1) mod C)",
                                    "velocity unsquared (evaluated)", "absent classes forgotten (evaluated)", "no completion (evaluated)",
                                    "prototypes: first correct sample (evaluated)", "baselines' L2 update rule"};
static const char *const EVAL_DIR[5] = {"velocity", "absent", "nocmc", "first", NULL};
static const char *const CLAIM[NCL] = {"FLCE's accuracy at least every baseline's", "FLCE's macro-F1 at least every baseline's",
                                       "FLCE's KL below FedAvg's (the text's metric: KL to the data shares)",
                                       "FLCE's KL below FedAvg's (the released metric: min-max KL to uniform, or to the quality reference where noisy)",
                                       "the completion helps (FLCE's KL below its KL without it)"};
/* the members a departure sets, with the text's value (NULL: the member is written only where
 * set) and the released code's; any other value: none of the study's */
static const struct {
    const char *key, *text, *rel;
    unsigned g;
} DEP[] = {{"prototypes", "correct", "first", G_PROTO},     {"velocity", "squared", "distance", G_VEL},
           {"absent_class", "keep", "forget", G_ABSENT},    {"cl_scale", "one", "tau", G_CLS},
           {"initial_prototypes", "none", "initial-model", G_INIT}, {"aggregation", "size", "mean", G_MEAN},
           {"players", "selected", "drawn", G_FEDSV},       {"utility_set", "validation", "test", G_FEDSV},
           {"next_model", "aggregate", "best", G_FEDSV},    {"dirichlet_balance", NULL, "yes", G_BAL},
           {"noisy_choice", NULL, "last", G_NOISE},         {"label_noise_map", NULL, "next", G_NOISE},
           {"feature_noise_std", NULL, "data", G_NOISE}};
/* the released local training's settings: any of them set is that departure */
static const char *const LOCAL[] = {"local_steps", "momentum", "weight_decay", "clip_norm"};
static const char *const DROP[] = {"seed", "algo", "prototypes", "velocity", "absent_class", "cl_scale", "initial_prototypes", "ablate",
                                   "schedule", "local_steps", "momentum", "weight_decay", "clip_norm", "aggregation", "players",
                                   "utility_set", "next_model", "dirichlet_balance", "noisy_choice", "label_noise_map",
                                   "feature_noise_std", "label_noise", "epochs"};

typedef struct {
    char *key;
    const run_t *any;
    int ns;
    unsigned long long seed[MAXS];
    int run[NA][NM][MAXS]; /* the run of each arm, method and seed; -1: none */
} rconf;

/* Whether arm a has a run of its own (a training-side arm that was run). */
static int c_has(const rconf *c, int a) {
    for (int m = 0; m < NM; m++)
        for (int s = 0; s < c->ns; s++)
            if (c->run[a][m][s] >= 0) return 1;
    return 0;
}

static int method_of(const run_t *r) {
    for (int m = 0; m < NM; m++)
        if (!strcmp(r->algo, METH[m])) return m;
    return -1;
}

/* The departures run r records (those of its method), or -1 where a member has a value that is
 * neither the text's nor the released code's. */
static int groups_of(const run_t *r, int m, unsigned *g) {
    *g = 0;
    for (size_t i = 0; i < sizeof DEP / sizeof DEP[0]; i++) {
        const char *v = flce_json_str(r->cfg, DEP[i].key);
        if (!v) continue;
        if (!strcmp(v, DEP[i].rel)) *g |= DEP[i].g;
        else if (!DEP[i].text || strcmp(v, DEP[i].text)) return -1;
    }
    const char *s = flce_json_str(r->cfg, "schedule");
    if (s && strcmp(s, m == 0 ? "sweep" : m == 2 ? "window" : "-")) return -1; /* the other's schedule: none of the study's */
    if (s) *g |= G_SCHED;
    for (int i = 0; i < 4; i++)
        if (!isnan(flce_json_num(r->cfg, LOCAL[i]))) *g |= G_LOCAL; /* any of the released local training's settings */
    if (strstr(r->ablate, "CMC")) *g |= G_CMC;
    if (r->ablate[0] && strcmp(r->ablate, "CMC")) return -1; /* M, V, Q, CL: the ablation study's */
    *g &= RELEVANT[m];
    return 0;
}

static int arm_of(const run_t *r, int m) {
    unsigned g;
    if (groups_of(r, m, &g)) return -1;
    unsigned data = (strcmp(r->partition, "iid") ? G_BAL : 0) | (r->label_noise > 0 || r->feature_noise > 0 ? G_NOISE : 0);
    if (!g) return A_TEXT;
    if (g == (RELEASED[m] | data)) return A_REL;
    if (m == 2 && g == (G_SCHED | G_FEDSV)) g = G_FEDSV; /* FedSV's released form includes its window */
    if (g & (g - 1)) return -1;                          /* two departures, not every one: none of the study's arms */
    for (int i = 0; i < NG; i++)
        if (g == 1u << i) return A_G0 + i;
    return -1;
}

/* The released code's departures run r was trained with, in words for its configuration's name
 * ("; as released", "; released local training"), so that the arms of the study are told apart
 * in every table; the prototypes' and the completion's are named elsewhere (reading_words, the
 * method's "-CMC"). Read from config.json whatever the method, so a method the departure does not
 * touch is named by it too; but a run folder's methods as released record each its own selection
 * (FLCE's sweep, FedSV's window, FedAvg's at random: three configurations, which once shared one
 * heading; issue 82), and the selection is named where one is recorded. No commas: the name is a
 * CSV field too. */
void report_released_words(const run_t *r, char *o, size_t cap, size_t *n) {
    static const char *const WORDS[NG] = {NULL, "unsquared velocity", "absent classes forgotten", "L_CL times tau",
                                          "round 1's prototypes from the initial model", NULL, "released selection",
                                          "released local training", "plain-mean aggregation", "FedSV's released form",
                                          "the partition's balancing step", "the noise as the code makes it"};
    if (!r->cfg) return;
    const char *sc = flce_json_str(r->cfg, "schedule"); /* the released selections' names only (a name holds no other text) */
    sc = sc && (!strcmp(sc, "sweep") || !strcmp(sc, "window")) ? sc : NULL;
    int m = method_of(r);
    if (m >= 0 && arm_of(r, m) == A_REL) {
        flce_catf(o, cap, n, "; as released");
        if (sc) flce_catf(o, cap, n, "; %s selection", sc);
        return;
    }
    unsigned g = 0;
    for (size_t i = 0; i < sizeof DEP / sizeof DEP[0]; i++) {
        const char *v = flce_json_str(r->cfg, DEP[i].key);
        if (v && !strcmp(v, DEP[i].rel)) g |= DEP[i].g;
    }
    if (flce_json_str(r->cfg, "schedule")) g |= G_SCHED;
    for (int i = 0; i < 4; i++)
        if (!isnan(flce_json_num(r->cfg, LOCAL[i]))) g |= G_LOCAL;
    if (g & G_FEDSV) g &= ~(unsigned)G_SCHED; /* FedSV's released form includes its window */
    for (int i = 0; i < NG; i++)
        if ((g >> i & 1) && WORDS[i]) {
            if (1u << i == G_SCHED && sc) flce_catf(o, cap, n, "; released %s selection", sc); /* FLCE's sweep and FedSV's window told apart */
            else flce_catf(o, cap, n, "; %s", WORDS[i]);
        }
}

/* The study's configurations: those with a run as released (every other run without departures
 * is an arm (a) of nothing), named by a run of (a) where there is one; then every arm's runs of
 * them. */
static int collect(report *R, rconf *cf) {
    int nc = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < R->nr; i++) {
            const run_t *r = &R->runs[i];
            int m = method_of(r), a = m < 0 || !r->cfg ? -1 : arm_of(r, m);
            if (a < 0 || (pass == 0 && a != A_REL)) continue;
            char *key = flce_run_key(r, DROP, (int)(sizeof DROP / sizeof DROP[0]));
            if (!key) return -1;
            int k = 0;
            while (k < nc && strcmp(cf[k].key, key)) k++;
            if (pass == 0) { /* a configuration of the study */
                if (k < nc) free(key);
                else if (nc == MAXC) {
                    free(key);
                    report_over(R, "the released code's section: more than %d configurations", MAXC);
                    return nc;
                } else {
                    memset(&cf[nc], 0, sizeof cf[nc]);
                    memset(cf[nc].run, -1, sizeof cf[nc].run);
                    cf[nc].key = key, cf[nc].any = r, nc++;
                }
                continue;
            }
            free(key);
            if (k == nc) continue; /* none of the study's configurations */
            rconf *c = &cf[k];
            int s = 0;
            while (s < c->ns && c->seed[s] != r->seed) s++;
            if (s == c->ns) {
                if (c->ns == MAXS) {
                    report_over(R, "the released code's section: more than %d seeds of a configuration", MAXS);
                    continue;
                }
                c->seed[c->ns++] = r->seed;
            }
            if (c->run[a][m][s] < 0) c->run[a][m][s] = i; /* a repeat of the same run: the first */
            if (a == A_TEXT && c->any->cfg && arm_of(c->any, method_of(c->any)) != A_TEXT) c->any = r;
        }
    return nc;
}

/* The value a claim compares, of method m in arm a on seed s: the run (its arm's, else (a)'s)
 * and its contributions (the evaluation-side arms': the evaluation's; the L2 rule's for
 * FedAvg under (b) and the L2 arm). NaN where absent. */
static const run_t *member(report *R, const rconf *c, int a, int m, int s) {
    int i = a >= A_EVEL ? -1 : c->run[a][m][s], own = 0; /* own: the arm trains this method (on some seed) */
    for (int q = 0; a != A_TEXT && a < A_EVEL && q < c->ns; q++) own |= c->run[a][m][q] >= 0;
    if (i < 0 && a != A_REL && !own) i = c->run[A_TEXT][m][s]; /* a method the arm does not train: the text's */
    return i < 0 ? NULL : &R->runs[i];
}

/* FLCE run r's evaluation RUN/released/<dep>/contributions.csv into out (0 where absent): only
 * an evaluation of this run with the flags its name says (flce_run_released_eval_ok); another is
 * a damaged input (the report fails naming it), never read as this departure's. */
static int released_csv(report *R, const run_t *r, const char *dep, double *out) {
    char p[1300], why[300];
    snprintf(p, sizeof p, "%s/released/%s/contributions.csv", r->dir, dep);
    if (access(p, F_OK)) { /* not made; or its folder there without it: unfinished or damaged, never read as not made */
        struct stat sb;
        snprintf(p, sizeof p, "%s/released/%s", r->dir, dep);
        if (lstat(p, &sb) == 0) report_damaged(R, "%s: no contributions.csv (an evaluation unfinished or damaged; scripts/released_eval.sh makes it again)", p);
        return 0;
    }
    if (!flce_run_released_eval_ok(r, dep, why, sizeof why)) {
        report_damaged(R, "%s/released/%s: %s", r->dir, dep, why);
        return 0;
    }
    return report_client_csv(R, r, p, 1, out);
}

static int contributions(report *R, const rconf *c, int a, int m, int s, double *out) {
    const run_t *r = member(R, c, a, m, s);
    if (!r) return 0;
    char p[1300];
    if (m == 0 && a >= A_EVEL && a <= A_EFIRST) return released_csv(R, r, EVAL_DIR[a - A_EVEL], out);
    if (m == 1 && (a == A_REL || a == A_EL2)) {
        snprintf(p, sizeof p, "%s/contributions_rules.csv", r->dir);
        return report_client_csv(R, r, p, 5, out); /* l2_update: the fifth reading */
    }
    memcpy(out, r->contrib, sizeof *out * (size_t)r->clients);
    return 1;
}

/* What decided a verdict: the fewest seeds a comparison had, and the comparison furthest from the
 * claim (the lowest end of its interval): its mean paired difference, half-width and baseline. */
typedef struct {
    int nmin;
    double mean, half;
    const char *vs;
    report_decide dec; /* what deciding would take (report_stats.h) */
} judged;

/* The claim's comparisons in arm a: each baseline's paired differences, in the claim's direction
 * (> 0: as claimed), over the seeds; the claim's verdict returned (1 holds, -1 fails, 0
 * inconclusive, 2 nothing to compare), what decided it in *j. */
static int judge(report *R, const rconf *c, int a, int cl, FILE *csv, const char *conf, judged *j) {
    j->nmin = 0, j->mean = j->half = NAN, j->vs = NULL, j->dec = (report_decide){0};
    if (cl == 4 && (a == A_REL || a == A_G0 + 5 || a >= A_EVEL)) return 2; /* no completion there to judge (or no evaluation of it) */
    int nb = cl <= 1 ? 2 : 1, verdict = 1, any = 0, nfew = MAXS + 1;
    /* the configuration as the arm's FLCE runs ran it (as released, the noise is the released
     * code's: its rows once carried (a)'s "noise L0.3" where they ran at label noise 1) */
    char confa[200];
    const run_t *F0 = NULL;
    for (int s = 0; s < c->ns && !F0; s++) F0 = member(R, c, a, 0, s);
    if (F0) conf = report_configuration_base(F0, confa, sizeof confa);
    for (int b = 1; b <= nb; b++) {
        double d[MAXS];
        int n = 0;
        for (int s = 0; s < c->ns; s++) {
            const run_t *F = member(R, c, a, 0, s), *B = cl == 4 ? F : member(R, c, a, b, s);
            if (!F || !B || strcmp(F->partdig, B->partdig)) continue;
            double x = NAN;
            if (cl == 0) x = F->fin_acc - B->fin_acc;
            else if (cl == 1) x = F->fin_f1 - B->fin_f1;
            else {
                double *cf = malloc(sizeof *cf * (size_t)F->clients), *cb = malloc(sizeof *cb * (size_t)F->clients);
                int ok = cf && cb && contributions(R, c, a, 0, s, cf);
                if (ok && cl == 4) ok = released_csv(R, F, "nocmc", cb);
                else if (ok) ok = contributions(R, c, a, b, s, cb);
                if (ok) x = cl == 3 ? flce_run_kl_released(B, cb) - flce_run_kl_released(F, cf) : report_kl_to_shares(B, cb) - report_kl_to_shares(F, cf);
                free(cf), free(cb);
            }
            if (!isnan(x)) d[n++] = x;
        }
        if (n < nfew) nfew = n; /* a comparison without seeds counts: the verdict then rests on part of the arm */
        if (!n) continue;
        any = 1;
        double mean, half;
        report_mean_ci(d, n, &mean, &half);
        double low = n >= 2 ? mean - half : mean;
        if (!j->vs || low < (isnan(j->half) ? j->mean : j->mean - j->half))
            j->mean = mean, j->half = half, j->vs = cl == 4 ? "without completion" : b == 1 ? "FedAvg" : "FedSV";
        int v = n >= 2 && mean - half > 0 ? 1 : n >= 2 && mean + half < 0 ? -1 : 0;
        if (v < 0) verdict = -1;
        else if (v == 0 && verdict > 0) verdict = 0;
        char nm[64];
        snprintf(nm, sizeof nm, "%s%s", cl == 4 ? "" : "against ", cl == 4 ? "without completion" : b == 1 ? "FedAvg" : "FedSV");
        report_decide_add(&j->dec, mean, half, n, v, nm);
        if (csv) {
            fprintf(csv, "%s,%s,%s,%s,%.10g,%.10g,%d,%s", csv_q(CLAIM[cl]), csv_q(conf), csv_q(ARM[a]),
                    cl == 4 ? "without completion" : METH[b], mean, half, n,
                    v > 0 ? "holds" : v < 0 ? "fails" : "inconclusive");
            report_power_t pw = report_power(mean, half, n);
            report_power_csv(csv, &pw);
            fputc('\n', csv);
        }
    }
    j->nmin = any ? nfew : 0;
    return any ? verdict : 2;
}

static const char *word(int v) { return v == 1 ? "holds" : v == -1 ? "does not hold" : v == 0 ? "inconclusive" : "n/a"; }

/* A verdict with what decided it: "holds (+0.012 +- 0.004 against FedAvg)", the seeds where fewer
 * than the configuration's. */
static void verdict_text(char *o, size_t cap, int v, const judged *j, int ns, const char *tail) {
    size_t l = 0;
    o[0] = '\0';
    flce_catf(o, cap, &l, "%s%s", word(v), tail);
    if (v == 2 || !j->vs) return;
    if (isnan(j->half)) flce_catf(o, cap, &l, " (%+.3g against %s", j->mean, j->vs);
    else flce_catf(o, cap, &l, " (%+.3g +- %.2g against %s", j->mean, j->half, j->vs);
    if (j->nmin < ns) flce_catf(o, cap, &l, "; %d of the %d seeds", j->nmin, ns);
    char dw[96];
    if (v == 0 && report_decide_words(&j->dec, 3, dw, sizeof dw)[0]) flce_catf(o, cap, &l, "; %s", dw);
    flce_catf(o, cap, &l, ")");
}

/* The diagnostic "Without completion" (docs/decisions.md): FLCE's KL to the data shares without
 * completion in arm a on seed s: (a)'s and a trained arm's released/nocmc evaluation, (b)'s own
 * contributions (it has no completion), an evaluation-side departure's released/nocmc-<dep> on
 * (a)'s trajectory. NaN where absent, and for an arm that does not train FLCE. */
static double kl_nocmc(report *R, const rconf *c, int a, int s) {
    static const char *const COMBO[] = {"nocmc-velocity", "nocmc-absent", NULL, "nocmc-first", NULL};
    int i = a >= A_EVEL ? c->run[A_TEXT][0][s] : c->run[a][0][s];
    if (i < 0 || (a >= A_EVEL && !COMBO[a - A_EVEL])) return NAN;
    const run_t *F = &R->runs[i];
    double *v = malloc(sizeof *v * (size_t)F->clients), k = NAN;
    if (!v) return NAN;
    int ok = 1;
    if (a == A_REL) memcpy(v, F->contrib, sizeof *v * (size_t)F->clients);
    else ok = released_csv(R, F, a >= A_EVEL ? COMBO[a - A_EVEL] : "nocmc", v);
    if (ok) k = report_kl_to_shares(F, v);
    free(v);
    return k;
}

/* The table "Without completion": per configuration, FLCE's KL without completion under (a), and
 * each other arm's difference from it paired by seed; released_nocmc.csv. */
static void without_completion(report *R, const rconf *cf, int nc) {
    int any = 0;
    for (int k = 0; k < nc && !any; k++)
        for (int s = 0; s < cf[k].ns && !any; s++) any = !isnan(kl_nocmc(R, &cf[k], A_TEXT, s));
    if (!any) return;
    FILE *md = R->md, *ht = R->ht, *csv = NULL;
    char p[1200];
    snprintf(p, sizeof p, "%s/released_nocmc.csv", R->out);
    if ((csv = report_fopen(p)))
        fprintf(csv, "configuration,arm,kl_mean,n_kl,difference_from_text,half_width_95,n_pairs,reading,sd,detectable_difference,"
                     "seeds_to_decide\n");
    fprintf(md, "\n### Without completion: which departure moves FLCE's KL\n\n");
    fprintf(ht, "<h3>Without completion: which departure moves FLCE's KL</h3>\n");
    report_para(md, ht,
                "A diagnostic, not one of the claims (docs/decisions.md): the released FLCE has no completion, so its KL to the data "
                "shares is set beside the text's FLCE without completion (its trace evaluated with --ablate CMC), and so is each "
                "departure alone without completion: a trained arm's trace evaluated with --ablate CMC, an evaluation-side departure "
                "evaluated with --ablate CMC on (a)'s trajectory. Each arm's difference from (a), paired by seed, with its 95% "
                "interval: **lowers it** where the interval lies below 0, **raises it** where above, and beside no clear change what "
                "deciding would take (as the claims': the seeds at the observed difference and spread, or the difference the seeds "
                "run detect). The balancing step and the released "
                "noise make another partition, so their KL is to that partition's data shares. Numbers: released_nocmc.csv.");
    static const char *h[] = {"configuration", "arm", "FLCE's KL without completion", "minus (a)'s, paired", "reading"};
    rtable t;
    rt_begin_class(&t, md, ht, "small", 5, h);
    for (int k = 0; k < nc; k++) {
        const rconf *c = &cf[k];
        char conf[200];
        report_configuration_base(c->any, conf, sizeof conf);
        int first = 1, has_a = 0;
        for (int s = 0; s < c->ns; s++) has_a |= !isnan(kl_nocmc(R, c, A_TEXT, s));
        if (!has_a) { /* nothing to set the arms beside */
            rt_row_begin(&t, NULL);
            rt_cell(&t, conf, NULL, NULL, 0), rt_cell(&t, "(a) the text", NULL, NULL, 0);
            rt_cell(&t, "not evaluated without completion (scripts/released_eval.sh)", NULL, NULL, 0);
            rt_cell(&t, "", NULL, NULL, 0), rt_cell(&t, "", NULL, NULL, 0);
            rt_row_end(&t);
            continue;
        }
        for (int a = A_TEXT; a < NA; a++) {
            double kl[MAXS], d[MAXS];
            int nk = 0, nd = 0;
            for (int s = 0; s < c->ns; s++) {
                double x = kl_nocmc(R, c, a, s), x0 = kl_nocmc(R, c, A_TEXT, s);
                if (isnan(x)) continue;
                kl[nk++] = x;
                if (!isnan(x0) && a != A_TEXT) d[nd++] = x - x0;
            }
            if (!nk) continue;
            char ks[64], ds[64] = "", rd[64] = "", rdw[160] = "";
            report_fmt_ci(ks, sizeof ks, kl, nk, 4);
            double m = NAN, hw = NAN;
            report_power_t pw = report_power(NAN, NAN, 0); /* what deciding would take (issue 80): none for (a) */
            if (nd) {
                report_mean_ci(d, nd, &m, &hw);
                report_fmt_ci(ds, sizeof ds, d, nd, 4);
                int clear = nd >= 2 && (m + hw < 0 || m - hw > 0);
                snprintf(rd, sizeof rd, "%s", nd >= 2 && m + hw < 0 ? "lowers it" : nd >= 2 && m - hw > 0 ? "raises it" : "no clear change");
                if (nd < c->ns) snprintf(rd + strlen(rd), sizeof rd - strlen(rd), " (%d of the %d seeds)", nd, c->ns);
                pw = report_power(m, hw, nd);
                char w[96];
                snprintf(rdw, sizeof rdw, "%s", rd);
                if (!clear && report_power_words(&pw, nd, 4, w, sizeof w)[0])
                    snprintf(rdw + strlen(rdw), sizeof rdw - strlen(rdw), "; %s", w);
            }
            const char *arm = a == A_TEXT ? "(a) the text" : a == A_REL ? "(b) as released" : ARM[a];
            rt_row_begin(&t, NULL);
            rt_cell(&t, first ? conf : "", NULL, NULL, 0), rt_cell(&t, arm, NULL, NULL, 0), rt_cell(&t, ks, NULL, NULL, 0);
            rt_cell(&t, a == A_TEXT ? "" : ds, NULL, NULL, 0), rt_cell(&t, rdw, NULL, NULL, 0);
            rt_row_end(&t);
            first = 0;
            if (csv) {
                double km, kh;
                report_mean_ci(kl, nk, &km, &kh);
                if (a == A_TEXT || !nd) fprintf(csv, "%s,%s,%.10g,%d,,,0,", csv_q(conf), csv_q(arm), km, nk);
                else fprintf(csv, "%s,%s,%.10g,%d,%.10g,%.10g,%d,%s", csv_q(conf), csv_q(arm), km, nk, m, hw, nd, rd);
                report_power_csv(csv, &pw);
                fputc('\n', csv);
            }
        }
    }
    rt_end(&t);
    if (csv) report_fclose(csv);
}

int report_released(report *R) {
    rconf *cf = calloc(MAXC, sizeof *cf);
    if (!cf) return 0;
    int nc = collect(R, cf), any = 0;
    for (int k = 0; k < nc && !any; k++) /* the study's runs: FLCE as released beside the text */
        for (int s = 0; s < cf[k].ns && !any; s++) any = cf[k].run[A_REL][0][s] >= 0 && cf[k].run[A_TEXT][0][s] >= 0;
    if (nc <= 0 || !any) {
        for (int k = 0; k < nc; k++) free(cf[k].key);
        free(cf);
        return nc >= 0;
    }
    FILE *md = R->md, *ht = R->ht, *csv = NULL;
    char p[1200];
    snprintf(p, sizeof p, "%s/released_claims.csv", R->out);
    if ((csv = report_fopen(p))) fprintf(csv, "claim,configuration,arm,comparison,mean_difference,half_width_95,n,verdict,sd,"
                                               "detectable_difference,seeds_to_decide\n");
    fprintf(md, "\n## The paper's text and its released code\n\n");
    fprintf(ht, "<h2>The paper's text and its released code</h2>\n");
    report_para(md, ht,
                "The authors' released code (Yao-Learning/FLCE) computes FLCE and its baselines differently from the paper's text at the "
                "points docs/flce.md tabulates. Each claim is judged under (a) the text, (b) every departure as released, and (c) the "
                "text with one departure alone, trained (its other methods from (a) on the same seeds) or evaluated on (a)'s own "
                "trajectories. The rule is the study's: FLCE minus each baseline, paired over seeds, a 95% interval; a claim holds when "
                "every comparison lies on its side. A departure **flips** a claim where its verdict differs from (a)'s; the released "
                "code **produces** a claim that holds under (b) and not under (a). Under (b) FLCE runs without completion, as released, "
                "and FedAvg's contributions are scored by the released L2 rule. An arm compares FLCE with the baselines it trains "
                "itself and takes the others from (a).");
    int local = 0; /* the local-training arm (G_LOCAL) run anywhere */
    for (int k = 0; k < nc; k++) local |= c_has(&cf[k], A_G0 + __builtin_ctz(G_LOCAL));
    if (local)
        report_para(md, ht, "The released local training's arm trains FLCE and FedAvg (the plan, docs/decisions.md), so its "
                            "comparisons against FedSV set 50 local steps against the text's one epoch and are not like for like: "
                            "that arm's verdicts rest on FedAvg.");
    static const char *h[] = {"configuration", "claim", "(a) the text", "(b) as released", "departures that flip it"};
    rtable t;
    rt_begin_class(&t, md, ht, "small", 5, h);
    for (int k = 0; k < nc; k++) {
        char conf[200];
        report_configuration_base(cf[k].any, conf, sizeof conf);
        int noisy = cf[k].any->label_noise > 0 || cf[k].any->feature_noise > 0, ns = cf[k].ns;
        for (int cl = 0; cl < NCL; cl++) {
            judged ja, jb;
            int va = judge(R, &cf[k], A_TEXT, cl, csv, conf, &ja), vb = judge(R, &cf[k], A_REL, cl, csv, conf, &jb);
            char flips[1500] = "";
            size_t fl = 0;
            for (int a = A_G0; a < NA && va != 2; a++) { /* the arms run, and the evaluations made (2: none) */
                if (a < A_EVEL && !c_has(&cf[k], a)) continue;
                judged jc;
                int v = judge(R, &cf[k], a, cl, csv, conf, &jc), n = jc.nmin;
                if (v == 2 || v == va) continue;
                flce_catf(flips, sizeof flips, &fl, "%s%s (%s", fl ? "; " : "", ARM[a], word(v));
                if (n < ns) flce_catf(flips, sizeof flips, &fl, "; %d of the %d seeds", n, ns); /* a part of the arm so far */
                flce_catf(flips, sizeof flips, &fl, ")");
            }
            char vas[280], vbs[300], claim[300];
            verdict_text(vas, sizeof vas, va, &ja, ns, "");
            verdict_text(vbs, sizeof vbs, vb, &jb, ns, vb == 1 && va != 1 ? " (produced)" : "");
            /* where clients are noisy the KL claims are the noise claim (the contributions' distance
             * from the data shares, or from the released quality reference: 1 for clean clients, 1e-6
             * for label noise, 0.32 for feature noise alone; flce_run_kl_released) */
            if (noisy && cl == 3)
                snprintf(claim, sizeof claim, "the noise claim: FLCE's KL below FedAvg's (the released metric: min-max KL to the "
                         "quality reference, 1 for clean clients and %s for noisy ones)",
                         cf[k].any->label_noise > 0 ? "1e-6" : "0.32 (feature noise)");
            else snprintf(claim, sizeof claim, "%s%s", noisy && cl == 2 ? "the noise claim: " : "", CLAIM[cl]);
            rt_row_begin(&t, NULL);
            rt_cell(&t, cl ? "" : conf, NULL, NULL, 0), rt_cell(&t, claim, NULL, NULL, 0);
            rt_cell(&t, vas, NULL, va == 1 ? "holds" : va == -1 ? "fails" : NULL, 0);
            rt_cell(&t, vbs, NULL, vb == 1 ? "holds" : vb == -1 ? "fails" : NULL, 0);
            rt_cell(&t, va == 2 ? "(a) not judged" : fl ? flips : "none", NULL, NULL, 0);
            rt_row_end(&t);
        }
    }
    rt_end(&t);
    report_para(md, ht, "Each comparison's numbers: released_claims.csv (claim, configuration, arm, the baseline, the mean paired "
                        "difference in the claim's direction, positive as claimed: FLCE minus the baseline for accuracy and "
                        "macro-F1, the baseline's KL minus FLCE's for the KL claims, FLCE's KL without completion minus its KL for "
                        "the completion; its 95% half-width, the seeds, the comparison's verdict; what deciding would take: the spread "
                        "of one seed's difference, the smallest difference the seeds run detect with probability 0.8, the seeds a new "
                        "study would need at this difference and spread, a plug-in estimate).");
    if (csv) report_fclose(csv);
    without_completion(R, cf, nc);
    for (int k = 0; k < nc; k++) free(cf[k].key);
    free(cf);
    return 1;
}
