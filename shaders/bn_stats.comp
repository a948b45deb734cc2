#version 450
#extension GL_GOOGLE_include_directive : require
// bn_stats.comp: BatchNorm training statistics of one channel per workgroup (reference/ops.h):
// mean = K8(x) invM; var = K8((x - mean)^2) invM; invstd = rsqrt(var + eps); running
// statistics updated with momentum. The K8 sum has 8 lanes (element j of the channel goes to
// lane j mod 8), each a sequential TwoSum chain, so its order allows 8 invocations to add.
// The other 248 keep them fed: they copy the next tile of 1024 elements into shared memory
// (coalesced loads) while invocations 0..7 run their lanes' chains over the current tile.
// Invocation 0 adds the lanes up.
#include "common.glsl"
#include "fmath.glsl"
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer X { float v[]; } x;
layout(std430, binding = 1) writeonly buffer Mean { float v[]; } mean_out;
layout(std430, binding = 2) writeonly buffer Invstd { float v[]; } invstd;
layout(std430, binding = 3) buffer RM { float v[]; } rm;
layout(std430, binding = 4) buffer RV { float v[]; } rv;
layout(push_constant) uniform P { int N, C, HW; float eps, momentum; } p;
const int TILE = 1024; // two tiles: 8 KiB of shared memory (16 KiB is all Vulkan guarantees)
shared float tile[2][TILE];
shared float ls[8], lc[8], sh_mean;

// the K8 total of the lanes' (s, c) pairs
float k8_total() {
    precise float s = 0.0, c = 0.0;
    for (int l = 0; l < 8; l++) twosum(s, c, ls[l]);
    for (int l = 0; l < 8; l++) twosum(s, c, lc[l]);
    precise float r = s + c;
    return r;
}

// element j of channel ch (j = n HW + i): x, or (x - mean)^2 in the second pass
float elem(int ch, int j, int pass, float mean) {
    int n = j / p.HW, i = j - n * p.HW;
    float v = x.v[(n * p.C + ch) * p.HW + i];
    if (pass == 0) return v;
    precise float d = v - mean;
    precise float dd = d * d;
    return dd;
}

// One K8 pass over the channel: invocations 8..255 copy tile b + 1 into shared memory while
// invocations 0..7 (the lanes) add tile b, 8 elements per lane at a time (loads first).
void k8_pass(int ch, int M, int pass, float mean) {
    int t = int(gl_LocalInvocationID.x), nt = (M + TILE - 1) / TILE;
    precise float s = 0.0, c = 0.0;
    for (int q = t; q < min(TILE, M); q += 256) tile[0][q] = elem(ch, q, pass, mean);
    barrier();
    for (int b = 0; b < nt; b++) {
        int cur = b & 1, cnt = min(TILE, M - b * TILE);
        if (t >= 8 && b + 1 < nt) {
            int base = (b + 1) * TILE, ncnt = min(TILE, M - base);
            for (int q = t - 8; q < ncnt; q += 248) tile[cur ^ 1][q] = elem(ch, base + q, pass, mean);
        }
        if (t < 8) {
            int q = t;
            for (; q + 56 < cnt; q += 64) {
                float v[8];
                for (int u = 0; u < 8; u++) v[u] = tile[cur][q + 8 * u];
                for (int u = 0; u < 8; u++) twosum(s, c, v[u]);
            }
            for (; q < cnt; q += 8) twosum(s, c, tile[cur][q]);
        }
        barrier();
    }
    if (t < 8) {
        ls[t] = s;
        lc[t] = c;
    }
    barrier();
}

void main() {
    int ch = int(gl_WorkGroupID.x), t = int(gl_LocalInvocationID.x), M = p.N * p.HW;
    precise float invM = fm_recip(float(M));
    k8_pass(ch, M, 0, 0.0);
    if (t == 0) {
        precise float m = k8_total() * invM;
        sh_mean = m;
    }
    barrier();
    float mean = sh_mean;
    k8_pass(ch, M, 1, mean);
    if (t == 0) {
        precise float var = k8_total() * invM;
        precise float is = fm_rsqrt(var + p.eps);
        mean_out.v[ch] = mean;
        invstd.v[ch] = is;
        precise float unb = var;
        if (M > 1) unb = (var * float(M)) * fm_recip(float(M - 1));
        precise float one_m = 1.0 - p.momentum;
        precise float nm = rm.v[ch] * one_m + mean * p.momentum;
        precise float nv = rv.v[ch] * one_m + unb * p.momentum;
        rm.v[ch] = nm;
        rv.v[ch] = nv;
    }
}
