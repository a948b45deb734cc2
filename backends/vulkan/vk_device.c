/* vk_device.c: the Vulkan backend's lifecycle: loading libvulkan at run time (so a machine
 * without a Vulkan loader runs every other backend), choosing the device, the start-up
 * probe of the float contract, buffers and staging, and the one command buffer in which a
 * training step is recorded (see vk.h). */
#define _GNU_SOURCE /* dl_iterate_phdr, RTLD_NOLOAD, RTLD_NODELETE */
#include <ctype.h>
#include <stdarg.h>
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "denormals.h"
#include "../../base/fmath.h" /* by path: build/shaders/fmath.h is fmath.comp's SPIR-V */
#include "vk.h"
#include "vulkan.h"

#define VK_DEF(f) PFN_##f f;
VK_INSTANCE_FNS(VK_DEF)
VK_DEVICE_FNS(VK_DEF)
#undef VK_DEF
static PFN_vkGetInstanceProcAddr get_instance_proc;
static PFN_vkCreateInstance create_instance;
static PFN_vkEnumerateInstanceLayerProperties enum_layers;
static PFN_vkCreateDebugUtilsMessengerEXT create_messenger;
static PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger;
static void *libvulkan;
static long validation_messages;

long flce_vulkan_validation_messages(void) { return validation_messages; }

static flce_status load_loader(flce_err *e) {
    if (get_instance_proc) return FLCE_OK;
    libvulkan = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!libvulkan) return flce_fail(e, FLCE_ERR_ARG, "vulkan: no Vulkan loader (libvulkan.so.1) on this machine");
    get_instance_proc = (PFN_vkGetInstanceProcAddr)(void (*)(void))dlsym(libvulkan, "vkGetInstanceProcAddr");
    if (!get_instance_proc) return flce_fail(e, FLCE_ERR_ARG, "vulkan: libvulkan.so.1 has no vkGetInstanceProcAddr");
    create_instance = (PFN_vkCreateInstance)get_instance_proc(NULL, "vkCreateInstance");
    enum_layers = (PFN_vkEnumerateInstanceLayerProperties)get_instance_proc(NULL, "vkEnumerateInstanceLayerProperties");
    if (!create_instance || !enum_layers) return flce_fail(e, FLCE_ERR_ARG, "vulkan: the loader lacks vkCreateInstance");
    return FLCE_OK;
}

/* Keep every shared object that is loaded now (the Vulkan driver the loader just opened, and
 * what it needs) loaded until the process ends. The loader closes the driver when the
 * instance is destroyed; a driver that keeps memory in its own globals then looks, to
 * LeakSanitizer, like a leak "in <unknown module>" that no suppression can name (lavapipe:
 * 128 bytes). Kept loaded, its globals are scanned like ours, so nothing is hidden: a leak of
 * our own is still reported, and so is a real one of the driver's (with its library named).
 * dlopen with RTLD_NOLOAD loads nothing new; RTLD_NODELETE marks the object as never
 * unloaded. The extra reference is never dropped on purpose. */
static int pin_object(struct dl_phdr_info *info, size_t size, void *ud) {
    (void)size, (void)ud;
    if (info->dlpi_name && info->dlpi_name[0]) {
        void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
        (void)h;
    }
    return 0;
}

static void pin_loaded_objects(void) { dl_iterate_phdr(pin_object, NULL); }

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                                 VkDebugUtilsMessageTypeFlagsEXT type,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *d, void *user) {
    if (sev < VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) return VK_FALSE;
    validation_messages++;
    fprintf(stderr, "flce: vulkan validation: %s\n", d && d->pMessage ? d->pMessage : "(no text)");
    return VK_FALSE;
}

/* The instance, with the Khronos validation layer and a messenger that prints and counts
 * warnings and errors when FLCE_VK_VALIDATION=1. */
static flce_status make_instance(vk_ctx *c, flce_err *e) {
    const char *val = getenv("FLCE_VK_VALIDATION");
    int validate = val && !strcmp(val, "1");
    VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "flce", 1, "flce", 1, VK_API_VERSION_1_1};
    const char *layer = "VK_LAYER_KHRONOS_validation";
    const char *ext[2] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME};
    /* with the layer, its synchronization validation too: a missing barrier between two commands
     * on one buffer (vk_touch) is reported even where the device runs commands one at a time */
    VkValidationFeatureEnableEXT sync = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    VkValidationFeaturesEXT vf = {VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT, NULL, 1, &sync, 0, NULL};
    if (validate) {
        uint32_t n = 0;
        enum_layers(&n, NULL);
        VkLayerProperties *lp = calloc(n ? n : 1, sizeof *lp);
        int found = 0;
        if (lp && enum_layers(&n, lp) == VK_SUCCESS)
            for (uint32_t i = 0; i < n; i++) found |= !strcmp(lp[i].layerName, layer);
        free(lp);
        if (!found)
            return flce_fail(e, FLCE_ERR_ARG, "vulkan: FLCE_VK_VALIDATION=1 but the layer %s is not installed", layer);
    }
    VkInstanceCreateInfo ci = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ci.pApplicationInfo = &app;
    ci.enabledLayerCount = validate ? 1 : 0;
    ci.ppEnabledLayerNames = &layer;
    ci.enabledExtensionCount = validate ? 2 : 0;
    ci.ppEnabledExtensionNames = ext;
    if (validate) ci.pNext = &vf;
    VkResult r = create_instance(&ci, NULL, &c->instance);
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER) return flce_fail(e, FLCE_ERR_ARG, "vulkan: no Vulkan driver on this machine");
    if (r != VK_SUCCESS) return flce_fail(e, FLCE_ERR_ARG, "vulkan: cannot create an instance (VkResult %d)", (int)r);
    pin_loaded_objects();
