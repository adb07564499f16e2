/* GCP's passes over a dense tensor in the space, written once on the portable layer:
 * the objective sum_i w_i f(x_i, m_i) with the derivative tensor y_i = w_i df/dm, the
 * model's entries m_i formed from the factors as they are needed (never stored), and
 * the statistics of the observed data (its sum of squares, count and the first entry
 * the loss refuses).
 *
 * Template: the includer defines TP_REAL and TP_SFX (f32 or f64), and TP_GCP_PRIMARY
 * to 1 in exactly one instance (which then also defines the dtype dispatchers).
 * generates: the kernels named in the generates: lists of gcp_f32_kernels.c and
 * gcp_f64_kernels.c, which instantiate it.
 *
 * Sums are deterministic: the elements are cut into chunks whose length depends only on
 * the element count (on GPUs chunk c holds elements c, c + P, c + 2P, ... of the P
 * chunks, so that neighbouring threads read neighbouring elements; on CPUs a run of
 * consecutive elements, walked without divisions); each chunk is summed in its order
 * into a partial, the partials
 * in fixed blocks in order, and the blocks' sums on the host in order. Everything
 * accumulates in double. */
#include <stdint.h>

#include "portable/tp_portable.h"
#include "algorithms/gcp/tp_gcp_internal.h"
#include "algorithms/gcp/tp_gcp_loss.h"

#define FN(name) TP_PASTE3(name, _, TP_SFX)

typedef struct FN(gcp_pass_args) {
  const TP_REAL *X, *W; /* W: NULL, or nonzero where observed */
  TP_REAL *Y;           /* NULL: the objective only */
  const TP_REAL *A[TP_DENSE_MAX_ORDER];
  int64_t dims[TP_DENSE_MAX_ORDER];
  int64_t N, R, chunk;
  int d, right, loss, rule, interleave;
  double param;
  double *partial;  /* per chunk: the objective, or (stats) the sum of squares */
  double *observed; /* stats: per chunk */
  int64_t *bad;     /* stats: per chunk */
  int64_t *first;   /* stats: per chunk, the first refused element (N: none) */
} FN(gcp_pass_args);

/* The multi-index of element e (the layout's fastest mode first). */
TP_INLINE void FN(gcp_decode)(const FN(gcp_pass_args) * a, int64_t e, int64_t *idx) {
  for (int t = 0; t < a->d; ++t) {
    const int k = a->right ? a->d - 1 - t : t;
    idx[k] = e % a->dims[k];
    e /= a->dims[k];
  }
}

/* The next element's multi-index. */
TP_INLINE void FN(gcp_advance)(const FN(gcp_pass_args) * a, int64_t *idx) {
  for (int t = 0; t < a->d; ++t) {
    const int k = a->right ? a->d - 1 - t : t;
    if (++idx[k] < a->dims[k])
      return;
    idx[k] = 0;
  }
}

/* m_i = sum_r prod_k A_k(i_k, r), in double, components in order. */
TP_INLINE double FN(gcp_model_entry)(const FN(gcp_pass_args) * a, const int64_t *idx) {
  double m = 0.0;
  for (int64_t r = 0; r < a->R; ++r) {
    double p = (double)a->A[0][idx[0] * a->R + r];
    for (int k = 1; k < a->d; ++k)
      p *= (double)a->A[k][idx[k] * a->R + r];
    m += p;
  }
  return m;
}

/* The loss at element e (multi-index idx): its value added to *acc, y_e written. */
TP_INLINE void FN(gcp_fg_element)(const FN(gcp_pass_args) * a, int64_t e, const int64_t *idx,
                                  double *acc) {
  double y = 0.0;
  if (!a->W || a->W[e] != 0) {
    double f;
    tp_gcp_loss_fg(a->loss, a->param, (double)a->X[e], FN(gcp_model_entry)(a, idx), &f, &y);
    *acc += f;
  }
  if (a->Y)
    a->Y[e] = (TP_REAL)y;
}

TP_RANGE_KERNEL(FN(gcp_fg_chunks), FN(gcp_pass_args), c, a) {
  int64_t idx[TP_DENSE_MAX_ORDER];
  double acc = 0.0;
  if (a.interleave) {
    const int64_t P = tp_ceil_div_i64(a.N, a.chunk);
    for (int64_t e = c; e < a.N; e += P) {
      FN(gcp_decode)(&a, e, idx);
      FN(gcp_fg_element)(&a, e, idx, &acc);
    }
  } else {
    const int64_t first = c * a.chunk;
    const int64_t last = first + a.chunk < a.N ? first + a.chunk : a.N;
    FN(gcp_decode)(&a, first, idx);
    for (int64_t e = first; e < last; ++e) {
      FN(gcp_fg_element)(&a, e, idx, &acc);
      FN(gcp_advance)(&a, idx);
    }
  }
  a.partial[c] = acc;
}

