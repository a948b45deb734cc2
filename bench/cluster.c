/* cluster.c: `flce-bench cluster`: where adding processes stops paying off for `mpirun -n P
 * flce run` at the paper's scale, from parts measured on this machine and the network's
 * bandwidth and latency as inputs.
 *
 * Measured here (one process, the CPU backend unless --backend): ResNet20 training samples per
 * second at batch 64 with and without the contrastive loss, and evaluation samples per second
 * (forward only), on 3x32x32 inputs (CIFAR). The model of one round with P processes (the
 * engine's design, docs/decisions.md "Several processes"):
 *   clients  the K selected clients dealt to P processes (the largest first, to the least
 *            loaded): the longest process's samples x epochs / training rate (FLCE: plus one
 *            evaluation pass over the client's data for its prototypes)
 *   uploads  K broadcasts of one upload (4 S bytes, plus FLCE's prototypes), each over a
 *            binomial tree: ceil(log2 P) x (latency + bytes / bandwidth)
 *   server   FedAvg and FLCE: the weighted average, negligible against the rest (measured by
 *            flce-bench server); FedSV (exact): 2^K coalitions, each an average and an evaluation
 *            of the validation set, dealt over the P processes, plus gathering the utilities
 *   test     the test set, its batches of 256 dealt over the processes (counts summed)
 * Every rank holds the same data, so nothing else moves. The paper's scale: 50 clients, 10 per
 * round, CIFAR-10 (50,000 training images, 1,000 per client; 10,000 test; 1,000 validation). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend_select.h"
#include "cli.h"
#include "model.h"
#include "util.h"

/* Samples per second of training (lambda: the contrastive weight) or evaluation (train 0). */
static double rate(flce_backend *be, int train, float lambda, int steps, flce_err *e) {
    const int B = 64;
    flce_model m;
    if (flce_model_create(&m, be, 3, 32, 32, 10, B, e)) return NAN;
    flce_model_init(&m, 1);
    float *x = malloc(sizeof(float) * B * 3 * 32 * 32);
    int32_t y[64];
    flce_rng r;
    flce_rng_init(&r, 1, FLCE_RNG_BENCH, 9, 0);
    for (int i = 0; i < B * 3 * 32 * 32 && x; i++) x[i] = (float)flce_rng_normal(&r);
    for (int i = 0; i < B; i++) y[i] = i % 10;
    double best = INFINITY;
    for (int rep = 0; rep < 3 && x; rep++) {
        double t0 = bench_now();
        for (int s = 0; s < steps; s++) {
            flce_losses l;
            if (train) {
                flce_model_forward_backward(&m, B, x, y, lambda, 0.5f, &l, e);
                flce_model_sgd(&m, 0.01f, 0, 0, s == 0);
            } else flce_model_eval(&m, B, x, NULL, NULL, e);
        }
        double t = bench_now() - t0;
        if (t < best) best = t;
    }
    free(x);
    flce_model_free(&m);
    return best > 0 ? steps * B / best : NAN;
}

/* The longest process's samples when K clients of `per` samples each are dealt to P processes. */
static double busiest(int K, int P, double per) {
    int most = (K + P - 1) / P; /* equal clients: the deal gives ceil(K / P) to some process */
    return most * per;
}

