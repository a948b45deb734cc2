/* cmd_eval.c: `flce eval TRACE_DIR`: FLCE contributions from a recorded trace
 * (docs/formats.md): prototypes.npy, selected.npy, data_sizes.npy and the optional
 * round_weights.npy / class_weights.npy. Writes contributions.csv, Q.npy and
 * X_completed.npy into --out and prints client, data share and contribution. */
#include <ctype.h>
#include <strings.h>
#include <dirent.h>
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
#include "eval_dir.h"
#include "json.h"
#include "trace_io.h"

static const char *USAGE =
    "usage: flce eval TRACE_DIR [--out DIR] [--ablate M|V|Q|CMC]... [--round-weights FILE]\n"
    "                 [--class-weights FILE] [--rank auto|rule|R] [--mu MU|auto] [--solver als|gd]\n"
    "                 [--completion masked|literal] [--max-iter N] [--seed S] [--tol X] [--threads N]\n"
    "                 [--proto-samples correct|all|first] [--missing zero|unobserved] [--rounds R]\n"
    "                 [--velocity squared|distance] [--absent-class keep|forget]\n"
    "                 [--initial-prototypes none|initial-model]\n"
    "Reads a recorded trace and writes contributions.csv, Q.npy and X_completed.npy into --out\n"
    "(default: TRACE_DIR-eval beside it, said at the end). Weight files are .npy (float64) or numbers separated by\n"
    "commas, spaces or newlines.";


