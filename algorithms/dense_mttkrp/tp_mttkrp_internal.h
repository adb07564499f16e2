/* Internal interface of the dense MTTKRP: the problem in tenport's canonical form and the
 * per-precision kernel table the host-side drivers call through.
 *
 * Canonical form: every tensor is handled as first-index-fastest. A last-index-fastest
 * tensor of dims (I_0..I_{d-1}) is the same memory as a first-index-fastest tensor of
 * dims (I_{d-1}..I_0), so its mode k becomes mode d-1-k and the factors are reordered;
 * no data moves. */
#ifndef TP_MTTKRP_INTERNAL_H
#define TP_MTTKRP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "tenport/linalg.h"
#include "tenport/memory.h"
#include "tenport/mttkrp.h"
#include "portable/tp_extern_c.h"
#include "portable/tp_space_common.h"

TP_EXTERN_C_BEGIN

#define MTTKRP_MAX_ORDER TP_DENSE_MAX_ORDER

/* One mode-k MTTKRP in canonical form. Pointers are in the space. */
typedef struct mttkrp_problem {
  tp_dtype dtype;
  int d, mode;
  int64_t dims[MTTKRP_MAX_ORDER];
  int64_t strides[MTTKRP_MAX_ORDER]; /* element strides: 1, I_0, I_0 I_1, ... */
  int64_t count;
  int64_t rank;
  const void *X;
  const void *U[MTTKRP_MAX_ORDER]; /* U[mode] is not read */
  void *G;                         /* dims[mode] x rank */
} mttkrp_problem;

/* Vector lanes and per-lane columns of the element-wise kernels. */
typedef struct mttkrp_lanes {
  int vector; /* lanes over the rank (1 on CPUs) */
  int width;  /* columns per lane per pass: 1, 2, 3, 4, 8 or 16 */
  int team;   /* team threads (GPUs) */
} mttkrp_lanes;

/* GenTen's heuristic on GPUs (vector size and per-lane width from R, 128 threads per
 * team); on CPUs one lane with a width covering up to 16 columns. */
mttkrp_lanes mttkrp_choose_lanes(const tp_space *space, int64_t rank);

/* "Partial tensor" contraction: the workhorse of the GEMM and BLOCKED variants and of
 * the sweep. T holds rows of `rank` values (plus `slots` copies at slot_stride elements,
 * summed); the row of output index p and other-mode multi-index o is
 *   row_base + (p - p0) * p_stride + sum_m o_m * row_stride[m],
 * and the update is G[p, r] += sum_{o, slot} T[slot][row][r] * prod_m U_m[o_m, r]
 * for p in [p0, p0 + p_count) and the other modes' linear index (first mode fastest)
 * in [o_begin, o_begin + o_count). */
typedef struct mttkrp_partial {
  const void *T;
  void *T_spent; /* T again, when its rows are not needed afterwards (else NULL): the GPU
                    kernel then keeps the sums of a row's chunks in them, not in a buffer */
  int64_t rank, slots, slot_stride;
  int64_t ld; /* leading dimension of the U's and G (0: rank); T's rows hold rank values */
  int64_t p0, p_count, p_stride, row_base;
  int q;
  int64_t other_dims[MTTKRP_MAX_ORDER];
  int64_t row_stride[MTTKRP_MAX_ORDER];
  const void *U[MTTKRP_MAX_ORDER];
  int64_t o_begin, o_count;
  void *G; /* row 0 of G; rows p0.. are updated (no other kernel may update them meanwhile) */
} mttkrp_partial;

/* Walks the row modes first..last-1 of p (first fastest): mode k's stride goes to
 * pt->p_stride, every other mode is appended to pt's other modes with its stride and
 * factor. Returns the product of the other modes' sizes. */
static inline int64_t mttkrp_partial_add_modes(mttkrp_partial *pt, const mttkrp_problem *p,
                                               int first, int last) {
  int64_t stride = 1, count = 1;
  for (int m = first; m < last; ++m) {
    if (m == p->mode) {
      pt->p_stride = stride;
    } else {
      pt->other_dims[pt->q] = p->dims[m];
      pt->row_stride[pt->q] = stride;
      pt->U[pt->q] = p->U[m];
      pt->q++;
      count *= p->dims[m];
    }
    stride *= p->dims[m];
  }
  return count;
}

/* Kernels of one precision. */
typedef struct mttkrp_ops {
  size_t elem_bytes;
  tp_status (*elem)(tp_space *space, const mttkrp_problem *p);
  tp_status (*slice)(tp_space *space, const mttkrp_problem *p);
  tp_status (*tile)(tp_space *space, const mttkrp_problem *p, int64_t edge);
  /* out[(row - row0) * rank + r] = prod_m U_m[i_m(row) * ld + r] over q modes, rows in
   * [row0, row0 + nrows) of the modes' first-index-fastest linear index. */
  tp_status (*khatri_rao_rows)(tp_space *space, int q, const int64_t *dims, const void *const *U,
                               int64_t rank, int64_t ld, int64_t row0, int64_t nrows, void *out);
  tp_status (*partial)(tp_space *space, const mttkrp_partial *p);
  tp_status (*gemm_batched)(tp_space *space, tp_transpose ta, tp_transpose tb, int64_t m, int64_t n,
                            int64_t k, const void *A, int64_t lda, int64_t sa, const void *B,
                            int64_t ldb, int64_t sb, double beta, void *C, int64_t ldc, int64_t sc,
                            int64_t batch);
} mttkrp_ops;

const mttkrp_ops *mttkrp_ops_f32(void);
const mttkrp_ops *mttkrp_ops_f64(void);

static inline const mttkrp_ops *mttkrp_ops_for(tp_dtype dtype) {
  return dtype == TP_DTYPE_F32 ? mttkrp_ops_f32() : mttkrp_ops_f64();
}

/* Validates X, U, mode and G and fills the canonical problem. */
tp_status mttkrp_problem_make(const tp_dense *X, const tp_kruskal *U, int mode, void *G,
                              mttkrp_problem *p);

/* G = 0, before the kernels that accumulate into it. */
static inline tp_status mttkrp_clear_output(tp_space *space, const mttkrp_problem *p) {
  return tp_memset(space, p->G, 0, tp_dtype_size(p->dtype) * (size_t)(p->dims[p->mode] * p->rank));
}

/* The GEMM and BLOCKED variants (mttkrp_engine.c): workspace_bytes 0 = GEMM, unbounded;
 * lanes: BLOCKED's concurrent lanes, panel: its rank columns per pass over the tensor
 * (0 = automatic for both). */
tp_status mttkrp_run_gemm_engine(tp_space *space, const mttkrp_problem *p, size_t workspace_bytes,
                                 int lanes, int64_t panel);

/* Edge of the TILE variant's hypercube tiles (Eq. 6). */
int64_t mttkrp_tile_edge(const tp_space *space, const mttkrp_problem *p);

/* The BLOCKED workspace budget in bytes for this tensor and these options. */
size_t mttkrp_blocked_budget(const tp_dense *X, const tp_mttkrp_options *opts);

static inline int64_t mttkrp_min(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t mttkrp_max(int64_t a, int64_t b) { return a > b ? a : b; }

/* Product of dims[begin..end). */
static inline int64_t mttkrp_prod(const int64_t *dims, int begin, int end) {
  int64_t n = 1;
  for (int k = begin; k < end; ++k)
    n *= dims[k];
  return n;
}

TP_EXTERN_C_END
#endif
