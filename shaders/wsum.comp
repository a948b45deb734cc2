#version 450
#extension GL_GOOGLE_include_directive : require
// wsum.comp: y = sum_k a_k x_k, k ascending, up to 8 terms per dispatch; a longer sum
// continues from the y of the previous dispatch (first = 0), which is the same sequence of
// roundings as one loop.
#include "common.glsl"
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer X0 { float v[]; } x0;
layout(std430, binding = 1) readonly buffer X1 { float v[]; } x1;
layout(std430, binding = 2) readonly buffer X2 { float v[]; } x2;
layout(std430, binding = 3) readonly buffer X3 { float v[]; } x3;
layout(std430, binding = 4) readonly buffer X4 { float v[]; } x4;
layout(std430, binding = 5) readonly buffer X5 { float v[]; } x5;
layout(std430, binding = 6) readonly buffer X6 { float v[]; } x6;
layout(std430, binding = 7) readonly buffer X7 { float v[]; } x7;
layout(std430, binding = 8) buffer Y { float v[]; } y;
layout(push_constant) uniform P { uint n; int cnt, first; float a[8]; } p;
void main() {
    uint i = gid();
    if (i >= p.n) return;
    precise float acc = 0.0;
    if (p.first == 0) acc = y.v[i];
    if (p.cnt > 0) acc = acc + p.a[0] * x0.v[i];
    if (p.cnt > 1) acc = acc + p.a[1] * x1.v[i];
    if (p.cnt > 2) acc = acc + p.a[2] * x2.v[i];
    if (p.cnt > 3) acc = acc + p.a[3] * x3.v[i];
    if (p.cnt > 4) acc = acc + p.a[4] * x4.v[i];
    if (p.cnt > 5) acc = acc + p.a[5] * x5.v[i];
    if (p.cnt > 6) acc = acc + p.a[6] * x6.v[i];
    if (p.cnt > 7) acc = acc + p.a[7] * x7.v[i];
    y.v[i] = acc;
}
