/* cpu_conv.c: the CPU backend's convolutions (forward, input and weight gradients): register-
 * blocked tiles over implicit or explicit column matrices, split over the threads, every output
 * reduced in the order of reference/ops.h (see cpu_backend.c). */
#include <pthread.h>
#include <stdatomic.h>

#include "fmath.h"
#include "cpu_int.h"


#define VT v8
#define VW 8
#define VLD ld
#define VST stv
#define VBC bc
/* the lanes inside, permuted to the front, and a store of just those */
#define VFLAT(plane, b, v)                                                                                    \
    _mm256_maskstore_ps((plane) + (b)->dst, _mm256_cmpgt_epi32(_mm256_set1_epi32((b)->cnt), LANE_IDX),      \
                        _mm256_permutevar8x32_ps((__m256)(v), _mm256_loadu_si256((const __m256i *)(b)->perm)))
#define LANE_IDX _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)
#include "tiles.h"
TILES(_6x16, 6, 2) /* tile_6x16, tile_6x16_off, tile_6x16_rows: 6 rows x 16 columns */
TILES_IDX(_6x16, 6, 2) /* tile_6x16_idx: the weight gradient's tap tiles (wgrad_tap) */
TILES_FLAT(_6x16, 6, 2)
TILES_FLAT(_5x16, 5, 2) /* the row split below: no idle row */
TILES_FLAT(_4x16, 4, 2)

/* The height of tile t when M rows go into 6-row AVX2 tiles without an idle row: ceil(M / 6)
 * tiles of 4 to 6 rows, the first M mod that count one row taller (16 = 6 + 5 + 5; a 6-row
 * tile for 4 rows computed 6, a ninth of the first stage's work for nothing). Fewer than 4
 * rows: one tile of M. Every row's sum is its own, so any split gives the same bits. */
static int split_rows(int M, int t) {
    int n = (M + 5) / 6, base = M / n;
    return base + (t < M % n);
}

/* 1 in the contract's flush-to-zero mode (MXCSR's FTZ bit, set around every op by the caller
 * and taken by the pool's workers; docs/bit-exact.md, rule 4). There a partial sum whose exact
 * value is a negative subnormal becomes -0, and adding or leaving out a zero term can then change
 * a zero's sign: the paths that leave out the terms that read the padding, or add the +0 of a tap
 * whose output lies outside, are taken only when the mode keeps subnormals (then no partial sum
 * is -0, and such a term changes nothing). */
static int ftz_mode(void) { return (_mm_getcsr() & 0x8000) != 0; }

/* blk[b] (tiles.h) for the vectors of vw flat positions b vw .. b vw + vw of a grid of rows Wp
 * long whose first W columns and first H rows are the image. */
static void flat_blocks(int npos, int vw, int Wp, int W, int H, flat_blk *blk) {
    int dst = 0;
    for (int b = 0; b < npos / vw; b++) {
        flat_blk *k = &blk[b];
        memset(k, 0, sizeof *k);
        k->dst = dst;
        for (int l = 0; l < vw; l++) {
            int p = b * vw + l;
            if (p / Wp < H && p % Wp < W) {
                k->mask |= 1u << l;
                if (vw == 8) k->perm[k->cnt] = l;
                k->cnt++;
            }
        }
        dst += k->cnt;
    }
}

int flce_gemm512_rows(int M, int j1, int K, const float *const *arow, const int *poff, const float *B, int ldb,
                      float *C, int ldc, int acc);
void flce_gemm512_rows2(int M, int K, const float *const *arow, const int *poff, ptrdiff_t d, const float *B0,
                        const float *B1, int ldb, float *C0, float *C1, int ldc, int first);
void flce_kvec512_14x32(int n, const float *const *arow, const int *xoff, const int *boff, const float *B, float *C,
                        int ldc, int stride);
void flce_wgrad512_idx(int mr, int n, const float *const *arow, const int *xoff, const int *boff, const float *B,
                       int K, float *C, int ldc, int acc);
void flce_wgrad512_idx2(int mr, int n, const float *const *arow, const int *xoff, const int *boff, ptrdiff_t d,
                        const float *B0, const float *B1, int K, float *C0, float *C1, int ldc, int first);

/* C[M][0..j1) = A B, or C + A B with acc 1, or +0 + A B with acc 2 (the sum from +0 first), where row i of A is arow[i]
 * read at poff[k] (see tile_6x16_rows). */
static void gemm_rows(int M, int j1, int K, const float *const *arow, const int *poff, const float *B, int ldb, float *C,
                      int ldc, int acc) {
    int j0 = USE_AVX512 ? flce_gemm512_rows(M, j1, K, arow, poff, B, ldb, C, ldc, acc) : 0;
    int jv = j0 + (j1 - j0) / 16 * 16;
    for (int j = j0; j < jv; j += 16)
        for (int i = 0; i < M; i += 6)
            tile_6x16_rows(M - i < 6 ? M - i : 6, K, arow + i, poff, B + j, ldb, C + (size_t)i * ldc + j, ldc, acc);
    for (int i = 0; i < M; i++)
        for (int j = jv; j < j1; j++) {
            float t = 0.0f;
            for (int k = 0; k < K; k++) t = t + arow[i][poff[k]] * B[(size_t)k * ldb + j];
            C[(size_t)i * ldc + j] = acc == 1 ? C[(size_t)i * ldc + j] + t : acc == 2 ? 0.0f + t : t;
        }
}

/* C[M][j0..j1) = A[M][K] B[K][j0..j1): 6 x 16 register tiles, a scalar loop for the
 * last columns; every element is reduced over k ascending, one separately rounded
 * multiply and add per term. (A 4 x 24 tile for M = 16 and 32 measured slower.) */
int flce_gemm512(int M, int j0, int j1, int K, const float *A, int lda, const float *B, int ldb, float *C, int ldc,
                 int acc);

/* The last nr < 16 columns: copied into a 16-column block padded with zeros and run through
 * the same tiles (each element still reduced over k ascending), then copied back: the tiles
 * waste 16 - nr columns but a scalar loop is one dependent add chain per element. */
#define PACK_MAX 640
static _Thread_local float pack_b[PACK_MAX * 16], pack_c[PACK_MAX * 16];

static void gemm(int M, int j0, int j1, int K, const float *A, int lda, const float *B, int ldb, float *C, int ldc) {
    if (USE_AVX512) j0 = flce_gemm512(M, j0, j1, K, A, lda, B, ldb, C, ldc, 0);
    int jv = j0 + (j1 - j0) / 16 * 16;
    for (int j = j0; j < jv; j += 16)
        for (int i = 0; i < M; i += 6)
            tile_6x16(M - i < 6 ? M - i : 6, K, A + (size_t)i * lda, lda, B + j, ldb, C + (size_t)i * ldc + j, ldc, 0);
    int nr = j1 - jv;
    if (nr > 0 && K <= PACK_MAX && M <= PACK_MAX) {
        for (int k = 0; k < K; k++) {
            const float *src = B + (size_t)k * ldb + jv;
            float *d = pack_b + (size_t)k * 16;
            for (int q = 0; q < 16; q++) d[q] = q < nr ? src[q] : 0.0f;
        }
        if (USE_AVX512) flce_gemm512(M, 0, 16, K, A, lda, pack_b, 16, pack_c, 16, 0);
        else
            for (int i = 0; i < M; i += 6)
                tile_6x16(M - i < 6 ? M - i : 6, K, A + (size_t)i * lda, lda, pack_b, 16, pack_c + (size_t)i * 16, 16, 0);
        for (int i = 0; i < M; i++)
            for (int q = 0; q < nr; q++) C[(size_t)i * ldc + jv + q] = pack_c[(size_t)i * 16 + q];
        return;
    }
    for (int i = 0; i < M; i++)
        for (int j = jv; j < j1; j++) {
            float t = 0.0f;
            for (int k = 0; k < K; k++) t = t + A[(size_t)i * lda + k] * B[(size_t)k * ldb + j];
            C[(size_t)i * ldc + j] = t;
        }
}

/* col[q - q0][p] for q in [q0, q1) of sample x_n [C][H][W], q = (ci, ky, kx), p = (oy, ox);
 * zeros outside the image. */
static void im2col(const flce_conv_shape *s, const float *xn, int q0, int q1, float *col) {
    int R = s->R, P = s->OH * s->OW, st = s->stride;
    for (int q = q0; q < q1; q++) {
        int c = q / (R * R), ky = q / R % R, kx = q % R;
        float *row = col + (size_t)(q - q0) * P;
        /* the output columns whose input column lies inside: ox in [lo, hi) */
        int lo = 0, hi = s->OW;
        while (lo < s->OW && lo * st + kx - s->pad < 0) lo++;
        while (hi > lo && (hi - 1) * st + kx - s->pad >= s->W) hi--;
        for (int oy = 0; oy < s->OH; oy++) {
            int iy = oy * st + ky - s->pad;
            float *r = row + oy * s->OW;
            if (iy < 0 || iy >= s->H) {
                memset(r, 0, sizeof(float) * (size_t)s->OW);
                continue;
            }
            const float *xr = xn + ((size_t)c * s->H + iy) * s->W + kx - s->pad;
            for (int ox = 0; ox < lo; ox++) r[ox] = 0.0f;
            if (st == 1) memcpy(r + lo, xr + lo, sizeof(float) * (size_t)(hi - lo));
            else
                for (int ox = lo; ox < hi; ox++) r[ox] = xr[ox * st];
            for (int ox = hi; ox < s->OW; ox++) r[ox] = 0.0f;
        }
    }
}

typedef struct {
    const flce_conv_shape *s;
    const float *x, *w, *dy;
    float *y, *dx, *dw, *wt;
    float *dw_acc, *dw_t; /* the sample-split weight gradient (bwd_weight_split) */
    int parts;
    int tap;     /* the weight gradient by tap tiles (wgrad_tap) */
    const int *kx, *kb, *kn; /* fwd_kvec's term lists (kvec_lists) */
    int bad[16]; /* per part: a dy value that is not finite (wgrad_tap's skipped terms would not be +0) */
    atomic_int next; /* the next sample to take (take_sample), or ticket (wgrad_take) */
    int ends, front; /* the weight gradient's two-ended sample split (wgrad_take) */
    const struct conv_epi *epi; /* the forward's evaluation BatchNorm (conv2d_fwd_bn_eval), or NULL */
    cpu_ctx *ctx;
} conv_job;

/* conv2d_fwd_bn_eval: per output channel k, o = ((y - m[k]) is[k]) g[k] + b[k] (bn_fwd_eval's
 * three roundings, is = rsqrt(running_var + eps) as it computes it), then o = o + r where there is
 * a residual (add's), then the ReLU where relu (o > 0 ? o : 0: NaN and -0 give +0): the ops the
 * model issued one at a time before, in their order. epi_sample applies it to one sample's
 * output y_n [K][P] right after the sample's tiles, while it is still in the core's cache:
 * the separate passes read and wrote every output from memory again (evaluation only; training
 * needs the batch's statistics first). */
typedef struct conv_epi {
    const float *m, *g, *b, *r;
    float *is;
    int relu;
} conv_epi;

