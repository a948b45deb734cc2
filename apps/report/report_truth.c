/* report_truth.c: "Against the retrained ground truth" (issue 63): every method's final
 * contributions, and the trivial rules, judged against a truth folder of `flce truth` on the same
 * federation (the partition's digest must match): Spearman and Pearson correlation with exact
 * Shapley, Spearman with Banzhaf and leave-one-out, KL of the method's shares to the Shapley
 * shares (negatives clamped), agreement of the top and bottom quarter, and the removal curves
 * read from the table: v(N minus the k clients the method values most), k = 0..n-1, and the same
 * for the least, with their means (the areas over k). The truth's own spread over its seeds
 * beside them. Over several truths of one configuration (their flags equal but --seed): means and
 * 95% intervals, and the paper's effectiveness claim by the paired-seed rule: FLCE's Spearman
 * with Shapley minus FedAvg's, the interval above 0. Everything from the files: values.csv and
 * utilities.csv of the truth, contributions.csv and round_contributions.csv of the runs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attacks.h"
#include "flce_eq.h"
#include "json.h"
#include "report.h"
#include "values.h"

#define TR_MAX_N 16 /* the report judges against full tables (exact Shapley) and loo ones up to 32 */
#define TR_MAX_GROUPS 16 /* configurations (truths' flags but --seed) judged over their seeds */

typedef struct report_truth {
    char dir[1024], part[17], key[4096], utility[24];
    int n, all, R;
    int fmt;       /* truth_format: 1, or 2 (each row of utilities.csv names its settings' digest) */
    char sdig[17]; /* format 2: the settings' digest from truth.json (cmd_truth.c settings_digest) */
    flce_attack att[FLCE_MAX_ATTACKS]; /* its run_flags' --attack KIND:CLIENT[:STRENGTH], parsed (docs/attacks.md) */
    int natt;
    int per_round, rounds, full;               /* its runs' K and T; full: --participation full (every member every round) */
    int sampled;                               /* --coalitions sample:M: Shapley and Banzhaf estimated (no removal curves) */
    unsigned long long seed;
    double *v, *vsd;                           /* [2^n] (all) the seeds' mean utility and its spread; NaN where absent */
    double shap[32], banz[32], loo[32], alone[32], shap_sd[32];
    double mean_vsd;                           /* mean over the coalitions of v's spread over the seeds (NaN: one seed) */
    double seed_sp;                            /* all coalitions, R > 1: the mean over pairs of seeds of the Spearman
                                                  correlation of the Shapley values of each seed's own table (else NaN) */
} truth_t;

static void truth_free(truth_t *t) {
    free(t->v), free(t->vsd);
    memset(t, 0, sizeof *t);
}

/* One number of a CSV row (empty: NaN); 0 when the field is not a number. */
static int field_num(const char *s, double *x) {
    if (!*s) return *x = NAN, 1;
    return flce_number(s, x) == NULL;
}

/* Split line (its end of line removed) at commas into f (at most cap fields); how many. */
static int split_csv(char *line, char **f, int cap) {
    int n = 0;
    line[strcspn(line, "\r\n")] = '\0';
    for (char *q = line, *c;; q = c + 1) {
        if (n < cap) f[n++] = q;
        if (!(c = strchr(q, ','))) break;
        *c = '\0';
    }
    return n;
}

/* values.csv against the values the table gives (x: Shapley, Banzhaf, leave-one-out, alone of
 * the seeds' mean utilities; only loo and alone where !sv): each within 1e-8 of the utilities'
 * scale (values.csv holds 9 digits), or 1 naming the first client that differs: a values.csv
 * edited, or another table's, is never judged by. When they agree, the table's values, at full
 * precision, replace values.csv's in t: the scores are computed from them, never from 9 digits. */
static int values_agree(truth_t *t, const char *dir, double x[4][32], int sv, double scale, char *err, size_t cap) {
    static const char *const name[4] = {"shapley", "banzhaf", "loo", "alone"};
    double *got[4] = {t->shap, t->banz, t->loo, t->alone};
    for (int k = sv ? 0 : 2; k < 4; k++)
        for (int i = 0; i < t->n; i++)
            if (!(fabs(got[k][i] - x[k][i]) <= 1e-8 * scale))
                return snprintf(err, cap, "%s/values.csv: client %d's %s is %.9g, and utilities.csv gives %.9g: edited, or another table's", dir, i,
                                name[k], got[k][i], x[k][i]), 1;
    for (int k = sv ? 0 : 2; k < 4; k++) memcpy(got[k], x[k], sizeof(double) * (size_t)t->n);
    return 0;
}

/* utilities.csv of a truth, read back. */
typedef struct {
    int count;      /* coalitions */
    uint32_t *mask; /* [count]: a full table's (t->all) is its index; a partial one's in the order met */
    double *sum;    /* [count]: the utility (the truth's column; losses negated, so that more is better) summed over its rows */
    double *s2;     /* [count]: the sum of squares */
    int *rows;      /* [count]: its rows */
    uint32_t *seen; /* [count]: bit r set once its row of train seed seed + r is read (R <= 32) */
    double *per;    /* a full table only: [R][count], each train seed's utility (as sum's sign), or NULL */
} utilities_t;

static void utilities_free(utilities_t *u) {
    free(u->mask), free(u->sum), free(u->s2), free(u->rows), free(u->seen), free(u->per);
    memset(u, 0, sizeof *u);
}

/* A row's fields as flce truth writes them, past the mask and train seed read by the caller: a
 * whole mask of n clients, its members listed (ascending, ';'), the four measures numbers (or
 * printf's nan and inf: a training that diverged), a model digest of 16 hex digits. A row with a
 * mask of 3.5, other members or a digest ZZZ was once read as good. */
static int row_fields_ok(char **fd, double mk, int n) {
    char want[512] = "";
    size_t len = 0;
    if (mk != floor(mk)) return 0;
    for (int i = 0; i < n; i++)
        if ((uint64_t)mk >> i & 1) len += (size_t)snprintf(want + len, sizeof want - len, "%s%d", len ? ";" : "", i);
    if (strcmp(fd[1], want)) return 0;
    for (int c = 3; c <= 6; c++) {
        double x;
        const char *v = fd[c] + (fd[c][0] == '-');
        if (!(field_num(fd[c], &x) && fd[c][0]) && strcmp(v, "nan") && strcmp(v, "inf")) return 0;
    }
    return strlen(fd[7]) == 16 && strspn(fd[7], "0123456789abcdef") == 16;
}

/* One line of f into buf (up to and with its newline, at most cap - 1 bytes, NUL bytes kept): its
 * length, 0 at the end of the file (fgets's string ends at a NUL byte: a row with one was read as
 * the text before it). */
static size_t read_line(FILE *f, char *buf, size_t cap) {
    size_t n = 0;
    for (int c; n + 1 < cap && (c = getc(f)) != EOF;)
        if ((buf[n++] = (char)c) == '\n') break;
    buf[n] = '\0';
    return n;
}

/* Read p (a truth's utilities.csv) into u: 0, or 1 with why in err (missing, a damaged row, a
 * mask out of range, a coalition not R times, out of memory). The caller frees u, also on
 * failure. */
