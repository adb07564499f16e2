/* The sparse MTTKRP kernels in double precision: see spm_kernels.h and spm_width.h. */
/* generates: tpf_atomic_f64_k1 tpf_atomic_f64_k16 tpf_atomic_f64_k2 tpf_atomic_f64_k32
 * tpf_atomic_f64_k4 tpf_atomic_f64_k8 tpf_finish_split_f64 tpf_flycoo_n0_f64_k1
 * tpf_flycoo_n0_f64_k16 tpf_flycoo_n0_f64_k2 tpf_flycoo_n0_f64_k32 tpf_flycoo_n0_f64_k4
 * tpf_flycoo_n0_f64_k8 tpf_flycoo_n3_f64_k1 tpf_flycoo_n3_f64_k16 tpf_flycoo_n3_f64_k2
 * tpf_flycoo_n3_f64_k32 tpf_flycoo_n3_f64_k4 tpf_flycoo_n3_f64_k8 tpf_flycoo_n3c_f64_k1
 * tpf_flycoo_n3c_f64_k16 tpf_flycoo_n3c_f64_k2 tpf_flycoo_n3c_f64_k32 tpf_flycoo_n3c_f64_k4
 * tpf_flycoo_n3c_f64_k8 tpf_flycoo_n4_f64_k1 tpf_flycoo_n4_f64_k16 tpf_flycoo_n4_f64_k2
 * tpf_flycoo_n4_f64_k32 tpf_flycoo_n4_f64_k4 tpf_flycoo_n4_f64_k8 tpf_flycoo_n4c_f64_k1
 * tpf_flycoo_n4c_f64_k16 tpf_flycoo_n4c_f64_k2 tpf_flycoo_n4c_f64_k32 tpf_flycoo_n4c_f64_k4
 * tpf_flycoo_n4c_f64_k8 tpf_flycoo_n5_f64_k1 tpf_flycoo_n5_f64_k16 tpf_flycoo_n5_f64_k2
 * tpf_flycoo_n5_f64_k32 tpf_flycoo_n5_f64_k4 tpf_flycoo_n5_f64_k8 tpf_flycoo_n5c_f64_k1
 * tpf_flycoo_n5c_f64_k16 tpf_flycoo_n5c_f64_k2 tpf_flycoo_n5c_f64_k32 tpf_flycoo_n5c_f64_k4
 * tpf_flycoo_n5c_f64_k8 */
#include <string.h>

#include "portable/tp_portable.h"

#define TPF_T double
#define TPF_SFX f64
#include "algorithms/sparse_mttkrp/spm_kernels.h"
