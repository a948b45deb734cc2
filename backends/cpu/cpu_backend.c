/* cpu_backend.c: the fast CPU backend. Convolutions are register-blocked tiles (tiles.h:
 * 6 x 16 tiles of 8-wide AVX2 vectors, or 8 x 48, 8 x 32 and narrower tiles of 16-wide AVX-512
 * vectors where the CPU has them: gemm512.c; separate multiply and add, no FMA), on two threads with a
 * fixed split of independent outputs; every output is reduced in exactly the order of
 * reference/ops.h, so the bits equal the reference's:
 *   forward      y_n[k][p]  = sum_q W[k][q] col_n[q][p]          (q = (ci, ky, kx) ascending)
 *   input grad   dx = sum over taps (ky, kx) of (sum_k W[k][c][ky][kx] dy_n[k][.]), or through
 *                dcol[q][p] = sum_k W[k][q] dy_n[k][p] and col2im in (ky, kx) order
 *   weight grad  dWT[q][k] = dWT[q][k] + t_n[q][k], t_n = sum_p col_n[q][p] dyT_n[p][k]  (p, then n)
 * The column matrix col_n is mostly implicit: shifted rows of a zero-padded copy of the sample
 * (fwd_implicit, fwd_flat, the rows tiles), an explicit im2col only for 1x1 stride-2 and the
 * odd shapes. BatchNorm (K8 lanes = the lanes of an 8-wide vector over each channel's flat
 * range, split by ranges of the batch; the ReLU fused), ReLU, add and the global average pooling
 * are split across the threads and vectorised; the losses, SGD and the weighted sum use the
 * reference loops (they are a small share of a step). FLCE_CPU_PROFILE=1 prints the time per op.
 * The files: cpu_backend.c (the op table, the constructor, the profiler), cpu_conv.c (the
 * convolutions), cpu_bn.c (BatchNorm), cpu_elementwise.c (ReLU and add), gemm512.c (the AVX-512
 * tiles), sharing cpu_int.h. */
#include "cpu.h"
#include "cpu_int.h"

/* The ops this backend computes itself; every other op of the interface (linear_fwd, linear_bwd,
 * softmax_ce, supcon, sgd, weighted_sum) is the reference's loop (flce_backend_fill_reference), on
 * host buffers like these. */
#define CPU_OWN_OPS(X) \
    X(conv2d_fwd) X(conv2d_fwd_bn_eval) X(conv2d_bwd_data) X(conv2d_bwd_weight) X(bn_fwd_train) X(bn_fwd_train_res) X(bn_fwd_eval) X(bn_bwd) X(relu_fwd) \
    X(relu_bwd) X(add) X(add_relu_bwd) X(avgpool_fwd) X(avgpool_bwd)

int flce_cpu_use_avx512, flce_cpu_narrow;

void flce_cpu_prof_add(cpu_ctx *c, const char *key, double sec, double flops) {
    int i = 0;
    while (i < c->nprof && strcmp(c->prof[i].key, key)) i++;
    if (i == c->nprof) {
        if (c->nprof == 64) return;
        snprintf(c->prof[c->nprof++].key, sizeof c->prof[0].key, "%s", key);
    }
    c->prof[i].sec += sec;
    c->prof[i].flops += flops;
    c->prof[i].calls++;
}

static int prof_cmp(const void *a, const void *b) {
    double x = ((const prof_entry *)a)->sec, y = ((const prof_entry *)b)->sec;
    return (x < y) - (x > y);
}

static void prof_print(cpu_ctx *c) {
    double total = 0;
    for (int i = 0; i < c->nprof; i++) total += c->prof[i].sec;
    qsort(c->prof, (size_t)c->nprof, sizeof c->prof[0], prof_cmp);
    fprintf(stderr, "cpu profile: %.3f s in the backend's own ops\n%-40s %10s %8s %7s %9s\n", total, "op shape", "ms", "calls",
            "share", "GFLOP/s");
    for (int i = 0; i < c->nprof; i++) {
        fprintf(stderr, "%-40s %10.1f %8ld %6.1f%%", c->prof[i].key, 1e3 * c->prof[i].sec, c->prof[i].calls,
                total > 0 ? 100.0 * c->prof[i].sec / total : 0.0);
        if (c->prof[i].flops > 0 && c->prof[i].sec > 0) fprintf(stderr, " %9.1f\n", 1e-9 * c->prof[i].flops / c->prof[i].sec);
        else fprintf(stderr, " %9s\n", "-"); /* the convolutions' multiplies and adds only */
    }
}

static int cpu_profile(const flce_backend *be, flce_prof_row *rows, int max) {
    const cpu_ctx *c = be->ctx;
    int n = c->profile ? (c->nprof < max ? c->nprof : max) : 0;
    for (int i = 0; i < n; i++) rows[i] = c->prof[i];
    return n;
}

static void cpu_destroy(flce_backend *be) {
    cpu_ctx *c = be->ctx;
    if (c->profile) prof_print(c);
    pool_destroy(&c->pool);
    for (int i = 0; i < 16; i++) free(c->a[i].p), free(c->b[i].p);
    free(c->wt.p);
    free(be->ctx);
    free(be);
}

flce_backend *flce_backend_cpu(int threads) {
    flce_backend *be = calloc(1, sizeof *be);
    cpu_ctx *c = calloc(1, sizeof *c);
    if (!be || !c) {
        free(be);
        free(c);
        return NULL;
    }
    c->threads = threads < 1 ? 1 : threads > 16 ? 16 : threads;
    pool_init(&c->pool, c->threads);
    const char *prof = getenv("FLCE_CPU_PROFILE");
    c->profile = prof && *prof && strcmp(prof, "0");
    /* AVX-512 tiles where the CPU has them (the same bits); FLCE_CPU_ISA=avx2 turns them off */
    const char *isa = getenv("FLCE_CPU_ISA");
    __builtin_cpu_init();
    USE_AVX512 = __builtin_cpu_supports("avx512f") && !(isa && !strcmp(isa, "avx2"));
    /* Which AVX-512 tiles: on AMD's cores (Zen 4 measured: 512-bit operations on 256-bit pipes)
     * tiles of one vector with a broadcast operand in every multiply run at 94-95% of the mul+add
     * peak where 2-3 vectors sharing a broadcast reach 65-75% (tools/tile512_probe.c); on the
     * Intel Xeons measured the wide ones win. FLCE_CPU_TILES=narrow or wide chooses; every
     * choice gives the same bits (docs/performance.md, 2026-11-30). */
    const char *tl = getenv("FLCE_CPU_TILES");
    flce_cpu_narrow = USE_AVX512 && (tl && *tl ? !strcmp(tl, "narrow") : __builtin_cpu_is("amd"));
    be->name = "cpu";
    snprintf(be->device, sizeof be->device, "host CPU, %d threads, %s mul/add (no FMA)", c->threads,
             !USE_AVX512 ? "AVX2" : USE_NARROW ? "AVX-512 one-vector tiles," : "AVX-512");
    be->ctx = c;
    flce_backend_fill_reference(be);
    be->destroy = cpu_destroy;
    be->profile = cpu_profile;
#define CPU_OP_SET(name) be->name = c_##name;
    CPU_OWN_OPS(CPU_OP_SET)
#undef CPU_OP_SET
    return be;
}
