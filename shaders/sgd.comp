#version 450
#extension GL_GOOGLE_include_directive : require
// sgd.comp: the SGD update of up to four parameter tensors in one dispatch, their elements one
// after the other in the invocations (tensor t: bindings 3 t .. 3 t + 2, its w, g and momentum;
// its elements end at invocation end[t]), each element as reference/ops.h's ref_sgd: g' = g + wd w (when wd != 0); with momentum
// m = first ? g' : momentum m + g', d = m; else d = g'; w = w - lr d.
#include "common.glsl"
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer W0 { float v[]; } w0;
layout(std430, binding = 1) readonly buffer G0 { float v[]; } g0;
layout(std430, binding = 2) buffer M0 { float v[]; } m0;
layout(std430, binding = 3) buffer W1 { float v[]; } w1;
layout(std430, binding = 4) readonly buffer G1 { float v[]; } g1;
layout(std430, binding = 5) buffer M1 { float v[]; } m1;
layout(std430, binding = 6) buffer W2 { float v[]; } w2;
layout(std430, binding = 7) readonly buffer G2 { float v[]; } g2;
layout(std430, binding = 8) buffer M2 { float v[]; } m2;
layout(std430, binding = 9) buffer W3 { float v[]; } w3;
layout(std430, binding = 10) readonly buffer G3 { float v[]; } g3;
layout(std430, binding = 11) buffer M3 { float v[]; } m3;
layout(push_constant) uniform P { uint end[4]; float lr, momentum, wd; int first; } p;

// one element of one tensor (W, G, M: its buffers)
#define SGD_STEP(W, G, M)                                                                          \
    {                                                                                              \
        precise float d = G.v[i];                                                                  \
        if (p.wd != 0.0) d = G.v[i] + p.wd * W.v[i];                                               \
        if (p.momentum != 0.0) {                                                                   \
            precise float m = d;                                                                   \
            if (p.first == 0) m = M.v[i] * p.momentum + d;                                         \
            M.v[i] = m;                                                                            \
            d = m;                                                                                 \
        }                                                                                          \
        precise float nw = W.v[i] - p.lr * d;                                                      \
        W.v[i] = nw;                                                                               \
    }

void main() {
    uint i = gid();
    if (i < p.end[0]) SGD_STEP(w0, g0, m0)
    else if (i < p.end[1]) { i -= p.end[0]; SGD_STEP(w1, g1, m1) }
    else if (i < p.end[2]) { i -= p.end[1]; SGD_STEP(w2, g2, m2) }
    else if (i < p.end[3]) { i -= p.end[2]; SGD_STEP(w3, g3, m3) }
}
