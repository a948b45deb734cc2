/* backend_select.c: choosing and creating a backend by name (backend_select.h). */
#define _GNU_SOURCE /* sched_getaffinity */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_select.h"
#include "cpu.h"
#include "denormals.h"
#include "ref_backend.h"
#ifdef FLCE_HAVE_VULKAN
#include "vulkan.h"
#endif

#ifdef FLCE_HAVE_VULKAN
const char *flce_backend_names(void) { return "reference, cpu, vulkan, auto"; }
#else
const char *flce_backend_names(void) { return "reference, cpu, auto"; }
#endif

const char *flce_backend_default(void) {
    const char *v = getenv("FLCE_BACKEND");
    return v && *v ? v : "auto";
}

/* 1 when name is the pointer flce_backend_default() gave from the environment (not a --backend):
 * a message about it names the variable. */
static int from_env(const char *name) {
    const char *v = getenv("FLCE_BACKEND");
    return v && *v && name == v;
}

int flce_backend_known(const char *name) {
#ifdef FLCE_HAVE_VULKAN
    if (!strcmp(name, "vulkan")) return 1;
#endif
    return !strcmp(name, "reference") || !strcmp(name, "cpu") || !strcmp(name, "auto");
}

int flce_backend_list_takes_device(const char *list) {
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if ((n == 6 && !strncmp(p, "vulkan", 6)) || (n == 4 && !strncmp(p, "auto", 4))) return 1;
        p += n + (p[n] == ',');
    }
    return 0;
}

int flce_backend_check_flags(const char *backend, const char *device, char *why, size_t cap) {
    const char *src = from_env(backend) ? "FLCE_BACKEND=" : "--backend ";
    if (!flce_backend_known(backend))
        snprintf(why, cap, "%s'%s': unknown or not built (%s)", src, backend, flce_backend_names());
    else if (device && !flce_backend_have_vulkan())
        snprintf(why, cap, "--device: this build has no Vulkan backend");
    else if (device && !flce_backend_list_takes_device(backend))
        snprintf(why, cap, "--device %s: names a Vulkan device, and %s'%s' opens none", device, src, backend);
    else
        return 1;
    return 0;
}

/* The line saying which backend `auto` chose (or that vulkan started), once per process. */
static void say_once(const char *what, const char *detail, const char *then) {
    static int said;
    if (said++) return;
    fprintf(stderr, "flce: %s%s%s\n", what, detail, then);
}

/* The CPU backend's kernels are compiled for AVX2 (its files, CMakeLists.txt): on a CPU without
 * it they would stop the program at the first instruction (SIGILL). Checked here, in a file
 * compiled for plain x86-64, before any of its code runs. FLCE_CPU_ISA=x86-64 acts as such a CPU
 * (tests/cli_run.sh). */
static int cpu_ok(flce_err *e) {
    const char *isa = getenv("FLCE_CPU_ISA");
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && !(isa && !strcmp(isa, "x86-64"))) return 1;
    flce_fail(e, FLCE_ERR_ARG, "cpu backend: this CPU has no AVX2, which its kernels need; --backend reference gives the same bits (slowly)");
    return 0;
}

static int cpu_threads = 0; /* `cpu` by name: 0 the default, else flce_backend_set_cpu_threads's */

void flce_backend_set_cpu_threads(int threads) { cpu_threads = threads < 1 ? 1 : threads > 16 ? 16 : threads; }

/* The default: 2 threads, or 1 where this process may run on one CPU only (taskset, or mpirun,
 * which binds each of at most two processes to a core): two threads on one core only wait for
 * each other. The bits are the same for any number of threads (docs/bit-exact.md). */
static int default_threads(void) {
    cpu_set_t s;
    CPU_ZERO(&s);
    if (sched_getaffinity(0, sizeof s, &s) == 0 && CPU_COUNT(&s) == 1) return 1;
    return 2;
}

