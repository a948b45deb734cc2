/* train.c: `flce-bench train`: ResNet20 training throughput per backend. Each step is a
 * full forward, backward (L_CE + L_CL) and SGD update on a batch from the seeded generator;
 * after a warm-up step, the median of --repeats timings of --steps steps. GFLOP/s counts
 * the convolutions' and the linear layer's multiplies and adds (each one FLOP) of
 * forward, weight gradient and input gradient, and is quoted against the machine's
 * measured mul+add peak (`flce-bench peak`), measured again right before each timing (these
 * machines' speed moves by a fifth within minutes: a peak taken once at the start and a step
 * timed minutes later do not compare), the fraction being the median of each timing's own.
 * --read-loss reads the losses back after every
 * step as a training run does (on Vulkan: a submission and a wait per step, where recorded
 * command buffers are replayed); without it the steps of a timing are one submission. --eval
 * times the evaluation-mode forward pass alone (running statistics, logits read back), as a
 * run's test-set evaluation calls it (batch 256 there); GFLOP/s then counts the forward's.
 *
 * FLCE_BENCH_AB=1 (a developer's measurement): the timings alternate a switch `flce_cpu_ab`
 * between 0 (A) and 1 (B) in the order A B B A A B B A ..., and a last line compares the
 * neighbouring pairs (B's time over A's: median, mean, how many B won). The library has no such
 * switch: an experiment adds `int flce_cpu_ab = 1;` to a CPU backend file and branches on it,
 * and takes it out again (results must never depend on it). Without it both are the same code
 * and the line shows the noise floor. Both variants run in one process a second apart, so the
 * machine's drift, which makes separate runs differ by a tenth, falls on both alike.
 * FLCE_BENCH_AB=tiles: the same with the CPU backend's own choice of AVX-512 tiles as the switch
 * (A the wide tiles, B the one-vector ones: FLCE_CPU_TILES), no experiment needed.
 * --optimizer released: each step ends as the authors' released code's does (gradients clipped
 * to norm 100 through the host, SGD with momentum 0.9 and weight decay 1e-5; docs/flce.md);
 * --optimizer both: the timings alternate plain SGD (A) and the released step (B) as above, and
 * the last line compares them (issue 62: at most 5% slower). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "util.h"
#include "model.h"
#include "peak.h"
#include "backend_select.h"

__attribute__((weak)) int flce_cpu_ab; /* an experiment's switch in the CPU backend, if it has one */
extern int flce_cpu_narrow;             /* the CPU backend's choice of AVX-512 tiles (FLCE_BENCH_AB=tiles) */

/* The convolutions inside the timed steps, from the backend's own profile (FLCE_CPU_PROFILE=1 on
 * the CPU backend): per op and shape, each timing's GFLOP/s and its fraction of the peak measured
 * right before that timing (as the step's), the medians printed after the step's line; two rows
 * sum the 3x3 stride-1 convolutions and all of them. Rows OPS (3x3 stride 1) and OPS + 1 (all). */
#define OPS 64
typedef struct {
    int n, reps;
    flce_prof_row before[OPS], now[OPS];
    double sec[OPS + 2], flops[OPS + 2], *gf, *fr; /* gf, fr: [OPS + 2][reps] */
    double step_sec;
} op_prof;

static void op_prof_begin(flce_backend *be, op_prof *P) { P->n = be->profile(be, P->before, OPS); }

