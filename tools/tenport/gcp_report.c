/* tenport gcp's summary: the tensor and its mask, where the time went, and the result, on
 * stdout and into the --json summary. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tools/tenport/gcp_cli.h"

/* The loss, its parameter and the factors' bound, as "loss huber (parameter 0.5), factors
 * >= -inf" reads. */
void tenport_gcp_print_loss(const tp_gcp_options *s) {
  const double lower = isnan(s->lower) ? tp_gcp_loss_lower_bound(s->loss) : s->lower;
  printf("loss %s", tp_gcp_loss_name(s->loss));
  if (tp_gcp_loss_has_param(s->loss))
    printf(" (parameter %g)", s->loss_param);
  if (isinf(lower))
    printf(", factors unbounded\n");
  else
    printf(", factors >= %g\n", lower);
  tenport_summary_text("loss_name", tp_gcp_loss_name(s->loss));
  if (tp_gcp_loss_has_param(s->loss))
    tenport_summary_number("loss_param", s->loss_param);
  tenport_summary_number("lower", lower);
}

/* The tensor, the mask and the loss. */
static void print_input(const tenport_gcp_job *j) {
  char shape[TENPORT_DIMS_TEXT];
  tenport_format_dims(j->order, j->dims, shape, sizeof shape);
  printf("tensor: %s, %s %s, ", tp_input_name(j->in), shape, tp_dtype_name(j->dtype));
  if (j->sparse)
    printf("%lld nonzeros (%lld duplicates summed), %s", (long long)j->coo.nnz,
           (long long)j->info.duplicates,
           j->c->solver.solver == TP_GCP_SOLVER_ADAM ? "sampled" : "made dense in memory");
  else
    printf("%s", j->host_x.layout == TP_LAYOUT_LEFT ? "Fortran order" : "C order");
  printf("; rank %d, ", j->c->rank);
  tenport_gcp_print_loss(&j->c->solver);
  if (j->mask_in && j->sparse)
    printf("mask: %s, %lld missing entries, %lld observed\n", tp_input_name(j->mask_in),
           (long long)j->missing.nnz, (long long)j->observed);
  else if (j->mask_in)
    printf("mask: %s, %lld entries observed\n", tp_input_name(j->mask_in), (long long)j->observed);
  tenport_summary_dims("dims", j->order, j->dims);
  tenport_summary_text("dtype", tp_dtype_name(j->dtype));
  tenport_summary_integer("rank", j->c->rank);
  if (j->sparse)
    tenport_summary_integer("nnz", (long long)j->coo.nnz);
  tenport_summary_integer("observed", (long long)j->observed);
}

/* Why the solver stopped, in words, then its own words. */
static const char *stopped_by(const tp_gcp_result *r) {
  if (r->converged)
    return "converged";
  if (!strcmp(r->stop_reason, "max_iters"))
    return "iteration limit";
  if (!strcmp(r->stop_reason, "max_evals"))
    return "evaluation limit";
  if (!strcmp(r->stop_reason, "epochs"))
    return "epoch limit";
  if (r->stopped_by_time)
    return "time limit";
  return "not converged";
}

void tenport_gcp_print_result(const tp_gcp_result *r, int adam, double total_seconds) {
  if (adam)
    printf("loss %s%.10e after %d epoch%s of %d steps in all, %d failed (initial estimate "
           "%.10e)\n",
           r->loss_is_estimate ? "estimate " : "", r->loss, r->iterations,
           r->iterations == 1 ? "" : "s", r->evaluations, r->failed_epochs, r->initial_loss);
  else
    printf("loss %.10e after %d iteration%s and %d evaluation%s (initial %.10e), |pg| %.3e\n",
           r->loss, r->iterations, r->iterations == 1 ? "" : "s", r->evaluations,
           r->evaluations == 1 ? "" : "s", r->initial_loss, r->gradient_norm);
  printf("stopped: %s (%s), %.3f s (evaluations %.3f s)\n", stopped_by(r), r->stop_reason,
         r->seconds, r->eval_seconds);
  printf("total %.3f s (reading, copies and writing included)\n", total_seconds);
  tenport_summary_number("loss", r->loss);
  tenport_summary_bool("loss_is_estimate", r->loss_is_estimate);
  tenport_summary_text("solver", adam ? "adam" : "lbfgsb");
  if (adam)
    tenport_summary_integer("failed_epochs", r->failed_epochs);
  tenport_summary_number("initial_loss", r->initial_loss);
  tenport_summary_number("gradient_norm", r->gradient_norm);
  tenport_summary_integer("iterations", r->iterations);
  tenport_summary_integer("evaluations", r->evaluations);
  tenport_summary_bool("converged", r->converged);
  tenport_summary_text("stop_reason", r->stop_reason);
  tenport_summary_number("seconds", r->seconds);
  tenport_summary_number("eval_seconds", r->eval_seconds);
}

/* The fit of a Gaussian loss's exact final value, 1 - ||W (X - M)|| / ||W X|| (the loss
 * is ||W (X - M)||^2, the result has ||W X||^2); NAN for other losses and estimates. */
static double gaussian_fit(const tp_gcp_options *o, const tp_gcp_result *r) {
  if (o->loss != TP_GCP_GAUSSIAN || r->loss_is_estimate || !(r->data_norm2 > 0))
    return NAN;
  return 1.0 - sqrt(fmax(r->loss, 0.0) / r->data_norm2);
}

void tenport_gcp_report(const tenport_gcp_job *j, double total_seconds) {
  const tenport_gcp_cli *c = j->c;
  print_input(j);
  tenport_print_phases(j->phases, j->solve_seconds, c->watch.iteration_seconds);
  tenport_gcp_print_result(&j->result, c->solver.solver == TP_GCP_SOLVER_ADAM, total_seconds);
  const double fit = gaussian_fit(&c->solver, &j->result);
  if (!isnan(fit)) {
    printf("fit %.6f over the %s entries (1 - ||W (X - M)|| / ||W X||)\n", fit,
           j->mask_in ? "observed" : "tensor's");
    tenport_summary_number("fit", fit);
  }
  if (c->output)
    printf("wrote %s_lambda.npy, %s_factor{0..%d}.npy\n", c->output, c->output, j->order - 1);
}
