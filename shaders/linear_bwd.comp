#version 450
#extension GL_GOOGLE_include_directive : require
// linear_bwd.comp: one invocation per output value of the three gradients:
// dx[n][i] = sum over o of w[o][i] dy[n][o]; dw[o][i] = sum over n of dy[n][o] x[n][i];
// db[o] = sum over n of dy[n][o] (all ascending, from +0).
#include "common.glsl"
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer X { float v[]; } x;
layout(std430, binding = 1) readonly buffer Wt { float v[]; } w;
layout(std430, binding = 2) readonly buffer DY { float v[]; } dy;
layout(std430, binding = 3) writeonly buffer DX { float v[]; } dx;
layout(std430, binding = 4) writeonly buffer DW { float v[]; } dw;
layout(std430, binding = 5) writeonly buffer DB { float v[]; } db;
layout(push_constant) uniform P { int N, I, O; } p;
void main() {
    int e = int(gid()), nx = p.N * p.I, nw = p.O * p.I;
    precise float acc = 0.0;
    if (e < nx) {
        int n = e / p.I, i = e % p.I;
        for (int o = 0; o < p.O; o++) acc = acc + w.v[o * p.I + i] * dy.v[n * p.O + o];
        dx.v[e] = acc;
    } else if (e < nx + nw) {
        int q = e - nx, o = q / p.I, i = q % p.I;
        for (int n = 0; n < p.N; n++) acc = acc + dy.v[n * p.O + o] * x.v[n * p.I + i];
        dw.v[q] = acc;
    } else if (e < nx + nw + p.O) {
        int o = e - nx - nw;
        for (int n = 0; n < p.N; n++) acc = acc + dy.v[n * p.O + o];
        db.v[o] = acc;
    }
}