static void op_prof_end(flce_backend *be, op_prof *P, int k, double step_sec, double peak) {
    int n = be->profile(be, P->now, OPS);
    double s[2] = {0, 0}, f[2] = {0, 0};
    for (int i = 0; i < n; i++) {
        int had = i < P->n && !strcmp(P->before[i].key, P->now[i].key);
        double ds = P->now[i].sec - (had ? P->before[i].sec : 0), df = P->now[i].flops - (had ? P->before[i].flops : 0);
        P->sec[i] += ds, P->flops[i] += df;
        P->gf[(size_t)i * P->reps + k] = ds > 0 ? df / ds * 1e-9 : 0;
        if (df > 0) s[1] += ds, f[1] += df;
        if (df > 0 && strstr(P->now[i].key, " r3 s1")) s[0] += ds, f[0] += df;
    }
    for (int a = 0; a < 2; a++) P->sec[OPS + a] += s[a], P->flops[OPS + a] += f[a], P->gf[(size_t)(OPS + a) * P->reps + k] = s[a] > 0 ? f[a] / s[a] * 1e-9 : 0;
    for (int i = 0; i < OPS + 2; i++) P->fr[(size_t)i * P->reps + k] = peak > 0 ? P->gf[(size_t)i * P->reps + k] / peak : 0;
    P->n = n;
    P->step_sec += step_sec;
}

/* peak: 0 none (a device's row), 1 measured before each timing, 2 given by --peak */
static void op_prof_print(op_prof *P, int peak) {
    int order[OPS], m = 0;
    for (int i = 0; i < P->n; i++)
        if (P->flops[i] > 0) order[m++] = i;
    for (int a = 1; a < m; a++) /* by time, largest first */
        for (int b = a; b > 0 && P->sec[order[b]] > P->sec[order[b - 1]]; b--) {
            int t = order[b];
            order[b] = order[b - 1], order[b - 1] = t;
        }
    printf("the convolutions in the timed steps (FLCE_CPU_PROFILE): medians over the %d timing%s of each one's GFLOP/s%s\n",
           P->reps, P->reps == 1 ? "" : "s",
           peak == 1 ? " and its fraction of the peak measured right before it" : peak == 2 ? " and its fraction of --peak" : "");
    printf("%-40s %9s %8s %8s\n", "op shape", "GFLOP/s", "of peak", "of step");
    for (int r = 0; r < m + 2; r++) {
        int i = r < m ? order[r] : OPS + (r - m);
        if (r >= m && P->flops[i] <= 0) continue;
        const char *key = r < m ? P->now[i].key : r == m ? "all 3x3 stride-1 convolutions" : "all convolutions";
        double gf = bench_median(P->gf + (size_t)i * P->reps, P->reps), fr = bench_median(P->fr + (size_t)i * P->reps, P->reps);
        printf("%-40s %9.1f", key, gf);
        if (peak) printf(" %7.1f%%", 100 * fr);
        else printf(" %8s", "-");
        printf(" %7.1f%%\n", P->step_sec > 0 ? 100 * P->sec[i] / P->step_sec : 0);
    }
    if (P->step_sec > 0 && P->flops[OPS + 1] > 0) /* what computes no counted FLOP, and the gaps between ops */
        printf("%-40s %9s %8s %7.1f%%\n", "the rest (BatchNorm, element-wise, ...)", "-", "-",
               100 * (1 - P->sec[OPS + 1] / P->step_sec));
}


/* flce-bench train's settings */
typedef struct {
    const char *backends, *input, *csv, *device, *denorm, *optimizer;
    int opt;      /* 0 plain SGD, 1 the released step, 2 both alternating */
    int rel_now;  /* with both: this timing's (the A/B switch) */
    int batch, steps, repeats, threads, read_loss, eval, given_peak;
    int C, H, W;
    double lambda, peak;
    flce_denorm_mode dmode;
    double peak_lo, peak_hi; /* the peaks measured before the timings */
} train_args;

