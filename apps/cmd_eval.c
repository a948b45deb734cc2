/* cmd_eval.c: `flce eval TRACE_DIR`: FLCE contributions from a recorded trace
 * (docs/formats.md): prototypes.npy, selected.npy, data_sizes.npy and the optional
 * round_weights.npy / class_weights.npy. Writes contributions.csv, Q.npy and
 * X_completed.npy into --out and prints client, data share and contribution. */
#include <ctype.h>
#include <strings.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "commands.h"
#include "flce_eq.h"
#include "npy.h"

static const char *USAGE =
    "usage: flce eval TRACE_DIR [--out DIR] [--ablate M|V|Q|CMC]... [--round-weights FILE]\n"
    "                 [--class-weights FILE] [--rank R] [--mu MU] [--solver als|gd] [--max-iter N] [--seed S]\n"
    "Reads a recorded trace and writes contributions.csv, Q.npy and X_completed.npy into --out\n"
    "(default: the trace directory). Weight files are .npy (float64) or numbers separated by\n"
    "commas, spaces or newlines.";

static int file_exists(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* A weight vector of exactly len finite non-negative numbers with a positive sum, from a
 * .npy file (float64 [len]) or a text list. */
static flce_status read_weights(const char *path, int len, double **out, flce_err *e) {
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return flce_fail(e, FLCE_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    char magic[6] = {0};
    size_t got = fread(magic, 1, 6, f);
    fclose(f);
    double *w = malloc((size_t)len * sizeof *w);
    if (!w) return flce_fail(e, FLCE_ERR_NOMEM, "%s: out of memory", path);
    flce_status st = FLCE_OK;
    if (got == 6 && !memcmp(magic, "\x93NUMPY", 6)) {
        flce_npy a;
        int64_t shp[1] = {len};
        if ((st = flce_npy_read(path, &a, e))) goto fail;
        st = flce_npy_expect(path, &a, FLCE_NPY_F64, 1, shp, e);
        if (!st) memcpy(w, a.data, (size_t)len * sizeof *w);
        flce_npy_free(&a);
        if (st) goto fail;
    } else {
        f = fopen(path, "r");
        int n = 0;
        char tok[128];
        int c, tl = 0;
        for (;;) {
            c = fgetc(f);
            if (c == EOF || c == ',' || isspace(c)) {
                if (tl) {
                    tok[tl] = '\0';
                    char *end;
                    double v = strtod(tok, &end);
                    if (*end) {
                        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: '%s' is not a number", path, tok);
                        break;
                    }
                    if (n == len) {
                        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: more than %d weights", path, len);
                        break;
                    }
                    w[n++] = v;
                    tl = 0;
                }
                if (c == EOF) break;
            } else if (tl < (int)sizeof tok - 1) {
                tok[tl++] = (char)c;
            } else {
                st = flce_fail(e, FLCE_ERR_FORMAT, "%s: a token longer than %d characters", path, (int)sizeof tok - 1);
                break;
            }
        }
        fclose(f);
        if (!st && n != len) st = flce_fail(e, FLCE_ERR_FORMAT, "%s: %d weights, expected %d", path, n, len);
        if (st) goto fail;
    }
    double s = 0;
    for (int i = 0; i < len; i++) {
        if (!isfinite(w[i]) || w[i] < 0) {
            st = flce_fail(e, FLCE_ERR_FORMAT, "%s: weight %d is %g (must be finite and >= 0)", path, i, w[i]);
            goto fail;
        }
        s += w[i];
    }
    if (!(s > 0)) {
        st = flce_fail(e, FLCE_ERR_FORMAT, "%s: weights sum to 0", path);
        goto fail;
    }
    *out = w;
    return FLCE_OK;
fail:
    free(w);
    return st;
}

int flce_cmd_eval(int argc, char **argv) {
    const char *prog = "flce eval", *out = NULL, *rw_path = NULL, *cw_path = NULL, *solver = "als";
    cli_list ablate = {{0}, 0};
    int rank = 0, max_iter = 500;
    double mu = 1e-2;
    uint64_t seed = 1;
    cli_opt opts[] = {
        {"out", CLI_STR, &out, "output folder (default: the trace folder)", 0},
        {"ablate", CLI_LIST, &ablate, "M, V, Q or CMC (repeatable): an ablation variant", 0},
        {"round-weights", CLI_STR, &rw_path, "a_t per round (.npy float64 [T] or a text list)", 0},
        {"class-weights", CLI_STR, &cw_path, "b_c per class (.npy float64 [C] or a text list)", 0},
        {"rank", CLI_INT, &rank, "completion rank (default min(4, obs / (2 (T + n))), at least 1)", 0},
        {"mu", CLI_DOUBLE, &mu, "completion ridge weight (default 0.01)", 0},
        {"solver", CLI_STR, &solver, "als (default) or gd (plain gradient descent)", 0},
        {"max-iter", CLI_INT, &max_iter, "completion iterations at most (default 500)", 0},
        {"seed", CLI_U64, &seed, "seed of the completion start (default 1; a run records its own)", 0},
        {0},
    };
    const char *pos[1];
    int npos, rc = cli_parse(prog, USAGE, opts, argc, argv, pos, 1, &npos);
    if (rc) return rc == 1 ? 0 : rc;
    if (npos != 1) return cli_usage_error(prog, "needs TRACE_DIR (see --help)");
    const char *dir = pos[0];
    flce_ablation ab = {0};
    for (int i = 0; i < ablate.n; i++) {
        const char *a = ablate.items[i];
        if (!strcasecmp(a, "M")) ab.no_mass = 1;
        else if (!strcasecmp(a, "V")) ab.no_velocity = 1;
        else if (!strcasecmp(a, "Q")) ab.no_momentum = 1;
        else if (!strcasecmp(a, "CMC")) ab.no_completion = 1;
        else if (!strcasecmp(a, "CL"))
            return cli_usage_error(prog, "--ablate CL changes local training: use it with flce run, not on a trace");
        else return cli_usage_error(prog, "--ablate '%s': unknown (M, V, Q or CMC)", a);
    }
    if (cli_find(opts, "rank")->seen && rank < 1) return cli_usage_error(prog, "--rank %d: must be at least 1", rank);
    if (!(mu > 0)) return cli_usage_error(prog, "--mu %g: must be > 0", mu);
    if (max_iter < 1) return cli_usage_error(prog, "--max-iter %d: must be at least 1", max_iter);
    if (strcmp(solver, "als") && strcmp(solver, "gd")) return cli_usage_error(prog, "--solver '%s': als or gd", solver);
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) return cli_usage_error(prog, "%s: no such trace directory", dir);
    if (!out) out = dir;
    /* a trace written by `flce run` records its completion seed and ablations */
    char cj[1200];
    snprintf(cj, sizeof cj, "%s/completion.json", dir);
    FILE *jf = fopen(cj, "r");
    if (jf) {
        char buf[512] = {0};
        size_t got = fread(buf, 1, sizeof buf - 1, jf);
        fclose(jf);
        buf[got] = '\0';
        char *sp = strstr(buf, "\"seed\":"), *ap = strstr(buf, "\"ablate\":");
        if (sp && !cli_find(opts, "seed")->seen) seed = strtoull(sp + 7, NULL, 10);
        if (ap && ablate.n == 0) {
            char *q = strchr(ap + 9, '"'), *end = q ? strchr(q + 1, '"') : NULL;
            if (q && end) {
                *end = '\0';
                for (char *t = strtok(q + 1, " "); t; t = strtok(NULL, " ")) {
                    if (!strcmp(t, "M")) ab.no_mass = 1;
                    else if (!strcmp(t, "V")) ab.no_velocity = 1;
                    else if (!strcmp(t, "Q")) ab.no_momentum = 1;
                    else if (!strcmp(t, "CMC")) ab.no_completion = 1;
                }
            }
        }
    }
    if (stat(out, &sb) == 0 && !S_ISDIR(sb.st_mode)) return cli_usage_error(prog, "--out %s: not a directory", out);

    flce_err e = {{0}};
    char p[4200];
    flce_npy pr = {0}, se = {0}, ds = {0};
    double *rw = NULL, *cw = NULL, *sizes = NULL, *shares = NULL;
    flce_eval_result res = {0};
    int status = 1;
    flce_status st;
    snprintf(p, sizeof p, "%s/prototypes.npy", dir);
    if ((st = flce_npy_read(p, &pr, &e)) || (st = flce_npy_expect(p, &pr, FLCE_NPY_F32, 4, (int64_t[]){-1, -1, -1, -1}, &e)))
        goto fail;
    int T = (int)pr.shape[0], n = (int)pr.shape[1], C = (int)pr.shape[2], d = (int)pr.shape[3];
    snprintf(p, sizeof p, "%s/selected.npy", dir);
    if ((st = flce_npy_read(p, &se, &e)) || (st = flce_npy_expect(p, &se, FLCE_NPY_U8, 2, (int64_t[]){T, n}, &e)))
        goto fail;
    snprintf(p, sizeof p, "%s/data_sizes.npy", dir);
    if ((st = flce_npy_read(p, &ds, &e)) || (st = flce_npy_expect(p, &ds, FLCE_NPY_I64, 1, (int64_t[]){n}, &e)))
        goto fail;
    const uint8_t *sel = se.data;
    for (int i = 0; i < T * n; i++)
        if (sel[i] > 1) {
            st = flce_fail(&e, FLCE_ERR_FORMAT, "%s/selected.npy: entry %d is %u (0 or 1)", dir, i, sel[i]);
            goto fail;
        }
    sizes = malloc((size_t)n * sizeof *sizes);
    shares = malloc((size_t)n * sizeof *shares);
    if (!sizes || !shares) {
        st = flce_fail(&e, FLCE_ERR_NOMEM, "out of memory");
        goto fail;
    }
    for (int k = 0; k < n; k++) {
        int64_t v = ((const int64_t *)ds.data)[k];
        if (v <= 0) {
            st = flce_fail(&e, FLCE_ERR_FORMAT, "%s/data_sizes.npy: client %d holds %lld samples (must be > 0)", dir, k,
                           (long long)v);
            goto fail;
        }
        sizes[k] = (double)v;
    }
    snprintf(p, sizeof p, "%s/round_weights.npy", dir);
    if (rw_path || file_exists(p))
        if ((st = read_weights(rw_path ? rw_path : p, T, &rw, &e))) goto usage;
    snprintf(p, sizeof p, "%s/class_weights.npy", dir);
    if (cw_path || file_exists(p))
        if ((st = read_weights(cw_path ? cw_path : p, C, &cw, &e))) goto usage;

    flce_trace tr = {T, n, C, d, pr.data, sel, rw, cw};
    flce_completion_cfg cc;
    flce_completion_cfg_default(&cc);
    cc.rank = rank;
    cc.mu = mu;
    cc.max_iter = max_iter;
    cc.gradient = !strcmp(solver, "gd");
    cc.seed = seed;
    if ((st = flce_eval_trace(&tr, &ab, &cc, &res, &e))) goto fail;

    int64_t shp[3] = {T, n, C};
    if (flce_mkdirs(out) != 0) { /* created like every other command's output folder */
        st = flce_fail(&e, FLCE_ERR_IO, "--out %s: cannot create: %s", out, strerror(errno));
        goto fail;
    }
    snprintf(p, sizeof p, "%s/Q.npy", out);
    if ((st = flce_npy_write(p, FLCE_NPY_F64, 3, shp, res.Q, &e))) goto fail;
    snprintf(p, sizeof p, "%s/X_completed.npy", out);
    if ((st = flce_npy_write(p, FLCE_NPY_F64, 3, shp, res.X, &e))) goto fail;
    size_t cap = 64 + (size_t)n * 48, len = 0;
    char *csv = malloc(cap);
    if (!csv) {
        st = flce_fail(&e, FLCE_ERR_NOMEM, "out of memory");
        goto fail;
    }
    len += (size_t)snprintf(csv, cap, "client,contribution\n");
    for (int k = 0; k < n; k++) len += (size_t)snprintf(csv + len, cap - len, "%d,%.17g\n", k, res.CE[k]);
    snprintf(p, sizeof p, "%s/contributions.csv", out);
    st = flce_write_file_atomic(p, csv, len, &e);
    free(csv);
    if (st) goto fail;

    flce_data_shares(sizes, NULL, C, n, shares);
    printf("trace %s: T %d rounds, n %d clients, C %d classes, d %d\n", dir, T, n, C, d);
    if (ab.no_completion) printf("completion: off (-CMC)\n");
    else {
        int rmin = res.rank[0], rmax = res.rank[0], imax = 0;
        for (int c = 0; c < C; c++) {
            if (res.rank[c] < rmin) rmin = res.rank[c];
            if (res.rank[c] > rmax) rmax = res.rank[c];
            if (res.iters[c] > imax) imax = res.iters[c];
        }
        printf("completion: %s, rank %d..%d, at most %d iterations per class\n", cc.gradient ? "gradient descent" : "ALS",
               rmin, rmax, imax);
    }
    if (res.fallback_rounds) printf("rounds without any prototype: %lld\n", (long long)res.fallback_rounds);
    printf("%6s %10s %12s\n", "client", "data share", "contribution");
    for (int k = 0; k < n; k++) printf("%6d %10.6f %12.6f\n", k, shares[k], res.CE[k]);
    double kl = flce_kl(res.CE, shares, n, &e);
    if (kl < 0) printf("KL(contributions || data shares): undefined (%s)\n", e.msg);
    else printf("KL(contributions || data shares) = %.6f\n", kl);
    printf("wrote %s/contributions.csv, Q.npy, X_completed.npy\n", out);
    status = 0;
    goto fail;
usage: /* a weight file that does not fit the trace is a usage error */
    status = 2;
    fprintf(stderr, "%s: %s\n", prog, e.msg);
fail:
    if (status == 1) fprintf(stderr, "%s: %s\n", prog, e.msg);
    flce_eval_result_free(&res);
    flce_npy_free(&pr);
    flce_npy_free(&se);
    flce_npy_free(&ds);
    free(rw), free(cw), free(sizes), free(shares);
    return status;
}
