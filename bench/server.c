/* server.c: `flce-bench server`: the server-side cost per round of every method, measured
 * by calling the methods' own server steps (fl/methods/) on a synthetic round: the
 * global model and K client models of ResNet20 (He-normal, plus small seeded
 * perturbations), prototypes of 64 floats per class, and for the Shapley methods a seeded
 * validation set. Client training is left out. Medians of --repeats timings after a
 * warm-up, each method's ratio to FedAvg from the same run.
 *
 * "fedavg" is the weighted average alone (the paper's FedAvg); our FedAvg unit also computes
 * the cosine-rule contributions ("fedavg+cosine"), as do FedProx, Ditto and MOON.
 * Shapley methods cost (number of utility evaluations) x (one evaluation: aggregate the
 * coalition's models, run the validation set). One evaluation is measured; the counts are
 * exact for FedSV (2^K coalitions) and upper bounds for Monte-Carlo (perms (K - 1) + 2
 * without truncation) and GTG (max(30, K) permutations, (K - 1) each, + 2, the fewest it
 * can stop after, without truncation). FedSV exact is also run for real at K = 4 to check
 * the estimate. Rows say whether they were measured or estimated. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "util.h"
#include "method.h"
#include "backend_select.h"
#include "ref_backend.h"
#include "parallel.h"
#include "completion_before.h"


typedef struct {
    char method[24];
    int K, C;
    long params;
    double sec;
    int measured;
    double ratio;
    const char *note;
} row;

static row ROWS[256];
static int NROWS;

/* FLCE's completion, version 1 against 2 */
typedef struct {
    const char *scale;
    int T, n, K, C, autosel;
    double v1, v2; /* seconds: the code before 2026-11-27 (v1), today's (v2) */
    int v1_est, v2_est, same;
} comp_row;

static comp_row CROWS[16];
static int NCROWS;

/* the whole run's server time */
typedef struct {
    int T, C, autosel;
    double comp, flce, fedavg, fedavg_cos;
} total_row;

static total_row TROWS[16];
static int NTROWS;

static void add_row(const char *m, int K, long params, int C, double sec, int measured, const char *note) {
    if (NROWS == 256) return;
    row *r = &ROWS[NROWS++];
    snprintf(r->method, sizeof r->method, "%s", m);
    r->K = K, r->C = C, r->params = params, r->sec = sec, r->measured = measured, r->note = note;
}

/* A synthetic round: n clients, K selected, C classes, model with S state floats. */
typedef struct {
    engine E;
    flce_run_cfg cfg;
    int open;
} bench_round;

static int setup_round_(bench_round *b, flce_backend *be, int n, int K, int C, size_t S_override, int nval, uint64_t seed) {
    engine *E = &b->E;
    memset(b, 0, sizeof *b);
    flce_run_cfg_default(&b->cfg);
    b->cfg.seed = seed;
    b->cfg.per_round = K;
    b->cfg.clients = n;
    b->cfg.rounds = 1000;
    flce_rng r;
    flce_rng_init(&r, seed, FLCE_RNG_BENCH, 1, 0);
    double sizes[1024];
    if (n > 1024) return -1;
    for (int k = 0; k < n; k++) sizes[k] = 100 + (double)flce_rng_below(&r, 1000);
    flce_err e;
    /* the engine's own constructor: every array a run has (the BatchNorm rule's parameter mask
     * included, whose absence crashed this benchmark when it built the engine field by field) */
    if (flce_engine_open_synthetic(E, &b->cfg, flce_method_find("fedavg"), be, 3, 32, 32, C, sizes, &e)) {
        fprintf(stderr, "flce-bench server: %s\n", e.msg);
        return -1;
    }
    b->open = 1;
    if (S_override) { /* a larger synthetic state, every entry a parameter */
        float *g = realloc(E->global, sizeof(float) * S_override), *nw = realloc(E->newg, sizeof(float) * S_override);
        if (g) E->global = g;
        if (nw) E->newg = nw;
        float *st = realloc(E->states, sizeof(float) * S_override * (size_t)K);
        if (st) E->states = st;
        uint8_t *tr = realloc(E->trainable, S_override);
        if (tr) E->trainable = tr;
        if (!g || !nw || !st || !tr) return -1;
        memset(E->trainable, 1, S_override);
        E->S = E->P = S_override;
    }
    E->n_val = nval;
    free(E->train_x), free(E->val_idx), free(E->ds.train.labels);
    E->train_x = malloc(sizeof(float) * (size_t)(nval ? nval : 1) * E->CHW);
    E->val_idx = malloc(sizeof(int) * (size_t)(nval ? nval : 1));
    E->ds.train.labels = malloc((size_t)(nval ? nval : 1));
    if (!E->train_x || !E->val_idx || !E->ds.train.labels) return -1;
    if (S_override) for (size_t j = 0; j < E->S; j++) E->global[j] = (float)(flce_rng_normal(&r) * 0.05);
    else flce_model_get_state(&E->m, E->global);
    for (int i = 0; i < K; i++) {
        E->sel[i] = i * (n / K);
        E->rep_loss[i] = 1 + flce_rng_uniform(&r);
        E->rep_acc[i] = 0.1 + 0.8 * flce_rng_uniform(&r);
        for (size_t j = 0; j < E->S; j++) E->states[(size_t)i * E->S + j] = E->global[j] + (float)(flce_rng_normal(&r) * 1e-3);
    }
    for (size_t q = 0; q < (size_t)n * C * FLCE_FEAT; q++) E->protos[q] = NAN;
    memset(E->present, 0, (size_t)n * C);
    for (int i = 0; i < K; i++)
        for (int c = 0; c < C; c++) {
            if (flce_rng_uniform(&r) < 0.3) continue; /* clients lack some classes */
            E->present[(size_t)E->sel[i] * C + c] = 1;
            for (int j = 0; j < FLCE_FEAT; j++)
                E->protos[((size_t)E->sel[i] * C + c) * FLCE_FEAT + j] = (float)(flce_rng_normal(&r) + c);
        }
    for (int i = 0; i < nval; i++) {
        E->val_idx[i] = i;
        E->ds.train.labels[i] = (uint8_t)flce_rng_below(&r, (uint32_t)C);
        for (int q = 0; q < E->CHW; q++) E->train_x[(size_t)i * E->CHW + q] = (float)flce_rng_normal(&r);
    }
    return 0;
}