#define VK_LOAD(f)                                                                                                   \
    if (!(f = (PFN_##f)get_instance_proc(c->instance, #f)))                                                          \
        return flce_fail(e, FLCE_ERR_ARG, "vulkan: the loader lacks %s", #f);
    VK_INSTANCE_FNS(VK_LOAD)
#undef VK_LOAD
    if (validate) {
        create_messenger = (PFN_vkCreateDebugUtilsMessengerEXT)get_instance_proc(c->instance, "vkCreateDebugUtilsMessengerEXT");
        destroy_messenger = (PFN_vkDestroyDebugUtilsMessengerEXT)get_instance_proc(c->instance, "vkDestroyDebugUtilsMessengerEXT");
        VkDebugUtilsMessengerCreateInfoEXT mi = {VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
        mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
        mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
        mi.pfnUserCallback = on_message;
        if (!create_messenger || create_messenger(c->instance, &mi, NULL, &c->messenger) != VK_SUCCESS)
            return flce_fail(e, FLCE_ERR_ARG, "vulkan: cannot install the validation messenger");
    }
    return FLCE_OK;
}

static int type_rank(VkPhysicalDeviceType t) { /* a real GPU before a CPU implementation */
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 1;
    default: return 0;
    }
}

static const char *type_name(VkPhysicalDeviceType t) {
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
    default: return "other";
    }
}

static int contains_nocase(const char *hay, const char *needle) {
    for (; *hay; hay++) {
        size_t i = 0;
        while (needle[i] && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i])) i++;
        if (!needle[i]) return 1;
    }
    return 0;
}

/* The instance's devices (at most 16) into list; returns how many. */
static uint32_t list_devices(VkInstance instance, VkPhysicalDevice list[16]) {
    uint32_t n = 16;
    VkResult r = vkEnumeratePhysicalDevices(instance, &n, list); /* VK_INCOMPLETE beyond 16: fine */
    return r == VK_SUCCESS || r == VK_INCOMPLETE ? n : 0;
}

/* The device: by --device / FLCE_VK_DEVICE (an index or part of the name), else the
 * highest-ranked type (first of equals). */
static flce_status pick_device(vk_ctx *c, const char *device_choice, flce_err *e) {
    VkPhysicalDevice list[16];
    uint32_t n = list_devices(c->instance, list);
    if (n == 0) return flce_fail(e, FLCE_ERR_ARG, "vulkan: no Vulkan device on this machine");
    if (device_choice && !*device_choice) device_choice = NULL;
    const char *spec = device_choice ? device_choice : getenv("FLCE_VK_DEVICE");
    const char *from = device_choice ? "--device" : "FLCE_VK_DEVICE";
    int best = -1, best_rank = -1;
    char names[512] = "";
    for (uint32_t i = 0; i < n; i++) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(list[i], &p);
        size_t l = strlen(names);
        snprintf(names + l, sizeof names - l, "%s%u: %s", i ? ", " : "", i, p.deviceName);
        if (spec && *spec) {
            char *end;
            long idx = strtol(spec, &end, 10);
            int match = (*end == 0) ? idx == (long)i : contains_nocase(p.deviceName, spec);
            if (match && best < 0) best = (int)i;
        } else if (type_rank(p.deviceType) > best_rank) {
            best_rank = type_rank(p.deviceType);
            best = (int)i;
        }
    }
    if (best < 0) return flce_fail(e, FLCE_ERR_ARG, "%s '%s': no such Vulkan device (%s)", from, spec, names);
    c->phys = list[best];
    vkGetPhysicalDeviceProperties(c->phys, &c->props);
    return FLCE_OK;
}

/* "NAME; TYPE, DRIVER INFO, Vulkan X.Y" */
static void describe(vk_ctx *c, char *out, size_t cap) {
    char driver[160];
    snprintf(driver, sizeof driver, "driver version 0x%x", c->props.driverVersion);
    if (c->props.apiVersion >= VK_API_VERSION_1_2) {
        VkPhysicalDeviceDriverProperties dp = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
        VkPhysicalDeviceProperties2 p2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &dp};
        vkGetPhysicalDeviceProperties2(c->phys, &p2);
        snprintf(driver, sizeof driver, "%s %s", dp.driverName, dp.driverInfo);
    }
    snprintf(out, cap, "%s; %s, %s, Vulkan %u.%u%s, %s convolutions", c->props.deviceName, type_name(c->props.deviceType),
             driver, VK_API_VERSION_MAJOR(c->props.apiVersion), VK_API_VERSION_MINOR(c->props.apiVersion),
             c->variant == 1 ? ", DenormPreserve" : c->variant == 2 ? ", DenormFlushToZero" : "",
             c->conv_tiled ? "tiled" : "direct");
}

