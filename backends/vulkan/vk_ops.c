/* vk_ops.c: the compute pipelines and the backend interface's ops on Vulkan. Each op
 * records one or two dispatches of a shader in shaders/ (compiled to SPIR-V at build time
 * and embedded: vk_shaders.h is generated), preceded by a barrier where it uses a buffer that a
 * command since the last barrier used (vk_touch). The shaders follow
 * the summation orders of reference/ops.h; see each shader's opening comment. */
#include <stdio.h>
#include <string.h>

#include "vk.h"
#include "vk_shaders.h" /* generated: spv_<name>[] for every shaders/<name>.comp */

static const struct {
    const uint32_t *code[3]; /* as written; with DenormPreserve; with DenormFlushToZero (vk_ctx.variant) */
    size_t bytes[3];
    uint32_t wg; /* local_size_x of the shader */
} shader[SH_COUNT] = {
#define S(id, name, wg)                                                                                                \
    [id] = {{spv_##name, spv_##name##_dp, spv_##name##_ftz}, {sizeof spv_##name, sizeof spv_##name##_dp, sizeof spv_##name##_ftz}, wg}
#define SHADER(id, name, wg) S(id, name, wg),
#include "vk_shaders.def"
#undef SHADER
#undef S
};

flce_status vk_pipelines_create(vk_ctx *c, flce_err *e) {
    VkDescriptorSetLayoutBinding b[VKB_MAX_BINDINGS];
    for (int i = 0; i < VKB_MAX_BINDINGS; i++)
        b[i] = (VkDescriptorSetLayoutBinding){(uint32_t)i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                              VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo di = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, NULL,
                                          VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR, VKB_MAX_BINDINGS, b};
    if (vkCreateDescriptorSetLayout(c->dev, &di, NULL, &c->dsl) != VK_SUCCESS)
        return flce_fail(e, FLCE_ERR_ARG, "vulkan: cannot create the descriptor set layout");
    VkPushConstantRange pr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, VKB_PUSH_BYTES};
    VkPipelineLayoutCreateInfo li = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, NULL, 0, 1, &c->dsl, 1, &pr};
    if (vkCreatePipelineLayout(c->dev, &li, NULL, &c->layout) != VK_SUCCESS)
        return flce_fail(e, FLCE_ERR_ARG, "vulkan: cannot create the pipeline layout");
    for (int s = 0; s < SH_COUNT; s++) {
        VkShaderModuleCreateInfo mi = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, NULL, 0, shader[s].bytes[c->variant],
                                       shader[s].code[c->variant]};
        VkShaderModule mod;
        if (vkCreateShaderModule(c->dev, &mi, NULL, &mod) != VK_SUCCESS)
            return flce_fail(e, FLCE_ERR_ARG, "vulkan: cannot create shader module %d", s);
        VkComputePipelineCreateInfo ci = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
        ci.stage = (VkPipelineShaderStageCreateInfo){VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0,
                                                     VK_SHADER_STAGE_COMPUTE_BIT, mod, "main", NULL};
        ci.layout = c->layout;
        VkResult r = vkCreateComputePipelines(c->dev, VK_NULL_HANDLE, 1, &ci, NULL, &c->pipe[s]);
        vkDestroyShaderModule(c->dev, mod, NULL);
        if (r != VK_SUCCESS) return flce_fail(e, FLCE_ERR_ARG, "vulkan: cannot create pipeline %d (VkResult %d)", s, (int)r);
        c->wg_x[s] = shader[s].wg;
    }
    return FLCE_OK;
}

void vk_pipelines_destroy(vk_ctx *c) {
    vk_forget_saved(c); /* their command buffers name the pipelines */
    for (int s = 0; s < SH_COUNT; s++)
        if (c->pipe[s]) vkDestroyPipeline(c->dev, c->pipe[s], NULL), c->pipe[s] = VK_NULL_HANDLE;
    if (c->layout) vkDestroyPipelineLayout(c->dev, c->layout, NULL), c->layout = VK_NULL_HANDLE;
    if (c->dsl) vkDestroyDescriptorSetLayout(c->dev, c->dsl, NULL), c->dsl = VK_NULL_HANDLE;
}

