/* comm.h: the processes of `mpirun -n P flce run ...` as the engine's flce_comm (engine.h).
 * Built with MPI where the build finds it (FLCE_HAVE_MPI); without mpirun (or without MPI) a
 * run is one process and nothing here is called. */
#ifndef FLCE_COMM_H
#define FLCE_COMM_H

#include "engine.h"

/* The processes, when this program was started by mpirun (MPI initialised here), else NULL.
 * *error: 1 when MPI could not start (said on stderr). */
flce_comm *flce_comm_open(int *error);
/* Ends MPI (after the run, on every rank). */
void flce_comm_close(flce_comm *c);

#endif
