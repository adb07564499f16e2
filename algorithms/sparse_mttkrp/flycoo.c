/* The FLYCOO structure: building it from a host COO tensor (plans of every mode, the
 * records in mode 0's order, or in every mode's with a copy per mode), and the MTTKRP
 * driver that runs a mode and remaps or names the next copy. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/memory.h"
#include "tp_clock.h"
#include "tp_error.h"
#include "tp_flycoo_internal.h"
#include "tp_space_common.h"

struct tp_flycoo {
  tp_dtype dtype;
  int order, kappa, mode, current; /* mode: the records' order; current: buffer holding it */
  tpf_layout layout; /* with positions: two buffers, swapped; else records[m] per mode */
  int64_t nnz, dims[TP_COO_MAX_ORDER];
  uint32_t *records[TP_COO_MAX_ORDER];
  tpf_mode_dev modes[TP_COO_MAX_ORDER];
  tp_space *space;
  tp_flycoo_stats stats;
};

tp_flycoo_options tp_flycoo_options_default(void) {
  tp_flycoo_options o;
  o.partitions = 0;
  o.split_rows = 1;
  o.copies = 0;
  return o;
}

/* One buffer per mode, records[m] in mode m's order (else two, swapped by remapping). */
static int tpf_per_mode(const tp_flycoo *f) { return !f->layout.positions; }

static int tpf_buffers(const tp_flycoo *f) { return tpf_per_mode(f) ? f->order : 2; }

/* Orders up to which a copy per mode is the default: there the copies take at most 1.25
 * times the memory of remapping's two buffers (f32 less: 48 against 64 bytes per nonzero
 * for 3 modes), and the kernels are specialised for them. */
#define TPF_PER_MODE_MAX_ORDER 5

/* One copy per mode: asked for (copies == order > 2), or by default up to 5 modes. */
static tp_status tpf_choose_copies(const tp_coo *host, int copies, int *per_mode) {
  TP_CHECK_ARG(copies == 0 || copies == 2 || copies == host->order,
               "copies %d must be 0 (automatic), 2 or the tensor's order %d", copies,
               host->order);
  *per_mode = copies == 0 ? host->order <= TPF_PER_MODE_MAX_ORDER : copies != 2;
  return TP_SUCCESS;
}

static const tpf_ops *tpf_ops_for(tp_dtype dtype) {
  return dtype == TP_DTYPE_F32 ? tpf_ops_f32() : tpf_ops_f64();
}

static tp_status tpf_check_input(const tp_coo *host) {
  TP_CHECK_ARG(host, "the tensor must not be NULL");
  TP_TRY(tp_coo_check(host));
  TP_TRY(tp_coo_validate(host));
  TP_CHECK_ARG(host->dtype == TP_DTYPE_F32 || host->dtype == TP_DTYPE_F64,
               "the tensor is %s: sparse MTTKRP takes float32 or float64",
               tp_dtype_name(host->dtype));
  TP_CHECK_ARG(host->order >= 2, "the tensor has %d mode(s): MTTKRP needs at least 2",
               host->order);
  if (host->nnz >= (int64_t)UINT32_MAX)
    return TP_ERROR(TP_ERROR_NOT_SUPPORTED,
                    "%lld nonzeros: FLYCOO's records hold 32-bit positions (up to %lld)",
                    (long long)host->nnz, (long long)UINT32_MAX - 1);
  for (int m = 0; m < host->order; ++m)
    if (host->dims[m] > TPF_MAX_DIM)
      return TP_ERROR(TP_ERROR_NOT_SUPPORTED, "mode %d has %lld rows; FLYCOO takes up to %lld",
                      m, (long long)host->dims[m], (long long)TPF_MAX_DIM);
  return TP_SUCCESS;
}

static int tpf_default_kappa(tp_space *space) {
  tp_space_info info;
  if (tp_space_get_info(space, &info) != TP_SUCCESS)
    return 1;
  return info.is_gpu ? 2 * info.compute_units : info.compute_units;
}

/* The records in mode `mode`'s order, on the host (rec: nnz * stride words). */
static void tpf_fill_records(const tp_coo *host, const tpf_mode_plan *plans, tpf_layout l,
                             int mode, uint32_t *rec) {
  const int N = host->order;
  const size_t vb = tp_dtype_size(host->dtype);
  const int used = (l.positions ? 2 * N : N) + (int)(vb / 4); /* words holding data */
  if (l.stride > used) /* zero the padding and the f64 alignment gap */
    memset(rec, 0, sizeof(uint32_t) * (size_t)host->nnz * (size_t)l.stride);
  for (int64_t x = 0; x < host->nnz; ++x) {
    uint32_t *r = rec + (size_t)plans[mode].position[x] * (size_t)l.stride;
    for (int m = 0; m < N; ++m)
      r[m] = (uint32_t)host->indices[m][x];
    for (int m = 0; l.positions && m < N; ++m)
      r[N + m] = plans[m].position[x];
    memcpy(r + l.value_word, (const char *)host->values + (size_t)x * vb, vb);
  }
}

