/* fuzz_jpeg.c: the EuroSAT JPEG reader (64x64 RGB). */
#include "data.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static uint8_t chw[3 * 64 * 64];
    flce_err e;
    flce_read_jpeg_rgb(fuzz_file("a.jpg", data, size), 64, 64, chw, &e);
    return 0;
}
