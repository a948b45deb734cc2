#version 450
#extension GL_GOOGLE_include_directive : require
// avgpool.comp: op 0 forward: z[n][c] = (sum over i ascending of x[n][c][i]) recip(HW);
// op 1 backward: dx[n][c][i] = dz[n][c] recip(HW).
#include "common.glsl"
#include "fmath.glsl"
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer A { float v[]; } a;
layout(std430, binding = 1) writeonly buffer Y { float v[]; } y;
layout(push_constant) uniform P { int N, C, HW, op; } p;
void main() {
    int e = int(gid());
    precise float inv = fm_recip(float(p.HW));
    if (p.op == 0) {
        if (e >= p.N * p.C) return;
        precise float acc = 0.0;
        for (int i = 0; i < p.HW; i++) acc = acc + a.v[e * p.HW + i];
        precise float z = acc * inv;
        y.v[e] = z;
    } else {
        if (e >= p.N * p.C * p.HW) return;
        precise float d = a.v[e / p.HW] * inv;
        y.v[e] = d;
    }
}