static tp_status tpf_upload_u32(tp_space *space, const uint32_t *host, int64_t n, uint32_t **dev) {
  const size_t bytes = sizeof(uint32_t) * (size_t)(n > 0 ? n : 1);
  TP_TRY(tp_alloc(space, bytes, (void **)dev));
  if (n > 0)
    TP_TRY(tp_copy_to_device(space, *dev, host, sizeof(uint32_t) * (size_t)n));
  return TP_SUCCESS;
}

static tp_status tpf_upload_plan(tp_space *space, const tpf_mode_plan *p, int kappa,
                                 tpf_mode_dev *d) {
  d->pieces = p->pieces, d->split_rows = p->split_rows, d->partial_rows = p->partial_rows;
  TP_TRY(tpf_upload_u32(space, p->piece_start, p->pieces + 1, &d->piece_start));
  TP_TRY(tpf_upload_u32(space, p->piece_slot, p->pieces, &d->piece_slot));
  TP_TRY(tpf_upload_u32(space, p->part_piece, kappa + 1, &d->part_piece));
  TP_TRY(tpf_upload_u32(space, p->split_row, p->split_rows, &d->split_row));
  TP_TRY(tpf_upload_u32(space, p->split_first, p->split_rows + 1, &d->split_first));
  return TP_SUCCESS;
}

/* Nonzeros in strictly increasing coordinate order (mode 0 slowest): no duplicates. */
static int tpf_strictly_sorted(const tp_coo *h) {
  for (int64_t x = 1; x < h->nnz; ++x) {
    int cmp = 0;
    for (int m = 0; m < h->order && cmp == 0; ++m)
      cmp = (h->indices[m][x - 1] > h->indices[m][x]) - (h->indices[m][x - 1] < h->indices[m][x]);
    if (cmp >= 0)
      return 0;
  }
  return 1;
}

/* ||X||^2 of the tensor the records add up to: duplicates are summed first (on a copy)
 * when the input may hold them. */
static tp_status tpf_norm2(const tp_coo *host, double *norm2) {
  if (tpf_strictly_sorted(host)) {
    *norm2 = tp_coo_norm2(host);
    return TP_SUCCESS;
  }
  tp_coo copy;
  TP_TRY(tp_coo_alloc(NULL, host->dtype, host->order, host->dims, host->nnz, &copy));
  for (int m = 0; m < host->order; ++m)
    memcpy(copy.indices[m], host->indices[m], sizeof(int64_t) * (size_t)host->nnz);
  memcpy(copy.values, host->values, tp_dtype_size(host->dtype) * (size_t)host->nnz);
  tp_status st = tp_coo_sum_duplicates(&copy, NULL);
  *norm2 = tp_coo_norm2(&copy);
  tp_coo_free(NULL, &copy);
  return st;
}

static void tpf_record_stats(tp_flycoo *f, const tp_coo *host, const tpf_mode_plan *plans) {
  tp_flycoo_stats *s = &f->stats;
  s->dtype = f->dtype, s->order = f->order, s->partitions = f->kappa, s->nnz = f->nnz;
  memcpy(s->dims, f->dims, sizeof s->dims);
  (void)host;
  for (int m = 0; m < f->order; ++m) {
    s->rows[m] = plans[m].rows;
    s->pieces[m] = plans[m].pieces;
    s->split_rows[m] = plans[m].split_rows;
    s->max_partition[m] = plans[m].max_partition;
  }
}