static void free_round(bench_round *b) {
    if (b->open) flce_engine_close(&b->E);
    b->open = 0;
}

/* A synthetic round: n clients, K selected, C classes; S_override: a state of that many
 * parameters instead of ResNet20's. 0, or -1 with nothing left open. */
static int setup_round(bench_round *b, flce_backend *be, int n, int K, int C, size_t S_override, int nval, uint64_t seed) {
    if (setup_round_(b, be, n, K, C, S_override, nval, seed) == 0) return 0;
    free_round(b);
    return -1;
}

/* FedAvg as the paper prices it: data-size weights and the weighted average, nothing else
 * (our fedavg unit also computes the cosine-rule contributions: row "fedavg+cosine"). */
static flce_status fedavg_only(engine *E, flce_err *e) {
    (void)e;
    int slots[32];
    for (int i = 0; i < E->K; i++) slots[i] = i;
    flce_eng_data_size_weights(E, E->omega);
    flce_eng_aggregate(E, E->omega, E->K, slots, E->newg);
    return FLCE_OK;
}

static const flce_method FEDAVG_ONLY = {.name = "fedavg", .server = fedavg_only};

/* Median seconds of one server step of `name` over reps timings (after one warm-up). */
static double time_server(bench_round *b, const char *name, int reps) {
    engine *E = &b->E;
    const flce_method *a = !strcmp(name, "fedavg") ? &FEDAVG_ONLY : flce_method_find(!strcmp(name, "fedavg+cosine") ? "fedavg" : name);
    flce_err e;
    if (flce_engine_set_method(E, a, &e)) {
        fprintf(stderr, "flce-bench server: %s\n", e.msg);
        return NAN;
    }
    double t[64];
    /* each step as the engine runs it: the Shapley utility cache cleared first (without that a
     * step would read whatever the cache held: FedSV's K = 4 check once timed nothing) */
    flce_eng_utility_reset(E);
    if (a->server(E, &e)) {
        fprintf(stderr, "flce-bench server: %s: %s\n", name, e.msg);
        return NAN;
    }
    for (int k = 0; k < reps && k < 64; k++) {
        if (flce_engine_set_method(E, a, &e)) return NAN; /* the method's state afresh: every repeat sees the same round */
        flce_eng_utility_reset(E);
        double t0 = bench_now();
        a->server(E, &e);
        t[k] = bench_now() - t0;
    }
    qsort(t, (size_t)reps, sizeof(double), bench_cmp_double);
    return t[reps / 2];
}

/* One utility evaluation of a Shapley method: aggregate K models, evaluate nval images. */
static double time_utility(bench_round *b, int reps) {
    engine *E = &b->E;
    flce_err e;
    double t[16], w[32];
    int slots[32];
    for (int i = 0; i < E->K; i++) slots[i] = i, w[i] = 1.0 / E->K;
    for (int k = 0; k <= reps && k < 16; k++) {
        double t0 = bench_now();
        flce_eng_aggregate(E, w, E->K, slots, E->newg);
        flce_model_set_state(&E->m, E->newg);
        for (int i0 = 0; i0 < E->n_val; i0 += 256) {
            int nb = E->n_val - i0 < 256 ? E->n_val - i0 : 256;
            flce_model_eval(&E->m, nb, E->train_x + (size_t)i0 * E->CHW, E->logits, NULL, &e);
        }
        if (k) t[k - 1] = bench_now() - t0; /* the first is the warm-up */
    }
    qsort(t, (size_t)reps, sizeof(double), bench_cmp_double);
    return t[reps / 2];
}