static flce_status make_device(vk_ctx *c, flce_err *e) {
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(c->phys, &n, NULL);
    VkQueueFamilyProperties qf[32];
    if (n > 32) n = 32;
    vkGetPhysicalDeviceQueueFamilyProperties(c->phys, &n, qf);
    int fam = -1;
    for (uint32_t i = 0; i < n && fam < 0; i++)
        if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) fam = (int)i;
    if (fam < 0) return flce_fail(e, FLCE_ERR_ARG, "vulkan: %s has no compute queue", c->props.deviceName);
    c->qfam = (uint32_t)fam;
    uint32_t ne = 0;
    vkEnumerateDeviceExtensionProperties(c->phys, NULL, &ne, NULL);
    VkExtensionProperties *ep = calloc(ne ? ne : 1, sizeof *ep);
    int push = 0, fctl = 0;
    if (ep && vkEnumerateDeviceExtensionProperties(c->phys, NULL, &ne, ep) == VK_SUCCESS)
        for (uint32_t i = 0; i < ne; i++) {
            push |= !strcmp(ep[i].extensionName, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
            fctl |= !strcmp(ep[i].extensionName, VK_KHR_SHADER_FLOAT_CONTROLS_EXTENSION_NAME);
        }
    free(ep);
    /* Denormals: where the device offers the contract's mode on request (DenormPreserve,
     * DenormFlushToZero), the shaders ask for it; elsewhere the start-up probe decides whether
     * the default behaves as the mode says. */
    if (fctl && c->props.apiVersion >= VK_API_VERSION_1_1) {
        VkPhysicalDeviceFloatControlsPropertiesKHR fc = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES_KHR};
        VkPhysicalDeviceProperties2 p2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &fc};
        vkGetPhysicalDeviceProperties2(c->phys, &p2);
        c->can_preserve = fc.shaderDenormPreserveFloat32 == VK_TRUE;
        c->can_ftz = fc.shaderDenormFlushToZeroFloat32 == VK_TRUE;
    }
    if (!push)
        return flce_fail(e, FLCE_ERR_ARG, "vulkan: %s lacks %s", c->props.deviceName, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qi = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, NULL, 0, c->qfam, 1, &prio};
    const char *ext[2] = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME, VK_KHR_SHADER_FLOAT_CONTROLS_EXTENSION_NAME};
    VkDeviceCreateInfo di = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    di.queueCreateInfoCount = 1;
    di.pQueueCreateInfos = &qi;
    di.enabledExtensionCount = c->can_preserve || c->can_ftz ? 2 : 1;
    di.ppEnabledExtensionNames = ext;
    VkResult r = vkCreateDevice(c->phys, &di, NULL, &c->dev);
    if (r != VK_SUCCESS) return flce_fail(e, FLCE_ERR_ARG, "vulkan: cannot create a device on %s (VkResult %d)", c->props.deviceName, (int)r);
    pin_loaded_objects(); /* what the driver loads for a device (a compiler, say) */
#define VK_LOAD(f)                                                                                                   \
    if (!(f = (PFN_##f)vkGetDeviceProcAddr(c->dev, #f))) return flce_fail(e, FLCE_ERR_ARG, "vulkan: no %s", #f);
    VK_DEVICE_FNS(VK_LOAD)
#undef VK_LOAD
    vkGetDeviceQueue(c->dev, c->qfam, 0, &c->queue);

    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(c->phys, &mp);
    int dl = -1, hv = -1;
    VkMemoryPropertyFlags want_h = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (uint32_t i = 0; i < mp.memoryTypeCount; i++) {
        VkMemoryPropertyFlags f = mp.memoryTypes[i].propertyFlags;
        if (dl < 0 && (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)) dl = (int)i;
        if (hv < 0 && (f & want_h) == want_h) hv = (int)i;
    }
    if (hv < 0) return flce_fail(e, FLCE_ERR_ARG, "vulkan: %s has no host-visible coherent memory", c->props.deviceName);
    c->mem_device = (uint32_t)(dl >= 0 ? dl : hv);
    c->mem_host = (uint32_t)hv;

    VkCommandPoolCreateInfo pi = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL,
                                  VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, c->qfam};
    if (vkCreateCommandPool(c->dev, &pi, NULL, &c->pool) != VK_SUCCESS)
        return flce_fail(e, FLCE_ERR_ARG, "vulkan: cannot create a command pool");
    VkCommandBufferAllocateInfo ai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, c->pool,
                                      VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
    if (vkAllocateCommandBuffers(c->dev, &ai, &c->cmd) != VK_SUCCESS)
        return flce_fail(e, FLCE_ERR_ARG, "vulkan: cannot allocate a command buffer");
    const char *prof = getenv("FLCE_VK_PROFILE");
    if (prof && !strcmp(prof, "1") && qf[c->qfam].timestampValidBits > 0) {
        VkQueryPoolCreateInfo qp = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        qp.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qp.queryCount = 2048;
        if (vkCreateQueryPool(c->dev, &qp, NULL, &c->qpool) != VK_SUCCESS) c->qpool = VK_NULL_HANDLE;
    }
    VkFenceCreateInfo fi = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if (vkCreateFence(c->dev, &fi, NULL, &c->fence) != VK_SUCCESS) return flce_fail(e, FLCE_ERR_ARG, "vulkan: cannot create a fence");
    return FLCE_OK;
}

/* ---- buffers and submission ---- */

flce_buf *vk_buf_new(vk_ctx *c, size_t bytes, uint32_t mem_type, void **map, flce_err *e) {
    flce_buf *b = calloc(1, sizeof *b);
    if (!b) {
        flce_fail(e, FLCE_ERR_NOMEM, "vulkan: out of host memory");
        return NULL;
    }
    b->bytes = bytes;
    VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = bytes < 16 ? 16 : (bytes + 15) / 16 * 16;
    bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    if (vkCreateBuffer(c->dev, &bi, NULL, &b->buf) != VK_SUCCESS) goto fail;
    VkMemoryRequirements mr;
    vkGetBufferMemoryRequirements(c->dev, b->buf, &mr);
    if (!(mr.memoryTypeBits & (1u << mem_type))) { /* fall back to the host-visible type */
        mem_type = c->mem_host;
        if (!(mr.memoryTypeBits & (1u << mem_type))) goto fail;
    }
    VkMemoryAllocateInfo mi = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, mr.size, mem_type};
    if (vkAllocateMemory(c->dev, &mi, NULL, &b->mem) != VK_SUCCESS) goto fail;
    if (vkBindBufferMemory(c->dev, b->buf, b->mem, 0) != VK_SUCCESS) goto fail;
    if (map && vkMapMemory(c->dev, b->mem, 0, VK_WHOLE_SIZE, 0, map) != VK_SUCCESS) goto fail;
    return b;
fail:
    vk_buf_del(c, b);
    flce_fail(e, FLCE_ERR_NOMEM, "vulkan: cannot allocate a buffer of %zu bytes on %s", bytes, c->props.deviceName);
    return NULL;
}

