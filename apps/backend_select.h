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
/* 1 when name is one of flce_backend_names(). */
int flce_backend_known(const char *name);
/* The names this build accepts, for messages: "reference, cpu, vulkan, auto". */
const char *flce_backend_names(void);

#endif
