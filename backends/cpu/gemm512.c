/* gemm512.c: the CPU backend's kernels for AVX-512 machines (16-wide vectors, 32 registers):
 * the tiles of tiles.h as 8 x 48, 8 x 32 and 8 x 16 tiles (index tiles also 7 x 64 and 4 x 64),
 * and a set one vector wide (16 x 16, 14 x 16, 8 x 16, 7 x 16: each broadcast folds into its
 * multiply) taken where flce_cpu_narrow is set (AMD's cores; cpu_backend.c),
 * separate multiply and add (no FMA: the build uses -ffp-contract=off), every element reduced
 * over k ascending exactly as the AVX2 tiles and the reference do, so the bits do not depend on
 * which tile ran. Compiled with -mavx512f and only called when the CPU has it (cpu_backend.c
 * checks at start-up). */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

typedef float v16 __attribute__((vector_size(64), aligned(4)));

static inline v16 ld16(const float *p) { return *(const v16 *)p; }
static inline void st16(float *p, v16 v) { *(v16 *)p = v; }
static inline v16 bc16(float s) { return (v16){s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s}; }

#define VT v16
#define VW 16
#define VLD ld16
#define VST st16
#define VBC bc16
/* the lanes inside, compressed to the front, and a store of just those */
#define VFLAT(plane, b, v)                                                                                    \
    _mm512_mask_storeu_ps((plane) + (b)->dst, (__mmask16)((1u << (b)->cnt) - 1),                            \
                          _mm512_maskz_compress_ps((__mmask16)(b)->mask, (__m512)(v)))
#include "tiles.h"
TILES(_8x32, 8, 2) /* tile_8x32, tile_8x32_off, tile_8x32_rows */
TILES(_8x16, 8, 1)
TILES(_7x32, 7, 2) /* for 49 rows (7x7 images): seven tiles of 7 instead of seven of 8 */
TILES(_7x16, 7, 1)
TILES_OFFFLAT(_8x48, 8, 3) /* 24 accumulators: 5-10% nearer the peak than 8 x 32 with both cores busy */
TILES_OFFFLAT(_8x32, 8, 2)
TILES_OFFFLAT(_8x16, 8, 1)
/* One vector of positions, 16 output channels a tile (flce_cpu_narrow): each multiply takes its
 * weight as a broadcast operand, the weights transposed (flce_gemm512_off_t) */
TILES_OFF_T(_16x16, 16)
extern int flce_cpu_narrow;

TILES_OFF2(_8x32, 8)

/* C[M][0..32) = A B where columns 0..15 read B + off[k] and 16..31 read B + off[k] + bstep. */
void flce_gemm512_off2(int M, int K, const float *A, int lda, const float *B, const int *off, int bstep, float *C,
                       int ldc) {
    for (int i = 0; i < M; i += 8)
        tile_8x32_off2(M - i < 8 ? M - i : 8, K, A + (size_t)i * lda, lda, B, off, bstep, C + (size_t)i * ldc, ldc, 0);
}

/* The one-vector forms (flce_cpu_narrow; M a multiple of 16) with A given transposed, AT [K][M]:
 * C[M][0..n) = A B for n a multiple of 16 columns whose B rows are B + off[k], stored as rows of C
 * or, with blk, into the image planes (tiles.h). */
void flce_gemm512_off_t(int M, int n, int K, const float *AT, const float *B, const int *off, float *C, int ldc,
                        const flat_blk *blk) {
    for (int p = 0; p < n; p += 16)
        for (int i = 0; i < M; i += 16)
            if (blk) tile_16x16_offflat_t(16, K, AT + i, M, B + p, off, C + (size_t)i * ldc, ldc, blk + p / 16);
            else tile_16x16_off_t(16, K, AT + i, M, B + p, off, C + (size_t)i * ldc + p, ldc, 0);
}

/* C[M][0..n) = A B for n = 16 or 32 columns whose B rows are B + off[k]. */
void flce_gemm512_off(int M, int n, int K, const float *A, int lda, const float *B, const int *off, float *C, int ldc) {
    for (int i = 0; i < M; i += 8) {
        int mr = M - i < 8 ? M - i : 8;
        if (n == 32) tile_8x32_off(mr, K, A + (size_t)i * lda, lda, B, off, C + (size_t)i * ldc, ldc, 0);
        else tile_8x16_off(mr, K, A + (size_t)i * lda, lda, B, off, C + (size_t)i * ldc, ldc, 0);
    }
}

