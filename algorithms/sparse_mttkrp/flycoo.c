/* The FLYCOO structure: building it in the space from a host COO tensor or one already
 * there (plans of every mode, the records in mode 0's order, or in every mode's with a
 * copy per mode; flycoo_build.c plans a mode), and the MTTKRP driver that runs a mode
 * and remaps or names the next copy. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/memory.h"
#include "portable/tp_clock.h"
#include "portable/tp_error.h"
#include "portable/tp_handles.h"
#include "portable/tp_norm_scale.h"
#include "algorithms/sparse_mttkrp/tp_flycoo_build.h"
#include "portable/tp_space_common.h"

struct tp_flycoo {
  tp_dtype dtype;
  int order, kappa, mode, current; /* mode: the records' order; current: buffer holding it */
  flycoo_layout layout; /* with positions: two buffers, swapped; else records[m] per mode */
  int64_t nnz, dims[TP_COO_MAX_ORDER];
  uint32_t *records[TP_COO_MAX_ORDER];
  flycoo_mode_dev modes[TP_COO_MAX_ORDER];
  tp_space *space;
  tp_flycoo_stats stats;
  double norm2_scaled, norm2_scale; /* ||X s||^2 and s (tpi_flycoo_norm2_scaled) */
};

tp_flycoo_options tp_flycoo_options_default(void) {
  tp_flycoo_options o;
  o.partitions = 0;
  o.split_rows = 1;
  o.copies = 0;
  return o;
}

/* One buffer per mode, records[m] in mode m's order (else two, swapped by remapping). */
static int flycoo_per_mode(const tp_flycoo *f) { return !f->layout.positions; }

static int flycoo_buffers(const tp_flycoo *f) { return flycoo_per_mode(f) ? f->order : 2; }

/* Orders up to which a copy per mode is the default: there the copies take at most 1.25
 * times the memory of remapping's two buffers (f32 less: 48 against 64 bytes per nonzero
 * for 3 modes), and the kernels are specialised for them. */
#define FLYCOO_PER_MODE_MAX_ORDER 5

/* One copy per mode: asked for (copies == order > 2), or by default up to 5 modes. */
static tp_status flycoo_choose_copies(const tp_coo *X, int copies, int *per_mode) {
  TP_CHECK_ARG(copies == 0 || copies == 2 || copies == X->order,
               "copies %d must be 0 (automatic), 2 or the tensor's order %d", copies, X->order);
  *per_mode = copies == 0 ? X->order <= FLYCOO_PER_MODE_MAX_ORDER : copies != 2;
  return TP_SUCCESS;
}

static const flycoo_ops *flycoo_ops_for(tp_dtype dtype) {
  return dtype == TP_DTYPE_F32 ? flycoo_ops_f32() : flycoo_ops_f64();
}

static int flycoo_default_kappa(tp_space *space) {
  tp_space_info info;
  if (tp_space_get_info(space, &info) != TP_SUCCESS)
    return 1;
  return info.is_gpu ? 2 * info.compute_units : info.compute_units;
}

static void flycoo_record_stats(tp_flycoo *f, const flycoo_plan_counts *counts) {
  tp_flycoo_stats *s = &f->stats;
  s->dtype = f->dtype, s->order = f->order, s->partitions = f->kappa, s->nnz = f->nnz;
  memcpy(s->dims, f->dims, sizeof s->dims);
  for (int m = 0; m < f->order; ++m) {
    s->rows[m] = counts[m].rows;
    s->pieces[m] = counts[m].pieces;
    s->split_rows[m] = counts[m].split_rows;
    s->max_partition[m] = counts[m].max_partition;
  }
  s->copies = flycoo_buffers(f);
  s->remaps = f->layout.positions;
  s->record_bytes = 4 * f->layout.stride;
}

/* Every mode's plan and its records (mode 0's order in buffer 0; with a copy per mode
 * every mode's in its own), built in the space. With remapping, every record holds its
 * place in every mode's order, so all positions are kept until the records are written. */
