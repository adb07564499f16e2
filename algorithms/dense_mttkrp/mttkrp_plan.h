/* The plan of the GEMM and BLOCKED variants (mttkrp_plan.c): where the modes are cut
 * into a GEMM side and row modes, and how a budget splits into rank panels, blocks of T
 * and passes over the GEMM side. mttkrp_engine.c runs it. */
#ifndef MTTKRP_PLAN_H
#define MTTKRP_PLAN_H

#include "algorithms/dense_mttkrp/tp_mttkrp_internal.h"

TP_EXTERN_C_BEGIN

typedef struct mttkrp_plan {
  int gemm_before; /* the GEMM side is modes 0..t-1 (else t..d-1) */
  int t;
  int row_first, row_count; /* the row modes */
  int64_t K, M;             /* GEMM side size, rows */
  int64_t slab_rows;        /* rows per index of the slowest row mode */
  int64_t slabs;            /* size of the slowest row mode */
  int64_t block_slabs;      /* slabs per block of T */
  int64_t kc, slots;        /* a pass forms slots * kc Khatri-Rao rows */
  int64_t panel;            /* rank columns per pass over the tensor */
  int lanes;                /* blocks alternate between this many concurrent lanes */
  int parity_split;         /* GEMMs by row parity, aligned (see mttkrp_parity_gemms) */
} mttkrp_plan;

/* The plan for problem p on this space: budget 0 = GEMM (everything at once); lanes and
 * panel 0 = automatic (a panel given is narrowed where the budget needs it). Fails with
 * TP_ERROR_INVALID_ARGUMENT, naming the least budget, when even one-column panels
 * cannot hold a block of one slab and a Khatri-Rao row. */
tp_status mttkrp_plan_make(const tp_space_info *info, const mttkrp_problem *p, size_t budget,
                           int lanes, int64_t panel, mttkrp_plan *pl);

TP_EXTERN_C_END
#endif
