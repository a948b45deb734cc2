/* fuzz_npy.c: the .npy reader (and the expectation check every caller makes). */
#include "fuzz.h"
#include "npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    flce_npy a;
    flce_err e;
    if (flce_npy_read(fuzz_file("a.npy", data, size), &a, &e) == FLCE_OK) {
        flce_npy_expect("a.npy", &a, FLCE_NPY_F32, 4, (int64_t[]){-1, -1, -1, -1}, &e);
        flce_npy_free(&a);
    }
    return 0;
}
