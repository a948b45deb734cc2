/* cmd_truth.c: `flce truth`: the retrained ground truth of a federation (issue 63): one training
 * per coalition S of its n clients, with the data, partition, initial model and settings of
 * `flce run` (the same command line), clients outside S never selected, and from the table of
 * v(S) the exact Shapley, Banzhaf, leave-one-out and client-alone values.
 *
 * A coalition's training is `flce run --members S --test-loss` (flce_run with members set; the
 * per-round K: min(K, |S|), or |S| with --participation full), into OUT/work/mMASK-tSEED; its
 * row of utilities.csv is appended (one write) once it finishes and the folder is removed, so a
 * killed truth loses at most the coalition under way, and --resume continues that one where it
 * stopped (flce run --resume) and trains the rest. v(empty) is the initial model on the test set
 * (flce_initial_eval). values.csv is a function of utilities.csv alone (the text of its
 * numbers), written when every row is there; both files' rows in one order (mask, seed), so the
 * bytes do not depend on the order the coalitions were trained in. Formats: docs/formats.md. */
#define _XOPEN_SOURCE 700 /* nftw */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "data.h"
#include "json.h"
#include "run_job.h"
#include "values.h"

static const char *USAGE =
    "usage: flce truth [--coalitions all|loo|sample:M] [--truth-seeds N] [--participation k|full] [--window N] [--jobs N]\n"
    "                  [--utility accuracy|accuracy-window|loss|loss-window] --seed S --out DIR [--resume] [--force]\n"
    "                  [--reuse-mb N] [--quiet] [every flag of flce run that describes the federation and its training]\n"
    "One training per coalition of the --clients clients (FedAvg unless --algo names another method), the\n"
    "clients outside it never selected; OUT/utilities.csv: each coalition's final test accuracy and loss;\n"
    "OUT/values.csv: exact Shapley and Banzhaf (--coalitions all, n <= 16; estimated with sample:M), leave-one-out and\n"
    "client alone.\n"
    "Not taken (flce truth sets them): --members, --seeds, --train-seed, --test-loss.";

#define TRUTH_MAX_SEEDS 16

typedef struct {
    uint64_t mask;
    int seed;              /* index 0..R-1 into the truth seeds */
    char acc[32], loss[32]; /* the final round's text (metrics.csv's) */
    double accw, lossw;    /* the mean over the last W rounds */
    char digest[17];
    int done;
} truth_row;

typedef struct {
    const char *prog, *out;
    int n, R, K, T, W, full, all, utility, quiet;
    int reuse_mb;  /* --reuse-mb: the memo's budget (0: every coalition trains and tests everything) */
    int mpi;       /* under mpirun: the workers are processes (their lines say "process r/P") */
    int sample;    /* --coalitions sample:M: M coalitions drawn beside leave-one-out's (0: none) */
    uint64_t seed; /* --seed: truth seed r trains with train seed seed + r */
    truth_row *rows;
    int nrows;
    int fmt;       /* truth_format: 2 (each row names the settings it was trained under), or 1 (a truth
                    * begun by an earlier build, continued as it was begun) */
    char sdig[17]; /* format 2: the settings' digest every row carries (settings_digest) */
    /* a coalition's cost (row_work): each client's training images a round and the test set's */
    double pass[64];
    int n_test;
} truth;

static const char *UTILITIES[] = {"accuracy", "accuracy-window", "loss", "loss-window"};

static void members_text(uint64_t mask, int n, char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < n; i++)
        if (mask >> i & 1) flce_catf(buf, cap, &len, "%s%d", len ? ";" : "", i);
}