static int utilities_read(const truth_t *t, const char *p, utilities_t *u, char *err, size_t cap) {
    char line[2048];
    size_t M = (size_t)1 << t->n, room = t->all ? M : 64;
    u->count = 0, u->mask = malloc(sizeof(uint32_t) * room), u->sum = calloc(room, sizeof(double));
    u->s2 = calloc(room, sizeof(double)), u->rows = calloc(room, sizeof(int)), u->seen = calloc(room, sizeof(uint32_t));
    if (t->all) u->per = calloc(room * (size_t)t->R, sizeof(double));
    if (!u->mask || !u->sum || !u->s2 || !u->rows || !u->seen || (t->all && !u->per)) return snprintf(err, cap, "out of memory"), 1;
    if (t->all)
        for (size_t m = 0; m < M; m++) u->mask[m] = (uint32_t)m;
    size_t nm = t->all ? M : 0;
    FILE *f = flce_fopen_input(p);
    if (!f) return snprintf(err, cap, "%s: %s", p, flce_input_why[0] ? flce_input_why : "missing"), 1;
    size_t len = read_line(f, line, sizeof line);
    int ln = 1, bad = !len || memchr(line, '\0', len) ||
              strcmp(line, t->fmt == 2 ? "mask,members,train_seed,accuracy,loss,accuracy_window,loss_window,model_digest,settings\n"
                                       : "mask,members,train_seed,accuracy,loss,accuracy_window,loss_window,model_digest\n");
    int col = !strcmp(t->utility, "accuracy") ? 3 : !strcmp(t->utility, "accuracy-window") ? 5 : !strcmp(t->utility, "loss") ? 4 : 6;
    double sign = col == 4 || col == 6 ? -1 : 1;
    while (!bad && (len = read_line(f, line, sizeof line))) {
        ln++;
        if (memchr(line, '\0', len)) { /* damage, wherever it is: the text before it is no row */
            fclose(f);
            return snprintf(err, cap, "%s line %d: damaged (a NUL byte in it)", p, ln), 1;
        }
        char *fd[10];
        int nf = split_csv(line, fd, 10);
        double mk, x, ts;
        /* format 2: a row trained under other settings (another truth's) is damage, never read as this one's */
        if (t->fmt == 2 && nf == 9 && (strlen(fd[8]) != 16 || strspn(fd[8], "0123456789abcdef") != 16)) {
            fclose(f);
            return snprintf(err, cap, "%s line %d: damaged (its last field, the settings digest, is not 16 hex digits)", p, ln), 1;
        }
        if (t->fmt == 2 && nf == 9 && strcmp(fd[8], t->sdig)) {
            fclose(f);
            return snprintf(err, cap, "%s: a row of coalition %s trained under other settings (settings %.16s, this truth's %s): another truth's "
                            "row", p, fd[0], fd[8], t->sdig), 1;
        }
        bad |= nf != (t->fmt == 2 ? 9 : 8) || !field_num(fd[0], &mk) || !field_num(fd[2], &ts) || !field_num(fd[col], &x) || !(mk >= 0 && mk < (double)M) ||
               !isfinite(x) || !(ts >= (double)t->seed && ts < (double)t->seed + t->R) || ts != floor(ts) || /* one of the truth's train seeds */
               !row_fields_ok(fd, mk, t->n);
        if (bad) break;
        size_t k = (size_t)mk;
        if (!t->all) { /* a partial table: the slot of this mask, a new one when it is not there */
            for (k = 0; k < nm && u->mask[k] != (uint32_t)mk; k++) {}
            if (k == nm && nm == room) {
                room *= 2;
                uint32_t *m2 = realloc(u->mask, sizeof(uint32_t) * room);
                if (m2) u->mask = m2;
                double *v2 = m2 ? realloc(u->sum, sizeof(double) * room) : NULL;
                if (v2) u->sum = v2;
                double *q2 = v2 ? realloc(u->s2, sizeof(double) * room) : NULL;
                if (q2) u->s2 = q2;
                int *c2 = q2 ? realloc(u->rows, sizeof(int) * room) : NULL;
                if (c2) u->rows = c2;
                uint32_t *s2 = c2 ? realloc(u->seen, sizeof(uint32_t) * room) : NULL;
                if (s2) u->seen = s2;
                if (!s2) {
                    fclose(f);
                    return snprintf(err, cap, "out of memory"), 1;
                }
            }
            if (k == nm) u->mask[nm] = (uint32_t)mk, u->sum[nm] = 0, u->s2[nm] = 0, u->rows[nm] = 0, u->seen[nm] = 0, nm++;
        }
        uint32_t bit = (uint32_t)1 << (int)(ts - (double)t->seed); /* each coalition once a train seed: R rows of R seeds */
        bad |= (u->seen[k] & bit) != 0;
        if (bad) break;
        u->seen[k] |= bit, u->sum[k] += sign * x, u->s2[k] += x * x, u->rows[k]++;
        if (u->per) u->per[(size_t)(ts - (double)t->seed) * room + k] = sign * x;
    }
    fclose(f);
    u->count = (int)nm;
    for (size_t k = 0; k < nm && !bad; k++) bad |= u->rows[k] != t->R;
    if (bad) return snprintf(err, cap, "%s: damaged or unfinished (each coalition once for each of its %d train seed%s, numbers)", p, t->R,
                        t->R == 1 ? "" : "s"), 1;
    return 0;
}

/* The spread of a coalition's utility over the truth's R seeds (R > 1): the sample standard
 * deviation from the sum of the squares and the mean. */
static double seed_sd(double sum_sq, double mean, int R) { return sqrt(fmax(0, (sum_sq - R * mean * mean) / (R - 1))); }

/* A leave-one-out or sampled truth: leave-one-out and alone (and the sampled estimates) from the
 * coalitions' mean utilities (each coalition R times in utilities.csv) checked against
 * values.csv; 0, or 1 with why in err. */
static int partial_check(truth_t *t, const char *dir, char *err, size_t cap) {
    char p[1200];
    snprintf(p, sizeof p, "%s/utilities.csv", dir);
    utilities_t u = {0};
    double scale = 1;
    int rc = utilities_read(t, p, &u, err, cap);
    if (!rc) {
        double x[4][32];
        flce_err ve = {{0}};
        double sdsum = 0;
        for (int k = 0; k < u.count; k++) {
            u.sum[k] /= t->R, scale = fmax(scale, fabs(u.sum[k]));
            if (t->R > 1) sdsum += seed_sd(u.s2[k], u.sum[k], t->R);
        }
        t->mean_vsd = t->R > 1 && u.count ? sdsum / u.count : NAN; /* as a full table's, over the coalitions trained */
        flce_coalitions tab = {u.count, u.mask, u.sum};
        if (flce_values_loo_alone_sparse(t->n, &tab, x[2], x[3], &ve) || (t->sampled && flce_values_sampled(t->n, &tab, x[0], x[1], &ve)))
            rc = 1, snprintf(err, cap, "%s: %s", p, ve.msg);
        else rc = values_agree(t, dir, x, t->sampled, scale, err, cap);
    }
    utilities_free(&u);
    return rc;
}

