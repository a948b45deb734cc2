/* npy.h: a strict reader and writer of NumPy .npy files (format versions 1.0 and 2.0):
 * little-endian float32, float64, int64 and uint8, C order. Anything else, a malformed
 * header, or a file shorter or longer than its header says is an error naming the file. */
#ifndef FLCE_NPY_H
#define FLCE_NPY_H

#include "base.h"

typedef enum { FLCE_NPY_F32, FLCE_NPY_F64, FLCE_NPY_I64, FLCE_NPY_U8 } flce_npy_dtype;

#define FLCE_NPY_MAX_DIMS 8
typedef struct {
    flce_npy_dtype dtype;
    int ndim;
    int64_t shape[FLCE_NPY_MAX_DIMS];
    int64_t count;   /* product of shape */
    void *data;      /* owned */
} flce_npy;

size_t flce_npy_itemsize(flce_npy_dtype t);
const char *flce_npy_dtype_name(flce_npy_dtype t);
flce_status flce_npy_read(const char *path, flce_npy *a, flce_err *e);
/* Check dtype, ndim and shape (-1 in want_shape: any length). */
flce_status flce_npy_expect(const char *path, const flce_npy *a, flce_npy_dtype dtype, int ndim,
                            const int64_t *want_shape, flce_err *e);
/* Write atomically (PATH.tmp, then rename); version 1.0 unless the header needs 2.0. */
flce_status flce_npy_write(const char *path, flce_npy_dtype dtype, int ndim, const int64_t *shape, const void *data,
                           flce_err *e);
void flce_npy_free(flce_npy *a);
/* The .npy header (version 1.0, padded to 64 bytes) into buf; its length, 0 if cap is short. */
size_t flce_npy_header(flce_npy_dtype dtype, int ndim, const int64_t *shape, unsigned char *buf, size_t cap);

#endif