static int popcount64(uint64_t m) {
    int c = 0;
    for (; m; m &= m - 1) c++;
    return c;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The coalitions of the plan, ascending: every mask (all), or the empty one, the singletons, N
 * minus one and N (loo), and with sample M more, drawn by the seed's stream (FLCE_RNG_COALITIONS):
 * a size from 2 .. n - 2 uniformly (leave-one-out's hold every coalition of the other sizes),
 * then that many clients uniformly, a coalition drawn before drawn again (docs/decisions.md). */
static int plan_masks(int n, int all, int sample, uint64_t seed, uint64_t *masks) {
    if (all) {
        for (uint64_t m = 0; m < (uint64_t)1 << n; m++) masks[m] = m;
        return 1 << n;
    }
    uint32_t mm[2 * FLCE_VALUES_MAX_SPARSE + 2];
    int k = flce_values_needed(n, mm), base = k, idx[FLCE_VALUES_MAX_SPARSE];
    for (int i = 0; i < k; i++) masks[i] = mm[i];
    flce_rng r;
    flce_rng_init(&r, seed, FLCE_RNG_COALITIONS, 0, 0);
    while (k < base + sample) {
        int s = 2 + (int)(flce_rng_uniform(&r) * (n - 3)), seen = 0;
        if (s > n - 2) s = n - 2;
        flce_rng_sample(&r, n, s, idx);
        uint64_t m = 0;
        for (int j = 0; j < s; j++) m |= (uint64_t)1 << idx[j];
        for (int i = base; i < k && !seen; i++) seen = masks[i] == m;
        if (!seen) masks[k++] = m;
    }
    qsort(masks, (size_t)k, sizeof *masks, cmp_u64);
    return k;
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *f) {
    (void)sb, (void)flag, (void)f;
    return remove(p) != 0 && errno != ENOENT ? -1 : 0;
}

/* A folder this program made (a coalition's run), and everything in it; links are removed, not followed. */
static int rm_tree(const char *dir) {
    struct stat sb;
    if (lstat(dir, &sb) != 0) return errno == ENOENT ? 0 : -1;
    return nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* x as its text in utilities.csv reads back: values.csv is a function of the file alone,
 * whether a row was just trained or read from an earlier try. */
static double text_value(double x, const char *fmt) {
    char b[64];
    double y = x;
    snprintf(b, sizeof b, fmt, x);
    flce_number(b, &y);
    return y;
}

/* The final round's accuracy and test loss (their text) and the means over the last W rounds, from
 * a finished coalition's metrics.csv; the final model's digest from its digests.txt. */
static flce_status read_coalition(const char *dir, int T, int W, truth_row *r, flce_err *e) {
    char p[1200], why[200], line[1024];
    snprintf(p, sizeof p, "%s/metrics.csv", dir);
    FILE *f = flce_fopen_regular(p, why, sizeof why);
    if (!f) return flce_fail(e, FLCE_ERR_IO, "%s: %s", p, why);
    int acol = -1, lcol = -1, rounds = 0;
    double sa = 0, sl = 0;
    flce_status st = FLCE_OK;
    if (!fgets(line, sizeof line, f)) st = flce_fail(e, FLCE_ERR_IO, "%s: empty", p);
    else {
        line[strcspn(line, "\r\n")] = '\0';
        int col = 0;
        for (char *t = strtok(line, ","); t; t = strtok(NULL, ","), col++) {
            if (!strcmp(t, "accuracy")) acol = col;
            if (!strcmp(t, "test_loss")) lcol = col;
        }
        if (acol < 0 || lcol < 0) st = flce_fail(e, FLCE_ERR_IO, "%s: no accuracy or test_loss column", p);
    }
    while (!st && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *fields[32];
        int nf = 0;
        for (char *q = line, *c;; q = c + 1) { /* empty fields kept (personal_accuracy) */
            if (nf < 32) fields[nf++] = q;
            if (!(c = strchr(q, ','))) break;
            *c = '\0';
        }
        double a, l;
        if (++rounds <= T - W) continue; /* before the window: not evaluated (test_from) */
        if (acol >= nf || lcol >= nf || flce_number(fields[acol], &a) || flce_number(fields[lcol], &l)) {
            st = flce_fail(e, FLCE_ERR_IO, "%s: round %d: not a number where accuracy and test_loss go", p, rounds);
            break;
        }
        sa += a, sl += l;
        if (rounds == T) {
            snprintf(r->acc, sizeof r->acc, "%s", fields[acol]);
            snprintf(r->loss, sizeof r->loss, "%s", fields[lcol]);
        }
    }
    fclose(f);
    if (!st && rounds != T) st = flce_fail(e, FLCE_ERR_IO, "%s: %d rounds, where %d were run", p, rounds, T);
    if (st) return st;
    r->accw = text_value(sa / W, "%.6f"), r->lossw = text_value(sl / W, "%.9g"); /* as the row will say */
    snprintf(p, sizeof p, "%s/digests.txt", dir);
    if (!(f = flce_fopen_regular(p, why, sizeof why))) return flce_fail(e, FLCE_ERR_IO, "%s: %s", p, why);
    r->digest[0] = '\0';
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "final_model %16[0-9a-f]", r->digest) == 1) break;
    fclose(f);
    if (strlen(r->digest) != 16) return flce_fail(e, FLCE_ERR_IO, "%s: no final_model digest", p);
    return FLCE_OK;
}

static int row_line(const truth *t, const truth_row *r, char *buf, size_t cap) {
    char mem[200];
    members_text(r->mask, t->n, mem, sizeof mem);
    return snprintf(buf, cap, "%llu,%s,%llu,%s,%s,%.6f,%.9g,%s%s%s\n", (unsigned long long)r->mask, mem,
                    (unsigned long long)(t->seed + (uint64_t)r->seed), r->acc, r->loss, r->accw, r->lossw, r->digest,
                    t->fmt == 2 ? "," : "", t->fmt == 2 ? t->sdig : "");
}

static const char *HEADER1 = "mask,members,train_seed,accuracy,loss,accuracy_window,loss_window,model_digest\n";
static const char *HEADER2 = "mask,members,train_seed,accuracy,loss,accuracy_window,loss_window,model_digest,settings\n";
#define HEADER (t->fmt == 2 ? HEADER2 : HEADER1)

/* The rows of an earlier try (--resume): each checked against the plan (a coalition and seed of
 * it, once, its members spelled as its mask says, numbers finite, a digest); a last line cut off
 * by a kill while it was written (no newline) is dropped (that coalition trains again); a whole
 * line holding a NUL byte is damage wherever it is. */
typedef struct { uint64_t mask; int seed, i; } row_key; /* a partial table's row, for the lookup by (mask, seed) */
static int row_key_cmp(const void *a, const void *b) {
    const row_key *x = a, *y = b;
    return x->mask != y->mask ? (x->mask > y->mask) - (x->mask < y->mask) : (x->seed > y->seed) - (x->seed < y->seed);
}

/* One line of f into buf (up to and with its newline, at most cap - 1 bytes, NUL bytes kept): its
 * length, 0 at the end of the file (fgets's string ends at a NUL byte, which hid the rest of a row). */
static size_t read_line(FILE *f, char *buf, size_t cap) {
    size_t n = 0;
    for (int c; n + 1 < cap && (c = getc(f)) != EOF;)
        if ((buf[n++] = (char)c) == '\n') break;
    buf[n] = '\0';
    return n;
}

static flce_status read_rows(truth *t, const char *path, flce_err *e) {
    char why[200], line[1024];
    FILE *f = flce_fopen_regular(path, why, sizeof why);
    if (!f) return errno == ENOENT ? FLCE_OK : flce_fail(e, FLCE_ERR_IO, "%s: %s", path, why);
    row_key *keys = NULL; /* a partial table (leave-one-out, sample:M): its rows sorted, found by bsearch */
    if (!t->all) {
        keys = malloc(sizeof *keys * (size_t)(t->nrows ? t->nrows : 1));
        if (!keys) {
            fclose(f);
            return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
        }
        for (int i = 0; i < t->nrows; i++) keys[i] = (row_key){t->rows[i].mask, t->rows[i].seed, i};
        qsort(keys, (size_t)t->nrows, sizeof *keys, row_key_cmp);
    }
    flce_status st = FLCE_OK;
    int ln = 0;
    for (size_t len; !st && (len = read_line(f, line, sizeof line));) {
        ln++;
        if (line[len - 1] != '\n') { /* cut off by a kill at the end: trained again; elsewhere (too long): damaged */
            if (fgetc(f) == EOF) break;
            st = flce_fail(e, FLCE_ERR_IO, "%s line %d: damaged (longer than a row can be; --force starts again)", path, ln);
            break;
        }
        if (memchr(line, '\0', len)) { /* a whole line (its newline written): damage, never a kill's cut, wherever it is */
            st = flce_fail(e, FLCE_ERR_IO, "%s line %d: damaged (a NUL byte in it; --force starts again)", path, ln);
            break;
        }
        if (ln == 1) {
            if (strcmp(line, HEADER)) st = flce_fail(e, FLCE_ERR_IO, "%s line 1: not the header of a truth's utilities (--force starts again)", path);
            continue;
        }
        char whole[1024];
        snprintf(whole, sizeof whole, "%s", line);
        if (t->fmt == 2) { /* the settings the row was trained under: this truth's, or refused (issue 82) */
            char *c = strrchr(line, ',');
            if (c && strlen(c) == 18 && strspn(c + 1, "0123456789abcdef") == 16 && strncmp(c + 1, t->sdig, 16)) {
                st = flce_fail(e, FLCE_ERR_IO, "%s line %d: trained under other settings (settings %.16s, this truth's %s): another truth's row "
                               "(--force starts again)", path, ln, c + 1, t->sdig);
                break;
            }
            if (!c || strlen(c) != 18 || strspn(c + 1, "0123456789abcdef") != 16) { /* the last field: 16 hex digits and the newline */
                st = flce_fail(e, FLCE_ERR_IO, "%s line %d: damaged (its last field, the settings digest, is not 16 hex digits; --force "
                               "starts again)", path, ln);
                break;
            }
            c[0] = '\n', c[1] = '\0'; /* the rest read as a row of format 1 */
        }
        unsigned long long mask, ts;
        char mem[200] = "", acc[32], loss[32], dg[17], tail;
        double accw, lossw;
        int ok = 0;
        size_t c1 = strcspn(line, ",");
        if (line[c1] == ',' && line[c1 + 1] == ',') /* the empty coalition: no members */
            ok = sscanf(line, "%llu,,%llu,%31[^,],%31[^,],%lf,%lf,%16[0-9a-f]%c", &mask, &ts, acc, loss, &accw, &lossw, dg, &tail) == 8;
        else
            ok = sscanf(line, "%llu,%199[0-9;],%llu,%31[^,],%31[^,],%lf,%lf,%16[0-9a-f]%c", &mask, mem, &ts, acc, loss, &accw, &lossw, dg, &tail) == 9;
        double a, l;
        char want[200];
        if (ok) members_text(mask, t->n, want, sizeof want);
        int k = -1;
        if (ok && ts >= t->seed && ts - t->seed < (unsigned long long)t->R)
            { /* the full table: row mask * R + seed; the partial one: by its sorted keys */
                int sd = (int)(ts - t->seed);
                if (t->all) k = mask < ((unsigned long long)1 << t->n) ? (int)mask * t->R + sd : -1;
                else {
                    row_key want_k = {mask, sd, 0}, *hit = bsearch(&want_k, keys, (size_t)t->nrows, sizeof *keys, row_key_cmp);
                    k = hit ? hit->i : -1;
                }
            }
        if (!ok || tail != '\n' || strlen(dg) != 16 || flce_number(acc, &a) || flce_number(loss, &l) || !isfinite(accw) || !isfinite(lossw) ||
            a < 0 || a > 1 || l < 0 || accw < 0 || accw > 1 || lossw < 0 || lossw > 1e30 || strcmp(mem, want) || k < 0 || (mask >> t->n) != 0) {
            st = flce_fail(e, FLCE_ERR_IO, "%s line %d: damaged, or a coalition or seed this truth does not train (--force starts again)", path, ln);
            break;
        }
        if (t->rows[k].done) {
            st = flce_fail(e, FLCE_ERR_IO, "%s line %d: coalition %llu, train seed %llu, a second time (--force starts again)", path, ln, mask, ts);
            break;
        }
        truth_row *r = &t->rows[k], was = *r;
        snprintf(r->acc, sizeof r->acc, "%s", acc), snprintf(r->loss, sizeof r->loss, "%s", loss);
        snprintf(r->digest, sizeof r->digest, "%s", dg);
        r->accw = accw, r->lossw = lossw, r->done = 1;
        char canon[1024], ca[64], cl[64];
        row_line(t, r, canon, sizeof canon);
        snprintf(ca, sizeof ca, "%.6f", a), snprintf(cl, sizeof cl, "%.9g", l); /* metrics.csv's forms (fl/run_files.c) */
        if (strcmp(canon, whole) || strcmp(ca, acc) || strcmp(cl, loss)) { /* kept as read, the table would not be the bytes an unbroken truth writes */
            *r = was;
            st = flce_fail(e, FLCE_ERR_IO, "%s line %d: not as flce truth writes it (its numbers' digits or form edited; --force starts again)", path, ln);
            break;
        }
    }
    fclose(f);
    free(keys);
    return st;
}

/* One row appended with one write (a kill leaves it whole or cut, never mixed), flushed to disk. */
static flce_status append_row(const truth *t, const char *path, const truth_row *r, flce_err *e) {
    char line[512];
    int len = row_line(t, r, line, sizeof line);
    if (len < 0 || len >= (int)sizeof line) return flce_fail(e, FLCE_ERR_IO, "%s: a row longer than %zu bytes", path, sizeof line);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return flce_fail(e, FLCE_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat sb;
    flce_status st = FLCE_OK;
    if (fstat(fd, &sb) == 0 && sb.st_size == 0 && write(fd, HEADER, strlen(HEADER)) != (ssize_t)strlen(HEADER))
        st = flce_fail(e, FLCE_ERR_IO, "%s: %s", path, strerror(errno));
    if (!st && write(fd, line, (size_t)len) != len) st = flce_fail(e, FLCE_ERR_IO, "%s: %s", path, strerror(errno));
    if (!st && fsync(fd) != 0) st = flce_fail(e, FLCE_ERR_IO, "%s: %s", path, strerror(errno));
    close(fd);
    return st;
}

/* utilities.csv again, its finished rows in the plan's order (mask, seed): the same bytes whatever
 * order they were trained in (and a row cut off by a kill gone). */
static flce_status write_rows(const truth *t, const char *path, flce_err *e) {
    size_t cap = 128 + (size_t)t->nrows * 512, len = 0; /* a row: at most 512 bytes (row_line's buffer) */
    char *b = malloc(cap);
    if (!b) return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
    flce_catf(b, cap, &len, "%s", HEADER);
    for (int i = 0; i < t->nrows; i++) {
        char line[512];
        if (!t->rows[i].done) continue;
        row_line(t, &t->rows[i], line, sizeof line);
        flce_catf(b, cap, &len, "%s", line);
    }
    flce_status st = flce_write_file_atomic(path, b, len, e);
    free(b);
    return st;
}

static double row_utility(const truth *t, const truth_row *r) {
    double a, l;
    flce_number(r->acc, &a), flce_number(r->loss, &l);
    switch (t->utility) {
    case 0: return a;
    case 1: return r->accw;
    case 2: return -l;
    default: return -r->lossw;
    }
}

/* values.csv: the values of the seeds' mean table, and (R >= 2) their spread over the seeds. */
static flce_status write_values(const truth *t, const char *path, double out_vals[][4], flce_err *e) {
    int n = t->n, R = t->R, nm = t->nrows / R;
    double *v = malloc(sizeof(double) * (size_t)nm), *x = malloc(sizeof(double) * (size_t)(R + 1) * 4 * n);
    uint32_t *mm = malloc(sizeof(uint32_t) * (size_t)nm);
    if (!v || !x || !mm) {
        free(v), free(x), free(mm);
        return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
    }
    flce_status st = FLCE_OK;
    for (int r = 0; r <= R && !st; r++) { /* r < R: seed r's table; r == R: the mean table */
        for (int i = 0; i < nm; i++) {
            double s = 0;
            if (r < R) s = row_utility(t, &t->rows[i * R + r]);
            else
                for (int q = 0; q < R; q++) s += row_utility(t, &t->rows[i * R + q]);
            v[i] = r < R ? s : s / R;
            mm[i] = (uint32_t)t->rows[i * R].mask;
        }
        double *o = x + (size_t)r * 4 * n;
        if (t->all) {
            if (!(st = flce_values_shapley(n, v, o, e)) && !(st = flce_values_banzhaf(n, v, o + n, e)) && !(st = flce_values_loo(n, v, o + 2 * n, e)))
                st = flce_values_alone(n, v, o + 3 * n, e);
        } else {
            flce_coalitions tab = {nm, mm, v};
            st = flce_values_loo_alone_sparse(n, &tab, o + 2 * n, o + 3 * n, e);
            if (!st && t->sample) st = flce_values_sampled(n, &tab, o, o + n, e); /* estimated from the size strata */
        }
    }
    if (st) {
        free(v), free(x), free(mm);
        return st;
    }
    size_t cap = 256 + (size_t)n * 256, len = 0;
    char *b = malloc(cap);
    if (!b) {
        free(v), free(x), free(mm);
        return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
    }
    static const char *names[4] = {"shapley", "banzhaf", "loo", "alone"};
    flce_catf(b, cap, &len, "client");
    for (int k = 0; k < 4; k++) flce_catf(b, cap, &len, ",%s,%s_sd", names[k], names[k]);
    flce_catf(b, cap, &len, "\n");
    const double *mean = x + (size_t)R * 4 * n;
    for (int i = 0; i < n; i++) {
        flce_catf(b, cap, &len, "%d", i);
        for (int k = 0; k < 4; k++) {
            if (!t->all && !t->sample && k < 2) { /* not from leave-one-out's table */
                flce_catf(b, cap, &len, ",,");
                out_vals[i][k] = NAN;
                continue;
            }
            double m = mean[k * n + i], ss = 0;
            for (int r = 0; r < R; r++) ss += (x[(size_t)r * 4 * n + k * n + i] - m) * (x[(size_t)r * 4 * n + k * n + i] - m);
            out_vals[i][k] = m;
            if (R > 1) flce_catf(b, cap, &len, ",%.9g,%.9g", m, sqrt(ss / (R - 1)));
            else flce_catf(b, cap, &len, ",%.9g,", m);
        }
        flce_catf(b, cap, &len, "\n");
    }
    st = flce_write_file_atomic(path, b, len, e);
    free(b), free(v), free(x), free(mm);
    return st;
}

/* truth.json: what makes the table this federation's: flce run's flags as given (in order), the
 * truth's own settings and the partition's digest; --resume refuses a folder that says otherwise. */
/* Where it goes and what it runs on are not the federation (the backends give the same bits): the
 * words of argv [i] that truth.json's run_flags leave out (1: "--flag=v", 2: "--flag v"), or 0. */
static int flag_skipped(char **argv, int i) {
    static const char *skip[] = {"--out", "--backend", "--device", "--mpi-timeout"};
    for (size_t k = 0; k < sizeof skip / sizeof skip[0]; k++) {
        size_t l = strlen(skip[k]);
        if (!strncmp(argv[i], skip[k], l) && argv[i][l] == '=') return 1;
        if (!strcmp(argv[i], skip[k])) return 2;
    }
    return 0;
}

/* The digest of what makes a row (truth_format 2; docs/formats.md): the xxh3-64 of the method, the
 * participation, the window and every run flag truth.json records (the federation, the rounds, the
 * seed), each on its own line after "flce truth settings 2"; not the coalitions drawn, the truth
 * seeds or the utility, which choose rows or read them but do not change one. The report
 * recomputes it from truth.json. */
static void settings_digest(const truth *t, int argc, char **argv, const char *algo, char out[17]) {
    char buf[16384];
    size_t len = 0;
    flce_catf(buf, sizeof buf, &len, "flce truth settings 2\n%s\n%s\n%d\n", algo, t->full ? "full" : "k", t->W);
    for (int i = 0; i < argc; i++) {
        int sk = flag_skipped(argv, i);
        if (sk) {
            i += sk - 1;
            continue;
        }
        flce_catf(buf, sizeof buf, &len, "%s\n", argv[i]);
    }
    flce_digest_hex(flce_digest(buf, len), out);
}

static flce_status truth_json(const truth *t, int argc, char **argv, const char *part, const char *algo, char *buf, size_t cap, flce_err *e) {
    size_t len = 0;
    flce_catf(buf, cap, &len, "{\n\t\"truth_format\":\t%d,\n\t\"algo\":\t\"%s\",\n\t\"clients\":\t%d,\n\t\"per_round\":\t%d,\n\t\"rounds\":\t%d,\n",
              t->fmt, algo, t->n, t->K, t->T);
    char co[32];
    if (t->sample) snprintf(co, sizeof co, "sample:%d", t->sample);
    else snprintf(co, sizeof co, "%s", t->all ? "all" : "loo");
    flce_catf(buf, cap, &len, "\t\"coalitions\":\t\"%s\",\n\t\"participation\":\t\"%s\",\n\t\"truth_seeds\":\t%d,\n\t\"seed\":\t%llu,\n",
              co, t->full ? "full" : "k", t->R, (unsigned long long)t->seed);
    flce_catf(buf, cap, &len, "\t\"window\":\t%d,\n\t\"utility\":\t\"%s\",\n\t\"partition_digest\":\t\"%s\",\n\t\"run_flags\":\t[", t->W,
              UTILITIES[t->utility], part);
    for (int i = 0, first = 1; i < argc; i++) {
        int sk = flag_skipped(argv, i);
        if (sk) {
            i += sk - 1;
            continue;
        }
        flce_catf(buf, cap, &len, "%s\"", first ? "" : ", ");
        first = 0;
        for (const char *q = argv[i]; *q; q++) {
            if (*q == '"' || *q == '\\') flce_catf(buf, cap, &len, "\\%c", *q);
            else if ((unsigned char)*q < 0x20) flce_catf(buf, cap, &len, "\\u%04x", *q);
            else flce_catf(buf, cap, &len, "%c", *q);
        }
        flce_catf(buf, cap, &len, "\"");
    }
    flce_catf(buf, cap, &len, "]\n}\n");
    if (len + 1 >= cap) return flce_fail(e, FLCE_ERR_ARG, "the flags are too long to record");
    return FLCE_OK;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* truth's own flags out of argv (into own), the rest kept for flce run's parser (into rest). */
static int split_args(int argc, char **argv, char **own, int *nown, char **rest, int *nrest) {
    static const char *valued[] = {"coalitions", "truth-seeds", "participation", "window", "utility", "jobs", "reuse-mb"};
    static const char *flags[] = {"resume", "force", "quiet", "help"};
    *nown = *nrest = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int mine = 0, takes = 0;
        if (!strncmp(a, "--", 2)) {
            size_t nl = strcspn(a + 2, "=");
            for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++)
                if (strlen(valued[k]) == nl && !strncmp(a + 2, valued[k], nl)) mine = 1, takes = a[2 + nl] != '=';
            for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
                if (!strcmp(a + 2, flags[k])) mine = 1;
        }
        if (!mine) {
            rest[(*nrest)++] = argv[i];
            continue;
        }
        own[(*nown)++] = argv[i];
        if (takes && i + 1 < argc) own[(*nown)++] = argv[++i];
    }
    return 0;
}

/* The job's settings for its one method, as flce run gives them to it (run_methods). */
static flce_run_cfg method_cfg(const flce_run_job *J) {
    flce_run_cfg c = J->c;
    flce_run_job_method_cfg(&c, J->names[0]);
    c.estimate = 0; /* the truth says its own (after its first coalition) */
    return c;
}

/* Every row not done yet: the empty coalition's from the initial model, the others trained (a
 * folder left by a kill continued), each appended as it finishes; the exit status. */
static int row_k(const truth *t, const truth_row *r) { /* the members trained a round */
    int s = popcount64(r->mask);
    return t->full ? s : (s < t->K ? s : t->K);
}
static int row_cost(const truth *t, const truth_row *r) { return row_k(t, r) * t->T; }

/* A coalition's work in images through the model, for the jobs' deal and the time left: T rounds of
 * its k of s members' training (the mean member's images, a training image taken as three forward
 * passes) and W tests of the test set (test_from). With W = T = 10 on the ground-truth study's
 * federation a client alone is nine tenths testing, so client-rounds alone mislead. */
static double row_work(const truth *t, const truth_row *r) {
    int s = popcount64(r->mask), k = row_k(t, r);
    double imgs = 0;
    for (int q = 0; q < t->n && q < 64; q++)
        if (r->mask >> q & 1) imgs += t->pass[q];
    return s ? 3.0 * t->T * k * imgs / s + (double)t->W * t->n_test : 0;
}

/* The rows not done of job me (owner[i] == me; owner NULL: every row), the rest as above. */
static int train_rows_memo(truth *t, const flce_run_job *J, const char *p_util, const char *p_work, const int *owner, int me,
                           int jobs, flce_memo *memo, flce_err *e) {
    double units = 0, units_done = 0, secs = 0;
    int todo = 0, ndone = 0;
    char who[32] = "";
    if (jobs > 1) snprintf(who, sizeof who, " %s %d/%d", t->mpi ? "process" : "job", me + 1, jobs);
    for (int i = 0; i < t->nrows; i++) {
        if (owner && owner[i] != me) continue;
        if (!t->rows[i].done) todo++, units += row_work(t, &t->rows[i]);
        else ndone++;
    }
    (void)ndone;
    int at = 0;
    for (int i = 0; i < t->nrows; i++) {
        truth_row *r = &t->rows[i];
        if (r->done || (owner && owner[i] != me)) continue;
        at++;
        int k = row_k(t, r);
        double t0 = now_s();
        char dir[1300];
        snprintf(dir, sizeof dir, "%s/m%llu-t%llu", p_work, (unsigned long long)r->mask, (unsigned long long)(t->seed + (uint64_t)r->seed));
        flce_status st = FLCE_OK;
        if (r->mask) { /* the empty coalition's row is the initial model's, filled already */
            flce_run_cfg c = method_cfg(J);
            c.nmembers = 0;
            for (int q = 0; q < t->n; q++)
                if (r->mask >> q & 1) c.members[c.nmembers++] = q;
            c.per_round = k;
            c.has_train_seed = r->seed > 0, c.train_seed = t->seed + (uint64_t)r->seed;
            c.test_loss = 1;
            c.test_from = t->T - t->W + 1; /* the window's rounds only: the others' evaluations are never read */
            c.memo = memo;                 /* the client updates and tests another coalition ran already */
            c.out = dir;
            char cj[1400];
            struct stat sb;
            snprintf(cj, sizeof cj, "%s/config.json", dir);
            c.resume = stat(cj, &sb) == 0; /* a coalition a kill stopped: continued */
            c.force = !c.resume;
            if (c.resume && c.test_from > 1) { /* begun by a build that tested every round: goes on so (the same rows) */
                flce_status js;
                cJSON *cfg = flce_json_read(cj, 1 << 20, &js, e);
                if (cfg && !cJSON_GetObjectItemCaseSensitive(cfg, "test_from")) c.test_from = 0;
                cJSON_Delete(cfg); /* unreadable: flce_run says so */
            }
            flce_run_summary sum;
            if ((st = flce_run(&c, NULL, NULL, &sum, e)) || (st = read_coalition(dir, t->T, t->W, r, e))) {
                fprintf(stderr, "%s: coalition %llu: %s\n", t->prog, (unsigned long long)r->mask, e->msg);
                return st == FLCE_ERR_ARG ? 2 : 1;
            }
        }
        r->done = 1;
        if ((st = append_row(t, p_util, r, e))) {
            fprintf(stderr, "%s: %s\n", t->prog, e->msg);
            return 1;
        }
        if (r->mask && rm_tree(dir) != 0) {
            fprintf(stderr, "%s: %s: cannot remove: %s\n", t->prog, dir, strerror(errno));
            return 1;
        }
        double dt = now_s() - t0;
        double w = row_work(t, r);
        secs += dt, units_done += w, units -= w;
        if (t->quiet) continue;
        char mem[200];
        members_text(r->mask, t->n, mem, sizeof mem);
        if (r->mask && units_done == w)
            fprintf(stderr, "%s:%s the trainings will take about %.0f s (the first: %.1f s for %d client-rounds)\n", t->prog, who,
                    (units + units_done) * secs / units_done, dt, k * t->T);
        char left[64] = "", secs_text[32];
        snprintf(secs_text, sizeof secs_text, "%.1f s", dt);
        if (units_done > 0) snprintf(left, sizeof left, "; about %.0f s left", units * secs / units_done);
        fprintf(stderr, "%s:%s coalition {%s} train seed %llu (%d of %d): accuracy %s, loss %s, %s%s\n", t->prog, who, mem,
                (unsigned long long)(t->seed + (uint64_t)r->seed), at, todo, r->acc, r->loss, r->mask ? secs_text : "the initial model", left);
    }
    return 0;
}

/* As train_rows_memo, with a memo of --reuse-mb (fl/memo.c) for this process's coalitions, and a
 * line of what it saved. */
static int train_rows(truth *t, const flce_run_job *J, const char *p_util, const char *p_work, const int *owner, int me, int jobs,
                      flce_err *e) {
    flce_memo *memo = t->reuse_mb ? flce_memo_new((size_t)t->reuse_mb << 20) : NULL; /* none (out of memory): all trained */
    int rc = train_rows_memo(t, J, p_util, p_work, owner, me, jobs, memo, e);
    long c[4];
    flce_memo_counts(memo, c);
    if (!t->quiet && memo && c[0] + c[1] + c[2] + c[3] > 0) { /* no updates counted: a method with client hooks (none reused) */
        char who[32] = "", ups[80] = "";
        if (jobs > 1) snprintf(who, sizeof who, " %s %d/%d", t->mpi ? "process" : "job", me + 1, jobs);
        if (c[0] + c[1] > 0) snprintf(ups, sizeof ups, "%ld of %ld client updates and ", c[0], c[0] + c[1]);
        fprintf(stderr, "%s:%s reused %s%ld of %ld test evaluations (the same model received or tested by another coalition; "
                "--reuse-mb %d)\n", t->prog, who, ups, c[2], c[2] + c[3], t->reuse_mb);
    }
    flce_memo_free(memo);
    return rc;
}

/* The rows not done dealt to `jobs` workers by cost, the largest first, each to the one with the
 * least so far (ties: the lower worker; equal costs in the plan's order): owner[i], -1 for rows
 * done. 0, or -1 out of memory. */
typedef struct {
    double cost;
    int i;
} cost_row;

static int by_cost(const void *a, const void *b) { /* cost descending, then the plan's order */
    const cost_row *x = a, *y = b;
    return x->cost != y->cost ? (x->cost < y->cost ? 1 : -1) : (x->i > y->i) - (x->i < y->i);
}

static int deal(const truth *t, int jobs, int *owner) {
    cost_row *order = malloc(sizeof(cost_row) * (size_t)(t->nrows ? t->nrows : 1));
    double *load = flce_calloc((size_t)jobs, sizeof(double));
    if (!order || !load) return free(order), free(load), -1;
    int no = 0;
    for (int i = 0; i < t->nrows; i++) {
        owner[i] = -1;
        if (!t->rows[i].done) order[no].cost = row_work(t, &t->rows[i]), order[no++].i = i;
    }
    qsort(order, (size_t)no, sizeof *order, by_cost);
    for (int q = 0; q < no; q++) {
        int best = 0;
        for (int w = 1; w < jobs; w++)
            if (load[w] < load[best]) best = w;
        owner[order[q].i] = best, load[best] += order[q].cost;
    }
    free(order), free(load);
    return 0;
}

/* The size line before the work (rank 0 or the one process). */
static void size_line(const truth *t, const flce_run_job *J, int workers, const char *what) {
    double units = 0;
    int todo = 0;
    for (int i = 0; i < t->nrows; i++)
        if (!t->rows[i].done) todo++, units += row_cost(t, &t->rows[i]);
    if (!t->quiet)
        fprintf(stderr, "%s: %s on %d clients, %d a round, %d rounds: %d coalitions x %d seed%s, %d to train (%d done), %.0f client-rounds "
                "on %d %s%s (the time they take: after the first)\n", t->prog, J->names[0], t->n, t->K, t->T, t->nrows / t->R, t->R,
                t->R == 1 ? "" : "s", todo, t->nrows - todo, units, workers, what, workers == 1 ? "" : !strcmp(what, "process") ? "es" : "s");
}

/* Under mpirun: every rank trains its share (deal), appending its rows; rank 0 reads them all back
 * once every rank has ended (the exit status the same on every rank). */
/* Every row as the workers (jobs, processes) appended them, read back; each must be there. The exit status. */
static int read_back(truth *t, const char *p_util, const char *who, flce_err *e) {
    for (int i = 0; i < t->nrows; i++) t->rows[i].done = 0;
    flce_status st = read_rows(t, p_util, e);
    for (int i = 0; !st && i < t->nrows; i++)
        if (!t->rows[i].done) st = flce_fail(e, FLCE_ERR_IO, "%s: coalition %llu missing after the %s ended", p_util, (unsigned long long)t->rows[i].mask, who);
    if (st) {
        fprintf(stderr, "%s: %s\n", t->prog, e->msg);
        return 1;
    }
    return 0;
}

static int rank_stderr = -1; /* a rank > 0's own stderr, set aside while rank 0 speaks for the checks */

static int run_ranks(truth *t, const flce_run_job *J, flce_comm *comm, const char *p_util, const char *p_work, flce_err *e) {
    int P = comm->size, me = comm->rank, *owner = malloc(sizeof(int) * (size_t)t->nrows), status = 0;
    if (me > 0 && rank_stderr >= 0) { /* its own stderr again: its progress lines and a failing coalition's line */
        fflush(stderr);
        dup2(rank_stderr, 2);
    }
    t->mpi = 1;
    if (me == 0) size_line(t, J, P, "process");
    if (!owner || deal(t, P, owner)) status = 1;
    if (!status && me == 0 && flce_mkdirs(p_work) != 0) {
        fprintf(stderr, "%s: %s: cannot create: %s\n", t->prog, p_work, strerror(errno));
        status = 1;
    }
    if (!status && me == 0 && write_rows(t, p_util, e)) { /* the header (and the rows done) before the ranks append */
        fprintf(stderr, "%s: %s\n", t->prog, e->msg);
        status = 1;
    }
    int64_t ok = status;
    flce_err ce;
    if (comm->sum_i64(comm, &ok, 1, &ce)) ok = 1; /* the work folder made before any rank trains */
    if (!ok) status = train_rows(t, J, p_util, p_work, owner, me, P, e);
    else status = 1;
    free(owner);
    int64_t bad = status != 0;
    if (comm->sum_i64(comm, &bad, 1, &ce)) bad = 1;
    if (bad) {
        if (me == 0 && !status) fprintf(stderr, "%s: another process of the job failed (mpirun shows its line); the rows written are kept: --resume continues\n", t->prog);
        return status ? status : 1;
    }
    if (me != 0) return 0;
    return read_back(t, p_util, "processes", e);
}

/* The rows not done, on `jobs` processes (fork; each coalition on max(1, CPUs / jobs) threads), the
 * coalitions dealt by cost, largest first, each to the job with the least so far; the rows they
 * append are read back. The exit status. */
static int run_jobs(truth *t, flce_run_job *J, const char *p_util, const char *p_work, int jobs, flce_err *e) {
    int todo = 0;
    for (int i = 0; i < t->nrows; i++) todo += !t->rows[i].done;
    size_line(t, J, jobs, "job");
    if (todo && flce_mkdirs(p_work) != 0) {
        fprintf(stderr, "%s: %s: cannot create: %s\n", t->prog, p_work, strerror(errno));
        return 1;
    }
    if (jobs == 1 || todo < 2) return train_rows(t, J, p_util, p_work, NULL, 0, 1, e);
    int *owner = malloc(sizeof(int) * (size_t)t->nrows);
    pid_t *pid = flce_calloc((size_t)jobs, sizeof(pid_t));
    if (!owner || !pid || deal(t, jobs, owner)) {
        free(owner), free(pid);
        fprintf(stderr, "%s: out of memory\n", t->prog);
        return 1;
    }
    flce_status hs = write_rows(t, p_util, e); /* the header (and the rows done) before the jobs append */
    if (hs) {
        free(owner), free(pid);
        fprintf(stderr, "%s: %s\n", t->prog, e->msg);
        return 1;
    }
    if (J->breq.be) J->breq.be->destroy(J->breq.be), J->breq.be = NULL; /* no thread pool crosses a fork */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = cpus > jobs ? (int)(cpus / jobs) : 1, status = 0;
    fflush(stdout), fflush(stderr);
    pid_t parent = getpid();
    for (int w = 0; w < jobs; w++) {
        pid[w] = fork();
        if (pid[w] == 0) {
            /* a job ends with its parent: a SIGKILL of flce truth once left its jobs training to the
             * end, holding the folder's lock, so that --resume was refused until they were done */
            if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(1);
            flce_backend_set_cpu_threads(threads);
            int rc = train_rows(t, J, p_util, p_work, owner, w, jobs, e);
            if (J->breq.be) J->breq.be->destroy(J->breq.be);
            fflush(stdout), fflush(stderr);
            _exit(rc);
        }
        if (pid[w] < 0) {
            fprintf(stderr, "%s: job %d/%d: cannot start a process: %s\n", t->prog, w + 1, jobs, strerror(errno));
            status = 1;
            break;
        }
    }
    for (int w = 0; w < jobs; w++) {
        int ws;
        if (pid[w] <= 0) continue;
        while (waitpid(pid[w], &ws, 0) < 0 && errno == EINTR) {}
        int rc = WIFEXITED(ws) ? WEXITSTATUS(ws) : 1;
        if (WIFSIGNALED(ws))
            fprintf(stderr, "%s: job %d/%d ended by signal %d; the rows written are kept: --resume continues\n", t->prog, w + 1, jobs, WTERMSIG(ws));
        else if (rc > 2)
            fprintf(stderr, "%s: job %d/%d stopped (status %d); the rows written are kept: --resume continues\n", t->prog, w + 1, jobs, rc);
        if (rc && (!status || rc == 2)) status = rc > 2 ? 1 : rc;
    }
    free(owner), free(pid);
    if (status) return status;
    return read_back(t, p_util, "jobs", e);
}

typedef struct { /* flce truth's own options */
    const char *coal, *participation, *utility;
    int R, W, resume, force, quiet, jobs, reuse_mb;
    int ut;     /* the index of utility in UTILITIES */
    int sample; /* sample:M's M (0: all or loo) */
} truth_opts;

typedef struct { /* the files of a truth's folder */
    char util[1200], val[1200], json[1200], work[1200], lock[1200];
} truth_paths;

/* flce truth's own options, parsed and checked: 0, or cli_parse's status (1 after --help), or 2 */
static int parse_own(const char *prog, int nown, char **own, truth_opts *o) {
    *o = (truth_opts){.coal = "all", .participation = "k", .utility = "accuracy", .R = 1, .jobs = 1, .reuse_mb = 512};
    cli_opt opts[] = {
        {"coalitions", CLI_STR, &o->coal, "all (every coalition: exact Shapley and Banzhaf; at most 16 clients), loo (the empty one, each client alone, N minus each, N: 2n + 2 trainings, at most 32 clients) or sample:M (loo's and M more drawn at random: Shapley and Banzhaf estimated by size strata; 4 to 32 clients)", 0},
        {"truth-seeds", CLI_INT, &o->R, "N trainings of each coalition, train seeds --seed .. --seed + N - 1 (the data and partition stay --seed's); values of their mean, their spread beside (default 1)", 0},
        {"participation", CLI_STR, &o->participation, "k (default: min(--per-round, |S|) of a coalition S a round, by the run's seeded stream) or full (every member every round)", 0},
        {"window", CLI_INT, &o->W, "the last N rounds' mean accuracy and loss beside the final round's (default min(10, --rounds)); only these rounds are tested", 0},
        {"utility", CLI_STR, &o->utility, "v(S) for values.csv: accuracy (the final round's, default), accuracy-window, loss or loss-window (v = minus the loss)", 0},
        {"jobs", CLI_INT, &o->jobs, "coalitions trained at once, each in a process of its own on CPUs / N threads (default 1: one at a time on the backend's threads); the same table", 0},
        {"reuse-mb", CLI_INT, &o->reuse_mb, "memory (MiB, per job) for client updates and test evaluations that coalitions share (the same model, round, client and seed: the same bits), the earliest rounds' kept first (default 512; 0: every coalition trains and tests all its own)", 0},
        {"resume", CLI_FLAG, &o->resume, "continue the truth in --out: finished coalitions are never trained again", 0},
        {"force", CLI_FLAG, &o->force, "start the truth in --out again (its utilities, values and work are removed)", 0},
        {"quiet", CLI_FLAG, &o->quiet, "no size line and no progress lines", 0},
        {0},
    };
    const char *pos[1];
    int np, rc = cli_parse(prog, USAGE, opts, nown, own, pos, 0, &np);
    if (rc) return rc;
    o->sample = 0;
    if (!strncmp(o->coal, "sample:", 7)) {
        char *end;
        long m = strtol(o->coal + 7, &end, 10);
        if (end == o->coal + 7 || *end || m < 1 || m > 10000)
            return cli_usage_error(prog, "--coalitions '%s': sample:M takes a whole number M from 1 to 10000", o->coal);
        o->sample = (int)m;
    } else if (strcmp(o->coal, "all") && strcmp(o->coal, "loo"))
        return cli_usage_error(prog, "--coalitions '%s': all, loo or sample:M", o->coal);
    if (strcmp(o->participation, "k") && strcmp(o->participation, "full"))
        return cli_usage_error(prog, "--participation '%s': k or full", o->participation);
    o->ut = -1;
    for (int k = 0; k < 4; k++)
        if (!strcmp(o->utility, UTILITIES[k])) o->ut = k;
    if (o->ut < 0) return cli_usage_error(prog, "--utility '%s': accuracy, accuracy-window, loss or loss-window", o->utility);
    if (o->R < 1 || o->R > TRUTH_MAX_SEEDS) return cli_usage_error(prog, "--truth-seeds %d: 1 to %d", o->R, TRUTH_MAX_SEEDS);
    if (o->resume && o->force) return cli_usage_error(prog, "--resume and --force exclude each other");
    if (o->jobs < 1 || o->jobs > 64) return cli_usage_error(prog, "--jobs %d: 1 to 64", o->jobs);
    if (o->reuse_mb < 0 || o->reuse_mb > 1048576) return cli_usage_error(prog, "--reuse-mb %d: 0 to 1048576", o->reuse_mb);
    if (cli_find(opts, "window")->seen && o->W < 1) return cli_usage_error(prog, "--window %d: 1 to --rounds", o->W); /* 0: the default's mark */
    return 0;
}

/* whether arg is the flag name (alone, or name=VALUE) */
static int is_flag(const char *arg, const char *name) {
    size_t l = strlen(name);
    return !strncmp(arg, name, l) && (arg[l] == '\0' || arg[l] == '=');
}

/* the run's flags that flce truth sets for each coalition, refused; *has_algo: --algo given,
 * *has_k: --per-round given */
static int check_run_flags(const char *prog, int nrest, char **rest, int *has_algo, int *has_k) {
    static const char *refused[] = {"--members", "--seeds", "--train-seed", "--test-loss"};
    *has_algo = *has_k = 0;
    for (int i = 0; i < nrest; i++) {
        for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++)
            if (is_flag(rest[i], refused[k]))
                return cli_usage_error(prog, "%s: flce truth sets it for each coalition (--truth-seeds: several trainings)", refused[k]);
        *has_algo |= is_flag(rest[i], "--algo"), *has_k |= is_flag(rest[i], "--per-round");
    }
    return 0;
}

