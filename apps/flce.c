/* flce.c: the flce program: parses the subcommand and hands over. Programs are thin:
 * they validate arguments up front and call the library (docs/architecture.md). */
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "commands.h"
#include "base.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *help;
} CMDS[] = {
    {"data", flce_cmd_data, "load a dataset, partition it among clients, print class counts and digest"},
    {"eval", flce_cmd_eval, "FLCE contributions from a recorded trace of prototypes"},
    {"run", flce_cmd_run, "a federated experiment: FLCE (and ablations) and the ten baselines, on one partition"},
    {"truth", flce_cmd_truth, "the retrained ground truth: one training per coalition, exact Shapley, Banzhaf, leave-one-out"},
    {"report", flce_cmd_report, "a reproducibility report (Markdown, HTML, gnuplot figures) of run directories"},
    {"step", flce_cmd_step, "one ResNet20 training step on a given batch: losses, logits, features, gradients"},
    {"check", flce_cmd_check, "every backend against the reference, bit for bit: each op on a table of shapes, training steps"},
};

static void usage(FILE *f) {
    fprintf(f, "usage: flce COMMAND [options]   (flce COMMAND --help for its options)\n\ncommands:\n");
    for (size_t i = 0; i < sizeof CMDS / sizeof CMDS[0]; i++) fprintf(f, "  %-6s %s\n", CMDS[i].name, CMDS[i].help);
    fprintf(f, "\nflce %s\n", FLCE_VERSION);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("flce %s (bit-exact contract %d)\n", FLCE_VERSION, FLCE_CONTRACT_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof CMDS / sizeof CMDS[0]; i++)
        if (strcmp(argv[1], CMDS[i].name) == 0) return CMDS[i].fn(argc - 2, argv + 2);
    fprintf(stderr, "flce: unknown command '%s' (see flce --help)\n", argv[1]);
    return 2;
}
