/* util.h: small helpers of the benchmarks. */
#ifndef FLCE_BENCH_UTIL_H
#define FLCE_BENCH_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static inline double bench_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline int bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (n >= 1), sorting v in place. */
static inline double bench_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Can the file `path` be written at the end of a measurement? NULL if so, else why (a static
 * string): checked before minutes of measuring, without creating or changing anything. */
static inline const char *bench_unwritable(const char *path) {
    static char why[300];
    struct stat sb;
    if (stat(path, &sb) == 0) {
        if (S_ISDIR(sb.st_mode)) return "a folder, not a file";
        return access(path, W_OK) == 0 ? NULL : strerror(errno);
    }
    if (errno != ENOENT) return strerror(errno);
    char dir[1200];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == dir) dir[1] = '\0';
    else *slash = '\0';
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        snprintf(why, sizeof why, "its folder %.250s does not exist", dir);
        return why;
    }
    return access(dir, W_OK) == 0 ? NULL : strerror(errno);
}

/* Can figures be written into the folder `dir` (made if missing) at the end of a measurement?
 * NULL if so, else why: gnuplot not on PATH, a file in the way, a folder that cannot be
 * written, or no existing ancestor folder that can. Nothing is created or changed. */
static inline const char *bench_unplottable(const char *dir) {
    static char why[300];
    char d[1200];
    snprintf(d, sizeof d, "%s", dir);
    struct stat sb;
    for (;;) { /* the folder itself, or the nearest ancestor that exists */
        if (stat(d, &sb) == 0) {
            if (!S_ISDIR(sb.st_mode)) {
                snprintf(why, sizeof why, "%.250s is a file, not a folder", d);
                return why;
            }
            if (access(d, W_OK) != 0) return strerror(errno);
            break;
        }
        if (errno != ENOENT || !strcmp(d, ".") || !strcmp(d, "/")) return strerror(errno); /* a removed working folder */
        char *slash = strrchr(d, '/');
        while (slash && slash > d && slash[1] == '\0') *slash = '\0', slash = strrchr(d, '/'); /* trailing slashes */
        if (!slash) snprintf(d, sizeof d, ".");
        else if (slash == d) d[1] = '\0';
        else *slash = '\0';
    }
    const char *path = getenv("PATH");
    for (const char *p = path ? path : ""; *p;) { /* gnuplot runs at the end (cli_gnuplot) */
        size_t n = strcspn(p, ":");
        char exe[1200];
        snprintf(exe, sizeof exe, "%.*s/gnuplot", (int)(n ? n : 1), n ? p : ".");
        if (access(exe, X_OK) == 0) return NULL;
        p += n + (p[n] == ':');
    }
    return "gnuplot is not installed (not on PATH)";
}

#endif
