/* Sparse COO tensors: descriptor checks and validation, allocation and copies to the
 * space, and misuse (freed tensors, the wrong space, memory that is not there). */
#include "tests/sparse/tpt_sparse.h"

TestSuite(coo, .init = sparse_setup, .fini = sparse_teardown);

/* ---- descriptors -------------------------------------------------------------------- */

Test(coo, check_accepts_any_order_up_to_16) {
  const int64_t dims[16] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};
  for (int order = 1; order <= 16; ++order) {
    tp_coo t = descriptor(TP_DTYPE_F32, order, dims, 0);
    TPT_OK(tp_coo_check(&t));
    t.nnz = (int64_t)1 << 40; /* array contents are not read */
    TPT_OK(tp_coo_check(&t));
  }
}

Test(coo, check_names_the_bad_field) {
  const int64_t dims[17] = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2};
  tp_coo t = descriptor(TP_DTYPE_F64, 0, dims, 0);
  TPT_FAILS_WITH(tp_coo_check(&t), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("order 0");
  t = descriptor(TP_DTYPE_F64, 16, dims, 0);
  t.order = 17;
  TPT_FAILS_WITH(tp_coo_check(&t), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("order 17");
  t = descriptor(TP_DTYPE_F64, 3, dims, 0);
  t.dims[2] = 0;
  TPT_FAILS_WITH(tp_coo_check(&t), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("dims[2] = 0");
  t = descriptor(TP_DTYPE_I32, 3, dims, 0);
  TPT_FAILS_WITH(tp_coo_check(&t), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("int32");
  t = descriptor(TP_DTYPE_F32, 3, dims, -1);
  TPT_FAILS_WITH(tp_coo_check(&t), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("nnz -1");
  TPT_FAILS_WITH(tp_coo_check(NULL), TP_ERROR_INVALID_ARGUMENT);
}

Test(coo, validate_names_the_offending_nonzero) {
  const int64_t dims[3] = {4, 5, 6};
  tpt_rng rng = tpt_rng_fresh();
  tp_coo t = random_tensor(TP_DTYPE_F64, 3, dims, 10, &rng);
  TPT_OK(tp_coo_validate(&t));
  t.indices[1][7] = 5;
  TPT_FAILS_WITH(tp_coo_validate(&t), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("nonzero 7, mode 1: index 5");
  t.indices[1][7] = -1;
  TPT_FAILS_WITH(tp_coo_validate(&t), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("index -1");
  t.indices[1][7] = 0;
  set_value(&t, 3, NAN);
  TPT_FAILS_WITH(tp_coo_validate(&t), TP_ERROR_NUMERICAL);
  assert_message_has("nonzero 3");
  assert_message_has("NaN");
  set_value(&t, 3, -INFINITY);
  TPT_FAILS_WITH(tp_coo_validate(&t), TP_ERROR_NUMERICAL);
  assert_message_has("-Inf");
  set_value(&t, 3, 0.5);
  void *values = t.values;
  t.values = NULL;
  TPT_FAILS_WITH(tp_coo_validate(&t), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("values is NULL");
  t.values = values;
  tp_coo_free(NULL, &t);
}

Test(coo, norm2_sums_squares_in_double) {
  const int64_t dims[2] = {3, 3};
  tp_coo t;
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F32, 2, dims, 3, &t));
  for (int64_t k = 0; k < 3; ++k)
    t.indices[0][k] = k, t.indices[1][k] = 2 - k;
  set_value(&t, 0, 1.5), set_value(&t, 1, -2), set_value(&t, 2, 0.25);
  cr_assert_eq(tp_coo_norm2(&t), 2.25 + 4 + 0.0625);
  tp_coo_free(NULL, &t);
}

/* ---- allocation and copies ------------------------------------------------------------- */

Test(coo, alloc_and_free_on_the_host) {
  const int64_t dims[5] = {3, 1, 7, 2, 9};
  tp_coo t;
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F32, 5, dims, 11, &t));
  cr_assert(t.order == 5 && t.nnz == 11 && t.dtype == TP_DTYPE_F32 && t.values);
  for (int m = 0; m < 5; ++m) {
    cr_assert(t.indices[m] && t.dims[m] == dims[m]);
    memset(t.indices[m], 0, 11 * sizeof(int64_t)); /* the sanitizers check the sizes */
  }
  memset(t.values, 0, 11 * sizeof(float));
  tp_coo_free(NULL, &t);
  cr_assert(t.values == NULL && t.indices[0] == NULL && t.indices[4] == NULL);
  tp_coo_free(NULL, &t); /* twice is harmless */
  tp_coo_free(NULL, NULL);
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, 1, dims, 0, &t));
  cr_assert(t.nnz == 0 && t.indices[0] && t.values, "no nonzeros still gives arrays");
  tp_coo_free(NULL, &t);
  memset(&t, 0x5a, sizeof t);
  TPT_FAILS_WITH(tp_coo_alloc(NULL, TP_DTYPE_F64, 17, dims, 1, &t), TP_ERROR_INVALID_ARGUMENT);
  cr_assert(t.values == NULL && t.order == 0, "a failed allocation leaves the descriptor zeroed");
  TPT_FAILS_WITH(tp_coo_alloc(NULL, TP_DTYPE_F64, 2, dims, -3, &t), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_coo_alloc(NULL, TP_DTYPE_F64, 2, dims, INT64_MAX / 2, &t), TP_ERROR_OVERFLOW);
}

Test(coo, copies_to_the_space_and_back) {
  tpt_rng rng = tpt_rng_fresh();
  const int64_t dims[4] = {7, 3, 11, 5};
  size_t before = tp_space_bytes_in_use(tpt_space);
  for (int d = 0; d < 2; ++d) {
    tp_coo h = random_tensor(both_dtypes[d], 4, dims, 97, &rng), s, back;
    TPT_OK(tp_coo_copy_to_device(tpt_space, &s, &h));
    cr_assert(s.nnz == 97 && s.order == 4 && s.dtype == h.dtype && s.dims[2] == 11);
    cr_assert(tp_space_bytes_in_use(tpt_space) >=
              before + 97 * (4 * sizeof(int64_t) + tp_dtype_size(h.dtype)));
    TPT_OK(tp_coo_copy_to_host(tpt_space, &back, &s));
    assert_same_tensor(&h, &back);
    tp_coo_free(tpt_space, &s);
    cr_assert(s.values == NULL && s.indices[0] == NULL);
    tp_coo_free(NULL, &back);
    tp_coo_free(NULL, &h);
  }
  tp_coo empty, s;
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F64, 2, dims, 0, &empty));
  TPT_OK(tp_coo_copy_to_device(tpt_space, &s, &empty));
  cr_assert_eq(s.nnz, 0);
  tp_coo_free(tpt_space, &s);
  tp_coo_free(NULL, &empty);
  cr_assert_eq(tp_space_bytes_in_use(tpt_space), before, "the space's memory was not returned");
}

