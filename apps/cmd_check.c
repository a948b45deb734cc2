/* cmd_check.c: `flce check`: the cross-check harness of the bit-exact contract
 * (docs/bit-exact.md). For each backend (cpu and vulkan, or the one named):
 *  1 every case of the op table (check/opcheck.c: odd and edge sizes, sentinels after every
 *    output) against the reference backend, by digest;
 *  2 for Vulkan, the GLSL math library against the C one (shaders/fmath.glsl against
 *    base/fmath.h) on edge inputs and random bit patterns;
 *  3 N ResNet20 training steps with the contrastive loss from the same seed on the backend
 *    and on the reference, comparing after every step the digests of the logits,
 *    prototypes, gradients, parameters and BatchNorm running statistics.
 * One line per case naming the backend and the device, then a summary line; exit status 0
 * only when everything matched, 1 on any mismatch, 2 on a usage error or a backend named
 * with --backend that cannot run here. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "commands.h"
#include "fmath.h"
#include "flce_eq.h"
#include "model.h"
#include "opcheck.h"
#include "backend_select.h"
#include "ref_backend.h"

static const char *USAGE =
    "usage: flce check [--backend all|cpu|vulkan] [--op NAME] [--steps 3] [--device D]\n"
    "                  [--input 3x32x32] [--batch 8] [--classes 10] [--seed 1] [--denormals auto|preserve|ftz]\n"
    "Checks every op on a table of shapes and N ResNet20 training steps against the reference\n"
    "backend, bit for bit. --op NAME keeps the cases whose op starts with NAME (e.g. CONV2D,\n"
    "BN_BWD, FMATH; STEPS for the training steps only). Exit 0 only when everything matched.";

typedef struct {
    int cases, failed;
} tally;

/* The name of the device for the per-case lines: the backend's device description up to
 * its details (after ';' for Vulkan, ',' for the host backends). */
static void short_device(const flce_backend *be, char *out, size_t cap) {
    snprintf(out, cap, "%s", be->device);
    char *p = strchr(out, ';');
    if (!p) p = strchr(out, ',');
    if (p) *p = 0;
}

static void report(const char *be_name, const char *dev, const char *name, const flce_opcheck_result *r,
                   const char *what, tally *t) {
    t->cases++;
    if (r->ok) {
        printf("ok   %-7s %-28s %s\n", be_name, dev, name);
        return;
    }
    t->failed++;
    printf("FAIL %-7s %-28s %s: %s", be_name, dev, name, what);
    if (r->sentinel_broken) printf(" wrote past its end (sentinel overwritten)");
    if (r->digest_ref != r->digest_be) {
        char a[17], b[17];
        flce_digest_hex(r->digest_ref, a);
        flce_digest_hex(r->digest_be, b);
        printf(" digest %s (reference) vs %s; first difference at [%zu]: %.9g vs %.9g (%.0f ulp); NMSE %.3g", a, b,
               r->first_diff, (double)r->v_ref, (double)r->v_be, r->ulp, r->nmse);
    }
    printf("\n");
}

static int op_matches(const char *name, const char *op) {
    if (!op) return 1;
    size_t n = strlen(op);
    for (size_t i = 0; i < n; i++)
        if (!name[i] || toupper((unsigned char)name[i]) != toupper((unsigned char)op[i])) return 0;
    return 1;
}

/* The GLSL math library against base/fmath.h: bits equal, or both NaN (NaN payloads are not
 * part of the contract: Vulkan does not promise to keep them). */
