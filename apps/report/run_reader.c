/* run_reader.c: see run_reader.h. */
#include "data.h"
#include "run_reader.h"
#include "trace_io.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flce_eq.h"

char flce_input_why[160];

FILE *flce_fopen_input(const char *path) {
    FILE *f = flce_fopen_regular(path, flce_input_why, sizeof flce_input_why);
    if (!f) {
        if (errno == ENOENT) flce_input_why[0] = '\0'; /* missing: the caller says what was expected */
        return NULL;
    }
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && sb.st_size > FLCE_INPUT_MAX) {
        snprintf(flce_input_why, sizeof flce_input_why, "larger than 1 GiB: not a run's file");
        fclose(f);
        return NULL;
    }
    return f;
}

static char *slurp(const char *path, size_t *len) {
    FILE *f = flce_fopen_input(path);
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b) b[n] = '\0';
    if (len) *len = b ? (size_t)n : 0;
    return b;
}

static void jstr(const cJSON *o, const char *key, char *out, size_t cap) {
    const char *v = flce_json_str(o, key);
    snprintf(out, cap, "%s", v ? v : "");
    for (size_t n = strlen(out); n && out[n - 1] == ' ';) out[--n] = '\0';
}

/* metrics.csv: the per-round figures (at most the configured rounds). */
static int load_metrics(run_t *r, const char *dir, flce_err *e) {
    char p[1200];
    snprintf(p, sizeof p, "%s/metrics.csv", dir);
    FILE *f = flce_fopen_input(p);
    if (!f && flce_input_why[0]) return flce_fail(e, FLCE_ERR_FORMAT, "%s: %s", p, flce_input_why), 1;
    if (!f) return flce_fail(e, FLCE_ERR_ARG, "%s: no metrics.csv", dir), 2;
    char line[1024];
    int cap = r->rounds > 0 ? r->rounds : 16;
    r->acc = calloc((size_t)cap, 8), r->f1 = calloc((size_t)cap, 8), r->kl = calloc((size_t)cap, 8);
    r->srv = calloc((size_t)cap, 8), r->cli = calloc((size_t)cap, 8), r->pacc = calloc((size_t)cap, 8);
    if (!r->acc || !r->f1 || !r->kl || !r->srv || !r->cli || !r->pacc) {
        fclose(f);
        return flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory for %d rounds", dir, cap), 1;
    }
    if (!fgets(line, sizeof line, f)) line[0] = '\0';
    while (fgets(line, sizeof line, f) && r->T < cap) {
        int rd;
        double a, fl, ml, k, s, c, pa = NAN;
        long long bu, bd;
        int fb, nc;
        int got = sscanf(line, "%d,%lf,%lf,%lf,%lf,%lf,%lf,%lld,%lld,%d,%d,%lf", &rd, &a, &fl, &ml, &k, &s, &c, &bu, &bd, &fb, &nc, &pa);
        if (got < 11) {
            fclose(f);
            return flce_fail(e, FLCE_ERR_FORMAT, "%s: malformed row %d", p, r->T + 2), 1;
        }
        const char *bad = !(s >= 0 && s < 1e9) ? "server seconds" : !(c >= 0 && c < 1e9) ? "client seconds"
                        : !(a >= 0 && a <= 1) ? "accuracy" : !(fl >= 0 && fl <= 1) ? "macro-F1" : rd != r->T + 1 ? "round number" : NULL;
        if (bad) { /* an impossible number (negative seconds once made the cost claim "hold") */
            fclose(f);
            return flce_fail(e, FLCE_ERR_FORMAT, "%s: row %d: its %s is impossible", p, r->T + 2, bad), 1;
        }
        r->acc[r->T] = a, r->f1[r->T] = fl, r->kl[r->T] = k, r->srv[r->T] = s, r->cli[r->T] = c, r->pacc[r->T] = got == 12 ? pa : NAN;
        r->T++;
    }
    fclose(f);
    if (r->T == 0) return flce_fail(e, FLCE_ERR_FORMAT, "%s: no rounds", p), 1;
    return 0;
}

/* An optional per-client column of a run's file (`client,...` with a header), found by its name in
 * the header, into *out (malloc'd; left NULL where the file or the column is absent): read whole
 * or not at all, a damaged row a failure naming the file and row, as the files below. */
