/* GCP-Adam's sampled objective and gradient, written once on the portable layer: samples
 * drawn in the space from counters (uniform entries of a dense tensor; a sparse tensor's
 * nonzeros and zeros drawn apart), the loss and its derivative at each sample, the
 * sampled gradient as an MTTKRP of the sampled tensor, and Adam's step.
 *
 * Template: the includer defines TP_REAL and TP_SFX (f32 or f64), and TP_GCP_PRIMARY to
 * 1 in exactly one instance (which then also defines the dtype-free kernels).
 * generates: the kernels named in the generates: lists of gcp_sample_f32_kernels.c and
 * gcp_sample_f64_kernels.c, which instantiate it.
 *
 * Nothing depends on scheduling: sample s is a function of (key, s); the objective sums
 * fixed chunks in order; the gradient's rows sum their samples in sample order (a stable
 * sort groups them), never by atomics. */
#include <stdint.h>

#include "portable/tp_portable.h"
#include "portable/tp_hashmap_device.h"
#include "algorithms/dense/tp_random_internal.h"
#include "algorithms/gcp/tp_gcp_loss.h"
#include "algorithms/gcp/tp_gcp_internal.h"

#define FN(name) TP_PASTE3(name, _, TP_SFX)

/* ---- drawing ---------------------------------------------------------------------------- */

typedef struct FN(gcp_draw_args) {
  tpi_gcp_sample_view out;
  const TP_REAL *X, *W;                      /* dense: the tensor and its mask (or NULL) */
  const int64_t *coords[TP_DENSE_MAX_ORDER]; /* sparse: the nonzeros' indices */
  const TP_REAL *values;                     /* sparse: their values */
  int64_t dims[TP_DENSE_MAX_ORDER];
  int64_t N, count;                    /* dense: N elements; sparse: count nonzeros */
  uint32_t offset[TP_DENSE_MAX_ORDER]; /* the block's first index in the whole tensor */
  uint64_t key;
  double weight;
  int d, right;
} FN(gcp_draw_args);

/* Uniform entries of a dense tensor, weight N / S (0 where the mask says missing). */
TP_RANGE_KERNEL(FN(gcp_draw_dense), FN(gcp_draw_args), s, a) {
  const double u = tpi_rng_uniform(tpi_rng_draw(a.key, (uint64_t)s), TP_DTYPE_F64);
  int64_t e = (int64_t)(u * (double)a.N);
  e = e < a.N ? e : a.N - 1;
  int64_t rest = e;
  for (int t = 0; t < a.d; ++t) {
    const int k = a.right ? a.d - 1 - t : t;
    a.out.idx[k][s] = (uint32_t)(rest % a.dims[k]) + a.offset[k];
    rest /= a.dims[k];
  }
  const int seen = !a.W || a.W[e] != 0;
  a.out.x[s] = seen ? (double)a.X[e] : 0.0;
  a.out.w[s] = seen ? a.weight : 0.0;
}

/* Uniform nonzeros of a sparse tensor (with replacement), weight nnz / S. */
TP_RANGE_KERNEL(FN(gcp_draw_nonzeros), FN(gcp_draw_args), s, a) {
  const double u = tpi_rng_uniform(tpi_rng_draw(a.key, (uint64_t)s), TP_DTYPE_F64);
  int64_t j = (int64_t)(u * (double)a.count);
  j = j < a.count ? j : a.count - 1;
  for (int k = 0; k < a.d; ++k)
    a.out.idx[k][s] = (uint32_t)a.coords[k][j] + a.offset[k];
  a.out.x[s] = (double)a.values[j];
  a.out.w[s] = a.weight;
}

/* ---- the loss at the samples -------------------------------------------------------------- */

typedef struct FN(gcp_sample_fg_args) {
  tpi_gcp_sample_view smp;
  const TP_REAL *A[TP_DENSE_MAX_ORDER];
  int64_t R, S, chunk;
  int d, loss, want_y, interleave;
  double param;
  double *partial;
} FN(gcp_sample_fg_args);

/* The model at sample s. */
TP_INLINE double FN(gcp_sample_model)(const FN(gcp_sample_fg_args) * a, int64_t s) {
  double m = 0.0;
  for (int64_t r = 0; r < a->R; ++r) {
    double p = (double)a->A[0][(int64_t)a->smp.idx[0][s] * a->R + r];
    for (int k = 1; k < a->d; ++k)
      p *= (double)a->A[k][(int64_t)a->smp.idx[k][s] * a->R + r];
    m += p;
  }
  return m;
}

