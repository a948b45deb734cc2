/* ref_backend.h: the reference backend: every op of the backend interface as the plain loop of
 * reference/ops.c (one thread, no SIMD, the documented summation order): the oracle the other
 * backends are checked against. */
#ifndef FLCE_REF_BACKEND_H
#define FLCE_REF_BACKEND_H

#include "backend.h"

/* A new reference backend (NULL when out of memory); destroy it with be->destroy(be). */
flce_backend *flce_backend_reference(void);
/* Every slot of be (buffers in host memory, every op the reference loop): the start of a host
 * backend that replaces some ops with its own (the CPU backend). */
void flce_backend_fill_reference(flce_backend *be);

#endif
