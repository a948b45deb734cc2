/* backend.c: choosing a backend by name. */
#include <string.h>

#include "backend.h"

flce_backend *flce_backend_create(const char *name, flce_err *e) {
    if (!strcmp(name, "reference")) return flce_backend_reference();
    if (!strcmp(name, "cpu")) {
        flce_backend *be = flce_backend_cpu(2);
        if (!be) flce_fail(e, FLCE_ERR_NOMEM, "cpu backend: out of memory");
        return be;
    }
    if (!strcmp(name, "vulkan")) {
        flce_fail(e, FLCE_ERR_ARG, "--backend vulkan: this build has no Vulkan backend yet");
        return NULL;
    }
    flce_fail(e, FLCE_ERR_ARG, "--backend '%s': unknown (reference, cpu)", name);
    return NULL;
}
