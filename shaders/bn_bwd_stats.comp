#version 450
#extension GL_GOOGLE_include_directive : require
// bn_bwd_stats.comp: dbeta = K8(dy), dgamma = K8(dy xhat) of one channel per workgroup
// (reference/ops.h). As in bn_stats.comp: the workgroup copies tiles of dy and dy xhat into
// shared memory, invocations 0..7 run the 8 lanes' TwoSum chains, invocation 0 totals.
#include "common.glsl"
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer DY { float v[]; } dy;
layout(std430, binding = 1) readonly buffer Xhat { float v[]; } xhat;
layout(std430, binding = 2) writeonly buffer DG { float v[]; } dgamma;
layout(std430, binding = 3) writeonly buffer DB { float v[]; } dbeta;
layout(push_constant) uniform P { int N, C, HW; } p;
const int TILE = 2048;
shared float tb[TILE], tg[TILE];
shared float bs[8], bc[8], gs[8], gc[8];
void main() {
    int ch = int(gl_WorkGroupID.x), t = int(gl_LocalInvocationID.x), M = p.N * p.HW;
    precise float sb = 0.0, cb = 0.0, sg = 0.0, cg = 0.0;
    for (int base = 0; base < M; base += TILE) {
        int cnt = min(TILE, M - base);
        for (int q = t; q < cnt; q += 256) {
            int j = base + q, n = j / p.HW, e = (n * p.C + ch) * p.HW + (j - n * p.HW);
            float d = dy.v[e];
            precise float dx = d * xhat.v[e];
            tb[q] = d;
            tg[q] = dx;
        }
        barrier();
        if (t < 8)
            for (int q = t; q < cnt; q += 8) {
                twosum(sb, cb, tb[q]);
                twosum(sg, cg, tg[q]);
            }
        barrier();
    }
    if (t < 8) {
        bs[t] = sb; bc[t] = cb; gs[t] = sg; gc[t] = cg;
    }
    barrier();
    if (t == 0) {
        precise float s = 0.0, c = 0.0;
        for (int l = 0; l < 8; l++) twosum(s, c, bs[l]);
        for (int l = 0; l < 8; l++) twosum(s, c, bc[l]);
        precise float db = s + c;
        s = 0.0;
        c = 0.0;
        for (int l = 0; l < 8; l++) twosum(s, c, gs[l]);
        for (int l = 0; l < 8; l++) twosum(s, c, gc[l]);
        precise float dg = s + c;
        dbeta.v[ch] = db;
        dgamma.v[ch] = dg;
    }
}
