#version 450
#extension GL_GOOGLE_include_directive : require
// conv_bwd_weight.comp, first pass: the per-sample partial sums of the weight gradient,
// part[n][q] = sum over oy, ox (nested, ascending, from +0) of dy[n][k][oy][ox] xpad, for
// q = (k, c, ky, kx) flat; sample n is the z of the dispatch, so all samples run at once.
// sum_rows.comp then adds the samples in ascending order (reference/ops.h).
// Terms outside the image are dy * 0. With dy finite such a term is +-0 and adding it leaves
// the partial sum unchanged (it starts at +0 and so is never -0), so the loop skips them and
// runs the inside of each row without bounds checks; a non-finite dy outside the image
// (inf * 0 = NaN) is still added at its place. The result is the reference's, bit for bit.
#include "common.glsl"
layout(local_size_x = 128) in;
layout(std430, binding = 0) readonly buffer X { float v[]; } x;
layout(std430, binding = 1) readonly buffer DY { float v[]; } dy;
layout(std430, binding = 2) writeonly buffer Part { float v[]; } part;
// zero: +0 from the host. `d * 0.0` with a literal was folded away by a shader compiler
// (a NaN lost: caught by the inf/nan cases of flce check); a value it cannot see is not.
layout(push_constant) uniform P { int N, C, H, W, K, R, stride, pad, OH, OW; float zero; } p;

bool nonfinite(float v) { return (floatBitsToUint(v) & 0x7f800000u) == 0x7f800000u; }

void main() {
    int q = int(gid()), RR = p.R * p.R, Q = p.K * p.C * RR;
    if (q >= Q) return;
    int n = int(gl_WorkGroupID.z), s = p.stride;
    int kx = q % p.R, ky = (q / p.R) % p.R, c = (q / RR) % p.C, k = q / (RR * p.C);
    int xc = (n * p.C + c) * p.H, dyb = (n * p.K + k) * p.OH * p.OW;
    int ix0 = kx - p.pad;                                   // ix = ox s + ix0
    int lo = ix0 >= 0 ? 0 : (s - 1 - ix0) / s;             // first ox inside
    int hi = p.W - 1 - ix0 < 0 ? 0 : min(p.OW, (p.W - 1 - ix0) / s + 1);
    lo = min(lo, hi);
    precise float t = 0.0;
    for (int oy = 0; oy < p.OH; oy++) {
        int iy = oy * s + ky - p.pad, drow = dyb + oy * p.OW;
        bool rowin = iy >= 0 && iy < p.H;
        int a = rowin ? lo : p.OW, b = rowin ? hi : p.OW;  // [a, b): inside
        for (int ox = 0; ox < a; ox++) {
            float d = dy.v[drow + ox];
            if (nonfinite(d)) t = t + d * p.zero;
        }
        int xrow = (xc + (rowin ? iy : 0)) * p.W + ix0;
        for (int ox = a; ox < b; ox++) t = t + dy.v[drow + ox] * x.v[xrow + ox * s];
        for (int ox = max(a, b); ox < p.OW; ox++) {
            float d = dy.v[drow + ox];
            if (nonfinite(d)) t = t + d * p.zero;
        }
    }
    part.v[n * Q + q] = t;
}
