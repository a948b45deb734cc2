#version 450
#extension GL_GOOGLE_include_directive : require
// eltwise.comp: op 0 relu: y = a > 0 ? a : 0; op 1 relu backward: y = a > 0 ? b : 0
// (a the forward output, b the incoming gradient); op 2 add: y = a + b; op 3 add and ReLU:
// y = a + b > 0 ? a + b : 0. In place is allowed.
#include "common.glsl"
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer A { float v[]; } a;
layout(std430, binding = 1) readonly buffer B { float v[]; } b;
layout(std430, binding = 2) writeonly buffer Y { float v[]; } y;
layout(push_constant) uniform P { uint n; int op; } p;
void main() {
    uint i = gid();
    if (i >= p.n) return;
    float av = a.v[i];
    if (p.op == 0) {
        y.v[i] = av > 0.0 ? av : 0.0;
    } else if (p.op == 1) {
        y.v[i] = av > 0.0 ? b.v[i] : 0.0;
    } else {
        precise float s = av + b.v[i];
        y.v[i] = p.op == 3 && !(s > 0.0) ? 0.0 : s;
    }
}
