/* Spaces and their memory: creation, info, copies, fills, limits and error paths. */
#include <math.h>
#include <string.h>

#include "tpt.h"

TestSuite(space, .init = tpt_setup, .fini = tpt_teardown);

Test(space, reports_backend_and_device) {
  tp_space_info info;
  TPT_OK(tp_space_get_info(tpt_space, &info));
  cr_assert_str_eq(info.backend, tp_backend_name());
  cr_assert_gt(info.compute_units, 0);
  cr_assert_gt(info.max_team_threads, 0);
  cr_assert_gt(strlen(info.device_name), 0);
  int count = 0;
  TPT_OK(tp_device_count(&count));
  cr_assert_geq(count, 1);
}

Test(space, rejects_missing_device) {
  tp_space *other = NULL;
  tp_space_options opts = tp_space_options_default();
  opts.device = 4096;
  TPT_FAILS_WITH(tp_space_create(&other, &opts), TP_ERROR_INVALID_ARGUMENT);
  cr_assert_null(other);
  cr_assert(strstr(tp_last_error(), "device 4096") != NULL, "message: %s", tp_last_error());
}

Test(space, destroy_sets_handle_to_null) {
  tp_space *s = NULL;
  TPT_OK(tp_space_create(&s, NULL));
  TPT_OK(tp_space_destroy(&s));
  cr_assert_null(s);
  TPT_OK(tp_space_destroy(&s)); /* destroying NULL is harmless */
}

Test(space, round_trips_bytes_of_awkward_sizes) {
  tpt_rng rng = tpt_rng_fresh();
  for (int c = 0; c < tpt_sizes_count; ++c) {
    size_t n = (size_t)tpt_sizes[c];
    unsigned char *host = tpt_host_alloc(n), *back = tpt_host_alloc(n);
    for (size_t i = 0; i < n; ++i)
      host[i] = (unsigned char)tpt_next_u64(&rng);
    void *a = n ? tpt_to_space(host, n) : NULL;
    void *b = n ? tpt_alloc_poisoned(n) : NULL;
    TPT_OK(tp_copy_on_device(tpt_space, b, a, n));
    memset(back, 0, n);
    tpt_to_host(back, b, n);
    cr_assert(n == 0 || memcmp(host, back, n) == 0, "copy of %zu bytes differs", n);
    tpt_free(a);
    tpt_free(b);
    free(host);
    free(back);
  }
}

Test(space, zero_byte_allocation_is_null) {
  void *p = (void *)1;
  TPT_OK(tp_alloc(tpt_space, 0, &p));
  cr_assert_null(p);
  TPT_OK(tp_free(tpt_space, NULL));
}

Test(space, memset_and_typed_fills_write_every_element) {
  for (int c = 0; c < tpt_sizes_count; ++c) {
    int64_t n = tpt_sizes[c];
    double *d = tpt_alloc_poisoned(sizeof(double) * (size_t)(n + 1));
    float *f = tpt_alloc_poisoned(sizeof(float) * (size_t)(n + 1));
    int32_t *i32 = tpt_alloc_poisoned(sizeof(int32_t) * (size_t)(n + 1));
    int64_t *i64 = tpt_alloc_poisoned(sizeof(int64_t) * (size_t)(n + 1));
    TPT_OK(tp_fill_f64(tpt_space, d, n, 2.5));
    TPT_OK(tp_fill_f32(tpt_space, f, n, -1.25f));
    TPT_OK(tp_fill_i32(tpt_space, i32, n, 7));
    TPT_OK(tp_fill_i64(tpt_space, i64, n, -((int64_t)1 << 40)));
    double *hd = tpt_host_alloc(sizeof(double) * (size_t)(n + 1));
    float *hf = tpt_host_alloc(sizeof(float) * (size_t)(n + 1));
    int32_t *hi = tpt_host_alloc(sizeof(int32_t) * (size_t)(n + 1));
    int64_t *hl = tpt_host_alloc(sizeof(int64_t) * (size_t)(n + 1));
    tpt_to_host(hd, d, sizeof(double) * (size_t)(n + 1));
    tpt_to_host(hf, f, sizeof(float) * (size_t)(n + 1));
    tpt_to_host(hi, i32, sizeof(int32_t) * (size_t)(n + 1));
    tpt_to_host(hl, i64, sizeof(int64_t) * (size_t)(n + 1));
    for (int64_t i = 0; i < n; ++i) {
      cr_assert_eq(hd[i], 2.5, "f64 fill, n=%lld, i=%lld", (long long)n, (long long)i);
      cr_assert_eq(hf[i], -1.25f, "f32 fill, n=%lld, i=%lld", (long long)n, (long long)i);
      cr_assert_eq(hi[i], 7, "i32 fill, n=%lld, i=%lld", (long long)n, (long long)i);
      cr_assert_eq(hl[i], -((int64_t)1 << 40), "i64 fill, n=%lld", (long long)n);
    }
    /* the element past the end keeps its poison */
    cr_assert(isnan(hd[n]) && isnan(hf[n]) && hi[n] == -1 && hl[n] == -1,
              "fill of %lld elements wrote past the end", (long long)n);
    tpt_free(d), tpt_free(f), tpt_free(i32), tpt_free(i64);
    free(hd), free(hf), free(hi), free(hl);
  }
}

