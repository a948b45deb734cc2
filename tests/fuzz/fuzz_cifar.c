/* fuzz_cifar.c: the CIFAR-10 and CIFAR-100 binary readers. */
#include "data.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *p = fuzz_file("data_batch_1.bin", data, size);
    flce_split s = {0}, t = {0};
    flce_err e;
    flce_read_cifar_bin(p, 1, 10, 10000, &s, &e);
    flce_read_cifar_bin(p, 2, 100, 50000, &t, &e);
    free(s.pixels), free(s.labels), free(t.pixels), free(t.labels);
    return 0;
}