static int load_column(run_t *r, const char *dir, const char *file, const char *name, double **out, flce_err *e) {
    char p[1200], line[1024];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    FILE *f = flce_fopen_input(p);
    if (!f && flce_input_why[0]) return flce_fail(e, FLCE_ERR_FORMAT, "%s: %s", p, flce_input_why), 1;
    if (!f) return 0;
    size_t ln = strlen(name);
    int col = -1, j = 0; /* the header's column of name, counted from the client's (0) */
    if (fgets(line, sizeof line, f)) {
        if (!strchr(line, '\n') && !feof(f)) { /* its columns past the buffer would be taken for a row */
            fclose(f);
            return flce_fail(e, FLCE_ERR_FORMAT, "%s: a header line over %d bytes", p, (int)sizeof line - 1), 1;
        }
        for (char *tok = line; tok; tok = strchr(tok, ','), tok = tok ? tok + 1 : NULL, j++)
            if (!strncmp(tok, name, ln) && strchr(",\r\n", tok[ln] ? tok[ln] : '\n')) col = j;
    }
    if (col < 1) { /* e.g. a run made before the released L2 rule: it has the other readings only; but
                    * rows with more values than its header have lost a column name (damaged) */
        int more = 0;
        if (fgets(line, sizeof line, f)) {
            int k = 1;
            for (const char *q = line; *q; q++) k += *q == ',';
            more = k > j;
        }
        fclose(f);
        return more ? flce_fail(e, FLCE_ERR_FORMAT, "%s: row 2: more values than its header has columns: damaged", p), 1 : 0;
    }
    double *v = *out = malloc(sizeof(double) * (size_t)r->clients);
    if (!v) {
        fclose(f);
        return flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", p), 1;
    }
    for (int k = 0; k < r->clients; k++) v[k] = NAN;
    const char *bad = NULL;
    int row = 1, seen = 0;
    while (!bad && fgets(line, sizeof line, f)) {
        row++;
        char *q = line, *end;
        long k = strtol(q, &end, 10);
        double x = NAN;
        if (end == q || *end != ',') bad = "no client number";
        else if (k < 0 || k >= r->clients) bad = "a client out of range";
        else if (!isnan(v[k])) bad = "a repeated client";
        for (int c = 0; !bad && c < col; c++) {
            if (*end != ',') bad = "fewer columns than its header";
            else if (q = end + 1, x = strtod(q, &end), end == q || !strchr(",\r\n", *end ? *end : '\n')) bad = "not a finite number";
        }
        if (!bad && !(isfinite(x) && x >= 0)) bad = "not a finite number at least 0";
        if (!bad) v[k] = x, seen++;
    }
    fclose(f);
    if (bad) return flce_fail(e, FLCE_ERR_FORMAT, "%s: row %d: %s", p, row, bad), 1;
    if (seen != r->clients) return flce_fail(e, FLCE_ERR_FORMAT, "%s: %d of %d clients: damaged or truncated", p, seen, r->clients), 1;
    return 0;
}