/* Sample s: *acc += w f; y_s = w df/dm (want_y). */
TP_INLINE void FN(gcp_sample_loss)(const FN(gcp_sample_fg_args) * a, int64_t s, double *acc) {
  double y = 0.0;
  if (a->smp.w[s] != 0) {
    double f, g;
    tp_gcp_loss_fg(a->loss, a->param, a->smp.x[s], FN(gcp_sample_model)(a, s), &f, &g);
    *acc += a->smp.w[s] * f, y = a->smp.w[s] * g;
  }
  if (a->want_y)
    a->smp.y[s] = y;
}

/* Per chunk of samples (consecutive ones, or on GPUs every chunks-th from c, so that
 * neighbouring threads read neighbouring samples): sum w f into partial; y too. */
TP_RANGE_KERNEL(FN(gcp_sample_fg), FN(gcp_sample_fg_args), c, a) {
  double acc = 0.0;
  if (a.interleave) {
    const int64_t chunks = (a.S + a.chunk - 1) / a.chunk;
    for (int64_t s = c; s < a.S; s += chunks)
      FN(gcp_sample_loss)(&a, s, &acc);
  } else {
    const int64_t first = c * a.chunk, last = first + a.chunk < a.S ? first + a.chunk : a.S;
    for (int64_t s = first; s < last; ++s)
      FN(gcp_sample_loss)(&a, s, &acc);
  }
  a.partial[c] = acc;
}

/* y alone (a step needs no objective), per chunk of consecutive samples: on GPUs chunks
 * of one; on CPUs longer, since the host copies the argument block for every work item. */
TP_RANGE_KERNEL(FN(gcp_sample_y), FN(gcp_sample_fg_args), c, a) {
  const int64_t first = c * a.chunk, last = first + a.chunk < a.S ? first + a.chunk : a.S;
  double unused = 0.0;
  for (int64_t s = first; s < last; ++s)
    FN(gcp_sample_loss)(&a, s, &unused);
}

/* ---- the sampled MTTKRP ------------------------------------------------------------------ */

typedef struct FN(gcp_sample_mttkrp_args) {
  tpi_gcp_sample_view smp;
  const uint32_t *keys, *order; /* the samples' mode-n rows sorted, and their samples */
  const TP_REAL *A[TP_DENSE_MAX_ORDER];
  TP_REAL *G;
  double *pieces; /* S x R: the sums of the pieces of runs longer than one piece */
  int64_t R, S;
  int d, n;
} FN(gcp_sample_mttkrp_args);

#ifndef GCP_MTTKRP_COLUMNS
/* Columns per thread of the sampled MTTKRP: calls stay few on a CPU, threads many on a GPU. */
#define GCP_MTTKRP_COLUMNS 8
/* A run of equal rows is summed in pieces that end at multiples of GCP_MTTKRP_PIECE
 * samples, then its pieces in order: the heavy rows of a skewed tensor (runs of hundreds
 * of samples) spread over threads, and every sum's order is fixed by the sorted samples
 * alone, whatever the schedule. */
#define GCP_MTTKRP_PIECE 32
#endif

/* Phase 1: every piece of a run (it starts at the run's start or at a multiple of
 * GCP_MTTKRP_PIECE) sums its samples' y_s prod_{k != n} A_k(i_k(s), :) in sample order,
 * for its block of columns: into G's row when the piece is the whole run, else into
 * pieces at its first position. Rows without samples keep the zeros written before. */
TP_RANGE2_KERNEL(FN(gcp_sample_mttkrp), FN(gcp_sample_mttkrp_args), p, b, a) {
  const uint32_t row = a.keys[p];
  const int run_start = p == 0 || a.keys[p - 1] != row;
  if (!run_start && p % GCP_MTTKRP_PIECE != 0)
    return;
  const int64_t r0 = b * GCP_MTTKRP_COLUMNS;
  const int cols = (int)(r0 + GCP_MTTKRP_COLUMNS < a.R ? GCP_MTTKRP_COLUMNS : a.R - r0);
  double acc[GCP_MTTKRP_COLUMNS];
  for (int j = 0; j < GCP_MTTKRP_COLUMNS; ++j)
    acc[j] = 0.0;
  int64_t q = p;
  do {
    const int64_t s = a.order[q];
    const double y = a.smp.y[s];
    for (int j = 0; j < cols; ++j) {
      double v = y;
      for (int k = 0; k < a.d; ++k)
        if (k != a.n)
          v *= (double)a.A[k][(int64_t)a.smp.idx[k][s] * a.R + r0 + j];
      acc[j] += v;
    }
    ++q;
  } while (q < a.S && q % GCP_MTTKRP_PIECE != 0 && a.keys[q] == row);
  const int whole = run_start && (q == a.S || a.keys[q] != row);
  for (int j = 0; j < cols; ++j) {
    if (whole)
      a.G[(int64_t)row * a.R + r0 + j] = (TP_REAL)acc[j];
    else
      a.pieces[p * a.R + r0 + j] = acc[j];
  }
}

