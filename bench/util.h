/* util.h: small helpers of the benchmarks. */
#ifndef FLCE_BENCH_UTIL_H
#define FLCE_BENCH_UTIL_H

#include <errno.h>
#include <stdio.h>
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

#endif