static void epi_sample(const conv_job *j, int n, float *yn) {
    const conv_epi *e = j->epi;
    if (!e) return;
    int K = j->s->K, P = j->s->OH * j->s->OW;
    const float *rn = e->r ? e->r + (size_t)n * K * P : NULL;
    v8 z = bc(0.0f);
    for (int k = 0; k < K; k++) {
        float *y = yn + (size_t)k * P, m = e->m[k], is = e->is[k], g = e->g[k], b = e->b[k];
        const float *r = rn ? rn + (size_t)k * P : NULL;
        v8 mv = bc(m), iv = bc(is), gv = bc(g), bv = bc(b);
        int i = 0;
        for (; i + 8 <= P; i += 8) {
            v8 o = ((ld(y + i) - mv) * iv) * gv + bv;
            if (r) o = o + ld(r + i);
            if (e->relu) o = (v8)((v8i)(o > z) & (v8i)o);
            stv(y + i, o);
        }
        for (; i < P; i++) {
            float o = ((y[i] - m) * is) * g + b;
            if (r) o = o + r[i];
            y[i] = e->relu && !(o > 0.0f) ? 0.0f : o;
        }
    }
}

/* d[0 .. W) = r[0 .. W): a row into a padded buffer, in 8-wide vectors, the last one overlapping
 * the one before where W is not a multiple of 8. Under 8 wide: where the caller's layout has
 * zeros floats of zero padding after the row (W + zeros >= 8), one 8-wide store that writes
 * those zeros again (the masked load leaves its lanes +0); else exactly W floats (store_below).
 * In pad_rows 1-2% off the 16- and 32-channel forwards against a memcpy a row (tools/op_ab.c);
 * the 7-wide rows' one store instead of a masked store (vmaskmovps, slow on AMD Zen 4): 2-3% off
 * the 64-channel 7x7 forward and input gradient, 5% off the stride-2 input gradient to 7x7, the
 * step 1.5-2% (docs/performance.md, 2026-11-30, twenty-fifth session) */
static inline void copy_row(float *d, const float *r, int W, int zeros) {
    if (W >= 8) {
        int i = 0;
        for (; i + 8 <= W; i += 8) stv(d + i, ld(r + i));
        if (i < W) stv(d + W - 8, ld(r + W - 8));
    } else if (W + zeros >= 8) stv(d, mload(r, lanes_below(W)));
    else store_below(d, W, mload(r, lanes_below(W)));
}
static void pad_rows(const flce_conv_shape *s, const float *xn, float *xp, int first, int Wp);

/* The next sample for a part of the forward pass or the input gradient (N when none is left):
 * the parts take the samples one at a time from a shared counter, so the thread on the
 * momentarily faster core takes more (these virtual machines' cores change speed by a third from
 * moment to moment, one at a time: with a fixed share each the faster waited). With two parts
 * they take from the two ends of the batch, part 0 samples 0, 1, ... and part 1 N - 1, N - 2,
 * ...: each core writes (and reads) a contiguous half, the half that BatchNorm's chunk split
 * (cpu_bn.c) gives it too, so the activations stay in the core that made them (2026-11-30: the
 * step 8-11% faster with both). Each sample's output and scratch are its own, so which part
 * computes a sample never changes a bit. *mine counts the part's samples (0 before the first). */
static int take_sample(conv_job *j, int part, int parts, int *mine) {
    int N = j->s->N, t = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
    if (t >= N || parts != 2) return t < N ? t : N;
    int n = part == 0 ? *mine : N - 1 - *mine;
    ++*mine;
    return n;
}

/* Part i of n of the cache lines of [p, p + bytes) prefetched for writing (with -mavx2 alone
 * GCC emits prefetcht0; a real prefetchw measured the same): an output about to be written in
 * a burst gets its lines into the cache ahead of the stores, which otherwise wait for each
 * line's read-for-ownership (measured on the ops that use it). */
static inline void prefetch_w_part(void *p, size_t bytes, int i, int n) {
    size_t lines = (bytes + 63) / 64, per = (lines + (size_t)n - 1) / (size_t)n;
    for (size_t l = (size_t)i * per; l < (size_t)(i + 1) * per && l < lines; l++)
        __builtin_prefetch((char *)p + 64 * l, 1, 3);
}
/* The sample zero-padded: xp [C][H+2 pad][W+2 pad] (pad_rows: rows Wp long; the image at
 * column pad of row pad on). The border is zeroed on the first sample only: later samples
 * overwrite the interior alone. */
static void pad_sample(const flce_conv_shape *s, const float *xn, float *xp, int first) {
    pad_rows(s, xn, xp, first, s->W + 2 * s->pad);
}
static void transpose_sample(const float *src, int K, int P, float *dst);
static int any_nonfinite(const float *a, size_t n);
void flce_gemm512_off(int M, int n, int K, const float *A, int lda, const float *B, const int *off, float *C, int ldc);
void flce_gemm512_off2(int M, int K, const float *A, int lda, const float *B, const int *off, int bstep, float *C,
                       int ldc);
void flce_gemm512_off_t(int M, int n, int K, const float *AT, const float *B, const int *off, float *C, int ldc,
                        const flat_blk *blk);
void flce_gemm512_offflat(int M, int n, int K, const float *A, int lda, const float *B, const int *off, float *C,
                          int ldc, const flat_blk *blk);

/* The forward pass of a 3x3 stride-1 convolution with rows of a multiple of 16 outputs, without
 * im2col: the sample is copied once into a zero-padded image xp [C][H+2p][W+2p], and row q =
 * (c, ky, kx) of the column matrix, restricted to output row oy, is xp + off[q] + oy (W+2p),
 * off[q] = (c (H+2p) + ky) (W+2p) + kx. The tiles reduce over q ascending as the GEMM does. */
#define IMPLICIT_MAXQ 1152
static int implicit_ok(const flce_conv_shape *s) {
    return s->R == 3 && s->stride == 1 && s->OW % 16 == 0 && s->C * 9 <= IMPLICIT_MAXQ;
}

static void fwd_implicit(const conv_job *j, const float *xn, float *xp, float *yn, int first) {
    const flce_conv_shape *s = j->s;
    int Q = s->C * 9, P = s->OH * s->OW, Hp = s->H + 2 * s->pad, Wp = s->W + 2 * s->pad;
    int off[IMPLICIT_MAXQ];
    for (int q = 0; q < Q; q++) off[q] = ((q / 9) * Hp + q / 3 % 3) * Wp + q % 3;
    pad_sample(s, xn, xp, first);
    int step = USE_AVX512 && s->OW % 32 == 0 ? 32 : 16, oy0 = 0;
    if (j->wt) { /* one-vector tiles over the transposed weights (conv_fwd) */
        for (int oy = 0; oy < s->OH; oy++)
            flce_gemm512_off_t(s->K, s->OW, Q, j->wt, xp + (size_t)oy * Wp, off, yn + (size_t)oy * s->OW, P, NULL);
        return;
    }
    if (USE_AVX512 && s->OW == 16) /* two output rows per tile: 16 chains, no idle lane */
        for (; oy0 + 2 <= s->OH; oy0 += 2)
            flce_gemm512_off2(s->K, Q, j->w, Q, xp + (size_t)oy0 * Wp, off, Wp, yn + (size_t)oy0 * 16, P);
    for (int oy = oy0; oy < s->OH; oy++)
        for (int ox = 0; ox < s->OW; ox += step) {
            const float *b = xp + (size_t)oy * Wp + ox;
            float *c = yn + (size_t)oy * s->OW + ox;
            if (USE_AVX512) flce_gemm512_off(s->K, step, Q, j->w, Q, b, off, c, P);
            else
                for (int i = 0; i < s->K; i += 6)
                    tile_6x16_off(s->K - i < 6 ? s->K - i : 6, Q, j->w + (size_t)i * Q, Q, b, off, c + (size_t)i * P, P, 0);
        }
}

/* The same for rows that are not a multiple of 16 long (28, 14, 7 and 8 wide images): vectors
 * over the flat positions p = oy Wp + ox of the padded grid, as DX_FLAT does for the input
 * gradient; output p reads xp + off[q] + p, positions with ox >= OW (they wrap into the
 * padding) are computed and thrown away. The grid has one zero column, Wp = W + 1: column 0 of
 * each row is the left padding of its row and the right padding of the row above (93% of the
 * lanes useful at 14x14 instead of 87.5% with W + 2). xp has a zero tail for the last vector's
 * reads. */
static int flat_step(const flce_conv_shape *s) {
    int L = s->OH * (s->W + 1), n16 = (L + 15) / 16 * 16, n32 = (L + 31) / 32 * 32;
    return USE_AVX512 && n32 * 10 <= n16 * 11 ? 32 : 16;
}
/* The positions computed: AVX-512 walks them in blocks of 48 (8 x 48 tiles: 24 accumulators,
 * measured 5-10% nearer the peak than 8 x 32 with both cores busy, tools/tile512_probe.c), the
 * last block 16 or 32 wide, so npos is L rounded up to 16; AVX2 in blocks of flat_step. */
static size_t flat_npos(const flce_conv_shape *s) {
    int st = USE_AVX512 ? 16 : flat_step(s);
    return (size_t)(s->OH * (s->W + 1) + st - 1) / (size_t)st * (size_t)st;
}
static int flat_ok(const flce_conv_shape *s) {
    return s->R == 3 && s->stride == 1 && s->pad == 1 && s->OW % 16 && s->C * 9 <= IMPLICIT_MAXQ;
}

/* pf (NULL: none): the sample's residual, which epi_sample reads right after, prefetched into the
 * L2 cache a part before each block of 48 positions (AVX-512): the residual's extra cost in the
 * 16-channel layer at batch 256 went from 8-12% to 4-6% of the call (four alternating runs). */
static void fwd_flat(const conv_job *j, const float *xn, float *xp, const flat_blk *blk, float *panel, float *yn,
                     int first, const float *pf) {
    const flce_conv_shape *s = j->s;
    int Q = s->C * 9, Hp = s->H + 2, Wp = s->W + 1, step = flat_step(s), P = s->OH * s->OW;
    int vw = USE_AVX512 ? 16 : 8;
    size_t npos = flat_npos(s);
    int off[IMPLICIT_MAXQ];
    for (int q = 0; q < Q; q++) off[q] = ((q / 9) * Hp + q / 3 % 3) * Wp + q % 3;
    if (first) memset(xp + (size_t)s->C * Hp * Wp, 0, sizeof(float) * (npos + 2 * (size_t)Wp + 64));
    pad_rows(s, xn, xp, first, Wp);
    if (USE_AVX512) {
        int nb = (int)((npos + 47) / 48);
        size_t pfb = sizeof(float) * (size_t)s->K * P, lines = (pfb + 63) / 64, per = (lines + (size_t)nb - 1) / (size_t)nb;
        for (size_t p0 = 0, n; p0 < npos; p0 += n) {
            n = npos - p0 < 48 ? npos - p0 : 48;
            if (pf) /* the residual the epilogue adds, a part before each block (epi_sample) */
                for (size_t l = p0 / 48 * per; l < (p0 / 48 + 1) * per && l < lines; l++)
                    __builtin_prefetch((const char *)pf + 64 * l, 0, 2);
            if (j->wt) flce_gemm512_off_t(s->K, (int)n, Q, j->wt, xp + p0, off, yn, P, blk + p0 / 16);
            else flce_gemm512_offflat(s->K, (int)n, Q, j->w, Q, xp + p0, off, yn, P, blk + p0 / 16);
        }
        return;
    }
    for (size_t p0 = 0; p0 < npos; p0 += (size_t)step) {
        const flat_blk *b = blk + p0 / (size_t)vw;
        /* AVX2: the block's Q x 16 column panel copied out first (the tiles then read one
         * contiguous L1-resident stream instead of 3 C shifted rows of the padded sample:
         * 0-11% faster on the tile alone, best of 40, tools/tile_probe.c variants 1 and 2;
         * docs/performance.md); the same products summed in the same order. */
        for (int q = 0; q < Q; q++) {
            const float *src = xp + p0 + off[q];
            stv(panel + 16 * q, ld(src));
            stv(panel + 16 * q + 8, ld(src + 8));
        }
        for (int t = 0, i = 0, mr; i < s->K; i += mr, t++) {
            mr = split_rows(s->K, t);
            const float *w = j->w + (size_t)i * Q;
            float *y = yn + (size_t)i * P;
            if (mr == 5) tile_5x16_flat(5, Q, w, Q, panel, 16, y, P, b);
            else if (mr == 4) tile_4x16_flat(4, Q, w, Q, panel, 16, y, P, b);
            else tile_6x16_flat(mr, Q, w, Q, panel, 16, y, P, b);
        }
    }
}

