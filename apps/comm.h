/* comm.h: the processes of `mpirun -n P flce run ...` as the engine's flce_comm (engine.h).
 * Built with MPI where the build finds it (FLCE_HAVE_MPI); without mpirun (or without MPI) a
 * run is one process and nothing here is called. */
#ifndef FLCE_COMM_H
#define FLCE_COMM_H

#include "engine.h"

/* The processes, when this program was started by mpirun (MPI initialised here), else NULL.
 * *error: 1 when MPI could not start (said on stderr). */
flce_comm *flce_comm_open(int *error);
/* --mpi-timeout: the longest a rank waits for the others in one exchange before it names the
 * ranks that do not answer and ends the job (0: forever); say_fd: where that line goes. */
#define FLCE_RANK_TIMEOUT_DEFAULT 1800.0
void flce_comm_set_wait(flce_comm *c, double timeout_s, int say_fd);
/* Ends MPI (after the run, on every rank). */
void flce_comm_close(flce_comm *c);

#endif
