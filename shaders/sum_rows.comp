#version 450
#extension GL_GOOGLE_include_directive : require
// sum_rows.comp: y[q] = sum over r (ascending, from +0) of a[r][q], r < rows: the sum over
// samples of the per-sample partial weight gradients.
#include "common.glsl"
layout(local_size_x = 128) in;
layout(std430, binding = 0) readonly buffer A { float v[]; } a;
layout(std430, binding = 1) writeonly buffer Y { float v[]; } y;
layout(push_constant) uniform P { int rows, cols; } p;
void main() {
    int q = int(gid());
    if (q >= p.cols) return;
    precise float acc = 0.0;
    for (int r = 0; r < p.rows; r++) acc = acc + a.v[r * p.cols + q];
    y.v[q] = acc;
}
