/* opcheck.h: the cross-check table of every backend op. Each case (an op, its shapes
 * including odd and edge sizes) runs on a backend and on the reference from the same
 * seeded inputs; the verdict is digest equality of every output. Each output buffer has a
 * tail of sentinel words that must survive the op (an out-of-bounds write past the end is
 * caught). On a mismatch the first differing index, both values, their ULP distance and
 * the NMSE of the whole output are reported. */
#ifndef FLCE_OPCHECK_H
#define FLCE_OPCHECK_H

#include "backend.h"

typedef struct {
    char name[160];      /* e.g. CONV2D_FWD(N=2,C=3,H=5,W=7,K=4,R=3,s=1,p=1) */
    char output[24];     /* which output differed (when !ok) */
    int ok;              /* digests equal and sentinels intact */
    int sentinel_broken; /* the backend wrote past the end of an output */
    uint64_t digest_ref, digest_be;
    size_t first_diff;
    float v_ref, v_be;
    double ulp, nmse;
} flce_opcheck_result;

int flce_opcheck_count(void);
/* The first op of the interface's list (backend.h) without a case in the table, or NULL. */
const char *flce_opcheck_missing(void);
/* The name of case i (for filtering by op name: the part before '('). */
const char *flce_opcheck_name(int i, char *buf, size_t cap);
/* Run case i on be and on ref. */
flce_status flce_opcheck_run(int i, flce_backend *ref, flce_backend *be, flce_opcheck_result *r, flce_err *e);

/* Compare n floats of the reference (x) and a backend (y): digests into r; when they differ,
 * r->ok = 0 and the first differing index, both values, their ULP distance and the NMSE. */
void flce_opcheck_diff(const float *x, const float *y, size_t n, flce_opcheck_result *r);

#endif
