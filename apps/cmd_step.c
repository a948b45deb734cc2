/* cmd_step.c: `flce step`: one training-mode forward and backward of ResNet20 on a given
 * batch (BatchNorm with batch statistics), writing the losses, logits, features and every
 * parameter's gradient to a safetensors file: the way to check our training against
 * another framework. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "commands.h"
#include "model.h"
#include "npy.h"
#include "safetensors.h"
#include "backend_select.h"

static const char *USAGE =
    "usage: flce step (--weights W.safetensors | --init-seed S --classes C) --input X.npy --labels Y.npy\n"
    "                 [--lambda L] [--tau T] [--backend auto|cpu|vulkan|reference] [--device D]\n"
    "                 [--denormals auto|preserve|ftz] --out OUT.safetensors\n"
    "X: float32 [N, C, H, W]; Y: int64 [N]. OUT holds loss, loss_ce, loss_cl, logits, features and\n"
    "grad.<name> for every trainable parameter (<name> as in the checkpoint).";

/* The batch (float32 [N, C, H, W]) and its labels (int64 [N], each below the classes of the
 * checkpoint, or of --classes), checked before any size is narrowed to int; *lab malloc'd. */
static flce_status read_batch(const char *input, const char *labels_path, const char *weights, int *classes_io, flce_npy *Xp,
                              flce_npy *Yp, int32_t **lab_out, flce_err *ep) {
    flce_err *e0 = ep;
    int classes = *classes_io;
    if (flce_npy_read(input, Xp, e0) || flce_npy_expect(input, Xp, FLCE_NPY_F32, 4, (int64_t[]){-1, -1, -1, -1}, e0))
        return FLCE_ERR_FORMAT;
    /* the sizes one training step takes; checked before any is narrowed to int */
    if (Xp->shape[0] < 1 || Xp->shape[0] > 65536 || Xp->shape[1] < 1 || Xp->shape[1] > 64 || Xp->shape[2] < 4 || Xp->shape[2] > 4096 ||
        Xp->shape[3] < 4 || Xp->shape[3] > 4096) {
        flce_fail(e0, FLCE_ERR_FORMAT, "%s: shape (%lld, %lld, %lld, %lld): one step takes N 1..65536 samples of C 1..64 "
                  "channels, H and W 4..4096", input, (long long)Xp->shape[0], (long long)Xp->shape[1], (long long)Xp->shape[2],
                  (long long)Xp->shape[3]);
        return FLCE_ERR_FORMAT;
    }
    { /* a NaN or infinity in the batch came out as a finite loss (BatchNorm spreads it, ReLU
       * takes it to 0): a step on such input means nothing, so it is refused */
        const float *x = Xp->data;
        size_t cnt = (size_t)(Xp->shape[0] * Xp->shape[1] * Xp->shape[2] * Xp->shape[3]);
        for (size_t i = 0; i < cnt; i++)
            if (!isfinite(x[i])) {
                size_t per = cnt / (size_t)Xp->shape[0];
                flce_fail(e0, FLCE_ERR_FORMAT, "%s: value %g in sample %zu (element %zu of it): the batch must be finite", input,
                          (double)x[i], i / per, i % per);
                return FLCE_ERR_FORMAT;
            }
    }
    int N = (int)Xp->shape[0], C = (int)Xp->shape[1];
    if (flce_npy_read(labels_path, Yp, e0) || flce_npy_expect(labels_path, Yp, FLCE_NPY_I64, 1, (int64_t[]){N}, e0))
        return FLCE_ERR_FORMAT;
    if (weights) {
        int wc;
        if (flce_checkpoint_probe(weights, &wc, &classes, e0)) return FLCE_ERR_FORMAT;
        if (wc != C) {
            flce_fail(e0, FLCE_ERR_FORMAT, "%s: %d input channels, but %s has %d", input, C, weights, wc);
            return FLCE_ERR_FORMAT;
        }
    }
    int32_t *lab = malloc(sizeof *lab * (size_t)N);
    if (!lab) return flce_fail(e0, FLCE_ERR_NOMEM, "out of memory");
    for (int i = 0; i < N; i++) {
        int64_t v = ((int64_t *)Yp->data)[i];
        if (v < 0 || v >= classes) {
            flce_fail(e0, FLCE_ERR_FORMAT, "%s: label %lld of sample %d out of range (0..%d)", labels_path, (long long)v, i, classes - 1);
            free(lab);
            return FLCE_ERR_FORMAT;
        }
        lab[i] = (int32_t)v;
    }
    *lab_out = lab, *classes_io = classes;
    return FLCE_OK;
}

