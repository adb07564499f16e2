/* What every distributed command does on its ranks (mpirun ... tenport CMD, or
 * --distributed): start MPI with a space on the rank's own GPU, and agree on each step's
 * outcome so that a failure on any rank ends every rank, its message printed once by
 * rank 0. Each function returns 0, or the exit code of the failed step (1, or the code
 * a rank reported). */
#ifndef TENPORT_CLI_RANKS_H
#define TENPORT_CLI_RANKS_H

#include "tenport/tenport.h"

/* The launcher's rank of this process and the number of processes it started, as the
 * environment says (OpenMPI, MPICH's PMI, PMIx, Slurm), before MPI starts: 0 and 1 when
 * no launcher started it; a size of 0 when a launcher did but says no size. */
int tenport_launch_rank(void);
int tenport_launch_size(void);

/* 0 when this tenport was built with MPI; else 2, with a message saying so. */
int tenport_ranks_available(const char *cmd);

/* MPI over MPI_COMM_WORLD and a space on the GPU of this rank's node-local rank (modulo
 * the node's GPUs, where there are several; the default space elsewhere). */
int tenport_ranks_start(const char *cmd, tp_comm **world, tp_space **space);
/* The space, then MPI (safe on what start did not make). */
void tenport_ranks_end(tp_comm **world, tp_space **space);

/* A local step's status, agreed among the ranks (tp_comm_agree). */
int tenport_ranks_agree(const char *cmd, tp_comm *world, tp_status local);
/* The status of a collective call that agrees on failures itself. */
int tenport_ranks_collective(const char *cmd, const tp_comm *world, tp_status st);
/* A step whose failing rank printed its own message: the largest code of any rank. */
int tenport_ranks_reported(const char *cmd, tp_comm *world, int code);

/* What a distributed run of cmd cannot take: --example (example set), or an input
 * (option opt, path) that is not a regular file (standard input, a pipe, a device: the
 * ranks read their rows by positioned reads). rows names what the ranks read. */
int tenport_ranks_refuse(const char *cmd, tp_comm *world, int example, const char *opt,
                         const char *path, const char *rows);

#endif
