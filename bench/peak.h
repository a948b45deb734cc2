/* peak.h: measured peak GFLOP/s of separate float32 multiplies and adds. */
#ifndef FLCE_PEAK_H
#define FLCE_PEAK_H
/* Best of 3 runs of a vector mul/add loop on `threads` threads (about 1 s each). */
double flce_peak_gflops(int threads);
#endif