/* As flce_gemm512_off (n = 16, 32 or 48), row i of C stored into the image plane C + i ldc through blk
 * (tiles.h). */
void flce_gemm512_offflat(int M, int n, int K, const float *A, int lda, const float *B, const int *off, float *C,
                          int ldc, const flat_blk *blk) {
    for (int i = 0; i < M; i += 8) {
        int mr = M - i < 8 ? M - i : 8;
        if (n == 48) tile_8x48_offflat(mr, K, A + (size_t)i * lda, lda, B, off, C + (size_t)i * ldc, ldc, blk);
        else if (n == 32) tile_8x32_offflat(mr, K, A + (size_t)i * lda, lda, B, off, C + (size_t)i * ldc, ldc, blk);
        else tile_8x16_offflat(mr, K, A + (size_t)i * lda, lda, B, off, C + (size_t)i * ldc, ldc, blk);
    }
}

/* C[M][j0..) = A B (C + A B with acc) over the columns j0.. in whole 16-column blocks; returns the first
 * column left to the caller. */
int flce_gemm512(int M, int j0, int j1, int K, const float *A, int lda, const float *B, int ldb, float *C, int ldc,
                 int acc) {
    int j = j0;
    for (; j + 32 <= j1; j += 32)
        for (int i = 0; i < M; i += 8)
            tile_8x32(M - i < 8 ? M - i : 8, K, A + (size_t)i * lda, lda, B + j, ldb, C + (size_t)i * ldc + j, ldc, acc);
    for (; j + 16 <= j1; j += 16)
        for (int i = 0; i < M; i += 8)
            tile_8x16(M - i < 8 ? M - i : 8, K, A + (size_t)i * lda, lda, B + j, ldb, C + (size_t)i * ldc + j, ldc, acc);
    return j;
}

/* C[M][0..j1) = A B, or C + A B with acc, with row i of A at arow[i], its element k at arow[i][poff[k]], in 32- and
 * 16-column blocks; returns the first column left to the caller. */
int flce_gemm512_rows(int M, int j1, int K, const float *const *arow, const int *poff, const float *B, int ldb,
                      float *C, int ldc, int acc) {
    int j = 0;
    if (M % 8 && M % 7 == 0) { /* a tile computes all its rows: 7-row tiles waste none here */
        for (; j + 32 <= j1; j += 32)
            for (int i = 0; i < M; i += 7)
                tile_7x32_rows(7, K, arow + i, poff, B + j, ldb, C + (size_t)i * ldc + j, ldc, acc);
        for (; j + 16 <= j1; j += 16)
            for (int i = 0; i < M; i += 7)
                tile_7x16_rows(7, K, arow + i, poff, B + j, ldb, C + (size_t)i * ldc + j, ldc, acc);
        return j;
    }
    for (; j + 32 <= j1; j += 32)
        for (int i = 0; i < M; i += 8)
            tile_8x32_rows(M - i < 8 ? M - i : 8, K, arow + i, poff, B + j, ldb, C + (size_t)i * ldc + j, ldc, acc);
    for (; j + 16 <= j1; j += 16)
        for (int i = 0; i < M; i += 8)
            tile_8x16_rows(M - i < 8 ? M - i : 8, K, arow + i, poff, B + j, ldb, C + (size_t)i * ldc + j, ldc, acc);
    return j;
}

TILE_ROWS2(tile_8x16_rows2, 8)
TILE_ROWS2_IDX(tile_8x16_rows2i, 8)
TILES_IDX(_8x32, 8, 2)
TILES_IDX(_8x16, 8, 1)
TILES_IDX(_7x32, 7, 2)
TILES_IDX(_7x16, 7, 1)
TILES_IDX(_7x64, 7, 4)
TILES_IDX(_4x64, 4, 4)
TILES_IDX1(_14x32, 14, 2)
TILES_IDX1(_14x16, 14, 1)

/* fwd_kvec's tile for 14-wide rows with 32 output channels (the 32-channel 14x14 forward): a
 * whole output row of 14 positions x 2 vectors, 28 accumulators, the rows' pointers one float
 * apart (tile_14x32_idx1). */
void flce_kvec512_14x32(int n, const float *const *arow, const int *xoff, const int *boff, const float *B, float *C,
                        int ldc, int stride) {
    if (flce_cpu_narrow)
        for (int v = 0; v < 32; v += 16) {
            if (stride == 2) tile_14x16_idx2(14, n, arow, xoff, boff, B + v, C + v, ldc, 0);
            else tile_14x16_idx1(14, n, arow, xoff, boff, B + v, C + v, ldc, 0);
        }
    else if (stride == 2) tile_14x32_idx2(14, n, arow, xoff, boff, B, C, ldc, 0);
    else tile_14x32_idx1(14, n, arow, xoff, boff, B, C, ldc, 0);
}