void vk_buf_del(vk_ctx *c, flce_buf *b) {
    if (!b) return;
    vk_forget_saved(c); /* a command buffer that names it would be invalid */
    if (b->buf) vkDestroyBuffer(c->dev, b->buf, NULL);
    if (b->mem) vkFreeMemory(c->dev, b->mem, NULL);
    free(b);
}

void vk_fail(vk_ctx *c, flce_status s, const char *fmt, ...) {
    char msg[sizeof c->be->error.msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    flce_backend_fail(c->be, s, "%s", msg);
    c->failed = 1;
}

void vk_record(vk_ctx *c) {
    if (c->recording || c->failed) return;
    c->recording = 1;
    c->nlog = 0;
}

vk_cmd *vk_log(vk_ctx *c, uint32_t kind) {
    if (c->failed) return NULL;
    vk_sgd_settle(c);
    vk_record(c);
    if (c->nlog == c->caplog) {
        int cap = c->caplog ? 2 * c->caplog : 256;
        vk_cmd *l = realloc(c->log, (size_t)cap * sizeof *l);
        if (!l) {
            vk_fail(c, FLCE_ERR_NOMEM, "vulkan: out of host memory for the command log");
            return NULL;
        }
        c->log = l, c->caplog = cap;
    }
    vk_cmd *d = &c->log[c->nlog++];
    memset(d, 0, sizeof *d);
    d->kind = kind;
    return d;
}

void vk_barrier(vk_ctx *c) {
    if (!vk_log(c, VKL_BARRIER)) return;
    c->barriers++;
    c->ntouched = 0;
}

void vk_touch(vk_ctx *c, int n, const flce_buf *const *bufs) {
    if (c->failed) return;
    vk_sgd_settle(c);
    int hazard = c->ntouched + n > VK_TOUCH_MAX;
    for (int i = 0; i < n && !hazard; i++)
        for (int j = 0; j < c->ntouched && !hazard; j++) hazard = c->touched[j] == bufs[i];
    c->needed += hazard;
    if (hazard && c->test_no_barriers) hazard = 0; /* FLCE_VK_TEST_MISUSE=2 (tests only): a race the layer must find */
    if (hazard || c->qpool) vk_barrier(c); /* profiling: a barrier before every command */
    for (int i = 0; i < n; i++) c->touched[c->ntouched++] = bufs[i];
}

/* Record the log into cb: each command as its vkCmd* call. */
static void emit(vk_ctx *c, VkCommandBuffer cb) {
    VkPipelineStageFlags st = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    for (int i = 0; i < c->nlog; i++) {
        const vk_cmd *d = &c->log[i];
        switch (d->kind) {
        case VKL_DISPATCH: {
            VkDescriptorBufferInfo bi[VKB_MAX_BINDINGS];
            VkWriteDescriptorSet w[VKB_MAX_BINDINGS];
            for (uint32_t k = 0; k < d->nbuf; k++) {
                bi[k] = (VkDescriptorBufferInfo){d->buf[k], 0, VK_WHOLE_SIZE};
                w[k] = (VkWriteDescriptorSet){VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, VK_NULL_HANDLE, k, 0, 1,
                                              VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, &bi[k], NULL};
            }
            vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, c->pipe[d->sh]);
            vkCmdPushDescriptorSetKHR(cb, VK_PIPELINE_BIND_POINT_COMPUTE, c->layout, 0, d->nbuf, w);
            vkCmdPushConstants(cb, c->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, VKB_PUSH_BYTES, d->push);
            vkCmdDispatch(cb, d->gx, d->gy, d->gz);
            break;
        }
        case VKL_BARRIER: {
            VkMemoryBarrier mb = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL,
                                  VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                                  VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                                      VK_ACCESS_TRANSFER_WRITE_BIT};
            vkCmdPipelineBarrier(cb, st, st, 0, 1, &mb, 0, NULL, 0, NULL);
            break;
        }
        case VKL_HOST_BARRIER: {
            VkMemoryBarrier mb = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT};
            vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
            break;
        }
        case VKL_COPY: {
            VkBufferCopy r = {d->a, d->b, d->size};
            vkCmdCopyBuffer(cb, d->buf[0], d->buf[1], 1, &r);
            break;
        }
        case VKL_FILL: vkCmdFillBuffer(cb, d->buf[0], d->a, d->size, 0); break;
        case VKL_QRESET: vkCmdResetQueryPool(cb, c->qpool, 0, 2048); break;
        case VKL_TIMESTAMP: vkCmdWriteTimestamp(cb, (VkPipelineStageFlagBits)d->gy, c->qpool, d->gx); break;
        }
    }
}

