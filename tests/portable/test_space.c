/* Spaces and their memory: creation, info, copies, fills, limits and error paths. */
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "portable/tp_host_memory.h"
#include "portable/tp_space_common.h"
#include "tests/common/tpt.h"

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

/* The loaded library's version is the headers': "MAJOR.MINOR.PATCH" of TP_VERSION_*. */
Test(space, version_matches_the_headers) {
  char want[64];
  snprintf(want, sizeof want, "%d.%d.%d", TP_VERSION_MAJOR, TP_VERSION_MINOR, TP_VERSION_PATCH);
  cr_assert_str_eq(tp_version(), want);
  cr_assert_eq(TENPORT_VERSION_MINOR, TP_VERSION_MINOR, "the 0.1 spellings are kept");
}

/* A temporary released by one lane's work goes again only to later work on that lane
 * (lanes are concurrent streams), and to any work once the lanes are joined. */
Test(space, temporaries_stay_on_their_lane_until_the_lanes_join) {
  int got = 0;
  void *a = NULL, *b = NULL;
  TPT_OK(tp_space_lanes_begin(tpt_space, 2, &got));
  TPT_OK(tp_temp_alloc(tpt_space, 4096, &a));
  tp_temp_release(tpt_space, a);
  if (got == 2) { /* GPU spaces; host spaces have one lane */
    TPT_OK(tp_space_lane_select(tpt_space, 1));
    TPT_OK(tp_temp_alloc(tpt_space, 4096, &b));
    cr_assert_neq(a, b, "lane 1 was given lane 0's temporary while lane 0 may still use it");
    tp_temp_release(tpt_space, b);
    TPT_OK(tp_space_lane_select(tpt_space, 0));
  }
  void *again = NULL;
  TPT_OK(tp_temp_alloc(tpt_space, 4096, &again));
  cr_assert_eq(again, a, "the same lane reuses its own temporary");
  tp_temp_release(tpt_space, again);
  TPT_OK(tp_space_lanes_end(tpt_space));
  if (got == 2) { /* joined: lane 1's block may serve the space's stream */
    void *first = NULL, *second = NULL;
    TPT_OK(tp_temp_alloc(tpt_space, 4096, &first));
    TPT_OK(tp_temp_alloc(tpt_space, 4096, &second));
    cr_assert((first == a && second == b) || (first == b && second == a),
              "both blocks are reused after the join");
    tp_temp_release(tpt_space, first), tp_temp_release(tpt_space, second);
  }
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

/* lane_after: a lane's later work starts after what another lane had been given (here
 * a copy on lane 0 reads what lane 1 wrote last, after a long run of fills: without the
 * ordering the copy starts while they run); host spaces accept lane 0 only. */
Test(space, lane_after_orders_two_lanes) {
  const int64_t n = 1 << 23;
  double *from = tpt_alloc_poisoned(sizeof(double) * (size_t)n); /* before the lanes open */
  double *to = tpt_alloc_poisoned(sizeof(double) * (size_t)n);
  int got = 0;
  TPT_OK(tp_space_lanes_begin(tpt_space, 2, &got));
  const int last = got - 1;
  TPT_OK(tp_space_lane_select(tpt_space, last));
  for (int k = 0; k < 24; ++k)
    TPT_OK(tp_fill_f64(tpt_space, from, n, 1.0));
  TPT_OK(tp_fill_f64(tpt_space, from, n, 2.0));
  TPT_OK(tp_space_lane_select(tpt_space, 0));
  TPT_OK(tp_space_lane_after(tpt_space, last));
  TPT_OK(tp_copy_on_device(tpt_space, to, from, sizeof(double) * (size_t)n));
  TPT_FAILS_WITH(tp_space_lane_after(tpt_space, got), TP_ERROR_INVALID_ARGUMENT);
  TPT_OK(tp_space_lanes_end(tpt_space));
  double *host = tpt_host_alloc(sizeof(double) * (size_t)n);
  tpt_to_host(host, to, sizeof(double) * (size_t)n);
  for (int64_t i = 0; i < n; i += 1021)
    cr_assert_eq(host[i], 2.0, "element %lld", (long long)i);
  free(host);
  tpt_free(from);
  tpt_free(to);
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

/* ---- the allocation registry guards copies, fills and frees ---------------------------- */

static void assert_error_has(const char *needle) {
  cr_assert(strstr(tp_last_error(), needle) != NULL, "message \"%s\" lacks \"%s\"", tp_last_error(),
            needle);
}

/* A copy or fill that starts inside a block of the space must end inside it; the message
 * names both sizes. Pointers the space did not allocate are the caller's and not checked. */
Test(space, copies_and_fills_stay_inside_their_block) {
  char *p = NULL;
  TPT_OK(tp_alloc(tpt_space, 1000, (void **)&p));
  char *host = tpt_host_alloc(1 << 16);
  memset(host, 7, 1 << 16);
  TPT_FAILS_WITH(tp_copy_to_device(tpt_space, p, host, 4000), TP_ERROR_INVALID_ARGUMENT);
  assert_error_has("4000 bytes");
  assert_error_has("1000 bytes");
  TPT_FAILS_WITH(tp_copy_to_device(tpt_space, p + 500, host, 501), TP_ERROR_INVALID_ARGUMENT);
  assert_error_has("500 bytes");
  TPT_FAILS_WITH(tp_copy_to_host(tpt_space, host, p + 999, 2), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_copy_on_device(tpt_space, p, p + 10, 991), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_memset(tpt_space, p + 1, 0, 1000), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_fill_f64(tpt_space, (double *)p, 126, 1.0), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_fill_i32(tpt_space, (int32_t *)(p + 8), 249, 1), TP_ERROR_INVALID_ARGUMENT);
  /* exactly to the end is fine, and the data arrives */
  TPT_OK(tp_copy_to_device(tpt_space, p + 500, host, 500));
  TPT_OK(tp_copy_on_device(tpt_space, p, p + 500, 500));
  TPT_OK(tp_fill_f64(tpt_space, (double *)p, 125, 1.0));
  TPT_OK(tp_memset(tpt_space, p + 999, 3, 1));
  TPT_OK(tp_copy_to_host(tpt_space, host, p + 992, 8));
  /* the last double of the block: 1.0 (bytes 00 .. 00 f0 3f) with its last byte set to 3 */
  cr_assert(host[7] == 3 && (unsigned char)host[6] == 0xf0 && host[0] == 0,
            "the checked copies move the data");
  TPT_OK(tp_free(tpt_space, p));
  free(host);
}

Test(space, caller_memory_is_not_checked) {
  size_t n = 1 << 16;
  char *a = tpt_host_alloc(n), *b = tpt_host_alloc(n);
  memset(a, 1, n);
  tp_space_info info;
  TPT_OK(tp_space_get_info(tpt_space, &info));
  if (!info.is_gpu) { /* host spaces: host memory is space memory too */
    TPT_OK(tp_copy_on_device(tpt_space, b, a, n));
    TPT_OK(tp_memset(tpt_space, a, 0, n));
    TPT_OK(tp_fill_f64(tpt_space, (double *)b, (int64_t)(n / 8), 2.0));
  }
  char *p = NULL;
  TPT_OK(tp_alloc(tpt_space, n, (void **)&p));
  TPT_OK(tp_copy_to_device(tpt_space, p, b, n));
  TPT_OK(tp_copy_to_host(tpt_space, a, p, n));
  TPT_OK(tp_free(tpt_space, p));
  free(a), free(b);
}

/* Copies and frees of a block the space freed are errors that say so (while the space
 * still remembers the block). */
Test(space, freed_blocks_are_reported_as_freed) {
  double *p = NULL;
  TPT_OK(tp_alloc(tpt_space, 800, (void **)&p));
  double host[100] = {0};
  TPT_OK(tp_free(tpt_space, p));
  TPT_FAILS_WITH(tp_free(tpt_space, p), TP_ERROR_INVALID_ARGUMENT);
  assert_error_has("freed");
  TPT_FAILS_WITH(tp_copy_to_device(tpt_space, p, host, 800), TP_ERROR_INVALID_ARGUMENT);
  assert_error_has("freed");
  TPT_FAILS_WITH(tp_copy_to_host(tpt_space, host, p + 10, 80), TP_ERROR_INVALID_ARGUMENT);
  assert_error_has("freed");
  TPT_FAILS_WITH(tp_fill_f64(tpt_space, p, 100, 1.0), TP_ERROR_INVALID_ARGUMENT);
  assert_error_has("freed");
  cr_assert_eq(tp_space_bytes_in_use(tpt_space), 0, "a freed block is not counted");
}

/* A block of one space freed with another is refused, and stays usable. */
Test(space, free_with_another_space_is_refused) {
  tp_space *other = NULL;
  TPT_OK(tp_space_create(&other, NULL));
  void *p = NULL;
  TPT_OK(tp_alloc(other, 4096, &p));
  TPT_FAILS_WITH(tp_free(tpt_space, p), TP_ERROR_INVALID_ARGUMENT);
  assert_error_has("another space");
  TPT_OK(tp_memset(other, p, 1, 4096));
  TPT_OK(tp_free(other, p));
  TPT_OK(tp_space_destroy(&other));
}

/* Thousands of live blocks: every interior pointer finds its block. */
Test(space, registry_of_thousands_of_blocks) {
  enum { N = 3000 };
  char **p = (char **)tpt_host_alloc(sizeof(char *) * N);
  size_t *size = (size_t *)tpt_host_alloc(sizeof(size_t) * N);
  tpt_rng rng = tpt_rng_fresh();
  for (int i = 0; i < N; ++i) {
    size[i] = (size_t)tpt_int(&rng, 1, 5000);
    TPT_OK(tp_alloc(tpt_space, size[i], (void **)&p[i]));
  }
  for (int i = 0; i < N; i += 2)
    TPT_OK(tp_free(tpt_space, p[i]));
  for (int i = 1; i < N; i += 2) {
    size_t at = (size_t)tpt_int(&rng, 0, (int64_t)size[i] - 1);
    TPT_OK(tp_memset(tpt_space, p[i] + at, 0, size[i] - at));
    TPT_FAILS_WITH(tp_memset(tpt_space, p[i] + at, 0, size[i] - at + 1), TP_ERROR_INVALID_ARGUMENT);
  }
  for (int i = 1; i < N; i += 2)
    TPT_OK(tp_free(tpt_space, p[i]));
  cr_assert_eq(tp_space_bytes_in_use(tpt_space), 0);
  free(p), free(size);
}

/* ---- the host memory check ------------------------------------------------------------- */

static const char meminfo_fixture[] = "MemTotal:       24684096 kB\n"
                                      "MemFree:        20000000 kB\n"
                                      "MemAvailable:    3000000 kB\n"
                                      "Buffers:          100000 kB\n"
                                      "SwapTotal:       2000000 kB\n"
                                      "SwapFree:        1000000 kB\n";

Test(host_memory, meminfo_gives_available_plus_free_swap) {
  size_t avail = 0;
  cr_assert(tp_meminfo_parse(meminfo_fixture, &avail));
  cr_assert_eq(avail, (size_t)4000000 * 1024);
  cr_assert(tp_meminfo_parse("MemTotal: 10 kB\nMemAvailable: 7 kB\n", &avail));
  cr_assert_eq(avail, 7 * 1024, "no SwapFree line: no swap");
  cr_assert_not(tp_meminfo_parse("MemTotal: 10 kB\nMemFree: 7 kB\n", &avail));
  cr_assert_not(tp_meminfo_parse("MemAvailable: lots\n", &avail));
  cr_assert_not(tp_meminfo_parse("", &avail));
}

Test(host_memory, proc_self_cgroup_names_the_memory_cgroup) {
  char path[256];
  const char *v2 = "0::/user.slice/user-1000.slice/session-2.scope\n";
  cr_assert(tp_cgroup_path_parse(v2, 0, path, sizeof path));
  cr_assert_str_eq(path, "/user.slice/user-1000.slice/session-2.scope");
  cr_assert_not(tp_cgroup_path_parse(v2, 1, path, sizeof path), "no v1 memory line");
  const char *hybrid = "9:name=systemd:/\n8:pids:/\n4:cpu,memory,blkio:/batch/job7\n"
                       "3:cpuset:/\n0::/\n";
  cr_assert(tp_cgroup_path_parse(hybrid, 1, path, sizeof path));
  cr_assert_str_eq(path, "/batch/job7");
  cr_assert(tp_cgroup_path_parse(hybrid, 0, path, sizeof path));
  cr_assert_str_eq(path, "/");
  cr_assert_not(tp_cgroup_path_parse("4:memoryless:/x\n", 1, path, sizeof path));
  cr_assert_not(tp_cgroup_path_parse("garbage", 0, path, sizeof path));
  cr_assert_not(tp_cgroup_path_parse(v2, 0, path, 8), "a path longer than the buffer");
}

Test(host_memory, cgroup_limits_usage_and_file_cache) {
  size_t v = 0;
  cr_assert(tp_cgroup_value_parse("max\n", &v));
  cr_assert_eq(v, SIZE_MAX);
  cr_assert(tp_cgroup_value_parse("9223372036854771712\n", &v), "v1 unlimited");
  cr_assert_eq(v, SIZE_MAX);
  cr_assert(tp_cgroup_value_parse("3221225472\n", &v));
  cr_assert_eq(v, (size_t)3 << 30);
  cr_assert_not(tp_cgroup_value_parse("", &v));
  cr_assert_not(tp_cgroup_value_parse("-1\n", &v));
  const char *stat = "anon 100\nfile 5000\nactive_file 3000\ninactive_file 2000\n"
                     "total_inactive_file 7\n";
  cr_assert(tp_cgroup_stat_parse(stat, "inactive_file", &v));
  cr_assert_eq(v, 2000, "the key itself, not total_inactive_file");
  cr_assert(tp_cgroup_stat_parse(stat, "active_file", &v));
  cr_assert_eq(v, 3000);
  cr_assert(tp_cgroup_stat_parse(stat, "total_inactive_file", &v));
  cr_assert_eq(v, 7);
  cr_assert_not(tp_cgroup_stat_parse(stat, "file_mapped", &v));
  /* 3 GiB limit, 2.5 GiB charged of which 1 GiB is file cache: 1.5 GiB of room */
  cr_assert_eq(tp_cgroup_room((size_t)3 << 30, (size_t)5 << 29, (size_t)1 << 30), (size_t)3 << 29);
  cr_assert_eq(tp_cgroup_room(SIZE_MAX, 100, 0), SIZE_MAX);
  cr_assert_eq(tp_cgroup_room(100, 200, 0), 0, "over the limit: no room");
  cr_assert_eq(tp_cgroup_room(100, 50, 80), 100, "cache beyond usage");
}

Test(host_memory, byte_sizes_and_their_text) {
  size_t v = 0;
  cr_assert(tp_byte_size_parse("3G", &v) && v == (size_t)3 << 30);
  cr_assert(tp_byte_size_parse("512M", &v) && v == (size_t)512 << 20);
  cr_assert(tp_byte_size_parse("64k", &v) && v == 64 << 10);
  cr_assert(tp_byte_size_parse("2GiB", &v) && v == (size_t)2 << 30);
  cr_assert(tp_byte_size_parse("1TB", &v) && v == (size_t)1 << 40);
  cr_assert(tp_byte_size_parse("1000", &v) && v == 1000);
  cr_assert(tp_byte_size_parse("1000B", &v) && v == 1000);
  cr_assert_not(tp_byte_size_parse("3X", &v));
  cr_assert_not(tp_byte_size_parse("G", &v));
  cr_assert_not(tp_byte_size_parse("-3G", &v));
  cr_assert_not(tp_byte_size_parse("3G extra", &v));
  cr_assert_not(tp_byte_size_parse("99999999999999999999", &v));
  cr_assert_not(tp_byte_size_parse("20000000000T", &v), "overflow");
  char text[32];
  tp_bytes_format(8000000000, text, sizeof text);
  cr_assert_str_eq(text, "8.0 GB");
  tp_bytes_format((size_t)512 << 20, text, sizeof text);
  cr_assert_str_eq(text, "536.9 MB");
  tp_bytes_format(999, text, sizeof text);
  cr_assert_str_eq(text, "999 B");
  tp_bytes_format(999999, text, sizeof text);
  cr_assert_str_eq(text, "1.0 MB");
}

/* The check reads the machine: whatever it finds is a positive amount, and the cap of
 * TENPORT_HOST_MEMORY_LIMIT bounds it. Nothing of the sizes asked for is allocated. */
Test(host_memory, the_environment_caps_what_is_available) {
  tp_host_memory m;
  unsetenv("TENPORT_HOST_MEMORY_LIMIT");
  TPT_OK(tp_host_memory_query(&m));
  cr_assert_gt(m.available, 0);
  cr_log_info("host memory available: %zu bytes (%s)", m.available, m.bound);
  setenv("TENPORT_HOST_MEMORY_LIMIT", "100M", 1);
  TPT_OK(tp_host_memory_query(&m));
  cr_assert_leq(m.available, (size_t)100 << 20);
  TPT_OK(tp_host_memory_check((size_t)99 << 20, "test block"));
  TPT_OK(tp_host_memory_check((size_t)1 << 20, "small block")); /* 1 MiB: not checked */
  TPT_FAILS_WITH(tp_host_memory_check((size_t)200 << 20, "test block"), TP_ERROR_OUT_OF_MEMORY);
  cr_assert(strstr(tp_last_error(), "a 209.7 MB test block does not fit: 104.9 MB of memory is "
                                    "available (TENPORT_HOST_MEMORY_LIMIT=100M)"),
            "%s", tp_last_error());
  setenv("TENPORT_HOST_MEMORY_LIMIT", "lots", 1);
  TPT_FAILS_WITH(tp_host_memory_check((size_t)200 << 20, "test block"), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(strstr(tp_last_error(), "TENPORT_HOST_MEMORY_LIMIT=lots is not a byte size"), "%s",
            tp_last_error());
}

/* Spaces check their large blocks too: host memory on the CPU, free memory on a GPU. */
Test(space, blocks_beyond_the_memory_available_fail_with_sizes) {
  setenv("TENPORT_HOST_MEMORY_LIMIT", "100M", 1);
  tp_space_info info;
  TPT_OK(tp_space_get_info(tpt_space, &info));
  size_t bytes = info.is_gpu ? info.memory_bytes + ((size_t)1 << 30) : (size_t)200 << 20;
  void *p = (void *)1;
  TPT_FAILS_WITH(tp_alloc(tpt_space, bytes, &p), TP_ERROR_OUT_OF_MEMORY);
  cr_assert_null(p);
  cr_assert(strstr(tp_last_error(), "block does not fit"), "%s", tp_last_error());
  cr_assert(strstr(tp_last_error(), info.is_gpu ? "free on device" : "TENPORT_HOST_MEMORY_LIMIT"),
            "%s", tp_last_error());
  cr_assert_eq(tp_space_bytes_in_use(tpt_space), 0);
}

/* ---- the whole query on fixture trees of /proc and /sys/fs/cgroup ----------------------- */

/* Writes text to root/rel, making the folders on the way. */
static void put_file(const char *root, const char *rel, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  for (char *slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
    *slash = '\0';
    cr_assert(mkdir(path, 0700) == 0 || errno == EEXIST, "mkdir %s: %s", path, strerror(errno));
    *slash = '/';
  }
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f, "fopen %s: %s", path, strerror(errno));
  fputs(text, f);
  fclose(f);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

/* Fixture trees of the running test, removed by its fini. */
static char fixture_roots[2][64];
static int fixture_count;

static void remove_fixtures(void) {
  for (int i = 0; i < fixture_count; ++i)
    nftw(fixture_roots[i], remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static char *empty_root(void) {
  char *root = fixture_roots[fixture_count++];
  strcpy(root, "/tmp/tenport-memory-XXXXXX");
  cr_assert_not_null(mkdtemp(root));
  return root;
}

static char *fixture_root(void) {
  char *root = empty_root();
  put_file(root, "proc/meminfo", "MemTotal: 40000000 kB\nMemAvailable: 20000000 kB\n");
  return root;
}

/* v2: the limit of a parent cgroup bounds the process's own (which has none). */
Test(host_memory, cgroup_v2_levels_up_to_the_root, .fini = remove_fixtures) {
  unsetenv("TENPORT_HOST_MEMORY_LIMIT");
  char *root = fixture_root();
  put_file(root, "proc/self/cgroup", "0::/jobs/job7\n");
  put_file(root, "sys/fs/cgroup/jobs/memory.max", "4294967296\n");
  put_file(root, "sys/fs/cgroup/jobs/memory.current", "1073741824\n");
  put_file(root, "sys/fs/cgroup/jobs/memory.stat", "anon 1\ninactive_file 0\n");
  put_file(root, "sys/fs/cgroup/jobs/job7/memory.max", "max\n");
  put_file(root, "sys/fs/cgroup/jobs/job7/memory.current", "1073741824\n");
  tp_host_memory m;
  TPT_OK(tp_host_memory_query_in(root, &m));
  cr_assert_eq(m.available, (size_t)3 << 30, "%zu (%s)", m.available, m.bound);
  cr_assert_str_eq(m.bound, "cgroup limit 4.3 GB, 1.1 GB in use");
  /* the process's own limit when it is the smaller one, file cache counted as room */
  put_file(root, "sys/fs/cgroup/jobs/job7/memory.max", "2147483648\n");
  put_file(root, "sys/fs/cgroup/jobs/job7/memory.stat",
           "active_file 536870912\n"
           "inactive_file 536870912\n");
  TPT_OK(tp_host_memory_query_in(root, &m));
  cr_assert_eq(m.available, (size_t)2 << 30, "%zu (%s)", m.available, m.bound);
}

/* v1: memory.limit_in_bytes unlimited, the hierarchical limit in memory.stat is not. */
Test(host_memory, cgroup_v1_hierarchical_limit, .fini = remove_fixtures) {
  unsetenv("TENPORT_HOST_MEMORY_LIMIT");
  char *root = fixture_root();
  put_file(root, "proc/self/cgroup", "4:memory:/batch/job7\n0::/\n");
  put_file(root, "sys/fs/cgroup/memory/batch/job7/memory.limit_in_bytes", "9223372036854771712\n");
  put_file(root, "sys/fs/cgroup/memory/batch/job7/memory.usage_in_bytes", "524288000\n");
  put_file(root, "sys/fs/cgroup/memory/batch/job7/memory.stat",
           "cache 1\nhierarchical_memory_limit 3221225472\ntotal_inactive_file 104857600\n"
           "total_active_file 0\n");
  tp_host_memory m;
  TPT_OK(tp_host_memory_query_in(root, &m));
  cr_assert_eq(m.available, (size_t)3221225472 - (524288000 - 104857600), "%s", m.bound);
  /* in a container the cgroup's own folder is the root of the mount */
  char *inside = fixture_root();
  put_file(inside, "proc/self/cgroup", "4:memory:/docker/abc\n");
  put_file(inside, "sys/fs/cgroup/memory/memory.limit_in_bytes", "1073741824\n");
  put_file(inside, "sys/fs/cgroup/memory/memory.usage_in_bytes", "0\n");
  TPT_OK(tp_host_memory_query_in(inside, &m));
  cr_assert_eq(m.available, (size_t)1 << 30, "%s", m.bound);
  setenv("TENPORT_HOST_MEMORY_LIMIT", "512M", 1);
  TPT_OK(tp_host_memory_query_in(inside, &m));
  cr_assert_eq(m.available, (size_t)512 << 20, "the smallest source wins");
}

Test(host_memory, nothing_readable_means_no_check, .fini = remove_fixtures) {
  unsetenv("TENPORT_HOST_MEMORY_LIMIT");
  char *root = empty_root();
  tp_host_memory m;
  TPT_OK(tp_host_memory_query_in(root, &m));
  cr_assert_eq(m.available, SIZE_MAX);
  char *meminfo_only = fixture_root();
  TPT_OK(tp_host_memory_query_in(meminfo_only, &m));
  cr_assert_eq(m.available, (size_t)20000000 * 1024);
  cr_assert_str_eq(m.bound, "MemAvailable plus free swap");
}
