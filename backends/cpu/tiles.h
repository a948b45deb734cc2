/* tiles.h: the CPU backend's register-tile kernels, written once and instantiated for each
 * vector width: cpu_backend.c with 8-wide AVX2 vectors, gemm512.c with 16-wide AVX-512 ones.
 * Before including define VT (the vector type), VW (its width) and VLD, VST, VBC (load,
 * store, broadcast) and VFLAT(plane, blk, v) (the flat store, flat_blk below). Every output
 * element is reduced over k ascending from +0, one separately rounded multiply and add per
 * term, and then stored or, with acc, added to C (C + sum: the weight gradient's sample order):
 * the order of reference/ops.h, so the bits do not depend on which tile or which width ran. */

/* C[i][0 .. NV VW) = t, or C + t with acc 1 (+0 + t with acc 2: the first sample of a weight gradient), t = sum over k of A_i[k] B_k, for the rows i < mr <= MR.
 * Three ways of addressing A and B (the TILE_* macros below):
 *   plain  A_i = A + i lda, its element k; B_k = B + k ldb
 *   off    B_k = B + off[k]: shifted rows of a padded sample (the forward pass's implicit im2col)
 *   rows   A_i = arow[i], its element poff[k]: the weight gradient's implicit im2col */
#define TILE_BODY(MR, NV, AROW, BROW, AT) TILE_BODY_S(MR, NV, AROW, BROW, AT, VW, TILE_ST_PLAIN)
/* ... with the vectors of one B row VSTEP floats apart (VW: one contiguous row), each result
 * stored by STORE(i, v, value) */
#define TILE_ST_PLAIN(i, v, x)                                                                                 \
    VST(C + (size_t)(i) * ldc + VW * (v),                                                                     \
        acc == 1 ? VLD(C + (size_t)(i) * ldc + VW * (v)) + (x) : acc == 2 ? VBC(0.0f) + (x) : (x))
#define TILE_BODY_S(MR, NV, AROW, BROW, AT, VSTEP, STORE)                                                     \
    const float *a_[MR];                                                                                      \
    for (int i = 0; i < MR; i++) a_[i] = AROW(i < mr ? i : mr - 1);                                          \
    VT c_[MR][NV];                                                                                            \
    _Pragma("GCC unroll 32") for (int i = 0; i < MR; i++)                                                     \
        for (int v = 0; v < NV; v++) c_[i][v] = VBC(0.0f);                                                   \
    for (int k = 0; k < K; k++) {                                                                             \
        const float *b_ = BROW(k);                                                                            \
        VT bv_[NV];                                                                                           \
        for (int v = 0; v < NV; v++) bv_[v] = VLD(b_ + (size_t)(VSTEP) * v);                                 \
        for (int i = 0; i < MR; i++) {                                                                        \
            VT x_ = VBC(a_[i][AT(k)]);                                                                        \
            for (int v = 0; v < NV; v++) c_[i][v] = c_[i][v] + x_ * bv_[v];                                   \
        }                                                                                                     \
    }                                                                                                         \
    _Pragma("GCC unroll 32") for (int i = 0; i < MR; i++) if (i < mr)                                         \
        for (int v = 0; v < NV; v++) STORE(i, v, c_[i][v]);

#define TILE_A_PLAIN(i) (A + (size_t)(i) * lda)
#define TILE_A_ROWS(i) (arow[i])
#define TILE_B_PLAIN(k) (B + (size_t)(k) * ldb)
#define TILE_B_OFF(k) (B + off[k])
#define TILE_AT_K(k) (k)
#define TILE_AT_POFF(k) (poff[k])

/* tile##S, tile##S##_off, tile##S##_rows: MR rows x NV vectors. */
#define TILES(S, MR, NV)                                                                                      \
    static __attribute__((unused)) void tile##S(int mr, int K, const float *A, int lda, const float *B, int ldb, float *C, int ldc,   \
                        int acc) {                                                                           \
        TILE_BODY(MR, NV, TILE_A_PLAIN, TILE_B_PLAIN, TILE_AT_K)                                              \
    }                                                                                                         \
    static __attribute__((unused)) void tile##S##_off(int mr, int K, const float *A, int lda, const float *B, const int *off, float *C, \
                              int ldc, int acc) {                                                            \
        TILE_BODY(MR, NV, TILE_A_PLAIN, TILE_B_OFF, TILE_AT_K)                                                \
    }                                                                                                         \
    static __attribute__((unused)) void tile##S##_rows(int mr, int K, const float *const *arow, const int *poff, const float *B,      \
                               int ldb, float *C, int ldc, int acc) {                                        \
        TILE_BODY(MR, NV, TILE_A_ROWS, TILE_B_PLAIN, TILE_AT_POFF)                                            \
    }