static tp_status flycoo_build(tp_flycoo *f, const flycoo_source *src, int split) {
  const size_t words = (size_t)(f->nnz > 0 ? f->nnz : 1) * (size_t)f->layout.stride;
  const size_t pos_bytes = sizeof(uint32_t) * (size_t)(f->nnz > 0 ? f->nnz : 1);
  const int keep_all = f->layout.positions;
  uint32_t *pos[TP_COO_MAX_ORDER], *use[TP_COO_MAX_ORDER];
  memset(pos, 0, sizeof pos);
  flycoo_plan_counts counts[TP_COO_MAX_ORDER];
  tp_status st = TP_SUCCESS;
  for (int b = 0; b < flycoo_buffers(f) && st == TP_SUCCESS; ++b)
    st = tp_alloc(f->space, sizeof(uint32_t) * words, (void **)&f->records[b]);
  for (int m = 0; m < (keep_all ? f->order : 1) && st == TP_SUCCESS; ++m)
    st = tp_alloc(f->space, pos_bytes, (void **)&pos[m]);
  for (int m = 0; m < f->order; ++m)
    use[m] = keep_all ? pos[m] : pos[0];
  for (int m = 0; m < f->order && st == TP_SUCCESS; ++m) {
    st = flycoo_plan_mode_in_space(f->space, src, m, f->kappa, split, &f->modes[m], use[m],
                                   &counts[m]);
    if (st == TP_SUCCESS && !keep_all && f->nnz > 0)
      st = flycoo_bk_fill_records(f->space, src, use, m, f->layout, f->records[m]);
  }
  if (st == TP_SUCCESS && keep_all && f->nnz > 0)
    st = flycoo_bk_fill_records(f->space, src, use, 0, f->layout, f->records[0]);
  for (int m = 0; m < TP_COO_MAX_ORDER; ++m)
    tp_free(f->space, pos[m]);
  if (st == TP_SUCCESS)
    flycoo_record_stats(f, counts);
  return st;
}

/* The handle, its options checked, nothing built. */
static tp_status flycoo_new(tp_space *space, const tp_coo *X, const tp_flycoo_options *opts,
                            tp_flycoo **fly) {
  const tp_flycoo_options o = opts ? *opts : tp_flycoo_options_default();
  TP_CHECK_ARG(o.partitions >= 0, "partitions %d is negative", o.partitions);
  int per_mode = 0;
  TP_TRY(flycoo_choose_copies(X, o.copies, &per_mode));
  tp_flycoo *f = (tp_flycoo *)calloc(1, sizeof *f);
  if (!f)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate the FLYCOO handle");
  f->space = space;
  f->dtype = X->dtype, f->order = X->order, f->nnz = X->nnz;
  memcpy(f->dims, X->dims, sizeof f->dims);
  f->kappa = o.partitions > 0 ? o.partitions : flycoo_default_kappa(space);
  f->layout = flycoo_record_layout(f->order, f->dtype, !per_mode);
  tp_status st = tpi_handle_list(f, "FLYCOO tensor");
  if (st != TP_SUCCESS)
    free(f);
  else
    *fly = f;
  return st;
}

/* Either input: checked, staged in the space, built, ||X||^2 taken. */
static tp_status flycoo_create(tp_space *space, const tp_coo *X, int in_space,
                               const tp_flycoo_options *opts, tp_flycoo **fly) {
  TP_CHECK_ARG(space && fly, "space and fly must not be NULL");
  *fly = NULL;
  const double t0 = tp_wall_seconds();
  TP_TRY(flycoo_check_coo(X));
  if (in_space) /* a host tensor is checked as it is staged */
    TP_TRY(flycoo_validate_in_space(space, X));
  tp_flycoo *f = NULL;
  TP_TRY(flycoo_new(space, X, opts, &f));
  /* what the structure holds: the space's use after the build, less before, neither
   * counting idle temporaries */
  tp_status st = tp_space_trim(space);
  const size_t held = tp_space_bytes_in_use(space);
  const int split = !opts || opts->split_rows != 0;
  flycoo_staged staged;
  memset(&staged, 0, sizeof staged);
  if (st == TP_SUCCESS)
    st = in_space ? flycoo_stage_in_space(space, X, &staged)
                  : flycoo_stage_host(space, X, &staged, &f->stats.norm2);
  if (st == TP_SUCCESS)
    st = flycoo_build(f, &staged.src, split);
  flycoo_staged_free(space, &staged);
  if (st == TP_SUCCESS && in_space)
    st = flycoo_norm2_in_space(space, X, 1.0, &f->stats.norm2);
  f->norm2_scaled = f->stats.norm2, f->norm2_scale = 1.0;
  if (st == TP_SUCCESS && !tp_norm2_is_plain(f->stats.norm2))
    st = flycoo_norm2_rescaled(space, X, in_space, &f->norm2_scaled, &f->norm2_scale);
  if (st == TP_SUCCESS) /* the build's temporaries go back, not to the space's cache */
    st = tp_space_trim(space);
  if (st != TP_SUCCESS) {
    tp_flycoo_destroy(&f);
    return st;
  }
  f->stats.device_bytes = tp_space_bytes_in_use(space) - held;
  f->stats.build_seconds = tp_wall_seconds() - t0;
  *fly = f;
  return TP_SUCCESS;
}

tp_status tp_flycoo_create(tp_space *space, const tp_coo *host, const tp_flycoo_options *opts,
                           tp_flycoo **fly) {
  return flycoo_create(space, host, 0, opts, fly);
}

tp_status tp_flycoo_create_in_space(tp_space *space, const tp_coo *X, const tp_flycoo_options *opts,
                                    tp_flycoo **fly) {
  return flycoo_create(space, X, 1, opts, fly);
}

