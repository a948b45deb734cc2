/* denormals.h: the float contract's two modes for subnormal float32 values
 * (docs/bit-exact.md): `preserve` (IEEE 754: subnormals are kept) and `ftz` (subnormal inputs
 * read as zero, subnormal results written as zero, keeping their sign: what NVIDIA's compute
 * shaders do, and x86 with MXCSR's FTZ and DAZ bits set). `auto`: what the device does. */
#ifndef FLCE_DENORMALS_H
#define FLCE_DENORMALS_H

typedef enum { FLCE_DENORM_AUTO = 0, FLCE_DENORM_PRESERVE, FLCE_DENORM_FTZ } flce_denorm_mode;

/* "auto", "preserve" or "ftz"; 0 when s is none of them. */
int flce_denorm_parse(const char *s, flce_denorm_mode *m);
const char *flce_denorm_name(flce_denorm_mode m);
/* Put this thread's floating-point control into mode m (preserve: FTZ and DAZ off; ftz: on);
 * returns the previous control word for flce_fp_leave. */
unsigned flce_fp_enter(flce_denorm_mode m);
void flce_fp_leave(unsigned saved);
/* The calling thread's control word (for handing to pool workers) and setting one. */
unsigned flce_fp_get(void);
void flce_fp_set(unsigned csr);

#endif
