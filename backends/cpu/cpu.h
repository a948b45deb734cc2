/* cpu.h: the CPU backend: the ops of the backend interface with AVX2 / AVX-512 tiles and a
 * thread pool, bit for bit the reference's (docs/bit-exact.md). Depends on base and reference
 * only. */
#ifndef FLCE_CPU_H
#define FLCE_CPU_H

#include "backend.h"

/* A CPU backend with `threads` threads (at least 1; NULL when out of memory). FLCE_CPU_ISA=avx2
 * forces the AVX2 tiles where AVX-512 ones would be chosen (the same bits either way). */
flce_backend *flce_backend_cpu(int threads);

#endif