/* Run argv (no shell) with stdout and stderr into log; its exit status (-1: could not run). */
static int run_prog(char *const *argv, const char *log) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) dup2(fd, 1), dup2(fd, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The mean client and server seconds per round of a run folder's metrics.csv (NaN: unreadable). */
static double seconds_per_round(const char *dir) {
    char p[1200], line[512];
    snprintf(p, sizeof p, "%s/metrics.csv", dir);
    FILE *f = fopen(p, "r");
    if (!f) return NAN;
    double tot = 0;
    int n = 0;
    if (!fgets(line, sizeof line, f)) line[0] = 0;
    while (fgets(line, sizeof line, f)) {
        int r;
        double a, b, c, d, srv, cli;
        if (sscanf(line, "%d,%lf,%lf,%lf,%lf,%lf,%lf", &r, &a, &b, &c, &d, &srv, &cli) == 7) tot += srv + cli, n++;
    }
    fclose(f);
    return n ? tot / n : NAN;
}

/* `mpirun -n P flce run` of FedAvg, FLCE and FedSV for P = 1..pmax on this machine (a small
 * Fashion-MNIST run: 20 clients, 6 per round, 3 rounds); seconds per round (clients and server,
 * as metrics.csv records them on rank 0). Needs flce beside flce-bench and mpirun. */
static int measure(const char *prog, int pmax, const char *tmp) {
    char self[1024], flce[1100];
    ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
    if (l <= 0) return cli_usage_error(prog, "cannot find the flce program beside flce-bench");
    self[l] = 0;
    char *slash = strrchr(self, '/');
    if (slash) *slash = 0;
    snprintf(flce, sizeof flce, "%s/flce", self);
    if (access(flce, X_OK) != 0) return cli_usage_error(prog, "%s: not found (build flce)", flce);
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0), setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
    setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 0);
    printf("measured on this machine: mpirun -n P flce run, Fashion-MNIST, 20 clients, 6 per round, 3 rounds, cpu backend\n");
    printf("%5s %12s %12s %12s\n", "P", "FedAvg s", "FLCE s", "FedSV s");
    for (int P = 1; P <= pmax; P++) {
        char np[16], out[1200], log[1300];
        snprintf(np, sizeof np, "%d", P);
        snprintf(out, sizeof out, "%s/p%d", tmp, P);
        snprintf(log, sizeof log, "%s/p%d.log", tmp, P);
        char *av[] = {"mpirun", "-q", "--oversubscribe", "-n", np, flce, "run", "--algo", "fedavg,flce,fedsv", "--clients", "20",
                      "--per-round", "6", "--rounds", "3", "--train-subset", "4000", "--test-subset", "1000", "--val-size", "200",
                      "--seed", "1", "--backend", "cpu", "--quiet", "--force", "--out", out, NULL};
        int rc = run_prog(av, log);
        if (rc) {
            fprintf(stderr, "%s: mpirun -n %d failed (status %d, see %s)\n", prog, P, rc, log);
            return 1;
        }
        char d[3][1300];
        const char *m[3] = {"fedavg", "flce", "fedsv"};
        for (int k = 0; k < 3; k++) snprintf(d[k], sizeof d[k], "%s/%s", out, m[k]);
        printf("%5d %12.2f %12.2f %12.2f\n", P, seconds_per_round(d[0]), seconds_per_round(d[1]), seconds_per_round(d[2]));
    }
    return 0;
}

/* The model's table as CSV: 0, or -1 when it could not be written whole. */
static int write_table(const char *path, const int *Ps, int nP, double (*all)[3]) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "processes,fedavg_s,flce_s,fedsv_s\n");
    for (int i = 0; i < nP; i++) fprintf(f, "%d,%.6f,%.6f,%.6f\n", Ps[i], all[i][0], all[i][1], all[i][2]);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        remove(path);
        return -1;
    }
    return 0;
}

/* The model's table as a figure (gnuplot, no shell): seconds per round against processes, from
 * DIR/mpi_cluster.csv written beside it (no path from the command line enters the script). On
 * a failure nothing half-made is left: the figures are removed. */
static int plot(const char *dir, const int *Ps, int nP, double (*all)[3]) {
    char p[1200];
    flce_mkdirs(dir);
    snprintf(p, sizeof p, "%s/mpi_cluster.csv", dir);
    if (write_table(p, Ps, nP, all)) return -1;
    snprintf(p, sizeof p, "%s/mpi_cluster.gp", dir);
    FILE *f = fopen(p, "w");
    if (!f) return -1;
    fprintf(f, "# made by flce-bench cluster; data: mpi_cluster.csv\nset datafile separator ','\nset key top right\n"
               "do for [fmt in 'png svg'] {\n"
               "  if (fmt eq 'png') { set terminal pngcairo size 900,520 } else { set terminal svg size 900,520 }\n"
               "  set output 'mpi_cluster.'.fmt\n  set logscale xy\n  set grid\n"
               "  set xlabel 'processes (mpirun -n P)'\n  set ylabel 'seconds per round (log scale)'\n"
               "  set title 'Paper scale (50 clients, 10 per round, ResNet20 on CIFAR-10): the model from rates measured here'\n"
               "  plot 'mpi_cluster.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'FedAvg', \\\n"
               "       '' skip 1 using 1:3 with linespoints lw 2 pt 7 lc rgb '#d62728' title 'FLCE', \\\n"
               "       '' skip 1 using 1:4 with linespoints lw 2 pt 7 lc rgb '#2ca02c' title 'FedSV (exact)'\n}\n");
    int bad = fclose(f) != 0;
    int rc = bad ? -1 : cli_gnuplot(dir, "mpi_cluster.gp");
    if (rc) {
        snprintf(p, sizeof p, "%s/mpi_cluster.png", dir), remove(p);
        snprintf(p, sizeof p, "%s/mpi_cluster.svg", dir), remove(p);
    }
    return rc;
}

