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
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "flce_eq.h"
#include "npy.h"
#include "trace_io.h"

static const char *USAGE =
    "usage: flce eval TRACE_DIR [--out DIR] [--ablate M|V|Q|CMC]... [--round-weights FILE]\n"
    "                 [--class-weights FILE] [--rank auto|rule|R] [--mu MU|auto] [--solver als|gd]\n"
    "                 [--completion masked|literal] [--max-iter N] [--seed S] [--tol X] [--threads N]\n"
    "                 [--proto-samples correct|all] [--missing zero|unobserved] [--rounds R]\n"
    "Reads a recorded trace and writes contributions.csv, Q.npy and X_completed.npy into --out\n"
    "(default: the trace directory). Weight files are .npy (float64) or numbers separated by\n"
    "commas, spaces or newlines.";


/* A trace written by `flce run` records its completion seed, settings and ablations: taken
 * where the command line does not give them; 0, or the exit status after an error said here (1:
 * a damaged record, a failure of the work; 2: a usage error). */
static int from_completion_json(const char *prog, const char *cj, cli_opt *opts, flce_completion_cfg *ccp, flce_ablation *abp,
                                int ablate_given, uint64_t *seed, int *version, int *recorded_all) {
    flce_completion_cfg cc = *ccp;
    flce_ablation ab = *abp;
        flce_completion_file cf;
        flce_err ce;
        if (flce_completion_read(cj, &cf, &ce)) return fprintf(stderr, "%s: %s\n", prog, ce.msg), 1; /* damaged: like any trace file */
        if (cf.has_seed && !cli_find(opts, "seed")->seen) *seed = cf.seed;
        *version = cf.version;
        if (cf.missing[0] && !cli_find(opts, "missing")->seen) cc.missing_unobserved = !strcmp(cf.missing, "unobserved");
        if (cf.prototypes[0]) *recorded_all = !strcmp(cf.prototypes, "all");
        /* the run's completion settings, where the command line does not give them */
        const char *flags[4] = {"completion", "solver", "rank", "mu"}, *vals[4] = {cf.completion, cf.solver, cf.rank, cf.mu};
        const char *got_v[4] = {NULL, NULL, NULL, NULL};
        for (int i = 0; i < 4; i++)
            if (vals[i][0] && !cli_find(opts, flags[i])->seen) got_v[i] = vals[i];
        if (flce_completion_parse(got_v[2], got_v[3], got_v[1], got_v[0], &cc, &ce))
            return fprintf(stderr, "%s: %s: %s\n", prog, cj, ce.msg), 1;
        if (ablate_given == 0)
            for (char *t = strtok(cf.ablate, " "); t; t = strtok(NULL, " ")) {
                if (!strcmp(t, "M")) ab.no_mass = 1;
                else if (!strcmp(t, "V")) ab.no_velocity = 1;
                else if (!strcmp(t, "Q")) ab.no_momentum = 1;
                else if (!strcmp(t, "CMC")) ab.no_completion = 1;
            }
    *ccp = cc, *abp = ab;
    return 0;
}

/* Q.npy, X_completed.npy and contributions.csv into out (created). */
static flce_status write_results(const char *out, const flce_eval_result *r, int T, int n, int C, flce_err *e) {
    const flce_eval_result res = *r;
    char p[4200];
    flce_status st;
    int64_t shp[3] = {T, n, C};
    if (flce_mkdirs(out) != 0) { /* created like every other command's output folder */
        return flce_fail(e, FLCE_ERR_IO, "--out %s: cannot create: %s", out, strerror(errno));
    }
    snprintf(p, sizeof p, "%s/Q.npy", out);
    if ((st = flce_npy_write(p, FLCE_NPY_F64, 3, shp, res.Q, e))) return st;
    snprintf(p, sizeof p, "%s/X_completed.npy", out);
    if ((st = flce_npy_write(p, FLCE_NPY_F64, 3, shp, res.X, e))) return st;
    size_t cap = 64 + (size_t)n * 48, len = 0;
    char *csv = malloc(cap);
    if (!csv) {
        return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
    }
    flce_catf(csv, cap, &len, "client,contribution\n");
    for (int k = 0; k < n; k++) flce_catf(csv, cap, &len, "%d,%.17g\n", k, res.CE[k]); /* 48 bytes a line is enough */
    snprintf(p, sizeof p, "%s/contributions.csv", out);
    st = flce_write_file_atomic(p, csv, len, e);
    free(csv);
    return st;

}