/* Phase 2: a run longer than one piece adds its pieces' sums in order into G's row. */
TP_RANGE2_KERNEL(FN(gcp_sample_mttkrp_runs), FN(gcp_sample_mttkrp_args), p, b, a) {
  const uint32_t row = a.keys[p];
  if (p > 0 && a.keys[p - 1] == row)
    return;
  const int64_t next = (p / GCP_MTTKRP_PIECE + 1) * GCP_MTTKRP_PIECE;
  if (next >= a.S || a.keys[next] != row)
    return; /* one piece: phase 1 wrote it */
  const int64_t r0 = b * GCP_MTTKRP_COLUMNS;
  const int cols = (int)(r0 + GCP_MTTKRP_COLUMNS < a.R ? GCP_MTTKRP_COLUMNS : a.R - r0);
  for (int j = 0; j < cols; ++j) {
    double acc = a.pieces[p * a.R + r0 + j];
    for (int64_t q = next; q < a.S && a.keys[q] == row; q += GCP_MTTKRP_PIECE)
      acc += a.pieces[q * a.R + r0 + j];
    a.G[(int64_t)row * a.R + r0 + j] = (TP_REAL)acc;
  }
}

/* ---- Adam's step -------------------------------------------------------------------------- */

typedef struct FN(gcp_adam_args) {
  TP_REAL *A, *m, *v;
  const TP_REAL *g;
  double step, beta1, beta2, correct1, correct2, eps, lower;
} FN(gcp_adam_args);

TP_RANGE_KERNEL(FN(gcp_adam_step), FN(gcp_adam_args), e, a) {
  const double g = (double)a.g[e];
  const double m = a.beta1 * (double)a.m[e] + (1.0 - a.beta1) * g;
  const double v = a.beta2 * (double)a.v[e] + (1.0 - a.beta2) * g * g;
  const double next = (double)a.A[e] - a.step * (m / a.correct1) / (sqrt(v / a.correct2) + a.eps);
  a.m[e] = (TP_REAL)m, a.v[e] = (TP_REAL)v;
  a.A[e] = (TP_REAL)(next > a.lower ? next : a.lower);
}

/* ---- launchers ---------------------------------------------------------------------------- */

tp_status FN(tpi_gcp_draw_dense)(tp_space *space, const tpi_gcp_draw *q) {
  FN(gcp_draw_args) a;
  memset(&a, 0, sizeof a);
  a.out = q->out, a.key = q->key, a.weight = q->weight;
  a.X = (const TP_REAL *)q->X->data, a.W = q->W ? (const TP_REAL *)q->W->data : NULL;
  a.d = q->X->order, a.right = q->X->layout == TP_LAYOUT_RIGHT, a.N = tp_dense_count(q->X);
  for (int k = 0; k < a.d; ++k)
    a.dims[k] = q->X->dims[k], a.offset[k] = (uint32_t)q->offset[k];
  return TP_LAUNCHER(FN(gcp_draw_dense))(space, q->count, a);
}

tp_status FN(tpi_gcp_draw_nonzeros)(tp_space *space, const tpi_gcp_draw *q) {
  FN(gcp_draw_args) a;
  memset(&a, 0, sizeof a);
  a.out = q->out, a.key = q->key, a.weight = q->weight;
  a.d = q->coo->order, a.count = q->coo->nnz, a.values = (const TP_REAL *)q->coo->values;
  for (int k = 0; k < a.d; ++k)
    a.coords[k] = q->coo->indices[k], a.offset[k] = (uint32_t)q->offset[k];
  return TP_LAUNCHER(FN(gcp_draw_nonzeros))(space, q->count, a);
}