/* A truth folder read back: 0, or 1 with why in err (damaged), 2 (not a truth). */
static int truth_load(truth_t *t, const char *dir, char *err, size_t cap) {
    memset(t, 0, sizeof *t);
    snprintf(t->dir, sizeof t->dir, "%s", dir);
    char p[1200], line[2048];
    flce_status js;
    flce_err e = {{0}};
    snprintf(p, sizeof p, "%s/truth.json", dir);
    cJSON *j = flce_json_read(p, 1 << 20, &js, &e);
    if (!j) return snprintf(err, cap, "%s", e.msg), 1;
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(j, "clients"), *co = cJSON_GetObjectItemCaseSensitive(j, "coalitions"),
                *pd = cJSON_GetObjectItemCaseSensitive(j, "partition_digest"), *fl = cJSON_GetObjectItemCaseSensitive(j, "run_flags"),
                *R = cJSON_GetObjectItemCaseSensitive(j, "truth_seeds"), *sd = cJSON_GetObjectItemCaseSensitive(j, "seed"),
                *ut = cJSON_GetObjectItemCaseSensitive(j, "utility"),
                *pr = cJSON_GetObjectItemCaseSensitive(j, "per_round"), *rd = cJSON_GetObjectItemCaseSensitive(j, "rounds"),
                *pt = cJSON_GetObjectItemCaseSensitive(j, "participation");
    const cJSON *tf = cJSON_GetObjectItemCaseSensitive(j, "truth_format");
    if (!cJSON_IsNumber(tf) || (tf->valuedouble != 1 && tf->valuedouble != 2)) {
        cJSON_Delete(j);
        return snprintf(err, cap, "%s: truth_format %s: this build reads formats 1 and 2", p, cJSON_IsNumber(tf) ? "other than 1 or 2" : tf ? "not a number" : "missing"), 1;
    }
    t->fmt = (int)tf->valuedouble;
    if (!cJSON_IsNumber(n) || !cJSON_IsString(co) || !cJSON_IsString(pd) || !cJSON_IsArray(fl) || !cJSON_IsNumber(R) || !cJSON_IsNumber(sd) ||
        !cJSON_IsString(ut) || !cJSON_IsNumber(pr) || !cJSON_IsNumber(rd) || n->valuedouble < 2 || n->valuedouble > 32 ||
        strlen(pd->valuestring) != 16 || R->valuedouble < 1 || R->valuedouble > 32) {
        cJSON_Delete(j);
        return snprintf(err, cap, "%s: not a truth's record (clients, per_round, rounds, coalitions, partition_digest, run_flags)", p), 1;
    }
    t->per_round = (int)pr->valuedouble, t->rounds = (int)rd->valuedouble;
    t->full = cJSON_IsString(pt) && !strcmp(pt->valuestring, "full");
    t->n = (int)n->valuedouble, t->all = !strcmp(co->valuestring, "all"), t->R = (int)R->valuedouble;
    t->sampled = !strncmp(co->valuestring, "sample:", 7);
    t->seed = (unsigned long long)sd->valuedouble;
    snprintf(t->part, sizeof t->part, "%s", pd->valuestring);
    snprintf(t->utility, sizeof t->utility, "%s", ut->valuestring);
    size_t kl = 0;
    int skip = 0;
    const cJSON *a;
    cJSON_ArrayForEach(a, fl) { /* the configuration: the flags but --seed and its value */
        if (!cJSON_IsString(a)) continue;
        if (skip) {
            skip = 0;
            continue;
        }
        if (!strcmp(a->valuestring, "--seed")) {
            skip = 1;
            continue;
        }
        if (!strncmp(a->valuestring, "--seed=", 7)) continue;
        flce_catf(t->key, sizeof t->key, &kl, "%s ", a->valuestring);
    }
    { /* its attacks: a run is of its federation only where its attacks are these (free-rider,
       * forge-prototypes and inflate-count leave the partition as it was) */
        const cJSON *prev = NULL;
        char why[256];
        cJSON_ArrayForEach(a, fl) {
            const char *w = !cJSON_IsString(a) ? NULL : !strncmp(a->valuestring, "--attack=", 9) ? a->valuestring + 9
                            : prev && cJSON_IsString(prev) && !strcmp(prev->valuestring, "--attack") ? a->valuestring : NULL;
            prev = a;
            if (!w) continue;
            if (t->natt >= FLCE_MAX_ATTACKS || flce_attack_parse(w, &t->att[t->natt], why, sizeof why)) {
                cJSON_Delete(j);
                return snprintf(err, cap, "%s: run_flags: --attack %s: %s", p, w, t->natt >= FLCE_MAX_ATTACKS ? "more than 8 attacks" : why), 1;
            }
            t->natt++;
        }
    }
    { /* and the truth's own settings: truths that differ in them are not seeds of one configuration
       * (the number of truth seeds is not one of them: it is how closely each federation's truth
       * is measured, and the ten-seed plan gives the later federations two where the first had one) */
        const cJSON *pa = cJSON_GetObjectItemCaseSensitive(j, "participation"), *wi = cJSON_GetObjectItemCaseSensitive(j, "window");
        flce_catf(t->key, sizeof t->key, &kl, "| %s, %s, participation %s, window %g", co->valuestring, ut->valuestring,
                  cJSON_IsString(pa) ? pa->valuestring : "?", cJSON_IsNumber(wi) ? wi->valuedouble : 0);
        if (t->fmt == 2) { /* the settings every row must name: flce truth's digest of them, made again here */
            const cJSON *al = cJSON_GetObjectItemCaseSensitive(j, "algo");
            char buf[16384];
            size_t bl = 0;
            flce_catf(buf, sizeof buf, &bl, "flce truth settings 2\n%s\n%s\n%d\n", cJSON_IsString(al) ? al->valuestring : "",
                      cJSON_IsString(pa) ? pa->valuestring : "", cJSON_IsNumber(wi) ? (int)wi->valuedouble : 0);
            cJSON_ArrayForEach(a, fl) if (cJSON_IsString(a)) flce_catf(buf, sizeof buf, &bl, "%s\n", a->valuestring);
            flce_digest_hex(flce_digest(buf, bl), t->sdig);
        }
    }
    cJSON_Delete(j);
    if (t->all && t->n > TR_MAX_N) /* a limit of this report, not damage */
        return snprintf(err, cap, "%s: %d clients: a report judges against truths of every coalition of at most %d", p, t->n, TR_MAX_N), 2;
    /* values.csv */
    snprintf(p, sizeof p, "%s/values.csv", dir);
    FILE *f = flce_fopen_input(p);
    if (!f) return snprintf(err, cap, "%s: %s", p, flce_input_why[0] ? flce_input_why : "missing (the truth has not finished)"), 1;
    int rows = 0, bad = !fgets(line, sizeof line, f) || strncmp(line, "client,shapley,shapley_sd,banzhaf", 33);
    while (!bad && fgets(line, sizeof line, f)) {
        char *fd[12];
        int nf = split_csv(line, fd, 12);
        double x[9];
        for (int q = 0; q < 9 && q < nf; q++) bad |= !field_num(fd[q], &x[q]);
        bad |= nf != 9 || x[0] != rows || rows >= t->n;
        if (bad) break;
        t->shap[rows] = x[1], t->shap_sd[rows] = x[2], t->banz[rows] = x[3], t->loo[rows] = x[5], t->alone[rows] = x[7];
        bad |= !isfinite(x[5]) || !isfinite(x[7]) || ((t->all || t->sampled) && (!isfinite(x[1]) || !isfinite(x[3])));
        rows++;
    }
    fclose(f);
    if (bad || rows != t->n) return snprintf(err, cap, "%s: damaged (a row per client of numbers expected)", p), 1;
    if (!t->all) return partial_check(t, dir, err, cap);
    /* utilities.csv: the mean utility of every coalition (the removal curves) and its spread */
    size_t M = (size_t)1 << t->n;
    snprintf(p, sizeof p, "%s/utilities.csv", dir);
    utilities_t u = {0};
    if (utilities_read(t, p, &u, err, cap)) return utilities_free(&u), 1;
    t->seed_sp = NAN;
    if (t->R > 1) { /* how far the truth resolves an order: its seeds' Shapley values against each other */
        double phi[32][32], sp = 0;
        flce_err pe = {{0}};
        int pairs = 0, failed = 0;
        for (int r = 0; r < t->R && !failed; r++) failed = flce_values_shapley(t->n, u.per + (size_t)r * M, phi[r], &pe) != FLCE_OK;
        for (int r = 0; r < t->R && !failed; r++)
            for (int q = r + 1; q < t->R; q++) sp += report_spearman(phi[r], phi[q], t->n), pairs++;
        if (failed) return snprintf(err, cap, "%s: %s", p, pe.msg), utilities_free(&u), 1;
        t->seed_sp = sp / pairs;
    }
    t->v = u.sum, t->vsd = u.s2; /* the means and the spreads take the sums' places */
    u.sum = u.s2 = NULL;
    utilities_free(&u);
    double sdsum = 0;
    for (size_t m = 0; m < M; m++) {
        double mean = t->v[m] / t->R;
        t->v[m] = mean;
        t->vsd[m] = t->R > 1 ? seed_sd(t->vsd[m], mean, t->R) : NAN;
        sdsum += t->vsd[m];
    }
    t->mean_vsd = sdsum / (double)M;
    double x[4][32], scale = 1;
    flce_err ve = {{0}};
    for (size_t m = 0; m < M; m++) scale = fmax(scale, fabs(t->v[m]));
    if (flce_values_shapley(t->n, t->v, x[0], &ve) || flce_values_banzhaf(t->n, t->v, x[1], &ve) || flce_values_loo(t->n, t->v, x[2], &ve) ||
        flce_values_alone(t->n, t->v, x[3], &ve))
        return snprintf(err, cap, "%s: %s", p, ve.msg), 1;
    return values_agree(t, dir, x, 1, scale, err, cap);
}