/* tile##S##_off2: as tile##S##_off, the second vector of each B row bstep floats after the first
 * (two rows of a padded image whose output rows are one vector long, stored contiguously). */
#define TILES_OFF2(S, MR)                                                                                     \
    static __attribute__((unused)) void tile##S##_off2(int mr, int K, const float *A, int lda, const float *B, \
                                                       const int *off, int bstep, float *C, int ldc, int acc) { \
        TILE_BODY_S(MR, 2, TILE_A_PLAIN, TILE_B_OFF, TILE_AT_K, bstep, TILE_ST_PLAIN)                         \
    }

/* Flat positions (fwd_flat, DX_FLAT): a vector over the flat positions p0 .. p0 + VW of a padded
 * grid (rows Wp long, of which the first W are the image) is written straight into the image
 * plane, its lanes outside the image dropped: blk (one per vector of positions, built by
 * flat_blocks in cpu_backend.c) holds the mask of the lanes inside and the plane index of the first of them
 * (positions map to plane indices in order, so the lanes inside are stored contiguously). */
typedef struct {
    unsigned mask; /* lane l inside: bit l */
    int cnt;       /* lanes inside */
    int dst;       /* plane index of the first lane inside */
    int perm[8];   /* 8-wide vectors: the lanes inside, in order (a permutation for AVX2) */
} flat_blk;

/* tile##S##_offflat: as tile##S##_off, row i stored into the plane C + i ldc through blk[v]. */
#define TILE_ST_FLAT(i, v, x) VFLAT(C + (size_t)(i) * ldc, blk + (v), (x))
#define TILES_OFFFLAT(S, MR, NV)                                                                              \
    static __attribute__((unused)) void tile##S##_offflat(int mr, int K, const float *A, int lda, const float *B, \
                                                          const int *off, float *C, int ldc, const flat_blk *blk) { \
        TILE_BODY_S(MR, NV, TILE_A_PLAIN, TILE_B_OFF, TILE_AT_K, VW, TILE_ST_FLAT)                            \
    }

/* tile##S##_offflat_t, tile##S##_off_t: as the above for one vector (NV = 1) with A given
 * transposed, element k of row i at A[k lda + i] (the weights as [q][k]): the rows' broadcasts
 * share one address register, a displacement each (16 row pointers would not fit the general
 * registers), and each folds into its multiply. */
#define TILE_BODY_T(MR, BROW, STORE)                                                                          \
    VT c_[MR];                                                                                                \
    _Pragma("GCC unroll 32") for (int i = 0; i < MR; i++) c_[i] = VBC(0.0f);                                  \
    const float *at_ = A;                                                                                     \
    for (int k = 0; k < K; k++, at_ += lda) {                                                                 \
        VT b_ = VLD(BROW(k));                                                                                 \
        for (int i = 0; i < MR; i++) c_[i] = c_[i] + VBC(at_[i]) * b_;                                       \
    }                                                                                                         \
    _Pragma("GCC unroll 32") for (int i = 0; i < MR; i++) if (i < mr) STORE(i, 0, c_[i]);
#define TILES_OFF_T(S, MR)                                                                                    \
    static __attribute__((unused)) void tile##S##_offflat_t(int mr, int K, const float *A, int lda, const float *B, \
                                                            const int *off, float *C, int ldc, const flat_blk *blk) { \
        TILE_BODY_T(MR, TILE_B_OFF, TILE_ST_FLAT)                                                             \
    }                                                                                                         \
    static __attribute__((unused)) void tile##S##_off_t(int mr, int K, const float *A, int lda, const float *B, \
                                                        const int *off, float *C, int ldc, int acc) {         \
        TILE_BODY_T(MR, TILE_B_OFF, TILE_ST_PLAIN)                                                            \
    }

