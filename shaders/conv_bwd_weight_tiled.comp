#version 450
#extension GL_GOOGLE_include_directive : require
// conv_bwd_weight_tiled.comp, first pass: the per-sample partial sums of the weight gradient,
// part[n][k][l] = sum over pixels (oy, ox) (nested, ascending, from +0) of
// dy[n][k][oy][ox] * xpad[n][c][oy*stride+ky-pad][ox*stride+kx-pad], l = (c, ky, kx) flat; sample n
// is the z of the dispatch. sum_rows.comp then adds the samples in ascending order
// (reference/ops.h). A tiled GEMM per sample: a workgroup computes 32 output channels k by 64
// columns l (its flat x-y index: the k tile is the slower part), every invocation a 4 x 4 block
// in registers; the reduction walks the pixels in chunks of 16, staged in shared memory (dy: 16 x
// 32, im2col: 16 x 64). Each sum is still one chain in the reference's order.
#include "common.glsl"
#define TM 32 // output channels k per workgroup
#define TN 64 // columns l = (c, ky, kx) per workgroup
#define TL 16 // pixels per chunk
layout(local_size_x = 128) in;
layout(std430, binding = 0) readonly buffer X { float v[]; } x;
layout(std430, binding = 1) readonly buffer DY { float v[]; } dy;
layout(std430, binding = 2) writeonly buffer Part { float v[]; } part;
layout(push_constant) uniform P { int N, C, H, W, K, R, stride, pad, OH, OW; } p;
shared float As[TL][TM];
shared float Bs[TL][TN];
void main() {
    int lid = int(gl_LocalInvocationID.x);
    int RR = p.R * p.R, L = p.C * RR, OHW = p.OH * p.OW, Q = p.K * L;
    int lt = (L + TN - 1) / TN; // tiles along l
    int tile = int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
    if (tile >= lt * ((p.K + TM - 1) / TM)) return; // a whole workgroup (spare ones of the grid)
    int k0 = (tile / lt) * TM, l0 = (tile % lt) * TN, n = int(gl_WorkGroupID.z);
    int tm = lid / 16, tn = lid % 16; // this invocation's sums: k0+tm+8i, l0+tn+16j
    precise float acc[16];
    for (int i = 0; i < 16; i++) acc[i] = 0.0;
    for (int q0 = 0; q0 < OHW; q0 += TL) {
        for (int e = 0; e < 4; e++) { // dy: 32 channels x 16 pixels, consecutive invocations along pixels
            int idx = lid + 128 * e, mm = idx / TL, ll = idx % TL, k = k0 + mm, q = q0 + ll;
            As[ll][mm] = (k < p.K && q < OHW) ? dy.v[(n * p.K + k) * OHW + q] : 0.0;
        }
        for (int e = 0; e < 8; e++) { // im2col: 64 columns x 16 pixels, consecutive invocations along pixels
            int idx = lid + 128 * e, nn = idx / TL, ll = idx % TL, l = l0 + nn, q = q0 + ll;
            int c = l / RR, ky = (l % RR) / p.R, kx = l % p.R, oy = q / p.OW, ox = q % p.OW;
            int iy = oy * p.stride + ky - p.pad, ix = ox * p.stride + kx - p.pad;
            bool in_ = l < L && q < OHW && iy >= 0 && iy < p.H && ix >= 0 && ix < p.W;
            Bs[ll][nn] = in_ ? x.v[((n * p.C + c) * p.H + iy) * p.W + ix] : 0.0;
        }
        barrier();
        int qend = min(TL, OHW - q0); // the last chunk stops at the last pixel
        TILE_MADD(As, Bs, acc, qend, tm, tn)
        barrier();
    }
    for (int i = 0; i < 4; i++) {
        int k = k0 + tm + 8 * i;
        if (k >= p.K) continue;
        for (int j = 0; j < 4; j++) {
            int l = l0 + tn + 16 * j;
            if (l < L) part.v[n * Q + k * L + l] = acc[i * 4 + j];
        }
    }
}