int flce_run_released_eval_ok(const run_t *r, const char *dep, char *why, size_t cap) {
    char p[1300];
    snprintf(p, sizeof p, "%s/released/%s/completion_eval.json", r->dir, dep);
    flce_status st;
    flce_err e = {{0}};
    cJSON *o = flce_json_read(p, 16 << 20, &st, &e);
    if (!o) return snprintf(why, cap, "%s", st == FLCE_ERR_IO && access(p, F_OK) ? "no completion_eval.json: not an flce eval's output" : e.msg), 0;
    /* what the name asks (scripts/released_eval.sh's flags), over the run's own rules */
    int vel = strstr(dep, "velocity") != NULL, abs_ = strstr(dep, "absent") != NULL, first = strstr(dep, "first") != NULL;
    const char *rv = flce_json_str(r->cfg, "velocity"), *ra = flce_json_str(r->cfg, "absent_class"),
               *rp = flce_json_str(r->cfg, "prototypes"), *ri = flce_json_str(r->cfg, "initial_prototypes");
    const char *want[4] = {vel ? "distance" : rv ? rv : "squared", abs_ ? "forget" : ra ? ra : "keep", first ? "first" : rp ? rp : "correct",
                           strstr(dep, "noinitial") ? "none" : ri ? ri : "none"};
    static const char *const key[4] = {"velocity", "absent_class", "prototypes", "initial_prototypes"};
    const cJSON *sd = cJSON_GetObjectItemCaseSensitive(o, "seed");
    const char *ab = flce_json_str(o, "ablate");
    int ok = 1, cmc = strstr(dep, "nocmc") != NULL || strstr(r->ablate, "CMC") != NULL;
    double ts = flce_json_num(r->cfg, "train_seed"), want_seed = isnan(ts) ? (double)r->seed : ts; /* the completion's: flce_train_seed */
    const char *td = flce_json_str(o, "trace_digest"), *tl = strstr(r->digests, "\ntrace ");
    char run_td[17] = "";
    if (tl) sscanf(tl + 1, "trace %16s", run_td);
    if (!cJSON_IsNumber(sd) || sd->valuedouble != want_seed)
        ok = 0, snprintf(why, cap, "its completion_eval.json's seed is not the run's (%.17g): another run's evaluation", want_seed);
    else if (td && strcmp(td, run_td)) /* (evaluations made before 2026-12-06 name no trace) */
        ok = 0, snprintf(why, cap, "its completion_eval.json names trace %s and the run's digests.txt %s: another run's evaluation", td,
                         run_td[0] ? run_td : "none");
    else if (!ab || (strstr(ab, "CMC") != NULL) != cmc)
        ok = 0, snprintf(why, cap, "its completion_eval.json records ablate '%s', and the evaluation %s the completion", ab ? ab : "(none)",
                         cmc ? "leaves out" : "runs");
    for (int i = 0; i < 4 && ok; i++) {
        const char *v = flce_json_str(o, key[i]);
        if (!v) v = i == 3 ? "none" : "";
        if (strcmp(v, want[i]))
            ok = 0, snprintf(why, cap, "its completion_eval.json records %s '%s', and '%s' over this run's settings means '%s'", key[i], v, dep,
                             want[i]);
    }
    cJSON_Delete(o);
    return ok;
}

/* The files the released code's judgement reads where they exist (docs/commands/report.md):
 * contributions_rules.csv's l2_update (the FedAvg family's runs since 2026-12-02) and FLCE's
 * trajectory evaluated as released, released/velocity-absent-nocmc/ (scripts/released_eval.sh). */
static int load_released(run_t *r, const char *dir, flce_err *e) {
    int rc = load_column(r, dir, "contributions_rules.csv", "l2_update", &r->l2, e);
    if (rc) return rc;
    char p[1300], why[300];
    snprintf(p, sizeof p, "%s/released/" FLCE_RELEASED_EVAL "/contributions.csv", dir);
    if (access(p, F_OK)) return 0;
    if (!flce_run_released_eval_ok(r, FLCE_RELEASED_EVAL, why, sizeof why))
        return flce_fail(e, FLCE_ERR_FORMAT, "%s/released/" FLCE_RELEASED_EVAL ": %s", dir, why), 1;
    return load_column(r, dir, "released/" FLCE_RELEASED_EVAL "/contributions.csv", "contribution", &r->rel_eval, e);
}

/* trace/completion.json, where the run kept one, read as flce eval reads it: a record flce eval
 * refuses is damage (the report's completion sensitivity evaluates the trace again, and filled its
 * table from a trace whose record flce eval refused; issue 82). */
static int check_trace_record(const char *dir, flce_err *e) {
    char p[1200];
    struct stat sb;
    snprintf(p, sizeof p, "%s/trace/completion.json", dir);
    if (lstat(p, &sb) != 0 && errno == ENOENT) return 0; /* none (a trace written before it, or no trace) */
    flce_completion_file cf;
    flce_completion_cfg cc;
    flce_err ce = {{0}};
    flce_completion_cfg_default(&cc);
    if (flce_completion_read(p, &cf, &ce)) /* its message names the file */
        return flce_fail(e, FLCE_ERR_FORMAT, "%s (a damaged trace record: flce eval refuses the trace)", ce.msg), 1;
    if (flce_completion_parse(cf.rank[0] ? cf.rank : NULL, cf.mu[0] ? cf.mu : NULL, cf.solver[0] ? cf.solver : NULL,
                              cf.completion[0] ? cf.completion : NULL, &cc, &ce))
        return flce_fail(e, FLCE_ERR_FORMAT, "%s: %s (a damaged trace record: flce eval refuses the trace)", p, ce.msg), 1;
    return 0;
}