/* Small images with many output channels (8x8 and 7x7 with 64; AVX-512 only, where a row of
 * under 16 leaves lanes idle), and stride 2 (no im2col: a position's row pointer steps by 2):
 * vectors over the output channels instead of positions, so no lane is wasted (measured: 129 ->
 * 105 ms per 11 steps at 8x8): yT[p][k] = sum over q of xp[off[q] + p'] wT[q][k] (p' the
 * position in the padded grid), the rows tiles with one row per output position, then
 * transposed into y. Each element is still the sum over q ascending from +0. j->wt holds wT.
 * Also 14-wide rows with 32 output channels (the 32-channel 14x14 stage, kvec14): one output row
 * a tile, 14 x 32 (tile_14x32_idx1), where the flat positions compute 224 lanes for 196 outputs:
 * 10-11% faster alone, 7-10% with a cold input (tools/op_ab.c, 2026-11-29); two 7 x 32 tiles
 * a row had been slower than the flat positions. The same tile at stride 2 (28x28 -> 14x14, the
 * pointers two floats apart) instead of two 7 x 32: 4-5% faster alone, 5-8% cold. Not for 16
 * channels at 28x28: a 28 x 16 tile (28 broadcasts a term for one vector) took 1.4-1.5x the flat
 * positions' time. */
static int kvec14(const flce_conv_shape *s) { return s->stride <= 2 && s->OW == 14 && s->K == 32; }
static int kvec_ok(const flce_conv_shape *s) {
    if (!USE_AVX512 || s->R != 3 || s->pad != 1 || s->K % 32 || s->C * 9 > IMPLICIT_MAXQ) return 0;
    if (s->stride == 2) return 1; /* strided rows: no im2col (16x16: 19 -> 16 ms, 8x8: 15 -> 14 ms) */
    return s->stride == 1 && ((s->OW < 16 && s->K >= 64) || kvec14(s));
}

/* The terms each tile of fwd_kvec sums: a tile of positions p0 .. p0 + mr leaves out the rows q
 * = (c, tap) whose tap reads the zero padding at every one of its positions (an x 0 w = +0 term
 * added to a sum that is never -0: nothing, while the weights are finite; with a weight that is
 * not, fin = 0 keeps every q). Tile t's list: xoff (off[q] into the padded sample), boff (q K),
 * its length n[t]; tiles of 7 positions where P is a multiple of 7 and not of 8, as gemm_rows. */
static int kvec_mr(const flce_conv_shape *s) {
    int P = s->OH * s->OW;
    return kvec14(s) ? 14 : P % 8 && P % 7 == 0 ? 7 : 8;
}
static void kvec_lists(const flce_conv_shape *s, int fin, int *xoff, int *boff, int *n) {
    int P = s->OH * s->OW, Q = s->C * 9, Hp = s->H + 2, Wp = s->W + 2, MR = kvec_mr(s);
    for (int t = 0, p0 = 0; p0 < P; t++, p0 += MR) {
        int mask = fin ? 0 : 511;
        for (int p = p0; p < p0 + MR && p < P; p++)
            for (int tap = 0; tap < 9; tap++) {
                int iy = p / s->OW * s->stride + tap / 3 - 1, ix = p % s->OW * s->stride + tap % 3 - 1;
                if (iy >= 0 && iy < s->H && ix >= 0 && ix < s->W) mask |= 1 << tap;
            }
        int k = 0;
        for (int q = 0; q < Q; q++)
            if (mask >> (q % 9) & 1) {
                xoff[(size_t)t * Q + k] = ((q / 9) * Hp + q / 3 % 3) * Wp + q % 3;
                boff[(size_t)t * Q + k] = q * s->K;
                k++;
            }
        n[t] = k;
    }
}

static void fwd_kvec(const conv_job *j, const float *xn, float *xp, float *yT, const float **arow, float *yn, int first) {
    const flce_conv_shape *s = j->s;
    int Q = s->C * 9, P = s->OH * s->OW, Wp = s->W + 2, K = s->K, MR = kvec_mr(s);
    pad_sample(s, xn, xp, first);
    for (int p = 0; p < P; p++) arow[p] = xp + (p / s->OW) * s->stride * Wp + p % s->OW * s->stride;
    int T = (P + MR - 1) / MR;
    for (int t = 0, p0 = 0; p0 < P; t++, p0 += MR) {
        prefetch_w_part(yn, sizeof(float) * (size_t)K * P, t, T); /* measured: 17% off a stride-2 forward */
        if (MR == 14)
            flce_kvec512_14x32(j->kn[t], arow + p0, j->kx + (size_t)t * Q, j->kb + (size_t)t * Q, j->wt, yT + (size_t)p0 * K, K,
                               s->stride);
        else
            flce_wgrad512_idx(P - p0 < MR ? P - p0 : MR, j->kn[t], arow + p0, j->kx + (size_t)t * Q, j->kb + (size_t)t * Q,
                              j->wt, K, yT + (size_t)p0 * K, K, 0);
    }
    transpose_sample(yT, P, K, yn); /* 8x8 vector blocks: the scalar copy cost up to a tenth of the op */
}

/* AVX2: the same channel vectors for small images (rows under 16 wide) with K a multiple of 16,
 * and for 16 output channels at any width (one 16-wide channel block then covers every output
 * channel; the tiles over positions by split_rows):
 * yT[p][k] over tiles of up to 6 positions (split_rows: none idle) x 16 channels (tile_6x16_rows
 * over the padded sample, rows the positions, B = wT), then transposed into y; each element the
 * sum over q ascending from +0, as the flat positions sum it. The flat positions compute 64 lanes
 * for 49 outputs at 7x7 and 80 for 64 at 8x8; these none idle. tools/op_ab.c with FLCE_CPU_ISA=avx2
 * on a Zen 4 (2026-12-03), this over the flat positions, means of 60 alternating calls: 64
 * channels 7x7 0.904, 0.922, 0.943, 0.854; 8x8 0.872, 0.888, 0.956, 0.945; 32 channels 14x14
 * 0.988, 0.924, 1.001, 0.962 (positions outer, channels inner: the same within the noise); 16
 * channels 28x28 0.886, 0.844, 32x32 0.941, 0.907 (over the flat positions and the rows); not
 * 32 channels 16x16: 1.027, 1.018. The input layer at 28x28 (1 channel) too, 0.33-0.40 -> 0.23-0.28
 * ms a call in separate processes, but not at 32x32 (3 channels, rows of 32 by the implicit
 * tiles): 0.41-0.43 -> 0.61-0.70 ms. And the 3x3 stride-2 layers (the rows' pointers two floats
 * apart; before: im2col and the GEMM): 0.612, 0.626 at 16 -> 32 channels 28x28, 0.650, 0.673 at
 * 32 -> 64 14x14, 0.627, 0.628 at 16 -> 32 32x32, 0.799, 0.846 at 32 -> 64 16x16. And the 1x1
 * stride-2 shortcut (the sample read in place; before: a strided im2col and the GEMM): 0.709,
 * 0.693 at 16 -> 32 28x28, 0.746, 0.725 at 32x32; 32 -> 64 at 14x14 0.915, 0.766, 0.798, 1.003,
 * 0.849, at 16x16 0.904, 1.266, 0.961, 0.862, 0.872. */
static int kvec256_ok(const flce_conv_shape *s) {
    if (!USE_AVX512 && s->R == 1 && s->stride == 2 && s->pad == 0 && s->K % 16 == 0) return s->C <= IMPLICIT_MAXQ;
    return !USE_AVX512 && s->R == 3 && (s->stride == 2 || (s->stride == 1 && (s->OW < 16 || (s->K == 16 && (s->C >= 16 || s->OW % 16))))) && s->pad == 1 && s->K % 16 == 0 &&
           s->C * 9 <= IMPLICIT_MAXQ;
}
static void fwd_kvec256(const conv_job *j, const float *xn, float *xp, float *yT, const float **arow, float *yn, int first) {
    const flce_conv_shape *s = j->s;
    int R = s->R, Q = s->C * R * R, P = s->OH * s->OW, Hp = s->H + 2 * s->pad, Wp = s->W + 2 * s->pad, K = s->K;
    int off[IMPLICIT_MAXQ];
    for (int q = 0; q < Q; q++) off[q] = ((q / (R * R)) * Hp + q / R % R) * Wp + q % R;
    const float *xb = xn; /* without padding the sample is read in place */
    if (s->pad) pad_sample(s, xn, xp, first), xb = xp;
    for (int p = 0; p < P; p++) arow[p] = xb + (p / s->OW) * s->stride * Wp + p % s->OW * s->stride;
    for (int k0 = 0; k0 < K; k0 += 16)
        for (int t = 0, p0 = 0, mr; p0 < P; p0 += mr, t++) {
            mr = split_rows(P, t);
            tile_6x16_rows(mr, Q, arow + p0, off, j->wt + k0, K, yT + (size_t)p0 * K + k0, K, 0);
        }
    transpose_sample(yT, P, K, yn);
}

/* 1x1 stride-2 convolutions (the shortcut's projection; AVX-512, K a multiple of 16): channel
 * vectors as fwd_kvec, reading the sample in place (no padding: every term lies inside):
 * yT[p][k] = sum over c ascending of x[c][2 oy][2 ox] wT[c][k], from +0, then transposed into y.
 * 14 x 32 tiles (pointers two floats apart) for 14-wide rows of 32 channels, else the index
 * tiles of 7 or 8 positions. Before: a strided im2col and a GEMM of C terms. tools/op_ab.c
 * (2026-11-29), B / A: 16 -> 32 channels at 28x28 0.954, 0.946, 1.045, with a cold input 0.895,
 * 0.746, 0.978; 32 -> 64 at 14x14 0.70, 0.88, 0.80, cold 0.84, 0.97, 0.81. */
