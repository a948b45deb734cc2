/* safetensors.h: a strict reader and a writer of the safetensors format (8-byte
 * little-endian header length, a JSON header of {name: {dtype, shape, data_offsets}} and
 * an optional "__metadata__", then the data). Tensors of dtype F32 and I64. */
#ifndef FLCE_SAFETENSORS_H
#define FLCE_SAFETENSORS_H

#include "base.h"

typedef enum { FLCE_ST_F32, FLCE_ST_I64 } flce_st_dtype;

typedef struct {
    char name[96];
    flce_st_dtype dtype;
    int ndim;
    int64_t shape[8];
    size_t begin, end; /* byte offsets into data */
} flce_st_entry;

typedef struct {
    int n;
    flce_st_entry *t;
    unsigned char *data;
    size_t data_len;
} flce_st_file;

flce_status flce_st_read(const char *path, flce_st_file *f, flce_err *e);
const flce_st_entry *flce_st_find(const flce_st_file *f, const char *name);
void flce_st_free(flce_st_file *f);

typedef struct {
    const char *name;
    flce_st_dtype dtype;
    int ndim;
    int64_t shape[4];
    const void *data;
} flce_st_tensor;

/* Write atomically; meta is a list of key/value string pairs (n_meta pairs), may be 0. */
flce_status flce_st_write(const char *path, const flce_st_tensor *t, int n, const char *const *meta, int n_meta,
                          flce_err *e);

#endif
