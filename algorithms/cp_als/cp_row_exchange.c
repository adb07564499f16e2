/* The sparse row exchange of distributed sparse CP-ALS (tp_dist_internal.h): per mode, the
 * slab rows a rank's nonzeros touch, grouped by their owners; the owners learn once which
 * rows each rank sends them. Then each MTTKRP's partial rows travel by one alltoallv to
 * the owners, which add them in source order (the same sum on every run), and each new
 * factor's rows travel back by one alltoallv to the ranks that touch them. */
#include <stdlib.h>
#include <string.h>

#include "tenport/memory.h"
#include "algorithms/cp_als/tp_dist_internal.h"
#include "portable/tp_error.h"

/* 1: sparse, 0: whole slabs, -1: as the volumes say (TENPORT_ROW_EXCHANGE). */
static int forced_choice(void) {
  const char *v = getenv("TENPORT_ROW_EXCHANGE");
  if (v && !strcmp(v, "sparse"))
    return 1;
  if (v && !strcmp(v, "dense"))
    return 0;
  return -1;
}

static void plan_free(tp_space *space, tpi_cp_row_plan *p) {
  if (!p)
    return;
  tp_free(space, p->touched_rows), tp_free(space, p->received_rows);
  tp_free(space, p->touched_buf), tp_free(space, p->received_buf);
  free(p->received_from), free(p->send_elems), free(p->recv_elems);
  free(p);
}

void tpi_cp_row_plans_free(tp_space *space, tpi_cp_layout *layout) {
  for (int m = 0; m < TP_COO_MAX_ORDER; ++m) {
    plan_free(space, layout->plan[m]);
    layout->plan[m] = NULL;
  }
}

/* The sorted slab rows the block's mode-n indices touch (*rows: host, malloc'd). */
static tp_status touched_rows(const tp_coo *block, int n, int64_t slab_rows, int64_t **rows,
                              int64_t *count) {
  unsigned char *seen = (unsigned char *)calloc((size_t)(slab_rows > 0 ? slab_rows : 1), 1);
  if (!seen)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory to mark %lld rows", (long long)slab_rows);
  for (int64_t k = 0; k < block->nnz; ++k)
    seen[block->indices[n][k]] = 1;
  int64_t c = 0;
  for (int64_t i = 0; i < slab_rows; ++i)
    c += seen[i];
  *rows = (int64_t *)malloc(sizeof(int64_t) * (size_t)(c > 0 ? c : 1));
  if (!*rows) {
    free(seen);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for %lld row numbers", (long long)c);
  }
  c = 0;
  for (int64_t i = 0; i < slab_rows; ++i)
    if (seen[i])
      (*rows)[c++] = i;
  free(seen);
  *count = c;
  return TP_SUCCESS;
}

/* What one rank works out for one mode before the layer decides. */
typedef struct plan_parts {
  int q;
  int64_t *touched; /* host: slab rows, sorted (so grouped by owner) */
  int64_t count;
  int64_t *send_rows, *recv_rows; /* host, q each: rows to and from each layer rank */
  int64_t *received;              /* host: the rows received, slab rows, grouped by source */
  int64_t total_received;
} plan_parts;

static void parts_free(plan_parts *p) {
  free(p->touched), free(p->send_rows), free(p->recv_rows), free(p->received);
  memset(p, 0, sizeof *p);
}

/* Rows to each owner (owners hold consecutive runs in layer-rank order), and from each
 * rank, exchanged. */
static tp_status count_rows(const tpi_cp_layout *l, int n, plan_parts *p) {
  tp_comm *layer = l->layer[n];
  p->send_rows = (int64_t *)calloc((size_t)p->q, sizeof(int64_t));
  p->recv_rows = (int64_t *)calloc((size_t)p->q, sizeof(int64_t));
  int64_t *ones = (int64_t *)malloc(sizeof(int64_t) * (size_t)p->q);
  if (!p->send_rows || !p->recv_rows || !ones) {
    free(ones);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for %d counts", p->q);
  }
  int64_t end = 0, k = 0;
  for (int j = 0; j < p->q; ++j) {
    ones[j] = 1;
    end += l->layer_rows[n][j];
    while (k < p->count && p->touched[k] < end)
      ++p->send_rows[j], ++k;
  }
  tp_status st =
      tp_comm_alltoallv_host(layer, p->send_rows, ones, p->recv_rows, ones, TP_DTYPE_I64);
  free(ones);
  return st;
}