/* tile##S##_flat: as tile##S (B rows ldb floats apart), row i stored into the plane C + i ldc
 * through blk[v]: the forward pass over a packed column panel (fwd_flat). */
#define TILES_FLAT(S, MR, NV)                                                                                 \
    static __attribute__((unused)) void tile##S##_flat(int mr, int K, const float *A, int lda, const float *B, \
                                                       int ldb, float *C, int ldc, const flat_blk *blk) {     \
        TILE_BODY_S(MR, NV, TILE_A_PLAIN, TILE_B_PLAIN, TILE_AT_K, VW, TILE_ST_FLAT)                          \
    }

/* Two samples at once for the weight gradient when K is one vector wide (16 output channels on
 * AVX-512): t0[i] = sum over k of A_i[poff[k]] B0_k and t1[i] = sum over k of A_i[poff[k] + d] B1_k
 * (the second sample's copy d floats after the first), each from +0 over k ascending,
 * exactly as two calls of tile_rows would; twice the independent chains of one call. With C1,
 * C0 = t0 and C1 = t1; without (NULL), C0 = (C0 + t0) + t1, or t0 + t1 when first: the two
 * samples added in order. B row k is BOFF(k) floats after B0 (B1): k ldb, or boff[k] for the
 * index-list form (TILE_ROWS2_IDX). */
#define TILE_ROWS2(NAME, MR) TILE_ROWS2_G(NAME, MR, (size_t)k * ldb)
#define TILE_ROWS2_IDX(NAME, MR) TILE_ROWS2_G(NAME, MR, (size_t)boff[k])
#define TILE_ROWS2_G(NAME, MR, BOFF)                                                                          \
    static __attribute__((unused)) void NAME(int mr, int K, const float *const *arow, const int *poff,        \
                                             ptrdiff_t d, const float *B0, const float *B1, int ldb,          \
                                             const int *boff, float *C0, float *C1, int ldc, int first) {     \
        (void)ldb, (void)boff;                                                                                \
        const float *a_[MR];                                                                                  \
        for (int i = 0; i < MR; i++) a_[i] = arow[i < mr ? i : mr - 1];                                       \
        VT c0[MR], c1[MR];                                                                                    \
        _Pragma("GCC unroll 32") for (int i = 0; i < MR; i++) c0[i] = VBC(0.0f), c1[i] = VBC(0.0f);           \
        for (int k = 0; k < K; k++) {                                                                         \
            ptrdiff_t pk = poff[k], pk1 = pk + d;                                                             \
            VT b0 = VLD(B0 + BOFF), b1 = VLD(B1 + BOFF);                                                      \
            for (int i = 0; i < MR; i++) {                                                                    \
                c0[i] = c0[i] + VBC(a_[i][pk]) * b0;                                                          \
                c1[i] = c1[i] + VBC(a_[i][pk1]) * b1;                                                         \
            }                                                                                                 \
        }                                                                                                     \
        _Pragma("GCC unroll 32") for (int i = 0; i < MR; i++) if (i < mr) {                                   \
            float *c = C0 + (size_t)i * ldc;                                                                  \
            if (C1) {                                                                                         \
                VST(c, c0[i]);                                                                                \
                VST(C1 + (size_t)i * ldc, c1[i]);                                                             \
            } else {                                                                                          \
                VST(c, (first ? VBC(0.0f) + c0[i] : VLD(c) + c0[i]) + c1[i]);                                             \
            }                                                                                                 \
        }                                                                                                     \
    }

/* tile##S##_idx: the rows form over an index list (the weight gradient without a padded copy):
 * term k of row i is arow[i][xoff[k]] times the B row B + boff[k]. The caller lists only the
 * positions where a tap lands inside the image; the others would add x_pad dy = +0 terms. */
#define TILE_B_IDX(k) (B + boff[k])
#define TILE_AT_XOFF(k) (xoff[k])
#define TILES_IDX(S, MR, NV)                                                                                  \
    static __attribute__((unused)) void tile##S##_idx(int mr, int K, const float *const *arow, const int *xoff, \
                                                      const int *boff, const float *B, float *C, int ldc, int acc) { \
        TILE_BODY(MR, NV, TILE_A_ROWS, TILE_B_IDX, TILE_AT_XOFF)                                              \
    }