/* A synthetic momentum trace for the completion: T rounds of n clients, K selected a round
 * (seeded), C classes; a selected client's entry is a positive rank-2 pattern of about 1/K with
 * 20% noise (what FLCE's Q looks like: shares of a round), NaN where not selected. */
static double *synthetic_q(int T, int n, int C, int K, uint64_t seed, uint8_t *sel) {
    double *Q = malloc(sizeof(double) * (size_t)T * n * C), *a = malloc(sizeof(double) * 2 * ((size_t)T + n) * C);
    if (!Q || !a) {
        free(Q), free(a);
        return NULL;
    }
    flce_rng r;
    flce_rng_init(&r, seed, FLCE_RNG_BENCH, 2, 0);
    for (size_t i = 0; i < 2 * ((size_t)T + n) * C; i++) a[i] = 0.5 + flce_rng_uniform(&r);
    int s[1024];
    memset(sel, 0, (size_t)T * n);
    for (int t = 0; t < T; t++) {
        flce_rng_sample(&r, n, K, s);
        for (int i = 0; i < K; i++) sel[(size_t)t * n + s[i]] = 1;
    }
    for (int t = 0; t < T; t++)
        for (int k = 0; k < n; k++)
            for (int c = 0; c < C; c++) {
                const double *u = a + (size_t)c * 2 * (T + n), *v = u + 2 * (size_t)T;
                double x = (u[2 * t] * v[2 * k] + u[2 * t + 1] * v[2 * k + 1]) / (4.0 * K) * (1 + 0.2 * (flce_rng_uniform(&r) - 0.5));
                Q[((size_t)t * n + k) * C + c] = sel[(size_t)t * n + k] ? x : NAN;
            }
    free(a);
    return Q;
}

/* Seconds of FLCE's work after the last round on such a trace (completion of every class and
 * the final contributions, as flce eval does from a run's Q.npy): auto (rank and mu by
 * cross-validation) or fixed (rank 4, mu 0.01, the paper's one fit a class); today's code on
 * `threads` threads, or (before) the code of 84a31a9 on one. Only `timed` of the C classes when
 * 0 < timed < C (the classes are independent and alike: the time scales with C; *estimated
 * set). With both X_now and X_before given (the same classes), *same_bits says whether the
 * completed matrices are equal byte for byte. NAN when it fails. */
static double time_completion(int T, int n, int C, int K, int before, int autosel, int threads, int timed, int *estimated,
                              double **Xout) {
    int Ct = timed > 0 && timed < C ? timed : C;
    if (estimated) *estimated = Ct < C;
    if (Ct < C && before) threads = 1;
    uint8_t *sel = malloc((size_t)T * n);
    double *Q = sel ? synthetic_q(T, n, Ct, K, 4, sel) : NULL;
    double *X = malloc(sizeof(double) * (size_t)T * n * Ct), *Xc = malloc(sizeof(double) * (size_t)T * n);
    double *Xh = malloc(sizeof(double) * (size_t)T * n), *CE = malloc(sizeof(double) * (size_t)n);
    if (!Q || !X || !Xc || !Xh || !CE) {
        free(sel), free(Q), free(X), free(Xc), free(Xh), free(CE);
        return NAN;
    }
    flce_completion_cfg cc;
    flce_completion_cfg_default(&cc);
    cc.threads = threads;
    cc.rank_auto = cc.mu_auto = autosel;
    if (!autosel) cc.rank = 4, cc.mu = 1e-2;
    flce_err e;
    flce_status st = FLCE_OK;
    double t0 = bench_now();
    if (!before) {
        flce_trace tr = {T, n, Ct, 0, NULL, sel, NULL, NULL, Q, NULL, NULL};
        flce_ablation ab = {0};
        flce_eval_result res;
        if (!(st = flce_eval_trace(&tr, &ab, &cc, &res, &e))) {
            memcpy(X, res.X, sizeof(double) * (size_t)T * n * Ct);
            flce_eval_result_free(&res);
        }
    } else { /* the code before: class after class, then the same final contributions */
        for (int c = 0; c < Ct && !st; c++) {
            for (int i = 0; i < T * n; i++) Xc[i] = sel[i] ? Q[(size_t)i * Ct + c] : 0;
            flce_completion_info info;
            if ((st = flce_complete_before(Xc, sel, T, n, &cc, (uint32_t)c, Xh, &info, &e))) break;
            for (int i = 0; i < T * n; i++) X[(size_t)i * Ct + c] = Xh[i];
        }
        if (!st) st = flce_final_contribution(X, T, n, Ct, NULL, NULL, CE, &e);
    }
    double sec = bench_now() - t0;
    if (st) fprintf(stderr, "flce-bench server: completion: %s\n", e.msg);
    free(Q), free(sel), free(Xc), free(Xh), free(CE);
    if (Xout && !st) *Xout = X;
    else free(X);
    return st ? NAN : sec * ((double)C / Ct);
}