tp_status FN(tpi_gcp_sample_fg)(tp_space *space, const tpi_gcp_sample_eval *q, double *partial) {
  FN(gcp_sample_fg_args) a;
  memset(&a, 0, sizeof a);
  tp_space_info info;
  TP_TRY(tp_space_get_info(space, &info));
  a.smp = q->smp, a.R = q->M->rank, a.S = q->count, a.chunk = tpi_gcp_chunk(q->count);
  a.d = q->M->order, a.loss = (int)q->loss, a.want_y = q->want_y, a.param = q->param;
  a.partial = partial, a.interleave = q->interleave ? q->interleave == 1 : info.is_gpu;
  for (int k = 0; k < a.d; ++k)
    a.A[k] = (const TP_REAL *)q->M->factors[k];
  if (!partial) {
    TP_CHECK_ARG(q->want_y, "a sample pass without partial sums must want y");
    a.chunk = info.is_gpu ? 1 : a.chunk;
    return TP_LAUNCHER(FN(gcp_sample_y))(space, (a.S + a.chunk - 1) / a.chunk, a);
  }
  return TP_LAUNCHER(FN(gcp_sample_fg))(space, tpi_gcp_chunks(q->count), a);
}

tp_status FN(tpi_gcp_sample_mttkrp)(tp_space *space, const tpi_gcp_sample_eval *q, int n,
                                    const uint32_t *keys, const uint32_t *order, void *G) {
  FN(gcp_sample_mttkrp_args) a;
  memset(&a, 0, sizeof a);
  a.smp = q->smp, a.keys = keys, a.order = order, a.G = (TP_REAL *)G;
  a.R = q->M->rank, a.S = q->count, a.d = q->M->order, a.n = n;
  for (int k = 0; k < a.d; ++k)
    a.A[k] = (const TP_REAL *)q->M->factors[k];
  TP_TRY(tp_memset(space, G, 0, sizeof(TP_REAL) * (size_t)(q->M->dims[n] * a.R)));
  if (q->count == 0)
    return TP_SUCCESS;
  TP_TRY(tp_temp_alloc(space, sizeof(double) * (size_t)(q->count * a.R), (void **)&a.pieces));
  const int64_t blocks = tp_ceil_div_i64(a.R, GCP_MTTKRP_COLUMNS);
  tp_status st = TP_LAUNCHER(FN(gcp_sample_mttkrp))(space, q->count, blocks, a);
  if (st == TP_SUCCESS)
    st = TP_LAUNCHER(FN(gcp_sample_mttkrp_runs))(space, q->count, blocks, a);
  tp_temp_release(space, a.pieces);
  return st;
}

tp_status FN(tpi_gcp_adam)(tp_space *space, const tpi_gcp_adam_step *q, void *A, void *m, void *v,
                           const void *g, int64_t count) {
  FN(gcp_adam_args) a;
  a.A = (TP_REAL *)A, a.m = (TP_REAL *)m, a.v = (TP_REAL *)v, a.g = (const TP_REAL *)g;
  a.step = q->step, a.beta1 = q->beta1, a.beta2 = q->beta2, a.eps = q->eps, a.lower = q->lower;
  a.correct1 = 1.0 - pow(q->beta1, (double)q->t), a.correct2 = 1.0 - pow(q->beta2, (double)q->t);
  return TP_LAUNCHER(FN(gcp_adam_step))(space, count, a);
}

#if TP_GCP_PRIMARY
/* ---- dtype-free kernels and the dispatchers (once) ----------------------------------------- */

typedef struct gcp_zeros_args {
  tpi_gcp_sample_view out;
  tp_hashmap_view nonzeros; /* linear indices of the nonzeros */
  int64_t dims[TP_DENSE_MAX_ORDER];
  uint32_t offset[TP_DENSE_MAX_ORDER]; /* the block's first index in the whole tensor */
  uint64_t key;
  double weight;
  int d;
} gcp_zeros_args;

/* Uniform entries of the whole tensor, weight N / S; those that are nonzeros get weight 0:
 * the zeros' sum over them is then unbiased (each zero drawn with probability S / N). */
TP_RANGE_KERNEL(gcp_draw_zeros, gcp_zeros_args, s, a) {
  uint64_t linear = 0, stride = 1;
  for (int k = 0; k < a.d; ++k) {
    const double u = tpi_rng_uniform(tpi_rng_draw(a.key, (uint64_t)(s * a.d + k)), TP_DTYPE_F64);
    int64_t i = (int64_t)(u * (double)a.dims[k]);
    i = i < a.dims[k] ? i : a.dims[k] - 1;
    a.out.idx[k][s] = (uint32_t)i + a.offset[k];
    linear += (uint64_t)i * stride, stride *= (uint64_t)a.dims[k];
  }
  a.out.x[s] = 0.0;
  a.out.w[s] = tp_hashmap_lookup(a.nonzeros, linear) < 0 ? a.weight : 0.0;
}