/* tile##S##_idx1 (_idx2): as tile##S##_idx with the rows' pointers one (two) floats apart,
 * arow[i] = arow[0] + i (2 i): consecutive positions of an output row at stride 1 (2), so that a
 * term's MR broadcasts share one address register (a displacement each) instead of MR row
 * pointers. */
#define TILE_A_ROWS1(i) (arow[0] + (i))
#define TILE_A_ROWS2(i) (arow[0] + 2 * (i))
#define TILES_IDX1(S, MR, NV)                                                                                 \
    static __attribute__((unused)) void tile##S##_idx1(int mr, int K, const float *const *arow, const int *xoff, \
                                                       const int *boff, const float *B, float *C, int ldc, int acc) { \
        TILE_BODY(MR, NV, TILE_A_ROWS1, TILE_B_IDX, TILE_AT_XOFF)                                             \
    }                                                                                                         \
    static __attribute__((unused)) void tile##S##_idx2(int mr, int K, const float *const *arow, const int *xoff, \
                                                       const int *boff, const float *B, float *C, int ldc, int acc) { \
        TILE_BODY(MR, NV, TILE_A_ROWS2, TILE_B_IDX, TILE_AT_XOFF)                                             \
    }

/* The input gradient of a 3x3, stride-1, pad-1 convolution without the column matrix and
 * col2im, MR channels x NV vectors of positions at a time. Every dx element sums, over the taps
 * (ky, kx) ascending, t = sum over k ascending of w[c][ky][kx][k] dy[k][oy][ox] (from +0),
 * dx = dx + t (from +0): the reference's order. A tap whose output pixel lies outside reads
 * zero padding and adds t = +0, which leaves dx unchanged as long as the weights are finite (the
 * caller checks). w2 holds the weights as [tap][k][Cp], Cp = C rounded up to MR with zero
 * channels, so the MR broadcasts of one k are adjacent; the padding channels are computed and
 * never stored. DX_TAPS is the common body: b(tap) points at the dy vectors of the tap,
 * dy channel k at b + k L; taps with skip(tap) are left out (their t would be +0). */
#define DX_TAPS(MR, NV, BPTR, SKIP)                                                                            \
    VT acc[MR][NV];                                                                                           \
    _Pragma("GCC unroll 32") for (int i = 0; i < MR; i++)                                                     \
        for (int v = 0; v < NV; v++) acc[i][v] = VBC(0.0f);                                                   \
    for (int tap = 0; tap < 9; tap++) {                                                                       \
        if (SKIP(tap)) continue;                                                                              \
        const float *b = BPTR(tap), *wk = w2 + (size_t)tap * K * Cp + c0;                                     \
        VT t[MR][NV];                                                                                         \
        _Pragma("GCC unroll 32") for (int i = 0; i < MR; i++)                                                 \
            for (int v = 0; v < NV; v++) t[i][v] = VBC(0.0f);                                                 \
        for (int k = 0; k < K; k++, wk += Cp) {                                                               \
            VT bv[NV];                                                                                        \
            for (int v = 0; v < NV; v++) bv[v] = VLD(b + (size_t)k * L + VW * v);                             \
            for (int i = 0; i < MR; i++) {                                                                    \
                VT x = VBC(wk[i]);                                                                            \
                for (int v = 0; v < NV; v++) t[i][v] = t[i][v] + x * bv[v];                                   \
            }                                                                                                 \
        }                                                                                                     \
        for (int i = 0; i < MR; i++)                                                                          \
            for (int v = 0; v < NV; v++) acc[i][v] = acc[i][v] + t[i][v];                                     \
    }

/* Row form, for widths that are a multiple of NV VW: input row iy of one sample. dyp is dy with
 * one zero column on the left and at least 17 on the right, rows Wd long, channels L = OH Wd
 * apart; output rows oy = iy + 1 - ky outside the image are skipped. Defines
 * NAME(dyp, w2, C, Cp, K, OH, W, Wd, iy, dxn). */
