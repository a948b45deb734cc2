/* tile_probe.c: the CPU backend's AVX2 forward tile (backends/cpu/tiles.h) timed alone, one
 * thread, over every flat-position block of 32 padded samples of one 3x3 stride-1 layer, as
 * fwd_flat runs it (docs/performance.md). Not part of the build: a measurement tool.
 *   gcc -O3 -mavx2 -ffp-contract=off -I backends/cpu -o /tmp/tile_probe tools/tile_probe.c
 *   PEAK=1 taskset -c 0 /tmp/tile_probe C H K VARIANT PREFETCH   e.g. 16 28 16 3 0
 * VARIANT 0: 6-row tiles over the padded sample, the last computing idle rows (before
 * 2026-11-27); 1: the row split of cpu_conv.c (tiles of 4-6 rows, none idle); 2: each block's
 * Q x 16 column panel packed first, then plain tiles; 3: the same with cpu_conv.c's masked,
 * permuted flat stores (what fwd_flat runs since 2026-11-27); 4: 4 x 24 tiles (4 broadcasts and
 * 3 loads a term); 5: 3 x 32 tiles (3 and 4); 6: as 2 with the weights pre-broadcast (no
 * broadcast in the loop: each term's weight a plain vector load); 7: the 6 x 16 tile alone, called
 * back to back on the same weights, panel and output (all in L1; K a multiple of 6 makes its
 * flops those of the layer): the tile's own ceiling. NOPACK=1: the panel packed once (the
 * packing's share, by difference); SMALLY=1: every sample written to the first's output. PREFETCH d: the lines of the block d ahead
 * prefetched (0: none). Prints the best of 40 timings (MEAN=1: their mean; FLUSH=MB: that much
 * other data through the caches before each) as GFLOP/s against one core's mul+add peak
 * (FLCE_PEAK1, default 74.6); PEAK=1 also times bench/peak.c's mul+add loop for the same flops
 * right after each timing and prints the tile's time over the loop's (best and mean): the
 * fraction of the peak at the same moment, which these machines need (their speed moves by a
 * half within a run). */
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
#define LANE_IDX _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)
#define VFLAT(plane, b, v)                                                                                    \
    _mm256_maskstore_ps((plane) + (b)->dst, _mm256_cmpgt_epi32(_mm256_set1_epi32((b)->cnt), LANE_IDX),      \
                        _mm256_permutevar8x32_ps((__m256)(v), _mm256_loadu_si256((const __m256i *)(b)->perm)))
#include "tiles.h"
TILES(_6x16, 6, 2)
TILES(_4x16, 4, 2)
TILES(_5x16, 5, 2)
TILES(_4x24, 4, 3)
TILES(_3x32, 3, 4)
TILES(_2x32, 2, 4)
TILES_FLAT(_6x16, 6, 2)
TILES_FLAT(_5x16, 5, 2)
TILES_FLAT(_4x16, 4, 2)
/* the mul+add peak loop of bench/peak.c (12 independent chains, 24 x 8 flops an iteration),
 * timed right after each tile pass so that both see the same moment of the machine */
static float muladd8(long iters, float m, float n, float c) {
    v8 a0 = bc(1.5f), a1 = bc(1.25f), a2 = bc(0.75f), a3 = bc(1.125f), a4 = bc(0.875f), a5 = bc(1.0625f);
    v8 b0 = a0, b1 = a1, b2 = a2, b3 = a3, b4 = a4, b5 = a5, vm = bc(m), vn = bc(n), vc = bc(c);
    for (long it = 0; it < iters; it++) {
        a0 = a0 * vm; a1 = a1 * vm; a2 = a2 * vm; a3 = a3 * vm; a4 = a4 * vm; a5 = a5 * vm;
        b0 = b0 + vc; b1 = b1 + vc; b2 = b2 + vc; b3 = b3 + vc; b4 = b4 + vc; b5 = b5 + vc;
        a0 = a0 * vn; a1 = a1 * vn; a2 = a2 * vn; a3 = a3 * vn; a4 = a4 * vn; a5 = a5 * vn;
        b0 = b0 - vc; b1 = b1 - vc; b2 = b2 - vc; b3 = b3 - vc; b4 = b4 - vc; b5 = b5 - vc;
    }
    v8 t = a0 + a1 + a2 + a3 + a4 + a5 + b0 + b1 + b2 + b3 + b4 + b5;
    return t[0];
}
/* variant 6: A pre-broadcast (each weight stored as 8 copies, k-major: Ab[(k MR + i) 8 ..]),
 * so that each term's A operand is a plain vector load (a memory operand of the multiply)
 * instead of a broadcast */
