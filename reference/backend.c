/* backend.c: what every backend shares through the interface (backend.h): the op names, the
 * start-up check that a backend has every op, and the record of an op's failure. */
#include <stdarg.h>
#include <stdio.h>

#include "backend.h"

const char *flce_op_name(flce_op op) {
    static const char *const names[] = {
#define FLCE_OP_STR(name, NAME, params, args) #name,
        FLCE_BACKEND_OPS(FLCE_OP_STR)
#undef FLCE_OP_STR
    };
    return op >= 0 && op < FLCE_OP_COUNT ? names[op] : "?";
}

const char *flce_backend_missing_op(const flce_backend *be) {
    if (!be->buf_alloc || !be->buf_free || !be->buf_write || !be->buf_read || !be->sync || !be->destroy) return "buffers";
#define FLCE_OP_HAS(name, NAME, params, args) \
    if (!be->name) return #name;
    FLCE_BACKEND_OPS(FLCE_OP_HAS)
#undef FLCE_OP_HAS
    return NULL;
}

void flce_backend_fail(flce_backend *be, flce_status s, const char *fmt, ...) {
    if (be->status) return; /* the first failure is the cause; the rest follow from it */
    be->status = s ? s : FLCE_ERR_NUMERIC;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(be->error.msg, sizeof be->error.msg, fmt, ap);
    va_end(ap);
    flce_one_line(be->error.msg);
}

flce_status flce_backend_status(const flce_backend *be, flce_err *e) {
    if (be->status && e) *e = be->error;
    return be->status;
}