static void check_fmath(flce_backend *be, const char *dev, tally *t) {
    static const float special[] = {0.0f, -0.0f, 1e-45f, -1e-45f, 1e-40f, 1.1754942e-38f, 1.17549435e-38f, 1.0f,
                                    -1.0f, 0.5f, 2.0f, 3.0f, 1e-10f, 1e10f, 88.72283f, 88.7229f, 88.0f, -87.3f,
                                    -103.97208f, -104.0f, -100.0f, 3.4028235e38f, -3.4028235e38f, 1.4142135f,
                                    1.4142137f, 0.70710677f, 16777216.0f, 1e-30f, 7.0f, -7.0f};
    enum { NR = 20000 };
    size_t ns = sizeof special / sizeof special[0], n = ns + 3 + NR;
    float *x = malloc(n * 4), *y = malloc(n * 4), *got = malloc(6 * n * 4), *want = malloc(6 * n * 4);
    flce_opcheck_result r = {.ok = 1};
    char name[64];
    snprintf(name, sizeof name, "FMATH(n=%zu, edge cases and random bits)", n);
    if (!x || !y || !got || !want) {
        r.ok = 0;
        report(be->name, dev, name, &r, "out of memory", t);
        goto out;
    }
    memcpy(x, special, sizeof special);
    x[ns] = fm_float(0x7f800000u), x[ns + 1] = fm_float(0xff800000u), x[ns + 2] = fm_float(0x7fc00000u);
    flce_rng g;
    flce_rng_init(&g, 1, 0xf3a7, 0, 0);
    for (size_t i = ns + 3; i < n; i++) x[i] = fm_float(flce_rng_u32(&g));
    for (size_t i = 0; i < n; i++) y[i] = i < ns + 3 ? x[(i * 7 + 3) % (ns + 3)] : fm_float(flce_rng_u32(&g));
    for (size_t i = 0; i < n; i++) {
        want[6 * i] = fm_recip(x[i]);
        want[6 * i + 1] = fm_div(x[i], y[i]);
        want[6 * i + 2] = fm_rsqrt(x[i]);
        want[6 * i + 3] = fm_sqrt(x[i]);
        want[6 * i + 4] = fm_exp(x[i]);
        want[6 * i + 5] = fm_log(x[i]);
    }
    flce_err e;
    if (flce_backend_fmath(be, x, y, n, got, &e)) {
        r.ok = 0;
        report(be->name, dev, name, &r, e.msg, t);
        goto out;
    }
    for (size_t k = 0; k < 6 * n; k++) /* NaN == NaN for this comparison */
        if (want[k] != want[k] && got[k] != got[k]) got[k] = want[k];
    flce_opcheck_diff(want, got, 6 * n, &r);
    char what[96] = "";
    if (!r.ok) {
        static const char *fn[6] = {"recip", "div", "rsqrt", "sqrt", "exp", "log"};
        size_t k = r.first_diff;
        snprintf(what, sizeof what, "fm_%s(%.9g%s)", fn[k % 6], (double)x[k / 6], k % 6 == 1 ? ", y" : "");
    }
    report(be->name, dev, name, &r, what, t);
out:
    free(x), free(y), free(got), free(want);
}

/* One tensor of a training step: read n floats from each side and compare. */
static int step_cmp(flce_backend *ref, const flce_buf *rb, flce_backend *be, const flce_buf *bb, size_t n,
                    float *x, float *y, flce_opcheck_result *r) {
    ref->buf_read(ref, rb, 0, x, n * 4);
    be->buf_read(be, bb, 0, y, n * 4);
    flce_opcheck_diff(x, y, n, r);
    return r->ok;
}

typedef struct {
    int in_c, in_h, in_w, batch, classes, steps;
    uint64_t seed;
} step_cfg;

