/* Algorithm 1 of the sparse paper (each piece, largest first, to the least-filled of kappa
 * partitions, ties to the lowest partition) over runs of equal piece sizes, on the host.
 * The result is the one the piece-by-piece heap of flycoo_plan.c gives, but the work is
 * per run, not per piece: the pieces are sorted on the device, and what comes here is
 * one (size, count) pair per distinct size.
 *
 * Why runs suffice: a pick takes the smallest (load, partition) and raises that load by
 * the piece's size (at least 1), so the picks' (load, partition) keys strictly increase
 * over the whole placement. Within a run of size s, partition p's picks therefore sit at
 * loads L_p, L_p + s, L_p + 2s, ...: the run is described by how many pieces each
 * partition takes (its share), and the r pieces of the run take the r smallest of those
 * events. A short run is placed by the heap; a long one by a threshold: the largest
 * load v with at most r events below it, then the events at v itself, lowest partitions
 * first. The device turns the shares back into one event per piece and sorts them by
 * (load, partition), which restores the placement order. */
#include <stdlib.h>
#include <string.h>

#include "portable/tp_error.h"
#include "algorithms/sparse_mttkrp/tp_flycoo_internal.h"

/* ---- a binary min-heap of partitions keyed by (load, id) ------------------------------ */
typedef struct tpa_heap {
  uint64_t *load;
  uint32_t *id;
  int n;
} tpa_heap;

static int tpa_less(const tpa_heap *h, int a, int b) {
  return h->load[a] != h->load[b] ? h->load[a] < h->load[b] : h->id[a] < h->id[b];
}

static void tpa_sift_down(tpa_heap *h, int i) {
  for (;;) {
    int l = 2 * i + 1, r = l + 1, m = i;
    if (l < h->n && tpa_less(h, l, m))
      m = l;
    if (r < h->n && tpa_less(h, r, m))
      m = r;
    if (m == i)
      return;
    uint64_t load = h->load[i];
    uint32_t id = h->id[i];
    h->load[i] = h->load[m], h->id[i] = h->id[m];
    h->load[m] = load, h->id[m] = id;
    i = m;
  }
}

/* The heap of the partitions' current loads. */
static void tpa_heapify(tpa_heap *h, const uint64_t *load) {
  for (int p = 0; p < h->n; ++p)
    h->load[p] = load[p], h->id[p] = (uint32_t)p;
  for (int i = h->n / 2 - 1; i >= 0; --i)
    tpa_sift_down(h, i);
}

/* ---- the placement state ------------------------------------------------------------ */
typedef struct tpa_state {
  int kappa;
  uint64_t *load, *pieces; /* per partition: nonzeros and pieces so far */
  uint64_t *take;          /* per partition: pieces of the current run */
  uint64_t events;         /* pieces placed so far: the next share's first event */
  tpa_heap heap;
  int heap_ok; /* the heap matches load[] */
  flycoo_assignment *out;
  int64_t cap_shares;
} tpa_state;

static tp_status tpa_push_share(tpa_state *s, uint32_t p, uint64_t load, uint64_t count,
                                uint32_t size) {
  flycoo_assignment *a = s->out;
  if (a->n_shares == s->cap_shares) {
    int64_t cap = s->cap_shares ? 2 * s->cap_shares : 1024;
    flycoo_share *more = (flycoo_share *)realloc(a->shares, sizeof(flycoo_share) * (size_t)cap);
    if (!more)
      return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot grow the partition shares to %lld",
                      (long long)cap);
    a->shares = more, s->cap_shares = cap;
  }
  flycoo_share *sh = &a->shares[a->n_shares++];
  sh->part = p, sh->load = (uint32_t)load, sh->count = (uint32_t)count;
  sh->rank = (uint32_t)s->pieces[p], sh->size = size, sh->first = (uint32_t)s->events;
  s->events += count;
  return TP_SUCCESS;
}

/* Shares of the run from take[], then the loads and piece counts move on. */
static tp_status tpa_close_run(tpa_state *s, uint32_t size) {
  for (int p = 0; p < s->kappa; ++p) {
    if (s->take[p] == 0)
      continue;
    TP_TRY(tpa_push_share(s, (uint32_t)p, s->load[p], s->take[p], size));
    s->load[p] += s->take[p] * size;
    s->pieces[p] += s->take[p];
    s->take[p] = 0;
  }
  return TP_SUCCESS;
}

/* A short run, one pick at a time (the heap's loads move as it goes; load[] at the end). */
static tp_status tpa_run_by_heap(tpa_state *s, uint32_t size, int64_t count) {
  if (!s->heap_ok)
    tpa_heapify(&s->heap, s->load);
  for (int64_t j = 0; j < count; ++j) {
    s->take[s->heap.id[0]]++;
    s->heap.load[0] += size;
    tpa_sift_down(&s->heap, 0);
  }
  s->heap_ok = 1; /* load[] + take[] * size is what the heap holds */
  return tpa_close_run(s, size);
}

