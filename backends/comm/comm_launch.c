/* Whether an MPI launcher started this process: each launcher names the world's size in
 * the environment (OpenMPI, MPICH/Hydra and PMI, PMIx, Slurm's srun). */
#include <stdlib.h>

#include "tenport/comm.h"

int tp_comm_launched(void) {
  static const char *const names[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK",
                                      "MPI_LOCALNRANKS", "SLURM_STEP_NUM_TASKS"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    if (getenv(names[i]))
      return 1;
  return 0;
}
