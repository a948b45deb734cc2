/* fuzz.h: what the fuzz targets share. Each target is a libFuzzer entry point,
 * LLVMFuzzerTestOneInput, that hands its input to one of the project's readers through a
 * file (the readers take paths), in a folder of its own under /tmp made once per process.
 * Built two ways: with clang's libFuzzer (scripts/fuzz.sh), and with replay.c, a plain main
 * that runs the committed corpus through the same entry point under the sanitizers (ctest). */
#ifndef FLCE_FUZZ_H
#define FLCE_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline const char *fuzz_dir(void) {
    static char dir[64];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/flce-fuzz-XXXXXX");
        if (!mkdtemp(dir)) abort();
    }
    return dir;
}

/* dir/name holding the bytes given; its path in a static buffer (one per name slot). */
static inline const char *fuzz_file(const char *name, const uint8_t *data, size_t size) {
    static char paths[8][160];
    static int k;
    char *p = paths[k++ & 7];
    snprintf(p, 160, "%s/%s", fuzz_dir(), name);
    FILE *f = fopen(p, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    fclose(f);
    return p;
}

/* Several files from one input: records of [name index: 1 byte][length: 2 bytes LE][bytes];
 * the files named in names[] that no record mentions are removed. A short record ends it. */
static inline void fuzz_files(const char *const *names, int n, const uint8_t *data, size_t size) {
    char p[200];
    for (int i = 0; i < n; i++) {
        snprintf(p, sizeof p, "%s/%s", fuzz_dir(), names[i]);
        remove(p);
    }
    size_t at = 0;
    while (at + 3 <= size) {
        int id = data[at] % n;
        size_t len = (size_t)data[at + 1] | (size_t)data[at + 2] << 8;
        at += 3;
        if (len > size - at) len = size - at;
        fuzz_file(names[id], data + at, len);
        at += len;
    }
}

/* Remove the folder and what the target wrote into it (replay.c, at the end). */
static inline void fuzz_cleanup(void) {
    DIR *d = opendir(fuzz_dir());
    struct dirent *de;
    char p[400];
    while (d && (de = readdir(d)))
        if (de->d_name[0] != '.') snprintf(p, sizeof p, "%s/%s", fuzz_dir(), de->d_name), remove(p);
    if (d) closedir(d);
    rmdir(fuzz_dir());
}

#endif
