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
#include "cpu.h"
#include "ref_backend.h"


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
} bench_round;

static int setup_round(bench_round *b, flce_backend *be, int n, int K, int C, size_t S_override, int nval, uint64_t seed) {
    engine *E = &b->E;
    memset(b, 0, sizeof *b);
    flce_run_cfg_default(&b->cfg);
    b->cfg.seed = seed;
    b->cfg.per_round = K;
    b->cfg.clients = n;
    E->cfg = &b->cfg;
    E->n = n, E->K = K, E->C = C, E->d = FLCE_FEAT, E->T = 1000;
    E->be = be;
    flce_err e;
    if (flce_model_create(&E->m, be, 3, 32, 32, C, 256, &e)) return -1;
    flce_model_init(&E->m, seed);
    E->S = S_override ? S_override : flce_model_state_size(&E->m);
    E->global = malloc(sizeof(float) * E->S), E->newg = malloc(sizeof(float) * E->S);
    E->states = malloc(sizeof(float) * E->S * (size_t)K);
    E->sel = malloc(sizeof(int) * (size_t)K), E->sizes = malloc(sizeof(double) * (size_t)n);
    E->protos = malloc(sizeof(float) * (size_t)n * C * FLCE_FEAT), E->present = calloc((size_t)n * C, 1);
    E->omega = malloc(sizeof(double) * (size_t)K), E->rc = malloc(sizeof(double) * (size_t)K);
    E->rep_loss = malloc(sizeof(double) * (size_t)K), E->rep_acc = malloc(sizeof(double) * (size_t)K);
    E->g = calloc((size_t)C * FLCE_FEAT, sizeof(double)), E->has_g = calloc((size_t)C, 1);
    E->contrib_sum = calloc((size_t)n, sizeof(double));
    E->vcache = malloc(sizeof(double) * ((size_t)1 << (K < 21 ? K : 1)));
    E->aux_fn = E->S * (size_t)n, E->aux_dn = (size_t)n + (size_t)K + 2;
    E->aux_f = calloc(E->aux_fn, sizeof(float)), E->aux_d = calloc(E->aux_dn, sizeof(double));
    E->CHW = 3 * 32 * 32;
    E->n_val = nval;
    E->bx = malloc(sizeof(float) * 256 * E->CHW), E->logits = malloc(sizeof(float) * 256 * C);
    E->train_x = malloc(sizeof(float) * (size_t)(nval ? nval : 1) * E->CHW);
    E->val_idx = malloc(sizeof(int) * (size_t)(nval ? nval : 1));
    E->ds.train.labels = malloc((size_t)(nval ? nval : 1));
    if (!E->global || !E->states || !E->protos || !E->aux_f || !E->train_x || !E->vcache) return -1;
    flce_rng r;
    flce_rng_init(&r, seed, FLCE_RNG_BENCH, 1, 0);
    if (S_override) for (size_t j = 0; j < E->S; j++) E->global[j] = (float)(flce_rng_normal(&r) * 0.05);
    else flce_model_get_state(&E->m, E->global);
    for (int i = 0; i < K; i++) {
        E->sel[i] = i * (n / K);
        E->rep_loss[i] = 1 + flce_rng_uniform(&r);
        E->rep_acc[i] = 0.1 + 0.8 * flce_rng_uniform(&r);
        for (size_t j = 0; j < E->S; j++) E->states[(size_t)i * E->S + j] = E->global[j] + (float)(flce_rng_normal(&r) * 1e-3);
    }
    for (int k = 0; k < n; k++) E->sizes[k] = 100 + (double)flce_rng_below(&r, 1000);
    for (size_t q = 0; q < (size_t)n * C * FLCE_FEAT; q++) E->protos[q] = NAN;
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
    engine *E = &b->E;
    flce_model_free(&E->m);
    free(E->global), free(E->newg), free(E->states), free(E->sel), free(E->sizes), free(E->protos), free(E->present);
    free(E->omega), free(E->rc), free(E->rep_loss), free(E->rep_acc), free(E->g), free(E->has_g), free(E->contrib_sum);
    free(E->vcache), free(E->aux_f), free(E->aux_d), free(E->bx), free(E->logits), free(E->train_x), free(E->val_idx);
    free(E->ds.train.labels);
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
    E->algo = a;
    if (a->state_init) a->state_init(E);
    flce_err e;
    double t[64];
    a->server(E, &e);
    for (int k = 0; k < reps && k < 64; k++) {
        memset(E->has_g, 0, (size_t)E->C); /* FLCE: every repeat sees the same round */
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

static double time_completion(int T, int n, int C, int K, uint64_t seed) {
    double *X = malloc(sizeof(double) * (size_t)T * n), *Xh = malloc(sizeof(double) * (size_t)T * n);
    uint8_t *obs = calloc((size_t)T * n, 1);
    flce_rng r;
    flce_rng_init(&r, seed, FLCE_RNG_BENCH, 2, 0);
    int s[256];
    for (int t = 0; t < T; t++) {
        flce_rng_sample(&r, n, K, s);
        for (int i = 0; i < K; i++) obs[(size_t)t * n + s[i]] = 1;
    }
    flce_completion_cfg cc;
    flce_completion_cfg_default(&cc);
    double t0 = bench_now();
    for (int c = 0; c < C; c++) {
        for (int i = 0; i < T * n; i++) X[i] = obs[i] ? flce_rng_uniform(&r) / K : 0;
        flce_completion_info info;
        flce_complete(X, obs, T, n, &cc, (uint32_t)c, Xh, &info, NULL);
    }
    double sec = bench_now() - t0;
    free(X), free(Xh), free(obs);
    return sec;
}

/* The figures' data (written beside them) and the gnuplot script, run once per format. */
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
    fclose(f);
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
    fclose(f);
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
            "  unset logscale\n  unset xlabel\n"
            "}\n");
    fclose(f);
    return cli_gnuplot(dir, "server_cost.gp"); /* no shell; the script names its files relative to dir */
}

