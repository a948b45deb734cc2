#version 450
#extension GL_GOOGLE_include_directive : require
// conv_fwd_tiled.comp: y[n][k][oy][ox] = sum over l = (c, ky, kx) (nested, ascending, from +0) of
// w[k][l] * xpad[n][c][oy*stride+ky-pad][ox*stride+kx-pad] (reference/ops.h).
// A tiled implicit GEMM: a workgroup computes 32 output channels (z of the dispatch) by 64 output
// pixels (its flat x-y index), every invocation a 4 x 4 block of them in registers. The reduction
// walks l in chunks of 16: the chunk's weights (16 x 32) and its im2col values (16 x 64) are
// staged in shared memory by the whole workgroup, then every invocation adds them in ascending
// l to each of its 16 sums. Each output is still one chain in the reference's order; only the
// loads are shared (a weight by 64 pixels, an input value by 32 channels).
#include "common.glsl"
#define TM 32 // output channels per workgroup
#define TN 64 // output pixels per workgroup
#define TL 16 // reduction chunk
layout(local_size_x = 128) in;
layout(std430, binding = 0) readonly buffer X { float v[]; } x;
layout(std430, binding = 1) readonly buffer Wt { float v[]; } w;
layout(std430, binding = 2) writeonly buffer Y { float v[]; } y;
layout(push_constant) uniform P { int N, C, H, W, K, R, stride, pad, OH, OW; } p;
shared float As[TL][TM];
shared float Bs[TL][TN];
void main() {
    int lid = int(gl_LocalInvocationID.x);
    int tile = int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
    int p0 = tile * TN, k0 = int(gl_WorkGroupID.z) * TM;
    int RR = p.R * p.R, L = p.C * RR, OHW = p.OH * p.OW, NP = p.N * OHW;
    if (p0 >= NP) return; // a whole workgroup (the grid's last row may have spare ones)
    // the pixel this invocation stages (column lid % 64 of every chunk, rows lid / 64 + 2e)
    int sp = p0 + lid % TN, sn = sp / OHW, soy = (sp % OHW) / p.OW, sox = sp % p.OW;
    bool spin = sp < NP;
    int tm = lid / 16, tn = lid % 16; // this invocation's outputs: channels k0+tm+8i, pixels p0+tn+16j
    precise float acc[16];
    for (int i = 0; i < 16; i++) acc[i] = 0.0;
    for (int l0 = 0; l0 < L; l0 += TL) {
        for (int e = 0; e < 4; e++) { // weights: 32 x 16, consecutive invocations along l
            int idx = lid + 128 * e, mm = idx / TL, ll = idx % TL, k = k0 + mm, l = l0 + ll;
            As[ll][mm] = (k < p.K && l < L) ? w.v[k * L + l] : 0.0;
        }
        for (int e = 0; e < 8; e++) { // im2col: 16 x 64, consecutive invocations along pixels
            int ll = lid / TN + 2 * e, l = l0 + ll;
            int c = l / RR, ky = (l % RR) / p.R, kx = l % p.R;
            int iy = soy * p.stride + ky - p.pad, ix = sox * p.stride + kx - p.pad;
            bool in_ = spin && l < L && iy >= 0 && iy < p.H && ix >= 0 && ix < p.W;
            Bs[ll][lid % TN] = in_ ? x.v[((sn * p.C + c) * p.H + iy) * p.W + ix] : 0.0;
        }
        barrier();
        int lend = min(TL, L - l0); // the last chunk stops at L: no term beyond the reference's
        TILE_MADD(As, Bs, acc, lend, tm, tn)
        barrier();
    }
    for (int j = 0; j < 4; j++) {
        int pix = p0 + tn + 16 * j;
        if (pix >= NP) continue;
        int n = pix / OHW, r = pix % OHW;
        for (int i = 0; i < 4; i++) {
            int k = k0 + tm + 8 * i;
            if (k < p.K) y.v[(n * p.K + k) * OHW + r] = acc[i * 4 + j];
        }
    }
}
