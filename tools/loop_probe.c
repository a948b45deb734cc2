/* loop_probe.c: the AVX2 6 x 16 tile's inner loop (tile_6x16_rows, backends/cpu/tiles.h, as GCC
 * emits it) against loops of the same floating-point work with fewer or other instructions around
 * it, written in assembly so that the compiler cannot change them; one thread, the data in L1
 * (docs/performance.md, 2026-12-04). Every loop does the tile's work a term: 12 multiplies and 12
 * adds into 12 sums, separately rounded (the contract: no FMA). Loop 0 does nothing else, and
 * its time sets the scale: 6 cycles a term (two multiply and two add pipes); the others print
 * their time a term in those cycles, best of 40 (these machines drift within seconds). The
 * counts are macro-ops a term (a compare or add with its branch fused), and loads a term.
 * Not part of the build: a measurement tool.
 *   gcc -O2 -o /tmp/loop_probe tools/loop_probe.c && taskset -c 0 /tmp/loop_probe */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define K 144 /* terms a call: a 16-channel 3x3 layer */
static float Bm[K * 48 + 64] __attribute__((aligned(64))); /* B rows, 16 to 48 floats a term */
static float A[4096] __attribute__((aligned(64)));         /* the broadcasts' source */
static int64_t idx[K];                                     /* each term's index into A */

/* one row of the 6 x 16 tile: broadcast, two multiplies by the B vectors in ymm14, ymm15, two adds */
#define ROW(S, a, b)                                                                                          \
    "vbroadcastss " S "(%3,%%rax,4),%%ymm12\n vmulps %%ymm14,%%ymm12,%%ymm13\n"                              \
    "vaddps %%ymm13,%%ymm" #a ",%%ymm" #a "\n vmulps %%ymm15,%%ymm12,%%ymm13\n"                              \
    "vaddps %%ymm13,%%ymm" #b ",%%ymm" #b "\n"
#define ROWS6(d) ROW(#d "+0", 0, 1) ROW(#d "+4", 2, 3) ROW(#d "+8", 4, 5) ROW(#d "+12", 6, 7) ROW(#d "+16", 8, 9) ROW(#d "+20", 10, 11)
/* the same rows with the second B vector a memory operand of the multiply */
#define ROWF(S, O, a, b)                                                                                      \
    "vbroadcastss " S "(%3,%%rax,4),%%ymm12\n vmulps %%ymm14,%%ymm12,%%ymm13\n"                              \
    "vaddps %%ymm13,%%ymm" #a ",%%ymm" #a "\n vmulps " O "+32(%1),%%ymm12,%%ymm13\n"                          \
    "vaddps %%ymm13,%%ymm" #b ",%%ymm" #b "\n"
/* a row of NV vectors, every B vector a memory operand (3 x 32: NV 4; 2 x 48: NV 6) */
#define MF(O, r, t) "vmulps " O "(%1),%%ymm12,%%ymm" #t "\n vaddps %%ymm" #t ",%%ymm" #r ",%%ymm" #r "\n"
#define BCS(S) "vbroadcastss " S "(%3,%%rax,4),%%ymm12\n"
#define T3x32                                                                                                 \
    BCS("0") MF("0", 0, 13) MF("32", 1, 14) MF("64", 2, 15) MF("96", 3, 13)                                   \
    BCS("4") MF("0", 4, 14) MF("32", 5, 15) MF("64", 6, 13) MF("96", 7, 14)                                   \
    BCS("8") MF("0", 8, 15) MF("32", 9, 13) MF("64", 10, 14) MF("96", 11, 15)
#define T2x48                                                                                                 \
    BCS("0") MF("0", 0, 13) MF("32", 1, 14) MF("64", 2, 15) MF("96", 3, 13) MF("128", 4, 14) MF("160", 5, 15) \
    BCS("4") MF("0", 6, 13) MF("32", 7, 14) MF("64", 8, 15) MF("96", 9, 13) MF("128", 10, 14) MF("160", 11, 15)