/* The step's outputs as safetensors: the losses, logits, features and every parameter's gradient. */
static flce_status write_step(const char *out, flce_model *mp, const flce_losses *lp, int N, int classes, flce_err *e0) {
    flce_model m = *mp;
    flce_backend *be = m.be;
    flce_losses l = *lp;
    flce_status st = FLCE_ERR_NOMEM;
    float *logits = malloc(sizeof(float) * (size_t)N * classes), *feat = malloc(sizeof(float) * (size_t)N * FLCE_FEAT);
    float **grads = calloc((size_t)m.nparams, sizeof *grads);
    flce_st_tensor t[3 + 2 + FLCE_MAX_PARAMS];
    char names[FLCE_MAX_PARAMS][80];
    if (!logits || !feat || !grads) goto done;
    flce_model_read_logits(&m, logits);
    flce_model_read_features(&m, feat);
    int n = 0;
    t[n++] = (flce_st_tensor){"loss", FLCE_ST_F32, 0, {0}, &l.loss};
    t[n++] = (flce_st_tensor){"loss_ce", FLCE_ST_F32, 0, {0}, &l.loss_ce};
    t[n++] = (flce_st_tensor){"loss_cl", FLCE_ST_F32, 0, {0}, &l.loss_cl};
    t[n++] = (flce_st_tensor){"logits", FLCE_ST_F32, 2, {N, classes}, logits};
    t[n++] = (flce_st_tensor){"features", FLCE_ST_F32, 2, {N, FLCE_FEAT}, feat};
    for (int i = 0; i < m.nparams; i++) {
        flce_param *p = &m.p[i];
        if (!p->trainable) continue;
        grads[i] = malloc(p->n * sizeof(float));
        if (!grads[i]) goto done;
        be->buf_read(be, p->g, 0, grads[i], p->n * sizeof(float));
        snprintf(names[i], sizeof names[i], "grad.%s", p->name);
        t[n++] = (flce_st_tensor){names[i], FLCE_ST_F32, p->ndim, {p->shape[0], p->shape[1], p->shape[2], p->shape[3]}, grads[i]};
    }
    const char *meta[2] = {"producer", "flce step " FLCE_VERSION}; /* no backend name: outputs compare with cmp */
    st = flce_st_write(out, t, n, meta, 1, e0);
done:
    if (st == FLCE_ERR_NOMEM) flce_fail(e0, st, "out of memory");
    if (grads)
        for (int i = 0; i < m.nparams; i++) free(grads[i]);
    free(grads), free(logits), free(feat);
    return st;
}