/* The owners learn which rows each rank sends them. */
static tp_status exchange_row_numbers(const tpi_cp_layout *l, int n, plan_parts *p) {
  p->total_received = 0;
  for (int j = 0; j < p->q; ++j)
    p->total_received += p->recv_rows[j];
  p->received = (int64_t *)malloc(sizeof(int64_t) * (size_t)(p->total_received + 1));
  if (!p->received)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for %lld row numbers",
                    (long long)p->total_received);
  return tp_comm_alltoallv_host(l->layer[n], p->touched, p->send_rows, p->received, p->recv_rows,
                                TP_DTYPE_I64);
}

/* Over NCCL, sparse when the most any rank of the layer sends and receives is under half
 * a slab. Through MPI, always: MPI adds a reduce-scatter's parts on one thread, while the
 * owners add the sparse exchange's rows in the space. On 4 ranks x 4 threads
 * (relabelled slabs, where the rows moved exceed half a slab) the sparse exchange took a
 * third of the whole slabs' communication time. */
static tp_status choose(const tpi_cp_layout *l, int n, const plan_parts *p, int *sparse) {
  double moved = (double)p->count;
  for (int j = 0; j < p->q; ++j)
    moved += (double)p->recv_rows[j];
  TP_TRY(tp_comm_allreduce_host(l->layer[n], &moved, 1, TP_DTYPE_F64, TP_COMM_MAX));
  int forced = forced_choice();
  int64_t choice;
  if (forced >= 0)
    choice = forced;
  else
    choice = !tp_comm_uses_nccl(l->layer[n]) || moved < 0.5 * (double)l->rows[n];
  /* the same on every rank of the layer, even if their environments differ */
  TP_TRY(tp_comm_allreduce_host(l->layer[n], &choice, 1, TP_DTYPE_I64, TP_COMM_MAX));
  *sparse = (int)choice;
  return TP_SUCCESS;
}

static tp_status upload_rows(tp_space *space, const int64_t *host, int64_t count, int64_t **dev) {
  TP_TRY(tp_alloc(space, sizeof(int64_t) * (size_t)(count > 0 ? count : 1), (void **)dev));
  return count > 0 ? tp_copy_to_device(space, *dev, host, sizeof(int64_t) * (size_t)count)
                   : TP_SUCCESS;
}

static tp_status plan_from_parts(tp_space *space, const tpi_cp_layout *l, int n, tp_dtype dtype,
                                 int64_t R, plan_parts *p, tpi_cp_row_plan *plan) {
  const size_t elem = tp_dtype_size(dtype);
  plan->touched = p->count, plan->received = p->total_received;
  plan->received_from = (int64_t *)malloc(sizeof(int64_t) * (size_t)(p->q + 1));
  plan->send_elems = (int64_t *)malloc(sizeof(int64_t) * (size_t)p->q);
  plan->recv_elems = (int64_t *)malloc(sizeof(int64_t) * (size_t)p->q);
  if (!plan->received_from || !plan->send_elems || !plan->recv_elems)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for %d counts", p->q);
  plan->received_from[0] = 0;
  for (int j = 0; j < p->q; ++j) {
    plan->send_elems[j] = p->send_rows[j] * R, plan->recv_elems[j] = p->recv_rows[j] * R;
    plan->received_from[j + 1] = plan->received_from[j] + p->recv_rows[j];
  }
  for (int64_t k = 0; k < p->total_received; ++k) /* rows within the owned run */
    p->received[k] -= l->own_offset[n];
  TP_TRY(upload_rows(space, p->touched, p->count, &plan->touched_rows));
  TP_TRY(upload_rows(space, p->received, p->total_received, &plan->received_rows));
  TP_TRY(tp_alloc(space, elem * (size_t)((p->count > 0 ? p->count : 1) * R), &plan->touched_buf));
  return tp_alloc(space, elem * (size_t)((p->total_received > 0 ? p->total_received : 1) * R),
                  &plan->received_buf);
}

