/* The permutation pass: every record goes to its position in another mode's order. */
/* generates: flycoo_permute_records */
#include "portable/tp_portable.h"
#include "algorithms/sparse_mttkrp/tp_flycoo_internal.h"

typedef struct flycoo_permute_args {
  const uint32_t *in;
  uint32_t *out;
  int stride, word;
} flycoo_permute_args;

TP_RANGE_KERNEL(flycoo_permute_records, flycoo_permute_args, e, a) {
  const uint32_t *rec = a.in + e * a.stride;
  uint32_t *dst = a.out + (int64_t)rec[a.word] * a.stride;
  for (int w = 0; w < a.stride; ++w)
    dst[w] = rec[w];
}

tp_status flycoo_permute(tp_space *space, const uint32_t *in, uint32_t *out, int64_t nnz,
                         int stride, int word) {
  flycoo_permute_args a;
  a.in = in, a.out = out, a.stride = stride, a.word = word;
  return flycoo_permute_records_launch(space, nnz, a);
}