/* N training steps on both backends from the same initialisation and batches. */
static void check_steps(flce_backend *ref, flce_backend *be, const char *dev, const step_cfg *sc, tally *t) {
    flce_err e = {{0}};
    flce_model mr, mb;
    int nin = sc->in_c * sc->in_h * sc->in_w, B = sc->batch, C = sc->classes;
    if (flce_model_create(&mr, ref, sc->in_c, sc->in_h, sc->in_w, C, B, &e) ||
        flce_model_create(&mb, be, sc->in_c, sc->in_h, sc->in_w, C, B, &e)) {
        flce_opcheck_result r = {0};
        report(be->name, dev, "STEPS", &r, e.msg, t);
        return;
    }
    flce_model_init(&mr, sc->seed);
    flce_model_init(&mb, sc->seed);
    size_t maxn = flce_model_state_size(&mr) + (size_t)B * (C + FLCE_FEAT);
    float *x = malloc(sizeof(float) * (size_t)B * nin), *a = malloc(maxn * 4), *b = malloc(maxn * 4);
    float *pa = malloc(sizeof(float) * (size_t)C * FLCE_FEAT), *pb = malloc(sizeof(float) * (size_t)C * FLCE_FEAT);
    int32_t *lab = malloc(sizeof(int32_t) * (size_t)B);
    int *lab_i = malloc(sizeof(int) * (size_t)B), *pred = malloc(sizeof(int) * (size_t)B), *cnt = malloc(sizeof(int) * (size_t)C);
    flce_rng g;
    for (int step = 1; step <= sc->steps && x && a && b && pa && pb && lab && lab_i && pred && cnt; step++) {
        flce_rng_init(&g, sc->seed, 0xc4ec, (uint32_t)step, 0);
        for (size_t i = 0; i < (size_t)B * nin; i++) x[i] = (float)flce_rng_normal(&g);
        for (int i = 0; i < B; i++) lab[i] = lab_i[i] = (int32_t)flce_rng_below(&g, (uint32_t)(C < 4 ? C : 4));
        const char *fault = getenv("FLCE_CHECK_TEST_FAULT");
        if (fault && !strcmp(fault, "1") && step == 2) { /* tests only: one ulp off in one weight */
            flce_param *p = &mb.p[mb.lin_w];
            float v;
            be->buf_read(be, p->w, 0, &v, 4);
            v = nextafterf(v, 1e30f);
            be->buf_write(be, p->w, 0, &v, 4);
        }
        flce_losses lr, lb;
        flce_model_forward_backward(&mr, B, x, lab, 1.0f, 0.5f, &lr, &e);
        flce_model_forward_backward(&mb, B, x, lab, 1.0f, 0.5f, &lb, &e);
        flce_opcheck_result r = {.ok = 1};
        char what[160] = "", name[96];
        /* logits, then prototypes of the features (eq:method.z) */
        if (!step_cmp(ref, mr.logits, be, mb.logits, (size_t)B * C, a, b, &r)) snprintf(what, sizeof what, "logits");
        if (r.ok) {
            for (int i = 0; i < B; i++) {
                int arg = 0;
                for (int j = 1; j < C; j++)
                    if (a[i * C + j] > a[i * C + arg]) arg = j;
                pred[i] = arg;
            }
            float *za = a, *zb = b;
            ref->buf_read(ref, mr.z, 0, za, sizeof(float) * (size_t)B * FLCE_FEAT);
            be->buf_read(be, mb.z, 0, zb, sizeof(float) * (size_t)B * FLCE_FEAT);
            flce_opcheck_diff(za, zb, (size_t)B * FLCE_FEAT, &r);
            if (!r.ok) snprintf(what, sizeof what, "features z");
            else {
                flce_prototypes(za, lab_i, pred, B, FLCE_FEAT, C, pa, cnt);
                flce_prototypes(zb, lab_i, pred, B, FLCE_FEAT, C, pb, cnt);
                for (size_t k = 0; k < (size_t)C * FLCE_FEAT; k++) /* classes without a prototype: NaN rows */
                    if (pa[k] != pa[k] && pb[k] != pb[k]) pa[k] = pb[k] = 0.0f;
                flce_opcheck_diff(pa, pb, (size_t)C * FLCE_FEAT, &r);
                if (!r.ok) snprintf(what, sizeof what, "prototypes");
            }
        }
        if (r.ok && memcmp(&lr, &lb, sizeof lr)) {
            r.ok = 0;
            snprintf(what, sizeof what, "losses %.9g vs %.9g", (double)lr.loss, (double)lb.loss);
        }
        for (int i = 0; i < mr.nparams && r.ok; i++)
            if (mr.p[i].trainable && !step_cmp(ref, mr.p[i].g, be, mb.p[i].g, mr.p[i].n, a, b, &r))
                snprintf(what, sizeof what, "grad.%s", mr.p[i].name);
        if (r.ok) {
            flce_model_sgd(&mr, 0.05f, 0.9f, 5e-4f, step == 1);
            flce_model_sgd(&mb, 0.05f, 0.9f, 5e-4f, step == 1);
        }
        for (int i = 0; i < mr.nparams && r.ok; i++) /* parameters after SGD, BatchNorm running statistics */
            if (!step_cmp(ref, mr.p[i].w, be, mb.p[i].w, mr.p[i].n, a, b, &r))
                snprintf(what, sizeof what, "%s", mr.p[i].name);
        if (r.ok) { /* the digests of the whole state, printed on the line */
            r.digest_ref = flce_model_digest(&mr, 0);
            r.digest_be = flce_model_digest(&mb, 0);
            r.ok = r.digest_ref == r.digest_be;
        }
        char dg[17];
        flce_digest_hex(r.digest_be, dg);
        snprintf(name, sizeof name, "STEP %d/%d (ResNet20 %dx%dx%d, batch %d, CE + SupCon, SGD)%s%s", step,
                 sc->steps, sc->in_c, sc->in_h, sc->in_w, B, r.ok ? " model " : "", r.ok ? dg : "");
        report(be->name, dev, name, &r, what, t);
        if (!r.ok) break; /* later steps start from different states */
    }
    free(x), free(a), free(b), free(pa), free(pb), free(lab), free(lab_i), free(pred), free(cnt);
    flce_model_free(&mr);
    flce_model_free(&mb);
}