/* A truth job (flce truth, --truth): every coalition of n clients, each a training of T rounds of
 * min(K, |S|) clients of `samples` samples (epochs each) and T test evaluations of `test` images;
 * the coalitions dealt to P processes as flce truth deals them (the largest first, to the least
 * loaded; flce truth weighs a coalition by its client-rounds alone, the evaluations, the same for
 * every coalition, are added here); the job's time is the busiest process's. One row of hours for
 * each n = 10, 12, 14, 16. */
static void truth_model(double tr_sps, double ev_sps, int K, int T, double samples, int epochs, double test, const int *Ps, int nP) {
    printf("truth job (flce truth): every coalition, %d rounds, min(%d, |S|) clients a round, %.0f samples a client (%d epoch%s), "
           "%.0f test images a round\n\n%5s", T, K, samples, epochs, epochs > 1 ? "s" : "", test, "n");
    for (int i = 0; i < nP; i++) printf(" %9s%-4d", "P=", Ps[i]);
    printf("   (hours; the busiest process)\n");
    for (int n = 10; n <= 16; n += 2) {
        int M = 1 << n;
        double *cost = malloc(sizeof(double) * (size_t)M), *load = malloc(sizeof(double) * 1024);
        if (!cost || !load) {
            free(cost), free(load);
            return;
        }
        int at = 0; /* the coalitions in order of cost, the largest first: by size, from n down */
        for (int k = n; k >= 1; k--) {
            double c = T * ((k < K ? k : K) * samples * epochs / tr_sps + test / ev_sps);
            for (int m = 0; m < M; m++)
                if (__builtin_popcount((unsigned)m) == k) cost[at++] = c;
        }
        printf("%5d", n);
        for (int i = 0; i < nP; i++) {
            int P = Ps[i];
            for (int w = 0; w < P; w++) load[w] = 0;
            for (int q = 0; q < at; q++) {
                int best = 0;
                for (int w = 1; w < P; w++)
                    if (load[w] < load[best]) best = w;
                load[best] += cost[q];
            }
            double mx = 0;
            for (int w = 0; w < P; w++) mx = fmax(mx, load[w]);
            printf(" %13.2f", mx / 3600);
        }
        printf("\n");
        free(cost), free(load);
    }
    printf("\n(the coalitions are independent: the time divides by P until a process holds one coalition; the\n"
           "largest coalition, T rounds of K clients, is the floor. Rates measured on 3x32x32; a Fashion-MNIST\n"
           "image, 1x28x28, costs less)\n");
}