TP_RANGE_KERNEL(FN(gcp_stats_chunks), FN(gcp_pass_args), c, a) {
  const int64_t first = c * a.chunk;
  const int64_t last = first + a.chunk < a.N ? first + a.chunk : a.N;
  double sumsq = 0.0, seen = 0.0;
  int64_t bad = 0, first_bad = a.N;
  for (int64_t e = first; e < last; ++e) {
    if (a.W && a.W[e] == 0)
      continue;
    const double x = (double)a.X[e];
    seen += 1.0;
    if (tp_gcp_data_bad(a.rule, x)) {
      first_bad = bad == 0 ? e : first_bad;
      ++bad;
    } else {
      sumsq += x * x;
    }
  }
  a.partial[c] = sumsq, a.observed[c] = seen, a.bad[c] = bad, a.first[c] = first_bad;
}

static tp_status FN(gcp_args)(const tpi_gcp_pass *p, FN(gcp_pass_args) * a) {
  memset(a, 0, sizeof *a);
  a->X = (const TP_REAL *)p->X->data;
  a->W = p->W ? (const TP_REAL *)p->W->data : NULL;
  a->Y = (TP_REAL *)p->Y;
  a->d = p->X->order, a->right = p->X->layout == TP_LAYOUT_RIGHT;
  a->R = p->model ? p->model->rank : 0;
  for (int k = 0; k < a->d; ++k) {
    a->dims[k] = p->X->dims[k];
    a->A[k] = p->model ? (const TP_REAL *)p->model->factors[k] : NULL;
  }
  a->N = tp_dense_count(p->X);
  a->chunk = tpi_gcp_chunk(a->N);
  a->loss = (int)p->loss, a->rule = tp_gcp_data_rule((int)p->loss), a->param = p->param;
  return TP_SUCCESS;
}

tp_status FN(tpi_gcp_fg)(tp_space *space, const tpi_gcp_pass *p, double *partial) {
  FN(gcp_pass_args) a;
  TP_TRY(FN(gcp_args)(p, &a));
  tp_space_info info;
  TP_TRY(tp_space_get_info(space, &info));
  a.partial = partial, a.interleave = info.is_gpu || p->interleave;
  return TP_LAUNCHER(FN(gcp_fg_chunks))(space, tp_ceil_div_i64(a.N, a.chunk), a);
}

tp_status FN(tpi_gcp_stats)(tp_space *space, const tpi_gcp_pass *p, double *sumsq, double *observed,
                            int64_t *bad, int64_t *first) {
  FN(gcp_pass_args) a;
  TP_TRY(FN(gcp_args)(p, &a));
  a.partial = sumsq, a.observed = observed, a.bad = bad, a.first = first;
  return TP_LAUNCHER(FN(gcp_stats_chunks))(space, tp_ceil_div_i64(a.N, a.chunk), a);
}

#if TP_GCP_PRIMARY
/* ---- dtype dispatchers and the partials' sums (once) ------------------------------- */

typedef struct gcp_sum_args {
  const double *in;
  int64_t n;
  double *out;
} gcp_sum_args;

/* Block j of TPI_GCP_SUM_BLOCK partials, summed in order. */
TP_RANGE_KERNEL(gcp_sum_blocks, gcp_sum_args, j, a) {
  const int64_t first = j * TPI_GCP_SUM_BLOCK;
  const int64_t last = first + TPI_GCP_SUM_BLOCK < a.n ? first + TPI_GCP_SUM_BLOCK : a.n;
  double s = 0.0;
  for (int64_t i = first; i < last; ++i)
    s += a.in[i];
  a.out[j] = s;
}

tp_status tpi_gcp_sum_partials(tp_space *space, const double *partial, int64_t n, double *sum) {
  const int64_t blocks = tp_ceil_div_i64(n, TPI_GCP_SUM_BLOCK);
  double *out = NULL, *host = (double *)malloc(sizeof(double) * (size_t)(blocks > 0 ? blocks : 1));
  if (!host)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for %lld sums", (long long)blocks);
  tp_status st =
      tp_temp_alloc(space, sizeof(double) * (size_t)(blocks > 0 ? blocks : 1), (void **)&out);
  if (st == TP_SUCCESS) {
    gcp_sum_args a = {partial, n, out};
    st = TP_LAUNCHER(gcp_sum_blocks)(space, blocks, a);
    if (st == TP_SUCCESS)
      st = tp_copy_to_host(space, host, out, sizeof(double) * (size_t)blocks);
    tp_temp_release(space, out);
  }
  *sum = 0.0;
  for (int64_t j = 0; st == TP_SUCCESS && j < blocks; ++j)
    *sum += host[j];
  free(host);
  return st;
}

tp_status tpi_gcp_pass_fg(tp_space *space, const tpi_gcp_pass *p, double *partial) {
  return p->X->dtype == TP_DTYPE_F32 ? tpi_gcp_fg_f32(space, p, partial)
                                     : tpi_gcp_fg_f64(space, p, partial);
}

tp_status tpi_gcp_pass_stats(tp_space *space, const tpi_gcp_pass *p, double *sumsq,
                             double *observed, int64_t *bad, int64_t *first) {
  return p->X->dtype == TP_DTYPE_F32 ? tpi_gcp_stats_f32(space, p, sumsq, observed, bad, first)
                                     : tpi_gcp_stats_f64(space, p, sumsq, observed, bad, first);
}
#endif

#undef FN
#undef TP_REAL
#undef TP_SFX
#undef TP_GCP_PRIMARY
