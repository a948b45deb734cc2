/* backend_select.h: how the programs choose and create a backend (the library never does: the
 * engine and the checks are handed one). Links every backend compiled in. */
#ifndef FLCE_BACKEND_SELECT_H
#define FLCE_BACKEND_SELECT_H

#include "backend.h"

/* By name: "reference", "cpu", "vulkan", or "auto": Vulkan where a GPU is present, else the CPU
 * backend after one line on stderr saying why. device: the Vulkan device (--device; NULL: the
 * default). mode: preserve, ftz, or auto (what the device does: preserve on the host; the
 * probe's finding on a Vulkan device). The first backend a process opens is named in one line
 * on stderr, with its note if it has one. NULL and a one-line error when the name is unknown or
 * the backend unavailable. */
flce_backend *flce_backend_open(const char *name, const char *device, flce_denorm_mode mode, flce_err *e);
/* The default of --backend: the environment's FLCE_BACKEND where set and not empty (a machine's
 * choice once, e.g. cpu where no GPU is: no Vulkan driver loaded to find that out, 0.1-0.2 s a
 * process), else "auto". */
const char *flce_backend_default(void);
/* 1 when name is one of flce_backend_names(). */
int flce_backend_known(const char *name);
/* The names this build accepts, for messages: "reference, cpu, vulkan, auto". */
const char *flce_backend_names(void);
/* 1 when a comma-separated list of backend names may open a Vulkan device (it names vulkan or
 * auto): where it does not, a --device would be ignored, and the programs refuse it. */
int flce_backend_list_takes_device(const char *list);
/* The programs' check of --backend (or FLCE_BACKEND, named as such where the name came from it)
 * and --device, in that order, before any work: 1, or 0 with the one-line usage error (without
 * the program's name) in why. A name that is not one of flce_backend_names() is refused before
 * --device is looked at, whose error would otherwise name it as if it were a backend. */
int flce_backend_check_flags(const char *backend, const char *device, char *why, size_t cap);

/* What else the programs need of the backends, here so that no program names one (no
 * FLCE_HAVE_VULKAN outside this file; the backends' headers are private to it): */
/* 1 when this build has the Vulkan backend. */
int flce_backend_have_vulkan(void);
/* 1 when a Vulkan GPU (not a CPU implementation such as lavapipe) is present; what was seen into
 * seen (cap bytes). 0 without the Vulkan backend. */
int flce_backend_gpu_present(char *seen, size_t cap);
/* The CPU backend with a number of threads (flce-bench; `cpu` by name has 2); NULL and why in e
 * (out of memory, a CPU without AVX2). */
flce_backend *flce_backend_cpu_threads(int threads, flce_err *e);
/* The threads of `cpu` (and `auto` on a machine without a GPU) opened by name from now on (default
 * 2; 1..16): flce truth's --jobs runs a coalition a process on one thread each. */
void flce_backend_set_cpu_threads(int threads);
/* A backend's own self-test beyond the op table: recip, div, rsqrt, sqrt, exp and log of x (div:
 * x / y) computed on the device into out [6 n] (Vulkan: the GLSL math library). FLCE_ERR_ARG for
 * a backend without one. */
flce_status flce_backend_fmath(flce_backend *be, const float *x, const float *y, size_t n, float *out, flce_err *e);
/* Messages of the Vulkan validation layer so far (0 without it). */
long flce_backend_validation_messages(void);

#endif
