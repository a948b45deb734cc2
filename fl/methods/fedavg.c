/* fedavg.c: FedAvg (McMahan et al. 2017): local SGD on the cross-entropy; the server averages
 * the uploads weighted by data size; contributions by the paper's cosine rule (the cosine of
 * each client's update with the round's global update, clamped at 0, normalised per round;
 * docs/baselines.md). */
#include "method.h"

static const flce_setting *const SETTINGS[] = {&flce_setting_aggregation, NULL};

const flce_method flce_method_fedavg = {
    .name = "fedavg",
    .summary = "FedAvg: data-size-weighted average; cosine-rule contributions",
    .color = "#4e79a7",
    .flags = FLCE_M_COSINE_RULES | FLCE_M_COUNTS,
    .settings = SETTINGS,
    .server = flce_eng_fedavg_cosine,
};
