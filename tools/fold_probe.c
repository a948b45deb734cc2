/* fold_probe.c: AVX2 one-vector tiles with the weights pre-broadcast (each row's weight stored as
 * 8 copies, so that it is a full-vector memory operand folded into the multiply: the AVX2 form
 * of the AVX-512 one-vector tiles, whose broadcast folds into the multiply) against the 6 x 16
 * broadcast tile of cpu_conv.c, each called back to back on the same data, each timing followed
 * by bench/peak.c's mul+add loop for the same flops (the ratio: the fraction of the peak at that
 * moment). One thread. Not part of the build: a measurement tool (docs/performance.md,
 * 2026-12-02).
 *   gcc -O3 -mavx2 -ffp-contract=off -o /tmp/fold_probe tools/fold_probe.c
 *   taskset -c 0 /tmp/fold_probe K     K terms a tile (144: a 16-channel 3x3 layer; 48: a third) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
typedef float v8 __attribute__((vector_size(32), aligned(4)));
static inline v8 ld(const float *p) { return *(const v8 *)p; }
static inline void stv(float *p, v8 v) { *(v8 *)p = v; }
static inline v8 bc(float s) { return (v8){s, s, s, s, s, s, s, s}; }
static double now(void){struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec+1e-9*t.tv_nsec;}
#define T1(MR) __attribute__((noinline)) static void t1_##MR(int K, const float *Ab, const float *B, int ldb, float *C) { \
  v8 c[MR]; for (int i=0;i<MR;i++) c[i]=bc(0.0f); \
  for (int k=0;k<K;k++) { v8 b = ld(B + (size_t)k*ldb); const float *a = Ab + (size_t)k*MR*8; \
    _Pragma("GCC unroll 16") for (int i=0;i<MR;i++) c[i] = c[i] + ld(a+8*i)*b; } \
  for (int i=0;i<MR;i++) stv(C+8*i, c[i]); }
T1(8) T1(12) T1(14)
__attribute__((noinline)) static void t6x16(int K, const float *A, int lda, const float *B, float *C) {
  v8 c[6][2]; for (int i=0;i<6;i++) c[i][0]=c[i][1]=bc(0.0f);
  for (int k=0;k<K;k++) { v8 b0=ld(B+16*k), b1=ld(B+16*k+8);
    _Pragma("GCC unroll 16") for (int i=0;i<6;i++) { v8 x=bc(A[i*lda+k]); c[i][0]=c[i][0]+x*b0; c[i][1]=c[i][1]+x*b1; } }
  for (int i=0;i<6;i++) { stv(C+16*i,c[i][0]); stv(C+16*i+8,c[i][1]); } }
static float muladd8(long iters, float m, float n, float cc) {
    v8 a0 = bc(1.5f), a1 = bc(1.25f), a2 = bc(0.75f), a3 = bc(1.125f), a4 = bc(0.875f), a5 = bc(1.0625f);
    v8 b0 = a0, b1 = a1, b2 = a2, b3 = a3, b4 = a4, b5 = a5, vm = bc(m), vn = bc(n), vc = bc(cc);
    for (long it = 0; it < iters; it++) {
        a0 = a0 * vm; a1 = a1 * vm; a2 = a2 * vm; a3 = a3 * vm; a4 = a4 * vm; a5 = a5 * vm;
        b0 = b0 + vc; b1 = b1 + vc; b2 = b2 + vc; b3 = b3 + vc; b4 = b4 + vc; b5 = b5 + vc;
        a0 = a0 * vn; a1 = a1 * vn; a2 = a2 * vn; a3 = a3 * vn; a4 = a4 * vn; a5 = a5 * vn;
        b0 = b0 - vc; b1 = b1 - vc; b2 = b2 - vc; b3 = b3 - vc; b4 = b4 - vc; b5 = b5 - vc;
    }
    v8 t = a0 + a1 + a2 + a3 + a4 + a5 + b0 + b1 + b2 + b3 + b4 + b5; return t[0];
}
int main(int argc, char **argv) {
  int K = argc > 1 ? atoi(argv[1]) : 144; long calls = 200000;
  float *A = aligned_alloc(64, 4*8*14*K), *B = aligned_alloc(64, 4*16*K), *C = aligned_alloc(64, 4*256);
  for (int i=0;i<8*14*K;i++) A[i]=1e-3f*(i%7);
  for (int i=0;i<16*K;i++) B[i]=1e-3f*(i%5);
  volatile float sink=0;
  for (int rep=0; rep<5; rep++) {
    double fl, t0, t, tp; long it;
    const char *nm[4] = {"6x16 bcast", "8x8 folded", "12x8 folded", "14x8 folded"};
    for (int v=0; v<4; v++) {
      int mr = v==0 ? 12 : v==1 ? 8 : v==2 ? 12 : 14; /* rows x 8 lanes... 6x16 = 96 outputs */
      fl = 2.0*K*(v==0 ? 96 : mr*8)*calls;
      t0=now();
      for (long c=0;c<calls;c++) { if (v==0) t6x16(K,A,K,B,C); else if (v==1) t1_8(K,A,B,16,C); else if (v==2) t1_12(K,A,B,16,C); else t1_14(K,A,B,16,C); }
      t=now()-t0; it=(long)(fl/192.0); t0=now(); sink+=muladd8(it,0.99999994f,1.00000006f,1.5f); tp=now()-t0;
      printf("%-12s %.1f GFLOP/s, peak loop %.1f, ratio %.2f\n", nm[v], fl/t*1e-9, fl/tp*1e-9, (fl/t)/(fl/tp));
    }
  }
  return (int)C[3]+(int)sink;
}