#define DX_ROW_SKIP(tap) (iy + 1 - (tap) / 3 < 0 || iy + 1 - (tap) / 3 >= OH)
#define DX_ROW_B(tap) (dyp + (size_t)(iy + 1 - (tap) / 3) * Wd + ix0 + 2 - (tap) % 3)
#define DX_ROW(NAME, MR, NV)                                                                                  \
    void NAME(const float *dyp, const float *w2, int C, int Cp, int K, int OH, int W, int Wd, int iy, float *dxn) { \
        size_t L = (size_t)OH * Wd;                                                                           \
        for (int c0 = 0; c0 < C; c0 += MR) {                                                                  \
            int mr = C - c0 < MR ? C - c0 : MR;                                                               \
            for (int ix0 = 0; ix0 < W; ix0 += NV * VW) {                                                      \
                DX_TAPS(MR, NV, DX_ROW_B, DX_ROW_SKIP)                                                        \
                _Pragma("GCC unroll 32") for (int i = 0; i < MR; i++) if (i < mr)                             \
                    for (int v = 0; v < NV; v++)                                                              \
                        VST(dxn + ((size_t)(c0 + i) * OH + iy) * W + ix0 + VW * v, acc[i][v]);                \
            }                                                                                                 \
        }                                                                                                     \
    }

/* Flat form, for widths that are not a multiple of VW: vectors over the flat positions
 * p = iy Wp + ix of a grid with rows Wp = W + 1 long (one zero column, the left padding of its
 * row and the right padding of the row above), so a vector can span the end of one row and
 * the start of the next. dyp [K][L] holds dy zero-padded by one on every side (dy[k][oy][ox] at
 * (oy + 1) Wp + ox + 1); tap (ky, kx) of position p reads dyp + p + (2 - ky) Wp + 2 - kx; all
 * nine taps are summed. Each vector goes straight into dx (plane c at dxn + c HW) through
 * blk[p0 / VW] (flat_blk above), the positions with ix >= W dropped. npos a multiple of NV VW.
 * Defines NAME(dyp, w2, C, Cp, K, L, Wp, npos, blk, dxn, HW). */
#define DX_FLAT_SKIP(tap) 0
#define DX_FLAT_B(tap) (dyp + p0 + (2 - (tap) / 3) * Wp + 2 - (tap) % 3)
#define DX_FLAT(NAME, MR, NV)                                                                                 \
    void NAME(const float *dyp, const float *w2, int C, int Cp, int K, int L, int Wp, int npos,              \
              const flat_blk *blk, float *dxn, int HW) {                                                      \
        for (int c0 = 0; c0 < C; c0 += MR) {                                                                  \
            int mr = C - c0 < MR ? C - c0 : MR;                                                               \
            for (int p0 = 0; p0 < npos; p0 += NV * VW) {                                                      \
                DX_TAPS(MR, NV, DX_FLAT_B, DX_FLAT_SKIP)                                                      \
                _Pragma("GCC unroll 32") for (int i = 0; i < MR; i++) if (i < mr)                             \
                    for (int v = 0; v < NV; v++)                                                              \
                        VFLAT(dxn + (size_t)(c0 + i) * HW, blk + p0 / VW + v, acc[i][v]);                      \
            }                                                                                                 \
        }                                                                                                     \
    }

/* One tap of the channel-vector forms (DX_CVEC, DX_S2): t[i][v] = sum over k ascending of
 * B[i + k L] w[k][c0 + VW v ..] (WK + k Cp), from +0, then acc = acc + t. */
#define CVEC_TAP(MR, NV, B, WK)                                                                               \
    {                                                                                                         \
        const float *b = (B), *wk = (WK);                                                                     \
        VT t[MR][NV];                                                                                         \
        _Pragma("GCC unroll 32") for (int i = 0; i < MR; i++)                                                 \
            for (int v = 0; v < NV; v++) t[i][v] = VBC(0.0f);                                                 \
        for (int k = 0; k < K; k++, b += L, wk += Cp) {                                                       \
            VT wv[NV];                                                                                        \
            for (int v = 0; v < NV; v++) wv[v] = VLD(wk + VW * v);                                            \
            for (int i = 0; i < MR; i++) {                                                                    \
                VT x = VBC(b[i]);                                                                             \
                for (int v = 0; v < NV; v++) t[i][v] = t[i][v] + x * wv[v];                                   \
            }                                                                                                 \
        }                                                                                                     \
        for (int i = 0; i < MR; i++)                                                                          \
            for (int v = 0; v < NV; v++) acc[i][v] = acc[i][v] + t[i][v];                                     \
    }