/* A file every run writes, missing: the folder is damaged or incomplete, never read with defaults
 * in its place (a lost clients.csv once gave every client 0 samples and a data share of 1/n). */
static int missing_file(const char *dir, const char *file, flce_err *e) {
    return flce_fail(e, FLCE_ERR_FORMAT, "%s/%s: missing (every run writes it): the run folder is damaged or incomplete", dir, file), 1;
}

/* contributions.csv, round_contributions.csv and clients.csv, each required and read whole. */
/* config.json's "attacks" entry (KIND:CLIENT:STRENGTH) of client k, or NULL where it has none. */
static const char *config_attack_of(const cJSON *cfg, int k) {
    const cJSON *at = cfg ? cJSON_GetObjectItemCaseSensitive(cfg, "attacks") : NULL, *a;
    cJSON_ArrayForEach(a, at) {
        const char *w = cJSON_IsString(a) ? a->valuestring : NULL, *c = w ? strchr(w, ':') : NULL;
        char *end = NULL;
        if (c && strtol(c + 1, &end, 10) == k && end != c + 1 && (*end == ':' || !*end)) return w;
    }
    return NULL;
}

static int load_clients(run_t *r, const char *dir, flce_err *e) {
    char p[1200], line[1024];
    FILE *f;
    snprintf(p, sizeof p, "%s/contributions.csv", dir);
    f = flce_fopen_input(p);
    if (!f && flce_input_why[0]) return flce_fail(e, FLCE_ERR_FORMAT, "%s: %s", p, flce_input_why), 1;
    if (!f) return flce_fail(e, FLCE_ERR_ARG, "%s: no contributions.csv", dir), 2;
    r->contrib = calloc((size_t)r->clients, 8), r->samples = calloc((size_t)r->clients, 8), r->held = calloc((size_t)r->clients, sizeof(int));
    r->noisy_k = calloc((size_t)r->clients, sizeof(int));
    if (!r->contrib || !r->samples || !r->held || !r->noisy_k) {
        fclose(f);
        return flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory for %d clients", dir, r->clients), 1;
    }
    if (!fgets(line, sizeof line, f)) line[0] = '\0';
    while (fgets(line, sizeof line, f) && r->n < r->clients) {
        int k;
        double v;
        if (sscanf(line, "%d,%lf", &k, &v) == 2 && k >= 0 && k < r->clients) r->contrib[k] = v, r->n++;
    }
    fclose(f);
    { /* the contributions are the run's product: they must be the values whose digest the run wrote
       * into digests.txt (flce_digest of the n doubles, written %.17g, so read back exactly); an
       * edited, truncated or swapped contributions.csv is a failure, never reported */
        const char *dl = strstr(r->digests, "\ncontributions ");
        char want[17] = "", got[17];
        if (dl) sscanf(dl + 1, "contributions %16s", want);
        flce_digest_hex(flce_digest(r->contrib, sizeof(double) * (size_t)r->clients), got);
        if (!want[0]) return flce_fail(e, FLCE_ERR_FORMAT, "%s/digests.txt: no contributions digest", dir), 1;
        if (r->n != r->clients || strcmp(want, got))
            return flce_fail(e, FLCE_ERR_FORMAT, "%s: not the contributions the run wrote (their digest is not digests.txt's): changed since", p), 1;
    }
    /* round_contributions.csv and clients.csv are read whole or not at all: a row that is not
     * numbers, a client or round out of range, a repeated row, a round without its K clients or
     * a client missing is a failure naming the file and row. They decide the reference rules
     * (the selections are the rows present) and the data shares; a damaged row was once skipped,
     * silently changing both. */
    snprintf(p, sizeof p, "%s/round_contributions.csv", dir);
    f = flce_fopen_input(p);
    if (!f && flce_input_why[0]) return flce_fail(e, FLCE_ERR_FORMAT, "%s: %s", p, flce_input_why), 1;
    if (!f) return missing_file(dir, "round_contributions.csv", e);
    {
        r->rc = malloc(sizeof(double) * (size_t)r->T * r->clients);
        int *per = calloc((size_t)r->T + 1, sizeof *per);
        if (!r->rc || !per) {
            fclose(f), free(per);
            return flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", p), 1;
        }
        for (size_t i = 0; i < (size_t)r->T * r->clients; i++) r->rc[i] = NAN;
        if (!fgets(line, sizeof line, f)) line[0] = '\0';
        const char *bad = NULL;
        int row = 1, t = 0, k = 0;
        while (!bad && fgets(line, sizeof line, f)) {
            double v;
            int used = 0;
            row++;
            if (sscanf(line, "%d,%d,%lf%n", &t, &k, &v, &used) != 3 || line[used + strspn(line + used, " \r\n")] != '\0')
                bad = "not three numbers";
            else if (k < 0 || k >= r->clients) bad = "a client out of range";
            else if (t < 1 || t > r->rounds) bad = "a round out of range";
            else if (t > r->T) continue; /* a round done after metrics.csv's last (a run stopped between the two) */
            else if (!isnan(r->rc[(size_t)(t - 1) * r->clients + k])) bad = "a repeated client";
            else if (isnan(v)) bad = "not a number";
            else r->rc[(size_t)(t - 1) * r->clients + k] = v, per[t]++;
        }
        fclose(f);
        for (t = 1; !bad && r->per_round > 0 && t <= r->T; t++)
            if (per[t] != r->per_round) {
                int had = per[t];
                free(per);
                return flce_fail(e, FLCE_ERR_FORMAT, "%s: round %d has %d clients' contributions, expected %d (per_round): damaged or truncated",
                                 p, t, had, r->per_round), 1;
            }
        free(per);
        if (bad) return flce_fail(e, FLCE_ERR_FORMAT, "%s: row %d: %s", p, row, bad), 1;
    }
    snprintf(p, sizeof p, "%s/clients.csv", dir);
    f = flce_fopen_input(p);
    if (!f && flce_input_why[0]) return flce_fail(e, FLCE_ERR_FORMAT, "%s: %s", p, flce_input_why), 1;
    if (!f) return missing_file(dir, "clients.csv", e);
    {
        if (!fgets(line, sizeof line, f)) line[0] = '\0';
        /* an attacked run's last column names each attacker's attack (docs/attacks.md): a word of
         * the kind's letters, '-', ':' and digits, or empty */
        int attacked = !strncmp(line, "client,samples,classes_held,noisy,attack", 40);
        const char *bad = NULL;
        int row = 1, seen = 0;
        for (int k = 0; k < r->clients; k++) r->samples[k] = -1;
        while (!bad && fgets(line, sizeof line, f)) {
            int k, h, nz, used = 0;
            double sm;
            row++;
            const char *rest = NULL;
            if (sscanf(line, "%d,%lf,%d,%d%n", &k, &sm, &h, &nz, &used) == 4 && attacked && line[used] == ',')
                rest = line + used + 1 + strspn(line + used + 1, "abcdefghijklmnopqrstuvwxyz-:.0123456789");
            if (sscanf(line, "%d,%lf,%d,%d%n", &k, &sm, &h, &nz, &used) != 4 ||
                (rest ? rest[strspn(rest, " \r\n")] != '\0' : attacked || line[used + strspn(line + used, " \r\n")] != '\0'))
                bad = attacked ? "not four numbers and an attack" : "not four numbers";
            else if (k < 0 || k >= r->clients) bad = "a client out of range";
            else if (r->samples[k] >= 0) bad = "a repeated client";
            else if (!(sm >= 0) || h < 0 || nz < 0) bad = "an impossible count";
            else if (attacked) { /* the cell names what config.json's "attacks" gives this client, or nothing */
                size_t len = (size_t)(rest - (line + used + 1));
                const char *want = config_attack_of(r->cfg, k);
                if (want ? strlen(want) != len || strncmp(want, line + used + 1, len) : len != 0)
                    bad = "its attack is not the one config.json's \"attacks\" gives the client";
            }
            if (!bad) r->samples[k] = sm, r->held[k] = h, r->noisy_k[k] = nz != 0, seen++;
        }
        fclose(f);
        const cJSON *ats = r->cfg ? cJSON_GetObjectItemCaseSensitive(r->cfg, "attacks") : NULL;
        if (!bad && !attacked && cJSON_IsArray(ats) && cJSON_GetArraySize(ats) > 0)
            return flce_fail(e, FLCE_ERR_FORMAT, "%s: no attack column, where config.json names attacks: one of them edited", p), 1;
        if (!bad && attacked && !cJSON_IsArray(ats))
            return flce_fail(e, FLCE_ERR_FORMAT, "%s: an attack column, where config.json names no attacks: one of them edited", p), 1;
        if (bad) return flce_fail(e, FLCE_ERR_FORMAT, "%s: row %d: %s", p, row, bad), 1;
        if (seen != r->clients) return flce_fail(e, FLCE_ERR_FORMAT, "%s: %d of %d clients: damaged or truncated", p, seen, r->clients), 1;
    }
    return load_released(r, dir, e);
}

