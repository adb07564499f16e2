/* Handles are pointers: a copy names the same object. Destroying it a second time through
 * a copy, or using it after it was destroyed, is an error that names it (not a use after
 * free); the handle the destroy was given is left as it was. */
#include <string.h>

#include "tests/common/tpt.h"

TestSuite(handles, .init = tpt_setup, .fini = tpt_teardown);

Test(handles, a_space_destroyed_through_a_copy_is_not_destroyed_again) {
  tp_space *space = NULL, *copy;
  TPT_OK(tp_space_create(&space, NULL));
  copy = space;
  TPT_OK(tp_space_destroy(&space));
  cr_assert_null(space);
  TPT_FAILS_WITH(tp_space_destroy(&copy), TP_ERROR_INVALID_ARGUMENT);
  cr_expect(strstr(tp_last_error(), "is not live"), "message: %s", tp_last_error());
  cr_assert_not_null(copy, "the refused destroy cleared the handle");
  void *p = NULL;
  TPT_FAILS_WITH(tp_alloc(copy, 64, &p), TP_ERROR_INVALID_ARGUMENT);
  cr_expect(strstr(tp_last_error(), "space"), "message: %s", tp_last_error());
  TPT_FAILS_WITH(tp_space_fence(copy), TP_ERROR_INVALID_ARGUMENT);
}

Test(handles, a_flycoo_tensor_destroyed_twice_is_refused_the_second_time) {
  tp_coo host;
  const int64_t dims[3] = {7, 5, 3};
  TPT_OK(tp_coo_random_planted(TP_DTYPE_F64, 3, dims, 2, 3, 0.0, 9, &host, NULL));
  tp_flycoo *fly = NULL, *copy;
  TPT_OK(tp_flycoo_create(tpt_space, &host, NULL, &fly));
  copy = fly;
  TPT_OK(tp_flycoo_destroy(&fly));
  TPT_FAILS_WITH(tp_flycoo_destroy(&copy), TP_ERROR_INVALID_ARGUMENT);
  cr_expect(strstr(tp_last_error(), "FLYCOO tensor"), "message: %s", tp_last_error());
  tp_coo_free(NULL, &host);
}