/* fclose with the stream's errors: 0, or -1 (the file then removed: never left half-written). */
static int close_whole(FILE *f, const char *path) {
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        remove(path);
        return -1;
    }
    return 0;
}

/* The figures' data (written beside them) and the gnuplot script, run once per format; on a
 * failure the figures are removed (none is left half-made). */
static int write_plot(const char *dir, long params10) {
    char path[1200];
    snprintf(path, sizeof path, "%s/server_methods.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "method,seconds_10_classes,seconds_100_classes\n");
    for (int i = 0; i < NROWS; i++) {
        if (ROWS[i].C != 10 || ROWS[i].K != 10 || ROWS[i].params != params10 || strstr(ROWS[i].note, "scaling") ||
            strstr(ROWS[i].note, "--full"))
            continue;
        double s100 = NAN;
        for (int j = 0; j < NROWS; j++)
            if (!strcmp(ROWS[j].method, ROWS[i].method) && ROWS[j].C == 100 && ROWS[j].K == 10 && !strstr(ROWS[j].note, "scaling"))
                s100 = ROWS[j].sec;
        fprintf(f, "%s,%.9f,%.9f\n", ROWS[i].method, ROWS[i].sec, s100);
    }
    if (close_whole(f, path)) return -1;
    snprintf(path, sizeof path, "%s/server_scaling.csv", dir);
    f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "params,fedavg,flce\n");
    for (int i = 0; i < NROWS; i++) {
        if (strcmp(ROWS[i].method, "fedavg") || !strstr(ROWS[i].note, "parameters")) continue;
        for (int j = 0; j < NROWS; j++)
            if (!strcmp(ROWS[j].method, "flce") && ROWS[j].params == ROWS[i].params && strstr(ROWS[j].note, "parameters"))
                fprintf(f, "%ld,%.9f,%.9f\n", ROWS[i].params, ROWS[i].sec, ROWS[j].sec);
    }
    if (close_whole(f, path)) return -1;
    snprintf(path, sizeof path, "%s/server_totals.csv", dir);
    f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "rounds,fixed_10,auto_10,fixed_100,auto_100\n"); /* FLCE's whole-run server time / FedAvg's */
    for (int i = 0, j; i < NTROWS; i = j) { /* a line per T (--quick: no cross-validated completion at T = 1000) */
        double v[4] = {NAN, NAN, NAN, NAN};
        for (j = i; j < NTROWS && TROWS[j].T == TROWS[i].T; j++) v[(TROWS[j].C == 100) * 2 + TROWS[j].autosel] = TROWS[j].flce / TROWS[j].fedavg;
        fprintf(f, "%d,%.6f,%.6f,%.6f,%.6f\n", TROWS[i].T, v[0], v[1], v[2], v[3]);
    }
    if (close_whole(f, path)) return -1;
    snprintf(path, sizeof path, "%s/server_cost.gp", dir);
    f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f,
            "# made by flce-bench server; data: server_methods.csv, server_scaling.csv\n"
            "set datafile separator ','\nset key top left\n"
            "do for [fmt in 'png svg'] {\n"
            "  if (fmt eq 'png') { set terminal pngcairo size 900,520 } else { set terminal svg size 900,520 }\n"
            "  set output 'server_cost.'.fmt\n"
            "  set logscale y\n  set style data histograms\n  set style fill solid 0.85\n  set xtics rotate by -35\n"
            "  set ylabel 'server seconds per round (log scale)'\n"
            "  set title 'Server cost per round: K = 10 of 50 clients, ResNet20, CPU (Shapley rows estimated)'\n"
            "  plot 'server_methods.csv' skip 1 using 2:xtic(1) title '10 classes' lc rgb '#1f77b4', \\\n"
            "       '' skip 1 using 3 title '100 classes' lc rgb '#ff7f0e'\n"
            "  set style data linespoints\n  set xtics norotate\n"
            "  set output 'server_scaling.'.fmt\n  set logscale xy\n"
            "  set xlabel 'parameters aggregated per client'\n  set ylabel 'server seconds per round (log scale)'\n"
            "  set title 'Server cost against model size, K = 10'\n"
            "  plot 'server_scaling.csv' skip 1 using 1:2 title 'FedAvg' lw 2 lc rgb '#1f77b4', \\\n"
            "       '' skip 1 using 1:3 title 'FLCE (per round)' lw 2 lc rgb '#d62728'\n"
            "  set output 'server_totals.'.fmt\n  set logscale xy\n  set key top right\n  set yrange [1:5000]\n"
            "  set xlabel 'rounds'\n  set ylabel 'FLCE total server time / FedAvg (log scale)'\n"
            "  set title 'The whole run: rounds + completion, K = 10 of 50, ResNet20'\n"
            "  plot 'server_totals.csv' skip 1 using 1:2 title 'fixed rank, 10 classes' lw 2 lc rgb '#1f77b4', \\\n"
            "       '' skip 1 using 1:3 title 'auto, 10 classes' lw 2 dt 2 lc rgb '#1f77b4', \\\n"
            "       '' skip 1 using 1:4 title 'fixed rank, 100 classes' lw 2 lc rgb '#d62728', \\\n"
            "       '' skip 1 using 1:5 title 'auto, 100 classes' lw 2 dt 2 lc rgb '#d62728'\n"
            "  unset logscale\n  unset xlabel\n  set autoscale y\n  set key top left\n"
            "}\n");
    if (close_whole(f, path)) return -1;
    int rc = cli_gnuplot(dir, "server_cost.gp"); /* no shell; the script names its files relative to dir */
    if (rc) {
        static const char *figs[] = {"server_cost", "server_scaling", "server_totals"};
        for (int i = 0; i < 3; i++) {
            snprintf(path, sizeof path, "%s/%s.png", dir, figs[i]), remove(path);
            snprintf(path, sizeof path, "%s/%s.svg", dir, figs[i]), remove(path);
        }
    }
    return rc;
}

