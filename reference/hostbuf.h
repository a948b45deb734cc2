/* hostbuf.h: the buffer of the backends that compute in host memory (reference, cpu). */
#ifndef FLCE_HOSTBUF_H
#define FLCE_HOSTBUF_H

#include <stddef.h>

struct flce_buf {
    size_t bytes;
    void *p;    /* 64-byte aligned, inside base */
    void *base; /* what was allocated (freed) */
};

#define HB_F(b) ((float *)(b)->p)
#define HB_CF(b) ((const float *)(b)->p)
#define HB_I(b) ((int32_t *)(b)->p)
#define HB_CI(b) ((const int32_t *)(b)->p)

#endif
