/* cli.h: the small option parser shared by flce and flce-bench. Options are
 * "--name value" or "--name=value"; anything else starting with "--" is an error.
 * A usage error prints one line "PROG: what is wrong" to stderr and returns 2. */
#ifndef FLCE_CLI_H
#define FLCE_CLI_H

#include <stdint.h>

typedef enum { CLI_INT, CLI_U64, CLI_DOUBLE, CLI_STR, CLI_FLAG, CLI_LIST } cli_kind;

#define CLI_LIST_MAX 16
typedef struct {
    const char *items[CLI_LIST_MAX];
    int n;
} cli_list;

typedef struct {
    const char *name; /* without the leading "--" */
    cli_kind kind;
    void *dst;        /* int*, uint64_t*, double*, const char**, int* (flag), cli_list* */
    const char *help; /* one line, shown by --help */
    int seen;         /* set by cli_parse */
} cli_opt;

/* Parse argv[0..argc) into opts; positional arguments go to pos (up to max_pos).
 * Returns 0 on success, 2 on a usage error (message printed), 1 when --help was given
 * (usage printed to stdout). */
int cli_parse(const char *prog, const char *usage, cli_opt *opts, int argc, char **argv,
              const char **pos, int max_pos, int *npos);
/* The option record named name (for checking .seen). */
cli_opt *cli_find(cli_opt *opts, const char *name);
/* Print "PROG: msg" to stderr and return 2. */
int cli_usage_error(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Run gnuplot on SCRIPT (a file name in DIR) with DIR as its working folder: started with an
 * argument vector (no shell), its output to /dev/null. Its exit status, -1 if it could not run. */
int cli_gnuplot(const char *dir, const char *script);

#endif
