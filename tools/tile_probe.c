/* tile_probe.c: the CPU backend's AVX2 forward tile (backends/cpu/tiles.h) timed alone, one
 * thread, over every flat-position block of 32 padded samples of one 3x3 stride-1 layer, as
 * fwd_flat runs it (docs/performance.md). Not part of the build: a measurement tool.
 *   gcc -O3 -mavx2 -ffp-contract=off -I backends/cpu -o /tmp/tile_probe tools/tile_probe.c
 *   /tmp/tile_probe C H K VARIANT PREFETCH   e.g. 16 28 16 1 0
 * VARIANT 0: 6-row tiles, the last computing idle rows as before 2026-11-27; 1: the row split
 * of cpu_conv.c (tiles of 4-6 rows, none idle). PREFETCH d: the lines of the block d ahead
 * prefetched (0: none). Prints the best of 5 times and the useful GFLOP/s against one core's
 * mul+add peak (74.6 GFLOP/s on the machine of 2026-11-27: pass your own with FLCE_PEAK1). */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
typedef float v8 __attribute__((vector_size(32), aligned(4)));
static inline v8 ld(const float *p) { return *(const v8 *)p; }
static inline void stv(float *p, v8 v) { *(v8 *)p = v; }
static inline v8 bc(float s) { return (v8){s, s, s, s, s, s, s, s}; }
#define VT v8
#define VW 8
#define VLD ld
#define VST stv
#define VBC bc
#define VFLAT(plane, b, v) stv((plane) + (b)->dst, v)
#include "tiles.h"
TILES(_6x16, 6, 2)
TILES(_4x16, 4, 2)
TILES(_5x16, 5, 2)
static double now(void){struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec+1e-9*t.tv_nsec;}
int main(int argc, char **argv) {
    int Cin = atoi(argv[1]), H = atoi(argv[2]), K = atoi(argv[3]), variant = atoi(argv[4]), pf = atoi(argv[5]);
    int Q = Cin*9, Wp = H+1, Hp = H+2, L = H*Wp, npos = (L+15)/16*16, N = 32;
    size_t xs = (size_t)Cin*Hp*Wp + npos + 2*Wp + 64;
    float *A = aligned_alloc(64, 4*K*Q), *X = aligned_alloc(64, 4*xs*N), *Y = aligned_alloc(64, 4*(size_t)K*npos*N);
    for (int i=0;i<K*Q;i++) A[i]=1e-3f*(i%7);
    for (size_t i=0;i<xs*N;i++) X[i]=1e-3f*(i%11);
    float *panel = aligned_alloc(64, 4*16*Q);
    int off[1152]; for (int q=0;q<Q;q++) off[q]=((q/9)*Hp+q/3%3)*Wp+q%3;
    double best=1e9;
    for (int rep=0; rep<40; rep++) {
      double t0=now();
      for (int n=0;n<N;n++) {
        float *xp = X + xs*n, *y = Y + (size_t)K*npos*n;
        for (int p0=0;p0<npos;p0+=16) {
          if (variant>=2) { /* the block's column panel packed, Q x 16 contiguous, then plain tiles */
            for (int q=0;q<Q;q++) { const float *src = xp+p0+off[q]; stv(panel+16*q, *(const v8*)src); stv(panel+16*q+8, *(const v8*)(src+8)); }
            int i=0; while (i<K) { int left=K-i; int mr = left>=12||left==6? 6 : left==10? 5 : left==5?5: left>=8? 4 : left;
              if (mr==6) tile_6x16(6,Q,A+i*Q,Q,panel,16,y+i*npos+p0,npos,0);
              else if (mr==5) tile_5x16(5,Q,A+i*Q,Q,panel,16,y+i*npos+p0,npos,0);
              else tile_4x16(mr,Q,A+i*Q,Q,panel,16,y+i*npos+p0,npos,0);
              i+=mr; }
            continue;
          }
          if (pf) for (int c=0;c<Cin;c++) for (int ky=0;ky<3;ky++) { const char *a=(const char*)(xp+(c*Hp+ky)*Wp+p0+pf*16); __builtin_prefetch(a,0,3); __builtin_prefetch(a+64,0,3); }
          if (variant==0) for (int i=0;i<K;i+=6) tile_6x16_off(K-i<6?K-i:6,Q,A+i*Q,Q,xp+p0,off,y+i*npos+p0,npos,0);
          else { /* rows split into tiles of 4..6 with no idle row */
            int i=0; while (i<K) { int left=K-i; int mr = left>=12||left==6? 6 : left==10? 5 : left==5?5: left>=8? 4 : left; 
              if (mr==6) tile_6x16_off(6,Q,A+i*Q,Q,xp+p0,off,y+i*npos+p0,npos,0);
              else if (mr==5) tile_5x16_off(5,Q,A+i*Q,Q,xp+p0,off,y+i*npos+p0,npos,0);
              else tile_4x16_off(mr,Q,A+i*Q,Q,xp+p0,off,y+i*npos+p0,npos,0);
              i+=mr; } }
        }
      }
      double t=now()-t0; if (t<best) best=t;
    }
    double fl = 2.0*K*Q*H*H*N;
    printf("C%d %dx%d K%d variant %d pf %d: %.2f ms per 32 samples, %.1f useful GFLOP/s (%.1f%% of one core)\n", Cin,H,H,K,variant,pf,best*1e3, fl/best*1e-9, fl/best*1e-9/(getenv("FLCE_PEAK1") ? atof(getenv("FLCE_PEAK1")) : 74.6)*100);
    return (int)Y[5];
}