/* Channel-vector form, for small images with many channels (AVX-512, width under 16): vectors
 * over NV VW input channels and MR consecutive positions of one row, the taps summed as above
 * (t from +0 per tap over k ascending, dx = dx + t from +0), those whose output row lies outside
 * left out as in DX_ROW; the other taps read the zero padding where they fall outside. dyp is the padded grid of
 * DX_FLAT (rows Wp = W + 1, channels L apart); w2 [tap][k][Cp] as above, C a multiple of NV VW.
 * Writes outT [H W][Cp] (position-major), which the caller transposes into dx. Defines
 * NAME(dyp, w2, C, Cp, K, L, Wp, H, W, outT). */
#define DX_CVEC(NAME, MR, NV)                                                                                 \
    void NAME(const float *dyp, const float *w2, int C, int Cp, int K, int L, int Wp, int H, int W, float *outT) { \
        for (int iy = 0; iy < H; iy++)                                                                        \
            for (int ix0 = 0; ix0 < W; ix0 += MR) {                                                           \
                int mr = W - ix0 < MR ? W - ix0 : MR;                                                         \
                for (int c0 = 0; c0 < C; c0 += NV * VW) {                                                     \
                    VT acc[MR][NV];                                                                           \
                    _Pragma("GCC unroll 32") for (int i = 0; i < MR; i++)                                     \
                        for (int v = 0; v < NV; v++) acc[i][v] = VBC(0.0f);                                   \
                    for (int tap = 0; tap < 9; tap++) {                                                       \
                        if (iy + 1 - tap / 3 < 0 || iy + 1 - tap / 3 >= H) continue; /* output row outside */ \
                        CVEC_TAP(MR, NV, dyp + (size_t)(iy + 2 - tap / 3) * Wp + ix0 + 2 - tap % 3,           \
                                 w2 + (size_t)tap * K * Cp + c0)                                              \
                    }                                                                                         \
                    _Pragma("GCC unroll 32") for (int i = 0; i < MR; i++) if (i < mr)                         \
                        for (int v = 0; v < NV; v++)                                                          \
                            VST(outT + ((size_t)iy * W + ix0 + i) * Cp + c0 + VW * v, acc[i][v]);             \
                }                                                                                             \
            }                                                                                                 \
    }

/* Channel vectors over a list of positions (AVX2, every width): as DX_CVEC, MR input pixels
 * anywhere in the image (pos[i] = dyp + iy Wp + ix for pixel (iy, ix) on DX_FLAT's grid, rows
 * Wp = W + 1, channels L apart) x NV VW channels from c0, all nine taps summed (a tap outside
 * reads the zero padding and adds t = +0: finite weights, checked by the caller), t from +0 per
 * tap over k ascending, dx = dx + t from +0. The sums live in memory between taps (acc) and in
 * registers within one (t), so 6 x 16 fits 16 vector registers. Row i < mr goes to
 * outT + i Cp + c0 ([positions][Cp]). Defines NAME(mr, pos, w2, Cp, K, L, Wp, c0, outT). */