Test(space, huge_allocation_fails_cleanly) {
  void *p = (void *)1;
  TPT_FAILS_WITH(tp_alloc(tpt_space, (size_t)1 << 62, &p), TP_ERROR_OUT_OF_MEMORY);
  cr_assert_null(p);
  cr_assert_eq(tp_space_bytes_in_use(tpt_space), 0);
  /* the space still works afterwards */
  void *q = tpt_alloc_poisoned(1024);
  tpt_free(q);
}

Test(space, memory_limit_is_enforced_and_accounted) {
  TPT_OK(tp_space_set_memory_limit(tpt_space, 1 << 20));
  void *a = NULL, *b = NULL;
  TPT_OK(tp_alloc(tpt_space, 600 << 10, &a));
  cr_assert_geq(tp_space_bytes_in_use(tpt_space), (size_t)600 << 10);
  TPT_FAILS_WITH(tp_alloc(tpt_space, 600 << 10, &b), TP_ERROR_OUT_OF_MEMORY);
  cr_assert(strstr(tp_last_error(), "memory limit") != NULL, "message: %s", tp_last_error());
  cr_assert_null(b);
  TPT_OK(tp_free(tpt_space, a));
  TPT_OK(tp_alloc(tpt_space, 600 << 10, &b));
  TPT_OK(tp_free(tpt_space, b));
  cr_assert_eq(tp_space_bytes_in_use(tpt_space), 0);
}

Test(space, free_of_foreign_pointer_is_rejected) {
  int local = 0;
  TPT_FAILS_WITH(tp_free(tpt_space, &local), TP_ERROR_INVALID_ARGUMENT);
}

Test(space, destroy_reports_leaked_allocations) {
  tp_space *s = NULL;
  void *p = NULL;
  TPT_OK(tp_space_create(&s, NULL));
  TPT_OK(tp_alloc(s, 4096, &p));
  TPT_FAILS_WITH(tp_space_destroy(&s), TP_ERROR_INVALID_ARGUMENT);
  cr_assert_null(s);
  cr_assert(strstr(tp_last_error(), "1 allocation(s)") != NULL, "message: %s", tp_last_error());
}

Test(space, null_arguments_are_rejected) {
  TPT_FAILS_WITH(tp_space_create(NULL, NULL), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_alloc(tpt_space, 8, NULL), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_copy_to_host(tpt_space, NULL, NULL, 8), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_fill_f64(tpt_space, NULL, 3, 1.0), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_fill_f64(tpt_space, NULL, -1, 1.0), TP_ERROR_INVALID_ARGUMENT);
}

Test(space, timer_measures_nonnegative_time) {
  tp_timer *t = NULL;
  TPT_OK(tp_timer_create(tpt_space, &t));
  double *d = tpt_alloc_poisoned(1 << 20);
  TPT_OK(tp_timer_start(t));
  TPT_OK(tp_fill_f64(tpt_space, d, (1 << 20) / 8, 1.0));
  double ms = -1;
  TPT_OK(tp_timer_stop(t, &ms));
  cr_assert_geq(ms, 0.0);
  TPT_OK(tp_timer_destroy(&t));
  cr_assert_null(t);
  tpt_free(d);
}

