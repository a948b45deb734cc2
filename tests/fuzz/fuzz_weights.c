/* fuzz_weights.c: weight lists (.npy or text), of a length taken from the first byte. */
#include "fuzz.h"
#include "trace_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    double *w;
    flce_err e;
    if (flce_read_weights(fuzz_file("w.txt", data + 1, size - 1), 1 + data[0] % 16, &w, &e) == FLCE_OK) free(w);
    return 0;
}