void vk_forget_saved(vk_ctx *c) {
    for (int i = 0; i < VK_SAVED; i++) c->saved[i].valid = 0;
}

/* The saved command buffer whose log equals the current one, or -1. */
static int find_saved(vk_ctx *c) {
    size_t bytes = (size_t)c->nlog * sizeof(vk_cmd);
    for (int i = 0; i < VK_SAVED; i++) {
        vk_saved *v = &c->saved[i];
        if (v->valid && v->n == c->nlog && !memcmp(v->log, c->log, bytes)) return i;
    }
    return -1;
}

/* A slot for the current log (the least recently used, its command buffer allocated once), the
 * log copied into it; -1 where memory runs out (then the log is recorded once, unsaved). */
static int save_log(vk_ctx *c) {
    int s = 0;
    for (int i = 1; i < VK_SAVED && c->saved[s].valid; i++)
        if (!c->saved[i].valid || c->saved[i].used < c->saved[s].used) s = i;
    vk_saved *v = &c->saved[s];
    v->valid = 0;
    if (!v->cmd) {
        VkCommandBufferAllocateInfo ai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, c->pool,
                                          VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
        if (vkAllocateCommandBuffers(c->dev, &ai, &v->cmd) != VK_SUCCESS) {
            v->cmd = VK_NULL_HANDLE;
            return -1;
        }
    }
    if (v->cap < c->nlog) {
        vk_cmd *l = realloc(v->log, (size_t)c->nlog * sizeof *l);
        if (!l) return -1;
        v->log = l, v->cap = c->nlog;
    }
    memcpy(v->log, c->log, (size_t)c->nlog * sizeof(vk_cmd));
    v->n = c->nlog;
    v->valid = 1;
    return s;
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void vk_flush(vk_ctx *c) {
    if (!c->failed) vk_sgd_settle(c);
    if (!c->recording || c->failed) return;
    int slot = c->replay ? find_saved(c) : -1;
    VkCommandBuffer cb;
    if (slot >= 0) {
        cb = c->saved[slot].cmd;
        c->replayed++;
    } else {
        double t0 = now_s();
        slot = c->replay && c->nlog >= VK_SAVE_MIN ? save_log(c) : -1;
        cb = slot >= 0 ? c->saved[slot].cmd : c->cmd;
        VkCommandBufferBeginInfo bi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL,
                                       slot >= 0 ? 0 : VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
        vkBeginCommandBuffer(cb, &bi);
        emit(c, cb);
        vkEndCommandBuffer(cb);
        c->record_s += now_s() - t0;
    }
    if (slot >= 0) c->saved[slot].used = ++c->tick;
    VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cb;
    VkResult r = vkQueueSubmit(c->queue, 1, &si, c->fence);
    if (r == VK_SUCCESS) r = vkWaitForFences(c->dev, 1, &c->fence, VK_TRUE, UINT64_MAX);
    { /* fault injection for the tests (docs/formats.md): submission N reports a lost device */
        const char *lose = getenv("FLCE_VK_TEST_LOSE_AT");
        if (lose && atol(lose) == c->submissions + 1) r = VK_ERROR_DEVICE_LOST;
    }
    if (r != VK_SUCCESS) { /* a lost device cannot give trustworthy numbers: nothing more runs */
        vk_fail(c, FLCE_ERR_IO, "vulkan: submission failed on %s (VkResult %d)", c->props.deviceName, (int)r);
        c->recording = 0;
        return;
    }
    vkResetFences(c->dev, 1, &c->fence);
    if (c->qpool && c->nq) { /* profile: add up the GPU time of each dispatch */
        uint64_t ts[2048];
        if (vkGetQueryPoolResults(c->dev, c->qpool, 0, (uint32_t)c->nq, sizeof ts, ts, 8,
                                  VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) == VK_SUCCESS)
            for (int i = 0; i < c->nq; i += 2) {
                c->sh_ns[c->q_shader[i / 2]] += (double)(ts[i + 1] - ts[i]) * c->props.limits.timestampPeriod;
                c->sh_calls[c->q_shader[i / 2]]++;
            }
        c->nq = 0;
    }
    if (cb == c->cmd) vkResetCommandBuffer(c->cmd, 0);
    c->recording = 0;
    c->nlog = 0;
    c->ntouched = 0; /* the submission has completed: nothing is pending */
    c->up_used = 0;
    c->submissions++;
}

static flce_buf *grow(vk_ctx *c, flce_buf *old, size_t bytes, uint32_t type, void **map) {
    if (old && old->bytes >= bytes) return old;
    if (c->failed) return old;
    vk_flush(c); /* the old buffer may be in use by recorded work */
    size_t cap = old ? old->bytes : 0;
    while (cap < bytes) cap = cap ? cap * 2 : (bytes > 1u << 20 ? bytes : 1u << 20);
    vk_buf_del(c, old);
    flce_err e;
    flce_buf *b = vk_buf_new(c, cap, type, map, &e);
    if (!b) vk_fail(c, FLCE_ERR_NOMEM, "%s", e.msg); /* NULL: the ops that wanted it do nothing now */
    return b;
}

flce_buf *vk_scratch(vk_ctx *c, int which, size_t bytes) {
    c->scratch[which] = grow(c, c->scratch[which], bytes, c->mem_device, NULL);
    return c->scratch[which];
}

/* ---- the interface's buffer functions ---- */

static flce_buf *b_alloc(flce_backend *be, size_t bytes) {
    vk_ctx *c = be->ctx;
    if (c->failed) return NULL;
    flce_err e;
    flce_buf *b = vk_buf_new(c, bytes, c->mem_device, NULL, &e);
    if (!b) return NULL;
    vk_cmd *d = vk_log(c, VKL_FILL);
    if (d) d->buf[0] = b->buf, d->size = VK_WHOLE_SIZE;
    vk_barrier(c);
    return b;
}

static void b_free(flce_backend *be, flce_buf *b) {
    vk_ctx *c = be->ctx;
    if (!b) return;
    vk_flush(c);
    vk_buf_del(c, b);
}

static void b_write(flce_backend *be, flce_buf *b, size_t offset, const void *src, size_t bytes) {
    vk_ctx *c = be->ctx;
    if (!bytes || c->failed) return;
    if (c->up_used + bytes > c->up->bytes) {
        vk_flush(c);
        c->up = grow(c, c->up, bytes, c->mem_host, &c->up_map);
        if (c->failed) return;
    }
    memcpy((char *)c->up_map + c->up_used, src, bytes);
    vk_record(c);
    const flce_buf *used[1] = {b}; /* the staging area is written by the host before submission only */
    vk_touch(c, 1, used);
    vk_cmd *d = vk_log(c, VKL_COPY);
    if (d) d->buf[0] = c->up->buf, d->buf[1] = b->buf, d->a = c->up_used, d->b = offset, d->size = bytes;
    c->up_used += (bytes + 15) / 16 * 16;
}

static void b_read(flce_backend *be, const flce_buf *b, size_t offset, void *dst, size_t bytes) {
    vk_ctx *c = be->ctx;
    if (!bytes) return;
    if (!c->failed) c->down = grow(c, c->down, bytes, c->mem_host, &c->down_map);
    if (c->failed) { /* no numbers from a failed device: zeros, and the status says why */
        memset(dst, 0, bytes);
        return;
    }
    vk_record(c);
    const flce_buf *used[1] = {b};
    vk_touch(c, 1, used);
    vk_cmd *d = vk_log(c, VKL_COPY);
    if (d) d->buf[0] = b->buf, d->buf[1] = c->down->buf, d->a = offset, d->b = 0, d->size = bytes;
    vk_log(c, VKL_HOST_BARRIER);
    vk_flush(c);
    if (c->failed) memset(dst, 0, bytes);
    else memcpy(dst, c->down_map, bytes);
}

static void b_sync(flce_backend *be) { vk_flush(be->ctx); }

static void destroy(flce_backend *be) {
    if (!be) return;
    vk_ctx *c = be->ctx;
    if (c) {
        if (c->dev) {
            vk_flush(c); /* what is logged or held back */
            vkDeviceWaitIdle(c->dev);
            if (c->qpool) {
                static const char *nm[SH_COUNT] = {
#define SHADER(id, name, wg) [id] = #name,
#include "vk_shaders.def"
#undef SHADER
                };
                double tot = 0;
                for (int s = 0; s < SH_COUNT; s++) tot += c->sh_ns[s];
                fprintf(stderr, "flce: vulkan profile (GPU time per shader, %ld dispatches, %ld submissions, %ld of "
                                "them replayed, %.1f ms recording command buffers; a barrier before every command "
                                "while profiling, %ld needed otherwise):\n", c->dispatches, c->submissions,
                        c->replayed, c->record_s * 1e3, c->needed);
                for (int s = 0; s < SH_COUNT; s++)
                    if (c->sh_calls[s])
                        fprintf(stderr, "  %-21s %6ld calls %10.3f ms %5.1f%%  %8.0f workgroups per call\n", nm[s],
                                c->sh_calls[s], c->sh_ns[s] * 1e-6, tot > 0 ? 100 * c->sh_ns[s] / tot : 0,
                                c->sh_disp[s] ? c->sh_groups[s] / c->sh_disp[s] : 0);
                vkDestroyQueryPool(c->dev, c->qpool, NULL);
            }
            vk_pipelines_destroy(c);
            for (int i = 0; i < 4; i++) vk_buf_del(c, c->scratch[i]);
            vk_buf_del(c, c->up);
            vk_buf_del(c, c->down);
            if (c->fence) vkDestroyFence(c->dev, c->fence, NULL);
            if (c->pool) vkDestroyCommandPool(c->dev, c->pool, NULL); /* and the command buffers */
            vkDestroyDevice(c->dev, NULL);
        }
        if (c->messenger && destroy_messenger) destroy_messenger(c->instance, c->messenger, NULL);
        if (c->instance) vkDestroyInstance(c->instance, NULL);
        for (int i = 0; i < VK_SAVED; i++) free(c->saved[i].log);
        free(c->log);
        free(c);
    }
    free(be);
}

/* ---- the start-up probe ---- */

static int is_sub(float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    return (u & 0x7f800000u) == 0 && (u & 0x7fffffu);
}

/* Run probe.comp (shaders/probe.comp) on triples chosen to expose a fused multiply-add (a*b
 * inexact, c = -a*b rounded), the treatment of denormals (subnormal operands, products tiny
 * before rounding and normal after, and the reverse; negative ones, for the sign of a flushed
 * zero; comparisons and the larger/smaller of subnormals; the math library on subnormal inputs
 * and with subnormal results) and rounding (random operands), and compare the bits with the
 * host's, computed in the mode asked for (ftz: FTZ and DAZ set). */
#define PROBE_OUT 11
static flce_status probe(flce_backend *be, int ftz, flce_err *e) {
    vk_ctx *c = be->ctx;
    enum { NT = 1024 };
    static float in[3 * NT], out[PROBE_OUT * NT], want[PROBE_OUT * NT];
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < NT; i++) {
        float t[3];
        for (int k = 0; k < 3; k++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t u = (uint32_t)(s >> 32);
            u = (u & 0x807fffffu) | ((uint32_t)(((u >> 23) & 0xffu) % 60u + 97u) << 23); /* exponents -30..29 */
            if (i % 8 == 1 && k < 2) u &= 0x807fffffu;                                  /* subnormal operands */
            memcpy(&t[k], &u, 4);
        }
        if (i % 8 == 2) t[0] = t[0] * 1e-20f, t[1] = t[1] * 1e-20f; /* subnormal product */
        if (i % 8 == 3) t[2] = -(t[0] * t[1]);                     /* a*b+c = FMA's residue */
        if (i % 8 == 4) t[2] = -87.0f - (float)(i % 64) * 0.25f;   /* exp(c): normal down to subnormal */
        if (i % 8 == 5) {                                          /* around the smallest normal, 2^-126 */
            uint32_t lo = 0x007ffff0u + (uint32_t)(i % 32), one = 0x3f800000u + (uint32_t)(i % 5);
            memcpy(&t[0], &lo, 4), memcpy(&t[1], &one, 4);         /* subnormal a times 1 + k ulp: rounds up to normal, or not */
            if (i & 8) t[0] = -t[0];                               /* and negative: the sign of a flushed zero */
            t[2] = 1.17549435e-38f;
        }
        if (i % 8 == 6) t[1] = -t[0] * 0.9999999f;                 /* a + b tiny: a result below the normal range */
        memcpy(&in[3 * i], t, sizeof t);
    }
    unsigned saved = flce_fp_enter(ftz ? FLCE_DENORM_FTZ : FLCE_DENORM_PRESERVE);
    for (int i = 0; i < NT; i++) {
        volatile float a = in[3 * i], b = in[3 * i + 1], cc = in[3 * i + 2]; /* computed here, at run time */
        float m = a * b, *w = &want[PROBE_OUT * i];
        w[0] = m, w[1] = a + b, w[2] = a - b, w[3] = m + cc;
        w[4] = a < b ? 1.0f : 0.0f, w[5] = a < b ? b : a, w[6] = b < a ? b : a, w[7] = a > 0.0f ? a : 0.0f;
        w[8] = fm_recip(a), w[9] = fm_log(a), w[10] = fm_exp(cc);
    }
    flce_fp_leave(saved);
    flce_buf *bi = b_alloc(be, sizeof in), *bo = b_alloc(be, sizeof out);
    if (!bi || !bo) {
        b_free(be, bi), b_free(be, bo);
        return flce_fail(e, FLCE_ERR_NOMEM, "vulkan: cannot allocate the probe's buffers");
    }
    b_write(be, bi, 0, in, sizeof in);
    const char *misuse = getenv("FLCE_VK_TEST_MISUSE");
    if (misuse && !strcmp(misuse, "1")) { /* tests only: an invalid fill (size not a multiple of 4) */
        vk_cmd *d = vk_log(c, VKL_FILL);
        if (d) d->buf[0] = bo->buf, d->size = 6;
    }
    const flce_buf *bufs[2] = {bi, bo};
    uint32_t n = NT;
    vk_dispatch(c, SH_PROBE, 2, bufs, &n, sizeof n, NT, 1);
    b_read(be, bo, 0, out, sizeof out);
    b_free(be, bi), b_free(be, bo);
    int fma = 0, denorm = 0, round = 0, other = 0;
    for (int i = 0; i < NT; i++) {
        float a = in[3 * i], b = in[3 * i + 1], cc = in[3 * i + 2];
        for (int k = 0; k < PROBE_OUT; k++) {
            float w = want[PROBE_OUT * i + k], g = out[PROBE_OUT * i + k];
            if (!memcmp(&w, &g, 4) || (w != w && g != g)) continue; /* the same bits (any NaN for a NaN) */
            if (is_sub(a) || is_sub(b) || is_sub(cc) || is_sub(w) || is_sub(g) || (k == 3 && is_sub(a * b)) || k == 10) denorm++;
            else if (k == 3) fma++;
            else if (k < 4) round++;
            else other++;
        }
    }
    if (fma || denorm || round || other)
        return flce_fail(e, FLCE_ERR_ARG,
                         "vulkan: %s cannot run bit-exact with denormals %s: the start-up probe found %d fused multiply-adds, "
                         "%d denormal differences, %d other rounding differences and %d comparison or math-library "
                         "differences in %d results%s",
                         c->props.deviceName, ftz ? "flushed (ftz)" : "preserved", fma, denorm, round, other, PROBE_OUT * NT,
                         ftz ? (c->can_ftz ? "" : " (the driver offers no DenormFlushToZero for 32-bit floats)")
                             : (c->can_preserve ? "" : " (the driver offers no DenormPreserve for 32-bit floats)"));
    return FLCE_OK;
}

