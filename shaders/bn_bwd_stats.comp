#version 450
#extension GL_GOOGLE_include_directive : require
// bn_bwd_stats.comp: dbeta = K8C(d), dgamma = K8C(d xhat) of one channel per workgroup
// (reference/ops.h), d = dy through the fused ReLU's mask (relu = 1: yr > 0 ? dy : 0) and
// xhat = (x - mean) invstd recomputed. The two sums share the work split of bn_stats.comp:
// invocation t runs lane t mod 8 of the chunks of block t / 8, combining them with the running
// stack; the blocks' states are combined with strides 1, 2, 4, ...; invocation 0 totals.
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
const int CHUNK = 256, DEPTH = 24;
shared float b_s[32][8], b_c[32][8], g_s[32][8], g_c[32][8];

void main() {
    int ch = int(gl_WorkGroupID.x), t = int(gl_LocalInvocationID.x), M = p.N * p.HW;
    int l = t & 7, w = t >> 3;
    int Q = (M + CHUNK - 1) / CHUNK, k = 1;
    while (k * 32 < Q) k *= 2;
    int owners = (Q + k - 1) / k;
    float mc = mean.v[ch], ic = invstd.v[ch];
    if (w < owners) {
        float bss[DEPTH], bsc[DEPTH], gss[DEPTH], gsc[DEPTH];
        int lv[DEPTH], depth = 0;
        for (int q = w * k; q < min((w + 1) * k, Q); q++) {
            precise float sb = 0.0, cb = 0.0, sg = 0.0, cg = 0.0;
            for (int j = q * CHUNK + l; j < min(q * CHUNK + CHUNK, M); j += 8) {
                int n = j / p.HW, e = (n * p.C + ch) * p.HW + (j - n * p.HW);
                float d = p.relu != 0 && !(yr.v[e] > 0.0) ? 0.0 : dy.v[e];
                precise float xh = (x.v[e] - mc) * ic;
                precise float dx = d * xh;
                twosum(sb, cb, d);
                twosum(sg, cg, dx);
            }
            bss[depth] = sb, bsc[depth] = cb, gss[depth] = sg, gsc[depth] = cg, lv[depth] = 0, depth++;
            while (depth >= 2 && lv[depth - 1] == lv[depth - 2]) {
                k8_comb(bss[depth - 2], bsc[depth - 2], bss[depth - 1], bsc[depth - 1]);
                k8_comb(gss[depth - 2], gsc[depth - 2], gss[depth - 1], gsc[depth - 1]);
                lv[depth - 2]++, depth--;
            }
        }
        float abs_ = bss[depth - 1], abc = bsc[depth - 1], ags = gss[depth - 1], agc = gsc[depth - 1];
        for (int i = depth - 2; i >= 0; i--) {
            float s2 = bss[i], c2 = bsc[i], s3 = gss[i], c3 = gsc[i];
            k8_comb(s2, c2, abs_, abc);
            k8_comb(s3, c3, ags, agc);
            abs_ = s2, abc = c2, ags = s3, agc = c3;
        }
        b_s[w][l] = abs_, b_c[w][l] = abc, g_s[w][l] = ags, g_c[w][l] = agc;
    }
    barrier();
    for (int stride = 1; stride < owners; stride *= 2) {
        if (w < owners && w % (2 * stride) == 0 && w + stride < owners) {
            float s1 = b_s[w][l], c1 = b_c[w][l], s3 = g_s[w][l], c3 = g_c[w][l];
            k8_comb(s1, c1, b_s[w + stride][l], b_c[w + stride][l]);
            k8_comb(s3, c3, g_s[w + stride][l], g_c[w + stride][l]);
            b_s[w][l] = s1, b_c[w][l] = c1, g_s[w][l] = s3, g_c[w][l] = c3;
        }
        barrier();
    }
    if (t == 0) {
        precise float s = 0.0, c = 0.0;
        for (int i = 0; i < 8; i++) twosum(s, c, b_s[0][i]);
        for (int i = 0; i < 8; i++) twosum(s, c, b_c[0][i]);
        precise float db = s + c;
        s = 0.0;
        c = 0.0;
        for (int i = 0; i < 8; i++) twosum(s, c, g_s[0][i]);
        for (int i = 0; i < 8; i++) twosum(s, c, g_c[0][i]);
        precise float dg = s + c;
        dbeta.v[ch] = db;
        dgamma.v[ch] = dg;
    }
}
