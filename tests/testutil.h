/* testutil.h: helpers shared by the Criterion suites: temporary folders and files. */
#ifndef FLCE_TESTUTIL_H
#define FLCE_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

/* Criterion's per-test time limit: a guard against a hang, not a speed check (the suites pass on
 * one core beside a busy loop under the sanitizers: scripts/test_one_core.sh). */
#define FLCE_HANG_GUARD 3600

/* A fresh folder under /tmp (path into buf); aborts the test process on failure. */
static inline void tu_tmpdir(char *buf, size_t cap) {
    snprintf(buf, cap, "/tmp/flce-test-XXXXXX");
    if (!mkdtemp(buf)) abort();
}

static inline void tu_write(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len) abort();
    fclose(f);
}

static inline void tu_write_gz(const char *path, const void *data, size_t len) {
    gzFile g = gzopen(path, "wb");
    if (!g || gzwrite(g, data, (unsigned)len) != (int)len) abort();
    gzclose(g);
}

static inline void tu_rm_rf(const char *dir) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) { /* best effort */ }
}

#endif