/* The server step of every method on a synthetic round (C = 10 and 100), Shapley methods
 * estimated from one measured utility evaluation, FedSV exact also run at K = 4 (and at K with
 * --full); the trainable parameters at C = 10, or -1 when out of memory. */
static long time_methods(const char *prog, flce_backend *be, int n, int K, int nval, int reps, int quick, int full) {
    static const char *methods[] = {"fedavg", "flce", "fedavg+cosine", "fedprox", "ditto", "moon", "fedfv", "cgsv", "qfedavg",
                                    "fedfa"};
    int classes[2] = {10, 100};
    long params10 = 0;
    for (int ci = 0; ci < 2; ci++) {
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

/* FLCE's completion at the end, and amortised per round (T = 100, 1000; 50 and 200 clients). */
static void completion_times(int n, int K, int quick, double comp[2][2], double comp200[2]) {
    int classes[2] = {10, 100};
    /* FLCE's completion at the end, and amortised per round */
    printf("\nFLCE completion (ALS, rank <= 4) after the last round, K = %d of n = %d:\n", K, n);
    printf("%6s %5s %8s %14s %16s\n", "T", "n", "classes", "seconds", "per round");
    for (int ti = 0; ti < 2; ti++)
        for (int ci = 0; ci < 2; ci++) {
            int T = ti ? 1000 : 100, C = classes[ci];
            if (quick && T == 1000 && C == 100) {
                comp[ti][ci] = NAN;
                continue;
            }
            comp[ti][ci] = time_completion(T, n, C, K, 4);
            printf("%6d %5d %8d %14.4f %16.6f\n", T, n, C, comp[ti][ci], comp[ti][ci] / T);
        }
    /* T x n grows with n too: 200 clients, 10 classes */
    for (int ti = 0; ti < 2; ti++) {
        int T = ti ? 1000 : 100;
        comp200[ti] = quick && ti ? NAN : time_completion(T, 200, 10, K, 5);
        if (!isnan(comp200[ti])) printf("%6d %5d %8d %14.4f %16.6f\n", T, 200, 10, comp200[ti], comp200[ti] / T);
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

/* The rows and the completion times as CSV; 0, or -1 when the file cannot be written. */
static int write_csv(const char *csv, int n, int K, long params10, double comp[2][2], const double comp200[2]) {
    int classes[2] = {10, 100};
        FILE *f = fopen(csv, "w");
    if (!f) return -1;
    fprintf(f, "method,clients_per_round,params,classes,proto_dim,server_seconds_median,ratio_to_fedavg,measured,note\n");
    for (int i = 0; i < NROWS; i++)
        fprintf(f, "%s,%d,%ld,%d,%d,%.9f,%.6f,%d,%s\n", ROWS[i].method, ROWS[i].K, ROWS[i].params, ROWS[i].C, FLCE_FEAT,
                ROWS[i].sec, ROWS[i].ratio, ROWS[i].measured, ROWS[i].note);
    for (int ti = 0; ti < 2; ti++)
        for (int ci = 0; ci < 2; ci++)
            if (!isnan(comp[ti][ci]))
                fprintf(f, "flce-completion-T%d,%d,%ld,%d,%d,%.9f,,1,whole completion for T = %d n = %d\n", ti ? 1000 : 100,
                        K, params10, classes[ci], FLCE_FEAT, comp[ti][ci], ti ? 1000 : 100, n);
    for (int ti = 0; ti < 2; ti++)
        if (!isnan(comp200[ti]))
            fprintf(f, "flce-completion-T%d,%d,%ld,10,%d,%.9f,,1,whole completion for T = %d n = 200\n", ti ? 1000 : 100, K,
                    params10, FLCE_FEAT, comp200[ti], ti ? 1000 : 100);
    fclose(f);
    printf("wrote %s\n", csv);
    return 0;
}

int flce_bench_server(int argc, char **argv) {
    const char *prog = "flce-bench server", *csv = NULL, *plot = NULL;
    int quick = 0, reps = 7, full = 0;
    cli_opt opts[] = {
        {"quick", CLI_FLAG, &quick, "smaller series, fewer repeats: under a minute", 0},
        {"repeats", CLI_INT, &reps, "timings per measurement, median reported (default 7; quick 3)", 0},
        {"csv", CLI_STR, &csv, "write the rows as CSV", 0},
        {"plot", CLI_STR, &plot, "write gnuplot figures (PNG and SVG) into this folder (needs --csv)", 0},
        {"full", CLI_FLAG, &full, "also run FedSV exact for real at K = 10 (about 20 minutes)", 0},
        {0},
    };
    const char *pos[1];
    int np, rc = cli_parse(prog, "usage: flce-bench server [--quick] [--repeats N] [--csv FILE] [--plot DIR] [--full]", opts,
                           argc, argv, pos, 0, &np);
    if (rc) return rc == 1 ? 0 : rc;
    if (quick && !cli_find(opts, "repeats")->seen) reps = 3;
    if (reps < 1 || reps > 64) return cli_usage_error(prog, "--repeats %d: must be 1..64", reps);
    if (plot && !csv) return cli_usage_error(prog, "--plot needs --csv");
    flce_backend *be = flce_backend_cpu(2);
    const int n = 50, K = 10;
    int nval = quick ? 200 : 1000;
    long params10 = time_methods(prog, be, n, K, nval, reps, quick, full);
    if (params10 < 0) return 1;
    time_scaling(be, n, K, params10, reps, quick);
    ratios_and_table();
    double comp[2][2], comp200[2];
    completion_times(n, K, quick, comp, comp200);
    communication(K);
    int status = 0;
    if (csv) {
        if (write_csv(csv, n, K, params10, comp, comp200)) return cli_usage_error(prog, "--csv %s: cannot write", csv);
        if (plot) {
            flce_mkdirs(plot);
            if (write_plot(plot, params10) != 0) {
                fprintf(stderr, "%s: gnuplot failed\n", prog);
                status = 1;
            } else printf("wrote %s/server_cost.png, server_scaling.png and their .svg\n", plot);
        }
    }
    be->destroy(be);
    return status;
}
