/* backend.c: choosing a backend by name. */
#include <stdio.h>
#include <string.h>

#include "backend.h"

#ifdef FLCE_HAVE_VULKAN
const char *flce_backend_names(void) { return "reference, cpu, vulkan, auto"; }
#else
const char *flce_backend_names(void) { return "reference, cpu, auto"; }
#endif

int flce_backend_known(const char *name) {
#ifdef FLCE_HAVE_VULKAN
    if (!strcmp(name, "vulkan")) return 1;
#endif
    return !strcmp(name, "reference") || !strcmp(name, "cpu") || !strcmp(name, "auto");
}

static flce_backend *cpu(flce_err *e) {
    flce_backend *be = flce_backend_cpu(2);
    if (!be) flce_fail(e, FLCE_ERR_NOMEM, "cpu backend: out of memory");
    return be;
}

flce_backend *flce_backend_create(const char *name, flce_err *e) {
    if (!strcmp(name, "reference")) return flce_backend_reference();
    if (!strcmp(name, "cpu")) return cpu(e);
#ifdef FLCE_HAVE_VULKAN
    if (!strcmp(name, "vulkan")) {
        flce_backend *be = flce_backend_vulkan(e);
        if (be) fprintf(stderr, "flce: vulkan backend on %s\n", be->device);
        return be;
    }
    if (!strcmp(name, "auto")) {
        char seen[400];
        if (flce_vulkan_gpu(seen, sizeof seen)) {
            flce_err ve;
            flce_backend *be = flce_backend_vulkan(&ve);
            if (be) {
                fprintf(stderr, "flce: vulkan backend on %s\n", be->device);
                return be;
            }
            fprintf(stderr, "flce: %s; using the cpu backend\n", ve.msg);
        } else {
            fprintf(stderr, "flce: no Vulkan GPU (%s); using the cpu backend\n", seen);
        }
        return cpu(e);
    }
#else
    if (!strcmp(name, "vulkan")) {
        flce_fail(e, FLCE_ERR_ARG, "--backend vulkan: this build has no Vulkan backend (configured with -DFLCE_VULKAN=OFF)");
        return NULL;
    }
    if (!strcmp(name, "auto")) {
        fprintf(stderr, "flce: this build has no Vulkan backend; using the cpu backend\n");
        return cpu(e);
    }
#endif
    flce_fail(e, FLCE_ERR_ARG, "--backend '%s': unknown (%s)", name, flce_backend_names());
    return NULL;
}
