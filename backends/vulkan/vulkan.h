/* vulkan.h: the Vulkan backend: the ops of the backend interface as compute shaders
 * (shaders/, SPIR-V embedded at build time), bit for bit the reference's on any device whose
 * start-up probe matches the float contract (docs/bit-exact.md). libvulkan is opened at run
 * time, so a program built with it runs where there is no loader. Depends on base and
 * reference only. */
#ifndef FLCE_VULKAN_H
#define FLCE_VULKAN_H

#include "backend.h"

/* The Vulkan backend on `device` (an index or part of the device's name; NULL: the
 * environment variable FLCE_VK_DEVICE, else the best device, a real GPU before a CPU
 * implementation), computing in denormal mode `mode` (auto: the device's own). NULL and a
 * one-line error where there is no loader, no device, or the device fails the start-up probe
 * of the float contract in the mode asked for. With FLCE_VK_ALLOW_INEXACT=1 a device that
 * fails the probe is returned anyway, its be->note saying so. */
flce_backend *flce_backend_vulkan(const char *device, flce_denorm_mode mode, flce_err *e);
/* 1 when a Vulkan GPU (not a CPU implementation) is present; desc lists the devices seen. */
int flce_vulkan_gpu(char *desc, size_t cap);
/* Warnings and errors reported by the validation layer so far (FLCE_VK_VALIDATION=1). */
long flce_vulkan_validation_messages(void);
/* The GLSL math library on the device: out[6 i + 0..5] = recip(x_i), div(x_i, y_i),
 * rsqrt(x_i), sqrt(x_i), exp(x_i), log(x_i) (for the C-against-GLSL identity check). */
flce_status flce_vulkan_fmath(flce_backend *be, const float *x, const float *y, size_t n, float *out, flce_err *e);

#endif
