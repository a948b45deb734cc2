#version 450
#extension GL_GOOGLE_include_directive : require
// bn_stats.comp: BatchNorm training statistics of one channel per workgroup (reference/ops.h):
// mean = K8C(x) invM; var = K8C((x - mean)^2) invM; invstd = rsqrt(var + eps); running
// statistics updated with momentum. K8C cuts the channel's M elements into chunks of 256, each
// a K8 state (8 lanes, element j to lane j mod 8), combined in the stride-doubling tree. Here
// invocation t runs lane t mod 8 of the chunks of block t / 8: 32 blocks of k consecutive
// chunks, k the smallest power of two that covers the chunks with 32 blocks; an aligned block
// of 2^m chunks is a subtree of the stride tree, which the invocation combines with the
// reference's running stack; the blocks' states are then combined in shared memory with strides
// 1, 2, 4, ... (the tree's upper levels), and invocation 0 totals the lanes as K8 does.
#include "common.glsl"
#include "fmath.glsl"
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer X { float v[]; } x;
layout(std430, binding = 1) writeonly buffer Mean { float v[]; } mean_out;
layout(std430, binding = 2) writeonly buffer Invstd { float v[]; } invstd;
layout(std430, binding = 3) buffer RM { float v[]; } rm;
layout(std430, binding = 4) buffer RV { float v[]; } rv;
layout(push_constant) uniform P { int N, C, HW; float eps, momentum; } p;
const int CHUNK = 256, DEPTH = 24;
shared float bs[32][8], bc[32][8], sh_res;

// element j of channel ch (j = n HW + i): x, or (x - mean)^2 in the second pass
float elem(int ch, int j, int pass, float mean) {
    int n = j / p.HW, i = j - n * p.HW;
    float v = x.v[(n * p.C + ch) * p.HW + i];
    if (pass == 0) return v;
    precise float d = v - mean;
    precise float dd = d * d;
    return dd;
}

// The K8C sum of the channel into sh_res (every invocation calls it; uniform control flow).
void k8c(int ch, int M, int pass, float mean) {
    int t = int(gl_LocalInvocationID.x), l = t & 7, w = t >> 3;
    int Q = (M + CHUNK - 1) / CHUNK, k = 1;
    while (k * 32 < Q) k *= 2;
    int owners = (Q + k - 1) / k;
    if (w < owners) {
        float ss[DEPTH], sc[DEPTH];
        int lv[DEPTH], depth = 0;
        for (int q = w * k; q < min((w + 1) * k, Q); q++) {
            precise float s = 0.0, c = 0.0;
            for (int j = q * CHUNK + l; j < min(q * CHUNK + CHUNK, M); j += 8) twosum(s, c, elem(ch, j, pass, mean));
            ss[depth] = s, sc[depth] = c, lv[depth] = 0, depth++;
            while (depth >= 2 && lv[depth - 1] == lv[depth - 2]) {
                k8_comb(ss[depth - 2], sc[depth - 2], ss[depth - 1], sc[depth - 1]);
                lv[depth - 2]++, depth--;
            }
        }
        float as = ss[depth - 1], ac = sc[depth - 1];
        for (int i = depth - 2; i >= 0; i--) {
            float s2 = ss[i], c2 = sc[i];
            k8_comb(s2, c2, as, ac);
            as = s2, ac = c2;
        }
        bs[w][l] = as;
        bc[w][l] = ac;
    }
    barrier();
    for (int stride = 1; stride < owners; stride *= 2) {
        if (w < owners && w % (2 * stride) == 0 && w + stride < owners) {
            float s1 = bs[w][l], c1 = bc[w][l];
            k8_comb(s1, c1, bs[w + stride][l], bc[w + stride][l]);
            bs[w][l] = s1, bc[w][l] = c1;
        }
        barrier();
    }
    if (t == 0) {
        precise float s = 0.0, c = 0.0;
        for (int i = 0; i < 8; i++) twosum(s, c, bs[0][i]);
        for (int i = 0; i < 8; i++) twosum(s, c, bc[0][i]);
        precise float r = s + c;
        sh_res = r;
    }
    barrier();
}

void main() {
    int ch = int(gl_WorkGroupID.x), t = int(gl_LocalInvocationID.x), M = p.N * p.HW;
    precise float invM = fm_recip(float(M));
    k8c(ch, M, 0, 0.0);
    precise float mean = sh_res * invM;
    barrier(); /* sh_res read by all before the second sum writes it */
    k8c(ch, M, 1, mean);
    if (t == 0) {
        precise float var = sh_res * invM;
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
