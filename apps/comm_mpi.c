/* comm_mpi.c: flce_comm over MPI (comm.h). Errors return (MPI_ERRORS_RETURN) instead of
 * ending the job, so that a failed call becomes the run's one-line error; a process that dies
 * is reported by mpirun, and the run folder stays valid for --resume with any number of ranks.
 *
 * No wait is endless (issue 35): every collective is started non-blocking and tested until it
 * ends or --mpi-timeout seconds pass. While it waits, a rank answers roll calls (a PING from
 * another rank gets a PONG). A rank whose wait runs out calls the roll itself: the ranks that do
 * not answer within a few seconds are the stopped or lost ones, named in one line with the
 * round, and MPI_Abort ends the job (mpirun ends the stopped processes). A rank that was called
 * by another first leaves the naming to it. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "comm.h"

enum { TAG_PING = 7301, TAG_PONG = 7302 };

typedef struct {
    double timeout_s; /* 0: wait forever */
    int say_fd;       /* where this rank's last line goes (stderr before a rank > 0 silenced it) */
    int called;       /* another rank called the roll: it names the lost ones */
    int lowest_caller; /* the lowest rank whose roll call this rank answered (size: none) */
} mpi_state;

static const int one = 1;

static flce_status mpi_failed(flce_err *e, const char *what, int rc) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "error %d", rc);
    return flce_fail(e, FLCE_ERR_IO, "%s failed: %s (did a rank stop?)", what, msg);
}

static void nap(void) {
    struct timespec ts = {0, 200000}; /* 0.2 ms: a waiting rank leaves the cores to the working ones */
    nanosleep(&ts, NULL);
}

