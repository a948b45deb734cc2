#version 450
#extension GL_GOOGLE_include_directive : require
// sgd.comp: g' = g + wd w (when wd != 0); with momentum m = first ? g' : momentum m + g',
// d = m; else d = g'; w = w - lr d (reference/ops.h).
#include "common.glsl"
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer Wt { float v[]; } w;
layout(std430, binding = 1) readonly buffer G { float v[]; } g;
layout(std430, binding = 2) buffer M { float v[]; } mom;
layout(push_constant) uniform P { uint n; float lr, momentum, wd; int first; } p;
void main() {
    uint i = gid();
    if (i >= p.n) return;
    precise float d = g.v[i];
    if (p.wd != 0.0) d = g.v[i] + p.wd * w.v[i];
    if (p.momentum != 0.0) {
        precise float m = d;
        if (p.first == 0) m = mom.v[i] * p.momentum + d;
        mom.v[i] = m;
        d = m;
    }
    precise float nw = w.v[i] - p.lr * d;
    w.v[i] = nw;
}
