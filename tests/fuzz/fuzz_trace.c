/* fuzz_trace.c: a trace folder (fuzz.h's records: prototypes.npy, selected.npy,
 * data_sizes.npy, round_weights.npy, class_weights.npy), read and, when small, evaluated. */
#include "fuzz.h"
#include "trace_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *names[] = {"prototypes.npy", "selected.npy", "data_sizes.npy", "round_weights.npy", "class_weights.npy"};
    fuzz_files(names, 5, data, size);
    flce_trace_files tf;
    flce_err e;
    int wb;
    if (flce_trace_load(fuzz_dir(), NULL, NULL, &tf, &wb, &e) == FLCE_OK) {
        if ((int64_t)tf.tr.T * tf.tr.n * tf.tr.C * tf.tr.d <= 4096) {
            flce_ablation ab = {0};
            flce_completion_cfg cc;
            flce_completion_cfg_default(&cc);
            cc.max_iter = 20;
            flce_eval_result res = {0};
            flce_eval_trace(&tf.tr, &ab, &cc, &res, &e);
            flce_eval_result_free(&res);
        }
        flce_trace_files_free(&tf);
    }
    return 0;
}