/* Load one run directory; a clear error when a file is missing (2: not a run directory) or
 * malformed (1). */
int flce_run_load(run_t *r, const char *dir, flce_err *e) {
    memset(r, 0, sizeof *r);
    snprintf(r->dir, sizeof r->dir, "%s", dir);
    snprintf(r->denormals, sizeof r->denormals, "preserve"); /* runs before the mode was recorded */
    char p[1200];
    snprintf(p, sizeof p, "%s/config.json", dir);
    char *cfg = slurp(p, NULL);
    if (!cfg) return flce_fail(e, FLCE_ERR_ARG, "%s: not a run directory (no config.json)", dir), 2;
    snprintf(r->config, sizeof r->config, "%s", cfg); /* the text, as the report shows it */
    free(cfg);
    flce_status js;
    r->cfg = flce_json_read(p, 1 << 20, &js, e);
    if (!r->cfg) return 1;
    if (!cJSON_IsObject(r->cfg)) return flce_fail(e, FLCE_ERR_FORMAT, "%s: not a JSON object", p), 1;
    const cJSON *o = r->cfg;
    jstr(o, "algo", r->algo, sizeof r->algo);
    jstr(o, "ablate", r->ablate, sizeof r->ablate);
    jstr(o, "dataset", r->dataset, sizeof r->dataset);
    jstr(o, "partition", r->partition, sizeof r->partition);
    jstr(o, "shapley", r->shapley, sizeof r->shapley);
    r->dirichlet = flce_json_num(o, "dirichlet"), r->label_noise = flce_json_num(o, "label_noise");
    r->feature_noise = flce_json_num(o, "feature_noise"), r->noisy = flce_json_num(o, "noisy_clients");
    double sd = flce_json_num(o, "seed");
    r->seed = sd >= 0 && sd <= 9007199254740992.0 ? (unsigned long long)sd : 0;
    /* what the rest trusts: the sizes that allocations and loops depend on */
    double cl = flce_json_num(o, "clients"), pr = flce_json_num(o, "per_round"), nrd = flce_json_num(o, "rounds");
    if (!(cl >= 1 && cl <= 1000000 && cl == floor(cl)))
        return flce_fail(e, FLCE_ERR_FORMAT, "%s/config.json: \"clients\" is missing or not a whole number from 1 to 1000000", dir), 1;
    if (!(nrd >= 1 && nrd <= 10000000 && nrd == floor(nrd)))
        return flce_fail(e, FLCE_ERR_FORMAT, "%s/config.json: \"rounds\" is missing or not a whole number from 1 to 10000000", dir), 1;
    if (!(pr >= 1 && pr <= cl && pr == floor(pr)))
        return flce_fail(e, FLCE_ERR_FORMAT, "%s/config.json: \"per_round\" is missing or not a whole number from 1 to clients", dir), 1;
    if (!r->algo[0]) return flce_fail(e, FLCE_ERR_FORMAT, "%s/config.json: no \"algo\"", dir), 1;
    { /* names go into tables, CSV files and figures: only what a name of this harness holds */
        const char *key[] = {"algo", "ablate", "dataset", "partition", "shapley"};
        const char *val[] = {r->algo, r->ablate, r->dataset, r->partition, r->shapley};
        for (int i = 0; i < 5; i++)
            for (const char *c = val[i]; *c; c++)
                if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || strchr(" ._+-", *c)))
                    return flce_fail(e, FLCE_ERR_FORMAT, "%s/config.json: \"%s\" holds a character no name of this harness has "
                                     "(letters, digits, space and ._+- only)", dir, key[i]), 1;
    }
    r->clients = (int)cl, r->per_round = (int)pr, r->rounds = (int)nrd; /* in range: checked above */
    /* class weights: null, or a list of non-negative numbers (its length is checked where used) */
    const cJSON *cw = cJSON_GetObjectItemCaseSensitive(o, "class_weights");
    if (cJSON_IsArray(cw)) {
        int n = cJSON_GetArraySize(cw), ok = n >= 1 && n <= 10000;
        r->cw = ok ? malloc(sizeof(double) * (size_t)n) : NULL;
        r->ncw = 0;
        for (const cJSON *x = cw->child; x && r->cw; x = x->next) {
            if (!cJSON_IsNumber(x) || !(x->valuedouble >= 0)) ok = 0;
            else r->cw[r->ncw++] = x->valuedouble;
        }
        if (!ok || !r->cw) free(r->cw), r->cw = NULL, r->ncw = -1; /* not a list of weights */
    } else if (cw && !cJSON_IsNull(cw)) r->ncw = -1;
    snprintf(p, sizeof p, "%s/device.txt", dir);
    char *dv = slurp(p, NULL);
    if (dv) {
        sscanf(dv, "flce %63s", r->version);
        char *b = strstr(dv, "backend "), *d = strstr(dv, "device ");
        if (b) sscanf(b, "backend %31s", r->backend);
        char *dn = strstr(dv, "\ndenormals ");
        if (dn) sscanf(dn + 1, "denormals %15s", r->denormals);
        if (d) {
            snprintf(r->device, sizeof r->device, "%s", d + 7);
            r->device[strcspn(r->device, "\n")] = '\0';
        }
        free(dv);
    }
    r->srv_final = r->srv_paper = NAN; /* runs made before costs.txt existed did not record it */
    snprintf(p, sizeof p, "%s/costs.txt", dir);
    char *ct = slurp(p, NULL);
    if (ct) {
        double v;
        const char *pp = strstr(ct, "\nfinal_server_seconds_paper ");
        int bad = 0;
        if (sscanf(ct, "final_server_seconds %lf", &v) == 1) bad |= !(v >= 0 && v < 1e9), r->srv_final = v;
        if (pp && sscanf(pp + 1, "final_server_seconds_paper %lf", &v) == 1) bad |= !(v >= 0 && v < 1e9), r->srv_paper = v;
        free(ct);
        if (bad) return flce_fail(e, FLCE_ERR_FORMAT, "%s: impossible seconds (negative, not a number or over 1e9)", p), 1;
    }
    snprintf(p, sizeof p, "%s/digests.txt", dir);
    char *dg = slurp(p, NULL);
    if (!dg) return flce_fail(e, FLCE_ERR_ARG, "%s: the run is not finished (no digests.txt)", dir), 2;
    snprintf(r->digests, sizeof r->digests, "%s", dg);
    sscanf(dg, "partition %16s", r->partdig);
    free(dg);
    int rc = load_metrics(r, dir, e);
    if (!rc) rc = check_trace_record(dir, e);
    return rc ? rc : load_clients(r, dir, e);
    return 0;
}