void vk_dispatch(vk_ctx *c, int sh, int nbuf, const flce_buf *const *bufs, const void *push, size_t push_bytes,
                 size_t items, uint32_t z) {
    if (items == 0 || z == 0 || c->failed) return;
    vk_record(c);
    vk_touch(c, nbuf, bufs);
    size_t groups = (items + c->wg_x[sh] - 1) / c->wg_x[sh];
    uint32_t gx = groups > 65535 ? 65535 : (uint32_t)groups, gy = (uint32_t)((groups + gx - 1) / gx);
    int prof = c->qpool && c->nq + 2 <= 2 * 1024;
    if (prof) {
        if (c->nq == 0) vk_log(c, VKL_QRESET);
        vk_cmd *t = vk_log(c, VKL_TIMESTAMP);
        if (t) t->gx = (uint32_t)c->nq, t->gy = VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT;
    }
    vk_cmd *d = vk_log(c, VKL_DISPATCH);
    if (!d) return;
    d->sh = (uint32_t)sh, d->nbuf = (uint32_t)nbuf, d->gx = gx, d->gy = gy, d->gz = z;
    for (int i = 0; i < nbuf; i++) d->buf[i] = bufs[i]->buf;
    memcpy(d->push, push, push_bytes);
    c->sh_groups[sh] += (double)gx * gy * z;
    c->sh_disp[sh]++;
    if (prof) {
        vk_cmd *t = vk_log(c, VKL_TIMESTAMP);
        if (t) t->gx = (uint32_t)c->nq + 1, t->gy = VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT;
        c->q_shader[c->nq / 2] = sh;
        c->nq += 2;
    }
    c->dispatches++;
}

#define DISPATCH(c, sh, push, items, z, ...)                                                                         \
    do {                                                                                                             \
        const flce_buf *bufs_[] = {__VA_ARGS__};                                                                     \
        vk_dispatch(c, sh, (int)(sizeof bufs_ / sizeof bufs_[0]), bufs_, &(push), sizeof(push), items, z);           \
    } while (0)

typedef struct {
    int32_t N, C, H, W, K, R, stride, pad, OH, OW;
} conv_pc;

static conv_pc conv_push(const flce_conv_shape *s) {
    return (conv_pc){s->N, s->C, s->H, s->W, s->K, s->R, s->stride, s->pad, s->OH, s->OW};
}

/* The tiled convolution shaders: a workgroup of 128 invocations computes a tile of 32 channels
 * (z of the dispatch) by 64 columns (its flat x-y index); items asks vk_dispatch for one
 * workgroup per tile of columns. */
#define CONV_TM 32
#define CONV_TN 64
static size_t conv_tile_items(size_t cols) { return (cols + CONV_TN - 1) / CONV_TN * 128; }
static uint32_t conv_tile_z(int rows) { return (uint32_t)((rows + CONV_TM - 1) / CONV_TM); }

static void v_conv2d_fwd(flce_backend *be, const flce_conv_shape *s, const flce_buf *x, const flce_buf *w, flce_buf *y) {
    vk_ctx *c = be->ctx;
    conv_pc p = conv_push(s);
    size_t pix = (size_t)s->N * s->OH * s->OW;
    if (c->conv_tiled) DISPATCH(c, SH_CONV_FWD_T, p, conv_tile_items(pix), conv_tile_z(s->K), x, w, y);
    else DISPATCH(c, SH_CONV_FWD, p, pix, (uint32_t)((s->K + 7) / 8), x, w, y);
}

static void v_conv2d_bwd_data(flce_backend *be, const flce_conv_shape *s, const flce_buf *dy, const flce_buf *w,
                            flce_buf *dx) {
    vk_ctx *c = be->ctx;
    conv_pc p = conv_push(s);
    size_t pix = (size_t)s->N * s->H * s->W;
    if (c->conv_tiled) DISPATCH(c, SH_CONV_BWD_DATA_T, p, conv_tile_items(pix), conv_tile_z(s->C), dy, w, dx);
    else DISPATCH(c, SH_CONV_BWD_DATA, p, pix, (uint32_t)((s->C + 7) / 8), dy, w, dx);
}

static void v_conv2d_bwd_weight(flce_backend *be, const flce_conv_shape *s, const flce_buf *x, const flce_buf *dy,
                              flce_buf *dw) {
    vk_ctx *c = be->ctx;
    conv_pc p = conv_push(s);
    size_t L = (size_t)s->C * s->R * s->R, Q = (size_t)s->K * L;
    flce_buf *part = vk_scratch(c, 0, sizeof(float) * Q * (size_t)s->N);
    if (c->conv_tiled) /* one workgroup per (k tile, l tile), for every sample */
        DISPATCH(c, SH_CONV_BWD_WEIGHT_T, p, conv_tile_items(L) * conv_tile_z(s->K), (uint32_t)s->N, x, dy, part);
    else DISPATCH(c, SH_CONV_BWD_WEIGHT, p, Q, (uint32_t)s->N, x, dy, part);
    struct {
        int32_t rows, cols;
    } q = {s->N, (int32_t)Q};
    DISPATCH(c, SH_SUM_ROWS, q, Q, 1, part, dw);
}

