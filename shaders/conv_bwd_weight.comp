#version 450
#extension GL_GOOGLE_include_directive : require
// conv_bwd_weight.comp, first pass: the per-sample partial sums of the weight gradient,
// part[n][q] = sum over oy, ox (nested, ascending, from +0) of dy[n][k][oy][ox] xpad, for
// q = (k, c, ky, kx) flat; sample n is the z of the dispatch, so all samples run at once.
// sum_rows.comp then adds the samples in ascending order (reference/ops.h).
#include "common.glsl"
layout(local_size_x = 128) in;
layout(std430, binding = 0) readonly buffer X { float v[]; } x;
layout(std430, binding = 1) readonly buffer DY { float v[]; } dy;
layout(std430, binding = 2) writeonly buffer Part { float v[]; } part;
layout(push_constant) uniform P { int N, C, H, W, K, R, stride, pad, OH, OW; } p;
void main() {
    int q = int(gid()), RR = p.R * p.R, Q = p.K * p.C * RR;
    if (q >= Q) return;
    int n = int(gl_WorkGroupID.z);
    int kx = q % p.R, ky = (q / p.R) % p.R, c = (q / RR) % p.C, k = q / (RR * p.C);
    precise float t = 0.0;
    for (int oy = 0; oy < p.OH; oy++) {
        int iy = oy * p.stride + ky - p.pad;
        bool rowin = iy >= 0 && iy < p.H;
        for (int ox = 0; ox < p.OW; ox++) {
            int ix = ox * p.stride + kx - p.pad;
            float xv = 0.0;
            if (rowin && ix >= 0 && ix < p.W) xv = x.v[((n * p.C + c) * p.H + iy) * p.W + ix];
            t = t + dy.v[((n * p.K + k) * p.OH + oy) * p.OW + ox] * xv;
        }
    }
    part.v[n * Q + q] = t;
}
