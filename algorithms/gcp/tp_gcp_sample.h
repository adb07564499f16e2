/* GCP-Adam's samples and the kernels over them (gcp_sample_template.h): what a sample
 * holds, how it is drawn, evaluated and turned into a gradient, and Adam's step. */
#ifndef TP_GCP_SAMPLE_H
#define TP_GCP_SAMPLE_H

#include <stdint.h>

#include "tenport/gcp.h"
#include "tenport/hashmap.h"
#include "portable/tp_extern_c.h"

TP_EXTERN_C_BEGIN

/* Sample s (arrays in the space): its entry's indices idx[k][s], the data x, the weight
 * w (0: left out) and, after an evaluation, y = w df/dm. */
typedef struct tpi_gcp_sample_view {
  uint32_t *idx[TP_DENSE_MAX_ORDER];
  double *x, *w, *y;
} tpi_gcp_sample_view;

/* A counter key's variant for another stream of draws. */
static inline uint64_t tpi_gcp_stream_mix(uint64_t stream) {
  uint64_t z = stream * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  return z ^ (z >> 27);
}

/* A draw of `count` samples into out from the counter key: uniform entries of a dense X
 * (W: NULL or its mask), or of a sparse coo in the space (nonzeros, or zeros with
 * nonzeros' lookups), each of the given weight. offset is added to the drawn indices: X
 * or coo is then a block of a larger tensor (a rank's, in a distributed run) whose first
 * index it is, and the samples name the whole tensor's rows (all zero: X is the whole). */
typedef struct tpi_gcp_draw {
  tpi_gcp_sample_view out;
  int64_t count;
  uint64_t key;
  double weight;
  const tp_dense *X, *W;
  const tp_coo *coo;
  int64_t offset[TP_DENSE_MAX_ORDER];
} tpi_gcp_draw;

tp_status tpi_gcp_draw_dense(tp_space *space, const tpi_gcp_draw *q);
tp_status tpi_gcp_draw_nonzeros(tp_space *space, const tpi_gcp_draw *q);
tp_status tpi_gcp_draw_zeros(tp_space *space, const tpi_gcp_draw *q, const tp_hashmap *nonzeros);
/* keys[j] = the linear index of nonzero j (mode 0 fastest), ones[j] = 1, for the map. */
tp_status tpi_gcp_nonzero_keys(tp_space *space, const tp_coo *coo, uint64_t *keys, uint64_t *ones);

/* An evaluation over `count` samples at the factors of M. */
typedef struct tpi_gcp_sample_eval {
  tpi_gcp_sample_view smp;
  int64_t count;
  const tp_kruskal *M;
  tp_gcp_loss loss;
  double param;
  int want_y;
  int interleave; /* chunks of samples: 0 as the backend takes them (strided on GPUs,
                     consecutive on CPUs), 1 strided, 2 consecutive (tests force both) */
} tpi_gcp_sample_eval;

/* partial (tpi_gcp_chunks(count) doubles) receives each chunk's sum of w f; y too.
 * partial NULL: y alone (want_y). */
tp_status tpi_gcp_sample_fg(tp_space *space, const tpi_gcp_sample_eval *q, double *partial);
/* keys = the samples' mode rows, order = 0, 1, ... (to be sorted as pairs). */
tp_status tpi_gcp_sample_sort_keys(tp_space *space, const uint32_t *rows, int64_t count,
                                   uint32_t *keys, uint32_t *order);
/* G (dims[n] x R of M's dtype) = the MTTKRP of the samples' y in mode n, from keys
 * sorted stably with their samples in order. */
tp_status tpi_gcp_sample_mttkrp(tp_space *space, const tpi_gcp_sample_eval *q, int n,
                                const uint32_t *keys, const uint32_t *order, void *G);

/* Adam's step t (1-based) on count entries of A with moments m, v and gradient g. */
typedef struct tpi_gcp_adam_step {
  double step, beta1, beta2, eps, lower;
  int64_t t;
} tpi_gcp_adam_step;
tp_status tpi_gcp_adam(tp_space *space, tp_dtype dtype, const tpi_gcp_adam_step *q, void *A,
                       void *m, void *v, const void *g, int64_t count);

/* per dtype (gcp_sample_f32_kernels.c, gcp_sample_f64_kernels.c) */
tp_status tpi_gcp_draw_dense_f32(tp_space *space, const tpi_gcp_draw *q);
tp_status tpi_gcp_draw_dense_f64(tp_space *space, const tpi_gcp_draw *q);
tp_status tpi_gcp_draw_nonzeros_f32(tp_space *space, const tpi_gcp_draw *q);
tp_status tpi_gcp_draw_nonzeros_f64(tp_space *space, const tpi_gcp_draw *q);
tp_status tpi_gcp_sample_fg_f32(tp_space *space, const tpi_gcp_sample_eval *q, double *partial);
tp_status tpi_gcp_sample_fg_f64(tp_space *space, const tpi_gcp_sample_eval *q, double *partial);
tp_status tpi_gcp_sample_mttkrp_f32(tp_space *space, const tpi_gcp_sample_eval *q, int n,
                                    const uint32_t *keys, const uint32_t *order, void *G);
tp_status tpi_gcp_sample_mttkrp_f64(tp_space *space, const tpi_gcp_sample_eval *q, int n,
                                    const uint32_t *keys, const uint32_t *order, void *G);
tp_status tpi_gcp_adam_f32(tp_space *space, const tpi_gcp_adam_step *q, void *A, void *m, void *v,
                           const void *g, int64_t count);
tp_status tpi_gcp_adam_f64(tp_space *space, const tpi_gcp_adam_step *q, void *A, void *m, void *v,
                           const void *g, int64_t count);

TP_EXTERN_C_END

#endif