/* The server step of every method on a synthetic round (C = 10 and 100), Shapley methods
 * estimated from one measured utility evaluation, FedSV exact also run at K = 4 (and at K with
 * --full); the trainable parameters at C = 10, or -1 when out of memory. */
static long time_methods(const char *prog, flce_backend *be, int n, int K, int nval, int reps, int quick, int full, int tiny) {
    static const char *methods[] = {"fedavg", "flce", "fedavg+cosine", "fedprox", "ditto", "moon", "fedfv", "cgsv", "qfedavg",
                                    "fedfa"};
    int classes[2] = {10, 100};
    long params10 = 0;
    for (int ci = 0; ci < (tiny ? 1 : 2); ci++) {
        int C = classes[ci];
        bench_round *b = malloc(sizeof *b);
        if (!b || setup_round(b, be, n, K, C, 0, nval, 1)) {
            fprintf(stderr, "%s: out of memory\n", prog);
            return -1;
        }
        long params = (long)flce_model_count_trainable(&b->E.m);
        if (ci == 0) params10 = params;
        fprintf(stderr, "C = %d: timing the server steps...\n", C);
        for (size_t m = 0; m < sizeof methods / sizeof methods[0]; m++)
            add_row(methods[m], K, params, C, time_server(b, methods[m], reps), 1, "");
        double tu = time_utility(b, quick ? 3 : 5);
        add_row("fedsv-exact", K, params, C, tu * (double)(1 << K), 0, "2^K evaluations x measured evaluation");
        add_row("fedsv-mc", K, params, C, tu * (50.0 * (K - 1) + 2), 0, "50 permutations, no truncation");
        add_row("gtg", K, params, C, tu * ((K > 30 ? K : 30) * (K - 1.0) + 2), 0, "fewest permutations GTG stops after");
        if (ci == 0) { /* check the estimate: FedSV exact run for real at K = 4 */
            bench_round *s = malloc(sizeof *s);
            if (s && !setup_round(s, be, n, 4, C, 0, nval, 1)) {
                double real = time_server(s, "fedsv", 1), t4 = time_utility(s, 3);
                static char note[128];
                snprintf(note, sizeof note, "run for real at K = 4; the estimate 16 x %.3f s = %.3f s", t4, 16 * t4);
                add_row("fedsv-exact", 4, params, C, real, 1, note);
                if (full) add_row("fedsv-exact", K, params, C, time_server(b, "fedsv", 1), 1, "run for real (--full)");
                free_round(s);
            }
            free(s);
        }
        free_round(b);
        free(b);
    }
    return params10;
}

/* FedAvg and FLCE as the clients per round and the parameters grow (aggregation-bound). */
static void time_scaling(flce_backend *be, int n, int K, long params10, int reps, int quick) {
    /* scaling with the clients per round and with the model size (aggregation-bound) */
    int Ks[3] = {5, 10, 20};
    size_t Ss[3] = {100000, 1000000, 4000000};
    for (int i = 0; i < (quick ? 2 : 3); i++) {
        bench_round *b = malloc(sizeof *b);
        if (b && !setup_round(b, be, n, Ks[i], 10, 0, 0, 2)) {
            add_row("fedavg", Ks[i], params10, 10, time_server(b, "fedavg", reps), 1, "scaling: K");
            add_row("flce", Ks[i], params10, 10, time_server(b, "flce", reps), 1, "scaling: K");
            free_round(b);
        }
        free(b);
        b = malloc(sizeof *b);
        if (b && !setup_round(b, be, n, K, 10, Ss[i], 0, 3)) {
            add_row("fedavg", K, (long)Ss[i], 10, time_server(b, "fedavg", reps), 1, "scaling: parameters");
            add_row("flce", K, (long)Ss[i], 10, time_server(b, "flce", reps), 1, "scaling: parameters");
            free_round(b);
        }
        free(b);
    }
}

