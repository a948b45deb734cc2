/* flce_bench.c: flce-bench, the cost measurements of the harness. Subcommands grow with
 * the issues: `peak` measures the machine's float32 mul/add peak that the training
 * benchmark quotes its GFLOP/s against. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "base.h"
#include "peak.h"

int flce_bench_train(int argc, char **argv);
int flce_bench_server(int argc, char **argv);
int flce_bench_cluster(int argc, char **argv);

static int cmd_peak(int argc, char **argv) {
    int threads = 2;
    const char *csv = NULL;
    cli_opt opts[] = {
        {"threads", CLI_INT, &threads, "threads to run (default 2)", 0},
        {"csv", CLI_STR, &csv, "also write the result as CSV to this file", 0},
        {0},
    };
    const char *pos[1];
    int np, rc = cli_parse("flce-bench peak", "usage: flce-bench peak [--threads N] [--csv FILE]", opts, argc,
                           argv, pos, 0, &np);
    if (rc) return rc == 1 ? 0 : rc;
    if (threads < 1 || threads > 64) return cli_usage_error("flce-bench peak", "--threads %d: must be 1..64", threads);
    static const char *names[] = {"mul+add, 8-wide AVX2", "mul+add, 16-wide AVX-512", "FMA, 8-wide AVX2 (not allowed)",
                                  "FMA, 16-wide AVX-512 (not allowed)"};
    static const char *keys[] = {"muladd_avx2", "muladd_avx512", "fma_avx2", "fma_avx512"};
    double g[4];
    char text[512];
    size_t len = 0;
    flce_catf(text, sizeof text, &len, "threads,kind,peak_gflops\n");
    printf("peak float32 GFLOP/s, %d threads (best of 3 runs each):\n", threads);
    for (int k = 0; k < 4; k++) {
        g[k] = flce_peak_kind_gflops(k, threads);
        if (g[k] == 0.0) {
            printf("  %-36s  (this CPU lacks it)\n", names[k]);
            continue;
        }
        printf("  %-36s %8.1f%s\n", names[k], g[k], k == flce_peak_backend_kind() ? "   <- the CPU backend's vectors" : "");
        flce_catf(text, sizeof text, &len, "%d,%s,%.3f\n", threads, keys[k], g[k]);
    }
    int best_fma = g[3] > g[2] ? 3 : 2;
    printf("the bit-exact contract allows separate mul and add only: the CPU backend's ceiling is %.2f of the FMA peak\n",
           g[flce_peak_backend_kind()] / g[best_fma]);
    if (csv) {
        flce_err e;
        if (flce_write_file_atomic(csv, text, (size_t)len, &e)) {
            fprintf(stderr, "flce-bench peak: %s\n", e.msg);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    static const char *usage =
        "usage: flce-bench COMMAND [options]   (flce-bench COMMAND --help)\n\n"
        "commands:\n"
        "  server the server's cost per round of every method against FedAvg, and communication\n"
        "  train  ResNet20 training throughput per backend (images/s, GFLOP/s, fraction of peak)\n"
        "  peak   the machine's measured float32 peaks (GFLOP/s): mul+add (all the contract allows), FMA for comparison\n"
        "  cluster  mpirun -n P flce run at the paper's scale: seconds per round against P, from parts measured here\n";
    if (argc < 2) {
        fputs(usage, stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fputs(usage, stdout);
        return 0;
    }
    if (!strcmp(argv[1], "peak")) return cmd_peak(argc - 2, argv + 2);
    if (!strcmp(argv[1], "train")) return flce_bench_train(argc - 2, argv + 2);
    if (!strcmp(argv[1], "server")) return flce_bench_server(argc - 2, argv + 2);
    if (!strcmp(argv[1], "cluster")) return flce_bench_cluster(argc - 2, argv + 2);
    fprintf(stderr, "flce-bench: unknown command '%s' (see flce-bench --help)\n", argv[1]);
    return 2;
}