static int k1s2_ok(const flce_conv_shape *s) {
    return USE_AVX512 && s->R == 1 && s->stride == 2 && s->pad == 0 && s->K % 16 == 0;
}
static void fwd_k1s2(const conv_job *j, const float *xn, float *yT, const float **arow, const int *xoff,
                     const int *boff, float *yn) {
    const flce_conv_shape *s = j->s;
    int P = s->OH * s->OW, K = s->K, MR = kvec_mr(s); /* 14 where kvec14 holds, else 7 or 8 */
    for (int p = 0; p < P; p++) arow[p] = xn + (size_t)(p / s->OW) * 2 * s->W + (size_t)(p % s->OW) * 2;
    for (int p0 = 0; p0 < P; p0 += MR) {
        if (MR == 14) flce_kvec512_14x32(s->C, arow + p0, xoff, boff, j->wt, yT + (size_t)p0 * K, K, 2);
        else flce_wgrad512_idx(P - p0 < MR ? P - p0 : MR, s->C, arow + p0, xoff, boff, j->wt, K, yT + (size_t)p0 * K, K, 0);
    }
    transpose_sample(yT, P, K, yn);
}

static void fwd_worker(void *arg, int part, int parts) {
    conv_job *j = arg;
    int mine = 0; /* take_sample */
    const flce_conv_shape *s = j->s;
    int Q = s->C * s->R * s->R, P = s->OH * s->OW;
    if (k1s2_ok(s)) {
        float *yT = scratch_get(&j->ctx->a[part], (size_t)P * s->K);
        const float **arow = malloc(sizeof(float *) * (size_t)P);
        int *xoff = malloc(sizeof(int) * 2 * (size_t)s->C);
        if (yT && arow && xoff) {
            int *boff = xoff + s->C;
            for (int c = 0; c < s->C; c++) xoff[c] = c * s->H * s->W, boff[c] = c * s->K;
            for (int n; (n = take_sample(j, part, parts, &mine)) < s->N;) {
                fwd_k1s2(j, j->x + (size_t)n * s->C * s->H * s->W, yT, arow, xoff, boff, j->y + (size_t)n * s->K * P);
                epi_sample(j, n, j->y + (size_t)n * s->K * P);
            }
        }
        free(arow), free(xoff);
        return;
    }
    if (kvec256_ok(s) || kvec_ok(s)) { /* channel vectors: AVX2's tiles or AVX-512's */
        void (*f)(const conv_job *, const float *, float *, float *, const float **, float *, int) =
            kvec256_ok(s) ? fwd_kvec256 : fwd_kvec;
        size_t xs = s->pad ? (size_t)s->C * (s->H + 2) * (s->W + 2) : 0; /* no padded copy without padding */
        float *xp = scratch_get(&j->ctx->a[part], xs + (size_t)P * s->K);
        const float **arow = malloc(sizeof(float *) * (size_t)P);
        if (xp && arow)
            for (int n, first = 1; (n = take_sample(j, part, parts, &mine)) < s->N; first = 0) {
                f(j, j->x + (size_t)n * s->C * s->H * s->W, xp, xp + xs, arow, j->y + (size_t)n * s->K * P, first);
                epi_sample(j, n, j->y + (size_t)n * s->K * P);
            }
        free(arow);
        return;
    }
    if (flat_ok(s)) {
        size_t xs = (size_t)s->C * (s->H + 2) * (s->W + 1), npos = flat_npos(s);
        int vw = USE_AVX512 ? 16 : 8;
        size_t xn_ = xs + npos + 2 * (size_t)(s->W + 1) + 64;
        float *xp = scratch_get(&j->ctx->a[part], xn_ + 16 * (size_t)Q + 16);
        flat_blk *blk = malloc(sizeof(flat_blk) * (npos / (size_t)vw));
        if (xp && blk) {
            float *panel = (float *)(((uintptr_t)(xp + xn_) + 63) & ~(uintptr_t)63); /* the AVX2 column panel */
            flat_blocks((int)npos, vw, s->W + 1, s->OW, s->OH, blk);
            for (int n, first = 1; (n = take_sample(j, part, parts, &mine)) < s->N; first = 0) {
                fwd_flat(j, j->x + (size_t)n * s->C * s->H * s->W, xp, blk, panel, j->y + (size_t)n * s->K * P, first,
                         j->epi && j->epi->r ? j->epi->r + (size_t)n * s->K * P : NULL);
                epi_sample(j, n, j->y + (size_t)n * s->K * P);
            }
        }
        free(blk);
        return;
    }
    if (implicit_ok(s)) {
        float *xp = scratch_get(&j->ctx->a[part], (size_t)s->C * (s->H + 2 * s->pad) * (s->W + 2 * s->pad));
        if (!xp) return;
        for (int n, first = 1; (n = take_sample(j, part, parts, &mine)) < s->N; first = 0) {
            fwd_implicit(j, j->x + (size_t)n * s->C * s->H * s->W, xp, j->y + (size_t)n * s->K * P, first);
            epi_sample(j, n, j->y + (size_t)n * s->K * P);
        }
        return;
    }
    int direct = s->R == 1 && s->stride == 1 && s->pad == 0;
    float *col = direct ? NULL : scratch_get(&j->ctx->a[part], (size_t)Q * P);
    if (!direct && !col) return;
    for (int n; (n = take_sample(j, part, parts, &mine)) < s->N;) {
        const float *xn = j->x + (size_t)n * s->C * s->H * s->W;
        if (!direct) im2col(s, xn, 0, Q, col);
        gemm(s->K, 0, P, Q, j->w, Q, direct ? xn : col, P, j->y + (size_t)n * s->K * P, P);
        epi_sample(j, n, j->y + (size_t)n * s->K * P);
    }
}

void flce_dx_row512x2(const float *dyp, const float *w2, int C, int Cp, int K, int OH, int W, int Wd, int iy, float *dxn);
void flce_dx_row512(const float *dyp, const float *w2, int C, int Cp, int K, int OH, int W, int Wd, int iy, float *dxn);
void flce_dx_flat512(const float *dyp, const float *w2, int C, int Cp, int K, int L, int Wp, int npos,
                     const flat_blk *blk, float *dxn, int HW);
void flce_dx_cvec512(const float *dyp, const float *w2, int C, int Cp, int K, int L, int Wp, int H, int W, float *outT);
void flce_dx_cvec512_14(const float *dyp, const float *w2, int C, int Cp, int K, int L, int Wp, int H, int W, float *outT);
void flce_dx_cvec512_7(const float *dyp, const float *w2, int C, int Cp, int K, int L, int Wp, int H, int W, float *outT);
void flce_dx_cvec512_14n(const float *dyp, const float *w2, int C, int Cp, int K, int L, int Wp, int H, int W, float *outT);
void flce_dx_cvec512n(const float *dyp, const float *w2, int C, int Cp, int K, int L, int Wp, int H, int W, float *outT);
void flce_dx_cvec512_7n(const float *dyp, const float *w2, int C, int Cp, int K, int L, int Wp, int H, int W, float *outT);
void flce_dx_cvec512_7x4(const float *dyp, const float *w2, int C, int Cp, int K, int L, int Wp, int H, int W, float *outT);
typedef void dx_s2_fn(const float *dyq, const float *w2, int C, int Cp, int K, int L, int Wq, int OH, int OW, int py,
                      int px, float *outT);
dx_s2_fn flce_dx_s2_512_8x1, flce_dx_s2_512_7x1, flce_dx_s2_512_8x2, flce_dx_s2_512_7x2, flce_dx_s2_512_14x1,
    flce_dx_s2_512_16x1;

/* The same for 8-wide vectors: rows of 8 channels x 8 positions at a time (tiles.h; 8 measured
 * faster than 6 and 12 with AVX2: 16-channel layers 211 -> 180 ms per 11 steps); flat positions
 * in tiles of 4 to 6 channels (split_rows: no idle channel) x 16 positions, 12 sums at most and
 * nothing spilled in the loop (2 vector loads and up to 6 broadcasts a term where 8 x 8 needs 1
 * and 8): 0.87-0.93 of 8 x 8's time at 16 and 32 channels, 0.94-0.99 at 64 (AVX2 forced on a
 * Zen 4, docs/performance.md, 2026-12-02). */
static DX_ROW(dx_row256, 8, 1)
static DX_FLAT(dx_flat256_6x2, 6, 2)
static DX_FLAT(dx_flat256_5x2, 5, 2)
static DX_FLAT(dx_flat256_4x2, 4, 2)
static DX_PVEC(dx_pvec256, 6, 2)
/* AVX2, stride 2 (bwd_data_s2): 4 positions x 16 channels (t in registers, the sums between
 * taps in memory); over the dcol GEMM and col2im, tools/op_ab.c conv_bwd_data with
 * FLCE_CPU_ISA=avx2 on a Zen 4 (2026-12-03), means of 60 alternating calls: 16 channels 28x28
 * 0.824, 0.814, 32x32 0.704, 0.653; 32 channels 14x14 0.698, 0.720, 16x16 0.794, 0.786 (7 or 8
 * positions x 8 channels: 0.73-0.91) */
static DX_S2(dx_s2_256_4x2, 4, 2)
static void dx_flat256(const float *dyp, const float *w2, int C, int Cp, int K, int L, int Wp, int npos, const flat_blk *blk,
                       float *dxn, int HW) {
    for (int t = 0, c0 = 0; c0 < C; t++) {
        int mr = split_rows(C, t);
        const float *w = w2 + c0; /* channel c0's weights (w2 is [tap][k][Cp]) */
        float *d = dxn + (size_t)c0 * HW;
        if (mr == 6) dx_flat256_6x2(dyp, w, 6, Cp, K, L, Wp, npos, blk, d, HW);
        else if (mr == 5) dx_flat256_5x2(dyp, w, 5, Cp, K, L, Wp, npos, blk, d, HW);
        else dx_flat256_4x2(dyp, w, mr, Cp, K, L, Wp, npos, blk, d, HW);
        c0 += mr;
    }
}

/* The channel padding of the direct kernels' weight layout: a multiple of every MR above. */
static int dx_cp(int C) { return USE_AVX512 ? (C + 15) / 16 * 16 : (C + 7) / 8 * 8; }

/* The input gradient of a 3x3 stride-1 pad-1 convolution without the dcol matrix and col2im
 * (DX_ROW, DX_FLAT in tiles.h): each dx element sums, over the taps (ky, kx) ascending whose
 * output pixel exists, t = sum over k ascending of w dy, from +0: the reference's order. Taps
 * outside the image read zero padding and add t = +0, an exact no-op only for finite weights,
 * so the caller takes this path only when every weight is finite. j->wt holds the weights as
 * [tap][k][dx_cp(C)]. Rows whose width is a multiple of the vector width go row by row; other
 * widths (8 x 8, 7 x 7, 14 x 14, 28 x 28 images) would leave lanes idle in every row, so there
 * the sums run over flat positions of a padded grid. With AVX2 and C a multiple of 16, every
 * width goes by channel vectors over tiles of pixels on that grid instead (DX_PVEC). Stride 2
 * (C a multiple of 16, even H and W) goes by phases of the input grid (bwd_data_s2). */
static int dx_direct_ok(const flce_conv_shape *s, const float *w) {
    if (s->R != 3 || s->pad != 1) return 0;
    if (s->stride != 1 && !(s->stride == 2 && s->C % 16 == 0 && s->H % 2 == 0 && s->W % 2 == 0)) return 0;
    return !any_nonfinite(w, (size_t)s->K * s->C * 9);
}

