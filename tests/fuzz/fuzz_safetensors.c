/* fuzz_safetensors.c: the safetensors reader, and the strict checkpoint load on top of it
 * (a small ResNet20 on the reference backend, made once). */
#include "fuzz.h"
#include "model.h"
#include "safetensors.h"
#include "ref_backend.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static flce_model m;
    static int have;
    flce_err e;
    if (!have) {
        if (flce_model_create(&m, flce_backend_reference(), 1, 8, 8, 2, 1, &e)) abort();
        have = 1;
    }
    const char *p = fuzz_file("m.safetensors", data, size);
    flce_st_file f;
    if (flce_st_read(p, &f, &e) == FLCE_OK) flce_st_free(&f);
    int c, k;
    flce_checkpoint_probe(p, &c, &k, &e);
    flce_model_load(&m, p, &e);
    return 0;
}
