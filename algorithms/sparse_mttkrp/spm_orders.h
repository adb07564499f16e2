/* The FLYCOO kernels specialised for 3, 4 and 5 modes in one record layout (FLYCOO_C and its
 * name suffix FLYCOO_CN, set by the includer): included by spm_width.h once per layout, so
 * there is no include guard. */
#define FLYCOO_N 3
#include "algorithms/sparse_mttkrp/spm_flycoo.h"
#undef FLYCOO_N
#define FLYCOO_N 4
#include "algorithms/sparse_mttkrp/spm_flycoo.h"
#undef FLYCOO_N
#define FLYCOO_N 5
#include "algorithms/sparse_mttkrp/spm_flycoo.h"
#undef FLYCOO_N