/* The weight gradient's rows tiles for two samples at once, 16 columns (TILE_ROWS2: C1 NULL
 * adds both samples to C0 in order). */
void flce_gemm512_rows2(int M, int K, const float *const *arow, const int *poff, ptrdiff_t d, const float *B0,
                        const float *B1, int ldb, float *C0, float *C1, int ldc, int first) {
    for (int i = 0; i < M; i += 8)
        tile_8x16_rows2(M - i < 8 ? M - i : 8, K, arow + i, poff, d, B0, B1, ldb, NULL, C0 + (size_t)i * ldc,
                        C1 ? C1 + (size_t)i * ldc : NULL, ldc, first);
}

/* The index-list tiles (TILES_IDX; cpu_backend.c: wgrad_tap, fwd_kvec): rows i < mr <= 8 of C,
 * ldc apart, each the sum over the n listed terms, for the K columns of B (a multiple of 16). */
void flce_wgrad512_idx(int mr, int n, const float *const *arow, const int *xoff, const int *boff, const float *B,
                       int K, float *C, int ldc, int acc) {
    int j = 0;
    if (flce_cpu_narrow) { /* one vector a tile */
        for (; j + 16 <= K; j += 16)
            if (mr == 7) tile_7x16_idx(mr, n, arow, xoff, boff, B + j, C + j, ldc, acc);
            else tile_8x16_idx(mr, n, arow, xoff, boff, B + j, C + j, ldc, acc);
        return;
    }
    /* 64 columns at a time where there are: each term's two offsets and a row's broadcast then serve
     * four vectors, not two (an 8-row tile with two vectors keeps eight row pointers and leaves the
     * compiler short of general registers); measured with tools/op_ab.c: 7% off the 64-channel
     * 7x7 forward, 4-12% off the 64-channel weight gradients (docs/performance.md) */
    if (mr == 7)
        for (; j + 64 <= K; j += 64) tile_7x64_idx(mr, n, arow, xoff, boff, B + j, C + j, ldc, acc);
    if (mr == 8)
        for (; j + 64 <= K; j += 64) {
            tile_4x64_idx(4, n, arow, xoff, boff, B + j, C + j, ldc, acc);
            tile_4x64_idx(4, n, arow + 4, xoff, boff, B + j, C + 4 * (size_t)ldc + j, ldc, acc);
        }
    if (mr == 7) { /* a tile computes all its rows */
        for (; j + 32 <= K; j += 32) tile_7x32_idx(mr, n, arow, xoff, boff, B + j, C + j, ldc, acc);
        for (; j + 16 <= K; j += 16) tile_7x16_idx(mr, n, arow, xoff, boff, B + j, C + j, ldc, acc);
        return;
    }
    for (; j + 32 <= K; j += 32) tile_8x32_idx(mr, n, arow, xoff, boff, B + j, C + j, ldc, acc);
    for (; j + 16 <= K; j += 16) tile_8x16_idx(mr, n, arow, xoff, boff, B + j, C + j, ldc, acc);
}

/* ... two samples at once (TILE_ROWS2_IDX; the second sample's x d floats on), 16 columns of the K
 * at a time: K = 16, or any multiple of 16 with the one-vector tiles (flce_cpu_narrow). */
void flce_wgrad512_idx2(int mr, int n, const float *const *arow, const int *xoff, const int *boff, ptrdiff_t d,
                        const float *B0, const float *B1, int K, float *C0, float *C1, int ldc, int first) {
    for (int j = 0; j < K; j += 16)
        tile_8x16_rows2i(mr, n, arow, xoff, d, B0 + j, B1 + j, 0, boff, C0 + j, C1 ? C1 + j : NULL, ldc, first);
}

/* The weight gradient of a 3x3 stride-1 pad-1 layer with 16 output channels, by input position
 * (wgrad_tap in cpu_conv.c, its tap tiles otherwise): for the channels c and c + 1 (xa and xa +
 * HW), all nine taps at once, t[c][tap][0..16) = sum over the output positions p where the tap
 * lands inside, ascending, from +0, of x[c][p + off(tap)] dyT[p]; stored into C rows (c, tap)
 * 16 floats apart (c's nine, then c + 1's), or added to them with acc. It walks the input
 * positions j ascending: x[c][j] is broadcast once and multiplies the dy vectors of the nine
 * positions p = j - off(tap), one accumulator per (channel, tap); for each accumulator p ascends
 * as j does, and exactly the taps inside are taken (masks by row and column kind, constants in
 * each loop), so every sum has the terms and the order of the tap tiles: the same bits, with one
 * broadcast per nine multiplies instead of one per multiply (docs/performance.md). */