/* Mode n's plan, or NULL when the layer keeps to whole slabs. Collective over the layer. */
static tp_status plan_mode(tp_space *space, tp_dist_coo *X, int n, int64_t R,
                           tpi_cp_row_plan **out) {
  const tpi_cp_layout *l = &X->layout;
  *out = NULL;
  plan_parts p;
  memset(&p, 0, sizeof p);
  p.q = tp_comm_size(l->layer[n]);
  if (p.q == 1)
    return TP_SUCCESS;
  tp_status st = touched_rows(&X->block, n, l->rows[n], &p.touched, &p.count);
  st = tp_comm_agree(l->layer[n], st);
  if (st == TP_SUCCESS)
    st = tp_comm_agree(l->layer[n], count_rows(l, n, &p));
  int sparse = 0;
  if (st == TP_SUCCESS)
    st = choose(l, n, &p, &sparse);
  if (st == TP_SUCCESS && sparse)
    st = tp_comm_agree(l->layer[n], exchange_row_numbers(l, n, &p));
  tpi_cp_row_plan *plan = NULL;
  if (st == TP_SUCCESS && sparse) {
    plan = (tpi_cp_row_plan *)calloc(1, sizeof *plan);
    st = plan ? plan_from_parts(space, l, n, X->dtype, R, &p, plan)
              : TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no memory for an exchange plan");
    st = tp_comm_agree(l->layer[n], st);
  }
  parts_free(&p);
  if (st != TP_SUCCESS) {
    plan_free(space, plan);
    return st;
  }
  *out = plan;
  return TP_SUCCESS;
}

tp_status tpi_cp_row_plans_create(tp_space *space, tp_dist_coo *X, int64_t R) {
  for (int n = 0; n < X->order; ++n) {
    tp_status st = plan_mode(space, X, n, R, &X->layout.plan[n]);
    if (st != TP_SUCCESS) {
      tpi_cp_row_plans_free(space, &X->layout);
      return st;
    }
  }
  return TP_SUCCESS;
}

tp_status tpi_cp_rows_reduce(tp_space *space, const tpi_cp_layout *l, int n, tp_dtype dtype,
                             int64_t R, const void *G, void *G_own) {
  const tpi_cp_row_plan *p = l->plan[n];
  const size_t elem = tp_dtype_size(dtype);
  TP_TRY(tpi_cp_rows_gather(space, dtype, G, p->touched_rows, p->touched, R, p->touched_buf));
  TP_TRY(tp_comm_alltoallv(l->layer[n], p->touched_buf, p->send_elems, p->received_buf,
                           p->recv_elems, dtype));
  TP_TRY(tp_memset(space, G_own, 0, elem * (size_t)(l->own_rows[n] * R)));
  const int q = tp_comm_size(l->layer[n]);
  for (int s = 0; s < q; ++s) { /* one source at a time: its rows are distinct */
    const int64_t first = p->received_from[s];
    TP_TRY(tpi_cp_rows_scatter(
        space, dtype, (const char *)p->received_buf + elem * (size_t)(first * R),
        p->received_rows + first, p->received_from[s + 1] - first, R, G_own, 1));
  }
  return TP_SUCCESS;
}

tp_status tpi_cp_rows_share(tp_space *space, const tpi_cp_layout *l, int n, tp_dtype dtype,
                            int64_t R, void *factor) {
  const tpi_cp_row_plan *p = l->plan[n];
  const size_t elem = tp_dtype_size(dtype);
  const void *own = (const char *)factor + elem * (size_t)(l->own_offset[n] * R);
  TP_TRY(tpi_cp_rows_gather(space, dtype, own, p->received_rows, p->received, R, p->received_buf));
  TP_TRY(tp_comm_alltoallv(l->layer[n], p->received_buf, p->recv_elems, p->touched_buf,
                           p->send_elems, dtype));
  return tpi_cp_rows_scatter(space, dtype, p->touched_buf, p->touched_rows, p->touched, R, factor,
                             0);
}