/* The completion that was used (or none), and what auto chose. */
static void print_completion(const flce_completion_cfg *ccp, const flce_ablation *ab, const flce_eval_result *r, int C) {
    const flce_completion_cfg cc = *ccp;
    const flce_eval_result res = *r;
    if (ab->no_completion) printf("completion: off (-CMC)\n");
    else {
        int rmin = res.rank[0], rmax = res.rank[0], imax = 0;
        for (int c = 0; c < C; c++) {
            if (res.rank[c] < rmin) rmin = res.rank[c];
            if (res.rank[c] > rmax) rmax = res.rank[c];
            if (res.iters[c] > imax) imax = res.iters[c];
        }
        printf("completion: version %d, %s%s, rank %d..%d, at most %d iterations per class; prototypes of %s samples, a missing "
               "one %s\n", cc.version, cc.literal ? "literal (all entries), " : "", cc.gradient || cc.literal ? "gradient descent" : "ALS",
               rmin, rmax, imax, cc.proto_all ? "all" : "correctly classified", cc.missing_unobserved ? "unobserved" : "an observed 0");
        if (cc.rank_auto || cc.mu_auto) {
            printf("auto (%d-fold held-out error) chose, per class:", cc.folds);
            for (int c = 0; c < C; c++) printf(" %d:r%d/mu%g", c, res.rank[c], res.mu[c]);
            printf("\n");
        }
    }
}

/* The K-fold held-out error of the setting used, class by class and on average. */
static flce_status print_heldout(const flce_trace *tr, const flce_completion_cfg *ccp, const flce_eval_result *r, flce_err *e) {
    const flce_completion_cfg cc = *ccp;
    const flce_eval_result res = *r;
    int T = tr->T, n = tr->n, C = tr->C;
    flce_status st = FLCE_OK;
        double *Xc = malloc(sizeof *Xc * (size_t)T * n), tot = 0;
        if (!Xc) {
            return flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
        }
        printf("held-out MSE (%d-fold, observed entries):", cc.folds);
        for (int c = 0; c < C && !st; c++) {
            for (int i = 0; i < T * n; i++) {
                double q = res.Q[(size_t)i * C + c];
                Xc[i] = isnan(q) ? 0 : q;
            }
            double err;
            if ((st = flce_cv_error(Xc, tr->selected, T, n, &cc, (uint32_t)c, res.rank[c], res.mu[c], &err, e))) break;
            printf(" %.4g", err);
            tot += err / C;
        }
        free(Xc);
        if (!st) printf("; mean %.6g\n", tot);
        return st;
}