static void bwd_data_direct(void *arg, int part, int parts) {
    conv_job *j = arg;
    int mine = 0; /* take_sample */
    const flce_conv_shape *s = j->s;
    int K = s->K, OH = s->OH, OW = s->OW, C = s->C, Cp = dx_cp(C), vw = USE_AVX512 ? 16 : 8;
    int pvec = !USE_AVX512 && C % 16 == 0 && Cp == C; /* AVX2: channel vectors over positions at every width
                                                          (w2's rows and out's both Cp = C long) */
    if (s->W % vw || pvec) {
        int Wp = s->W + 1; /* one zero column (fwd_flat) */
        int npos = (s->H * Wp + 15) / 16 * 16, L = (npos + 2 * Wp + 2 + 15) / 16 * 16; /* whole tiles of 16 positions */
        float *dyp = scratch_get(&j->ctx->a[part], (size_t)K * L + (size_t)(C * npos > Cp * s->H * s->W ? C * npos : Cp * s->H * s->W));
        if (!dyp) return;
        float *out = dyp + (size_t)K * L;
        flat_blk *blk = malloc(sizeof(flat_blk) * (size_t)(npos / vw));
        const float **pos = pvec ? malloc(sizeof(float *) * (size_t)s->H * s->W) : NULL; /* dx_pvec256's pixels */
        if (!blk || (pvec && !pos)) {
            free(blk), free(pos);
            return;
        }
        if (pvec)
            for (int p = 0; p < s->H * s->W; p++) pos[p] = dyp + (size_t)(p / s->W) * Wp + p % s->W;
        flat_blocks(npos, vw, Wp, s->W, s->H, blk);
        memset(dyp, 0, sizeof(float) * (size_t)K * L);
        for (int n; (n = take_sample(j, part, parts, &mine)) < s->N;) {
            const float *dyn = j->dy + (size_t)n * K * OH * OW;
            for (int k = 0; k < K; k++)
                for (int oy = 0; oy < OH; oy++)
                    copy_row(dyp + (size_t)k * L + (size_t)(oy + 1) * Wp + 1, dyn + ((size_t)k * OH + oy) * OW, OW, 1);
            float *dxn = j->dx + (size_t)n * C * s->H * s->W;
            if (USE_AVX512 && s->W < 16 && C % 32 == 0 && (C >= 64 || s->W % 7 == 0)) {
                /* channel vectors (tiles.h DX_CVEC): out holds dx transposed, [H W][Cp]; also for 32
                 * channels where the rows are 7 or 14 wide (no idle position in a 7-row tile: 9-12%
                 * faster than the flat positions at 14x14, docs/performance.md) */
                int HW = s->H * s->W;
                (s->W % 7 ? (USE_NARROW ? flce_dx_cvec512n : flce_dx_cvec512)
                 : C % 64 == 0 ? (USE_NARROW ? flce_dx_cvec512_7n : flce_dx_cvec512_7x4)
                 : s->W == 14 ? (USE_NARROW ? flce_dx_cvec512_14n : flce_dx_cvec512_14) /* a row a tile, 14 x 32: 4% faster than 7 x 32 */
                              : flce_dx_cvec512_7)(dyp, j->wt, C, Cp, K, L, Wp, s->H, s->W, out);
                transpose_sample(out, HW, C, dxn); /* Cp = C here (C a multiple of 32) */
                continue;
            }
            if (pvec) {
                /* AVX2, channel vectors (DX_PVEC): tiles of up to 6 pixels (split_rows: none idle) x 16
                 * channels into out [H W][C], transposed into dx. Against the flat positions (28x28,
                 * 14x14, 7x7) and the rows (32x32, 16x16, 8x8), tools/op_ab.c conv_bwd_data with
                 * FLCE_CPU_ISA=avx2 on a Zen 4 (2026-12-03), new over old, means of 40-60
                 * alternating calls: 16 channels 28x28 0.927, 0.928, 0.910, 0.955; 32 14x14 0.817,
                 * 0.803; 64 7x7 0.845, 0.830; 16 32x32 0.966, 0.889; 32 16x16 0.922, 0.933; 64 8x8
                 * 0.948, 0.926. The pixels' broadcasts from one address register stepped once a
                 * term, an index register each (DX_PVEC), over six pointers each stepped (6 more
                 * integer adds in a 37-instruction loop), same machine, 2026-12-03, the study stopped,
                 * two runs of 60 alternating calls: 16 32x32 0.950, 0.934; 16 28x28 0.946, 0.956;
                 * 32 16x16 0.932, 0.925; 32 14x14 0.969, 0.953; 64 8x8 0.971, 0.944; 64 7x7 0.916,
                 * 0.960. */
                int HW = s->H * s->W;
                for (int c0 = 0; c0 < C; c0 += 16)
                    for (int t = 0, p0 = 0, mr; p0 < HW; p0 += mr, t++) {
                        mr = split_rows(HW, t);
                        dx_pvec256(mr, pos + p0, j->wt, Cp, K, L, Wp, c0, out + (size_t)p0 * Cp);
                    }
                transpose_sample(out, HW, C, dxn);
                continue;
            }
            if (USE_AVX512) flce_dx_flat512(dyp, j->wt, C, Cp, K, L, Wp, npos, blk, dxn, s->H * s->W);
            else dx_flat256(dyp, j->wt, C, Cp, K, L, Wp, npos, blk, dxn, s->H * s->W);
        }
        free(blk), free(pos);
        return;
    }
    int Wd = s->W + 18;
    float *dyp = scratch_get(&j->ctx->a[part], (size_t)K * OH * Wd);
    if (!dyp) return;
    memset(dyp, 0, sizeof(float) * (size_t)K * OH * Wd);
    for (int n; (n = take_sample(j, part, parts, &mine)) < s->N;) {
        const float *dyn = j->dy + (size_t)n * K * OH * OW;
        for (int k = 0; k < K; k++)
            for (int oy = 0; oy < OH; oy++)
                copy_row(dyp + ((size_t)k * OH + oy) * Wd + 1, dyn + ((size_t)k * OH + oy) * OW, OW, 0);
        float *dxn = j->dx + (size_t)n * C * s->H * s->W;
        for (int iy = 0; iy < s->H; iy++) {
            if (USE_AVX512 && s->W % 32 == 0 && !USE_NARROW) flce_dx_row512x2(dyp, j->wt, C, Cp, K, OH, s->W, Wd, iy, dxn);
            else if (USE_AVX512) flce_dx_row512(dyp, j->wt, C, Cp, K, OH, s->W, Wd, iy, dxn);
            else dx_row256(dyp, j->wt, C, Cp, K, OH, s->W, Wd, iy, dxn);
        }
    }
}

/* Stride 2 (C a multiple of 16, even H and W; DX_S2 in tiles.h, AVX2 4 x 16 tiles): per sample, dy copied
 * into dyq (one zero row and column after each channel's last), then each of the four phases
 * of the input grid, (2a + py, 2b + px), by channel vectors into outT, transposed into a plane
 * per phase; the planes are then interleaved into dx. Before: the dcol GEMM (a reduction of
 * only K terms per tile) and a strided col2im. */
static void bwd_data_s2(void *arg, int part, int parts) {
    conv_job *j = arg;
    int mine = 0; /* take_sample */
    const flce_conv_shape *s = j->s;
    int K = s->K, OH = s->OH, OW = s->OW, C = s->C, H = s->H, W = s->W, Wq = OW + 1, P = OH * OW;
    int L = ((OH + 1) * Wq + 16 + 15) / 16 * 16;
    float *dyq = scratch_get(&j->ctx->a[part], (size_t)K * L + 5 * (size_t)C * P);
    if (!dyq) return;
    float *pl = dyq + (size_t)K * L, *outT = pl + 4 * (size_t)C * P;
    dx_s2_fn *f = OW % 8 && OW % 7 == 0 ? (C % 32 ? flce_dx_s2_512_7x1 : flce_dx_s2_512_7x2)
                                        : (C % 32 ? flce_dx_s2_512_8x1 : flce_dx_s2_512_8x2);
    if (!USE_AVX512) f = dx_s2_256_4x2;
    if (USE_NARROW) /* one vector a tile, as many positions as a row has (up to 16) */
        f = OW % 14 == 0 ? flce_dx_s2_512_14x1 : OW % 16 == 0 ? flce_dx_s2_512_16x1 : OW % 8 && OW % 7 == 0 ? flce_dx_s2_512_7x1 : flce_dx_s2_512_8x1;
    memset(dyq, 0, sizeof(float) * (size_t)K * L);
    for (int n; (n = take_sample(j, part, parts, &mine)) < s->N;) {
        const float *dyn = j->dy + (size_t)n * K * P;
        for (int k = 0; k < K; k++)
            for (int oy = 0; oy < OH; oy++)
                copy_row(dyq + (size_t)k * L + (size_t)oy * Wq, dyn + ((size_t)k * OH + oy) * OW, OW, 1);
        for (int ph = 0; ph < 4; ph++) {
            f(dyq, j->wt, C, C, K, L, Wq, OH, OW, ph >> 1, ph & 1, outT);
            transpose_sample(outT, P, C, pl + (size_t)ph * C * P); /* plane [c][a OW + b] */
        }
        float *dxn = j->dx + (size_t)n * C * H * W;
        for (int c = 0; c < C; c++)
            for (int iy = 0; iy < H; iy++) { /* row iy: phases (iy mod 2, 0) and (iy mod 2, 1) alternate */
                const float *e = pl + ((size_t)(2 * (iy & 1)) * C + c) * P + (size_t)(iy >> 1) * OW;
                const float *o = e + (size_t)C * P;
                float *d = dxn + ((size_t)c * H + iy) * W;
                for (int b = 0; b < OW; b += 8) { /* a row's last block masked (in ResNet20 OW is 7 or 14 here; 12% off
                                                     * the 16 -> 32 input gradient, 6-8% off 32 -> 64, against
                                                     * a scalar loop for it: twenty-fifth session) */
                    int r = OW - b < 8 ? OW - b : 8;
                    v8i m = lanes_below(r);
                    __m256 ev = (__m256)(r == 8 ? ld(e + b) : mload(e + b, m)), ov = (__m256)(r == 8 ? ld(o + b) : mload(o + b, m));
                    __m256 lo = _mm256_unpacklo_ps(ev, ov), hi = _mm256_unpackhi_ps(ev, ov);
                    store_pair(d + 2 * b, 2 * r, (v8)_mm256_permute2f128_ps(lo, hi, 0x20), (v8)_mm256_permute2f128_ps(lo, hi, 0x31));
                }
            }
    }
}

/* col2im of a 1x1 stride-2 convolution without padding (the shortcut's projection): each dx
 * element gets at most one term, so each is written once: +0 + dcol (as col2im's sum from +0:
 * -0 becomes +0) at even rows and columns, +0 elsewhere; no zeroing pass, no read of dx (against
 * the generic col2im, tools/op_ab.c: the op's time 0.83-0.85 at 16 -> 32 channels, 28x28, and
 * 0.90 at 32 -> 64, 14x14; twenty-fifth session). */
