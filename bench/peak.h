/* peak.h: measured peak GFLOP/s of float32 vector arithmetic. */
#ifndef FLCE_PEAK_H
#define FLCE_PEAK_H

enum { PEAK_MULADD_AVX2, PEAK_MULADD_AVX512, PEAK_FMA_AVX2, PEAK_FMA_AVX512 };

/* Best of 3 runs of one kind's loop on `threads` threads (about 1 s each); 0 where the CPU
 * lacks the instructions. */
double flce_peak_kind_gflops(int kind, int threads);
int flce_peak_has_avx512(void);
/* The separate mul+add kind of the vectors the CPU backend runs (FLCE_CPU_ISA=avx2 respected). */
int flce_peak_backend_kind(void);
/* flce_peak_kind_gflops(flce_peak_backend_kind(), threads): what training GFLOP/s is quoted against. */
double flce_peak_gflops(int threads);
#endif
