/* tenport cp-als: a rank-R CP decomposition by alternating least squares of a tensor read
 * from .npy or dense text (cp_als_dense.c) or from .tns / .tpb (cp_als_sparse.c), of the
 * planted tensor of --example (cp_als_dense.c), or on several ranks (cp_als_dist.c); the
 * arguments are cp_als_args.c's. This file picks the path: the input's content says
 * which, or the launcher (mpirun) or --gen-* a distributed run. */
#include <stdio.h>
#include <string.h>

#include "tools/tenport/cli_conventions.h"
#include "tools/tenport/cli_ranks.h"
#include "tools/tenport/commands.h"
#include "tools/tenport/cp_als_cli.h"
#include "tenport/tenport.h"

static int fail(void) { return tenport_fail("cp-als", "failed"); }

/* A .tns or .tpb input goes to the sparse path. */
static int run_sparse_file(tenport_space_ahead *ahead, tenport_cp_cli *c, tp_input *in,
                           tp_output_set *set) {
  if (c->dense_only_options) {
    fprintf(stderr,
            "tenport cp-als: --mttkrp and --no-reuse choose how a dense tensor's "
            "MTTKRPs run; %s is a sparse tensor, whose MTTKRP is FLYCOO's\n",
            tp_input_name(in));
    return 2;
  }
  tenport_cp_request q;
  memset(&q, 0, sizeof q);
  q.in = in, q.set = set, q.init = c->init, q.output = c->output, q.rank = c->rank;
  q.history = c->history;
  q.order = c->order, q.dims = c->order ? c->dims : NULL, q.text = &c->text.read;
  q.dtype = TP_DTYPE_F64;
  if (c->precision)
    q.dtype = !strcmp(c->precision, "f32") ? TP_DTYPE_F32 : TP_DTYPE_F64;
  else if (tp_coo_input_dtype(in, &q.dtype) != TP_SUCCESS)
    return fail();
  q.solver = &c->solver;
  q.watch = c->quiet ? NULL : &c->watch;
  q.check_fit = c->check_fit;
  return tenport_cp_als_sparse(ahead, &q);
}

/* The input's content says which path it takes: .npy dense, .tns or .tpb sparse. The
 * space is created meanwhile, on a thread of its own. */
static int run_file(tenport_cp_cli *c) {
  tp_input *in = NULL;
  tp_output_set *set = NULL;
  tp_file_format format = TP_FILE_UNKNOWN;
  tenport_space_ahead ahead;
  tenport_space_ahead_start(&ahead);
  int code = tenport_open_input("cp-als", c->input, &in);
  if (code == 0 && (c->output || c->history))
    code = tenport_outputs_begin_model("cp-als", in, c->init, NULL, 0, c->output, c->history, &set);
  if (code == 0 && tp_input_format(in, &format) != TP_SUCCESS)
    code = fail();
  if (code == 0)
    code = tenport_text_options_fit("cp-als", in, &c->text);
  int dense = format == TP_FILE_NPY || format == TP_FILE_DENSE_TEXT;
  if (code == 0 && dense && c->dims_text) {
    fprintf(stderr,
            "tenport cp-als: --dims applies to sparse inputs (.tns, .tpb); %s is a "
            "dense tensor, whose file gives its dims\n",
            tp_input_name(in));
    code = 2;
  }
  if (code == 0 && dense)
    code = tenport_cp_als_dense_file(&ahead, c, in, set);
  else if (code == 0 && (format == TP_FILE_TPB || format == TP_FILE_TEXT))
    code = run_sparse_file(&ahead, c, in, set);
  else if (code == 0)
    code = (tp_input_wrong_format(in, format,
                                  "a dense tensor (.npy or dense 'tensor' text) or "
                                  "a sparse one (.tns or .tpb)"),
            fail());
  tp_output_set_destroy(&set);
  tp_input_close(&in);
  return tenport_space_ahead_finish(&ahead, "cp-als", code);
}

static int run_example_job(tp_space *space, void *cli) {
  return tenport_cp_als_example(space, (tenport_cp_cli *)cli);
}

/* mpirun ... tenport cp-als (or --distributed): every rank runs this. */
static int run_distributed(tenport_cp_cli *c) {
  if (tenport_ranks_available("cp-als"))
    return 2;
  if (c->text.given) { /* every rank prints it: no rank is known before MPI starts */
    fprintf(stderr, "tenport cp-als: --index-base and --no-header do not apply to a "
                    "distributed run: the ranks read FROSTT text (1-based unless a header "
                    "says 0-based)\n");
    return 2;
  }
  if (c->input)
    tenport_summary_input(c->input);
  tenport_cp_dist_request q;
  memset(&q, 0, sizeof q);
  q.input = c->input, q.init = c->init, q.output = c->output, q.grid = c->grid;
  q.rank = c->rank, q.order = c->order;
  memcpy(q.dims, c->dims, sizeof q.dims);
  q.generate = c->generate;
  q.planted = c->planted;
  q.solver = &c->solver, q.watch = c->quiet ? NULL : &c->watch, q.check_fit = c->check_fit;
  q.precision = c->precision, q.history = c->history;
  return tenport_cp_als_distributed(&q);
}

int tenport_cmd_cp_als(int argc, char **argv) {
  if (tenport_cp_als_has_mask(argc, argv))
    return tenport_cp_als_masked(argc, argv);
  tenport_cp_cli c;
  int code = tenport_parsed(tenport_cp_als_args(argc, argv, &c), tenport_cp_als_usage);
  if (code >= 0)
    return code;
  if (!c.example && (c.distributed || c.generate.nnz || c.planted.order || tp_comm_launched())) {
    code = run_distributed(&c);
    tenport_cp_watch_free(&c.watch);
    return code;
  }
  if (c.example)
    code = tenport_run_in_space("cp-als", run_example_job, &c);
  else
    code = run_file(&c);
  tenport_cp_watch_free(&c.watch);
  return code;
}
