/* denormals.c: see denormals.h. x86-64 only (SSE's MXCSR: FTZ bit 15, DAZ bit 6). */
#include "denormals.h"

#include <string.h>
#include <xmmintrin.h>

#define CSR_FTZ 0x8000u
#define CSR_DAZ 0x0040u

int flce_denorm_parse(const char *s, flce_denorm_mode *m) {
    if (!strcmp(s, "auto")) *m = FLCE_DENORM_AUTO;
    else if (!strcmp(s, "preserve")) *m = FLCE_DENORM_PRESERVE;
    else if (!strcmp(s, "ftz")) *m = FLCE_DENORM_FTZ;
    else return 0;
    return 1;
}

const char *flce_denorm_name(flce_denorm_mode m) {
    return m == FLCE_DENORM_FTZ ? "ftz" : m == FLCE_DENORM_PRESERVE ? "preserve" : "auto";
}

unsigned flce_fp_get(void) { return _mm_getcsr(); }
void flce_fp_set(unsigned csr) { _mm_setcsr(csr); }

unsigned flce_fp_enter(flce_denorm_mode m) {
    unsigned old = _mm_getcsr();
    unsigned want = m == FLCE_DENORM_FTZ ? (old | CSR_FTZ | CSR_DAZ) : (old & ~(CSR_FTZ | CSR_DAZ));
    if (want != old) _mm_setcsr(want);
    return old;
}

void flce_fp_leave(unsigned saved) {
    if (_mm_getcsr() != saved) _mm_setcsr(saved);
}