/* the plan of the truth: its settings checked against the run's, every coalition x seed in order
 * (t->rows, *nm coalitions); 0, 1 (out of memory) or 2 */
static int plan_truth(truth *t, const flce_run_job *J, const truth_opts *o, const char *prog, int *nm) {
    if (J->nm != 1) return cli_usage_error(prog, "--algo: one method (the table is of one training rule)");
    if (J->ns) return cli_usage_error(prog, "--seeds: flce truth takes one --seed (--truth-seeds: several trainings of each coalition)");
    if (flce_run_job_released_selection(prog, &J->c, J->names[0], "a coalition")) return 2; /* its rows: flce run --members's */
    if (J->c.schedule_sweep || J->c.schedule_window)
        return cli_usage_error(prog, "--schedule %s: selects clients outside a coalition; a truth selects only its members",
                               J->c.schedule_sweep ? "sweep" : "window");
    int all = !strcmp(o->coal, "all");
    t->prog = prog, t->out = J->out, t->n = J->c.clients, t->R = o->R, t->K = J->c.per_round, t->T = J->c.rounds, t->all = all;
    t->full = !strcmp(o->participation, "full"), t->utility = o->ut, t->quiet = o->quiet, t->seed = J->c.seed;
    t->reuse_mb = o->reuse_mb;
    t->W = o->W ? o->W : (t->T < 10 ? t->T : 10);
    if (t->W < 1 || t->W > t->T) return cli_usage_error(prog, "--window %d: 1 to --rounds (%d)", o->W, t->T);
    if (all && t->n > FLCE_VALUES_MAX_N)
        return cli_usage_error(prog, "--clients %d: every coalition of at most %d clients (2^n trainings); --coalitions loo for more", t->n, FLCE_VALUES_MAX_N);
    if (!all && t->n > FLCE_VALUES_MAX_SPARSE)
        return cli_usage_error(prog, "--clients %d: --coalitions %s takes at most %d", t->n, o->sample ? "sample:M" : "loo", FLCE_VALUES_MAX_SPARSE);
    t->sample = o->sample;
    if (o->sample) { /* the coalitions besides leave-one-out's: 2^n - 2n - 2 */
        double room = ldexp(1.0, t->n) - 2.0 * t->n - 2;
        if (room < 1) return cli_usage_error(prog, "--coalitions sample:M: with %d clients leave-one-out's coalitions are all of them (--coalitions all)", t->n);
        if (o->sample > room)
            return cli_usage_error(prog, "--coalitions sample:%d: %d clients have %.0f coalitions besides leave-one-out's", o->sample, t->n, room);
    }
    if (t->seed + (uint64_t)o->R - 1 > ((uint64_t)1 << 53))
        return cli_usage_error(prog, "--seed %llu with --truth-seeds %d: the train seeds pass 2^53", (unsigned long long)t->seed, o->R);
    uint64_t *masks = malloc(sizeof(uint64_t) * (((size_t)1 << (all ? t->n : 7)) + (size_t)o->sample) + 2 * FLCE_VALUES_MAX_SPARSE * 8 + 16);
    *nm = masks ? plan_masks(t->n, all, o->sample, t->seed, masks) : 0;
    t->nrows = *nm * o->R;
    t->rows = flce_calloc((size_t)t->nrows, sizeof *t->rows);
    if (!masks || !t->rows) {
        free(masks);
        fprintf(stderr, "%s: out of memory\n", prog);
        return 1;
    }
    for (int i = 0; i < *nm; i++)
        for (int r = 0; r < o->R; r++) t->rows[i * o->R + r].mask = masks[i], t->rows[i * o->R + r].seed = r;
    if (o->sample) { /* every size stratum the estimators read holds a coalition: said now, not after the trainings */
        uint32_t *mm = malloc(sizeof *mm * (size_t)*nm);
        double *zero = flce_calloc((size_t)*nm, sizeof *zero);
        flce_err se = {{0}};
        for (int i = 0; mm && i < *nm; i++) mm[i] = (uint32_t)masks[i];
        flce_coalitions tab = {*nm, mm, zero};
        int bad = mm && zero && flce_values_sampled(t->n, &tab, NULL, NULL, &se) != FLCE_OK;
        free(mm), free(zero), free(masks);
        const char *why = strstr(se.msg, "no coalition");
        if (bad) return cli_usage_error(prog, "--coalitions %s: the coalitions drawn leave a size stratum empty (%s): a larger M", o->coal, why ? why : se.msg);
        return 0;
    }
    free(masks);
    return 0;
}