Test(coo, copies_reject_bad_sources) {
  const int64_t dims[2] = {4, 4};
  tp_coo h = descriptor(TP_DTYPE_F64, 2, dims, 5), s;
  TPT_FAILS_WITH(tp_coo_copy_to_device(tpt_space, &s, &h), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("indices[0] is NULL");
  cr_assert_null(s.values);
  h.order = 0;
  TPT_FAILS_WITH(tp_coo_copy_to_device(tpt_space, &s, &h), TP_ERROR_INVALID_ARGUMENT);
  TPT_FAILS_WITH(tp_coo_copy_to_host(tpt_space, &h, &h), TP_ERROR_INVALID_ARGUMENT);
}

/* ---- misuse: freed tensors, the wrong space, memory that is not there ------------------- */

static const int64_t misuse_dims[3] = {50, 40, 30};

/* A COO tensor freed with the host while a space owns it is refused and stays usable: no
 * double free when the space is destroyed. */
Test(coo, host_free_of_a_space_tensor_is_refused) {
  tpt_rng rng = tpt_rng_fresh();
  tp_coo h = random_tensor(TP_DTYPE_F64, 3, misuse_dims, 100, &rng), s, back;
  TPT_OK(tp_coo_copy_to_device(tpt_space, &s, &h));
  TPT_FAILS_WITH(tp_coo_free(NULL, &s), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("belongs to a space");
  cr_assert(s.values && s.indices[2] && s.order == 3, "a refused free leaves the arrays");
  TPT_OK(tp_coo_copy_to_host(tpt_space, &back, &s));
  assert_same_tensor(&h, &back);
  TPT_OK(tp_coo_free(tpt_space, &s));
  TPT_OK(tp_coo_free(NULL, &back));
  TPT_OK(tp_coo_free(NULL, &h));
  cr_assert_eq(tp_space_bytes_in_use(tpt_space), 0);
}

/* A host tensor freed with a space is refused (no silent leak). */
Test(coo, space_free_of_a_host_tensor_is_refused) {
  tp_coo h;
  TPT_OK(tp_coo_alloc(NULL, TP_DTYPE_F32, 3, misuse_dims, 10, &h));
  TPT_FAILS_WITH(tp_coo_free(tpt_space, &h), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("free it with a NULL space");
  cr_assert(h.values && h.indices[0], "a refused free leaves the arrays");
  memset(h.values, 0, 10 * sizeof(float));
  TPT_OK(tp_coo_free(NULL, &h));
}

/* A freed tensor, and a copy of its descriptor made before the free, are rejected. */
Test(coo, freed_tensors_and_stale_copies_are_rejected) {
  tpt_rng rng = tpt_rng_fresh();
  tp_coo h = random_tensor(TP_DTYPE_F64, 3, misuse_dims, 100, &rng), s, back;
  TPT_OK(tp_coo_copy_to_device(tpt_space, &s, &h));
  tp_coo stale = s;
  TPT_OK(tp_coo_free(tpt_space, &s));
  TPT_FAILS_WITH(tp_coo_check(&s), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("freed");
  TPT_FAILS_WITH(tp_coo_copy_to_host(tpt_space, &back, &s), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("freed");
  TPT_FAILS_WITH(tp_coo_copy_to_host(tpt_space, &back, &stale), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("freed");
  TPT_FAILS_WITH(tp_coo_free(tpt_space, &stale), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("already freed");
  tp_coo hstale = h;
  TPT_OK(tp_coo_free(NULL, &h));
  TPT_FAILS_WITH(tp_coo_copy_to_device(tpt_space, &s, &hstale), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("freed");
  cr_assert(isnan(tp_coo_norm2(&hstale)));
  TPT_FAILS_WITH(tp_coo_free(NULL, &hstale), TP_ERROR_INVALID_ARGUMENT);
  assert_message_has("already freed");
}

Test(coo, allocations_beyond_the_memory_available_fail_with_sizes) {
  setenv("TENPORT_HOST_MEMORY_LIMIT", "512M", 1);
  tp_coo t;
  TPT_FAILS_WITH(tp_coo_alloc(NULL, TP_DTYPE_F64, 3, misuse_dims, 100000000, &t),
                 TP_ERROR_OUT_OF_MEMORY);
  assert_message_has("a 3.2 GB COO tensor 50x40x30 with 100000000 nonzeros (float64) does not "
                     "fit: 536.9 MB");
  cr_assert(t.values == NULL && t.indices[0] == NULL);
}