typedef struct {
    int32_t N, C, HW;
    float eps, momentum;
} bn_pc;

static void v_bn_fwd_train(flce_backend *be, int N, int C, int HW, float eps, float momentum, int relu, const flce_buf *x,
                         const flce_buf *gamma, const flce_buf *beta, flce_buf *y, flce_buf *mean, flce_buf *invstd,
                         flce_buf *running_mean, flce_buf *running_var) {
    vk_ctx *c = be->ctx;
    bn_pc p = {N, C, HW, eps, momentum};
    DISPATCH(c, SH_BN_STATS, p, (size_t)C * 256, 1, x, mean, invstd, running_mean, running_var);
    struct {
        int32_t N, C, HW, relu;
    } q = {N, C, HW, relu};
    DISPATCH(c, SH_BN_APPLY, q, (size_t)N * C * HW, 1, x, mean, invstd, gamma, beta, y);
}

static void v_add(flce_backend *be, size_t n, int relu, const flce_buf *a, const flce_buf *b, flce_buf *y);

/* as the reference defines it: the BatchNorm into y, then y = relu(y + r) in place */
static void v_bn_fwd_train_res(flce_backend *be, int N, int C, int HW, float eps, float momentum, const flce_buf *x,
                             const flce_buf *gamma, const flce_buf *beta, const flce_buf *r, flce_buf *y, flce_buf *mean,
                             flce_buf *invstd, flce_buf *running_mean, flce_buf *running_var) {
    v_bn_fwd_train(be, N, C, HW, eps, momentum, 0, x, gamma, beta, y, mean, invstd, running_mean, running_var);
    v_add(be, (size_t)N * C * HW, 1, y, r, y);
}

static void v_bn_fwd_eval(flce_backend *be, int N, int C, int HW, float eps, int relu, const flce_buf *x,
                        const flce_buf *gamma, const flce_buf *beta, const flce_buf *running_mean,
                        const flce_buf *running_var, flce_buf *y) {
    struct {
        int32_t N, C, HW;
        float eps;
        int32_t relu;
    } p = {N, C, HW, eps, relu};
    DISPATCH(be->ctx, SH_BN_EVAL, p, (size_t)N * C * HW, 1, x, gamma, beta, running_mean, running_var, y);
}

/* as the reference defines it: the convolution into the scratch t, its BatchNorm into y, then y =
 * [relu](y + r) in place (the ops the model issued one by one before 2026-11-29) */
static void v_conv2d_fwd_bn_eval(flce_backend *be, const flce_conv_shape *s, const flce_buf *x, const flce_buf *w,
                                 float eps, const flce_buf *gamma, const flce_buf *beta, const flce_buf *running_mean,
                                 const flce_buf *running_var, const flce_buf *r, int relu, flce_buf *t, flce_buf *y) {
    int P = s->OH * s->OW;
    v_conv2d_fwd(be, s, x, w, t);
    v_bn_fwd_eval(be, s->N, s->K, P, eps, relu && !r, t, gamma, beta, running_mean, running_var, y);
    if (r) v_add(be, (size_t)s->N * s->K * P, relu, y, r, y);
}

/* Without a fused ReLU, dy is bound in yr's place (never read: relu = 0). */
static void v_bn_bwd(flce_backend *be, int N, int C, int HW, const flce_buf *yr, const flce_buf *dy, const flce_buf *x,
                   const flce_buf *mean, const flce_buf *gamma, const flce_buf *invstd, flce_buf *dx, flce_buf *dgamma,
                   flce_buf *dbeta) {
    vk_ctx *c = be->ctx;
    struct {
        int32_t N, C, HW, relu;
    } p = {N, C, HW, yr != NULL};
    const flce_buf *m = yr ? yr : dy;
    DISPATCH(c, SH_BN_BWD_STATS, p, (size_t)C * 256, 1, dy, m, x, mean, invstd, dgamma, dbeta);
    DISPATCH(c, SH_BN_BWD_APPLY, p, (size_t)N * C * HW, 1, dy, m, x, mean, gamma, invstd, dgamma, dbeta, dx);
}

typedef struct {
    uint32_t n;
    int32_t op;
} elt_pc;

static void v_relu_fwd(flce_backend *be, size_t n, const flce_buf *x, flce_buf *y) {
    elt_pc p = {(uint32_t)n, 0};
    DISPATCH(be->ctx, SH_ELTWISE, p, n, 1, x, x, y);
}

