/* vk.h: the Vulkan backend's shared state (internal to backends/vulkan/).
 *
 * vk_device.c  loading libvulkan at run time, choosing the device, the start-up probe,
 *              buffers, the command log that collects a training step, its command buffers
 *              (recorded once, replayed when the log repeats), submission.
 * vk_ops.c     the compute pipelines (SPIR-V compiled from shaders/ at build time and
 *              embedded) and every op of the backend interface as one or two dispatches.
 *
 * Ops are recorded, not run: each appends its commands (dispatches, copies, fills, and a
 * barrier where a buffer is used again: vk_touch) to the command log, so a whole training step
 * is one submission. The host sees results only through buf_read (or sync), which turns the log
 * into a command buffer, submits it and waits (vk_flush). buf_write copies into a host-visible
 * staging area and logs a copy, so writes keep their place in the order of ops without a
 * submission. A log equal, command for command, to one submitted before (every training step
 * after the first: the same buffers, shapes and staging offsets) is not recorded again: the
 * command buffer recorded for it then is submitted once more (FLCE_VK_REPLAY=0: every
 * submission recorded afresh, as before 2026-11-27; the same commands, so the same bits). */
#ifndef FLCE_VK_H
#define FLCE_VK_H

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include "backend.h"

/* The Vulkan functions used, loaded through vkGetInstanceProcAddr / vkGetDeviceProcAddr. */
#define VK_INSTANCE_FNS(X)                                                                                           \
    X(vkDestroyInstance) X(vkEnumeratePhysicalDevices) X(vkGetPhysicalDeviceProperties)                              \
    X(vkGetPhysicalDeviceQueueFamilyProperties) X(vkGetPhysicalDeviceMemoryProperties) X(vkCreateDevice)             \
    X(vkGetDeviceProcAddr) X(vkEnumerateDeviceExtensionProperties) X(vkGetPhysicalDeviceProperties2)
#define VK_DEVICE_FNS(X)                                                                                             \
    X(vkDestroyDevice) X(vkGetDeviceQueue) X(vkCreateBuffer) X(vkDestroyBuffer) X(vkGetBufferMemoryRequirements)     \
    X(vkAllocateMemory) X(vkFreeMemory) X(vkBindBufferMemory) X(vkMapMemory) X(vkUnmapMemory)                        \
    X(vkCreateCommandPool) X(vkDestroyCommandPool) X(vkAllocateCommandBuffers) X(vkBeginCommandBuffer)               \
    X(vkEndCommandBuffer) X(vkResetCommandBuffer) X(vkQueueSubmit) X(vkCreateFence) X(vkDestroyFence)                \
    X(vkWaitForFences) X(vkResetFences) X(vkCmdCopyBuffer) X(vkCmdFillBuffer) X(vkCmdPipelineBarrier)                \
    X(vkCmdBindPipeline) X(vkCmdPushConstants) X(vkCmdDispatch) X(vkCreateShaderModule) X(vkDestroyShaderModule)     \
    X(vkCreateDescriptorSetLayout) X(vkDestroyDescriptorSetLayout) X(vkCreatePipelineLayout)                         \
    X(vkDestroyPipelineLayout) X(vkCreateComputePipelines) X(vkDestroyPipeline) X(vkCmdPushDescriptorSetKHR)         \
    X(vkDeviceWaitIdle) X(vkCreateQueryPool) X(vkDestroyQueryPool) X(vkCmdResetQueryPool) X(vkCmdWriteTimestamp)     \
    X(vkGetQueryPoolResults)

#define VK_DECL(f) extern PFN_##f f;
VK_INSTANCE_FNS(VK_DECL)
VK_DEVICE_FNS(VK_DECL)
#undef VK_DECL

#define VKB_MAX_BINDINGS 12
#define VKB_PUSH_BYTES 128

struct flce_buf {
    VkBuffer buf;
    VkDeviceMemory mem;
    size_t bytes;
};

enum { /* the shaders, from their one list */
#define SHADER(id, name, wg) id,
#include "vk_shaders.def"
#undef SHADER
    SH_COUNT
};

/* One command of the log: what vkCmd* would record, by value, zero where unused, so that two
 * logs compare with memcmp. */
enum { VKL_DISPATCH = 1, VKL_BARRIER, VKL_HOST_BARRIER, VKL_COPY, VKL_FILL, VKL_QRESET, VKL_TIMESTAMP };
typedef struct {
    uint32_t kind;
    uint32_t sh, nbuf, gx, gy, gz;        /* dispatch: shader, bindings, workgroups; timestamp: gx query, gy stage */
    VkBuffer buf[VKB_MAX_BINDINGS];       /* dispatch: bindings 0..; copy: source, destination; fill: destination */
    VkDeviceSize a, b, size;              /* copy: source offset, destination offset, bytes; fill: offset, bytes */
    unsigned char push[VKB_PUSH_BYTES];   /* dispatch: push constants (zero past the shader's) */
} vk_cmd;

/* A command buffer recorded from a log, kept while every buffer and pipeline it names lives.
 * Only logs of VK_SAVE_MIN commands or more are kept: reading one buffer (a log of two or three
 * commands, 65 of them for a model's state) costs next to nothing to record, and would push the
 * training steps out of the VK_SAVED slots. */
#define VK_SAVED 8
#define VK_SAVE_MIN 32
typedef struct {
    VkCommandBuffer cmd;
    vk_cmd *log;
    int n, cap;
    int valid;
    long used; /* vk_ctx.tick when last submitted: the least recently used is recorded over */
} vk_saved;

