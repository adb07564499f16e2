/* The exact scan check of test_scan.c for one integer type: the includer defines TPT_T
 * (the C type), TPT_SFX (i32 i64 u32 u64) and TPT_LO, TPT_HI (the inclusive range of the
 * inputs), and includes this file once per type (it undefines all four at its end, and has
 * no include guard).
 * generates: check_scan_i32 check_scan_i64 check_scan_u32 check_scan_u64 */

#define SCAN_PASTE_(a, b) a##b
#define SCAN_PASTE(a, b) SCAN_PASTE_(a, b)
#define SCAN_STR_(x) #x
#define SCAN_STR(x) SCAN_STR_(x)
/* TPT_OK on the expanded call: the message names tp_exclusive_scan_i32, not the paste. */
#define SCAN_OK(expr) TPT_OK(expr)

/* Integer scans are exact; in_place reuses the input array as the output. */
static void SCAN_PASTE(check_scan_, TPT_SFX)(tpt_rng *rng, int64_t n, int in_place) {
  TPT_T *x = tpt_host_alloc(sizeof(TPT_T) * (size_t)n);
  TPT_T *ref = tpt_host_alloc(sizeof(TPT_T) * (size_t)(n + 1));
  TPT_T run = 0;
  for (int64_t i = 0; i < n; ++i) {
    x[i] = (TPT_T)tpt_int(rng, TPT_LO, TPT_HI);
    ref[i] = run;
    run += x[i];
  }
  TPT_T *din = tpt_to_space(x, sizeof(TPT_T) * (size_t)n);
  TPT_T *dout = in_place ? din : tpt_alloc_poisoned(sizeof(TPT_T) * (size_t)(n + 1));
  TPT_T *dtot = tpt_alloc_poisoned(sizeof(TPT_T));
  SCAN_OK(SCAN_PASTE(tp_exclusive_scan_, TPT_SFX)(tpt_space, din, dout, n, dtot));
  TPT_T *got = tpt_host_alloc(sizeof(TPT_T) * (size_t)(n + 1));
  TPT_T total;
  tpt_to_host(got, dout, sizeof(TPT_T) * (size_t)(in_place ? n : n + 1));
  tpt_to_host(&total, dtot, sizeof total);
  for (int64_t i = 0; i < n; ++i)
    cr_assert_eq(got[i], ref[i], SCAN_STR(TPT_SFX) " n=%lld in_place=%d at %lld", (long long)n,
                 in_place, (long long)i);
  if (!in_place) {
    TPT_T poison;
    memset(&poison, 0xFF, sizeof poison);
    cr_assert_eq(got[n], poison, SCAN_STR(TPT_SFX) ": wrote past the end");
  }
  cr_assert_eq(total, run, SCAN_STR(TPT_SFX) " n=%lld: total", (long long)n);
  tpt_free(din);
  if (!in_place)
    tpt_free(dout);
  tpt_free(dtot);
  free(x), free(ref), free(got);
}

#undef SCAN_PASTE_
#undef SCAN_PASTE
#undef SCAN_STR_
#undef SCAN_STR
#undef SCAN_OK
#undef TPT_T
#undef TPT_SFX
#undef TPT_LO
#undef TPT_HI