int flce_bench_cluster(int argc, char **argv) {
    const char *prog = "flce-bench cluster", *backend = "cpu", *csv = NULL, *plot_dir = NULL;
    int pmax = 0;
    double bw = 1.25, lat_us = 50, tr_sps = NAN, ev_sps = NAN; /* NaN: not given, measured here */
    int steps = 3, K = 10, n = 50, epochs = 1, truth = 0, truth_rounds = 20;
    double truth_samples = 1000, truth_test = 10000;
    cli_opt opts[] = {
        {"bandwidth", CLI_DOUBLE, &bw, "network bandwidth per link, GB/s (default 1.25: 10 Gbit/s)", 0},
        {"latency", CLI_DOUBLE, &lat_us, "network latency per message, microseconds (default 50)", 0},
        {"train-rate", CLI_DOUBLE, &tr_sps, "training samples/s of one process (default: measured here)", 0},
        {"eval-rate", CLI_DOUBLE, &ev_sps, "evaluation samples/s of one process (default: measured here)", 0},
        {"backend", CLI_STR, &backend, "the backend measured (default cpu)", 0},
        {"steps", CLI_INT, &steps, "training steps per timing (default 3)", 0},
        {"clients", CLI_INT, &n, "clients (default 50, the paper's)", 0},
        {"per-round", CLI_INT, &K, "clients per round K (default 10, the paper's)", 0},
        {"epochs", CLI_INT, &epochs, "local epochs (default 1)", 0},
        {"csv", CLI_STR, &csv, "write the table as CSV", 0},
        {"plot", CLI_STR, &plot_dir, "write the figure mpi_cluster.png/.svg and its data mpi_cluster.csv into this folder", 0},
        {"measure", CLI_INT, &pmax, "also run mpirun -n 1..N flce run here and report seconds per round (default 0: no)", 0},
        {"truth", CLI_FLAG, &truth, "model a truth job (flce truth: every coalition of n = 10..16 clients retrained) on 1 to 1,024 processes instead", 0},
        {"truth-rounds", CLI_INT, &truth_rounds, "--truth: rounds of each coalition's training (default 20)", 0},
        {"truth-samples", CLI_DOUBLE, &truth_samples, "--truth: samples a client (default 1000, the paper's 50,000 over 50)", 0},
        {"truth-test", CLI_DOUBLE, &truth_test, "--truth: test images evaluated each round (default 10000)", 0},
        {0},
    };
    const char *pos[1];
    int np, rc = cli_parse(prog, "usage: flce-bench cluster [--bandwidth GB/s] [--latency us] [--train-rate S] [--eval-rate S] "
                                 "[--backend cpu] [--clients 50] [--per-round 10] [--epochs 1] [--csv FILE] [--plot DIR] [--measure N]\n"
                                 "       flce-bench cluster --truth [--per-round K] [--truth-rounds 20] [--truth-samples 1000] [--truth-test 10000] [--epochs 1]",
                           opts, argc, argv, pos, 0, &np);
    if (rc) return rc == 1 ? 0 : rc;
    if (!(bw > 0) || !(lat_us >= 0)) return cli_usage_error(prog, "--bandwidth must be > 0 and --latency >= 0");
    /* a rate of 0 or less was measured instead, without a word */
    if (!isnan(tr_sps) && !(tr_sps > 0)) return cli_usage_error(prog, "--train-rate %g: must be > 0 (leave it out to measure it here)", tr_sps);
    if (!isnan(ev_sps) && !(ev_sps > 0)) return cli_usage_error(prog, "--eval-rate %g: must be > 0 (leave it out to measure it here)", ev_sps);
    if (n > 50000) return cli_usage_error(prog, "--clients %d: at most 50000 (the paper's 50,000 training images, one each)", n);
    if (K < 1 || K > 12 || n < K) return cli_usage_error(prog, "--per-round %d: 1..12 (exact Shapley) and at most --clients", K);
    if (steps < 1 || epochs < 1) return cli_usage_error(prog, "--steps and --epochs must be at least 1");
    if (pmax < 0 || pmax > 16) return cli_usage_error(prog, "--measure %d: 0..16", pmax);
    if (!truth && (cli_find(opts, "truth-rounds")->seen || cli_find(opts, "truth-samples")->seen || cli_find(opts, "truth-test")->seen))
        return cli_usage_error(prog, "--truth-rounds, --truth-samples, --truth-test: settings of --truth, which is not given");
    if (truth && (csv || plot_dir || pmax)) return cli_usage_error(prog, "--truth: a table of its own (no --csv, --plot or --measure)");
    if (truth && (truth_rounds < 1 || !(truth_samples >= 1) || !(truth_test >= 1)))
        return cli_usage_error(prog, "--truth-rounds, --truth-samples, --truth-test: at least 1");
    const char *why = csv ? bench_unwritable(csv) : NULL; /* said now, not after the measurement */
    if (why) return cli_usage_error(prog, "--csv %s: cannot write: %s", csv, why);
    if (plot_dir && (why = bench_unplottable(plot_dir))) return cli_usage_error(prog, "--plot %s: cannot write figures: %s", plot_dir, why);
    flce_err e = {{0}};
    flce_backend *be = NULL;
    double tr_flce = 0;
    if (!(tr_sps > 0) || !(ev_sps > 0)) {
        be = flce_backend_open(backend, NULL, FLCE_DENORM_AUTO, &e);
        if (!be) return cli_usage_error(prog, "--backend %s: %s", backend, e.msg);
        fprintf(stderr, "measuring ResNet20 on 3x32x32, batch 64 (%s)...\n", be->device);
    }
    if (!(tr_sps > 0)) tr_sps = rate(be, 1, 0.0f, steps, &e);
    tr_flce = be ? rate(be, 1, 1.0f, steps, &e) : tr_sps;
    if (!(ev_sps > 0)) ev_sps = rate(be, 0, 0.0f, steps * 2, &e);
    if (be) be->destroy(be);
    if (!(tr_sps > 0) || !(ev_sps > 0) || !(tr_flce > 0)) {
        fprintf(stderr, "%s: measurement failed: %s\n", prog, e.msg);
        return 1;
    }
    static const int Ps[] = {1, 2, 3, 4, 5, 8, 10, 16, 32, 64, 128, 256, 1024};
    if (truth) {
        static const int Pt[] = {1, 2, 8, 64, 256, 1024};
        printf("measured: training %.0f samples/s, evaluation %.0f samples/s\n", tr_sps, ev_sps);
        truth_model(tr_sps, ev_sps, K, truth_rounds, truth_samples, epochs, truth_test, Pt, (int)(sizeof Pt / sizeof Pt[0]));
        return 0;
    }
    const double train_images = 50000, test_images = 10000, val_images = 1000, S = 272474 + 2 * 688;
    double per = train_images / n * epochs, bytes = 4 * S, lat = lat_us * 1e-6, bwb = bw * 1e9;
    printf("measured: training %.0f samples/s (FLCE, with the contrastive loss: %.0f), evaluation %.0f samples/s\n", tr_sps, tr_flce,
           ev_sps);
    printf("paper scale: %d clients (%.0f samples each, %d epoch%s), %d per round, upload %.2f MB, network %.2f GB/s, %.0f us\n\n", n,
           train_images / n, epochs, epochs > 1 ? "s" : "", K, bytes / 1e6, bw, lat_us);
    printf("%5s %12s %12s %12s %9s %9s %9s\n", "P", "FedAvg s", "FLCE s", "FedSV s", "x FedAvg", "x FLCE", "x FedSV");
    double base[3] = {0}, stop[3] = {0}, all[sizeof Ps / sizeof Ps[0]][3];
    for (size_t i = 0; i < sizeof Ps / sizeof Ps[0]; i++) {
        int P = Ps[i];
        double hops = P > 1 ? ceil(log2((double)P)) : 0;
        double test = ceil(ceil(test_images / 256) / P) * 256 / ev_sps + (P > 1 ? hops * (lat + 8 * 31 / bwb) : 0);
        double up = K * hops * (lat + bytes / bwb), up_flce = K * hops * (lat + (bytes + 4.0 * 10 * 64) / bwb);
        double t_avg = busiest(K, P, per) / tr_sps + up + test;
        double t_flce = busiest(K, P, per) / tr_flce + busiest(K, P, train_images / n) / ev_sps + up_flce + test;
        double coal = (double)(1 << K), each = val_images / ev_sps;
        double t_sv = t_avg + ceil(coal / P) * each + (P > 1 ? P * hops * (lat + 8 * coal / bwb) : 0);
        double t[3] = {t_avg, t_flce, t_sv};
        if (i == 0) memcpy(base, t, sizeof base);
        memcpy(all[i], t, sizeof t);
        printf("%5d %12.2f %12.2f %12.1f %9.2f %9.2f %9.2f\n", P, t_avg, t_flce, t_sv, base[0] / t_avg, base[1] / t_flce, base[2] / t_sv);
    }
    const int nP = (int)(sizeof Ps / sizeof Ps[0]);
    for (int m = 0; m < 3; m++) { /* the fewest processes within 5% of the best time of any P tried */
        double best = INFINITY;
        for (int i = 0; i < nP; i++) best = fmin(best, all[i][m]);
        for (int i = nP - 1; i >= 0; i--)
            if (all[i][m] <= 1.05 * best) stop[m] = Ps[i];
    }
    printf("\nadding processes stops paying off (within 5%% of the best of any P tried) at: FedAvg %g, FLCE %g, FedSV %g\n"
           "(FedAvg and FLCE: once every process trains one client, K = %d, the round is one client's training, the\n"
           "broadcasts and a share of the test set; FedSV's 2^K coalition evaluations keep dividing)\n",
           stop[0], stop[1], stop[2], K);
    int status = 0;
    if (csv && write_table(csv, Ps, nP, all)) fprintf(stderr, "%s: --csv %s: cannot write: %s\n", prog, csv, strerror(errno)), status = 1;
    if (plot_dir) {
        if (plot(plot_dir, Ps, nP, all)) fprintf(stderr, "%s: --plot %s: the figure could not be made (gnuplot or the folder failed)\n", prog, plot_dir), status = 1;
        else printf("wrote %s/mpi_cluster.png and .svg (data: mpi_cluster.csv)\n", plot_dir);
    }
    if (pmax > 0) {
        char tmp[] = "/tmp/flce-cluster-XXXXXX";
        if (!mkdtemp(tmp)) return cli_usage_error(prog, "cannot make a temporary folder");
        printf("\n");
        status |= measure(prog, pmax, tmp);
        char *rm[] = {"rm", "-rf", tmp, NULL};
        run_prog(rm, "/dev/null");
    }
    return status;
}