void flce_run_finish(run_t *r, int window) {
    int w = window < r->T ? window : r->T;
    for (int i = r->T - w; i < r->T; i++) r->fin_acc += r->acc[i] / w, r->fin_f1 += r->f1[i] / w;
    for (int i = 0; i < r->T; i++) r->srv_mean += r->srv[i] / r->T;
    r->srv_all = r->srv_mean + (isnan(r->srv_final) || r->T < 1 ? 0 : r->srv_final / r->T);
    double *q = malloc(sizeof(double) * (size_t)r->clients);
    int C = flce_dataset_classes(r->dataset) ? flce_dataset_classes(r->dataset) : 10;
    r->kl_final = r->kl_div = NAN;
    if (q && r->clients > 0 && r->samples[0] > 0) {
        flce_data_shares(r->samples, NULL, C, r->clients, q);
        r->kl_final = flce_kl(r->contrib, q, r->clients, NULL);
        flce_data_shares(r->samples, r->held, C, r->clients, q);
        r->kl_div = flce_kl(r->contrib, q, r->clients, NULL);
    }
    free(q);
    r->kl_mm = flce_run_kl_released(r, r->contrib);
    r->kl_mm_l2 = r->l2 ? flce_run_kl_released(r, r->l2) : NAN;
    r->kl_mm_eval = r->rel_eval ? flce_run_kl_released(r, r->rel_eval) : NAN;
}