typedef struct gcp_keys_args {
  const uint32_t *rows;
  uint32_t *keys, *order;
} gcp_keys_args;

TP_RANGE_KERNEL(gcp_sample_keys, gcp_keys_args, s, a) {
  a.keys[s] = a.rows[s], a.order[s] = (uint32_t)s;
}

typedef struct gcp_linear_args {
  const int64_t *coords[TP_DENSE_MAX_ORDER];
  int64_t dims[TP_DENSE_MAX_ORDER];
  uint64_t *out, *ones;
  int d;
} gcp_linear_args;

/* A nonzero's linear index (mode 0 fastest), for the zeros' lookups. */
TP_RANGE_KERNEL(gcp_nonzero_linear, gcp_linear_args, j, a) {
  uint64_t linear = 0, stride = 1;
  for (int k = 0; k < a.d; ++k)
    linear += (uint64_t)a.coords[k][j] * stride, stride *= (uint64_t)a.dims[k];
  a.out[j] = linear, a.ones[j] = 1;
}

tp_status tpi_gcp_draw_zeros(tp_space *space, const tpi_gcp_draw *q, const tp_hashmap *nonzeros) {
  gcp_zeros_args a;
  memset(&a, 0, sizeof a);
  a.out = q->out, a.nonzeros = tp_hashmap_get_view(nonzeros), a.key = q->key;
  a.weight = q->weight, a.d = q->coo->order;
  for (int k = 0; k < a.d; ++k)
    a.dims[k] = q->coo->dims[k], a.offset[k] = (uint32_t)q->offset[k];
  return TP_LAUNCHER(gcp_draw_zeros)(space, q->count, a);
}

tp_status tpi_gcp_sample_sort_keys(tp_space *space, const uint32_t *rows, int64_t count,
                                   uint32_t *keys, uint32_t *order) {
  gcp_keys_args a = {rows, keys, order};
  return TP_LAUNCHER(gcp_sample_keys)(space, count, a);
}

tp_status tpi_gcp_nonzero_keys(tp_space *space, const tp_coo *coo, uint64_t *keys, uint64_t *ones) {
  gcp_linear_args a;
  memset(&a, 0, sizeof a);
  a.d = coo->order, a.out = keys, a.ones = ones;
  for (int k = 0; k < a.d; ++k)
    a.coords[k] = coo->indices[k], a.dims[k] = coo->dims[k];
  return TP_LAUNCHER(gcp_nonzero_linear)(space, coo->nnz, a);
}

#define GCP_BY_DTYPE(dtype, fn, ...) \
  ((dtype) == TP_DTYPE_F32 ? fn##_f32(__VA_ARGS__) : fn##_f64(__VA_ARGS__))

tp_status tpi_gcp_draw_dense(tp_space *space, const tpi_gcp_draw *q) {
  return GCP_BY_DTYPE(q->X->dtype, tpi_gcp_draw_dense, space, q);
}
tp_status tpi_gcp_draw_nonzeros(tp_space *space, const tpi_gcp_draw *q) {
  return GCP_BY_DTYPE(q->coo->dtype, tpi_gcp_draw_nonzeros, space, q);
}
tp_status tpi_gcp_sample_fg(tp_space *space, const tpi_gcp_sample_eval *q, double *partial) {
  return GCP_BY_DTYPE(q->M->dtype, tpi_gcp_sample_fg, space, q, partial);
}
tp_status tpi_gcp_sample_mttkrp(tp_space *space, const tpi_gcp_sample_eval *q, int n,
                                const uint32_t *keys, const uint32_t *order, void *G) {
  return GCP_BY_DTYPE(q->M->dtype, tpi_gcp_sample_mttkrp, space, q, n, keys, order, G);
}
tp_status tpi_gcp_adam(tp_space *space, tp_dtype dtype, const tpi_gcp_adam_step *q, void *A,
                       void *m, void *v, const void *g, int64_t count) {
  return GCP_BY_DTYPE(dtype, tpi_gcp_adam, space, q, A, m, v, g, count);
}
#endif

#undef FN
#undef TP_REAL
#undef TP_SFX
#undef TP_GCP_PRIMARY
