/* run_job.h: `flce run`'s command line as a job (the settings, the methods, the seeds, the
 * backend asked for), parsed once for `flce run` and for the programs that run on top of it
 * (`flce truth`: the same flags, the same checks, the same messages under its own name). */
#ifndef FLCE_RUN_JOB_H
#define FLCE_RUN_JOB_H

#include "backend_select.h"
#include "comm.h"
#include "engine.h"

/* The backend of --backend, --device and --denormals, opened when the engine first asks for it
 * (after the settings and the data are checked) and shared by the runs of one job. */
typedef struct {
    const char *name, *device;
    flce_denorm_mode mode;
    flce_backend *be;
} flce_backend_req;
flce_backend *flce_backend_req_open(void *ud, flce_err *e); /* flce_run_cfg.backend */

typedef struct {
    flce_run_cfg c;            /* c.backend_ud points at breq below: the job stays where it was parsed */
    char list[256], *names[16]; /* the methods of --algo (pointers into list) */
    int nm;
    char every[512];           /* --algo all, spelled out */
    const char *out;
    int quiet;
    uint64_t seedv[64];        /* --seeds (ns of them; 0: --seed alone) */
    int ns;
    flce_backend_req breq;
    char local[16];            /* --device rank: this process's rank on its machine */
} flce_run_job;

/* argv as `flce run` takes it, its messages under prog; 0, 2 after a usage error (said in one
 * line), or -1 when --help was printed. flce_run_job_free afterwards in every case. */
int flce_run_job_parse(const char *prog, int argc, char **argv, flce_comm *comm, int say_fd, flce_run_job *J);
void flce_run_job_free(flce_run_job *J);

/* One method's run of the job's settings, as every program gives them to it: algo, FLCE's
 * ablations for FLCE only, and with --as-released (no --schedule) the selection the method's
 * released code makes (sweep, window or random). */
void flce_run_job_method_cfg(flce_run_cfg *t, const char *algo);
/* 0 where c's selection for algo stays inside a coalition; else 2 after a usage error under prog
 * (--as-released with no --schedule gives FLCE the sweep and FedSV the window, which select
 * clients outside `what`, the coalition). */
int flce_run_job_released_selection(const char *prog, const flce_run_cfg *c, const char *algo, const char *what);

#endif