tp_status tp_flycoo_destroy(tp_flycoo **fly) {
  TP_CHECK_ARG(fly, "fly must not be NULL");
  tp_flycoo *f = *fly;
  if (!f)
    return TP_SUCCESS;
  TP_TRY(tpi_handle_unlist(f, "FLYCOO tensor"));
  for (int b = 0; b < flycoo_buffers(f); ++b)
    tp_free(f->space, f->records[b]);
  for (int m = 0; m < f->order; ++m) {
    flycoo_mode_dev *d = &f->modes[m];
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

void tpi_flycoo_norm2_scaled(const tp_flycoo *fly, double *norm2, double *scale) {
  *norm2 = fly->norm2_scaled, *scale = fly->norm2_scale;
}

int tp_flycoo_mode(const tp_flycoo *fly) { return fly ? fly->mode : -1; }

tp_status tp_flycoo_reorder(tp_space *space, tp_flycoo *fly, int mode) {
  TP_CHECK_ARG(space && fly, "space and fly must not be NULL");
  TP_CHECK_ARG(space == fly->space, "the FLYCOO tensor was built in another space");
  TP_CHECK_ARG(mode >= 0 && mode < fly->order, "mode %d is outside 0..%d", mode, fly->order - 1);
  if (fly->mode == mode)
    return TP_SUCCESS;
  if (flycoo_per_mode(fly)) { /* every order is at hand */
    fly->current = fly->mode = mode;
    return TP_SUCCESS;
  }
  TP_TRY(flycoo_permute(space, fly->records[fly->current], fly->records[1 - fly->current], fly->nnz,
                        fly->layout.stride, fly->order + mode));
  fly->current = 1 - fly->current;
  fly->mode = mode;
  return TP_SUCCESS;
}

static tp_status flycoo_check_factors(const tp_flycoo *f, const tp_kruskal *U, int mode,
                                      const void *G) {
  TP_CHECK_ARG(U && G, "U and G must not be NULL");
  TP_TRY(tp_kruskal_check(U));
  TP_CHECK_ARG(mode >= 0 && mode < f->order, "mode %d is outside 0..%d", mode, f->order - 1);
  TP_CHECK_ARG(U->dtype == f->dtype, "the factors are %s but the tensor is %s",
               tp_dtype_name(U->dtype), tp_dtype_name(f->dtype));
  TP_CHECK_ARG(U->order == f->order, "the factors have order %d but the tensor has %d", U->order,
               f->order);
  for (int m = 0; m < f->order; ++m) {
    TP_CHECK_ARG(U->dims[m] == f->dims[m],
                 "factor %d has %lld rows but the tensor's mode %d has %lld", m,
                 (long long)U->dims[m], m, (long long)f->dims[m]);
    TP_CHECK_ARG(m == mode || U->factors[m], "factor %d must not be NULL", m);
  }
  return TP_SUCCESS;
}

tp_status tp_flycoo_mttkrp(tp_space *space, tp_flycoo *fly, const tp_kruskal *U, int mode, void *G,
                           int remap) {
  TP_CHECK_ARG(space && fly, "space and fly must not be NULL");
  TP_CHECK_ARG(space == fly->space, "the FLYCOO tensor was built in another space");
  TP_TRY(flycoo_check_factors(fly, U, mode, G));
  TP_TRY(tp_flycoo_reorder(space, fly, mode));
  const size_t eb = tp_dtype_size(fly->dtype);
  TP_TRY(tp_memset(space, G, 0, eb * (size_t)(fly->dims[mode] * U->rank)));
  flycoo_pass p;
  memset(&p, 0, sizeof p);
  p.in = fly->records[fly->current];
  p.out = remap && !flycoo_per_mode(fly) ? fly->records[1 - fly->current] : NULL;
  p.order = fly->order, p.mode = mode, p.next = (mode + 1) % fly->order;
  p.layout = fly->layout, p.kappa = fly->kappa;
  p.rank = U->rank, p.dim = fly->dims[mode];
  for (int m = 0; m < fly->order; ++m)
    p.U[m] = U->factors[m];
  p.G = G;
  p.m = fly->modes[mode];
  if (p.m.partial_rows > 0)
    TP_TRY(tp_temp_alloc(space, eb * (size_t)(p.m.partial_rows * U->rank), &p.partial));
  tp_status st = flycoo_ops_for(fly->dtype)->mttkrp(space, &p);
  if (p.partial)
    tp_temp_release(space, p.partial);
  if (st == TP_SUCCESS && remap) {
    fly->current = flycoo_per_mode(fly) ? p.next : 1 - fly->current;
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
  tp_status st =
      words ? tp_copy_to_host(space, rec, fly->records[fly->current], sizeof(uint32_t) * words)
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

const flycoo_mode_dev *flycoo_plan_of(const tp_flycoo *fly, int mode) { return &fly->modes[mode]; }

const uint32_t *flycoo_records_of(const tp_flycoo *fly, int buffer) { return fly->records[buffer]; }

flycoo_layout flycoo_layout_of(const tp_flycoo *fly) { return fly->layout; }
