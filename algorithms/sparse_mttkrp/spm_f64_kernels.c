/* The sparse MTTKRP kernels in double precision: see spm_kernels_template.h and spm_width_template.h. */
/* generates: flycoo_atomic_f64_k1 flycoo_atomic_f64_k16 flycoo_atomic_f64_k2 flycoo_atomic_f64_k32
 * flycoo_atomic_f64_k4 flycoo_atomic_f64_k8 flycoo_finish_split_f64 flycoo_n0_f64_k1
 * flycoo_n0_f64_k16 flycoo_n0_f64_k2 flycoo_n0_f64_k32 flycoo_n0_f64_k4
 * flycoo_n0_f64_k8 flycoo_n3_f64_k1 flycoo_n3_f64_k16 flycoo_n3_f64_k2
 * flycoo_n3_f64_k32 flycoo_n3_f64_k4 flycoo_n3_f64_k8 flycoo_n3c_f64_k1
 * flycoo_n3c_f64_k16 flycoo_n3c_f64_k2 flycoo_n3c_f64_k32 flycoo_n3c_f64_k4
 * flycoo_n3c_f64_k8 flycoo_n4_f64_k1 flycoo_n4_f64_k16 flycoo_n4_f64_k2
 * flycoo_n4_f64_k32 flycoo_n4_f64_k4 flycoo_n4_f64_k8 flycoo_n4c_f64_k1
 * flycoo_n4c_f64_k16 flycoo_n4c_f64_k2 flycoo_n4c_f64_k32 flycoo_n4c_f64_k4
 * flycoo_n4c_f64_k8 flycoo_n5_f64_k1 flycoo_n5_f64_k16 flycoo_n5_f64_k2
 * flycoo_n5_f64_k32 flycoo_n5_f64_k4 flycoo_n5_f64_k8 flycoo_n5c_f64_k1
 * flycoo_n5c_f64_k16 flycoo_n5c_f64_k2 flycoo_n5c_f64_k32 flycoo_n5c_f64_k4
 * flycoo_n5c_f64_k8 */
#include <string.h>

#include "portable/tp_portable.h"

#define FLYCOO_T double
#define FLYCOO_SFX f64
#include "algorithms/sparse_mttkrp/spm_kernels_template.h"
