/* A space's options are checked before anything is made: a thread count beyond
 * TP_MAX_THREADS (the bound of tenport -t) or below 0 is refused by value, on every
 * backend (GPU spaces ignore the count but not its check). */
#include <string.h>

#include "tests/common/tpt.h"

TestSuite(space_options, .init = tpt_setup, .fini = tpt_teardown);

static tp_status create_with_threads(int threads) {
  tp_space_options o = tp_space_options_default();
  o.threads = threads;
  tp_space *s = NULL;
  tp_status st = tp_space_create(&s, &o);
  if (st == TP_SUCCESS)
    TPT_OK(tp_space_destroy(&s));
  return st;
}

Test(space_options, thread_counts_beyond_the_bound_are_refused) {
  const int bad[3] = {TP_MAX_THREADS + 1, 100000, 1 << 30};
  for (int i = 0; i < 3; ++i) {
    TPT_FAILS_WITH(create_with_threads(bad[i]), TP_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(tp_last_error(), "4096"), "%d: %s", bad[i], tp_last_error());
  }
  TPT_FAILS_WITH(create_with_threads(-1), TP_ERROR_INVALID_ARGUMENT);
  TPT_OK(create_with_threads(2));
  TPT_OK(create_with_threads(0));
}
