/* comm_mpi.c: flce_comm over MPI (comm.h). Errors return (MPI_ERRORS_RETURN) instead of
 * ending the job, so that a failed call becomes the run's one-line error; a process that dies
 * is reported by mpirun, and the run folder stays valid for --resume with any number of ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"

static flce_status mpi_failed(flce_err *e, const char *what, int rc) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "error %d", rc);
    return flce_fail(e, FLCE_ERR_IO, "%s failed: %s (did a rank stop?)", what, msg);
}

static flce_status m_bcast(flce_comm *c, void *buf, size_t bytes, int root, flce_err *e) {
    (void)c;
    for (size_t o = 0; o < bytes; o += (size_t)1 << 30) { /* MPI counts are int */
        size_t n = bytes - o < ((size_t)1 << 30) ? bytes - o : (size_t)1 << 30;
        int rc = MPI_Bcast((char *)buf + o, (int)n, MPI_BYTE, root, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS) return mpi_failed(e, "MPI_Bcast", rc);
    }
    return FLCE_OK;
}

static flce_status m_sum(flce_comm *c, int64_t *v, int n, flce_err *e) {
    (void)c;
    int rc = MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? FLCE_OK : mpi_failed(e, "MPI_Allreduce", rc);
}

flce_comm *flce_comm_open(int *error) {
    *error = 0;
    /* started by mpirun (Open MPI, or a PMI launcher)? Otherwise one process, no MPI at all */
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("PMIX_RANK")) return NULL;
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
        fprintf(stderr, "flce: MPI could not start\n");
        *error = 1;
        return NULL;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    flce_comm *c = calloc(1, sizeof *c);
    if (!c) {
        MPI_Finalize();
        *error = 1;
        return NULL;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c->size);
    c->bcast = m_bcast, c->sum_i64 = m_sum;
    return c;
}

void flce_comm_close(flce_comm *c) {
    if (!c) return;
    MPI_Finalize();
    free(c);
}
