/* estimate.c: the time a run will take on this machine, said before it starts (flce run's size
 * line): after a warm-up, three training steps and evaluations of a batch of a scratch model (the
 * run's shape, classes, backend and batch; one on a GPU backend) timed, the median of each times
 * the steps and evaluations the settings ask for. The run's own model, random streams and files are untouched: the bits are the same with or
 * without it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "method.h"

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double flce_eng_estimate(engine *E, double *step_s, int *partial) {
    const flce_run_cfg *c = E->cfg;
    int B = c->batch, EB = c->eval_batch > 0 ? c->eval_batch : 256, nb = B; /* the evaluation timed at the batch, scaled to EB */
    *step_s = NAN, *partial = 0;
    flce_model m;
    flce_err e = {{0}};
    if (flce_model_create(&m, E->be, E->m.in_c, E->m.in_h, E->m.in_w, E->m.classes, nb, &e)) return NAN;
    flce_model_init(&m, 1);
    size_t nx = (size_t)nb * E->CHW;
    float *x = calloc(nx, sizeof *x), *logits = malloc(sizeof(float) * (size_t)nb * E->m.classes);
    int32_t *y = calloc((size_t)nb, sizeof *y);
    double est = NAN;
    if (x && y && logits) {
        for (size_t i = 0; i < nx; i++) x[i] = (float)((i * 2654435761u) % 1000) / 500.0f - 1.0f; /* not the run's streams */
        for (int i = 0; i < nb; i++) y[i] = i % E->m.classes;
        const char *a = E->algo->name;
        float lambda = !strcmp(a, "flce") ? 1.0f : 0.0f; /* FLCE's contrastive term; the others' cross-entropy alone */
        double ts = INFINITY, te = INFINITY, tss[3], tes[3];
        int ok = 1;
        /* a warm-up, then three of each, the median of each kept: one timing alone, taken as another
         * job woke, once said "about 4 min" of a run that took 112 s (on a CPU's Vulkan, whose step
         * takes seconds, one) */
        int reps = strcmp(E->be->name, "cpu") ? 1 : 3;
        for (int r = 0; r <= reps; r++) {
            double t0 = now_s();
            flce_model_forward_backward(&m, B, x, y, lambda, 0.5f, NULL, NULL);
            flce_model_sgd(&m, 0.01f, 0, 0, r == 0);
            E->be->sync(E->be);
            double t1 = now_s();
            if (ok) ok = !flce_model_eval(&m, B, x, logits, NULL, &e);
            double t2 = now_s();
            if (r) tss[r - 1] = t1 - t0, tes[r - 1] = (t2 - t1) * EB / B; /* an evaluation batch of EB */
        }
        for (int i = 0; i < reps; i++) /* sorted: the median is the middle one */
            for (int j = i + 1; j < reps; j++) {
                if (tss[j] < tss[i]) ts = tss[i], tss[i] = tss[j], tss[j] = ts;
                if (tes[j] < tes[i]) te = tes[i], tes[i] = tes[j], tes[j] = te;
            }
        ts = tss[reps / 2], te = tes[reps / 2];
        if (!ok) te = ts * EB / (3.0 * B); /* no evaluation timed: a third of a training step a sample */
        /* a round: K clients of the mean size, each its local steps (or epochs of its data); FLCE also
         * runs its data through the model for the prototypes, Ditto trains two models and tests each
         * personal one, MOON's two more forward passes a step (measured: 1.2 times FedAvg's round);
         * then the test set (and the validation set) evaluated */
        double mean = 0;
        for (int k = 0; k < E->n; k++) mean += E->sizes[k] / E->n;
        double steps = c->local_steps > 0 ? c->local_steps : c->epochs * mean / B, train = E->K * steps * ts; /* a short last batch: its share */
        double evals = ceil((double)E->n_val / EB), tested = E->T - (E->t > c->test_from - 1 ? E->t : c->test_from - 1);
        if (!strcmp(a, "ditto")) train *= 2, evals += E->K * ceil((double)E->n_test / EB);
        if (!strcmp(a, "moon")) train *= 1.2;
        if (!strcmp(a, "flce")) train += E->K * ceil(mean / EB) * te;
        *partial = !strcmp(a, "fedsv") || !strcmp(a, "gtg"); /* their Shapley evaluations are not counted */
        *step_s = ts;
        est = (E->T - E->t) * (train + evals * te) + tested * ceil((double)E->n_test / EB) * te; /* test_from: the rounds tested */
    }
    free(x), free(y), free(logits);
    flce_model_free(&m);
    return est;
}