static void v_relu_bwd(flce_backend *be, size_t n, const flce_buf *y, const flce_buf *dy, flce_buf *dx) {
    elt_pc p = {(uint32_t)n, 1};
    DISPATCH(be->ctx, SH_ELTWISE, p, n, 1, y, dy, dx);
}

static void v_add(flce_backend *be, size_t n, int relu, const flce_buf *a, const flce_buf *b, flce_buf *y) {
    elt_pc p = {(uint32_t)n, relu ? 3 : 2};
    DISPATCH(be->ctx, SH_ELTWISE, p, n, 1, a, b, y);
}

/* as the reference defines it: the sum into dx, then the ReLU's mask in place */
static void v_add_relu_bwd(flce_backend *be, size_t n, const flce_buf *a, const flce_buf *b, const flce_buf *y,
                         flce_buf *dx) {
    v_add(be, n, 0, a, b, dx);
    v_relu_bwd(be, n, y, dx, dx);
}

typedef struct {
    int32_t N, C, HW, op;
} pool_pc;

static void v_avgpool_fwd(flce_backend *be, int N, int C, int HW, const flce_buf *x, flce_buf *z) {
    pool_pc p = {N, C, HW, 0};
    DISPATCH(be->ctx, SH_AVGPOOL, p, (size_t)N * C, 1, x, z);
}

static void v_avgpool_bwd(flce_backend *be, int N, int C, int HW, const flce_buf *dz, flce_buf *dx) {
    pool_pc p = {N, C, HW, 1};
    DISPATCH(be->ctx, SH_AVGPOOL, p, (size_t)N * C * HW, 1, dz, dx);
}

typedef struct {
    int32_t N, I, O;
} lin_pc;

static void v_linear_fwd(flce_backend *be, int N, int I, int O, const flce_buf *x, const flce_buf *w, const flce_buf *b,
                       flce_buf *y) {
    lin_pc p = {N, I, O};
    DISPATCH(be->ctx, SH_LINEAR_FWD, p, (size_t)N * O, 1, x, w, b, y);
}

static void v_linear_bwd(flce_backend *be, int N, int I, int O, const flce_buf *x, const flce_buf *w,
                       const flce_buf *dy, flce_buf *dx, flce_buf *dw, flce_buf *db) {
    lin_pc p = {N, I, O};
    DISPATCH(be->ctx, SH_LINEAR_BWD, p, (size_t)N * I + (size_t)O * I + O, 1, x, w, dy, dx, dw, db);
}

static void v_softmax_ce(flce_backend *be, int N, int C, const flce_buf *logits, const flce_buf *labels, flce_buf *loss,
                       flce_buf *dlogits, flce_buf *pred) {
    vk_ctx *c = be->ctx;
    struct {
        int32_t N, C;
    } p = {N, C};
    flce_buf *part = vk_scratch(c, 2, sizeof(float) * (size_t)N);
    DISPATCH(c, SH_SOFTMAX_CE, p, 64, 1, logits, labels, loss, dlogits, pred, part);
}

static void v_supcon(flce_backend *be, int N, int D, float tau, float lambda, const flce_buf *z, const flce_buf *labels,
                   flce_buf *loss, flce_buf *dz) {
    vk_ctx *c = be->ctx;
    struct {
        int32_t N, D;
        float tau, lambda;
        int32_t phase;
    } p = {N, D, tau, lambda, 0};
    flce_buf *work = vk_scratch(c, 3, sizeof(float) * (2 * (size_t)N * D + 2 * (size_t)N * N + 5 * (size_t)N + 1));
    size_t items[7] = {(size_t)N, (size_t)N * N, (size_t)N, (size_t)N * N, (size_t)N * D, (size_t)N, (size_t)N * D};
    for (p.phase = 0; p.phase < 7; p.phase++) DISPATCH(c, SH_SUPCON, p, items[p.phase], 1, z, labels, loss, work, dz);
}

/* SGD: held back and sent out four tensors at a time (vk_sgd_settle), their elements one after
 * the other in one grid: a model's 65 updates are 17 dispatches instead of 65, with as many
 * invocations as elements and the same arithmetic per element. */