/* Each row's ratio to FedAvg of the same K, parameters and classes, and the table. */
static void ratios_and_table(void) {
    /* ratios to FedAvg of the same K, params and classes */
    for (int i = 0; i < NROWS; i++) {
        ROWS[i].ratio = NAN;
        for (int j = 0; j < NROWS; j++)
            if (!strcmp(ROWS[j].method, "fedavg") && ROWS[j].K == ROWS[i].K && ROWS[j].C == ROWS[i].C &&
                ROWS[j].params == ROWS[i].params && ROWS[j].measured &&
                (strstr(ROWS[i].note, "scaling") ? !strcmp(ROWS[i].note, ROWS[j].note) : !strstr(ROWS[j].note, "scaling"))) {
                ROWS[i].ratio = ROWS[i].sec / ROWS[j].sec; /* the first such FedAvg row: same measurement group */
                break;
            }
    }
    printf("%-12s %3s %9s %7s %14s %12s  %s\n", "method", "K", "params", "classes", "server s/round", "x FedAvg", "how");
    for (int i = 0; i < NROWS; i++)
        printf("%-12s %3d %9ld %7d %14.6f %12.2f  %s%s%s\n", ROWS[i].method, ROWS[i].K, ROWS[i].params, ROWS[i].C, ROWS[i].sec,
               ROWS[i].ratio, ROWS[i].measured ? "measured" : "estimated", ROWS[i].note[0] ? ": " : "", ROWS[i].note);
}

/* ---- FLCE's completion: version 1 against version 2, and the whole run's server cost ------ */

/* Today's completion (threads) against the code before 2026-11-27 (one thread), on synthetic
 * traces at the study's scale and the paper's, with the completed matrices compared byte for
 * byte where both cover the same classes. The code before, where it would take minutes: one
 * class timed and the time scaled by the classes (marked estimated). */
static void completion_versions(int quick, int tiny, int threads) {
    struct {
        const char *scale;
        int T, n, K, C, autosel, before_timed, today_timed;
    } cases[] = {
        {"study", 30, 20, 5, 10, 1, 0, 0},      {"study", 30, 20, 5, 10, 0, 0, 0},   {"paper", 1000, 50, 10, 10, 0, 0, 0},
        {"paper", 1000, 50, 10, 100, 0, 10, 0}, {"paper", 1000, 50, 10, 10, 1, 1, 0}, {"paper", 1000, 50, 10, 100, 1, 1, 10},
    };
    int nc = tiny ? 2 : (int)(sizeof cases / sizeof cases[0]);
    printf("\nFLCE's completion after the last round (all classes and the final contributions, as flce eval):\n"
           "today's code (%d threads) against the code before 2026-11-27 (84a31a9, one thread), this run\n", threads);
    printf("%-6s %5s %4s %3s %7s %-21s %12s %12s %9s %9s\n", "scale", "T", "n", "K", "classes", "setting", "before s", "today s",
           "speed-up", "same bits");
    NCROWS = 0;
    for (int i = 0; i < nc; i++) {
        if (quick && cases[i].T >= 1000 && cases[i].autosel) continue; /* --quick: the paper's cross-validated completion left out (minutes) */
        comp_row *r = &CROWS[NCROWS++];
        r->scale = cases[i].scale, r->T = cases[i].T, r->n = cases[i].n, r->K = cases[i].K, r->C = cases[i].C;
        r->autosel = cases[i].autosel;
        int timed = cases[i].before_timed;
        if (quick && !timed && r->T >= 1000) timed = 1; /* --quick: the code before at the paper's scale from one class */
        double *Xn = NULL, *Xb = NULL;
        r->v2 = time_completion(r->T, r->n, r->C, r->K, 0, r->autosel, threads, cases[i].today_timed, &r->v2_est,
                                timed ? NULL : &Xn);
        r->v1 = quick && r->T >= 1000 ? NAN /* --quick: not at the paper's scale */
                                      : time_completion(r->T, r->n, r->C, r->K, 1, r->autosel, 1, timed, &r->v1_est, timed ? NULL : &Xb);
        r->same = Xn && Xb ? memcmp(Xn, Xb, sizeof(double) * (size_t)r->T * r->n * r->C) == 0 : -1;
        free(Xn), free(Xb);
        char before[32] = "          -", ratio[32] = "       -";
        if (!isnan(r->v1)) snprintf(before, sizeof before, "%11.4f", r->v1), snprintf(ratio, sizeof ratio, "%8.1fx", r->v1 / r->v2);
        printf("%-6s %5d %4d %3d %7d %-21s %s%s %11.4f%s %s %9s\n", r->scale, r->T, r->n, r->K, r->C,
               r->autosel ? "auto(rank,mu)" : "fixed(rank4,mu.01)", before, r->v1_est ? "*" : " ", r->v2, r->v2_est ? "*" : " ", ratio,
               r->same < 0 ? "-" : r->same ? "yes" : "NO");
    }
    printf("(* estimated: the code before from one class (one thread), today's from 10 classes (threads), times the classes;\n"
           " same bits: the completed matrices byte for byte%s)\n",
           quick ? "; --quick: neither the code before at the paper's scale nor its cross-validated completion" : "");
}

