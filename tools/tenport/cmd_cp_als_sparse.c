/* tenport cp-als on a sparse tensor (.tns or .tpb): FLYCOO is built from the file, then
 * the same CP-ALS as for dense tensors runs on it; lambda and the factors as .npy. */
#include "tools/tenport/cmd_cp_als.h"

static void print_sparse_summary(const tp_flycoo_stats *s, const char *input, int rank,
                                 const tp_cp_als_result *r, int64_t duplicates) {
  printf("tensor: %s, ", input);
  for (int k = 0; k < s->order; ++k)
    printf("%s%lld", k ? "x" : "", (long long)s->dims[k]);
  printf(" %s, %lld nonzeros (%lld duplicates summed); rank %d\n", tp_dtype_name(s->dtype),
         (long long)s->nnz, (long long)duplicates, rank);
  tenport_summary_dims("dims", s->order, s->dims);
  tenport_summary_text("dtype", tp_dtype_name(s->dtype));
  tenport_summary_integer("nnz", (long long)s->nnz);
  tenport_summary_integer("rank", rank);
  printf("mttkrp: FLYCOO, %d partitions, %s (%d-byte records, %.1f MB), built in %.3f s; "
         "%d pass%s over the nonzeros per iteration\n",
         s->partitions, s->remaps ? "dynamic remapping" : "a record copy per mode", s->record_bytes,
         s->device_bytes / 1e6, s->build_seconds, r->passes_per_iteration,
         r->passes_per_iteration == 1 ? "" : "es");
}

int tenport_cp_als_sparse(tenport_space_ahead *ahead, const tenport_cp_request *q) {
  double t0 = tenport_seconds();
  tp_coo host;
  tp_coo_read_info info = {0};
  tp_flycoo *fly = NULL;
  tp_kruskal init, model, host_model;
  memset(&host, 0, sizeof host), memset(&init, 0, sizeof init);
  memset(&model, 0, sizeof model), memset(&host_model, 0, sizeof host_model);
  tp_cp_als_options solver = *q->solver;
  tp_cp_als_result res;
  tenport_cp_phases ph;
  double t = tenport_seconds();
  tp_status st = tp_coo_read_input_with(q->in, q->dtype, q->order, q->dims, q->text, &host, &info);
  if (st == TP_SUCCESS && q->output) /* the order is known: the outputs are checked now */
    st = tp_kruskal_reserve_npy(q->set, q->output, host.order);
  ph.read = tenport_seconds() - t, t = tenport_seconds();
  tp_space *space = st == TP_SUCCESS ? tenport_space_ahead_wait(ahead, "cp-als") : NULL;
  if (st == TP_SUCCESS && !space) {
    tp_coo_free(NULL, &host);
    return 1;
  }
  const double waited = tenport_seconds() - t;
  t = tenport_seconds();
  if (st == TP_SUCCESS)
    st = tp_flycoo_create(space, &host, NULL, &fly);
  ph.build = tenport_seconds() - t, t = tenport_seconds();
  if (st == TP_SUCCESS && q->init) {
    st = tp_kruskal_read_npy(q->init, host.dtype, host.order, host.dims, q->rank, &init);
    solver.init = &init;
  }
  solver.rank = q->rank;
  if (st == TP_SUCCESS)
    st = tp_kruskal_alloc(space, host.dtype, host.order, host.dims, q->rank, &model);
  ph.init = waited + (tenport_seconds() - t);
  tenport_cp_watch *timer = solver.progress == tenport_cp_watch_iteration
                                ? (tenport_cp_watch *)solver.progress_user
                                : NULL;
  if (timer)
    timer->iteration_seconds = 0;
  tenport_cp_watch_begin(q->watch);
  if (st == TP_SUCCESS)
    st = tp_cp_als_sparse(space, fly, &solver, &model, &res);
  tenport_cp_watch_end(q->watch);
  t = tenport_seconds();
  if (st == TP_SUCCESS && q->output) {
    st = tp_kruskal_alloc(NULL, host.dtype, host.order, host.dims, q->rank, &host_model);
    if (st == TP_SUCCESS)
      st = tp_kruskal_copy_to_host(space, &host_model, &model);
  }
  if (st == TP_SUCCESS)
    st = tenport_cp_write_outputs(q->set, q->output, q->history, &host_model, timer, &solver, &res);
  ph.write = tenport_seconds() - t;
  int code = st == TP_SUCCESS ? 0 : tenport_fail("cp-als", "failed");
  if (code == 0) {
    tp_flycoo_stats s;
    tp_flycoo_get_stats(fly, &s);
    print_sparse_summary(&s, tp_input_name(q->in), q->rank, &res, info.duplicates);
    if (timer)
      tenport_cp_print_phases(ph, &res, timer);
    tenport_cp_print_result(&res, tenport_seconds() - t0);
    if (q->output)
      printf("wrote %s_lambda.npy, %s_factor{0..%d}.npy\n", q->output, q->output, host.order - 1);
    if (q->check_fit >= 0)
      code = tenport_cp_check_fit(res.fit, q->check_fit);
  }
  tp_kruskal_free(NULL, &host_model), tp_kruskal_free(space, &model);
  tp_kruskal_free(NULL, &init);
  tp_flycoo_destroy(&fly);
  tp_coo_free(NULL, &host);
  return code;
}