/* The completion that was used (or none), and what auto chose. */
static void print_completion(const flce_completion_cfg *ccp, const flce_ablation *ab, const flce_eval_result *r, int C) {
    const flce_completion_cfg cc = *ccp;
    const flce_eval_result res = *r;
    if (cc.rules.velocity_distance || cc.rules.forget_absent) /* said only where not the text's */
        printf("the round's equations as released: velocity %s, a class absent from a round %s\n",
               cc.rules.velocity_distance ? "||p - g|| (not squared)" : "||p - g||^2",
               cc.rules.forget_absent ? "forgets its global prototype (none: g = 0)" : "keeps its global prototype");
    if (cc.rules.proto_clip > 0)
        printf("guard (not the paper's): each class's prototypes shortened to at most %g x the round's lower median length\n", cc.rules.proto_clip);
    if (cc.initial_model) printf("round 1's previous global prototypes: from the initial model (initial_prototypes.npy, as released)\n");
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
               *kind = NULL, *proto_s = NULL, *missing_s = NULL, *velocity_s = NULL, *absent_s = NULL, *initial_s = NULL;
    cli_list ablate = {{0}, 0};
    int max_iter = 500, heldout = 0, threads = 0, upto = 0;
    double tol = 0;
    uint64_t seed = 1;
    cli_opt opts[] = {
        {"out", CLI_STR, &out, "output folder (default: TRACE_DIR-eval beside the trace; never the trace itself, a run's folder or its trace folder)", 0},
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
        {"proto-samples", CLI_STR, &proto_s, "the prototypes to evaluate: correct (classified right, the text), all (the equation) or first (the first sample classified right, the released code); default: the run's (a run records the others in prototypes_alt.npy and prototypes_first.npy)", 0},
        {"velocity", CLI_STR, &velocity_s, "the velocity: squared (||p - g||^2, the text) or distance (||p - g||, the released code); default: the run's", 0},
        {"absent-class", CLI_STR, &absent_s, "a class absent from a round: keep its global prototype (the text) or forget it, a class without one taking g = 0 (the released code); default: the run's", 0},
        {"initial-prototypes", CLI_STR, &initial_s, "round 1's previous global prototypes: none (the text) or initial-model (the trace's initial_prototypes.npy, the released code); default: the trace's", 0},
        {"missing", CLI_STR, &missing_s, "a selected client's missing prototype: zero (an observed 0, default) or unobserved (the completion fills it); default: the run's", 0},
        {"rounds", CLI_INT, &upto, "evaluate the first R rounds only (what FLCE would have reported had training stopped there; an unfinished run's trace: at most the rounds done)", 0},
        {"threads", CLI_INT, &threads, "threads for the completion (default: one per CPU; the results do not depend on it)", 0},
        {0},
    };
    const char *pos[1];
    int npos, rc = cli_parse(prog, USAGE, opts, argc, argv, pos, 1, &npos);
    if (rc) return rc == 1 ? 0 : rc;
    if (npos != 1) return cli_usage_error(prog, "needs TRACE_DIR (see --help)");
    const char *dir = pos[0];
    char ablate_s[256] = "";
    size_t al = 0;
    for (int i = 0; i < ablate.n; i++) flce_catf(ablate_s, sizeof ablate_s, &al, "%s%s", i ? " " : "", ablate.items[i]);
    flce_eval_opts o;
    flce_eval_opts_default(&o);
    o.rank = rank_s, o.mu = mu_s, o.solver = solver, o.completion = kind, o.proto_samples = proto_s, o.missing = missing_s;
    o.velocity = velocity_s, o.absent_class = absent_s, o.initial_prototypes = initial_s;
    o.ablate = ablate.n ? ablate_s : NULL, o.round_weights = rw_path, o.class_weights = cw_path;
    if (cli_find(opts, "rounds")->seen && upto < 1) /* -1 once meant every round */
        return cli_usage_error(prog, "--rounds %d: must be at least 1 (and at most the trace's rounds)", upto);
    o.rounds = cli_find(opts, "rounds")->seen ? upto : -1, o.max_iter = max_iter;
    o.has_seed = cli_find(opts, "seed")->seen, o.seed = seed, o.tol = tol, o.threads = threads;
    struct stat sb;
    char p[4200], def_out[4200];
    snprintf(p, sizeof p, "%s/config.json", dir);
    int run_dir = stat(p, &sb) == 0;
    snprintf(p, sizeof p, "%s/trace/selected.npy", dir);
    if (run_dir && stat(p, &sb) == 0)
        return cli_usage_error(prog, "%s: a run folder; its trace is %s/trace (flce eval %s/trace)", dir, dir, dir);
    snprintf(p, sizeof p, "%s/summary.csv", dir);
    if (!run_dir && stat(p, &sb) == 0) { /* flce run with several methods (or seeds): the traces are its runs' */
        char first[1100] = "";
        DIR *d = opendir(dir);
        for (struct dirent *en; d && !first[0] && (en = readdir(d));) {
            char q[4400];
            snprintf(q, sizeof q, "%s/%s/trace/selected.npy", dir, en->d_name);
            if (en->d_name[0] != '.' && strlen(en->d_name) < 1000 && stat(q, &sb) == 0) snprintf(first, sizeof first, "%s", en->d_name);
        }
        if (d) closedir(d);
        if (first[0]) return cli_usage_error(prog, "%s: a folder of several runs; a run's trace is %s/METHOD/trace (flce eval %s/%s/trace)", dir, dir, dir, first);
    }
    if (!out) { /* a new sibling of the trace: an evaluation never writes into what it reads */
        flce_eval_default_out(dir, def_out, sizeof def_out);
        out = def_out;
    }
    if (stat(out, &sb) == 0 && !S_ISDIR(sb.st_mode)) return cli_usage_error(prog, "--out %s: not a directory", out);
    {
        flce_err oe = {{0}};
        flce_status os = flce_eval_out_check(out, dir, &oe);
        if (os == FLCE_ERR_ARG) return cli_usage_error(prog, "%s", oe.msg);
        if (os) {
            fprintf(stderr, "%s: %s\n", prog, oe.msg);
            return 1;
        }
    }

    flce_err e = {{0}};
    double *shares = NULL;
    flce_eval_run r;
    int status = 1;
    flce_status st = flce_eval_dir(dir, &o, &r, &e);
    if (st == FLCE_ERR_ARG) status = 2;
    if (st || (st = flce_eval_write(out, &r, &e))) goto fail;
    const flce_trace tr = r.tf.tr;
    int T = tr.T, n = tr.n, C = tr.C, d = tr.d;
    if (!(shares = malloc((size_t)n * sizeof *shares))) {
        st = flce_fail(&e, FLCE_ERR_NOMEM, "out of memory");
        goto fail;
    }
    flce_data_shares(r.tf.sizes, NULL, C, n, shares);
    { /* an attacked run (config.json beside the trace names attacks, docs/attacks.md): said first */
        char cp[4200];
        snprintf(cp, sizeof cp, "%s/../config.json", dir);
        flce_status js;
        flce_err je = {{0}};
        cJSON *cfg = flce_json_read(cp, 1 << 20, &js, &je);
        const cJSON *at = cfg ? cJSON_GetObjectItemCaseSensitive(cfg, "attacks") : NULL, *a;
        if (cJSON_IsArray(at) && cJSON_GetArraySize(at) > 0) {
            printf("an attacked run (docs/attacks.md):");
            cJSON_ArrayForEach(a, at) if (cJSON_IsString(a)) printf(" %s", a->valuestring);
            printf("; its trace holds what the clients uploaded and the counts they reported (the data shares below)\n");
        }
        cJSON_Delete(cfg);
    }
    if (tr.prototypes) printf("trace %s: T %d rounds, n %d clients, C %d classes, d %d\n", dir, T, n, C, d);
    else printf("trace %s: T %d rounds, n %d clients, C %d classes; from Q.npy (no prototypes.npy): the completion and totals redone\n", dir, T, n, C);
    print_completion(&r.cc, &r.ab, &r.res, C);
    if (r.res.fallback_rounds) printf("rounds without any prototype: %lld\n", (long long)r.res.fallback_rounds);
    printf("%6s %10s %12s\n", "client", "data share", "contribution");
    for (int k = 0; k < n; k++) printf("%6d %10.6f %12.6f\n", k, shares[k], r.res.CE[k]);
    double kl = flce_kl(r.res.CE, shares, n, &e);
    if (kl < 0) printf("KL(contributions || data shares): undefined (%s)\n", e.msg);
    else printf("KL(contributions || data shares) = %.6f\n", kl);
    { /* the released code's metric (KL_cmp.py: min-max to [0.01, 1], then KL), against its uniform
       * reference and against the text's data shares (docs/flce.md, "The released code") */
        double *u = malloc((size_t)n * sizeof *u);
        for (int k = 0; u && k < n; k++) u[k] = 1;
        flce_err ke = {{0}};
        double ku = u ? flce_kl_minmax(r.res.CE, u, n, &ke) : -1, ks = ku < 0 ? -1 : flce_kl_minmax(r.res.CE, shares, n, &ke);
        if (ku < 0 || ks < 0) printf("KL as released (min-max to [0.01, 1]): undefined (%s)\n", u ? ke.msg : "out of memory");
        else printf("KL as released (min-max to [0.01, 1]): against uniform = %.6f, against the data shares = %.6f\n", ku, ks);
        free(u);
    }
    if (heldout && !r.ab.no_completion && !r.cc.literal && (st = print_heldout(&tr, &r.cc, &r.res, &e))) goto fail;
    printf("wrote %s/contributions.csv, Q.npy, X_completed.npy, completion_eval.json\n", out);
    status = 0;
fail:
    if (status) fprintf(stderr, "%s: %s\n", prog, e.msg);
    flce_eval_run_free(&r);
    free(shares);
    return status;
}
