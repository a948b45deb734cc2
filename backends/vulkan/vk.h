/* vk.h: the Vulkan backend's shared state (internal to backends/vulkan/).
 *
 * vk_device.c  loading libvulkan at run time, choosing the device, the start-up probe,
 *              buffers, the one command buffer that collects a training step, submission.
 * vk_ops.c     the compute pipelines (SPIR-V compiled from shaders/ at build time and
 *              embedded) and every op of the backend interface as one or two dispatches.
 *
 * Ops are recorded, not run: each appends its dispatches to the current command buffer,
 * with a barrier after each, so a whole training step is one submission. The host sees
 * results only through buf_read (or sync), which submits what was recorded and waits.
 * buf_write copies into a host-visible staging area and records a copy, so writes keep
 * their place in the order of ops without a submission. */
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

enum {
    SH_PROBE, SH_FMATH, SH_CONV_FWD, SH_CONV_BWD_DATA, SH_CONV_BWD_WEIGHT, SH_SUM_ROWS, SH_BN_STATS, SH_BN_APPLY,
    SH_BN_EVAL, SH_BN_BWD_STATS, SH_BN_BWD_APPLY, SH_ELTWISE, SH_AVGPOOL, SH_LINEAR_FWD, SH_LINEAR_BWD,
    SH_SOFTMAX_CE, SH_SUPCON, SH_SGD, SH_WSUM, SH_CONV_FWD_T, SH_CONV_BWD_DATA_T, SH_CONV_BWD_WEIGHT_T, SH_COUNT
};

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
    int recording;                 /* cmd is recording and holds work not yet submitted */
    flce_backend *be;              /* the backend this is the context of (its failure record) */
    int failed;                    /* an op failed (submission, memory): nothing more is recorded or run */
    long dispatches, submissions;  /* statistics since creation */
    long barriers;                 /* pipeline barriers recorded since creation */
    long needed;                   /* of them, those vk_touch found a buffer used twice for */
    int test_no_barriers;          /* FLCE_VK_TEST_MISUSE=2: vk_touch records no barrier (tests only) */
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
void vk_record(vk_ctx *c);              /* make sure cmd is recording */
void vk_barrier(vk_ctx *c);             /* compute/transfer writes before later reads and writes */
/* Before a command on these buffers: a barrier where one of them was used by a command since
 * the last barrier (every buffer counted as read and written), then they are marked used. Commands
 * on disjoint buffers (the SGD of every parameter tensor) get no barrier between them. */
void vk_touch(vk_ctx *c, int n, const flce_buf *const *bufs);
void vk_flush(vk_ctx *c);               /* submit what was recorded and wait */
flce_buf *vk_scratch(vk_ctx *c, int which, size_t bytes); /* at least bytes (grown when needed) */

/* vk_ops.c */
flce_status vk_pipelines_create(vk_ctx *c, flce_err *e);
void vk_pipelines_destroy(vk_ctx *c);
void vk_ops_install(flce_backend *be);
/* One dispatch: shader sh with the given buffers at bindings 0.., push constants, and
 * `items` invocations in x (spread over a 2-D grid) times `z` workgroups in z. */
void vk_dispatch(vk_ctx *c, int sh, int nbuf, const flce_buf *const *bufs, const void *push, size_t push_bytes,
                 size_t items, uint32_t z);
/* The fmath identity check: out[6 i ..] = recip, div(x, y), rsqrt, sqrt, exp, log on the device. */
flce_status flce_vulkan_fmath(flce_backend *be, const float *x, const float *y, size_t n, float *out, flce_err *e);

#endif