static void col2im_1x1s2(const flce_conv_shape *s, const float *dcol, float *dxn) {
    int W = s->W, OW = s->OW;
    v8 z = bc(0.0f);
    for (int c = 0; c < s->C; c++)
        for (int iy = 0; iy < s->H; iy++) {
            float *d = dxn + ((size_t)c * s->H + iy) * W;
            if (iy & 1) {
                memset(d, 0, sizeof(float) * (size_t)W);
                continue;
            }
            const float *r = dcol + ((size_t)c * s->OH + iy / 2) * OW;
            for (int ox = 0; ox < OW; ox += 8) {
                int n = OW - ox < 8 ? OW - ox : 8, w = W - 2 * ox < 16 ? W - 2 * ox : 16; /* this block's floats of d */
                v8 v = z + (n == 8 ? ld(r + ox) : mload(r + ox, lanes_below(n)));
                store_pair(d + 2 * ox, w, __builtin_shufflevector(v, z, 0, 8, 1, 9, 2, 10, 3, 11),
                           __builtin_shufflevector(v, z, 4, 12, 5, 13, 6, 14, 7, 15));
            }
        }
}

static void bwd_data_worker(void *arg, int part, int parts) {
    conv_job *j = arg;
    int mine = 0; /* take_sample */
    const flce_conv_shape *s = j->s;
    int Q = s->C * s->R * s->R, P = s->OH * s->OW, R = s->R;
    float *dcol = scratch_get(&j->ctx->a[part], (size_t)Q * P);
    if (!dcol) return;
    for (int n; (n = take_sample(j, part, parts, &mine)) < s->N;) {
        gemm(Q, 0, P, s->K, j->wt, s->K, j->dy + (size_t)n * s->K * P, P, dcol, P);
        float *dxn = j->dx + (size_t)n * s->C * s->H * s->W;
        if (R == 1 && s->stride == 2 && s->pad == 0) {
            col2im_1x1s2(s, dcol, dxn);
            continue;
        }
        memset(dxn, 0, sizeof(float) * (size_t)s->C * s->H * s->W);
        for (int c = 0; c < s->C; c++) /* col2im: each pixel gets its terms in (ky, kx) order */
            for (int ky = 0; ky < R; ky++)
                for (int kx = 0; kx < R; kx++) {
                    const float *row = dcol + (size_t)((c * R + ky) * R + kx) * P;
                    int lo = 0, hi = s->OW, st = s->stride;
                    while (lo < s->OW && lo * st + kx - s->pad < 0) lo++;
                    while (hi > lo && (hi - 1) * st + kx - s->pad >= s->W) hi--;
                    for (int oy = 0; oy < s->OH; oy++) {
                        int iy = oy * st + ky - s->pad;
                        if (iy < 0 || iy >= s->H) continue;
                        float *dr = dxn + ((size_t)c * s->H + iy) * s->W + kx - s->pad;
                        const float *rr = row + oy * s->OW;
                        if (st == 1) {
                            int ox = lo;
                            for (; ox + 8 <= hi; ox += 8) stv(dr + ox, ld(dr + ox) + ld(rr + ox));
                            for (; ox < hi; ox++) dr[ox] = dr[ox] + rr[ox];
                        } else if (st == 2) {
                            /* eight terms into the even lanes of two vectors (a blend keeps the
                             * others, -0 included); a vector never reaches past this row's end */
                            int ox = lo, room = s->W - (kx - s->pad);
                            for (; ox + 8 <= hi && 2 * ox + 16 <= room; ox += 8) {
                                v8 r = ld(rr + ox), a = ld(dr + 2 * ox), b = ld(dr + 2 * ox + 8);
                                v8 rl = __builtin_shufflevector(r, r, 0, 0, 1, 1, 2, 2, 3, 3);
                                v8 rh = __builtin_shufflevector(r, r, 4, 4, 5, 5, 6, 6, 7, 7);
                                stv(dr + 2 * ox, (v8)_mm256_blend_ps((__m256)a, (__m256)(a + rl), 0x55));
                                stv(dr + 2 * ox + 8, (v8)_mm256_blend_ps((__m256)b, (__m256)(b + rh), 0x55));
                            }
                            for (; ox < hi; ox++) dr[ox * st] = dr[ox * st] + rr[ox];
                        } else {
                            for (int ox = lo; ox < hi; ox++) dr[ox * st] = dr[ox * st] + rr[ox];
                        }
                    }
                }
    }
}

/* dyT_n[p][k] = dy_n[k][p] for every sample (parts split the samples). */
static void transpose_part(void *arg, int part, int parts) {
    conv_job *j = arg;
    const flce_conv_shape *s = j->s;
    int P = s->OH * s->OW, K = s->K;
    for (int n = part; n < s->N; n += parts) {
        transpose_sample(j->dy + (size_t)n * K * P, K, P, j->wt + (size_t)n * K * P);
        if (j->tap && any_nonfinite(j->wt + (size_t)n * K * P, (size_t)K * P)) j->bad[part] = 1;
    }
}

static void pad_rows(const flce_conv_shape *s, const float *xn, float *xp, int first, int Wp) {
    int Hp = s->H + 2 * s->pad, W = s->W;
    if (s->pad && first) memset(xp, 0, sizeof(float) * (size_t)s->C * Hp * Wp);
    for (int c = 0; c < s->C; c++)
        for (int y = 0; y < s->H; y++)
            copy_row(xp + ((size_t)c * Hp + y + s->pad) * Wp + s->pad, xn + ((size_t)c * s->H + y) * W, W, Wp - W - s->pad);
}

/* 1 when one of the n floats at a is infinite or NaN. */
static int any_nonfinite(const float *a, size_t n) {
    v8i m = {0}, e = (v8i){0, 0, 0, 0, 0, 0, 0, 0} + 0x7f800000;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        v8i u;
        memcpy(&u, a + i, sizeof u);
        m |= (u & e) == e;
    }
    for (int l = 0; l < 8; l++)
        if (m[l]) return 1;
    for (; i < n; i++) {
        uint32_t u;
        memcpy(&u, a + i, 4);
        if ((u & 0x7f800000u) == 0x7f800000u) return 1;
    }
    return 0;
}

/* The weight gradient without the padded copy (AVX-512, C a multiple of 8 and K of 16; AVX2 on
 * small images, below): the rows q = c R R + tap go in tiles of channels sharing one tap (tile t:
 * the channels of group t / R R (wg_group: eight with AVX-512), tap t mod R R), so that all their terms land inside the image at the same output positions,
 * and only those positions are summed, ascending, reading x in place: the positions left out
 * would read the zero padding and add 0 dy = +0 to a sum that is never -0, which changes
 * nothing while dy is finite (the caller checks dy and otherwise runs wgrad_part). Each
 * sample's sum, and the order in which samples are added, are those of wgrad_part.
 * tap_lists gives, per tap, the positions inside (the offset into a plane of x and into the
 * sample's dyT) and their count. */
/* AVX2 (tiles of split_rows's groups of channels, 4 to 6 where C >= 4, x 16 output channels,
 * tile_6x16_idx): only the 3x3 stride-1 layers of at most 64 output positions (7x7 and 8x8 in
 * ResNet20), where the padding is 16-18% of the padded sums' terms; elsewhere a
 * term's two index loads cost more than the padding saves. tools/op_ab.c conv_bwd_weight with
 * FLCE_CPU_ISA=avx2 on a Zen 4 (2026-12-03), tap tiles over the padded sums (means of 40-60
 * alternating calls): 64 channels 7x7 0.894, 0.944, 0.865, 0.831; 8x8 0.912, 0.954, 0.908,
 * 0.966; but 16 channels 28x28 1.094, 1.144, 32x32 1.127, 1.144; 32 channels 14x14 1.138,
 * 1.116, 16x16 1.145, 1.165; stride 2 to 7x7 1.080, 0.945 and to 8x8 1.119, 1.113. */
static int wgrad_tap_ok(const flce_conv_shape *s) {
    if (!USE_AVX512) return s->R == 3 && s->stride == 1 && s->pad == 1 && s->OH * s->OW <= 64 && s->K % 16 == 0;
    return s->R <= 3 && s->C % 8 == 0 && s->K % 16 == 0;
}
/* The tiles' groups of channels sharing a tap: 8 with AVX-512; with AVX2 split_rows's (16 = 6 + 5
 * + 5; fewer than 4 channels one group), channel c0 on. */
static int wg_groups(const flce_conv_shape *s) { return USE_AVX512 ? s->C / 8 : (s->C + 5) / 6; }
static int wg_group(const flce_conv_shape *s, int g, int *c0) {
    if (USE_AVX512) return *c0 = 8 * g, 8;
    *c0 = 0;
    for (int i = 0; i < g; i++) *c0 += split_rows(s->C, i);
    return split_rows(s->C, g);
}
/* ... of which 16 output channels, 3x3 stride 1 pad 1: by input position (flce_wgrad512_xc) */
void flce_wgrad512_xc(const float *xa, int HW, int H, int W, const float *dyT, float *C, int acc);
static int wgrad_xc(const flce_conv_shape *s) {
    /* not with the one-vector tiles (flce_cpu_narrow): the tap tiles instead (wgrad_tap), whose
     * broadcasts fold into the multiplies: on a Zen 4 14-15% faster at 28x28 (sample pairs) and
     * 6% at 32x32 (one sample a tile) */
    if (!USE_AVX512 || USE_NARROW) return 0;
    return s->K == 16 && s->R == 3 && s->stride == 1 && s->pad == 1 && s->H >= 2 && s->W >= 2 && s->C % 2 == 0;
}

static void tap_lists(const flce_conv_shape *s, int *xoff, int *boff, int *cnt) {
    int P = s->OH * s->OW, R = s->R;
    for (int tap = 0; tap < R * R; tap++) {
        int n = 0, ky = tap / R, kx = tap % R;
        for (int oy = 0; oy < s->OH; oy++) {
            int iy = oy * s->stride + ky - s->pad;
            if (iy < 0 || iy >= s->H) continue;
            for (int ox = 0; ox < s->OW; ox++) {
                int ix = ox * s->stride + kx - s->pad;
                if (ix < 0 || ix >= s->W) continue;
                xoff[tap * P + n] = iy * s->W + ix;
                boff[tap * P + n] = (oy * s->OW + ox) * s->K;
                n++;
            }
        }
        cnt[tap] = n;
    }
}

/* The samples a weight-gradient part computes next, want (1 or 2) at a time: [*n, *n + the
 * count returned), 0 when none is left; *mine counts what the part has taken (from 0). Static
 * (j->ends 0): the range [n0, n1) in order. Two-ended (j->ends, two parts): the parts draw
 * tickets from one counter, part 0 taking its samples from the front (0, 1, ...: added in order
 * into its sum) and part 1 from the back (N - 1, N - 2, ...: each sample's sum kept for
 * bwd_weight_merge), so the momentarily faster core takes more and the two ranges meet wherever
 * the tickets run out; part 0's count is left in j->front. Which part computes a sample, and
 * where the ranges meet, change no bit: every sample's sum is its own and the merge adds them
 * in sample order. */
static int wgrad_take(conv_job *j, int part, int n0, int n1, int want, int *mine, int *n) {
    int got;
    if (!j->ends) {
        *n = n0 + *mine;
        got = n1 - *n < want ? n1 - *n : want;
    } else {
        int N = j->s->N, t = atomic_fetch_add_explicit(&j->next, want, memory_order_relaxed);
        got = t >= N ? 0 : N - t < want ? N - t : want;
        *n = part == 0 ? *mine : N - *mine - got;
    }
    if (got <= 0) return 0;
    *mine += got;
    if (j->ends && part == 0) j->front = *mine;
    return got;
}