/* Shaders built for the mode (the execution mode where the driver offers it, else as written),
 * then the probe in that mode. */
static flce_status try_mode(flce_backend *be, int ftz, flce_err *e) {
    vk_ctx *c = be->ctx;
    vk_pipelines_destroy(c);
    c->variant = ftz ? (c->can_ftz ? 2 : 0) : (c->can_preserve ? 1 : 0);
    c->ftz = ftz;
    be->ftz = ftz;
    flce_status st = vk_pipelines_create(c, e);
    if (!st) st = probe(be, ftz, e);
    return st;
}

flce_backend *flce_backend_vulkan(const char *device, flce_denorm_mode mode, flce_err *e) {
    if (load_loader(e)) return NULL;
    flce_backend *be = calloc(1, sizeof *be);
    vk_ctx *c = calloc(1, sizeof *c);
    if (!be || !c) {
        free(be), free(c);
        flce_fail(e, FLCE_ERR_NOMEM, "vulkan: out of memory");
        return NULL;
    }
    be->name = "vulkan";
    be->ctx = c;
    c->be = be;
    be->buf_alloc = b_alloc;
    be->buf_free = b_free;
    be->buf_write = b_write;
    be->buf_read = b_read;
    be->sync = b_sync;
    be->destroy = destroy;
    if (make_instance(c, e) || pick_device(c, device, e) || make_device(c, e)) goto fail;
    {
        const char *misuse = getenv("FLCE_VK_TEST_MISUSE");
        c->test_no_barriers = misuse && !strcmp(misuse, "2");
    }
    { /* which convolution shaders (the same bits either way: only the speed differs) */
        const char *conv = getenv("FLCE_VK_CONV");
        if (!conv || !*conv) c->conv_tiled = c->props.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU;
        else if (!strcmp(conv, "tiled") || !strcmp(conv, "direct")) c->conv_tiled = conv[0] == 't';
        else {
            flce_fail(e, FLCE_ERR_ARG, "FLCE_VK_CONV: '%.40s' is neither tiled nor direct", conv);
            goto fail;
        }
    }
    { /* replay the command buffers of repeated logs (the same commands either way) */
        const char *rp = getenv("FLCE_VK_REPLAY");
        if (!rp || !*rp || !strcmp(rp, "1")) c->replay = 1;
        else if (!strcmp(rp, "0")) c->replay = 0;
        else {
            flce_fail(e, FLCE_ERR_ARG, "FLCE_VK_REPLAY: '%.40s' is neither 0 nor 1", rp);
            goto fail;
        }
    }
    c->up = vk_buf_new(c, 16u << 20, c->mem_host, &c->up_map, e);
    if (!c->up) goto fail;
    vk_ops_install(be);
    /* the mode: as asked; auto: preserve where the device keeps denormals, else ftz where it
     * flushes them as the contract's ftz says, else refused */
    flce_status st = try_mode(be, mode == FLCE_DENORM_FTZ, e);
    if (st && mode == FLCE_DENORM_AUTO) {
        flce_err first = *e;
        st = try_mode(be, 1, e);
        if (st) {
            char both[sizeof e->msg];
            snprintf(both, sizeof both, "%.250s; %.240s", first.msg, e->msg + 8 /* past "vulkan: " */);
            snprintf(e->msg, sizeof e->msg, "%s", both);
            (void)try_mode(be, 0, &first); /* back to preserve for FLCE_VK_ALLOW_INEXACT, as before (its probe fails again) */
        }
    }
    describe(c, be->device, sizeof be->device);
    if (st) {
        if (st != FLCE_ERR_ARG) goto fail; /* no pipelines, no memory: nothing to run anyway */
        const char *allow = getenv("FLCE_VK_ALLOW_INEXACT");
        if (!allow || strcmp(allow, "1")) goto fail;
        /* diagnosis only: run anyway, and say so wherever the device is named */
        snprintf(be->note, sizeof be->note, "%.200s (continuing: FLCE_VK_ALLOW_INEXACT=1)", e->msg);
        size_t l = strlen(be->device);
        snprintf(be->device + l, sizeof be->device - l, ", NOT BIT-EXACT");
    }
    size_t l = strlen(be->device);
    snprintf(be->device + l, sizeof be->device - l, "; denormals %s", c->ftz ? "ftz" : "preserve");
    return be;
fail:
    destroy(be);
    return NULL;
}

int flce_vulkan_gpu(char *desc, size_t cap) {
    flce_err e;
    if (desc && cap) desc[0] = 0;
    if (load_loader(&e)) {
        if (desc) snprintf(desc, cap, "no Vulkan loader");
        return 0;
    }
    vk_ctx c = {0};
    int gpu = 0;
    if (make_instance(&c, &e) == FLCE_OK) {
        VkPhysicalDevice list[16];
        uint32_t n = list_devices(c.instance, list);
        for (uint32_t i = 0; i < n; i++) {
            VkPhysicalDeviceProperties p;
            vkGetPhysicalDeviceProperties(list[i], &p);
            if (type_rank(p.deviceType) >= 2) gpu = 1;
            if (desc) {
                size_t l = strlen(desc);
                snprintf(desc + l, cap - l, "%s%s (%s)", l ? ", " : "", p.deviceName, type_name(p.deviceType));
            }
        }
        if (!n && desc) snprintf(desc, cap, "no Vulkan device");
    } else if (desc) {
        snprintf(desc, cap, "%s", e.msg);
    }
    if (c.messenger && destroy_messenger) destroy_messenger(c.instance, c.messenger, NULL);
    if (c.instance) vkDestroyInstance(c.instance, NULL);
    return gpu;
}