/* The command line, checked; 0, 1 after --help (said), or 2 after a usage error. */
static int train_parse(const char *prog, int argc, char **argv, train_args *A) {
    *A = (train_args){.input = "3x32x32", .denorm = "auto", .optimizer = "plain", .batch = 64, .steps = 5, .repeats = 3, .threads = 2, .lambda = 1.0};
    cli_opt opts[] = {
        {"backend", CLI_STR, &A->backends, "comma-separated: cpu, vulkan, reference (default: cpu, reference, and vulkan on a GPU)", 0},
        {"device", CLI_STR, &A->device, "Vulkan device: index or part of its name (default: FLCE_VK_DEVICE, else the best)", 0},
        {"input", CLI_STR, &A->input, "3x32x32 (default) or 1x28x28, or any CxHxW", 0},
        {"batch", CLI_INT, &A->batch, "batch size (default 64)", 0},
        {"steps", CLI_INT, &A->steps, "steps per timing (default 5)", 0},
        {"repeats", CLI_INT, &A->repeats, "timings; the median is reported (default 3)", 0},
        {"threads", CLI_INT, &A->threads, "CPU backend threads (default 2)", 0},
        {"denormals", CLI_STR, &A->denorm, "float contract mode: auto (what the device does), preserve or ftz", 0},
        {"lambda", CLI_DOUBLE, &A->lambda, "contrastive loss weight (default 1; 0 = plain cross-entropy)", 0},
        {"peak", CLI_DOUBLE, &A->peak, "peak GFLOP/s to quote against (default: measure it before each timing)", 0},
        {"read-loss", CLI_FLAG, &A->read_loss, "read the losses back after every step, as a training run does", 0},
        {"eval", CLI_FLAG, &A->eval, "time the evaluation forward pass alone (running statistics, logits read back)", 0},
        {"optimizer", CLI_STR, &A->optimizer, "plain (SGD, default), released (clipping at 100, momentum 0.9, weight decay 1e-5) or both (alternating timings, compared)", 0},
        {"csv", CLI_STR, &A->csv, "append rows to this CSV file (header written when new)", 0},
        {0},
    };
    const char *pos[1];
    int np, rc = cli_parse(prog, "usage: flce-bench train [--backend B] [--input CxHxW] [--batch 64] [--steps N] [--eval] [--optimizer plain|released|both]\n"
                                               "                        [--csv FILE] [--denormals auto|preserve|ftz]",
                           opts, argc, argv, pos, 0, &np);
    if (rc) return rc;
    if (!flce_denorm_parse(A->denorm, &A->dmode)) return cli_usage_error(prog, "--denormals '%s': auto, preserve or ftz", A->denorm);
    A->opt = !strcmp(A->optimizer, "plain") ? 0 : !strcmp(A->optimizer, "released") ? 1 : !strcmp(A->optimizer, "both") ? 2 : -1;
    if (A->opt < 0) return cli_usage_error(prog, "--optimizer '%s': plain, released or both", A->optimizer);
    char tail;
    if (sscanf(A->input, "%dx%dx%d%c", &A->C, &A->H, &A->W, &tail) != 3 || A->C < 1 || A->C > 3 || A->H < 4 || A->W < 4 || A->H > 512 || A->W > 512)
        return cli_usage_error(prog, "--input '%s': expected CxHxW with 1-3 channels and sides 4 to 512, e.g. 3x32x32", A->input);
    if (A->batch < 2) return cli_usage_error(prog, "--batch %d: must be at least 2", A->batch);
    if (A->steps < 1 || A->repeats < 1) return cli_usage_error(prog, "--steps and --repeats must be at least 1");
    if (A->threads < 1 || A->threads > 16) return cli_usage_error(prog, "--threads %d: must be 1..16", A->threads);
    /* --peak 0 or -1 measured the peak instead, and --lambda -1 timed a loss no run may use, both silently */
    if (cli_find(opts, "peak")->seen && !(A->peak > 0)) return cli_usage_error(prog, "--peak %g: must be > 0 (leave it out to measure the peak)", A->peak);
    if (!(A->lambda >= 0)) return cli_usage_error(prog, "--lambda %g: must be >= 0", A->lambda);
    /* settings that do nothing: the evaluation pass has no loss */
    if (A->eval && cli_find(opts, "lambda")->seen) return cli_usage_error(prog, "--lambda: weighs a training loss, and --eval times the forward pass alone");
    if (A->eval && A->read_loss) return cli_usage_error(prog, "--read-loss: reads a training step's losses, and --eval times the forward pass alone");
    if (A->eval && A->opt) return cli_usage_error(prog, "--optimizer: the training step's update, and --eval times the forward pass alone");
    if (A->opt == 2 && getenv("FLCE_BENCH_AB")) return cli_usage_error(prog, "--optimizer both: alternates its own timings, and FLCE_BENCH_AB is set");
    if (A->device && !flce_backend_have_vulkan()) return cli_usage_error(prog, "--device: this build has no Vulkan backend");
    if (!A->backends) { /* a Vulkan row only where there is a GPU: on a CPU implementation it takes minutes */
        char seen[400];
        A->backends = flce_backend_gpu_present(seen, sizeof seen) ? "cpu,vulkan,reference" : "cpu,reference";
        if (flce_backend_have_vulkan() && !strstr(A->backends, "vulkan"))
            fprintf(stderr, "%s: no Vulkan GPU (%s): no vulkan row (--backend vulkan forces one)\n", prog, seen);
    }
    if (A->device && !flce_backend_list_takes_device(A->backends))
        return cli_usage_error(prog, "--device %s: names a Vulkan device, and no vulkan row runs (--backend %s)", A->device, A->backends);
    char list[256];
    snprintf(list, sizeof list, "%s", A->backends);
    for (char *b = strtok(list, ","); b; b = strtok(NULL, ","))
        if (!flce_backend_known(b) || !strcmp(b, "auto"))
            return cli_usage_error(prog, "--backend '%s': unknown (reference, cpu%s)", b, flce_backend_known("vulkan") ? ", vulkan" : "");
    A->given_peak = A->peak > 0;
    if (A->given_peak && cli_find(opts, "threads")->seen && !strstr(A->backends, "cpu")) /* it sets the CPU backend's threads and the measured peak's */
        return cli_usage_error(prog, "--threads %d: sets the cpu backend's threads and the peak's measurement, and neither runs (--backend %s, --peak given)",
                               A->threads, A->backends);
    return 0;
}