static flce_backend *cpu(flce_err *e) {
    if (!cpu_ok(e)) return NULL;
    flce_backend *be = flce_backend_cpu(cpu_threads ? cpu_threads : default_threads());
    if (!be) flce_fail(e, FLCE_ERR_NOMEM, "cpu backend: out of memory");
    return be;
}

/* A host backend in the mode asked for: as it is (preserve, auto), or wrapped (ftz). */
static flce_backend *host_mode(flce_backend *be, flce_denorm_mode mode, flce_err *e) {
    if (!be || mode != FLCE_DENORM_FTZ) return be;
    flce_backend *w = flce_backend_ftz(be);
    if (!w) {
        be->destroy(be);
        flce_fail(e, FLCE_ERR_NOMEM, "out of memory");
    }
    return w;
}

flce_backend *flce_backend_open(const char *name, const char *device, flce_denorm_mode mode, flce_err *e) {
    if (!strcmp(name, "reference")) return host_mode(flce_backend_reference(), mode, e);
    if (!strcmp(name, "cpu")) return host_mode(cpu(e), mode, e);
#ifdef FLCE_HAVE_VULKAN
    if (!strcmp(name, "vulkan")) {
        flce_backend *be = flce_backend_vulkan(device, mode, e);
        if (be) say_once("vulkan backend on ", be->device, "");
        if (be && be->note[0]) fprintf(stderr, "flce: %s\n", be->note);
        return be;
    }
    if (!strcmp(name, "auto")) {
        char seen[400];
        if (flce_vulkan_gpu(seen, sizeof seen)) {
            flce_err ve;
            flce_backend *be = flce_backend_vulkan(device, mode, &ve);
            if (be) {
                say_once("vulkan backend on ", be->device, "");
                if (be->note[0]) fprintf(stderr, "flce: %s\n", be->note);
                return be;
            }
            say_once(ve.msg, "", "; using the cpu backend");
        } else {
            say_once("no Vulkan GPU: ", seen, "; using the cpu backend");
        }
        return host_mode(cpu(e), mode, e);
    }
#else
    if (!strcmp(name, "vulkan")) {
        flce_fail(e, FLCE_ERR_ARG, "--backend vulkan: this build has no Vulkan backend (configured with -DFLCE_VULKAN=OFF)");
        return NULL;
    }
    if (!strcmp(name, "auto")) {
        say_once("this build has no Vulkan backend", "", "; using the cpu backend");
        return host_mode(cpu(e), mode, e);
    }
#endif
    flce_fail(e, FLCE_ERR_ARG, "--backend '%s': unknown (%s)", name, flce_backend_names());
    return NULL;
}

int flce_backend_have_vulkan(void) {
#ifdef FLCE_HAVE_VULKAN
    return 1;
#else
    return 0;
#endif
}

int flce_backend_gpu_present(char *seen, size_t cap) {
#ifdef FLCE_HAVE_VULKAN
    return flce_vulkan_gpu(seen, cap);
#else
    if (cap) snprintf(seen, cap, "this build has no Vulkan backend");
    return 0;
#endif
}

flce_backend *flce_backend_cpu_threads(int threads, flce_err *e) {
    if (!cpu_ok(e)) return NULL;
    flce_backend *be = flce_backend_cpu(threads);
    if (!be) flce_fail(e, FLCE_ERR_NOMEM, "cpu backend: out of memory");
    return be;
}

flce_status flce_backend_fmath(flce_backend *be, const float *x, const float *y, size_t n, float *out, flce_err *e) {
#ifdef FLCE_HAVE_VULKAN
    if (!strcmp(be->name, "vulkan")) return flce_vulkan_fmath(be, x, y, n, out, e);
#else
    (void)x, (void)y, (void)n, (void)out;
#endif
    return flce_fail(e, FLCE_ERR_ARG, "%s backend: no math library of its own to check", be->name);
}

long flce_backend_validation_messages(void) {
#ifdef FLCE_HAVE_VULKAN
    return flce_vulkan_validation_messages();
#else
    return 0;
#endif
}