/* Plans every mode, uploads plans and records. */
static tp_status tpf_build(tp_flycoo *f, const tp_coo *host, int split) {
  tpf_mode_plan plans[TP_COO_MAX_ORDER];
  memset(plans, 0, sizeof plans);
  tp_status st = TP_SUCCESS;
  for (int m = 0; m < f->order && st == TP_SUCCESS; ++m)
    st = tpf_plan_mode(host, m, f->kappa, split, &plans[m]);
  const size_t words = (size_t)(f->nnz > 0 ? f->nnz : 1) * (size_t)f->layout.stride;
  uint32_t *rec = st == TP_SUCCESS ? (uint32_t *)malloc(sizeof(uint32_t) * words) : NULL;
  if (st == TP_SUCCESS && !rec)
    st = TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate %zu bytes of host records",
                  sizeof(uint32_t) * words);
  for (int b = 0; b < tpf_buffers(f) && st == TP_SUCCESS; ++b)
    st = tp_alloc(f->space, sizeof(uint32_t) * words, (void **)&f->records[b]);
  /* mode 0's order in buffer 0; with a copy per mode, every mode's in its own */
  const int filled = tpf_per_mode(f) ? f->order : 1;
  for (int m = 0; m < filled && f->nnz > 0 && st == TP_SUCCESS; ++m) {
    tpf_fill_records(host, plans, f->layout, m, rec);
    st = tp_copy_to_device(f->space, f->records[m], rec, sizeof(uint32_t) * words);
  }
  for (int m = 0; m < f->order && st == TP_SUCCESS; ++m)
    st = tpf_upload_plan(f->space, &plans[m], f->kappa, &f->modes[m]);
  if (st == TP_SUCCESS)
    tpf_record_stats(f, host, plans);
  f->stats.copies = tpf_buffers(f);
  f->stats.remaps = f->layout.positions;
  f->stats.record_bytes = 4 * f->layout.stride;
  if (st == TP_SUCCESS)
    st = tpf_norm2(host, &f->stats.norm2);
  free(rec);
  for (int m = 0; m < f->order; ++m)
    tpf_plan_free(&plans[m]);
  return st;
}

tp_status tp_flycoo_create(tp_space *space, const tp_coo *host, const tp_flycoo_options *opts,
                           tp_flycoo **fly) {
  TP_CHECK_ARG(space && fly, "space and fly must not be NULL");
  *fly = NULL;
  TP_TRY(tpf_check_input(host));
  const tp_flycoo_options o = opts ? *opts : tp_flycoo_options_default();
  TP_CHECK_ARG(o.partitions >= 0, "partitions %d is negative", o.partitions);
  const double t0 = tp_wall_seconds();
  tp_flycoo *f = (tp_flycoo *)calloc(1, sizeof *f);
  if (!f)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate the FLYCOO handle");
  f->space = space;
  f->dtype = host->dtype, f->order = host->order, f->nnz = host->nnz;
  memcpy(f->dims, host->dims, sizeof f->dims);
  f->kappa = o.partitions > 0 ? o.partitions : tpf_default_kappa(space);
  int per_mode = 0;
  tp_status st = tpf_choose_copies(host, o.copies, &per_mode);
  f->layout = tpf_record_layout(f->order, f->dtype, !per_mode);
  if (st != TP_SUCCESS) {
    free(f);
    return st;
  }
  const size_t held = tp_space_bytes_in_use(space);
  st = tpf_build(f, host, o.split_rows != 0);
  if (st != TP_SUCCESS) {
    tp_flycoo_destroy(&f);
    return st;
  }
  f->stats.device_bytes = tp_space_bytes_in_use(space) - held;
  f->stats.build_seconds = tp_wall_seconds() - t0;
  *fly = f;
  return TP_SUCCESS;
}

tp_status tp_flycoo_destroy(tp_flycoo **fly) {
  TP_CHECK_ARG(fly, "fly must not be NULL");
  tp_flycoo *f = *fly;
  if (!f)
    return TP_SUCCESS;
  for (int b = 0; b < tpf_buffers(f); ++b)
    tp_free(f->space, f->records[b]);
  for (int m = 0; m < f->order; ++m) {
    tpf_mode_dev *d = &f->modes[m];
    tp_free(f->space, d->piece_start), tp_free(f->space, d->piece_slot);
    tp_free(f->space, d->part_piece), tp_free(f->space, d->split_row);
    tp_free(f->space, d->split_first);
  }
  free(f);
  *fly = NULL;
  return TP_SUCCESS;
}

tp_status tp_flycoo_get_stats(const tp_flycoo *fly, tp_flycoo_stats *stats) {
  TP_CHECK_ARG(fly && stats, "fly and stats must not be NULL");
  *stats = fly->stats;
  return TP_SUCCESS;
}

int tp_flycoo_mode(const tp_flycoo *fly) { return fly ? fly->mode : -1; }

tp_status tp_flycoo_reorder(tp_space *space, tp_flycoo *fly, int mode) {
  TP_CHECK_ARG(space && fly, "space and fly must not be NULL");
  TP_CHECK_ARG(space == fly->space, "the FLYCOO tensor was built in another space");
  TP_CHECK_ARG(mode >= 0 && mode < fly->order, "mode %d is outside 0..%d", mode, fly->order - 1);
  if (fly->mode == mode)
    return TP_SUCCESS;
  if (tpf_per_mode(fly)) { /* every order is at hand */
    fly->current = fly->mode = mode;
    return TP_SUCCESS;
  }
  TP_TRY(tpf_permute(space, fly->records[fly->current], fly->records[1 - fly->current],
                     fly->nnz, fly->layout.stride, fly->order + mode));
  fly->current = 1 - fly->current;
  fly->mode = mode;
  return TP_SUCCESS;
}