/* PINGs that reached this rank, each answered with a PONG. */
static void answer_calls(flce_comm *c) {
    mpi_state *s = c->ctx;
    for (;;) {
        int flag = 0, x;
        MPI_Status st;
        if (MPI_Iprobe(MPI_ANY_SOURCE, TAG_PING, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS || !flag) return;
        if (MPI_Recv(&x, 1, MPI_INT, st.MPI_SOURCE, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS) return;
        if (!s->called) signal(SIGTERM, SIG_DFL); /* rank 0: the caller's line is the last word, not "a process stopped" */
        s->called = 1;
        if (st.MPI_SOURCE < s->lowest_caller) s->lowest_caller = st.MPI_SOURCE;
        MPI_Request r;
        if (MPI_Isend(&one, 1, MPI_INT, st.MPI_SOURCE, TAG_PONG, MPI_COMM_WORLD, &r) == MPI_SUCCESS) MPI_Request_free(&r);
    }
}

/* The wait ran out: call the roll, name who does not answer, end the job. */
static void give_up(flce_comm *c, const char *what) {
    mpi_state *s = c->ctx;
    int P = c->size, me = c->rank, called_before = s->called;
    if (called_before) { /* another rank calls the roll and ends the job: no second call (it would silence that one) */
        double t1 = MPI_Wtime();
        while (MPI_Wtime() - t1 < 15) answer_calls(c), nap();
        signal(SIGTERM, SIG_DFL);
        MPI_Abort(MPI_COMM_WORLD, 1);
        _exit(1);
    }
    char *heard = calloc((size_t)P, 1);
    if (!heard) MPI_Abort(MPI_COMM_WORLD, 1);
    heard[me] = 1;
    for (int r = 0; r < P; r++) {
        MPI_Request q;
        if (r != me && MPI_Isend(&one, 1, MPI_INT, r, TAG_PING, MPI_COMM_WORLD, &q) == MPI_SUCCESS) MPI_Request_free(&q);
    }
    double t0 = MPI_Wtime(), grace = s->timeout_s < 3 ? s->timeout_s : 3;
    while (MPI_Wtime() - t0 < grace) { /* the whole grace even when all answer: a lower rank's call may still come */
        int flag = 0, x;
        MPI_Status st;
        answer_calls(c);
        if (MPI_Iprobe(MPI_ANY_SOURCE, TAG_PONG, MPI_COMM_WORLD, &flag, &st) == MPI_SUCCESS && flag &&
            MPI_Recv(&x, 1, MPI_INT, st.MPI_SOURCE, TAG_PONG, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
            !heard[st.MPI_SOURCE])
            heard[st.MPI_SOURCE] = 1;
        if (!flag) nap();
    }
    /* called at the same moment: the lower rank speaks. Who called is what answer_calls saw (once
     * a probe here decided it, and a call that arrived between the probe and the answer made two
     * ranks speak: CI saw the line twice) */
    if (!called_before && s->lowest_caller > me) {
        char line[600], list[300] = "";
        size_t n = 0;
        int k = 0;
        for (int r = 0; r < P && n < sizeof list - 16; r++)
            if (!heard[r]) n += (size_t)snprintf(list + n, sizeof list - n, "%s%d", k++ ? ", " : "", r);
        char where[48] = "before the first round";
        if (c->round) snprintf(where, sizeof where, "during round %d", c->round);
        if (k)
            snprintf(line, sizeof line, "flce run: rank%s %s did not answer for %g s (--mpi-timeout) %s: the job ends "
                     "(the rounds before are written: --resume continues)\n", k > 1 ? "s" : "", list, s->timeout_s, where);
        else
            snprintf(line, sizeof line, "flce run: rank %d waited more than %g s (--mpi-timeout) for %s %s, and every rank "
                     "answers: one is slower than the limit (raise --mpi-timeout); the job ends\n", me, s->timeout_s, what, where);
        if (write(s->say_fd, line, strlen(line)) < 0) { /* nothing more to do */ }
        sleep(1); /* mpirun forwards the line before MPI_Abort ends everything (under load it lost it) */
    } else { /* another rank names them and ends the job; end it anyway if it cannot */
        double t1 = MPI_Wtime();
        while (MPI_Wtime() - t1 < 10) answer_calls(c), nap();
    }
    free(heard);
    signal(SIGTERM, SIG_DFL);
    MPI_Abort(MPI_COMM_WORLD, 1);
    _exit(1);
}

/* Waits for r to end, answering roll calls, at most the timeout. */
static flce_status wait_for(flce_comm *c, MPI_Request *r, const char *what, flce_err *e) {
    mpi_state *s = c->ctx;
    double t0 = MPI_Wtime();
    for (long spin = 0;; spin++) {
        int done = 0;
        int rc = MPI_Test(r, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) return mpi_failed(e, what, rc);
        if (done) return FLCE_OK;
        answer_calls(c);
        if (s->timeout_s > 0 && MPI_Wtime() - t0 > s->timeout_s) give_up(c, what);
        if (spin > 2000) nap(); /* the first tests in a row: a collective that is about to end */
    }
}

static flce_status m_bcast(flce_comm *c, void *buf, size_t bytes, int root, flce_err *e) {
    for (size_t o = 0; o < bytes; o += (size_t)1 << 30) { /* MPI counts are int */
        size_t n = bytes - o < ((size_t)1 << 30) ? bytes - o : (size_t)1 << 30;
        MPI_Request r;
        int rc = MPI_Ibcast((char *)buf + o, (int)n, MPI_BYTE, root, MPI_COMM_WORLD, &r);
        if (rc != MPI_SUCCESS) return mpi_failed(e, "MPI_Ibcast", rc);
        char what[64];
        snprintf(what, sizeof what, "rank %d's data", root);
        flce_status st = wait_for(c, &r, what, e);
        if (st) return st;
    }
    return FLCE_OK;
}

static flce_status m_sum(flce_comm *c, int64_t *v, int n, flce_err *e) {
    MPI_Request r;
    int rc = MPI_Iallreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD, &r);
    return rc == MPI_SUCCESS ? wait_for(c, &r, "the ranks' sums", e) : mpi_failed(e, "MPI_Iallreduce", rc);
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
    mpi_state *s = calloc(1, sizeof *s);
    if (!c || !s) {
        free(c), free(s);
        MPI_Finalize();
        *error = 1;
        return NULL;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c->size);
    s->timeout_s = FLCE_RANK_TIMEOUT_DEFAULT, s->say_fd = 2, s->lowest_caller = c->size;
    c->ctx = s;
    c->bcast = m_bcast, c->sum_i64 = m_sum;
    return c;
}

void flce_comm_close(flce_comm *c) {
    if (!c) return;
    MPI_Finalize();
    free(c->ctx);
    free(c);
}

void flce_comm_set_wait(flce_comm *c, double timeout_s, int say_fd) {
    mpi_state *s = c->ctx;
    s->timeout_s = timeout_s, s->say_fd = say_fd;
}