/* The seconds per round of a measured method row at K, C (ResNet20's parameters), NAN if none. */
static double round_sec(const char *method, int K, int C) {
    for (int i = 0; i < NROWS; i++)
        if (!strcmp(ROWS[i].method, method) && ROWS[i].K == K && ROWS[i].C == C && ROWS[i].measured && !ROWS[i].note[0])
            return ROWS[i].sec;
    return NAN;
}


/* FLCE's total server time over a whole run (T rounds of its server step, then the completion,
 * version 2) against FedAvg's (the weighted average alone) and FedAvg with its cosine-rule
 * contributions (both then produce contributions), at 10 of 50 clients a round. */
static void totals(int K, int n, int threads, int tiny, int quick) {
    int Ts[3] = {30, 100, 1000}, Cs[2] = {10, 100};
    NTROWS = 0;
    printf("\nThe whole run's server time (rounds + FLCE's completion), K = %d of n = %d, ResNet20:\n", K, n);
    printf("%6s %7s %-20s %12s %12s %12s %10s %16s\n", "rounds", "classes", "completion", "completion s", "FLCE total s",
           "FedAvg s", "x FedAvg", "x FedAvg+cosine");
    for (int ti = 0; ti < (tiny ? 1 : 3); ti++)
        for (int ci = 0; ci < (tiny ? 1 : 2); ci++)
            for (int a = 0; a < 2; a++) {
                if (quick && a && Ts[ti] >= 1000) continue; /* --quick: as above */
                total_row *r = &TROWS[NTROWS++];
                r->T = Ts[ti], r->C = Cs[ci], r->autosel = a;
                r->comp = NAN;
                for (int i = 0; i < NCROWS; i++) /* measured above already */
                    if (CROWS[i].T == r->T && CROWS[i].n == n && CROWS[i].C == r->C && CROWS[i].autosel == a) r->comp = CROWS[i].v2;
                if (isnan(r->comp)) r->comp = time_completion(r->T, n, r->C, K, 0, a, threads, r->C > 10 ? 10 : 0, NULL, NULL);
                r->flce = r->T * round_sec("flce", K, r->C) + r->comp;
                r->fedavg = r->T * round_sec("fedavg", K, r->C);
                r->fedavg_cos = r->T * round_sec("fedavg+cosine", K, r->C);
                printf("%6d %7d %-20s %12.4f %12.4f %12.4f %10.2f %16.2f\n", r->T, r->C, a ? "auto (rank, mu)" : "fixed (the paper's)",
                       r->comp, r->flce, r->fedavg, r->flce / r->fedavg, r->flce / r->fedavg_cos);
            }
}

/* Communication per round: prototypes against models. */
static void communication(int K) {
    int classes[2] = {10, 100};
    /* communication: prototypes against models, per round */
    printf("\nCommunication per round (K = %d clients; floats):\n", K);
    printf("%8s %14s %14s %12s\n", "classes", "prototypes up", "models up+down", "ratio");
    for (int ci = 0; ci < 2; ci++) {
        flce_model mm;
        flce_err e;
        flce_model_create(&mm, flce_backend_reference(), 3, 32, 32, classes[ci], 1, &e);
        double pf = (double)K * classes[ci] * FLCE_FEAT, mf = 2.0 * K * (double)flce_model_count_trainable(&mm);
        printf("%8d %14.0f %14.0f %11.3f%%\n", classes[ci], pf, mf, 100 * pf / mf);
        flce_model_free(&mm);
    }
    printf("(ratio = prototype floats / (model floats up + down), every class present: the paper's definition)\n");
}