#define LDB(o) "vmovups " #o "(%1),%%ymm14\n vmovups " #o "+32(%1),%%ymm15\n"
#define CLOB                                                                                                  \
    "memory", "cc", "rax", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",    \
        "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"
/* %0 the end of the index list, %1 the B pointer, %2 the index pointer, %3 A */
#define LOOP(BODY) __asm__ volatile("1:\n" BODY : "+r"(ie), "+r"(bp), "+r"(ip) : "r"(a) : CLOB)

static const char *name[] = {
    "0 24 mul/add, nothing else (25 ops, 0 loads)",
    "1 + B loads and broadcasts at fixed places (33, 8)",
    "2 the tile as GCC emits it (36, 9)",
    "3 one register indexes B and the list (34, 9)",
    "4 three taps an index (32.7, 8.3)",
    "5 second B vector a mul operand (35, 14)",
    "6 3 x 32, B mul operands (31, 16)",
    "7 2 x 48, B mul operands (30, 15)",
    "8 the tile, two terms a loop (34.5, 9)",
};
enum { NV = sizeof name / sizeof *name };

static void run(int v) {
    const int64_t *ip = idx, *ie = idx + K;
    const float *bp = Bm, *a = A;
    long n = K;
    switch (v) {
    case 0:
        __asm__ volatile("1:\n vmulps %%ymm14,%%ymm12,%%ymm13\n vaddps %%ymm13,%%ymm0,%%ymm0\n"
                         "vmulps %%ymm15,%%ymm12,%%ymm13\n vaddps %%ymm13,%%ymm1,%%ymm1\n"
                         "vmulps %%ymm14,%%ymm12,%%ymm13\n vaddps %%ymm13,%%ymm2,%%ymm2\n"
                         "vmulps %%ymm15,%%ymm12,%%ymm13\n vaddps %%ymm13,%%ymm3,%%ymm3\n"
                         "vmulps %%ymm14,%%ymm12,%%ymm13\n vaddps %%ymm13,%%ymm4,%%ymm4\n"
                         "vmulps %%ymm15,%%ymm12,%%ymm13\n vaddps %%ymm13,%%ymm5,%%ymm5\n"
                         "vmulps %%ymm14,%%ymm12,%%ymm13\n vaddps %%ymm13,%%ymm6,%%ymm6\n"
                         "vmulps %%ymm15,%%ymm12,%%ymm13\n vaddps %%ymm13,%%ymm7,%%ymm7\n"
                         "vmulps %%ymm14,%%ymm12,%%ymm13\n vaddps %%ymm13,%%ymm8,%%ymm8\n"
                         "vmulps %%ymm15,%%ymm12,%%ymm13\n vaddps %%ymm13,%%ymm9,%%ymm9\n"
                         "vmulps %%ymm14,%%ymm12,%%ymm13\n vaddps %%ymm13,%%ymm10,%%ymm10\n"
                         "vmulps %%ymm15,%%ymm12,%%ymm13\n vaddps %%ymm13,%%ymm11,%%ymm11\n"
                         "dec %0\n jnz 1b\n"
                         : "+r"(n)
                         :
                         : CLOB);
        break;
    case 1:
        __asm__ volatile("xor %%eax,%%eax\n 1:\n" LDB(0) ROWS6(0) "dec %0\n jnz 1b\n" : "+r"(n) : "r"(bp), "r"(ip), "r"(a) : CLOB);
        break;
    case 2: LOOP("mov (%2),%%rax\n add $8,%2\n" LDB(0) "add $64,%1\n" ROWS6(0) "cmp %2,%0\n jne 1b\n"); break;
    case 3: {
        int64_t kb = -8 * (int64_t)K; /* counts up to 0: B at end + 8 kb, the index at end + kb */
        const float *be = Bm + 16 * K;
        __asm__ volatile("1:\n mov (%2,%0,1),%%rax\n vmovups (%1,%0,8),%%ymm14\n vmovups 32(%1,%0,8),%%ymm15\n" ROWS6(0)
                         "add $8,%0\n jnz 1b\n"
                         : "+r"(kb)
                         : "r"(be), "r"(ie), "r"(a)
                         : CLOB);
        break;
    }
    case 4: /* the three taps of one (channel, row) at displacements 0, 4, 8 bytes */
        LOOP("mov (%2),%%rax\n add $24,%2\n" LDB(0) ROWS6(0) LDB(64) ROWS6(4) LDB(128) ROWS6(8) "add $192,%1\n cmp %2,%0\n jne 1b\n");
        break;
    case 5:
        LOOP("mov (%2),%%rax\n add $8,%2\n vmovups (%1),%%ymm14\n" ROWF("0", "0", 0, 1) ROWF("4", "0", 2, 3) ROWF("8", "0", 4, 5)
                 ROWF("12", "0", 6, 7) ROWF("16", "0", 8, 9) ROWF("20", "0", 10, 11) "add $64,%1\n cmp %2,%0\n jne 1b\n");
        break;
    case 6: LOOP("mov (%2),%%rax\n add $8,%2\n" T3x32 "add $128,%1\n cmp %2,%0\n jne 1b\n"); break;
    case 7: LOOP("mov (%2),%%rax\n add $8,%2\n" T2x48 "add $192,%1\n cmp %2,%0\n jne 1b\n"); break;
    case 8:
        LOOP("mov (%2),%%rax\n" LDB(0) ROWS6(0) "mov 8(%2),%%rax\n add $16,%2\n" LDB(64) "add $128,%1\n" ROWS6(0)
             "cmp %2,%0\n jne 1b\n");
        break;
    }
}