double flce_run_kl_released(const run_t *r, const double *c) {
    int n = r->clients, *noise = malloc(sizeof *noise * (size_t)(n > 0 ? n : 1));
    double *q = malloc(sizeof *q * (size_t)(n > 0 ? n : 1)), k = NAN;
    if (noise && q && n > 0) {
        for (int i = 0; i < n; i++) noise[i] = r->noisy_k[i] ? (r->label_noise > 0 ? 2 : 1) : 0;
        flce_quality_reference(noise, n, q);
        k = flce_kl_minmax(c, q, n, NULL);
    }
    free(noise), free(q);
    return k >= 0 ? k : NAN;
}

void flce_run_free(run_t *r) {
    cJSON_Delete(r->cfg);
    free(r->l2), free(r->rel_eval);
    free(r->cw);
    free(r->rc);
    free(r->acc), free(r->f1), free(r->kl), free(r->srv), free(r->cli), free(r->pacc), free(r->contrib), free(r->samples), free(r->held);
    free(r->noisy_k);
}


double flce_run_shapley_cum(const run_t *r, const run_t *S, double *euclid) {
    *euclid = NAN;
    if (!r->rc || !S->rc || strcmp(r->partdig, S->partdig) || r->T != S->T || r->clients != S->clients) return NAN;
    int n = S->clients;
    double *ca = malloc(sizeof(double) * (size_t)n), *cb = malloc(sizeof(double) * (size_t)n);
    if (!ca || !cb) {
        free(ca), free(cb);
        return NAN;
    }
    for (int k = 0; k < n; k++) {
        ca[k] = 0, cb[k] = 0;
        for (int t = 0; t < S->T; t++) {
            double x = r->rc[(size_t)t * r->clients + k], y = S->rc[(size_t)t * S->clients + k];
            if (!isnan(x)) ca[k] += x;
            if (!isnan(y)) cb[k] += y;
        }
        cb[k] = fmax(0, cb[k]), ca[k] = fmax(0, ca[k]);
    }
    double sa = 0, sb = 0;
    for (int k = 0; k < n; k++) sa += ca[k], sb += cb[k];
    for (int k = 0; k < n; k++) ca[k] = sa > 0 ? ca[k] / sa : 0, cb[k] = sb > 0 ? cb[k] / sb : 0;
    *euclid = flce_euclidean(ca, cb, n);
    double kl = flce_kl_distance(ca, cb, n);
    free(ca), free(cb);
    return kl;
}