/* Whether run r is one of truth t's federation: the same partition, and the selection the truth's
 * arm stands for: K of n a round as the truth's own runs (arm k), or every client every round
 * (arm full: the methods run with K = n); the same rounds. Arm k and arm full share a partition,
 * so the partition alone would mix them. */
static int truth_partition_matches(const truth_t *t, const run_t *r) {
    return !strcmp(r->partdig, t->part) && r->clients == t->n && r->rounds == t->rounds &&
           r->per_round == (t->full ? t->n : t->per_round);
}

/* Whether run r's attacks (config.json "attacks") are truth t's (its run_flags' --attack), as
 * sets: each the same kind, client and strength, the strengths compared as numbers (a truth's
 * flags hold the words as typed: "1", "1.0", or none for the default). An entry that does not
 * parse is no attack of t's. */
static int truth_attacks_match(const truth_t *t, const run_t *r) {
    const cJSON *at = r->cfg ? cJSON_GetObjectItemCaseSensitive(r->cfg, "attacks") : NULL, *a;
    int n = 0;
    char why[256];
    cJSON_ArrayForEach(a, at) {
        flce_attack x;
        int found = 0;
        if (!cJSON_IsString(a) || flce_attack_parse(a->valuestring, &x, why, sizeof why)) return 0;
        for (int i = 0; i < t->natt; i++)
            found |= t->att[i].kind == x.kind && t->att[i].client == x.client && t->att[i].strength == x.strength;
        if (!found) return 0;
        n++;
    }
    return n == t->natt; /* clients are named once on each side: equal counts make equal sets */
}

static int truth_matches(const truth_t *t, const run_t *r) { return truth_partition_matches(t, r) && truth_attacks_match(t, r); }

int report_truths_load(report *R, const char *const *dirs, int n, char *err, size_t cap) {
    R->truth = calloc((size_t)(n ? n : 1), sizeof(truth_t));
    if (!R->truth) return snprintf(err, cap, "out of memory"), 1;
    for (int i = 0; i < n; i++) {
        int rc = truth_load(&R->truth[i], dirs[i], err, cap);
        R->ntruth = i + 1;
        if (rc) return rc;
        for (int j = 0; j < i; j++) /* one truth given twice (or a copy of it) would count as two seeds */
            if (!strcmp(R->truth[j].part, R->truth[i].part) && R->truth[j].seed == R->truth[i].seed && !strcmp(R->truth[j].key, R->truth[i].key))
                return snprintf(err, cap, "%s and %s are one truth (seed %llu of one federation and settings): give it once", dirs[j], dirs[i],
                                R->truth[i].seed), 2;
        int match = 0, other = 0, ko = -1;
        for (int k = 0; k < R->nr; k++) {
            match |= truth_matches(&R->truth[i], &R->runs[k]);
            if (truth_partition_matches(&R->truth[i], &R->runs[k]) && !truth_attacks_match(&R->truth[i], &R->runs[k]))
                other++, ko = ko < 0 ? k : ko;
        }
        char note[900] = "";
        if (other) { /* runs of its partition but other attacks: not of its federation, said once */
            char tw[FLCE_MAX_ATTACKS * 48] = "", rw[FLCE_MAX_ATTACKS * 48] = "", w[64];
            size_t tl = 0, rl = 0;
            for (int q = 0; q < R->truth[i].natt; q++) flce_attack_words(&R->truth[i].att[q], w, sizeof w), flce_catf(tw, sizeof tw, &tl, " %s", w);
            const cJSON *at = R->runs[ko].cfg ? cJSON_GetObjectItemCaseSensitive(R->runs[ko].cfg, "attacks") : NULL, *a;
            cJSON_ArrayForEach(a, at) if (cJSON_IsString(a)) flce_catf(rw, sizeof rw, &rl, " %s", a->valuestring);
            snprintf(note, sizeof note, "%d run%s of its partition but other attacks (%.300s%s:%s; the truth's:%s) not scored against it", other,
                     other == 1 ? "" : "s", R->runs[ko].dir, other > 1 ? " and others" : "", rl ? rw : " none", tl ? tw : " none");
            if (match) fprintf(stderr, "%s: %s: %s\n", R->prog, dirs[i], note);
        }
        if (!match)
            return snprintf(err, cap, "%s: no run given is of its federation (partition %s, %d clients, %d of them a round, %d rounds%s): "
                            "give the runs of the same flags and seed%s%s", dirs[i], R->truth[i].part, R->truth[i].n,
                            R->truth[i].full ? R->truth[i].n : R->truth[i].per_round, R->truth[i].rounds,
                            R->truth[i].natt ? ", its attacks" : "", other ? "; " : "", note), 2;
    }
    return 0;
}

void report_truths_free(report *R) {
    for (int i = 0; i < R->ntruth; i++) truth_free(&R->truth[i]);
    free(R->truth);
    R->truth = NULL, R->ntruth = 0;
}

static double pearson(const double *x, const double *y, int n) {
    double mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;
    for (int i = 0; i < n; i++) mx += x[i], my += y[i];
    mx /= n, my /= n;
    for (int i = 0; i < n; i++) sxy += (x[i] - mx) * (y[i] - my), sxx += (x[i] - mx) * (x[i] - mx), syy += (y[i] - my) * (y[i] - my);
    return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
}

