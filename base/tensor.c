/* tensor.c: float32 tensors and xxh3-64 digests of raw bytes (every comparison of runs
 * and backends goes through flce_digest). The project assumes a little-endian host. */
#include "base.h"

#include <stdio.h>
#include <stdlib.h>
#include <xxhash.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "FLCE-harness digests raw bytes and assumes a little-endian host"
#endif

flce_status flce_tensor_init(flce_tensor *t, int ndim, const int64_t *shape, flce_err *e) {
    t->data = NULL;
    t->ndim = 0;
    t->n = 0;
    if (ndim < 0 || ndim > FLCE_MAX_DIMS)
        return flce_fail(e, FLCE_ERR_ARG, "tensor: %d dimensions (at most %d)", ndim, FLCE_MAX_DIMS);
    int64_t n = 1;
    for (int i = 0; i < FLCE_MAX_DIMS; i++) {
        int64_t d = i < ndim ? shape[i] : 1;
        if (d < 0 || (d > 0 && n > INT64_MAX / d))
            return flce_fail(e, FLCE_ERR_ARG, "tensor: bad dimension %lld", (long long)d);
        t->shape[i] = d;
        n *= d;
    }
    t->data = flce_calloc((size_t)n, sizeof(float));
    if (!t->data) return flce_fail(e, FLCE_ERR_NOMEM, "tensor: cannot allocate %lld floats", (long long)n);
    t->ndim = ndim;
    t->n = n;
    return FLCE_OK;
}

void flce_tensor_free(flce_tensor *t) {
    free(t->data);
    t->data = NULL;
    t->n = 0;
}

uint64_t flce_digest(const void *data, size_t len) { return (uint64_t)XXH3_64bits(data, len); }

uint64_t flce_tensor_digest(const flce_tensor *t) {
    return flce_digest(t->data, (size_t)t->n * sizeof(float));
}

void flce_digest_hex(uint64_t d, char out[17]) { snprintf(out, 17, "%016llx", (unsigned long long)d); }
