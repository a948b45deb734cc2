/* cli.c: option parsing for the command-line programs (see cli.h). */
#include "cli.h"
#include "base.h" /* flce_number */

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_usage_error(const char *prog, const char *fmt, ...) {
    char m[8192]; /* one line whatever the values it echoes hold (flce_one_line) */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: %s\n", prog, flce_one_line(m));
    return 2;
}

cli_opt *cli_find(cli_opt *opts, const char *name) {
    for (cli_opt *o = opts; o->name; o++)
        if (strcmp(o->name, name) == 0) return o;
    return NULL;
}

static void print_help(const char *usage, const cli_opt *opts) {
    printf("%s\n\noptions:\n", usage);
    for (const cli_opt *o = opts; o->name; o++) {
        const char *arg = o->kind == CLI_FLAG ? "" : o->kind == CLI_STR || o->kind == CLI_LIST ? " S" : " N";
        char left[64];
        snprintf(left, sizeof left, "--%s%s", o->name, arg);
        printf("  %-22s %s\n", left, o->help);
    }
}

static int set_value(const char *prog, cli_opt *o, const char *v) {
    char *end;
    errno = 0;
    switch (o->kind) {
    case CLI_INT: {
        long long x = strtoll(v, &end, 10);
        if (*v == '\0' || *end || (errno && errno != ERANGE) || isspace((unsigned char)*v) || *v == '+') /* strtoll skips spaces, takes '+' */
            return cli_usage_error(prog, "--%s '%s': not an integer", o->name, v);
        if (errno == ERANGE || x < -2147483647LL || x > 2147483647LL)
            return cli_usage_error(prog, "--%s %s: out of range (-2147483647 to 2147483647)", o->name, v);
        *(int *)o->dst = (int)x;
        break;
    }
    case CLI_U64: {
        if (*v == '-') return cli_usage_error(prog, "--%s '%s': must be a non-negative integer", o->name, v);
        unsigned long long x = strtoull(v, &end, 10);
        if (*v == '\0' || *end || errno || !isdigit((unsigned char)*v)) /* strtoull skips spaces and takes '+' */
            return cli_usage_error(prog, "--%s '%s': not a non-negative integer", o->name, v);
        *(uint64_t *)o->dst = (uint64_t)x;
        break;
    }
    case CLI_DOUBLE: {
        double x;
        const char *why = flce_number(v, &x);
        if (why) return cli_usage_error(prog, "--%s '%s': %s", o->name, v, why);
        *(double *)o->dst = x;
        break;
    }
    case CLI_STR:
        if (*v == '\0') return cli_usage_error(prog, "--%s: empty value", o->name);
        *(const char **)o->dst = v;
        break;
    case CLI_LIST: {
        cli_list *l = o->dst;
        if (l->n == CLI_LIST_MAX) return cli_usage_error(prog, "--%s given more than %d times", o->name, CLI_LIST_MAX);
        l->items[l->n++] = v;
        break;
    }
    case CLI_FLAG: break;
    }
    return 0;
}

int cli_parse(const char *prog, const char *usage, cli_opt *opts, int argc, char **argv, const char **pos,
              int max_pos, int *npos) {
    *npos = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            print_help(usage, opts);
            return 1;
        }
        if (strncmp(a, "--", 2) != 0 || a[2] == '\0') {
            if (a[0] == '-' && a[1] != '\0') return cli_usage_error(prog, "unknown option '%s' (see --help)", a);
            if (*npos == max_pos) return cli_usage_error(prog, "unexpected argument '%s' (see --help)", a);
            pos[(*npos)++] = a;
            continue;
        }
        char name[64];
        const char *eq = strchr(a + 2, '=');
        size_t len = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
        if (len >= sizeof name) return cli_usage_error(prog, "unknown option '%s' (see --help)", a);
        memcpy(name, a + 2, len);
        name[len] = '\0';
        cli_opt *o = cli_find(opts, name);
        if (!o) return cli_usage_error(prog, "unknown option '--%s' (see --help)", name);
        if (o->seen && o->kind != CLI_LIST) return cli_usage_error(prog, "--%s given twice", name);
        o->seen = 1;
        if (o->kind == CLI_FLAG) {
            if (eq) return cli_usage_error(prog, "--%s takes no value", name);
            *(int *)o->dst = 1;
            continue;
        }
        const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!v) return cli_usage_error(prog, "--%s needs a value", name);
        int rc = set_value(prog, o, v);
        if (rc) return rc;
    }
    return 0;
}

int cli_gnuplot(const char *dir, const char *script) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int nul = open("/dev/null", O_RDWR);
        if (nul >= 0) dup2(nul, 0), dup2(nul, 1), dup2(nul, 2);
        if (chdir(dir) != 0) _exit(126);
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