Test(status, names_and_messages) {
  cr_assert_str_eq(tp_status_name(TP_SUCCESS), "TP_SUCCESS");
  cr_assert_str_eq(tp_status_name(TP_ERROR_CAPACITY), "TP_ERROR_CAPACITY");
  tp_clear_error();
  cr_assert_str_eq(tp_last_error(), "");
  tp_space *s = NULL;
  tp_space_options opts = tp_space_options_default();
  opts.device = -1;
  cr_assert_neq(tp_space_create(&s, &opts), TP_SUCCESS);
  cr_assert(strstr(tp_last_error(), "tp_space_create") != NULL, "message names the function: %s",
            tp_last_error());
  cr_assert(strstr(tp_last_error(), "TP_ERROR_INVALID_ARGUMENT") != NULL, "message: %s",
            tp_last_error());
}

/* Lanes: work sent to every lane is finished and visible after lanes_end, in the order
 * each lane received it; host spaces give one lane. */
Test(space, lanes_order_and_join) {
  tp_space_info info;
  TPT_OK(tp_space_get_info(tpt_space, &info));
  int got = 0;
  TPT_OK(tp_space_lanes_begin(tpt_space, 3, &got));
  cr_assert_eq(got, info.is_gpu ? 3 : 1);
  const int64_t n = 1 << 20;
  double *buf[3];
  for (int l = 0; l < got; ++l) {
    TPT_OK(tp_space_lane_select(tpt_space, l)); /* the poison too: lanes are unordered */
    buf[l] = tpt_alloc_poisoned(sizeof(double) * (size_t)n);
    TPT_OK(tp_fill_f64(tpt_space, buf[l], n, 1.0 + l));
    TPT_OK(tp_fill_f64(tpt_space, buf[l], n, 10.0 + l)); /* later work on the lane wins */
  }
  TPT_FAILS_WITH(tp_space_lane_select(tpt_space, got), TP_ERROR_INVALID_ARGUMENT);
  TPT_OK(tp_space_lanes_end(tpt_space));
  double *host = tpt_host_alloc(sizeof(double) * (size_t)n);
  for (int l = 0; l < got; ++l) {
    tpt_to_host(host, buf[l], sizeof(double) * (size_t)n);
    for (int64_t i = 0; i < n; i += 4099)
      cr_assert_eq(host[i], 10.0 + l, "lane %d, element %lld", l, (long long)i);
    tpt_free(buf[l]);
  }
  free(host);
  TPT_FAILS_WITH(tp_space_lanes_begin(tpt_space, 0, &got), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_space_lanes_begin(tpt_space, TP_SPACE_MAX_LANES + 1, &got),
                 TP_ERROR_INVALID_ARGUMENT);
}

/* Recorded work: nothing runs while recording; each replay runs the whole sequence, in
 * order. Host spaces say they cannot record and refuse to begin. */
Test(space, recordings_replay_their_launches) {
  const int64_t n = 1000;
  double *x = (double *)tpt_alloc_poisoned((size_t)n * sizeof(double));
  double *host = (double *)tpt_host_alloc((size_t)n * sizeof(double));
  TPT_OK(tp_fill_f64(tpt_space, x, n, 1.0));
  if (!tp_space_can_record(tpt_space)) {
    TPT_FAILS_WITH(tp_space_record_begin(tpt_space), TP_ERROR_NOT_SUPPORTED);
    tpt_free(x), free(host);
    return;
  }
  tp_recording *rec = NULL;
  TPT_OK(tp_space_record_begin(tpt_space));
  TPT_OK(tp_fill_f64(tpt_space, x, n, 2.0));
  TPT_OK(tp_fill_f64(tpt_space, x + n / 2, n - n / 2, 3.0));
  TPT_OK(tp_space_record_end(tpt_space, &rec));
  cr_assert_not_null(rec);
  tpt_to_host(host, x, (size_t)n * sizeof(double));
  for (int64_t i = 0; i < n; ++i)
    cr_assert_eq(host[i], 1.0, "recording ran element %lld", (long long)i);
  for (int rep = 0; rep < 2; ++rep) {
    TPT_OK(tp_fill_f64(tpt_space, x, n, -1.0));
    TPT_OK(tp_space_replay(tpt_space, rec));
    tpt_to_host(host, x, (size_t)n * sizeof(double));
    for (int64_t i = 0; i < n; ++i)
      cr_assert_eq(host[i], i < n / 2 ? 2.0 : 3.0);
  }
  TPT_OK(tp_recording_destroy(&rec));
  cr_assert_null(rec);
  tpt_free(x), free(host);
}
