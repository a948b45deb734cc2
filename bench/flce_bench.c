/* flce_bench.c: flce-bench, the cost measurements of the harness. Subcommands grow with
 * the issues: `peak` measures the machine's float32 mul/add peak that the training
 * benchmark quotes its GFLOP/s against. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "flce.h"
#include "peak.h"

int flce_bench_train(int argc, char **argv);
int flce_bench_server(int argc, char **argv);

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
    double g = flce_peak_gflops(threads);
    printf("peak float32 mul+add (8-wide vectors, no FMA), %d threads: %.1f GFLOP/s\n", threads, g);
    if (csv) {
        char line[128];
        int len = snprintf(line, sizeof line, "threads,peak_gflops\n%d,%.3f\n", threads, g);
        flce_err e;
        if (flce_write_file_atomic(csv, line, (size_t)len, &e)) {
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
        "  peak   the machine's measured float32 mul/add peak (GFLOP/s)\n";
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
    fprintf(stderr, "flce-bench: unknown command '%s' (see flce-bench --help)\n", argv[1]);
    return 2;
}