/* --csv: opened for appending, the header written when new; rows go under the same columns or
 * nowhere. NULL and *rc 2 after a usage error. */
static FILE *train_csv(const char *prog, const char *csv, int *rc) {
    static const char header[] = "backend,device,input,batch,steps,images_per_second,gflops,peak_gflops,fraction_of_peak,lambda,read_loss,eval,optimizer";
    FILE *t = fopen(csv, "r");
    int fresh = !t;
    if (t) {
        char line[512] = "";
        if (!fgets(line, sizeof line, t)) line[0] = '\0';
        fclose(t);
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] && strcmp(line, header)) return *rc = cli_usage_error(prog, "--csv %s: its columns are not this version's (%s): use a new file", csv, header), NULL;
        fresh = !line[0];
    }
    FILE *out = fopen(csv, "a");
    if (!out) return *rc = cli_usage_error(prog, "--csv %s: cannot open for appending: %s", csv, strerror(errno)), NULL;
    if (fresh) fprintf(out, "%s\n", header);
    return out;
}

/* The timings of one backend: t[k] the seconds of a step in timing k, pk[k] the peak measured
 * right before it (or --peak), the profile's rows into P; FLCE_BENCH_AB's switch set per timing. */
static void train_timings(train_args *A, flce_backend *be, flce_model *m, const float *x, const int32_t *y, float *logits, int host, int ab, int *abv,
                          int reps, int st, double *t, double *pk, op_prof *P) {
    flce_err e = {{0}};
    for (int k = 0; k < reps; k++) {
        pk[k] = A->peak;
        if (host && !A->given_peak) {
            pk[k] = flce_peak_gflops(A->threads);
            if (!(A->peak_lo > 0) || pk[k] < A->peak_lo) A->peak_lo = pk[k];
            if (pk[k] > A->peak_hi) A->peak_hi = pk[k];
        }
        if (ab) *abv = (k & 1) ^ ((k >> 1) & 1); /* A B B A */
        if (P) op_prof_begin(be, P);
        double t0 = bench_now();
        for (int s = 0; s < st; s++) {
            flce_losses l;
            if (A->eval) {
                flce_model_eval(m, A->batch, x, logits, NULL, &e);
                continue;
            }
            flce_model_forward_backward(m, A->batch, x, y, (float)A->lambda, 0.5f, A->read_loss ? &l : NULL, NULL);
            if (A->opt == 1 || (A->opt == 2 && A->rel_now)) { /* the released step: clipped, momentum, weight decay */
                flce_model_clip(m, 100, &e);
                flce_model_sgd(m, 0.01f, 0.9f, 1e-5f, 0);
            } else flce_model_sgd(m, 0.01f, 0, 0, 0);
        }
        be->sync(be);
        t[k] = (bench_now() - t0) / st;
        if (P) op_prof_end(be, P, k, t[k] * st, host ? pk[k] : 0);
    }
}

