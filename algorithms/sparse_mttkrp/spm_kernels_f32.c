/* The sparse MTTKRP kernels in single precision: see spm_kernels.h and spm_width.h. */
/* generates: tpf_atomic_f32_k1 tpf_atomic_f32_k16 tpf_atomic_f32_k2 tpf_atomic_f32_k32
 * tpf_atomic_f32_k4 tpf_atomic_f32_k8 tpf_finish_split_f32 tpf_flycoo_n0_f32_k1
 * tpf_flycoo_n0_f32_k16 tpf_flycoo_n0_f32_k2 tpf_flycoo_n0_f32_k32 tpf_flycoo_n0_f32_k4
 * tpf_flycoo_n0_f32_k8 tpf_flycoo_n3_f32_k1 tpf_flycoo_n3_f32_k16 tpf_flycoo_n3_f32_k2
 * tpf_flycoo_n3_f32_k32 tpf_flycoo_n3_f32_k4 tpf_flycoo_n3_f32_k8 tpf_flycoo_n3c_f32_k1
 * tpf_flycoo_n3c_f32_k16 tpf_flycoo_n3c_f32_k2 tpf_flycoo_n3c_f32_k32 tpf_flycoo_n3c_f32_k4
 * tpf_flycoo_n3c_f32_k8 tpf_flycoo_n4_f32_k1 tpf_flycoo_n4_f32_k16 tpf_flycoo_n4_f32_k2
 * tpf_flycoo_n4_f32_k32 tpf_flycoo_n4_f32_k4 tpf_flycoo_n4_f32_k8 tpf_flycoo_n4c_f32_k1
 * tpf_flycoo_n4c_f32_k16 tpf_flycoo_n4c_f32_k2 tpf_flycoo_n4c_f32_k32 tpf_flycoo_n4c_f32_k4
 * tpf_flycoo_n4c_f32_k8 tpf_flycoo_n5_f32_k1 tpf_flycoo_n5_f32_k16 tpf_flycoo_n5_f32_k2
 * tpf_flycoo_n5_f32_k32 tpf_flycoo_n5_f32_k4 tpf_flycoo_n5_f32_k8 tpf_flycoo_n5c_f32_k1
 * tpf_flycoo_n5c_f32_k16 tpf_flycoo_n5c_f32_k2 tpf_flycoo_n5c_f32_k32 tpf_flycoo_n5c_f32_k4
 * tpf_flycoo_n5c_f32_k8 */
#include <string.h>

#include "portable/tp_portable.h"

#define TPF_T float
#define TPF_SFX f32
#include "algorithms/sparse_mttkrp/spm_kernels.h"
