/* The FLYCOO kernels specialised for 3, 4 and 5 modes in one record layout (TPF_C and its
 * name suffix TPF_CN, set by the includer): included by spm_width.h once per layout, so
 * there is no include guard. */
#define TPF_N 3
#include "algorithms/sparse_mttkrp/spm_flycoo.h"
#undef TPF_N
#define TPF_N 4
#include "algorithms/sparse_mttkrp/spm_flycoo.h"
#undef TPF_N
#define TPF_N 5
#include "algorithms/sparse_mttkrp/spm_flycoo.h"
#undef TPF_N