/* Events of partitions below load v: sum over p of ceil((v - L_p) / size). */
static uint64_t tpa_events_below(const tpa_state *s, uint64_t v, uint32_t size) {
  uint64_t n = 0;
  for (int p = 0; p < s->kappa; ++p)
    if (v > s->load[p])
      n += (v - s->load[p] + size - 1) / size;
  return n;
}

/* A long run at once: the largest v with at most count events below it, then the events
 * at v in partition order. */
static tp_status tpa_run_by_threshold(tpa_state *s, uint32_t size, int64_t count) {
  uint64_t lo_load = UINT64_MAX, hi_load = 0;
  for (int p = 0; p < s->kappa; ++p) {
    lo_load = s->load[p] < lo_load ? s->load[p] : lo_load;
    hi_load = s->load[p] > hi_load ? s->load[p] : hi_load;
  }
  const uint64_t r = (uint64_t)count, rounds = r / (uint64_t)s->kappa;
  uint64_t lo = lo_load + rounds * size, hi = hi_load + (rounds + 1) * size;
  while (hi - lo > 1) { /* events_below(lo) <= r < events_below(hi) */
    uint64_t mid = lo + (hi - lo) / 2;
    if (tpa_events_below(s, mid, size) <= r)
      lo = mid;
    else
      hi = mid;
  }
  uint64_t left = r;
  for (int p = 0; p < s->kappa; ++p)
    if (lo > s->load[p]) {
      s->take[p] = (lo - s->load[p] + size - 1) / size;
      left -= s->take[p];
    }
  for (int p = 0; p < s->kappa && left > 0; ++p)
    if (lo >= s->load[p] && (lo - s->load[p]) % size == 0)
      s->take[p]++, left--;
  s->heap_ok = 0;
  return tpa_close_run(s, size);
}

/* Rough costs of the two ways (the result is the same). */
static int tpa_by_threshold(const tpa_state *s, int64_t count, int64_t bulk_from) {
  if (bulk_from > 0)
    return count >= bulk_from;
  int log_kappa = 1;
  while ((1 << log_kappa) < s->kappa)
    ++log_kappa;
  return count * (log_kappa + 2) > (int64_t)s->kappa * 40;
}

static tp_status tpa_alloc(tpa_state *s, int kappa, flycoo_assignment *a) {
  memset(s, 0, sizeof *s);
  memset(a, 0, sizeof *a);
  s->kappa = kappa, s->out = a;
  s->load = (uint64_t *)calloc((size_t)kappa, sizeof(uint64_t));
  s->pieces = (uint64_t *)calloc((size_t)kappa, sizeof(uint64_t));
  s->take = (uint64_t *)calloc((size_t)kappa, sizeof(uint64_t));
  s->heap.load = (uint64_t *)malloc(sizeof(uint64_t) * (size_t)kappa);
  s->heap.id = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)kappa);
  s->heap.n = kappa;
  a->part_piece = (uint32_t *)calloc((size_t)kappa + 1, sizeof(uint32_t));
  a->part_first = (uint32_t *)calloc((size_t)kappa + 1, sizeof(uint32_t));
  if (!s->load || !s->pieces || !s->take || !s->heap.load || !s->heap.id || !a->part_piece ||
      !a->part_first)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate the placement of %d partitions",
                    kappa);
  return TP_SUCCESS;
}

static void tpa_free(tpa_state *s) {
  free(s->load), free(s->pieces), free(s->take), free(s->heap.load), free(s->heap.id);
}

/* part_piece and part_first (prefix sums of the partitions' pieces and loads). */
static void tpa_finish(const tpa_state *s, flycoo_assignment *a) {
  uint64_t most = 0;
  for (int p = 0; p < s->kappa; ++p) {
    a->part_piece[p + 1] = a->part_piece[p] + (uint32_t)s->pieces[p];
    a->part_first[p + 1] = a->part_first[p] + (uint32_t)s->load[p];
    most = s->load[p] > most ? s->load[p] : most;
  }
  a->max_partition = (int64_t)most;
}

tp_status flycoo_assign_runs(const uint32_t *run_size, const int64_t *run_count, int64_t runs,
                             int kappa, int64_t bulk_from, flycoo_assignment *a) {
  TP_CHECK_ARG(kappa >= 1, "kappa %d must be positive", kappa);
  tpa_state s;
  tp_status st = tpa_alloc(&s, kappa, a);
  for (int64_t k = 0; k < runs && st == TP_SUCCESS; ++k) {
    if (run_count[k] == 0)
      continue;
    st = tpa_by_threshold(&s, run_count[k], bulk_from)
             ? tpa_run_by_threshold(&s, run_size[k], run_count[k])
             : tpa_run_by_heap(&s, run_size[k], run_count[k]);
  }
  if (st == TP_SUCCESS)
    tpa_finish(&s, a);
  tpa_free(&s);
  if (st != TP_SUCCESS)
    flycoo_assignment_free(a);
  return st;
}

void flycoo_assignment_free(flycoo_assignment *a) {
  free(a->shares), free(a->part_piece), free(a->part_first);
  memset(a, 0, sizeof *a);
}
