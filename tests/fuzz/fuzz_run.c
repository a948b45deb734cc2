/* fuzz_run.c: a finished run folder as `flce report` reads it (fuzz.h's records: config.json,
 * device.txt, digests.txt, metrics.csv, contributions.csv, round_contributions.csv,
 * clients.csv, contributions_rules.csv). */
#include "fuzz.h"
#include "run_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *names[] = {"config.json", "device.txt", "digests.txt", "metrics.csv", "contributions.csv",
                                  "round_contributions.csv", "clients.csv", "contributions_rules.csv"};
    fuzz_files(names, 8, data, size);
    static run_t r;
    flce_err e;
    if (flce_run_load(&r, fuzz_dir(), &e) == 0) flce_run_finish(&r, 10);
    flce_run_free(&r);
    return 0;
}