void vk_sgd_settle(vk_ctx *c) {
    if (!c->sgd.count || c->sgd_emitting) return;
    c->sgd_emitting = 1;
    struct {
        uint32_t end[4];
        float lr, momentum, wd;
        int32_t first;
    } p = {{0}, c->sgd.lr, c->sgd.momentum, c->sgd.wd, c->sgd.first};
    const flce_buf *bufs[12];
    uint32_t at = 0;
    for (int k = 0; k < 4; k++) { /* unused slots: the first tensor's buffers, and no element */
        int j = k < c->sgd.count ? k : 0;
        bufs[3 * k] = c->sgd.w[j], bufs[3 * k + 1] = c->sgd.g[j], bufs[3 * k + 2] = c->sgd.m[j];
        at += k < c->sgd.count ? c->sgd.n[k] : 0;
        p.end[k] = at;
    }
    vk_dispatch(c, SH_SGD, 12, bufs, &p, sizeof p, at, 1);
    c->sgd.count = 0;
    c->sgd_emitting = 0;
}

static void v_sgd(flce_backend *be, size_t n, float lr, float momentum, float wd, int first, flce_buf *w,
                const flce_buf *g, flce_buf *mom) {
    vk_ctx *c = be->ctx;
    if (c->failed || n == 0) return;
    /* the held updates go out first when they are four, when the settings differ (bit for bit),
     * when the elements would pass 2^32, or when one of them uses a buffer of this one */
    const flce_buf *mine[3] = {w, g, mom ? mom : w};
    int go = c->sgd.count == 4 || memcmp(&lr, &c->sgd.lr, 4) || memcmp(&momentum, &c->sgd.momentum, 4) ||
             memcmp(&wd, &c->sgd.wd, 4) || first != c->sgd.first;
    size_t held = n;
    for (int k = 0; k < c->sgd.count; k++) {
        held += c->sgd.n[k];
        for (int j = 0; j < 3; j++) go |= mine[j] == c->sgd.w[k] || mine[j] == c->sgd.g[k] || mine[j] == c->sgd.m[k];
    }
    if (go || held > 0xffffffffu) vk_sgd_settle(c); /* (nothing held: does nothing) */
    int k = c->sgd.count++;
    c->sgd.lr = lr, c->sgd.momentum = momentum, c->sgd.wd = wd, c->sgd.first = first;
    c->sgd.w[k] = w, c->sgd.g[k] = g, c->sgd.m[k] = mom ? mom : w, c->sgd.n[k] = (uint32_t)n;
}

static void v_weighted_sum(flce_backend *be, size_t n, int K, const float *a, const flce_buf *const *xs, flce_buf *y) {
    vk_ctx *c = be->ctx;
    if (K == 0) { /* the empty sum: +0 everywhere */
        if (c->failed) return;
        vk_record(c);
        const flce_buf *used[1] = {y};
        vk_touch(c, 1, used);
        vk_cmd *d = vk_log(c, VKL_FILL);
        if (d) d->buf[0] = y->buf, d->size = VK_WHOLE_SIZE;
        return;
    }
    for (int k0 = 0; k0 < K; k0 += 8) {
        struct {
            uint32_t n;
            int32_t cnt, first;
            float a[8];
        } p = {(uint32_t)n, K - k0 < 8 ? K - k0 : 8, k0 == 0, {0}};
        const flce_buf *bufs[9];
        for (int j = 0; j < 8; j++) bufs[j] = j < p.cnt ? xs[k0 + j] : y;
        for (int j = 0; j < p.cnt; j++) p.a[j] = a[k0 + j];
        bufs[8] = y;
        vk_dispatch(c, SH_WSUM, 9, bufs, &p, sizeof p, n, 1);
    }
}

flce_status flce_vulkan_fmath(flce_backend *be, const float *x, const float *y, size_t n, float *out, flce_err *e) {
    vk_ctx *c = be->ctx;
    flce_buf *bx = be->buf_alloc(be, n * 4), *by = be->buf_alloc(be, n * 4), *bo = be->buf_alloc(be, 6 * n * 4);
    if (!bx || !by || !bo) {
        be->buf_free(be, bx), be->buf_free(be, by), be->buf_free(be, bo);
        return flce_fail(e, FLCE_ERR_NOMEM, "vulkan: out of device memory");
    }
    be->buf_write(be, bx, 0, x, n * 4);
    be->buf_write(be, by, 0, y, n * 4);
    uint32_t p = (uint32_t)n;
    DISPATCH(c, SH_FMATH, p, n, 1, bx, by, bo);
    be->buf_read(be, bo, 0, out, 6 * n * 4);
    be->buf_free(be, bx), be->buf_free(be, by), be->buf_free(be, bo);
    return FLCE_OK;
}

void vk_ops_install(flce_backend *be) {
#define VK_OP_SET(name, NAME, params, args) be->name = v_##name;
    FLCE_BACKEND_OPS(VK_OP_SET)
#undef VK_OP_SET
}