/* A coalition of more than K members draws K of them a round by position (the engine's selection
 * stream, flce run --members): in a short run a member may never be drawn, and the coalition's
 * model is then its drawn members' alone. Said in one line before any training, the coalitions
 * named (docs/commands/truth.md); nothing where every member trains every round. */
static void warn_unselected(const truth *t) {
    if (t->full) return;
    char list[600] = "";
    size_t ll = 0;
    int hit = 0;
    for (int i = 0; i < t->nrows; i++) {
        uint64_t mask = t->rows[i].mask, seen = 0;
        int m = popcount64(mask), mem[64], K = t->K < m ? t->K : m, sel[64];
        if (K >= m) continue;
        for (int k = 0, j = 0; k < t->n; k++)
            if (mask >> k & 1) mem[j++] = k;
        for (int r = 0; r < t->T; r++) {
            flce_rng g;
            flce_rng_init(&g, t->seed + (uint64_t)t->rows[i].seed, FLCE_RNG_SELECT, (uint32_t)r, 0);
            flce_rng_sample(&g, m, K, sel);
            for (int q = 0; q < K; q++) seen |= (uint64_t)1 << mem[sel[q]];
        }
        if (seen == mask) continue;
        char c[200], u[200];
        members_text(mask, t->n, c, sizeof c), members_text(mask & ~seen, t->n, u, sizeof u);
        if (hit++ < 6) {
            flce_catf(list, sizeof list, &ll, "%s{%s} (never %s", hit > 1 ? "; " : "", c, u);
            if (t->R > 1) flce_catf(list, sizeof list, &ll, ", train seed %llu", (unsigned long long)(t->seed + (uint64_t)t->rows[i].seed));
            flce_catf(list, sizeof list, &ll, ")");
        }
    }
    if (hit)
        fprintf(stderr, "%s: warning: in %d coalition training%s a member is never selected (%d of a coalition a round, %d rounds): %s%s; "
                "each such coalition's model is its selected members' alone (docs/commands/truth.md)\n", t->prog, hit, hit == 1 ? "" : "s",
                t->K, t->T, list, hit > 6 ? "; ..." : "");
}

