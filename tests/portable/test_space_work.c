/* Small problems run inline: a host launch takes one thread per TP_HOST_WORK_PER_THREAD
 * operations of the work at hand at most (tp_space_set_work), so that a tiny tensor is
 * not spread over threads that cost more to wake than its work, however many threads
 * the space was given (-t 4096). CP-ALS sets the work from its tensor and puts the
 * previous value back. GPU spaces take no thread count. */
#include "tests/common/tpt.h"
#include "tenport/cp_als.h"
#include "portable/tp_space_common.h"

TestSuite(space_work, .init = tpt_setup, .fini = tpt_teardown);

static tp_space *space_with_threads(int threads) {
  tp_space_options o = tp_space_options_default();
  o.threads = threads;
  tp_space *s = NULL;
  TPT_OK(tp_space_create(&s, &o));
  return s;
}

static int is_gpu(tp_space *s) {
  tp_space_info info;
  TPT_OK(tp_space_get_info(s, &info));
  return info.is_gpu;
}

Test(space_work, a_launch_takes_threads_by_the_work_at_hand) {
  tp_space *s = space_with_threads(8);
  if (is_gpu(s)) {
    cr_assert_eq(tp_space_launch_threads(s), 0);
    TPT_OK(tp_space_destroy(&s));
    return;
  }
  const int all = tp_space_launch_threads(s); /* 8, or 1 on the serial backend */
  cr_assert(all == 8 || all == 1, "%d threads with unknown work", all);
  const int64_t per = TP_HOST_WORK_PER_THREAD;
  const int64_t work[4] = {210, per - 1, 3 * per, 1000 * per};
  const int want[4] = {1, 1, all < 4 ? all : 4, all};
  for (int i = 0; i < 4; ++i) {
    int64_t before = tp_space_set_work(s, work[i]);
    cr_assert_eq(before, i == 0 ? 0 : work[i - 1]);
    cr_assert_eq(tp_space_launch_threads(s), want[i], "work %lld: %d threads, expected %d",
                 (long long)work[i], tp_space_launch_threads(s), want[i]);
  }
  tp_space_set_work(s, 0);
  cr_assert_eq(tp_space_launch_threads(s), all);
  TPT_OK(tp_space_destroy(&s));
}

typedef struct seen {
  tp_space *space;
  int max_threads, calls;
} seen;

static void record_threads(const tp_cp_als_progress *p, void *user) {
  (void)p;
  seen *w = (seen *)user;
  int t = tp_space_launch_threads(w->space);
  w->max_threads = t > w->max_threads ? t : w->max_threads;
  w->calls++;
}

/* A 5x6x7 tensor at rank 2 on a space of TP_MAX_THREADS threads: every iteration's
 * launches take one thread; the space's own count is back afterwards. */
Test(space_work, cp_als_of_a_tiny_tensor_runs_on_one_thread) {
  tp_space *s = space_with_threads(TP_MAX_THREADS);
  const int64_t dims[3] = {5, 6, 7};
  tp_dense host, dev;
  TPT_OK(tp_dense_alloc(NULL, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, &host));
  TPT_OK(tp_dense_random_planted(&host, 2, 0.1, 3, NULL));
  TPT_OK(tp_dense_alloc(s, TP_DTYPE_F64, 3, dims, TP_LAYOUT_LEFT, &dev));
  TPT_OK(tp_dense_copy_to_device(s, &dev, &host));
  tp_kruskal m;
  TPT_OK(tp_kruskal_alloc(s, TP_DTYPE_F64, 3, dims, 2, &m));
  seen w = {s, 0, 0};
  tp_cp_als_options o = tp_cp_als_options_default();
  o.rank = 2, o.max_iters = 3, o.tol = 0, o.progress = record_threads, o.progress_user = &w;
  const int all = tp_space_launch_threads(s);
  TPT_OK(tp_cp_als(s, &dev, &o, &m, NULL));
  cr_assert_eq(w.calls, 3);
  cr_assert_eq(w.max_threads, is_gpu(s) ? 0 : 1, "%d threads in the iterations", w.max_threads);
  cr_assert_eq(tp_space_launch_threads(s), all, "the space's thread count is not back");
  tp_kruskal_free(s, &m);
  tp_dense_free(s, &dev);
  tp_dense_free(NULL, &host);
  TPT_OK(tp_space_destroy(&s));
}