/* The rows, the completion times and the totals as CSV; 0, or -1 when the file cannot be written. */
static int write_csv(const char *csv, int n, int K, long params10) {
    FILE *f = fopen(csv, "w");
    if (!f) return -1;
    fprintf(f, "method,clients_per_round,params,classes,proto_dim,server_seconds_median,ratio_to_fedavg,measured,note\n");
    for (int i = 0; i < NROWS; i++)
        fprintf(f, "%s,%d,%ld,%d,%d,%.9f,%.6f,%d,%s\n", ROWS[i].method, ROWS[i].K, ROWS[i].params, ROWS[i].C, FLCE_FEAT,
                ROWS[i].sec, ROWS[i].ratio, ROWS[i].measured, ROWS[i].note);
    for (int i = 0; i < NCROWS; i++)
        for (int v = 0; v < 2; v++)
            fprintf(f, "flce-completion-%s,%d,%ld,%d,%d,%.9f,,%d,%s completion for T = %d n = %d (%s)%s\n", v ? "today" : "before",
                    CROWS[i].K, params10, CROWS[i].C, FLCE_FEAT, v ? CROWS[i].v2 : CROWS[i].v1, v ? !CROWS[i].v2_est : !CROWS[i].v1_est,
                    CROWS[i].autosel ? "auto" : "fixed", CROWS[i].T, CROWS[i].n, CROWS[i].scale,
                    CROWS[i].same == 1 ? "; same bits" : CROWS[i].same == 0 ? "; OTHER BITS" : "");
    for (int i = 0; i < NTROWS; i++)
        fprintf(f, "flce-total-%s,%d,%ld,%d,%d,%.9f,%.6f,1,whole run of %d rounds (rounds + completion v2); x fedavg+cosine %.6f\n",
                TROWS[i].autosel ? "auto" : "fixed", K, params10, TROWS[i].C, FLCE_FEAT, TROWS[i].flce, TROWS[i].flce / TROWS[i].fedavg,
                TROWS[i].T, TROWS[i].flce / TROWS[i].fedavg_cos);
    if (close_whole(f, csv)) return -1;
    printf("wrote %s\n", csv);
    (void)n;
    return 0;
}
int flce_bench_server(int argc, char **argv) {
    const char *prog = "flce-bench server", *csv = NULL, *plot = NULL;
    int quick = 0, reps = 7, full = 0, tiny = 0, threads = 0;
    cli_opt opts[] = {
        {"quick", CLI_FLAG, &quick, "smaller series, fewer repeats, no cross-validated completion at the paper's scale: about a minute", 0},
        {"tiny", CLI_FLAG, &tiny, "the smallest run (10 classes, a 16-image validation set, one repeat, the study-scale completion): for tests", 0},
        {"repeats", CLI_INT, &reps, "timings per measurement, median reported (default 7; quick 3; tiny 1)", 0},
        {"threads", CLI_INT, &threads, "threads of the completion, version 2 (default: one per CPU)", 0},
        {"csv", CLI_STR, &csv, "write the rows as CSV", 0},
        {"plot", CLI_STR, &plot, "write gnuplot figures (PNG and SVG) and their data (CSV) into this folder", 0},
        {"full", CLI_FLAG, &full, "also run FedSV exact for real at K = 10 (about 20 minutes)", 0},
        {0},
    };
    const char *pos[1];
    int np, rc = cli_parse(prog, "usage: flce-bench server [--quick | --tiny] [--repeats N] [--threads N] [--csv FILE] [--plot DIR] [--full]",
                           opts, argc, argv, pos, 0, &np);
    if (rc) return rc == 1 ? 0 : rc;
    if (quick && tiny) return cli_usage_error(prog, "--quick and --tiny: pick one");
    if ((quick || tiny) && !cli_find(opts, "repeats")->seen) reps = tiny ? 1 : 3;
    if (reps < 1 || reps > 64) return cli_usage_error(prog, "--repeats %d: must be 1..64", reps);
    if (threads < 0 || threads > 64) return cli_usage_error(prog, "--threads %d: must be 0 (one per CPU) to 64", threads);
    if (!threads) threads = flce_cpu_count();
    const char *why = csv ? bench_unwritable(csv) : NULL; /* said now, not after the measurement */
    if (why) return cli_usage_error(prog, "--csv %s: cannot write: %s", csv, why);
    if (plot && tiny) /* its series are too short for the figures: gnuplot failed after the measurement */
        return cli_usage_error(prog, "--plot: --tiny measures too little for the figures (no model sizes, no 100 classes); --quick does");
    if (plot && (why = bench_unplottable(plot))) return cli_usage_error(prog, "--plot %s: cannot write figures: %s", plot, why);
    flce_err be_err = {{0}};
    flce_backend *be = flce_backend_cpu_threads(2, &be_err);
    if (!be) return fprintf(stderr, "%s: %s\n", prog, be_err.msg), 1;
    const int n = 50, K = 10;
    int nval = tiny ? 16 : quick ? 200 : 1000;
    long params10 = time_methods(prog, be, n, K, nval, reps, quick, full, tiny);
    if (params10 < 0) {
        be->destroy(be);
        return 1;
    }
    if (!tiny) time_scaling(be, n, K, params10, reps, quick);
    ratios_and_table();
    completion_versions(quick, tiny, threads);
    totals(K, n, threads, tiny, quick);
    communication(K);
    int status = 0;
    if (csv && write_csv(csv, n, K, params10)) fprintf(stderr, "%s: --csv %s: cannot write\n", prog, csv), status = 1;
    if (plot) {
        flce_mkdirs(plot);
        if (write_plot(plot, params10) != 0) {
            fprintf(stderr, "%s: --plot %s: the figures could not be made (gnuplot or the folder failed)\n", prog, plot);
            status = 1;
        } else printf("wrote %s/server_cost.png, server_scaling.png, server_totals.png and their .svg\n", plot);
    }
    be->destroy(be);
    return status;
}