typedef struct {
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice phys;
    VkPhysicalDeviceProperties props;
    VkDevice dev;
    VkQueue queue;
    uint32_t qfam;
    uint32_t mem_device, mem_host; /* memory type indices: device-local; host-visible and coherent */
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    int can_preserve, can_ftz;     /* the driver offers DenormPreserve / DenormFlushToZero for 32-bit floats */
    int variant;                   /* shaders as built: 0 as written, 1 DenormPreserve, 2 DenormFlushToZero */
    int ftz;                       /* the contract's mode the backend computes in, as the probe found it */
    int conv_tiled;                /* convolutions by the tiled shaders (*_tiled.comp), else the direct ones:
                                      the same bits; FLCE_VK_CONV=tiled|direct, default tiled on a GPU */
    int recording;                 /* the log holds work not yet submitted */
    vk_cmd *log;                   /* the commands since the last submission */
    int nlog, caplog;
    int replay;                    /* FLCE_VK_REPLAY (default 1): submit saved command buffers again */
    vk_saved saved[VK_SAVED];
    long tick;
    long replayed;                 /* submissions of a saved command buffer */
    double record_s;               /* host seconds spent recording command buffers */
    flce_backend *be;              /* the backend this is the context of (its failure record) */
    int failed;                    /* an op failed (submission, memory): nothing more is recorded or run */
    long dispatches, submissions;  /* statistics since creation */
    long barriers;                 /* pipeline barriers recorded since creation */
    long needed;                   /* of them, those vk_touch found a buffer used twice for */
    int test_no_barriers;          /* FLCE_VK_TEST_MISUSE=2: vk_touch records no barrier (tests only) */
    /* SGD updates waiting to go out as one dispatch of up to four tensors (vk_sgd_settle) */
    struct {
        int count;
        float lr, momentum, wd;
        int first;
        flce_buf *w[4], *m[4];
        const flce_buf *g[4];
        uint32_t n[4];
    } sgd;
    int sgd_emitting;
    /* the buffers that commands recorded since the last barrier use (vk_touch) */
#define VK_TOUCH_MAX 64
    const flce_buf *touched[VK_TOUCH_MAX];
    int ntouched;
    /* staging for buf_write (filled while recording) and for buf_read */
    flce_buf *up, *down;
    void *up_map, *down_map;
    size_t up_used;
    /* scratch buffers of the ops: 0 per-sample partial weight gradients, 1 unused (was BatchNorm means),
     * 2 softmax per-sample losses, 3 supcon work space */
    flce_buf *scratch[4];
    VkDescriptorSetLayout dsl;
    VkPipelineLayout layout;
    VkPipeline pipe[SH_COUNT];
    uint32_t wg_x[SH_COUNT];       /* workgroup size (x) of each shader */
    /* FLCE_VK_PROFILE=1: GPU time per shader from timestamps around each dispatch */
    VkQueryPool qpool;
    int nq;                        /* timestamps written in the current command buffer */
    int q_shader[2048];
    double sh_ns[SH_COUNT];
    long sh_calls[SH_COUNT];
    double sh_groups[SH_COUNT];    /* workgroups launched per shader (every dispatch, profiled or not) */
    long sh_disp[SH_COUNT];        /* dispatches per shader */
} vk_ctx;

/* vk_device.c */
flce_buf *vk_buf_new(vk_ctx *c, size_t bytes, uint32_t mem_type, void **map, flce_err *e);
void vk_buf_del(vk_ctx *c, flce_buf *b);
/* Record a failure in the backend (flce_backend_fail) and stop: later ops do nothing, reads
 * give zeros; the caller sees it through flce_backend_status. */
void vk_fail(vk_ctx *c, flce_status s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void vk_record(vk_ctx *c);              /* start a log, if none is open */
/* A new command at the end of the log, zeroed but for its kind; NULL (and the backend failed)
 * when out of memory. */
vk_cmd *vk_log(vk_ctx *c, uint32_t kind);
void vk_barrier(vk_ctx *c);             /* compute/transfer writes before later reads and writes */
/* Before a command on these buffers: a barrier where one of them was used by a command since
 * the last barrier (every buffer counted as read and written), then they are marked used. Commands
 * on disjoint buffers (the SGD of every parameter tensor) get no barrier between them. */
void vk_touch(vk_ctx *c, int n, const flce_buf *const *bufs);
void vk_flush(vk_ctx *c);               /* submit what was logged and wait */
void vk_forget_saved(vk_ctx *c);        /* a buffer or pipeline is about to go: no saved command buffer is valid */
flce_buf *vk_scratch(vk_ctx *c, int which, size_t bytes); /* at least bytes (grown when needed) */

/* vk_ops.c */
flce_status vk_pipelines_create(vk_ctx *c, flce_err *e);
void vk_pipelines_destroy(vk_ctx *c);
void vk_ops_install(flce_backend *be);
/* One dispatch: shader sh with the given buffers at bindings 0.., push constants, and
 * `items` invocations in x (spread over a 2-D grid) times `z` workgroups in z. */
void vk_dispatch(vk_ctx *c, int sh, int nbuf, const flce_buf *const *bufs, const void *push, size_t push_bytes,
                 size_t items, uint32_t z);
/* Dispatch the SGD updates that v_sgd holds back (consecutive updates with the same settings
 * go out together, up to four tensors a dispatch): called before any other command is logged
 * (vk_touch, vk_log) and before a submission, so that the log keeps the ops' order. */
void vk_sgd_settle(vk_ctx *c);
/* The fmath identity check: out[6 i ..] = recip, div(x, y), rsqrt, sqrt, exp, log on the device. */
flce_status flce_vulkan_fmath(flce_backend *be, const float *x, const float *y, size_t n, float *out, flce_err *e);

#endif
