/* fuzz_idx.c: the IDX image and label readers (gzip or plain). */
#include "data.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *p = fuzz_file("idx", data, size);
    flce_split s = {0};
    flce_err e;
    flce_read_idx_images(p, &s, &e);
    flce_read_idx_labels(p, 10, &s, &e);
    free(s.pixels), free(s.labels);
    return 0;
}