/* Clients in order of x, largest first (ties: the lower client first). */
static void order_desc(const double *x, int n, int *o) {
    for (int i = 0; i < n; i++) o[i] = i;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && (x[o[j]] > x[o[j - 1]] || (x[o[j]] == x[o[j - 1]] && o[j] < o[j - 1])); j--) {
            int t = o[j];
            o[j] = o[j - 1], o[j - 1] = t;
        }
}

typedef struct {
    double sp_shap, pe_shap, sp_banz, sp_loo, kl, top, bottom, rm_hi, rm_lo;
    double js; /* Jensen-Shannon divergence of the shares to the Shapley shares: finite where KL is inf */
} scores;

/* The Jensen-Shannon divergence of distributions p and q [n], natural log: the mean KL of each to
 * their mean m = (p + q) / 2; from 0 (equal) to ln 2 (disjoint), finite wherever one puts mass
 * where the other puts none (the KL then infinite). */
static double js_divergence(const double *p, const double *q, int n) {
    double d = 0;
    for (int i = 0; i < n; i++) {
        double m = (p[i] + q[i]) / 2;
        if (p[i] > 0) d += p[i] * log(p[i] / m) / 2;
        if (q[i] > 0) d += q[i] * log(q[i] / m) / 2;
    }
    return d;
}

/* The removal curves of the order ox [n] (the most valued first) from a full table: hi[k] =
 * v(N minus the first k of the order), lo[k] = v(N minus the last k), k = 0 .. n - 1. */
static void removal_curves(const truth_t *t, const int *ox, double *hi, double *lo) {
    int n = t->n;
    uint64_t mh = ((uint64_t)1 << n) - 1, ml = mh;
    for (int k = 0; k < n; k++) {
        hi[k] = t->v[mh], lo[k] = t->v[ml];
        mh &= ~((uint64_t)1 << ox[k]), ml &= ~((uint64_t)1 << ox[n - 1 - k]);
    }
}

/* x [n]: a method's (or a rule's) values; the scores against truth t. */
static scores score(const truth_t *t, const double *x) {
    int n = t->n, q = n / 4 > 0 ? n / 4 : 1, ox[32], os[32];
    scores s;
    double shx[32], shs[32];
    int shap = t->all || t->sampled; /* exact, or estimated from the sampled coalitions */
    s.sp_shap = shap ? report_spearman(x, t->shap, n) : NAN;
    s.pe_shap = shap ? pearson(x, t->shap, n) : NAN;
    s.sp_banz = shap ? report_spearman(x, t->banz, n) : NAN;
    s.sp_loo = report_spearman(x, t->loo, n);
    s.kl = s.js = NAN;
    flce_err se;
    if (shap && !flce_values_shares(n, x, shx, &se) && !flce_values_shares(n, t->shap, shs, &se)) {
        double k = 0;
        for (int i = 0; i < n; i++) {
            if (shx[i] == 0) continue;
            if (shs[i] == 0) {
                k = INFINITY;
                break;
            }
            k += shx[i] * log(shx[i] / shs[i]);
        }
        s.kl = k;
        s.js = js_divergence(shx, shs, n);
    }
    const double *ref = shap ? t->shap : t->loo;
    int varies = 0;
    for (int i = 1; i < n; i++) varies |= x[i] != x[0];
    if (!varies) { /* every client alike (the uniform rule): no order to read the quarters or the curves from */
        s.top = s.bottom = s.rm_hi = s.rm_lo = NAN;
        return s;
    }
    order_desc(x, n, ox), order_desc(ref, n, os);
    int top = 0, bot = 0;
    for (int i = 0; i < q; i++)
        for (int j = 0; j < q; j++) top += ox[i] == os[j], bot += ox[n - 1 - i] == os[n - 1 - j];
    s.top = (double)top / q, s.bottom = (double)bot / q;
    s.rm_hi = s.rm_lo = NAN;
    if (t->all) { /* removal curves: v(N minus the first k of the order), k = 0..n-1, their means */
        double hi[32], lo[32], ah = 0, al = 0;
        removal_curves(t, ox, hi, lo);
        for (int k = 0; k < n; k++) ah += hi[k], al += lo[k];
        s.rm_hi = ah / n, s.rm_lo = al / n;
    }
    return s;
}

static void fmt(char *o, size_t cap, double v, int d) {
    if (isnan(v)) snprintf(o, cap, "n/a");
    else if (isinf(v)) snprintf(o, cap, "inf");
    else snprintf(o, cap, "%.*f", d, v);
}

typedef struct {
    char label[96];
    double sp[REPORT_MAX_SEEDS];
    unsigned long long seed[REPORT_MAX_SEEDS];
    int ns, last; /* last: the truth that gave the latest entry (one a truth: a second run of a label is not another seed) */
} group_row;

/* Truth ti's removal curves (a full table): each method run of its federation and the truth's own
 * Shapley order, v(N minus the k most valued) and v(N minus the k least valued), k = 0 .. n - 1;
 * truthNN_removal.csv and the figure beside it. */
static void removal_figure(report *R, const truth_t *t, int ti) {
    int n = t->n, nm = 0;
    int *idx = malloc(sizeof(int) * (size_t)(R->nr + 1));
    double(*hi)[32] = malloc(sizeof *hi * (size_t)(R->nr + 1)), (*lo)[32] = malloc(sizeof *lo * (size_t)(R->nr + 1));
    char(*lab)[96] = malloc(sizeof *lab * (size_t)(R->nr + 1));
    if (!idx || !hi || !lo || !lab) {
        report_over(R, "against the retrained truth: out of memory for %s's removal curves", t->dir);
        goto done;
    }
    for (int k = 0; k < R->nr; k++) /* every run of its federation, however many */
        if (truth_matches(t, &R->runs[k])) idx[nm++] = k;
    if (!nm) goto done;
    char name[32], p[1300];
    snprintf(name, sizeof name, "truth%02d_removal", ti + 1);
    snprintf(p, sizeof p, "%s/%s.csv", R->out, name);
    FILE *f = report_fopen(p);
    if (!f) goto done;
    for (int m = 0; m <= nm; m++) { /* the runs, then the truth's Shapley order */
        int o[32];
        order_desc(m < nm ? R->runs[idx[m]].contrib : t->shap, n, o);
        removal_curves(t, o, hi[m], lo[m]);
        if (m < nm) report_method_label(&R->runs[idx[m]], lab[m], sizeof lab[m]);
        else snprintf(lab[m], sizeof lab[m], "exact Shapley order");
    }
    fprintf(f, "removed");
    for (int m = 0; m <= nm; m++) fprintf(f, ",%s most valued first,%s least valued first", csv_q(lab[m]), csv_q(lab[m]));
    fprintf(f, "\n");
    for (int k = 0; k < n; k++) {
        fprintf(f, "%d", k);
        for (int m = 0; m <= nm; m++) fprintf(f, ",%.6f,%.6f", hi[m][k], lo[m][k]);
        fprintf(f, "\n");
    }
    report_fclose(f);
    /* each panel's key below it (three entries a row: the figure grows a row's height for each
     * row), never over the curves; a tic at each whole client removed (once at 0.5 and 1.5);
     * the exact Shapley order dashed grey with open points: black is a method's colour */
    int fig_h = 400 + 18 * ((nm + 1 + 2) / 3);
    flce_sbuf b = {0};
    for (int panel = 0; panel < 2; panel++) {
        flce_sbuf_printf(&b, "%s  set datafile separator ','\n  set xlabel 'clients removed'\n  set ylabel '%s'\n  set grid\n"
                             "  set xrange [0:%d]\n  set xtics 1\n  set format x '%%.0f'\n"
                             "  set key below horizontal maxcols 3 font ',10'\n  set title '%s' font ',11'\n  plot ",
                         panel ? "" : "  set multiplot layout 1,2\n", gp_safe(t->utility), n - 1,
                         panel ? "the least valued removed first (higher: better)" : "the most valued removed first (lower: better)");
        for (int m = 0; m <= nm; m++)
            flce_sbuf_printf(&b, "%s'%s.csv' skip 1 using 1:%d with linespoints lw 2 pt %d ps 0.7 lc rgb '%s'%s title '%s'", m ? ", \\\n       " : "",
                             name, 2 + 2 * m + panel, m < nm ? 7 : 6, m < nm ? color_of(R->runs[idx[m]].algo) : "#777777", m < nm ? "" : " dt 2",
                             gp_safe(lab[m]));
        flce_sbuf_printf(&b, "\n");
    }
    flce_sbuf_printf(&b, "  unset multiplot\n");
    if (!b.oom && gnuplot_sized(R->out, name, 1000, fig_h, b.s) == 0) {
        const char *cap = "Removal curves from the table: the utility of the federation without the k clients each method values most "
                          "(left) and least (right); dashed grey: the order of the exact Shapley values";
        fprintf(R->md, "\n![removal curves](%s.png)\n\n%s ([SVG](%s.svg); data: [%s.csv](%s.csv)).\n", name, cap, name, name, name);
        fprintf(R->ht, "<figure><img src='%s.svg' width='1000' height='%d' alt='removal curves'><figcaption>%s (<a href='%s.png'>PNG</a>; data: "
                       "<a href='%s.csv'>%s.csv</a>)</figcaption></figure>\n", name, fig_h, cap, name, name, name);
    } else R->figs_ok = 0;
    flce_sbuf_free(&b);
done:
    free(idx), free(hi), free(lo), free(lab);
}