/* One backend's row (and its profile, its A/B line, its CSV row); 0, or 1 when it could not run. */
static int train_backend(const char *prog, train_args *A, const char *name, FILE *out) {
    flce_model m;
    flce_err e = {{0}};
    int batch = A->batch, status = 0;
    flce_backend *be = !strcmp(name, "cpu") ? flce_backend_cpu_threads(A->threads, &e) : flce_backend_open(name, A->device, A->dmode, &e);
    if (be && !strcmp(name, "cpu") && A->dmode == FLCE_DENORM_FTZ) be = flce_backend_ftz(be);
    if (!be || flce_model_create(&m, be, A->C, A->H, A->W, 10, batch, &e)) {
        fprintf(stderr, "%s: %s: %s\n", prog, name, e.msg);
        return 1;
    }
    flce_model_init(&m, 1);
    size_t nx = (size_t)batch * A->C * A->H * A->W;
    float *x = malloc(nx * sizeof *x), *logits = malloc(sizeof *logits * (size_t)batch * 10);
    int32_t *y = malloc((size_t)batch * sizeof *y);
    int reps = !strcmp(name, "reference") ? 1 : A->repeats, st = !strcmp(name, "reference") ? 1 : A->steps;
    int host = strcmp(name, "vulkan") != 0; /* the peak is the host CPU's: no fraction for a device */
    double *t = malloc(sizeof *t * (size_t)reps * 4), *pk = t + reps, *fr = t + 2 * (size_t)reps, *tab = t + 3 * (size_t)reps;
    int ab = (getenv("FLCE_BENCH_AB") && !strcmp(name, "cpu")) || A->opt == 2;
    int *abv = A->opt == 2 ? &A->rel_now : ab && !strcmp(getenv("FLCE_BENCH_AB"), "tiles") ? &flce_cpu_narrow : &flce_cpu_ab, ab0 = *abv;
    op_prof *P = NULL;
    if (!x || !y || !t || !logits) {
        fprintf(stderr, "%s: %s: out of memory\n", prog, name);
        status = 1;
        goto done;
    }
    flce_rng r;
    flce_rng_init(&r, 1, FLCE_RNG_BENCH, 0, 0);
    for (size_t i = 0; i < nx; i++) x[i] = (float)flce_rng_normal(&r);
    for (int i = 0; i < batch; i++) y[i] = (int32_t)flce_rng_below(&r, 10);
    flce_model_forward_backward(&m, batch, x, y, (float)A->lambda, 0.5f, NULL, NULL); /* warm-up */
    flce_model_sgd(&m, 0.01f, 0, 0, 1);
    if (A->eval && flce_model_eval(&m, batch, x, logits, NULL, &e)) {
        fprintf(stderr, "%s: %s: %s\n", prog, name, e.msg);
        status = 1;
    }
    be->sync(be); /* the warm-up has run before the clock starts */
    flce_prof_row probe[1];
    if (be->profile && be->profile(be, probe, 1) > 0 && (P = calloc(1, sizeof *P))) {
        P->reps = reps;
        P->gf = calloc((size_t)(OPS + 2) * 2 * (size_t)reps, sizeof(double));
        if (!P->gf) free(P), P = NULL;
        else P->fr = P->gf + (size_t)(OPS + 2) * reps;
    }
    train_timings(A, be, &m, x, y, logits, host, ab, abv, reps, st, t, pk, P);
    if (ab) *abv = ab0; /* as it was (the backend's own choice of tiles) */
    for (int k = 0; ab && k + 1 < reps; k += 2) tab[k / 2] = (k & 2) ? t[k] / t[k + 1] : t[k + 1] / t[k]; /* B over A */
    double flops = A->eval ? flce_model_forward_flops_per_sample(&m) : flce_model_train_flops_per_sample(&m);
    for (int k = 0; k < reps; k++) fr[k] = host ? flops * batch / t[k] * 1e-9 / pk[k] : 0.0; /* of its own peak */
    qsort(t, (size_t)reps, sizeof *t, bench_cmp_double);
    qsort(pk, (size_t)reps, sizeof *pk, bench_cmp_double);
    qsort(fr, (size_t)reps, sizeof *fr, bench_cmp_double);
    double sec = t[reps / 2], ips = batch / sec, gf = flops * ips * 1e-9, frac = fr[reps / 2];
    if (host) printf("%-10s %-9s %5d %12.1f %8.1f %7.1f%%\n", name, A->input, batch, ips, gf, 100 * frac);
    else printf("%-10s %-9s %5d %12.1f %8.1f %8s  (%s)\n", name, A->input, batch, ips, gf, "-", be->device);
    if (ab && reps >= 2) {
        int npairs = reps / 2, won = 0;
        double mean = 0;
        for (int i = 0; i < npairs; i++) mean += tab[i] / npairs, won += tab[i] < 1.0;
        if (A->opt == 2)
            printf("the released step over plain SGD (%s): %d pair%s of timings, time ratio median %.4f, mean %.4f, released faster in %d of %d\n",
                   name, npairs, npairs == 1 ? "" : "s", bench_median(tab, npairs), mean, won, npairs);
        else
            printf("FLCE_BENCH_AB: %d pairs of timings, B's time over A's: median %.4f, mean %.4f, B faster in %d of %d\n", npairs,
                   bench_median(tab, npairs), mean, won, npairs);
    }
    if (P) op_prof_print(P, host ? 1 + A->given_peak : 0);
    if (out)
        fprintf(out, "%s,\"%s\",%s,%d,%d,%.2f,%.2f,%.2f,%.4f,%g,%d,%d,%s\n", name, be->device, A->input, batch, st, ips, gf,
                host ? pk[reps / 2] : 0.0, frac, A->lambda, A->read_loss, A->eval, A->optimizer);
done:
    if (P) free(P->gf);
    free(P), free(t), free(x), free(y), free(logits);
    flce_model_free(&m);
    if (be->destroy) be->destroy(be);
    return status;
}

int flce_bench_train(int argc, char **argv) {
    const char *prog = "flce-bench train";
    train_args A;
    int rc = train_parse(prog, argc, argv, &A);
    if (rc) return rc == 1 ? 0 : rc;
    FILE *out = A.csv ? train_csv(prog, A.csv, &rc) : NULL;
    if (rc) return rc;
    printf("%-10s %-9s %5s %12s %8s %8s\n", "backend", "input", "batch", "images/s", "GFLOP/s", "of peak");
    char list[256];
    snprintf(list, sizeof list, "%s", A.backends);
    int status = 0;
    char *save = NULL; /* strtok_r: a Vulkan driver may call strtok while the list is walked */
    for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) status |= train_backend(prog, &A, name, out);
    if (A.given_peak) printf("(GFLOP/s quoted against the peak given by --peak, %.1f GFLOP/s, not measured here)\n", A.peak);
    else if (A.peak_hi > 0)
        printf("(of peak: the median over the timings of each one's GFLOP/s over the peak for separate float32 mul and add, "
               "%d threads, measured right before it: %.1f-%.1f GFLOP/s)\n", A.threads, A.peak_lo, A.peak_hi);
    if (out) fclose(out);
    return status;
}