char *flce_run_key(const run_t *r, const char *const *drop, int ndrop) {
    cJSON *c = cJSON_Duplicate(r->cfg, 1);
    if (!c) return NULL;
    for (int i = 0; i < ndrop; i++) cJSON_DeleteItemFromObjectCaseSensitive(c, drop[i]);
    flce_json_sort(c); /* the settings, not the order they were written in */
    flce_json_exact(c); /* numbers as text that reads back exactly: equal text, equal values */
    char *s = cJSON_PrintUnformatted(c);
    cJSON_Delete(c);
    return s;
}

void flce_run_differing(const run_t *a, const run_t *b, const char *skip, char *out, size_t cap) {
    size_t used = 0;
    out[0] = '\0';
    for (const cJSON *m = a->cfg ? a->cfg->child : NULL; m; m = m->next)
        if ((!skip || strcmp(m->string, skip)) && !flce_json_equal(m, cJSON_GetObjectItemCaseSensitive(b->cfg, m->string)))
            flce_catf(out, cap, &used, "%s%s", used ? ", " : "", m->string);
    for (const cJSON *m = b->cfg ? b->cfg->child : NULL; m; m = m->next)
        if ((!skip || strcmp(m->string, skip)) && !cJSON_GetObjectItemCaseSensitive(a->cfg, m->string))
            flce_catf(out, cap, &used, "%s%s", used ? ", " : "", m->string);
}