/* The tiles' acc for sample n of a weight gradient: with a sum over the samples (sum non-NULL),
 * 1 (C + t) after the first and 2 (+0 + t, the reference's acc = 0 + t_0) for the first, which in
 * the ftz mode differs from t_0 itself where t_0 is -0 (docs/bit-exact.md); 0 (t) for a sample's
 * own sums, which bwd_weight_merge adds from +0. */
static int first_acc(const float *sum, int n) { return sum ? (n > 0 ? 1 : 2) : 0; }

/* The tiles [t0, t1) over the samples [n0, n1) (or those wgrad_take gives), into acc (the
 * samples added in order, acc = +0 + t_0 for sample 0) or, without, each sample's sums at own + n Q K;
 * dWT rows q at q K. dyT as in wgrad_part; j->bad[part] set when a transposed dy holds a value
 * that is not finite. */
static void wgrad_tap(conv_job *j, int part, int t0, int t1, int n0, int n1, float *acc, float *own) {
    const flce_conv_shape *s = j->s;
    int P = s->OH * s->OW, K = s->K, RR = s->R * s->R, Q = s->C * RR, HW = s->H * s->W, cnt[9] = {0};
    size_t ps = (size_t)P * K, m = (size_t)Q * K, xs = (size_t)s->C * HW;
    float *dyT = j->wt ? NULL : scratch_get(&j->ctx->a[part], 2 * ps);
    int *xoff = malloc(sizeof(int) * (size_t)RR * P * 2);
    if ((!j->wt && !dyT) || !xoff || RR > 9) {
        free(xoff);
        return;
    }
    int *boff = xoff + (size_t)RR * P;
    int xc = wgrad_xc(s) && t0 == 0 && t1 == s->C / 8 * RR; /* every tile: by input position */
    if (!xc) tap_lists(s, xoff, boff, cnt);
    /* two samples per tile where the output channels are one vector, or with the one-vector tiles
     * (flce_cpu_narrow: two chains of 8 rows, each broadcast folding into its multiply) unless a
     * channel plane is a multiple of 4 KiB: the 16 input rows of a pair then share L1 sets (2x
     * slower than the wide tiles at 32x32 on a Zen 4, one sample a tile 0.81-0.94 of their time) */
    int pairs = USE_AVX512 && (USE_NARROW ? HW % 1024 != 0 : K == 16) && !xc;
    for (int n, mine = 0, got; (got = wgrad_take(j, part, n0, n1, pairs ? 2 : 1, &mine, &n)) > 0;) {
        int two = got == 2;
        const float *xn = j->x + (size_t)n * xs, *d = dyT;
        if (j->wt) d = j->wt + (size_t)n * ps;
        else {
            transpose_sample(j->dy + (size_t)n * ps, K, P, dyT);
            if (two) transpose_sample(j->dy + (size_t)(n + 1) * ps, K, P, dyT + ps);
            if (any_nonfinite(dyT, (1 + (size_t)two) * ps)) j->bad[part] = 1;
        }
        float *d0 = acc ? acc : own + (size_t)n * m, *d1 = acc ? NULL : d0 + m;
        if (xc) { /* rows q = c 9 + tap: channel pairs, 18 rows each */
            for (int c = 0; c < s->C; c += 2)
                flce_wgrad512_xc(xn + (size_t)c * HW, HW, s->H, s->W, d, d0 + (size_t)c * 9 * K, first_acc(acc, n));
            continue;
        }
        for (int t = t0; t < t1; t++) {
            int c0, mr = wg_group(s, t / RR, &c0), tap = t % RR;
            if (mr < 1 || mr > 8) continue; /* never (split_rows gives 1 to 6) */
            const float *arow[8];
            for (int i = 0; i < mr; i++) arow[i] = xn + (size_t)(c0 + i) * HW;
            size_t q0 = (size_t)c0 * RR + tap;
            const int *xo = xoff + (size_t)tap * P, *bo = boff + (size_t)tap * P;
            if (!USE_AVX512)
                for (int k0 = 0; k0 < K; k0 += 16)
                    tile_6x16_idx(mr, cnt[tap], arow, xo, bo, d + k0, d0 + q0 * K + k0, RR * K, first_acc(acc, n));
            else if (two)
                flce_wgrad512_idx2(8, cnt[tap], arow, xo, bo, (ptrdiff_t)xs, d, d + ps, K, d0 + q0 * K,
                                   d1 ? d1 + q0 * K : NULL, RR * K, n == 0);
            else
                flce_wgrad512_idx(8, cnt[tap], arow, xo, bo, d, K, d0 + q0 * K, RR * K, first_acc(acc, n));
        }
    }
    free(xoff);
}

/* Weight gradient, computed transposed: dWT[q][k] = sum over n of (sum over p of
 * col_n[q][p] dyT_n[p][k]), both ascending (the reference's order for dW[k][q]). No im2col:
 * col_n[q][p] = xp[off[q] + poff[p]] on the padded sample, with off[q] = (c (H+2 pad) + ky)
 * (W+2 pad) + kx and poff[p] = oy s (W+2 pad) + ox s. wgrad_part runs the rows q in [q0, q1)
 * over the samples [n0, n1) (or those wgrad_take gives): with acc, adding each sample's sum to
 * acc in sample order (acc = +0 + t_0 for sample 0); without, storing t_n at own + n (q1 - q0) K. dyT
 * comes from j->wt (the whole batch, transposed before) or, when that is NULL, is transposed
 * here sample by sample. */
static void wgrad_part(conv_job *j, int part, int q0, int q1, int n0, int n1, float *acc, float *own) {
    const flce_conv_shape *s = j->s;
    int P = s->OH * s->OW, K = s->K, R = s->R, nq = q1 - q0;
    int Hp = s->H + 2 * s->pad, Wp = s->W + 2 * s->pad;
    size_t xs = (size_t)s->C * Hp * Wp, m = (size_t)nq * K, ps = (size_t)P * K;
    float *xp = scratch_get(&j->ctx->a[part], 2 * xs + (j->wt ? 0 : 2 * ps)); /* two padded samples, two dyT */
    int *poff = malloc(sizeof(int) * (size_t)P);
    const float **arow = malloc(sizeof(float *) * (size_t)nq);
    if (!xp || !poff || !arow) {
        free(poff), free(arow);
        return;
    }
    float *dyT = xp + 2 * xs;
    for (int p = 0; p < P; p++) poff[p] = (p / s->OW) * s->stride * Wp + (p % s->OW) * s->stride;
    for (int q = q0; q < q1; q++) arow[q - q0] = xp + ((size_t)(q / (R * R)) * Hp + q / R % R) * Wp + q % R;
    int pairs = USE_AVX512 && K == 16; /* one vector of output channels: two samples per tile */
    for (int n, mine = 0, got; (got = wgrad_take(j, part, n0, n1, pairs ? 2 : 1, &mine, &n)) > 0;) {
        int two = got == 2, first = mine == got; /* this part's first samples: pad the borders */
        const float *xn = j->x + (size_t)n * s->C * s->H * s->W, *d = dyT;
        if (j->wt) d = j->wt + (size_t)n * ps;
        else {
            transpose_sample(j->dy + (size_t)n * ps, K, P, dyT);
            if (two) transpose_sample(j->dy + (size_t)(n + 1) * ps, K, P, dyT + ps);
        }
        float *d0 = acc ? acc : own + (size_t)n * m, *d1 = acc ? NULL : d0 + m;
        pad_sample(s, xn, xp, first);
        if (two) {
            pad_sample(s, xn + (size_t)s->C * s->H * s->W, xp + xs, first);
            flce_gemm512_rows2(nq, P, arow, poff, (ptrdiff_t)xs, d, d + ps, K, d0, d1, K, n == 0);
        } else {
            gemm_rows(nq, K, P, arow, poff, d, K, d0, K, first_acc(acc, n));
        }
    }
    free(poff), free(arow);
}

/* The row split: this part owns the rows q in [q0, q1) (a multiple of 6 each, so tiles stay
 * whole) for every sample; j->wt holds dyT of every sample. */
static void bwd_weight_worker(void *arg, int part, int parts) {
    conv_job *j = arg;
    const flce_conv_shape *s = j->s;
    int Q = s->C * s->R * s->R, K = s->K;
    if (j->tap) { /* this part's tap tiles, into a dWT of every row (only its own are written) */
        int RR = s->R * s->R, T = wg_groups(s) * RR, per = (T + parts - 1) / parts;
        int t0 = part * per, t1 = t0 + per > T ? T : t0 + per;
        float *acc = scratch_get(&j->ctx->b[part], (size_t)Q * K);
        if (t0 >= t1 || !acc) return;
        wgrad_tap(j, part, t0, t1, 0, s->N, acc, NULL);
        for (int t = t0; t < t1; t++)
            for (int c0, mr = wg_group(s, t / RR, &c0), i = 0; i < mr; i++) {
                int q = (c0 + i) * RR + t % RR;
                for (int k = 0; k < K; k++) j->dw[(size_t)k * Q + q] = acc[(size_t)q * K + k];
            }
        return;
    }
    int per = (Q + 6 * parts - 1) / (6 * parts) * 6;
    int q0 = part * per, q1 = q0 + per > Q ? Q : q0 + per;
    if (q0 >= q1) return;
    float *acc = scratch_get(&j->ctx->b[part], (size_t)(q1 - q0) * K); /* dWT rows q0..q1 */
    if (!acc) return;
    wgrad_part(j, part, q0, q1, 0, s->N, acc, NULL);
    for (int q = 0; q < q1 - q0; q++)
        for (int k = 0; k < K; k++) j->dw[(size_t)k * Q + q0 + q] = acc[(size_t)q * K + k];
}

/* dst[c][r] = src[r][c] for an 8 x 8 block (rows ls and ld floats apart): three rounds of
 * shuffles (pairs of columns, quads, halves); exact copies. (rows lt floats apart in dst) */