static tp_status tpf_check_factors(const tp_flycoo *f, const tp_kruskal *U, int mode,
                                   const void *G) {
  TP_CHECK_ARG(U && G, "U and G must not be NULL");
  TP_TRY(tp_kruskal_check(U));
  TP_CHECK_ARG(mode >= 0 && mode < f->order, "mode %d is outside 0..%d", mode, f->order - 1);
  TP_CHECK_ARG(U->dtype == f->dtype, "the factors are %s but the tensor is %s",
               tp_dtype_name(U->dtype), tp_dtype_name(f->dtype));
  TP_CHECK_ARG(U->order == f->order, "the factors have order %d but the tensor has %d",
               U->order, f->order);
  for (int m = 0; m < f->order; ++m) {
    TP_CHECK_ARG(U->dims[m] == f->dims[m],
                 "factor %d has %lld rows but the tensor's mode %d has %lld", m,
                 (long long)U->dims[m], m, (long long)f->dims[m]);
    TP_CHECK_ARG(m == mode || U->factors[m], "factor %d must not be NULL", m);
  }
  return TP_SUCCESS;
}

tp_status tp_flycoo_mttkrp(tp_space *space, tp_flycoo *fly, const tp_kruskal *U, int mode,
                           void *G, int remap) {
  TP_CHECK_ARG(space && fly, "space and fly must not be NULL");
  TP_CHECK_ARG(space == fly->space, "the FLYCOO tensor was built in another space");
  TP_TRY(tpf_check_factors(fly, U, mode, G));
  TP_TRY(tp_flycoo_reorder(space, fly, mode));
  const size_t eb = tp_dtype_size(fly->dtype);
  TP_TRY(tp_memset(space, G, 0, eb * (size_t)(fly->dims[mode] * U->rank)));
  tpf_pass p;
  memset(&p, 0, sizeof p);
  p.in = fly->records[fly->current];
  p.out = remap && !tpf_per_mode(fly) ? fly->records[1 - fly->current] : NULL;
  p.order = fly->order, p.mode = mode, p.next = (mode + 1) % fly->order;
  p.layout = fly->layout, p.kappa = fly->kappa;
  p.rank = U->rank, p.dim = fly->dims[mode];
  for (int m = 0; m < fly->order; ++m)
    p.U[m] = U->factors[m];
  p.G = G;
  p.m = fly->modes[mode];
  if (p.m.partial_rows > 0)
    TP_TRY(tp_temp_alloc(space, eb * (size_t)(p.m.partial_rows * U->rank), &p.partial));
  tp_status st = tpf_ops_for(fly->dtype)->mttkrp(space, &p);
  if (p.partial)
    tp_temp_release(space, p.partial);
  if (st == TP_SUCCESS && remap) {
    fly->current = tpf_per_mode(fly) ? p.next : 1 - fly->current;
    fly->mode = p.next;
  }
  return st;
}

tp_status tp_flycoo_to_coo(tp_space *space, const tp_flycoo *fly, tp_coo *host) {
  TP_CHECK_ARG(space && fly && host, "space, fly and host must not be NULL");
  TP_CHECK_ARG(space == fly->space, "the FLYCOO tensor was built in another space");
  const size_t words = (size_t)fly->nnz * (size_t)fly->layout.stride;
  uint32_t *rec = (uint32_t *)malloc(sizeof(uint32_t) * (words ? words : 1));
  if (!rec)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate %zu bytes of host records",
                    words * sizeof(uint32_t));
  tp_status st = words ? tp_copy_to_host(space, rec, fly->records[fly->current],
                                         sizeof(uint32_t) * words)
                       : TP_SUCCESS;
  if (st == TP_SUCCESS)
    st = tp_coo_alloc(NULL, fly->dtype, fly->order, fly->dims, fly->nnz, host);
  const size_t vb = tp_dtype_size(fly->dtype);
  for (int64_t x = 0; st == TP_SUCCESS && x < fly->nnz; ++x) {
    const uint32_t *r = rec + (size_t)x * (size_t)fly->layout.stride;
    for (int m = 0; m < fly->order; ++m)
      host->indices[m][x] = r[m];
    memcpy((char *)host->values + (size_t)x * vb, r + fly->layout.value_word, vb);
  }
  free(rec);
  return st;
}