int flce_cmd_check(int argc, char **argv) {
    const char *prog = "flce check", *backend = "all", *op = NULL, *device = NULL, *input = "3x32x32", *denorm = "auto";
    int steps = 3, batch = 8, classes = 10;
    uint64_t seed = 1;
    cli_opt opts[] = {
        {"backend", CLI_STR, &backend, "all (default: cpu and vulkan where present), cpu or vulkan", 0},
        {"op", CLI_STR, &op, "only the cases whose op name starts with this (CONV2D, BN, FMATH, STEPS ...)", 0},
        {"steps", CLI_INT, &steps, "ResNet20 training steps to compare (default 3; 0 for none)", 0},
        {"device", CLI_STR, &device, "Vulkan device: index or part of its name (default: FLCE_VK_DEVICE, else the best)", 0},
        {"input", CLI_STR, &input, "input shape of the training steps, CxHxW (default 3x32x32)", 0},
        {"batch", CLI_INT, &batch, "batch of the training steps (default 8)", 0},
        {"classes", CLI_INT, &classes, "classes of the training steps (default 10)", 0},
        {"seed", CLI_U64, &seed, "seed of the initialisation and the batches (default 1)", 0},
        {"denormals", CLI_STR, &denorm, "float contract mode: auto (what the device does), preserve or ftz", 0},
        {0},
    };
    const char *pos[1];
    int np, rc = cli_parse(prog, USAGE, opts, argc, argv, pos, 0, &np);
    if (rc) return rc == 1 ? 0 : rc;
    flce_denorm_mode mode;
    if (!flce_denorm_parse(denorm, &mode)) return cli_usage_error(prog, "--denormals '%s': auto, preserve or ftz", denorm);
    step_cfg sc = {0, 0, 0, batch, classes, steps, seed};
    char tail; /* nothing after W: '3x32x32x1' was read as 3x32x32 */
    if (sscanf(input, "%dx%dx%d%c", &sc.in_c, &sc.in_h, &sc.in_w, &tail) != 3 || sc.in_c < 1 || sc.in_h < 4 || sc.in_w < 4 ||
        sc.in_c > 16 || sc.in_h > 512 || sc.in_w > 512)
        return cli_usage_error(prog, "--input '%s': expected CxHxW with C 1..16 and H, W 4..512", input);
    if (steps < 0 || steps > 1000) return cli_usage_error(prog, "--steps %d: expected 0..1000", steps);
    if (batch < 2 || batch > 1024) return cli_usage_error(prog, "--batch %d: expected 2..1024", batch);
    if (classes < 2 || classes > 1000) return cli_usage_error(prog, "--classes %d: expected 2..1000", classes);
    const char *names[2];
    int nb = 0;
    int explicit = strcmp(backend, "all") != 0;
    if (!explicit) {
        names[nb++] = "cpu";
        if (flce_backend_have_vulkan()) names[nb++] = "vulkan";
    } else if (!strcmp(backend, "cpu") || !strcmp(backend, "vulkan")) {
        names[nb++] = backend;
    } else {
        return cli_usage_error(prog, "--backend '%s': expected all, cpu or vulkan", backend);
    }
    if (device && !flce_backend_have_vulkan()) return cli_usage_error(prog, "--device: this build has no Vulkan backend");
    if (device && explicit && !flce_backend_list_takes_device(backend)) return cli_usage_error(prog, "--device %s: names a Vulkan device, and --backend %s opens none", device, backend);
    int want_ops = !op || strncasecmp(op, "STEPS", 5) != 0;
    int want_steps = !op || op_matches("STEPS", op);

    flce_backend *ref0 = flce_backend_reference(), *ref_ftz = flce_backend_ftz(flce_backend_reference()), *ref = ref0;
    if (!ref_ftz) return fprintf(stderr, "%s: out of memory\n", prog), 1;
    tally t = {0, 0};
    int ran = 0;
    for (int bi = 0; bi < nb; bi++) {
        flce_err e = {{0}};
        flce_backend *be = flce_backend_open(names[bi], device, mode, &e);
        if (!be) {
            if (explicit) {
                fprintf(stderr, "%s: %s\n", prog, e.msg);
                ref_ftz->destroy(ref_ftz);
                return 2;
            }
            printf("skip %-7s %s\n", names[bi], e.msg);
            continue;
        }
        ref = be->ftz ? ref_ftz : ref0; /* the oracle computes in the mode of the backend under test */
        ran++;
        char dev[64];
        short_device(be, dev, sizeof dev);
        printf("# %s backend on %s (denormals %s, contract %d)\n", be->name, be->device, be->ftz ? "ftz" : "preserve",
               FLCE_CONTRACT_VERSION);
        fflush(stdout);
        int n = flce_opcheck_count();
        for (int i = 0; i < n && want_ops; i++) {
            char name[160];
            flce_opcheck_name(i, name, sizeof name);
            if (!op_matches(name, op)) continue;
            flce_opcheck_result r;
            if (flce_opcheck_run(i, ref, be, &r, &e)) {
                r.ok = 0;
                report(be->name, dev, name, &r, e.msg, &t);
                continue;
            }
            char what[48];
            snprintf(what, sizeof what, "output %s", r.output);
            report(be->name, dev, name, &r, what, &t);
            fflush(stdout);
        }
        if (!strcmp(be->name, "vulkan") && op_matches("FMATH", op)) {
            unsigned saved = flce_fp_enter(be->ftz ? FLCE_DENORM_FTZ : FLCE_DENORM_PRESERVE); /* the host side in the same mode */
            check_fmath(be, dev, &t);
            flce_fp_leave(saved);
        }
        if (want_steps && steps > 0) check_steps(ref, be, dev, &sc, &t);
        fflush(stdout);
        be->destroy(be);
    }
    ref_ftz->destroy(ref_ftz);
    long vmsg = flce_backend_validation_messages();
    if (vmsg) {
        printf("FAIL the Vulkan validation layer reported %ld messages (above, on stderr)\n", vmsg);
        t.failed++;
    }
    if (t.cases == 0) {
        fprintf(stderr, "%s: no case matched%s%s\n", prog, op ? " --op " : "", op ? op : "");
        return 2;
    }
    printf("flce check: %d of %d cases matched the reference bit for bit on %d backend%s%s\n", t.cases - t.failed,
           t.cases, ran, ran == 1 ? "" : "s", t.failed ? "; MISMATCH" : "");
    return t.failed ? 1 : 0;
}