int flce_cmd_eval(int argc, char **argv) {
    const char *prog = "flce eval", *out = NULL, *rw_path = NULL, *cw_path = NULL, *solver = NULL, *rank_s = NULL, *mu_s = NULL,
               *kind = NULL, *proto_s = NULL, *missing_s = NULL;
    cli_list ablate = {{0}, 0};
    int max_iter = 500, heldout = 0, version = FLCE_COMPLETION_VERSION, threads = 0, upto = 0;
    double tol = 0;
    uint64_t seed = 1;
    cli_opt opts[] = {
        {"out", CLI_STR, &out, "output folder (default: the trace folder)", 0},
        {"ablate", CLI_LIST, &ablate, "M, V, Q or CMC (repeatable): an ablation variant", 0},
        {"round-weights", CLI_STR, &rw_path, "a_t per round (.npy float64 [T] or a text list)", 0},
        {"class-weights", CLI_STR, &cw_path, "b_c per class (.npy float64 [C] or a text list)", 0},
        {"rank", CLI_STR, &rank_s, "completion rank: auto (default: K-fold held-out choice of 1, 2, 4, 8), rule (min(4, obs / (2 (T + n))), at least 1) or R", 0},
        {"mu", CLI_STR, &mu_s, "completion ridge weight: auto (default: held-out choice of 1e-3, 1e-2, 1e-1, 1) or MU", 0},
        {"solver", CLI_STR, &solver, "als (default) or gd (plain gradient descent)", 0},
        {"heldout", CLI_FLAG, &heldout, "also print the K-fold held-out error of the completion used, per class and on average", 0},
        {"completion", CLI_STR, &kind, "masked (default) or literal (the paper's equation over all entries, unselected = 0)", 0},
        {"max-iter", CLI_INT, &max_iter, "completion iterations at most (default 500)", 0},
        {"seed", CLI_U64, &seed, "seed of the completion start (default 1; a run records its own)", 0},
        {"tol", CLI_DOUBLE, &tol, "a fit stops when the objective changes by at most this fraction (default 1e-10)", 0},
        {"proto-samples", CLI_STR, &proto_s, "the prototypes to evaluate: correct (classified right, the text) or all (the equation); default: the run's (a run records the other in prototypes_alt.npy)", 0},
        {"missing", CLI_STR, &missing_s, "a selected client's missing prototype: zero (an observed 0, default) or unobserved (the completion fills it); default: the run's", 0},
        {"rounds", CLI_INT, &upto, "evaluate the first R rounds only (what FLCE would have reported had training stopped there)", 0},
        {"threads", CLI_INT, &threads, "threads for the completion (default: one per CPU; the results do not depend on it)", 0},
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
    flce_completion_cfg cc;
    flce_completion_cfg_default(&cc);
    {
        flce_err ce;
        if (flce_completion_parse(rank_s, mu_s, solver, kind, &cc, &ce)) return cli_usage_error(prog, "%s", ce.msg);
    }
    if (max_iter < 1) return cli_usage_error(prog, "--max-iter %d: must be at least 1", max_iter);
    if (seed > ((uint64_t)1 << 53)) /* completion_eval.json records it as a JSON number: exact up to 2^53 */
        return cli_usage_error(prog, "--seed %llu: at most 2^53 = 9007199254740992", (unsigned long long)seed);
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) return cli_usage_error(prog, "%s: no such trace directory", dir);
    if (!out) out = dir;
    /* a trace written by `flce run` records its completion seed and ablations */
    char cj[1200];
    snprintf(cj, sizeof cj, "%s/completion.json", dir);
    struct stat cs;
    if (proto_s && strcmp(proto_s, "correct") && strcmp(proto_s, "all"))
        return cli_usage_error(prog, "--proto-samples '%s': correct or all", proto_s);
    if (missing_s && strcmp(missing_s, "zero") && strcmp(missing_s, "unobserved"))
        return cli_usage_error(prog, "--missing '%s': zero or unobserved", missing_s);
    if (missing_s) cc.missing_unobserved = !strcmp(missing_s, "unobserved");
    int recorded_all = 0; /* the reading of the trace's prototypes.npy (a record without one: correct) */
    int cjs = lstat(cj, &cs) == 0 ? from_completion_json(prog, cj, opts, &cc, &ab, ablate.n, &seed, &version, &recorded_all) : 0;
    if (cjs) return cjs;
    int want_all = proto_s ? !strcmp(proto_s, "all") : recorded_all;
    const char *proto_file = want_all == recorded_all ? NULL : "prototypes_alt.npy";
    cc.proto_all = want_all;
    if (proto_file) {
        char pa[1300];
        snprintf(pa, sizeof pa, "%s/%s", dir, proto_file);
        if (stat(pa, &cs) != 0)
            return cli_usage_error(prog, "--proto-samples %s: %s holds the %s reading and no prototypes_alt.npy (runs since 2026-11-27 record both)",
                                   proto_s, dir, recorded_all ? "all" : "correct");
    }
    if (version != FLCE_COMPLETION_VERSION)
        return cli_usage_error(prog, "%s: completion version %d: this build knows version %d only (a newer build wrote it)", cj, version,
                               FLCE_COMPLETION_VERSION);
    if (tol < 0 || !isfinite(tol) || tol >= 1) return cli_usage_error(prog, "--tol %g: must be from 0 to below 1", tol);
    if (threads < 0 || threads > 64) return cli_usage_error(prog, "--threads %d: must be 0 (one per CPU) to 64", threads);
    cc.version = version, cc.tol = tol, cc.threads = threads;
    if (stat(out, &sb) == 0 && !S_ISDIR(sb.st_mode)) return cli_usage_error(prog, "--out %s: not a directory", out);

    flce_err e = {{0}};
    char p[4200];
    flce_trace_files tf;
    double *shares = NULL;
    flce_eval_result res = {0};
    int status = 1, weights_bad = 0;
    flce_status st;
    if ((st = flce_trace_load_as(dir, proto_file, rw_path, cw_path, &tf, &weights_bad, &e))) {
        if (weights_bad) goto usage; /* a weight file that does not fit the trace: a usage error */
        goto fail;
    }
    flce_ablation ab_rec;
    if (!tf.tr.prototypes) { /* a run's Q.npy: its own ablations M, V, Q are in it already */
        int cli_mvq = 0;
        for (int i = 0; i < ablate.n; i++) cli_mvq |= strcasecmp(ablate.items[i], "CMC") != 0;
        if (cli_mvq) {
            flce_trace_files_free(&tf);
            return cli_usage_error(prog, "--ablate M, V or Q: %s has Q.npy but no prototypes.npy; its Q holds the run's own ablation", dir);
        }
        ab_rec = ab; /* recorded as the run's */
        ab.no_mass = ab.no_velocity = ab.no_momentum = 0;
    }
    if (tf.tr.prototypes) ab_rec = ab;
    if (cli_find(opts, "rounds")->seen) {
        if (upto < 1 || upto > tf.tr.T) {
            flce_trace_files_free(&tf);
            return cli_usage_error(prog, "--rounds %d: the trace has %d rounds", upto, tf.tr.T);
        }
        tf.tr.T = upto; /* every array is round-major: the first R rounds are its prefix */
    }
    int T = tf.tr.T, n = tf.tr.n, C = tf.tr.C, d = tf.tr.d;
    const double *sizes = tf.sizes;
    if (!(shares = malloc((size_t)n * sizeof *shares))) {
        st = flce_fail(&e, FLCE_ERR_NOMEM, "out of memory");
        goto fail;
    }
    const flce_trace tr = tf.tr;
    cc.max_iter = max_iter;
    cc.seed = seed;
    if ((st = flce_eval_trace(&tr, &ab, &cc, &res, &e))) goto fail;

    /* the four files, whole or not at all: a failed write (a full disk) removes them all, and the
     * folder where this call made it, before anything is printed */
    struct stat osb;
    int made = stat(out, &osb) != 0;
    char ablate_s[32];
    snprintf(ablate_s, sizeof ablate_s, "%s%s%s%s", ab_rec.no_mass ? "M " : "", ab_rec.no_velocity ? "V " : "",
             ab_rec.no_momentum ? "Q " : "", ab_rec.no_completion ? "CMC" : "");
    snprintf(p, sizeof p, "%s/completion_eval.json", out);
    if ((st = write_results(out, &res, T, n, C, &e)) || (st = flce_completion_record(p, &cc, ablate_s, C, &res, &e))) {
        static const char *files[] = {"Q.npy", "X_completed.npy", "contributions.csv", "completion_eval.json"};
        for (int i = 0; i < 4; i++) {
            snprintf(p, sizeof p, "%s/%s", out, files[i]);
            if (lstat(p, &osb) == 0 && S_ISREG(osb.st_mode)) remove(p);
        }
        if (made) rmdir(out);
        snprintf(e.msg + strlen(e.msg), sizeof e.msg - strlen(e.msg), " (nothing written)");
        goto fail;
    }
    flce_data_shares(sizes, NULL, C, n, shares);
    if (tr.prototypes) printf("trace %s: T %d rounds, n %d clients, C %d classes, d %d\n", dir, T, n, C, d);
    else printf("trace %s: T %d rounds, n %d clients, C %d classes; from Q.npy (no prototypes.npy): the completion and totals redone\n", dir, T, n, C);
    print_completion(&cc, &ab, &res, C);
    if (res.fallback_rounds) printf("rounds without any prototype: %lld\n", (long long)res.fallback_rounds);
    printf("%6s %10s %12s\n", "client", "data share", "contribution");
    for (int k = 0; k < n; k++) printf("%6d %10.6f %12.6f\n", k, shares[k], res.CE[k]);
    double kl = flce_kl(res.CE, shares, n, &e);
    if (kl < 0) printf("KL(contributions || data shares): undefined (%s)\n", e.msg);
    else printf("KL(contributions || data shares) = %.6f\n", kl);
    if (heldout && !ab.no_completion && !cc.literal && (st = print_heldout(&tr, &cc, &res, &e))) goto fail;
    printf("wrote %s/contributions.csv, Q.npy, X_completed.npy, completion_eval.json\n", out);
    status = 0;
    goto fail;
usage: /* a weight file that does not fit the trace is a usage error */
    status = 2;
    fprintf(stderr, "%s: %s\n", prog, e.msg);
fail:
    if (status == 1) fprintf(stderr, "%s: %s\n", prog, e.msg);
    flce_eval_result_free(&res);
    flce_trace_files_free(&tf);
    free(shares);
    return status;
}