#define TILE_BCA(MR)                                                                                          \
    static void tile_bca##MR(int K, const float *Ab, const float *B, float *C, int ldc) {                     \
        v8 c_[MR][2];                                                                                         \
        for (int i = 0; i < MR; i++) c_[i][0] = c_[i][1] = bc(0.0f);                                        \
        for (int k = 0; k < K; k++) {                                                                         \
            v8 b0 = ld(B + 16 * k), b1 = ld(B + 16 * k + 8);                                                  \
            for (int i = 0; i < MR; i++) {                                                                    \
                v8 a = ld(Ab + ((size_t)k * MR + i) * 8);                                                     \
                c_[i][0] = c_[i][0] + a * b0; c_[i][1] = c_[i][1] + a * b1;                                   \
            }                                                                                                 \
        }                                                                                                     \
        for (int i = 0; i < MR; i++) { stv(C + (size_t)i * ldc, c_[i][0]); stv(C + (size_t)i * ldc + 8, c_[i][1]); } \
    }
TILE_BCA(6)
TILE_BCA(5)
TILE_BCA(4)
static double now(void){struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec+1e-9*t.tv_nsec;}
int main(int argc, char **argv) {
    int Cin = atoi(argv[1]), H = atoi(argv[2]), K = atoi(argv[3]), variant = atoi(argv[4]), pf = atoi(argv[5]);
    int Q = Cin*9, Wp = H+1, Hp = H+2, L = H*Wp, npos = (L+15)/16*16, N = 32;
    size_t xs = (size_t)Cin*Hp*Wp + npos + 2*Wp + 64;
    float *A = aligned_alloc(64, 4*K*Q), *X = aligned_alloc(64, 4*xs*N), *Y = aligned_alloc(64, 4*(size_t)K*npos*N + 4*64*K);
    for (int i=0;i<K*Q;i++) A[i]=1e-3f*(i%7);
    for (size_t i=0;i<xs*N;i++) X[i]=1e-3f*(i%11);
    float *panel = aligned_alloc(64, 4*32*Q);
    flat_blk *blk = calloc(npos/8, sizeof *blk); /* as flat_blocks in cpu_conv.c */
    for (int b=0, dst=0; b<npos/8; b++) { for (int l=0;l<8;l++) { int p=b*8+l; if (p/Wp<H && p%Wp<H) { blk[b].perm[blk[b].cnt++]=l; } } blk[b].dst=dst; dst+=blk[b].cnt; }
    int off[1152]; for (int q=0;q<Q;q++) off[q]=((q/9)*Hp+q/3%3)*Wp+q%3;
    float *Ab = aligned_alloc(64, 4*8*(size_t)K*Q); /* variant 6: row blocks of 6/5/4, each k-major, 8 copies */
    { int i=0; while (i<K) { int left=K-i; int mr = left>=12||left==6? 6 : left==10? 5 : left==5?5: left>=8? 4 : left;
        for (int k=0;k<Q;k++) for (int r=0;r<mr;r++) for (int l=0;l<8;l++) Ab[(size_t)i*Q*8 + ((size_t)k*mr+r)*8 + l] = A[(i+r)*Q+k];
        i+=mr; } }
    int smally = getenv("SMALLY") != NULL; /* SMALLY=1: every sample's output into the first's (one sample's output, 52 KB at 16 x 28 x 28, stays in L2) */
    int nopack = getenv("NOPACK") != NULL; /* NOPACK=1: the panel packed once (the packing's cost, by difference) */
    double best=1e9, sum=0, pbest=1e9, psum=0; float sink=0;
    size_t fl_n = getenv("FLUSH") ? (size_t)atoi(getenv("FLUSH"))<<18 : 0; float *F = fl_n ? calloc(fl_n, 4) : NULL;
    for (int rep=0; rep<40; rep++) {
      for (size_t i=0;i<fl_n;i+=16) F[i]+=1.0f; /* FLUSH=MB: other data through the caches between timings */
      double t0=now();
      for (int n=0;n<N;n++) {
        float *xp = X + xs*n, *y = Y + (size_t)K*npos*(smally ? 0 : n);
        if (variant==4 || variant==5) { /* fewer broadcasts a term: 4 x 24 (4 bc, 3 loads) or 3 x 32 (3 bc, 4 loads) */
          int w = variant==4 ? 24 : 32, nv = w/8;
          for (int p0=0;p0<npos;p0+=w) {
            for (int q=0;q<Q;q++) { const float *src = xp+p0+off[q]; for (int v=0;v<nv;v++) stv(panel+w*q+8*v, *(const v8*)(src+8*v)); }
            if (variant==4) for (int i=0;i<K;i+=4) tile_4x24(4,Q,A+i*Q,Q,panel,w,y+i*npos+p0,npos,0);
            else { int i=0; for (; K-i>=3 && (K-i)%3!=1 && (K-i)%3!=2 ? 1 : K-i>4; i+=3) tile_3x32(3,Q,A+i*Q,Q,panel,w,y+i*npos+p0,npos,0);
                   for (; i<K; i+=2) tile_2x32(K-i<2?K-i:2,Q,A+i*Q,Q,panel,w,y+i*npos+p0,npos,0); }
          }
          continue;
        }
        if (variant==7) { /* the 6 x 16 tile alone: the same weights, panel and output each call, all in L1 */
          for (int p0=0;p0<npos;p0+=16) for (int i=0;i<K;i+=6) tile_6x16(6,Q,A,Q,panel,16,Y,npos,0);
          continue;
        }
        for (int p0=0;p0<npos;p0+=16) {
          if (variant>=2) { /* the block's column panel packed, Q x 16 contiguous, then plain tiles */
            if (!nopack || p0 == 0) for (int q=0;q<Q;q++) { const float *src = xp+p0+off[q]; stv(panel+16*q, *(const v8*)src); stv(panel+16*q+8, *(const v8*)(src+8)); }
            int i=0; while (i<K) { int left=K-i; int mr = left>=12||left==6? 6 : left==10? 5 : left==5?5: left>=8? 4 : left;
              if (variant==6) {
                const float *ab = Ab + (size_t)i*Q*8; float *yy = y+i*npos+p0;
                if (mr==6) tile_bca6(Q,ab,panel,yy,npos); else if (mr==5) tile_bca5(Q,ab,panel,yy,npos); else tile_bca4(Q,ab,panel,yy,npos);
              } else if (variant==3) { /* the flat store of cpu_conv.c (masked, permuted) */
                if (mr==6) tile_6x16_flat(6,Q,A+i*Q,Q,panel,16,y+i*npos,npos,blk+p0/8);
                else if (mr==5) tile_5x16_flat(5,Q,A+i*Q,Q,panel,16,y+i*npos,npos,blk+p0/8);
                else tile_4x16_flat(mr,Q,A+i*Q,Q,panel,16,y+i*npos,npos,blk+p0/8);
              } else if (mr==6) tile_6x16(6,Q,A+i*Q,Q,panel,16,y+i*npos+p0,npos,0);
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
      double t=now()-t0; if (t<best) best=t; sum+=t;
      if (getenv("PEAK")) { /* the peak loop for the same flops, right after */
        long it = (long)(2.0*K*Q*H*H*N/192.0); double p0 = now();
        sink += muladd8(it, 0.99999994f, 1.00000006f, 1.5f); double tp = now()-p0;
        if (tp < pbest) pbest = tp; psum += tp;
      }
    }
    if (getenv("PEAK")) printf("interleaved with the mul+add peak loop (same flops): tile/peak time, best %.2f, mean %.2f\n", best/pbest, sum/psum);
    double fl = 2.0*K*Q*H*H*N;
    if (getenv("MEAN")) best = sum/40;
    printf("C%d %dx%d K%d variant %d pf %d: %.2f ms per 32 samples, %.1f useful GFLOP/s (%.1f%% of one core)\n", Cin,H,H,K,variant,pf,best*1e3, fl/best*1e-9, fl/best*1e-9/(getenv("FLCE_PEAK1") ? atof(getenv("FLCE_PEAK1")) : 74.6)*100);
    return (int)Y[5] + (int)(sink*0);
}
