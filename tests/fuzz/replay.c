/* replay.c: runs files (or every file in folders) given on the command line through a fuzz
 * target's LLVMFuzzerTestOneInput, once each: ctest's replay of the committed corpora under
 * AddressSanitizer and UBSan, without clang's libFuzzer. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return fprintf(stderr, "replay: cannot open %s\n", path), 1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) return fprintf(stderr, "replay: cannot read %s\n", path), 1;
    fclose(f);
    LLVMFuzzerTestOneInput(b, (size_t)n);
    free(b);
    return 0;
}

int main(int argc, char **argv) {
    int files = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) return fprintf(stderr, "replay: no such file %s\n", argv[i]), 1;
        if (!S_ISDIR(st.st_mode)) {
            bad |= run_file(argv[i]), files++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *de;
        while (d && (de = readdir(d))) {
            if (de->d_name[0] == '.') continue;
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", argv[i], de->d_name);
            bad |= run_file(p), files++;
        }
        if (d) closedir(d);
    }
    fuzz_cleanup();
    printf("replay: %d inputs%s\n", files, bad ? ", some unreadable" : "");
    return files == 0 || bad;
}
