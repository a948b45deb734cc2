// common.glsl: included by every op shader, before any declaration. Built twice more, with
// FLCE_DENORM_PRESERVE and with FLCE_DENORM_FTZ, for devices that support the DenormPreserve or
// DenormFlushToZero execution mode for 32-bit floats (VK_KHR_shader_float_controls): there the
// contract's mode (docs/bit-exact.md) is asked for, not left to the default.
#ifdef FLCE_DENORM_PRESERVE
#extension GL_EXT_spirv_intrinsics : require
spirv_execution_mode(extensions = ["SPV_KHR_float_controls"], capabilities = [4464], 4459, 32); // DenormPreserve 32
#endif
#ifdef FLCE_DENORM_FTZ
#extension GL_EXT_spirv_intrinsics : require
spirv_execution_mode(extensions = ["SPV_KHR_float_controls"], capabilities = [4465], 4460, 32); // DenormFlushToZero 32
#endif
// A dispatch spreads its invocations over a
// 2-D grid of workgroups (x at most 65535), so gid() is the flat index of an invocation
// in the x-y plane; the z dimension, where used, selects a block of channels or a sample.

uint gid() {
    return gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * gl_WorkGroupSize.x) + gl_GlobalInvocationID.x;
}

// K8C's combination of two states of a lane (reference/ops.h, ref_k8_comb): (s1, c1) <-
// (s1 + s2, (c1 + c2) + e), e the rounding error of s1 + s2 (TwoSum).
void k8_comb(inout float s1, inout float c1, float s2, float c2) {
    precise float t = s1 + s2;
    precise float z = t - s1;
    precise float e = (s1 - (t - z)) + (s2 - z);
    precise float cn = (c1 + c2) + e;
    c1 = cn;
    s1 = t;
}

// One step of Knuth's TwoSum (reference/ops.h, K8): (s, c) <- s + x with its error in c.
void twosum(inout float s, inout float c, float x) {
    precise float t = s + x;
    precise float z = t - s;
    precise float cn = c + ((s - (t - z)) + (x - z));
    c = cn;
    s = t;
}

// The tiled convolution shaders (conv_*_tiled.comp): 128 invocations compute a 32 x 64 tile, each
// a 4 x 4 block (rows tm + 8i, columns tn + 16j); one staged chunk of the reduction, its first n
// steps in ascending order, added into the block's 16 chains acc[4 i + j] (declared precise).
#define TILE_MADD(As, Bs, acc, n, tm, tn)                                                          \
    for (int ll = 0; ll < (n); ll++) {                                                             \
        float a_[4], b_[4];                                                                        \
        for (int i = 0; i < 4; i++) a_[i] = As[ll][(tm) + 8 * i];                                  \
        for (int j = 0; j < 4; j++) b_[j] = Bs[ll][(tn) + 16 * j];                                 \
        for (int i = 0; i < 4; i++)                                                                \
            for (int j = 0; j < 4; j++) acc[i * 4 + j] = acc[i * 4 + j] + a_[i] * b_[j];           \
    }