int main(void) {
    for (int k = 0; k < K; k++) idx[k] = (k * 37) % 1000;
    for (size_t i = 0; i < sizeof Bm / sizeof *Bm; i++) Bm[i] = 1.0f + 1e-3f * (float)(i % 9);
    for (size_t i = 0; i < sizeof A / sizeof *A; i++) A[i] = 1e-3f * (float)(i % 11);
    __asm__ volatile("vxorps %%xmm0,%%xmm0,%%xmm0\n" /* the sums from 0: no subnormal ever */
                     "vmovaps %%ymm0,%%ymm1\n vmovaps %%ymm0,%%ymm2\n vmovaps %%ymm0,%%ymm3\n vmovaps %%ymm0,%%ymm4\n"
                     "vmovaps %%ymm0,%%ymm5\n vmovaps %%ymm0,%%ymm6\n vmovaps %%ymm0,%%ymm7\n vmovaps %%ymm0,%%ymm8\n"
                     "vmovaps %%ymm0,%%ymm9\n vmovaps %%ymm0,%%ymm10\n vmovaps %%ymm0,%%ymm11\n vmovaps %%ymm0,%%ymm12\n"
                     "vmovaps %%ymm0,%%ymm14\n vmovaps %%ymm0,%%ymm15\n" ::
                         : CLOB);
    double best[NV];
    for (int v = 0; v < NV; v++) best[v] = 1e30;
    long calls = 20000;
    for (int r = 0; r < 40; r++)
        for (int v = 0; v < NV; v++) {
            double t0 = now();
            for (long c = 0; c < calls; c++) run(v);
            double t = now() - t0;
            if (t < best[v]) best[v] = t;
        }
    double ns = 1e9 * best[0] / ((double)calls * K);
    printf("loop 0: %.3f ns a term (%.2f GHz if that is 6 cycles)\n", ns, 6.0 / ns);
    for (int v = 0; v < NV; v++)
        printf("%-52s %5.2f cycles a term (%.0f%% of the pipes)\n", name[v], 6.0 * best[v] / best[0], 100.0 * best[0] / best[v]);
    return 0;
}
