/* registry.c: the methods, listed once. The `--algo` names, `all` (this order), the help text
 * and the engine's lookup all come from FLCE_METHODS; a method is one file in this folder
 * defining `const flce_method flce_method_<name>` (docs/adding-a-method.md). */
#include <stdio.h>
#include <string.h>

#include "method.h"

#define FLCE_METHODS(X) X(flce) X(fedavg) X(fedprox) X(ditto) X(moon) X(fedfv) X(cgsv) X(qfedavg) X(fedfa) X(fedsv) X(gtg)

#define DECLARE(m) extern const flce_method flce_method_##m;
FLCE_METHODS(DECLARE)
#undef DECLARE

static const flce_method *const REGISTRY[] = {
#define ENTRY(m) &flce_method_##m,
    FLCE_METHODS(ENTRY)
#undef ENTRY
};
#define NMETHODS ((int)(sizeof REGISTRY / sizeof REGISTRY[0]))

int flce_method_count(void) { return NMETHODS; }

const flce_method *flce_method_at(int i) { return i >= 0 && i < NMETHODS ? REGISTRY[i] : NULL; }

const char *flce_method_name(int i) { return i >= 0 && i < NMETHODS ? REGISTRY[i]->name : NULL; }

const flce_method *flce_method_find(const char *name) {
    for (int i = 0; i < NMETHODS; i++)
        if (!strcmp(name, REGISTRY[i]->name)) return REGISTRY[i];
    return NULL;
}

int flce_algo_known(const char *name) { return flce_method_find(name) != NULL; }

int flce_method_released_schedule(const char *name) {
    const flce_method *M = flce_method_find(name);
    return M ? M->released_schedule : 0;
}

const char *flce_method_names(void) {
    static char buf[512];
    if (!buf[0])
        for (size_t i = 0, n = 0; i < NMETHODS; i++) flce_catf(buf, sizeof buf, &n, "%s%s", i ? ", " : "", REGISTRY[i]->name);
    return buf;
}

const char *flce_method_help(void) {
    static char buf[4096];
    if (!buf[0])
        for (size_t i = 0, n = 0; i < NMETHODS; i++) flce_catf(buf, sizeof buf, &n, "  %-9s %s\n", REGISTRY[i]->name, REGISTRY[i]->summary);
    return buf;
}