enum { MADE_OUT = 1, MADE_LOCK = 2, MADE_JSON = 4 }; /* what a truth made, removed again when refused before any row */

/* the folder, before any work: it takes files, none of the truth's files is a folder, it is no
 * run's folder, it holds no truth unless --resume or --force, and one with --resume; made and
 * locked (*made: MADE_* of what was made here; 0 where another truth holds the lock). */
static int open_folder(const truth *t, truth_opts *o, const truth_paths *p, int *lock_fd, int *made) {
    const char *prog = t->prog;
    char where[1200], cj[1200];
    struct stat sb;
    if (strlen(t->out) > FLCE_MAX_OUT_PATH - 40) return cli_usage_error(prog, "--out: at most %d characters", FLCE_MAX_OUT_PATH - 40);
    if (flce_path_writable(t->out, where, sizeof where) != 0) {
        fprintf(stderr, "%s: --out %s: %s cannot take files (%s)\n", prog, t->out, where, strerror(errno));
        return 1;
    }
    const char *files[3] = {p->util, p->val, p->json};
    for (int i = 0; i < 3; i++) /* lstat: a link is refused here, before --force removes anything (the writer refuses it) */
        if (lstat(files[i], &sb) == 0 && !S_ISREG(sb.st_mode)) {
            fprintf(stderr, "%s: %s: cannot replace: %s\n", prog, files[i],
                    S_ISDIR(sb.st_mode) ? "a folder, not a file" : S_ISLNK(sb.st_mode) ? "a symbolic link, not a file" : "not a regular file");
            return 1;
        }
    snprintf(cj, sizeof cj, "%s/config.json", t->out);
    if (stat(cj, &sb) == 0) return cli_usage_error(prog, "--out %s is the folder of a run (config.json); use another folder", t->out);
    snprintf(cj, sizeof cj, "%s/summary.csv", t->out);
    if (stat(cj, &sb) == 0) return cli_usage_error(prog, "--out %s is a folder of runs (summary.csv); use another folder", t->out);
    int exists = stat(p->json, &sb) == 0 || stat(p->util, &sb) == 0;
    if (exists && !o->resume && !o->force) return cli_usage_error(prog, "--out %s holds a truth: --resume continues it, --force starts it again", t->out);
    if (o->resume && !exists) /* as flce run --resume: a mistyped --out never trains a whole truth afresh */
        return cli_usage_error(prog, "--resume: --out %s holds no truth (no truth.json or utilities.csv): nothing to continue", t->out);
    int out_made = stat(t->out, &sb) != 0;
    if (flce_mkdirs(t->out) != 0) {
        fprintf(stderr, "%s: --out %s: cannot create: %s\n", prog, t->out, strerror(errno));
        return 1;
    }
    const char *wait_for = getenv("FLCE_TEST_TRUTH_LOCK_AFTER"); /* tests: the race of two truths made certain */
    for (int i = 0; wait_for && i < 6000 && access(wait_for, F_OK) != 0; i++) usleep(100000);
    int lock_made = lstat(p->lock, &sb) != 0, json_made = lstat(p->json, &sb) != 0;
    *lock_fd = open(p->lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (*lock_fd < 0 || flock(*lock_fd, LOCK_EX | LOCK_NB) != 0) {
        fprintf(stderr, "%s: %s: %s\n", prog, p->lock, *lock_fd < 0 ? strerror(errno) : "another flce truth is writing this folder");
        /* the folder is another truth's (which may have made it a moment ago): nothing of it removed */
        if (*lock_fd >= 0) close(*lock_fd), *lock_fd = -1;
        return 1;
    }
    *made = (out_made ? MADE_OUT : 0) | (lock_made ? MADE_LOCK : 0) | (json_made ? MADE_JSON : 0);
    return 0;
}

/* the empty coalition of each seed: the initial model, which checks the settings and the data
 * first; part: the partition's digest */
static int empty_rows(truth *t, const flce_run_job *J, char part[17]) {
    flce_err e = {{0}};
    for (int r = 0; r < t->R; r++) {
        flce_run_cfg c = method_cfg(J);
        c.has_train_seed = r > 0, c.train_seed = t->seed + (uint64_t)r; /* seed 0: the plain run's */
        double acc, loss;
        uint64_t dm, dp;
        flce_status st = flce_initial_eval(&c, &acc, &loss, &dm, &dp, r ? NULL : t->pass, &t->n_test, &e);
        if (st) {
            fprintf(stderr, "%s: %s\n", t->prog, e.msg);
            return st == FLCE_ERR_ARG ? 2 : 1;
        }
        truth_row *z = &t->rows[r]; /* mask 0 first */
        snprintf(z->acc, sizeof z->acc, "%.6f", acc), snprintf(z->loss, sizeof z->loss, "%.9g", loss);
        flce_number(z->acc, &z->accw), z->lossw = text_value(loss, "%.9g");
        flce_digest_hex(dm, z->digest);
        flce_digest_hex(dp, part);
    }
    for (int q = 0; q < t->n; q++) /* the samples held -> a round's training images */
        t->pass[q] = J->c.local_steps > 0 ? (double)J->c.local_steps * J->c.batch : t->pass[q] * J->c.epochs;
    return 0;
}

/* --resume: truth.json must be js (this command's settings); the finished rows read back, the
 * empty coalition's as evaluated now, the table rewritten in the plan's order */
static int resume_rows(truth *t, const truth_paths *p, const char *js) {
    const char *prog = t->prog;
    char why[200], old[16384];
    flce_err e = {{0}};
    FILE *f = flce_fopen_regular(p->json, why, sizeof why);
    size_t ol = f ? fread(old, 1, sizeof old - 1, f) : 0;
    if (f) fclose(f);
    old[ol] = '\0';
    const char *nul = f ? memchr(old, '\0', ol) : NULL; /* the text before it would be read as the whole file */
    cJSON *parsed = f && !nul ? cJSON_Parse(old) : NULL;
    int damaged = f && (nul || !parsed || !cJSON_IsObject(parsed));
    cJSON_Delete(parsed);
    if (damaged) {
        if (nul) fprintf(stderr, "%s: --resume: %s: damaged (a NUL byte at byte %zu); --force starts again\n", prog, p->json, (size_t)(nul - old));
        else fprintf(stderr, "%s: --resume: %s: damaged (not a JSON object); --force starts again\n", prog, p->json);
        return 1;
    }
    if (f && !strstr(old, "\"truth_format\":\t1,\n") && !strstr(old, "\"truth_format\":\t2,\n")) { /* a string, another number */
        fprintf(stderr, "%s: --resume: %s: truth_format is not 1 or 2 as flce truth writes it (damaged, or of another build; "
                "--force starts again)\n", prog, p->json);
        return 1;
    }
    if (!f || strcmp(old, js)) {
        fprintf(stderr, "%s: --resume: %s %s the settings of this command (compare its run_flags; --force starts again)\n", prog, p->json,
                f ? "differs from" : "is missing, so nothing says this folder holds");
        return 2;
    }
    truth_row zero[TRUTH_MAX_SEEDS];
    memcpy(zero, t->rows, sizeof(truth_row) * (size_t)t->R);
    for (int r = 0; r < t->R; r++) t->rows[r].done = 0;
    if (read_rows(t, p->util, &e)) {
        fprintf(stderr, "%s: %s\n", prog, e.msg);
        return 1;
    }
    for (int r = 0; r < t->R; r++) /* the empty coalition as recorded must be the initial model evaluated now */
        if (t->rows[r].done && (strcmp(t->rows[r].acc, zero[r].acc) || strcmp(t->rows[r].loss, zero[r].loss) ||
                                strcmp(t->rows[r].digest, zero[r].digest))) {
            fprintf(stderr, "%s: %s: the empty coalition's row is not this initial model's (another build or data?); --force starts again\n", prog, p->util);
            return 1;
        }
    if (write_rows(t, p->util, &e)) {
        fprintf(stderr, "%s: %s\n", prog, e.msg);
        return 1;
    }
    return 0;
}

/* rank 0's setup of the folder: opened and locked, the empty coalitions evaluated, truth.json
 * written (or compared, --resume, and the finished rows read back; --force: the old truth removed) */
static int setup_folder(truth *t, const flce_run_job *J, truth_opts *o, int nrest, char **rest, const truth_paths *p, int *lock_fd, int *made) {
    const char *prog = t->prog;
    char part[17] = "", js[16384];
    flce_err e = {{0}};
    int status = open_folder(t, o, p, lock_fd, made);
    if (!status) status = empty_rows(t, J, part); /* opens the backend */
    if (!status && o->jobs > 1 && J->breq.be && strcmp(J->breq.be->name, "cpu") && strcmp(J->breq.be->name, "reference"))
        /* a GPU driver's state does not survive a fork: refused before anything is written */
        status = cli_usage_error(prog, "--jobs %d: the %s backend is not forked; one job a GPU (or mpirun -n P, a process a device)", o->jobs,
                                 J->breq.be->name);
    if (status) return status;
    t->fmt = 2;
    if (o->resume) { /* a truth begun by an earlier build goes on in its format (1: rows without settings) */
        char why[200], old[16384];
        FILE *f = flce_fopen_regular(p->json, why, sizeof why);
        size_t ol = f ? fread(old, 1, sizeof old - 1, f) : 0;
        if (f) fclose(f);
        old[ol] = '\0';
        if (strstr(old, "\"truth_format\":\t1,\n")) t->fmt = 1;
    }
    settings_digest(t, nrest, rest, J->names[0], t->sdig);
    if (truth_json(t, nrest, rest, part, J->names[0], js, sizeof js, &e)) return cli_usage_error(prog, "%s", e.msg);
    if (o->force && (rm_tree(p->work) != 0 || (remove(p->util) != 0 && errno != ENOENT) || (remove(p->val) != 0 && errno != ENOENT))) {
        fprintf(stderr, "%s: --force: cannot remove the earlier truth in %s: %s\n", prog, t->out, strerror(errno));
        return 1;
    }
    if (o->resume) return resume_rows(t, p, js);
    if (flce_write_file_atomic(p->json, js, strlen(js), &e)) {
        fprintf(stderr, "%s: %s\n", prog, e.msg);
        return 1;
    }
    return 0;
}

/* the table whole, the values from it, and the values printed */
static int finish_truth(const truth *t, const truth_paths *p, int nm) {
    double vals[FLCE_VALUES_MAX_SPARSE][4];
    flce_err e = {{0}};
    if (write_rows(t, p->util, &e) || write_values(t, p->val, vals, &e)) {
        fprintf(stderr, "%s: %s\n", t->prog, e.msg);
        return 1;
    }
    rmdir(p->work); /* empty now (a folder left by hand stays) */
    printf("%6s %12s %12s %12s %12s\n", "client", "shapley", "banzhaf", "loo", "alone");
    for (int i = 0; i < t->n; i++) {
        printf("%6d", i);
        for (int k = 0; k < 4; k++) /* no Shapley or Banzhaf from leave-one-out's coalitions: n/a, as values.csv leaves them empty */
            isnan(vals[i][k]) ? printf(" %12s", "n/a") : printf(" %12.6f", vals[i][k]);
        printf("\n");
    }
    printf("(%s of the final global model on the test set; %d coalitions x %d seed%s)\nutilities: %s\nvalues: %s\n", UTILITIES[t->utility], nm, t->R,
           t->R == 1 ? "" : "s", p->util, p->val);
    return 0;
}

static int cmd_truth(int argc, char **argv, flce_comm *comm) {
    const char *prog = "flce truth";
    char **own = malloc(sizeof(char *) * (size_t)(argc + 1)), **rest = malloc(sizeof(char *) * (size_t)(argc + 3));
    if (!own || !rest) {
        free(own), free(rest);
        fprintf(stderr, "%s: out of memory\n", prog);
        return 1;
    }
    int nown, nrest, has_algo, has_k;
    split_args(argc, argv, own, &nown, rest, &nrest);
    truth_opts o;
    int rc = parse_own(prog, nown, own, &o);
    if (!rc) rc = check_run_flags(prog, nrest, rest, &has_algo, &has_k);
    int P = comm ? comm->size : 1, root = !comm || comm->rank == 0;
    if (!rc && P > 1 && o.jobs > 1) rc = cli_usage_error(prog, "--jobs %d: under mpirun each process is one job (mpirun -n P)", o.jobs);
    if (rc) {
        free(own), free(rest);
        return rc == 1 ? 0 : rc;
    }
    char *algo_arg[2] = {"--algo", "fedavg"};
    int nrun = nrest;
    if (!has_algo) rest[nrun++] = algo_arg[0], rest[nrun++] = algo_arg[1];

    flce_run_job J0, *J = &J0;
    truth t = {0};
    truth_paths p;
    int lock_fd = -1, made = 0, nm = 0; /* made: MADE_* of what this truth made, removed again when refused before any row */
    flce_err e = {{0}};
    rc = flce_run_job_parse(prog, nrun, rest, NULL, 2, J);
    flce_dataset_keep(1); /* every coalition trains on the same data: its files read and decoded once */
    int status = rc < 0 ? 0 : rc;
    if (!rc) status = plan_truth(&t, J, &o, prog, &nm);
    if (!rc && !status && t.full && has_k && J->c.per_round < t.n) /* a K below n under full: said, not recorded and ignored */
        status = cli_usage_error(prog, "--participation full: every member every round, and --per-round %d is below the %d clients "
                                 "(--per-round %d, or none)", J->c.per_round, t.n, t.n);
    if (rc || status) goto done;
    if (root) warn_unselected(&t);
    snprintf(p.util, sizeof p.util, "%s/utilities.csv", t.out), snprintf(p.val, sizeof p.val, "%s/values.csv", t.out);
    snprintf(p.json, sizeof p.json, "%s/truth.json", t.out), snprintf(p.work, sizeof p.work, "%s/work", t.out);
    snprintf(p.lock, sizeof p.lock, "%s/truth.lock", t.out);
    if (root) status = setup_folder(&t, J, &o, nrest, rest, &p, &lock_fd, &made); /* under mpirun rank 0 alone checks, reads and writes the folder */
    if (P > 1) { /* rank 0's status, then the plan's rows as it found them, to every rank */
        int64_t s0 = status;
        flce_err ce;
        if (comm->bcast(comm, &s0, 8, 0, &ce) || (!s0 && comm->bcast(comm, t.rows, sizeof(truth_row) * (size_t)t.nrows, 0, &ce)) ||
            (!s0 && comm->bcast(comm, &t.fmt, sizeof t.fmt, 0, &ce)) || (!s0 && comm->bcast(comm, t.sdig, sizeof t.sdig, 0, &ce)) ||
            (!s0 && comm->bcast(comm, t.pass, sizeof t.pass, 0, &ce)) || (!s0 && comm->bcast(comm, &t.n_test, sizeof t.n_test, 0, &ce))) {
            if (root) fprintf(stderr, "%s: %s\n", prog, ce.msg);
            s0 = 1;
        }
        status = (int)s0;
    }
    if (status) goto done;
    if (P > 1) status = run_ranks(&t, J, comm, p.util, p.work, &e);
    else status = run_jobs(&t, J, p.util, p.work, o.jobs, &e);
    if (!status && root) status = finish_truth(&t, &p, nm);
done:
    if (lock_fd >= 0) close(lock_fd);
    if (status && made) { /* refused (a setting the engine checks, the data): nothing it made is left */
        struct stat ub;
        if (stat(p.util, &ub) != 0) { /* a row written: all kept for --resume */
            if (made & MADE_JSON) remove(p.json);
            if (made & MADE_LOCK) remove(p.lock);
            if (made & MADE_OUT) rmdir(t.out);
        }
    }
    flce_run_job_free(J);
    flce_dataset_keep(0);
    free(t.rows), free(own), free(rest);
    return status;
}

int flce_cmd_truth(int argc, char **argv) {
#ifdef FLCE_HAVE_MPI
    int failed;
    flce_comm *comm = flce_comm_open(&failed);
    if (failed) return 1;
    if (comm && comm->rank > 0) { /* rank 0 speaks for the checks; the others' errors of their training are said (run_ranks) */
        rank_stderr = dup(2);
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) { /* only the noise differs */ }
    }
    /* a rank waits for the others' whole shares of the coalitions (hours in a study), never a
     * round's exchange: no time limit (mpirun ends the job where a process dies) */
    if (comm) flce_comm_set_wait(comm, 0, 2);
    int rc = cmd_truth(argc, argv, comm && comm->size > 1 ? comm : NULL);
    flce_comm_close(comm);
    return rc;
#else
    return cmd_truth(argc, argv, NULL);
#endif
}