#define DX_PVEC(NAME, MR, NV)                                                                                 \
    void NAME(int mr, const float *const *pos, const float *w2, int Cp, int K, int L, int Wp, int c0, float *outT) { \
        const float *b0 = pos[0];                                                                             \
        ptrdiff_t d_[MR]; /* pixel i at b0 + d_[i]: one address register a term, an index each */             \
        for (int i = 0; i < MR; i++) d_[i] = pos[i < mr ? i : mr - 1] - b0;                                  \
        VT acc[MR][NV];                                                                                       \
        _Pragma("GCC unroll 32") for (int i = 0; i < MR; i++)                                                 \
            for (int v = 0; v < NV; v++) acc[i][v] = VBC(0.0f);                                               \
        for (int tap = 0; tap < 9; tap++) {                                                                   \
            const float *b = b0 + (size_t)(2 - tap / 3) * Wp + 2 - tap % 3;                                   \
            const float *wk = w2 + (size_t)tap * K * Cp + c0;                                                 \
            VT t[MR][NV];                                                                                     \
            _Pragma("GCC unroll 32") for (int i = 0; i < MR; i++)                                             \
                for (int v = 0; v < NV; v++) t[i][v] = VBC(0.0f);                                             \
            for (int k = 0; k < K; k++, wk += Cp) {                                                           \
                VT wv[NV];                                                                                    \
                for (int v = 0; v < NV; v++) wv[v] = VLD(wk + VW * v);                                        \
                for (int i = 0; i < MR; i++) {                                                                \
                    VT x = VBC(b[d_[i]]);                                                                     \
                    for (int v = 0; v < NV; v++) t[i][v] = t[i][v] + x * wv[v];                               \
                }                                                                                             \
                b += L;                                                                                       \
                __asm__("" : "+r"(b)); /* opaque: no pointer a pixel stepped by the compiler */               \
            }                                                                                                 \
            for (int i = 0; i < MR; i++)                                                                      \
                for (int v = 0; v < NV; v++) acc[i][v] = acc[i][v] + t[i][v];                                 \
        }                                                                                                     \
        _Pragma("GCC unroll 32") for (int i = 0; i < MR; i++) if (i < mr)                                     \
            for (int v = 0; v < NV; v++) VST(outT + (size_t)i * Cp + c0 + VW * v, acc[i][v]);                \
    }

/* Stride 2 (3x3, pad 1, even H and W), channel vectors as DX_CVEC: dx at the input pixels of
 * one phase (2a + py, 2b + px) of the input grid. The taps of a phase, ascending: ky = 1 when
 * py = 0, else ky = 0 (output row a + 1) then 2 (row a); kx likewise. Every dx element of the
 * phase sums its taps in that order, t = sum over k ascending of w[tap][k][c] dy[k][oy][ox]
 * from +0 each, dx = dx + t from +0: the reference's order (the taps of other parity have no
 * output pixel). An output pixel past the last row or column reads the zero row and column of
 * dyq ([K][L], rows Wq = OW + 1 long, OH + 1 rows) and adds +0 (finite weights, checked by
 * the caller). Writes outT [OH OW][Cp]. Defines
 * NAME(dyq, w2, C, Cp, K, L, Wq, OH, OW, py, px, outT). */
#define DX_S2(NAME, MR, NV)                                                                                   \
    void NAME(const float *dyq, const float *w2, int C, int Cp, int K, int L, int Wq, int OH, int OW, int py, \
              int px, float *outT) {                                                                          \
        int nt = 0, toff[4], ttap[4];                                                                         \
        for (int ky = 0; ky < 3; ky++)                                                                        \
            for (int kx = 0; kx < 3; kx++) {                                                                  \
                if ((ky == 1) == py || (kx == 1) == px) continue; /* not a tap of this phase */               \
                toff[nt] = (ky == 0) * Wq + (kx == 0), ttap[nt] = ky * 3 + kx, nt++;                          \
            }                                                                                                 \
        for (int a = 0; a < OH; a++)                                                                          \
            for (int b0 = 0; b0 < OW; b0 += MR) {                                                             \
                int mr = OW - b0 < MR ? OW - b0 : MR;                                                         \
                for (int c0 = 0; c0 < C; c0 += NV * VW) {                                                     \
                    VT acc[MR][NV];                                                                           \
                    _Pragma("GCC unroll 32") for (int i = 0; i < MR; i++)                                     \
                        for (int v = 0; v < NV; v++) acc[i][v] = VBC(0.0f);                                   \
                    for (int tt = 0; tt < nt; tt++) {                                                         \
                        CVEC_TAP(MR, NV, dyq + (size_t)a * Wq + b0 + toff[tt], w2 + (size_t)ttap[tt] * K * Cp + c0) \
                    }                                                                                         \
                    _Pragma("GCC unroll 32") for (int i = 0; i < MR; i++) if (i < mr)                         \
                        for (int v = 0; v < NV; v++)                                                          \
                            VST(outT + ((size_t)a * OW + b0 + i) * Cp + c0 + VW * v, acc[i][v]);              \
                }                                                                                             \
            }                                                                                                 \
    }
