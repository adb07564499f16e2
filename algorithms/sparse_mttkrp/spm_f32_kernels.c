/* The sparse MTTKRP kernels in single precision: see spm_kernels_template.h and spm_width_template.h. */
/* generates: flycoo_atomic_f32_k1 flycoo_atomic_f32_k16 flycoo_atomic_f32_k2 flycoo_atomic_f32_k32
 * flycoo_atomic_f32_k4 flycoo_atomic_f32_k8 flycoo_finish_split_f32 flycoo_n0_f32_k1
 * flycoo_n0_f32_k16 flycoo_n0_f32_k2 flycoo_n0_f32_k32 flycoo_n0_f32_k4
 * flycoo_n0_f32_k8 flycoo_n3_f32_k1 flycoo_n3_f32_k16 flycoo_n3_f32_k2
 * flycoo_n3_f32_k32 flycoo_n3_f32_k4 flycoo_n3_f32_k8 flycoo_n3c_f32_k1
 * flycoo_n3c_f32_k16 flycoo_n3c_f32_k2 flycoo_n3c_f32_k32 flycoo_n3c_f32_k4
 * flycoo_n3c_f32_k8 flycoo_n4_f32_k1 flycoo_n4_f32_k16 flycoo_n4_f32_k2
 * flycoo_n4_f32_k32 flycoo_n4_f32_k4 flycoo_n4_f32_k8 flycoo_n4c_f32_k1
 * flycoo_n4c_f32_k16 flycoo_n4c_f32_k2 flycoo_n4c_f32_k32 flycoo_n4c_f32_k4
 * flycoo_n4c_f32_k8 flycoo_n5_f32_k1 flycoo_n5_f32_k16 flycoo_n5_f32_k2
 * flycoo_n5_f32_k32 flycoo_n5_f32_k4 flycoo_n5_f32_k8 flycoo_n5c_f32_k1
 * flycoo_n5c_f32_k16 flycoo_n5c_f32_k2 flycoo_n5c_f32_k32 flycoo_n5c_f32_k4
 * flycoo_n5c_f32_k8 */
#include <string.h>

#include "portable/tp_portable.h"

#define FLYCOO_T float
#define FLYCOO_SFX f32
#include "algorithms/sparse_mttkrp/spm_kernels_template.h"
