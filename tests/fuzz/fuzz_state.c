/* fuzz_state.c: state.bin as `flce run --resume` reads it (issue 35): the header, the settings
 * the state belongs to (and the difference named when they are another run's), the sizes, the
 * checksum and the fields copied into the engine. The first byte picks how the input becomes the
 * file: even, the bytes as they are; odd, a valid state of a small engine (FedAvg, 4 clients,
 * 3 rounds; rounds done from the second byte) with the rest of the input applied as edits of 3
 * bytes each (offset: 2 bytes LE, a byte to xor) and the checksum made right again, so that the
 * fuzzer reaches past the checksum into the settings check and the fields. */
#include "fuzz.h"
#include "cpu.h"
#include "method.h"

static engine E;
static flce_run_cfg cfg;
static unsigned char *valid[4];
static size_t valid_len[4];

static unsigned char *slurp(const char *p, size_t *n) {
    FILE *f = fopen(p, "rb");
    if (!f) abort();
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    unsigned char *b = malloc((size_t)len);
    if (!b || fread(b, 1, (size_t)len, f) != (size_t)len) abort();
    fclose(f);
    *n = (size_t)len;
    return b;
}

static void setup(void) {
    flce_run_cfg_default(&cfg);
    cfg.clients = 4, cfg.per_round = 2, cfg.rounds = 3;
    static const double sizes[4] = {10, 20, 30, 40};
    flce_err e;
    if (flce_engine_open_synthetic(&E, &cfg, flce_method_find("fedavg"), flce_backend_cpu(1), 1, 8, 8, 10, sizes, &e)) abort();
    snprintf(E.dir, sizeof E.dir, "%s", fuzz_dir());
    E.settings = strdup("{\"algo\":\"fedavg\",\"clients\":4,\"lr\":0.01,\"seed\":1}\npartition 0123456789abcdef");
    char p[200];
    snprintf(p, sizeof p, "%s/state.bin", fuzz_dir());
    for (int done = 0; done < 4; done++) {
        if (flce_engine_state_save(&E, done, &e)) abort();
        valid[done] = slurp(p, &valid_len[done]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!E.settings) setup();
    flce_err e;
    int done = 0;
    if (size >= 2 && (data[0] & 1)) {
        int k = data[1] % 4;
        size_t n = valid_len[k];
        unsigned char *b = malloc(n);
        if (!b) abort();
        memcpy(b, valid[k], n);
        for (size_t at = 2; at + 3 <= size; at += 3) {
            size_t off = ((size_t)data[at] | (size_t)data[at + 1] << 8) % (n - 8);
            b[off] ^= data[at + 2];
        }
        uint64_t sum = flce_digest(b, n - 8);
        memcpy(b + n - 8, &sum, 8);
        fuzz_file("state.bin", b, n);
        free(b);
    } else {
        fuzz_file("state.bin", size ? data + 1 : data, size ? size - 1 : 0);
    }
    flce_status st = flce_engine_state_load(&E, &done, &e);
    if (st == FLCE_OK && (done < 0 || done > cfg.rounds)) abort(); /* a count the run cannot have */
    if (size == 2 && (data[0] & 1) && (st != FLCE_OK || done != data[1] % 4)) { /* a state as written is read back */
        fprintf(stderr, "fuzz_state: a valid state of %d rounds not read back: %s\n", data[1] % 4, st ? e.msg : "other rounds");
        abort();
    }
    return 0;
}