/* The truths grouped by configuration (their flags but --seed): per method label and rule, the
 * Spearman with Shapley of each seed; how far each configuration's truths agree with themselves. */
typedef struct {
    int cap, ng;       /* rows a configuration can hold; configurations */
    group_row *G;      /* [TR_MAX_GROUPS][cap] */
    char (*key)[4096]; /* [TR_MAX_GROUPS] */
    int grow[TR_MAX_GROUPS], full[TR_MAX_GROUPS];
    double self_sp[TR_MAX_GROUPS]; /* the sum over its truths with two truth seeds or more of seed_sp */
    int self_n[TR_MAX_GROUPS];     /* ... and how many */
} truth_groups;

/* The smallest mean Spearman between a truth's own seeds at which its configuration informs the
 * question (the ten-seed plan, docs/results/fmnist-truth/PLAN.md). */
#define TR_INFORMS 0.5

/* Truth ti's table of scores (truth_scores.csv's rows into csv), its removal curves, and its
 * Spearman correlations into its configuration's group. */
static void truth_table(report *R, int ti, truth_groups *TG, FILE *csv) {
    static const char *heads[] = {"method or rule", "Spearman Shapley", "Pearson Shapley", "Spearman Banzhaf", "Spearman LOO",
                                  "KL to Shapley shares", "JS to Shapley shares", "top quarter", "bottom quarter", "removal: most valued first",
                                  "removal: least valued first"};
    truth_t *t = &R->truth[ti];
    int gi = -1;
    for (int g = 0; g < TG->ng; g++)
        if (!strcmp(TG->key[g], t->key)) gi = g;
    if (gi < 0 && TG->ng < TR_MAX_GROUPS && TG->G && TG->key)
        gi = TG->ng, TG->full[TG->ng] = t->full, snprintf(TG->key[TG->ng++], sizeof TG->key[0], "%s", t->key);
    if (gi < 0) report_over(R, "against the retrained truth: more than %d configurations of truths; %s is not judged over its seeds",
                            TR_MAX_GROUPS, t->dir);
    if (gi >= 0 && t->R > 1 && t->all && !isnan(t->seed_sp)) TG->self_sp[gi] += t->seed_sp, TG->self_n[gi]++;
    char head[1400], sp[200] = "";
    if (t->R > 1 && t->all)
        snprintf(sp, sizeof sp, "; the truth's spread over its %d seeds: %.4f in v(S), mean; its seeds' own Shapley values agree to a "
                 "Spearman of %.3f%s", t->R, t->mean_vsd, t->seed_sp, t->R > 2 ? " (mean over pairs)" : "");
    else if (t->R > 1) snprintf(sp, sizeof sp, "; the truth's spread over its %d seeds: %.4f in v(S), mean", t->R, t->mean_vsd);
    snprintf(head, sizeof head, "%s (%d clients, %s, seed %llu%s)", t->dir, t->n,
             t->all ? "all coalitions" : t->sampled ? "sampled coalitions: Shapley and Banzhaf estimated"
                    : "leave-one-out coalitions: no Shapley; the quarters against leave-one-out", t->seed, sp);
    fprintf(R->md, "\n### Truth %s\n\n", MD(head));
    fprintf(R->ht, "<h3>Truth %s</h3>\n", H(head));
    rtable tb;
    rt_begin(&tb, R->md, R->ht, 11, heads);
    int done_rules = 0;
    for (int k = 0; k < R->nr; k++) {
        const run_t *r = &R->runs[k];
        if (!truth_matches(t, r)) continue;
        char lab[96];
        report_method_label(r, lab, sizeof lab);
        for (int pass = 0; pass < 2; pass++) { /* the method, then (once a truth) the rules from its selections */
            double tr[4 * 32], sel[32], rows[5][32];
            const char *names[5];
            int nrow = 0;
            if (pass == 0) {
                memcpy(rows[0], r->contrib, sizeof(double) * (size_t)t->n), names[0] = lab, nrow = 1;
            } else {
                if (done_rules || !report_trivial_rules(r, tr, sel)) continue;
                done_rules = 1;
                static const char *rn[] = {"uniform (rule)", "rounds selected (rule)", "size weights over the rounds selected (rule)"};
                for (int q = 0; q < 3; q++) memcpy(rows[q], tr + q * t->n, sizeof(double) * (size_t)t->n), names[q] = rn[q];
                memcpy(rows[3], r->samples, sizeof(double) * (size_t)t->n), names[3] = "data sizes (rule)";
                nrow = 4;
            }
            for (int q = 0; q < nrow; q++) {
                scores s = score(t, rows[q]);
                char c[10][32];
                fmt(c[0], 32, s.sp_shap, 3), fmt(c[1], 32, s.pe_shap, 3), fmt(c[2], 32, s.sp_banz, 3), fmt(c[3], 32, s.sp_loo, 3);
                fmt(c[4], 32, s.kl, 4), fmt(c[5], 32, s.js, 4), fmt(c[6], 32, s.top, 2), fmt(c[7], 32, s.bottom, 2);
                fmt(c[8], 32, s.rm_hi, 4), fmt(c[9], 32, s.rm_lo, 4);
                rt_rowt(&tb, names[q], 0, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s", c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9]);
                if (csv) /* the JS divergence last: the earlier columns keep their places */
                    fprintf(csv, "%s,%llu,%s,%s,%.6f,%.6f,%.6f,%.6f,%.6f,%.4f,%.4f,%.6f,%.6f,%.6f\n", csv_q(t->dir), t->seed, csv_q(names[q]),
                            pass ? "" : csv_q(r->dir), s.sp_shap, s.pe_shap, s.sp_banz, s.sp_loo, s.kl, s.top, s.bottom, s.rm_hi, s.rm_lo, s.js);
                if (gi < 0) continue;
                group_row *row = NULL;
                for (int g = 0; g < TG->grow[gi]; g++)
                    if (!strcmp(TG->G[gi * TG->cap + g].label, names[q])) row = &TG->G[gi * TG->cap + g];
                if (!row && TG->grow[gi] < TG->cap) {
                    row = &TG->G[gi * TG->cap + TG->grow[gi]++];
                    snprintf(row->label, sizeof row->label, "%s", names[q]);
                    row->last = -1;
                }
                if (row && row->ns < REPORT_MAX_SEEDS && row->last != ti) row->seed[row->ns] = t->seed, row->sp[row->ns++] = s.sp_shap, row->last = ti;
            }
        }
    }
    rt_end(&tb);
    if (t->all) removal_figure(R, t, ti);
}

/* One verdict over truths into truth_verdicts.csv: the test, its difference (the mean), half-width,
 * seeds, verdict and what deciding would take. */
static void verdict_csv(FILE *vc, const char *conf, const char *test, const char *label, double m, double h, int n, const char *v) {
    if (!vc) return;
    fprintf(vc, "%s,%s,%s,%.10g,", csv_q(conf), test, csv_q(label), m);
    if (n > 1 && !isnan(h)) fprintf(vc, "%.10g", h);
    fprintf(vc, ",%d,%s", n, v);
    report_power_t pw = report_power(m, n > 1 ? h : NAN, n);
    report_power_csv(vc, &pw);
    fputc('\n', vc);
}

/* Configuration g over its truths: each method's and rule's mean Spearman with its interval and
 * the plan's verdicts with what deciding would take, then the paired effectiveness claim. Sets
 * *fl_tracks (FLCE tracks the truth) and returns FLCE's row, or NULL. */
static const group_row *truth_over_seeds(report *R, const truth_groups *TG, int g, FILE *vc, int *fl_tracks) {
    int seeds = 0;
    *fl_tracks = 0;
    for (int q = 0; q < TG->grow[g]; q++) seeds = TG->G[g * TG->cap + q].ns > seeds ? TG->G[g * TG->cap + q].ns : seeds;
    if (seeds < 2) return NULL;
    char head[4200];
    snprintf(head, sizeof head, "Over %d truths of one configuration (%s)", seeds, TG->key[g]);
    fprintf(R->md, "\n### %s\n\n", MD(head));
    fprintf(R->ht, "<h3>%s</h3>\n", H(head));
    if (TG->self_n[g]) {
        char txt[400];
        double self = TG->self_sp[g] / TG->self_n[g];
        snprintf(txt, sizeof txt, "The truth's own seeds agree to a Spearman of %.3f (mean over the %d truth%s with two truth seeds): %s.",
                 self, TG->self_n[g], TG->self_n[g] == 1 ? "" : "s",
                 self >= TR_INFORMS ? "the configuration informs the question (at least 0.5, the ten-seed plan's criterion)"
                                    : "**the configuration cannot inform the question** (below 0.5, the ten-seed plan's criterion: "
                                      "the truth does not order its clients reproducibly)");
        report_para(R->md, R->ht, txt);
    }
    /* the best trivial rule: the highest mean Spearman of the rules (the uniform rule has none) */
    double best = NAN;
    const char *bestn = NULL;
    for (int q = 0; q < TG->grow[g]; q++) {
        const group_row *row = &TG->G[g * TG->cap + q];
        double m, h;
        if (!strstr(row->label, "(rule)") || !report_mean_ci(row->sp, row->ns, &m, &h) || isnan(m)) continue;
        if (isnan(best) || m > best) best = m, bestn = row->label;
    }
    static const char *h2[] = {"method or rule", "Spearman with Shapley, mean and 95% interval over truths",
                               "tracks the truth (interval above 0)", "adds to what the server knows (mean above the best rule's)"};
    rtable tb;
    rt_begin(&tb, R->md, R->ht, 4, h2);
    const group_row *fl = NULL, *fa = NULL;
    for (int q = 0; q < TG->grow[g]; q++) {
        const group_row *row = &TG->G[g * TG->cap + q];
        char a[64], tr[200], ad[80], dw[96];
        report_fmt_ci(a, sizeof a, row->sp, row->ns, 3);
        double m, h;
        int k = report_mean_ci(row->sp, row->ns, &m, &h);
        int tracks = k >= 2 && m - h > 0, below = k >= 2 && m + h < 0;
        report_power_t pw = report_power(m, h, k);
        snprintf(tr, sizeof tr, "%s", k < 2 ? "n/a" : tracks ? "**yes**" : below ? "no (below 0)" : "no (the interval contains 0");
        if (k >= 2 && !tracks && !below) snprintf(tr + strlen(tr), sizeof tr - strlen(tr), "; %s)", report_power_words(&pw, k, 3, dw, sizeof dw));
        if (k >= 2 && k < seeds) snprintf(tr + strlen(tr), sizeof tr - strlen(tr), " (%d of the %d seeds)", k, seeds);
        if (strstr(row->label, "(rule)")) snprintf(ad, sizeof ad, "%s", row->label == bestn ? "(the best rule)" : "");
        else snprintf(ad, sizeof ad, "%s", !k || isnan(m) || isnan(best) ? "n/a" : m > best ? "**yes**" : "no");
        rt_rowt(&tb, row->label, 0, "%s\t%s\t%s", a, tr, ad);
        if (k >= 1) verdict_csv(vc, TG->key[g], "tracks", row->label, m, h, k, k < 2 ? "n/a" : tracks ? "holds" : below ? "fails" : "inconclusive");
        if (!strcmp(row->label, "flce")) fl = row, *fl_tracks = tracks;
        if (!strcmp(row->label, "fedavg")) fa = row;
    }
    rt_end(&tb);
    if (fl && fa) { /* paired by seed */
        double d[REPORT_MAX_SEEDS];
        int nd = 0;
        for (int i = 0; i < fl->ns; i++)
            for (int j = 0; j < fa->ns && nd < REPORT_MAX_SEEDS; j++)
                if (fl->seed[i] == fa->seed[j] && !isnan(fl->sp[i]) && !isnan(fa->sp[j])) {
                    d[nd++] = fl->sp[i] - fa->sp[j];
                    break; /* one pair a seed */
                }
        double m, h;
        int c = report_mean_ci(d, nd, &m, &h);
        char txt[800], dw[96];
        if (c >= 2) {
            report_power_t pw = report_power(m, h, c);
            const char *v = m - h > 0 ? "holds" : m + h < 0 ? "fails" : "inconclusive";
            verdict_csv(vc, TG->key[g], "flce minus fedavg", "flce", m, h, c, v);
            snprintf(txt, sizeof txt, "**The paper's effectiveness claim against the retrained truth** (FLCE's contributions track what "
                     "clients are worth better than FedAvg's): FLCE's Spearman with Shapley minus FedAvg's, paired by seed: %.3f +- %.3f "
                     "over %d seeds: %s%s%s.", m, h, c, m - h > 0 ? "**holds**" : m + h < 0 ? "**fails** (FedAvg tracks it better)" : "**not shown** (the interval contains 0)",
                     m - h > 0 || m + h < 0 ? "" : "; ", m - h > 0 || m + h < 0 ? "" : report_power_words(&pw, c, 3, dw, sizeof dw));
        } else snprintf(txt, sizeof txt, "The paired comparison of FLCE and FedAvg needs two seeds with both; %d here.", c);
        report_para(R->md, R->ht, txt);
    }
    return fl;
}

/* The plans' answers to "is FLCE one of the methods that track what clients are worth", over the
 * configurations of arm k (K of n a round) judged: the original plan's (at least 3 of the 4) and
 * the ten-seed plan's (at least three quarters of those that inform the question, where every
 * configuration's truths measured their agreement with themselves). */
static void truth_answer(report *R, const truth_groups *TG, const int *judged, const int *tracks, const int *fewest) {
    int karms = 0, ktracks = 0, kpartial = 0, inf = 0, inf_tracks = 0, measured = 1, kmin = 0, kmax = 0;
    char kwhich[1200] = "";
    size_t kwl = 0;
    for (int g = 0; g < TG->ng; g++) {
        if (TG->full[g] || !judged[g]) continue;
        karms++, ktracks += tracks[g], kpartial |= fewest[g] < 3;
        kmin = karms == 1 || fewest[g] < kmin ? fewest[g] : kmin, kmax = fewest[g] > kmax ? fewest[g] : kmax;
        flce_catf(kwhich, sizeof kwhich, &kwl, "%s%s", kwl ? "; " : "", tracks[g] ? "tracks" : "does not track");
        if (!TG->self_n[g]) measured = 0;
        else if (TG->self_sp[g] / TG->self_n[g] >= TR_INFORMS) inf++, inf_tracks += tracks[g];
    }
    if (!karms) return;
    char txt[2400], over[64], word[200];
    if (kmin == kmax) snprintf(over, sizeof over, "%d", kmin); /* the seeds each answer rests on (a configuration's FLCE row) */
    else snprintf(over, sizeof over, "%d to %d", kmin, kmax);
    snprintf(txt, sizeof txt, "**Is FLCE one of the methods that track what clients are worth?** (the plan's answer: yes where FLCE "
             "tracks the truth in at least 3 of the 4 configurations with K of n a round): FLCE tracks it in %d of the %d "
             "configuration%s judged here (in the order above: %s), over %s seeds a configuration%s: %s.", ktracks, karms,
             karms == 1 ? "" : "s", kwhich, over,
             kpartial ? "; some on fewer than 3 seeds" : "",
             ktracks >= 3 ? "**yes**" : ktracks + (4 - karms > 0 ? 4 - karms : 0) < 3 ? "**no**" : "not yet decided (the study's other configurations are not here)");
    report_para(R->md, R->ht, txt);
    if (!measured) return;
    const char *tw = inf < 2 ? "**cannot be decided** (fewer than two inform it)" : 4 * inf_tracks >= 3 * inf ? "**yes**" : "**no**";
    if (kmin < 10) /* the plan's answer is drawn at ten seeds: short of them, the rule's reading is said as such */
        snprintf(word, sizeof word, "%s at %s seeds a configuration, short of the plan's ten: not yet its answer", tw, over);
    else snprintf(word, sizeof word, "%s (over %s seeds a configuration)", tw, over);
    snprintf(txt, sizeof txt, "**The ten-seed plan's answer** (docs/results/fmnist-truth/PLAN.md: yes where FLCE tracks the truth in at "
             "least three quarters of the configurations that inform the question, those whose truths agree with themselves to a "
             "Spearman of 0.5 or more): %d of the %d configuration%s %s it%s, FLCE tracks the truth in %d of them: %s.", inf, karms,
             karms == 1 ? "" : "s", inf == 1 ? "informs" : "inform", karms < 4 ? " (of those judged here)" : "", inf_tracks, word);
    report_para(R->md, R->ht, txt);
}

void report_truth(report *R) {
    if (!R->ntruth) return;
    char p[1200];
    snprintf(p, sizeof p, "%s/truth_scores.csv", R->out);
    FILE *csv = report_fopen(p);
    if (csv)
        fprintf(csv, "truth,seed,method_or_rule,run,spearman_shapley,pearson_shapley,spearman_banzhaf,spearman_loo,kl_shapley_shares,"
                     "top_quarter,bottom_quarter,removal_high_mean,removal_low_mean,js_shapley_shares\n");
    fprintf(R->md, "\n## Against the retrained ground truth\n\n");
    fprintf(R->ht, "<h2>Against the retrained ground truth</h2>\n");
    report_para(R->md, R->ht,
                "**What each client is really worth**, by every coalition retrained (flce truth): each method's final contributions "
                "and each trivial rule against the exact Shapley values of the table (Banzhaf and leave-one-out beside). Removal "
                "curves: the mean utility (the truth's: test accuracy by default) of the federation without the k clients a method values most (lower is better: the "
                "method found who matters) and without the k it values least (higher is better), k = 0 to n - 1, read from the table. "
                "The truth's own spread over its seeds says how far apart two methods must be to differ. KL to Shapley shares: "
                "the KL of the method's shares to the Shapley values' (negative values clamped to 0), infinite (inf) wherever a "
                "client's Shapley value is at most 0 and the method credits it (as in a small truth, where some client's value is "
                "often at most 0); JS to Shapley shares, finite where KL is not: the Jensen-Shannon divergence (natural log) between "
                "the method's shares and the Shapley values clamped at 0 and renormalised (uniform where none is above 0), the mean "
                "KL of each to their average, from 0 (the same shares) to ln 2 = 0.6931 (no client credited by both). Data: "
                "truth_scores.csv; the verdicts over truths with what deciding would take: truth_verdicts.csv.");
    truth_groups TG = {.cap = R->nr + 4}; /* a configuration's rows: at most every run's label and the four rules */
    TG.G = calloc((size_t)TG.cap * TR_MAX_GROUPS, sizeof *TG.G);
    TG.key = calloc(TR_MAX_GROUPS, sizeof *TG.key);
    if (!TG.G || !TG.key) report_over(R, "against the retrained truth: out of memory for the verdicts over seeds");
    for (int ti = 0; ti < R->ntruth; ti++) truth_table(R, ti, &TG, csv);
    if (csv) report_fclose(csv);
    snprintf(p, sizeof p, "%s/truth_verdicts.csv", R->out);
    FILE *vc = report_fopen(p);
    if (vc) fprintf(vc, "configuration,test,method_or_rule,difference,half_width,n,verdict,sd,detectable_difference,seeds_to_decide\n");
    int judged[TR_MAX_GROUPS] = {0}, tracks[TR_MAX_GROUPS] = {0}, fewest[TR_MAX_GROUPS] = {0};
    for (int g = 0; g < TG.ng; g++) {
        const group_row *fl = truth_over_seeds(R, &TG, g, vc, &tracks[g]);
        if (fl) judged[g] = 1, fewest[g] = fl->ns;
    }
    if (vc) report_fclose(vc);
    truth_answer(R, &TG, judged, tracks, fewest);
    free(TG.G), free(TG.key);
}