static inline void transpose8(const float *src, size_t ls, float *dst, size_t lt) {
    v8 r[8], t[8];
    for (int i = 0; i < 8; i++) r[i] = ld(src + i * ls);
    for (int i = 0; i < 8; i += 2) {
        t[i] = __builtin_shufflevector(r[i], r[i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
        t[i + 1] = __builtin_shufflevector(r[i], r[i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
    }
    for (int i = 0; i < 8; i += 4)
        for (int h = 0; h < 2; h++) {
            r[i + h] = __builtin_shufflevector(t[i + h], t[i + h + 2], 0, 1, 8, 9, 4, 5, 12, 13);
            r[i + h + 2] = __builtin_shufflevector(t[i + h], t[i + h + 2], 2, 3, 10, 11, 6, 7, 14, 15);
        }
    static const int col[4] = {0, 2, 1, 3}; /* r[col[c]] holds columns c and c + 4 of rows 0..3 */
    for (int c = 0; c < 4; c++) {
        int i = col[c];
        stv(dst + c * lt, __builtin_shufflevector(r[i], r[i + 4], 0, 1, 2, 3, 8, 9, 10, 11));
        stv(dst + (c + 4) * lt, __builtin_shufflevector(r[i], r[i + 4], 4, 5, 6, 7, 12, 13, 14, 15));
    }
}

/* dst [P][K] = src [K][P], in 8 x 8 blocks: a sample's dy (dyT), or a layer's weights [K][Q] into
 * wT [q][k] (on the calling thread before each convolution: the scalar loop it replaced wrote
 * every weight to another cache line, and the worker waited; the gaps between the pool's tasks
 * 1.46 -> 0.87 ms a step, docs/performance.md, twenty-fifth session). */
static void transpose_sample(const float *src, int K, int P, float *dst) {
    for (int p0 = 0; p0 < P; p0 += 8)
        for (int k0 = 0; k0 < K; k0 += 8) {
            if (p0 + 8 <= P && k0 + 8 <= K) {
                transpose8(src + (size_t)k0 * P + p0, (size_t)P, dst + (size_t)p0 * K + k0, (size_t)K);
                continue;
            }
            for (int p = p0; p < p0 + 8 && p < P; p++)
                for (int k = k0; k < k0 + 8 && k < K; k++) dst[(size_t)p * K + k] = src[(size_t)k * P + p];
        }
}

/* The weight gradient split by samples instead of rows, for layers whose dWT is small: with two
 * parts, the two ends of the batch (wgrad_take); with more, part r takes the samples [N r /
 * parts, N (r + 1) / parts). Every row q, transposing each sample's dy just before its tiles
 * (cache-warm, no dyT of the whole batch) and padding only its own samples. Part 0 adds its
 * samples' sums t_n (0, 1, ...) to j->dw_acc in sample order; the other parts keep each t_n in
 * j->dw_t (slot n), which bwd_weight_merge then adds in sample order: the order of the row split,
 * the same bits. */
static void bwd_weight_split(void *arg, int part, int parts) {
    conv_job *j = arg;
    const flce_conv_shape *s = j->s;
    int Q = s->C * s->R * s->R, n0 = s->N * part / parts, n1 = s->N * (part + 1) / parts;
    float *own = part == 0 ? NULL : j->dw_t;
    if (j->tap) wgrad_tap(j, part, 0, wg_groups(s) * s->R * s->R, n0, n1, part == 0 ? j->dw_acc : NULL, own);
    else wgrad_part(j, part, 0, Q, n0, n1, part == 0 ? j->dw_acc : NULL, own);
}

/* dw_acc += dw_t[f], dw_acc += dw_t[f + 1], ... (the samples after part 0's f, in order; dw_acc =
 * dw_t[0] when part 0 took none), then dW[k][q] = dw_acc[q][k]; parts split the elements. */
static void bwd_weight_merge(void *arg, int part, int parts) {
    conv_job *j = arg;
    const flce_conv_shape *s = j->s;
    int Q = s->C * s->R * s->R, K = s->K, f = j->ends ? j->front : s->N / j->parts;
    size_t m = (size_t)Q * K, lo = m * (size_t)part / (size_t)parts, hi = m * (size_t)(part + 1) / (size_t)parts;
    float *acc = j->dw_acc;
    for (int n = f; n < s->N; n++) {
        const float *a = j->dw_t + (size_t)n * m;
        for (size_t i = lo; i < hi; i++) acc[i] = (n == 0 ? 0.0f : acc[i]) + a[i]; /* from +0, as the reference */
    }
    for (size_t i = lo; i < hi; i++) j->dw[(i % (size_t)K) * (size_t)Q + i / (size_t)K] = acc[i];
}

static int any_set(const int *f, int n) {
    for (int i = 0; i < n; i++)
        if (f[i]) return 1;
    return 0;
}


static void conv_fwd(flce_backend *be, const flce_conv_shape *s, const flce_buf *x, const flce_buf *w, flce_buf *y,
                     const conv_epi *epi) {
    conv_job j = {.s = s, .x = HB_CF(x), .w = HB_CF(w), .y = HB_F(y), .epi = epi, .ctx = ctx_of(be)};
    int *lists = NULL;
    if (k1s2_ok(s)) { /* wT [c][k] */
        float *wt = scratch_get(&ctx_of(be)->wt, (size_t)s->C * s->K);
        if (!wt) return;
        transpose_sample(j.w, s->K, s->C, wt);
        j.wt = wt;
    } else if (kvec256_ok(s)) { /* wT [q][k] */
        int Q = s->C * s->R * s->R;
        float *wt = scratch_get(&ctx_of(be)->wt, (size_t)Q * s->K);
        if (!wt) return;
        transpose_sample(j.w, s->K, Q, wt);
        j.wt = wt;
    } else if (kvec_ok(s) || (USE_NARROW && s->K % 16 == 0 && (flat_ok(s) || implicit_ok(s)))) {
        /* wT [q][k]: the channel-vector tiles' B, the one-vector forward tiles' transposed A */
        int Q = s->C * 9, P = s->OH * s->OW, T = (P + kvec_mr(s) - 1) / kvec_mr(s), kv = kvec_ok(s);
        float *wt = scratch_get(&ctx_of(be)->wt, (size_t)Q * s->K);
        lists = kv ? malloc(sizeof(int) * ((size_t)T * Q * 2 + (size_t)T)) : NULL;
        if (!wt || (kv && !lists)) {
            free(lists);
            return;
        }
        transpose_sample(j.w, s->K, Q, wt);
        j.wt = wt;
        if (kv) {
            kvec_lists(s, !any_nonfinite(wt, (size_t)Q * s->K) && !ftz_mode(), lists, lists + (size_t)T * Q, lists + (size_t)T * Q * 2);
            j.kx = lists, j.kb = lists + (size_t)T * Q, j.kn = lists + (size_t)T * Q * 2;
        }
    }
    pool_run(&ctx_of(be)->pool, fwd_worker, &j, s->N < nthreads(be) ? s->N : nthreads(be));
    free(lists);
}

void c_conv2d_fwd(flce_backend *be, const flce_conv_shape *s, const flce_buf *x, const flce_buf *w, flce_buf *y) {
    PROF_BEGIN(be);
    conv_fwd(be, s, x, w, y, NULL);
    PROF_CONV(be, "conv_fwd", s);
}

/* The convolution with its evaluation BatchNorm, residual and ReLU applied a sample at a time
 * (epi_sample); t is not needed. */
void c_conv2d_fwd_bn_eval(flce_backend *be, const flce_conv_shape *s, const flce_buf *x, const flce_buf *w, float eps,
                          const flce_buf *g, const flce_buf *b, const flce_buf *rm, const flce_buf *rv, const flce_buf *r,
                          int relu, flce_buf *t, flce_buf *y) {
    (void)t;
    PROF_BEGIN(be);
    float *is = malloc(sizeof(float) * (size_t)s->K);
    if (!is) {
        flce_backend_fail(be, FLCE_ERR_NOMEM, "cpu: out of memory for %d BatchNorm factors", s->K);
        return;
    }
    const float *v = HB_CF(rv);
    for (int k = 0; k < s->K; k++) is[k] = fm_rsqrt(v[k] + eps);
    conv_epi e = {.m = HB_CF(rm), .g = HB_CF(g), .b = HB_CF(b), .r = r ? HB_CF(r) : NULL, .is = is, .relu = relu};
    conv_fwd(be, s, x, w, y, &e);
    free(is);
    PROF_CONV(be, r ? "fwd+bn+r+relu" : relu ? "fwd+bn+relu" : "fwd+bn", s);
}

void c_conv2d_bwd_data(flce_backend *be, const flce_conv_shape *s, const flce_buf *dy, const flce_buf *w,
                            flce_buf *dx) {
    PROF_BEGIN(be);
    int Q = s->C * s->R * s->R, K = s->K, direct = dx_direct_ok(s, HB_CF(w)) && !ftz_mode(), Cp = dx_cp(s->C);
    const float *w0 = HB_CF(w);
    float *wt = scratch_get(&ctx_of(be)->wt, direct ? (size_t)9 * K * Cp : (size_t)Q * K);
    if (!wt) return;
    if (direct) { /* [tap][k][Cp], zero padding channels */
        for (int k = 0; k < K; k++) /* each row written in order (a scattered write per weight before) */
            for (int tap = 0; tap < 9; tap++) {
                float *d = wt + ((size_t)tap * K + k) * Cp;
                for (int c = 0; c < s->C; c++) d[c] = w0[((size_t)k * s->C + c) * 9 + tap];
                for (int c = s->C; c < Cp; c++) d[c] = 0.0f;
            }
    } else { /* [q][k] */
        transpose_sample(w0, K, Q, wt);
    }
    conv_job j = {.s = s, .dy = HB_CF(dy), .wt = wt, .dx = HB_F(dx), .ctx = ctx_of(be)};
    pool_run(&ctx_of(be)->pool, !direct ? bwd_data_worker : s->stride == 2 ? bwd_data_s2 : bwd_data_direct, &j,
             s->N < nthreads(be) ? s->N : nthreads(be));
    PROF_CONV(be, "conv_bwd_data", s);
}

void c_conv2d_bwd_weight(flce_backend *be, const flce_conv_shape *s, const flce_buf *x, const flce_buf *dy,
                              flce_buf *dw) {
    PROF_BEGIN(be);
    int parts = nthreads(be), Q = s->C * s->R * s->R;
    size_t m = (size_t)Q * s->K, rest = (size_t)(s->N - s->N / parts);
    if (parts > 1 && s->N >= parts && rest * m * sizeof(float) <= ((size_t)2 << 20)) {
        float *buf = scratch_get(&ctx_of(be)->wt, (1 + (size_t)s->N) * m); /* dw_acc, a slot a sample */
        if (!buf) return;
        conv_job j = {.s = s, .x = HB_CF(x), .dy = HB_CF(dy), .dw = HB_F(dw), .dw_acc = buf, .dw_t = buf + m,
                      .parts = parts, .ctx = ctx_of(be), .tap = wgrad_tap_ok(s) && !ftz_mode(), .ends = parts == 2};
        pool_run(&ctx_of(be)->pool, bwd_weight_split, &j, parts);
        if (any_set(j.bad, parts)) { /* a dy that is not finite: the padded sums, with every term */
            j.tap = 0, j.front = 0;
            atomic_store(&j.next, 0);
            pool_run(&ctx_of(be)->pool, bwd_weight_split, &j, parts);
        }
        pool_run(&ctx_of(be)->pool, bwd_weight_merge, &j, parts);
        PROF_CONV(be, "conv_bwd_weight", s);
        return;
    }
    float *dyT = scratch_get(&ctx_of(be)->wt, (size_t)s->N * s->K * s->OH * s->OW);
    if (!dyT) return;
    conv_job j = {.s = s, .x = HB_CF(x), .dy = HB_CF(dy), .dw = HB_F(dw), .wt = dyT, .ctx = ctx_of(be),
                  .tap = wgrad_tap_ok(s) && !ftz_mode()};
    pool_run(&ctx_of(be)->pool, transpose_part, &j, s->N < nthreads(be) ? s->N : nthreads(be));
    if (any_set(j.bad, nthreads(be))) j.tap = 0; /* a dy that is not finite: the padded sums */
    pool_run(&ctx_of(be)->pool, bwd_weight_worker, &j, nthreads(be));
    PROF_CONV(be, "conv_bwd_weight", s);
}
