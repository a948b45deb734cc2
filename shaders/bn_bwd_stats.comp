#version 450
#extension GL_GOOGLE_include_directive : require
// bn_bwd_stats.comp: dbeta = K8(d), dgamma = K8(d xhat) of one channel per workgroup
// (reference/ops.h), d = dy through the fused ReLU's mask (relu = 1: yr > 0 ? dy : 0) and
// xhat = (x - mean) invstd recomputed. As in bn_stats.comp: invocations 8..255 copy the next
// tile of d and d xhat into shared memory while invocations 0..7 run the 8 lanes' TwoSum
// chains over the current one; invocation 0 totals.
#include "common.glsl"
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer DY { float v[]; } dy;
layout(std430, binding = 1) readonly buffer YR { float v[]; } yr;
layout(std430, binding = 2) readonly buffer X { float v[]; } x;
layout(std430, binding = 3) readonly buffer Mean { float v[]; } mean;
layout(std430, binding = 4) readonly buffer IS { float v[]; } invstd;
layout(std430, binding = 5) writeonly buffer DG { float v[]; } dgamma;
layout(std430, binding = 6) writeonly buffer DB { float v[]; } dbeta;
layout(push_constant) uniform P { int N, C, HW, relu; } p;
const int TILE = 768; // two tiles of two arrays: 12 KiB of shared memory (16 KiB is all Vulkan guarantees)
shared float tb[2][TILE], tg[2][TILE];
shared float bs[8], bc[8], gs[8], gc[8];

void fill(int buf, int ch, int base, int cnt, int first, int step) {
    for (int q = first; q < cnt; q += step) {
        int j = base + q, n = j / p.HW, e = (n * p.C + ch) * p.HW + (j - n * p.HW);
        float d = p.relu != 0 && !(yr.v[e] > 0.0) ? 0.0 : dy.v[e];
        precise float xh = (x.v[e] - mean.v[ch]) * invstd.v[ch];
        precise float dx = d * xh;
        tb[buf][q] = d;
        tg[buf][q] = dx;
    }
}

void main() {
    int ch = int(gl_WorkGroupID.x), t = int(gl_LocalInvocationID.x), M = p.N * p.HW;
    int nt = (M + TILE - 1) / TILE;
    precise float sb = 0.0, cb = 0.0, sg = 0.0, cg = 0.0;
    fill(0, ch, 0, min(TILE, M), t, 256);
    barrier();
    for (int b = 0; b < nt; b++) {
        int cur = b & 1, cnt = min(TILE, M - b * TILE);
        if (t >= 8 && b + 1 < nt) fill(cur ^ 1, ch, (b + 1) * TILE, min(TILE, M - (b + 1) * TILE), t - 8, 248);
        if (t < 8) {
            int q = t;
            for (; q + 24 < cnt; q += 32) {
                float vb[4], vg[4];
                for (int u = 0; u < 4; u++) {
                    vb[u] = tb[cur][q + 8 * u];
                    vg[u] = tg[cur][q + 8 * u];
                }
                for (int u = 0; u < 4; u++) {
                    twosum(sb, cb, vb[u]);
                    twosum(sg, cg, vg[u]);
                }
            }
            for (; q < cnt; q += 8) {
                twosum(sb, cb, tb[cur][q]);
                twosum(sg, cg, tg[cur][q]);
            }
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