int flce_cmd_step(int argc, char **argv) {
    const char *prog = "flce step", *weights = NULL, *input = NULL, *labels_path = NULL, *out = NULL, *backend = flce_backend_default(), *device = NULL,
               *denorm = "auto";
    double lambda = 1.0, tau = 0.5;
    uint64_t init_seed = 0;
    int classes = 0;
    cli_opt opts[] = {
        {"weights", CLI_STR, &weights, "ResNet20 checkpoint (safetensors, PyTorch names)", 0},
        {"init-seed", CLI_U64, &init_seed, "instead of --weights: He-normal initialisation from this seed", 0},
        {"classes", CLI_INT, &classes, "classes, with --init-seed", 0},
        {"input", CLI_STR, &input, "batch, float32 [N, C, H, W] .npy", 0},
        {"labels", CLI_STR, &labels_path, "labels, int64 [N] .npy", 0},
        {"lambda", CLI_DOUBLE, &lambda, "weight of the contrastive loss (default 1)", 0},
        {"tau", CLI_DOUBLE, &tau, "temperature of the contrastive loss (default 0.5)", 0},
        {"backend", CLI_STR, &backend, "auto (vulkan on a GPU, else cpu; the default, or $FLCE_BACKEND where set), cpu, vulkan or reference", 0},
        {"denormals", CLI_STR, &denorm, "float contract mode: auto (what the device does), preserve or ftz", 0},
        {"device", CLI_STR, &device, "Vulkan device: index or part of its name (default: FLCE_VK_DEVICE, else the best)", 0},
        {"out", CLI_STR, &out, "output safetensors file", 0},
        {0},
    };
    const char *pos[1];
    int np, rc = cli_parse(prog, USAGE, opts, argc, argv, pos, 0, &np);
    if (rc) return rc == 1 ? 0 : rc;
    int have_init = cli_find(opts, "init-seed")->seen;
    if (!weights == !have_init) return cli_usage_error(prog, "give exactly one of --weights and --init-seed");
    if (have_init && classes < 2) return cli_usage_error(prog, "--init-seed needs --classes (at least 2)");
    if (weights && cli_find(opts, "classes")->seen) /* it was ignored: the checkpoint's classes were used */
        return cli_usage_error(prog, "--classes goes with --init-seed; %s fixes its own classes", weights);
    if (!input || !labels_path || !out) return cli_usage_error(prog, "--input, --labels and --out are required");
    flce_denorm_mode dmode;
    if (!flce_denorm_parse(denorm, &dmode)) return cli_usage_error(prog, "--denormals '%s': auto, preserve or ftz", denorm);
    char why[1024];
    if (!flce_backend_check_flags(backend, device, why, sizeof why)) return cli_usage_error(prog, "%s", why);
    if (!(tau > 0)) return cli_usage_error(prog, "--tau %g: must be > 0", tau);
    if (!(lambda >= 0)) return cli_usage_error(prog, "--lambda %g: must be >= 0", lambda);
    struct stat sb;
    if (weights && stat(weights, &sb) != 0) return cli_usage_error(prog, "--weights %s: no such file", weights);
    { /* --out over one of the inputs replaced it with the step's results */
        struct stat so;
        const char *ins[3][2] = {{"--input", input}, {"--labels", labels_path}, {"--weights", weights}};
        if (stat(out, &so) == 0)
            for (int i = 0; i < 3; i++)
                if (ins[i][1] && stat(ins[i][1], &sb) == 0 && sb.st_dev == so.st_dev && sb.st_ino == so.st_ino)
                    return cli_usage_error(prog, "--out %s is the file of %s: it would be overwritten", out, ins[i][0]);
    }

    flce_err e = {{0}};
    flce_npy X = {0}, Y = {0};
    flce_model m;
    int have_model = 0, status = 1;
    flce_backend *be = NULL; /* created once the inputs are known to be good */
    int32_t *lab = NULL;
    if (read_batch(input, labels_path, weights, &classes, &X, &Y, &lab, &e)) goto fail;
    int N = (int)X.shape[0], C = (int)X.shape[1], H = (int)X.shape[2], W = (int)X.shape[3];
    be = flce_backend_open(backend, device, dmode, &e);
    if (!be) {
        free(lab);
        status = 2;
        fprintf(stderr, "%s: %s\n", prog, e.msg);
        e.msg[0] = 0;
        goto fail;
    }
    if (flce_model_create(&m, be, C, H, W, classes, N, &e)) {
        free(lab);
        goto fail;
    }
    have_model = 1;
    if (weights) {
        if (flce_model_load(&m, weights, &e)) {
            free(lab);
            goto fail;
        }
    } else flce_model_init(&m, init_seed);
    flce_losses l;
    flce_status st = flce_model_forward_backward(&m, N, X.data, lab, (float)lambda, (float)tau, &l, &e);
    free(lab);
    if (st) goto fail;
    if (write_step(out, &m, &l, N, classes, &e)) goto fail;
    printf("flce step (%s): N %d, input %dx%dx%d, %d classes: loss %.7g = CE %.7g + %g x CL %.7g -> %s\n", be->device, N, C, H,
           W, classes, l.loss, l.loss_ce, lambda, l.loss_cl, out);
    status = 0;
fail:
    if (status == 1) fprintf(stderr, "%s: %s\n", prog, e.msg[0] ? e.msg : "out of memory");
    if (have_model) flce_model_free(&m);
    flce_npy_free(&X);
    flce_npy_free(&Y);
    if (be && be->destroy) be->destroy(be);
    return status;
}
