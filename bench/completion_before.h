/* completion_before.h: the completion before 2026-11-27, for flce-bench server's baseline. */
#ifndef FLCE_COMPLETION_BEFORE_H
#define FLCE_COMPLETION_BEFORE_H

#include "flce_eq.h"

/* flce_complete as of commit 84a31a9 (masked completion; cfg->literal ignored). */
flce_status flce_complete_before(const double *X, const uint8_t *obs, int T, int n, const flce_completion_cfg *cfg,
                                 uint32_t stream, double *Xhat, flce_completion_info *info, flce_err *e);

#endif