#define XC_J(MASK, J)                                                                                         \
    do {                                                                                                      \
        v16 x0_ = bc16(xa[J]), x1_ = bc16(xb[J]);                                                             \
        for (int tp = 0; tp < 9; tp++)                                                                        \
            if ((MASK) >> tp & 1) {                                                                           \
                v16 d_ = ld16(dyT + (size_t)((J) - dd[tp]) * 16);                                             \
                a0[tp] = a0[tp] + x0_ * d_;                                                                   \
                a1[tp] = a1[tp] + x1_ * d_;                                                                   \
            }                                                                                                 \
    } while (0)
/* a row of input positions: its first column lacks the taps kx = 2, its last kx = 0 */
#define XC_ROW(RM)                                                                                            \
    do {                                                                                                      \
        int j0_ = jy * W;                                                                                     \
        XC_J((RM) & 0xDB, j0_);                                                                               \
        for (int jx = 1; jx < W - 1; jx++) XC_J((RM), j0_ + jx);                                              \
        XC_J((RM) & 0x1B6, j0_ + W - 1);                                                                      \
    } while (0)
void flce_wgrad512_xc(const float *xa, int HW, int H, int W, const float *dyT, float *C, int acc) {
    const float *xb = xa + HW;
    int dd[9];
    for (int tp = 0; tp < 9; tp++) dd[tp] = (tp / 3 - 1) * W + (tp % 3 - 1);
    v16 a0[9], a1[9];
    for (int tp = 0; tp < 9; tp++) a0[tp] = a1[tp] = bc16(0.0f);
    for (int jy = 0; jy < H; jy++) { /* the first row lacks the taps ky = 2, the last ky = 0 */
        if (jy == 0) XC_ROW(0x3F);
        else if (jy == H - 1) XC_ROW(0x1F8);
        else XC_ROW(0x1FF);
    }
    for (int tp = 0; tp < 9; tp++) {
        float *c0 = C + (size_t)tp * 16, *c1 = C + (size_t)(9 + tp) * 16;
        st16(c0, acc == 1 ? ld16(c0) + a0[tp] : acc == 2 ? bc16(0.0f) + a0[tp] : a0[tp]);
        st16(c1, acc == 1 ? ld16(c1) + a1[tp] : acc == 2 ? bc16(0.0f) + a1[tp] : a1[tp]);
    }
}

/* The input gradient of a 3x3 stride-1 convolution (tiles.h): for one input row, 8 channels x
 * 32 columns or 16 channels x 16 columns at a time; over flat positions, 16 channels x 16. */
DX_ROW(flce_dx_row512x2, 8, 2)
DX_ROW(flce_dx_row512, 16, 1)
DX_FLAT(flce_dx_flat512, 16, 1)
DX_CVEC(flce_dx_cvec512, 8, 2)
DX_CVEC(flce_dx_cvec512_7, 7, 2) /* 7-wide rows: no idle position in a tile */
DX_CVEC(flce_dx_cvec512_7x4, 7, 4) /* 64 channels a tile: 7-8% faster at 7x7 than 7 x 32 */
DX_CVEC(flce_dx_cvec512_14, 14, 2) /* 14-wide rows of 32 channels: 0.96 of 7 x 32's time (op_ab) */
DX_CVEC(flce_dx_cvec512_14n, 14, 1) /* the same, one vector a tile (flce_cpu_narrow) */
DX_CVEC(flce_dx_cvec512_7n, 7, 1)
DX_CVEC(flce_dx_cvec512n, 8, 1)
DX_S2(flce_dx_s2_512_8x1, 8, 1) /* stride 2: 16 channels, rows of 8 or 16 */
DX_S2(flce_dx_s2_512_7x1, 7, 1) /* ... rows of 7 or 14 */
DX_S2(flce_dx_s2_512_8x2, 8, 2) /* 32 channels */
DX_S2(flce_dx_s2_512_7x2, 7, 2)
DX_S2(flce_dx_s2_512_14x1, 14, 1) /* one vector a tile (flce_cpu_narrow): rows of 14 */
DX_S2(flce_dx_s2_512_16x1, 16, 1) /* ... rows of 16 */
