/* backend_mode.c: a host backend (reference or CPU) computing in the flush-to-zero mode of the
 * float contract: every op of the inner backend runs with the calling thread's FTZ and DAZ
 * bits set and restored after (the CPU backend's pool workers take the caller's mode for each
 * task). Buffers are the inner backend's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "denormals.h"

typedef struct {
    flce_backend *in;
} wrap_ctx;

#define IN(be) (((wrap_ctx *)(be)->ctx)->in)

static flce_buf *w_alloc(flce_backend *be, size_t bytes) { return IN(be)->buf_alloc(IN(be), bytes); }
static void w_free(flce_backend *be, flce_buf *b) { IN(be)->buf_free(IN(be), b); }
static void w_write(flce_backend *be, flce_buf *b, size_t o, const void *s, size_t n) { IN(be)->buf_write(IN(be), b, o, s, n); }
static void w_read(flce_backend *be, const flce_buf *b, size_t o, void *d, size_t n) { IN(be)->buf_read(IN(be), b, o, d, n); }
static void w_sync(flce_backend *be) { IN(be)->sync(IN(be)); }
static int w_profile(const flce_backend *be, flce_prof_row *rows, int max) {
    return IN(be)->profile ? IN(be)->profile(IN(be), rows, max) : 0;
}
static void w_destroy(flce_backend *be) {
    IN(be)->destroy(IN(be));
    free(be->ctx);
    free(be);
}
/* Every op: the inner backend's, between entering and leaving the ftz mode; its failure
 * becomes the wrapper's. The argument list names the wrapper `be`; the inner one is called
 * with its own pointer in that place. */
#define W_OP(name, NAME, params, args)                            \
    static void w_##name params {                                 \
        flce_backend *outer_ = be;                                \
        {                                                         \
            flce_backend *be = IN(outer_);                        \
            unsigned saved_ = flce_fp_enter(FLCE_DENORM_FTZ);     \
            be->name args;                                        \
            flce_fp_leave(saved_);                                \
            if (be->status && !outer_->status)                    \
                flce_backend_fail(outer_, be->status, "%s", be->error.msg); \
        }                                                         \
    }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow" /* the inner `be` in place of the outer, on purpose */
FLCE_BACKEND_OPS(W_OP)
#pragma GCC diagnostic pop
#undef W_OP

flce_backend *flce_backend_ftz(flce_backend *in) {
    flce_backend *be = calloc(1, sizeof *be);
    wrap_ctx *c = calloc(1, sizeof *c);
    if (!be || !c) {
        free(be), free(c);
        return NULL;
    }
    c->in = in;
    be->ctx = c;
    be->name = in->name;
    be->ftz = 1;
    snprintf(be->device, sizeof be->device, "%.140s; denormals ftz", in->device);
    be->buf_alloc = w_alloc, be->buf_free = w_free, be->buf_write = w_write, be->buf_read = w_read, be->sync = w_sync;
    be->destroy = w_destroy;
    be->profile = w_profile;
#define W_SET(name, NAME, params, args) be->name = w_##name;
    FLCE_BACKEND_OPS(W_SET)
#undef W_SET
    return be;
}
