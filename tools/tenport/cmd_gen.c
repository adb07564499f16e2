/* tenport gen: test data, reproducible from a seed.
 *   gen dense:  a random dense tensor as .npy, uniform in [0, 1) or a planted low-rank
 *               tensor with relative Gaussian noise; the planted Kruskal tensor can be
 *               written beside it.
 *   gen sparse: a random sparse tensor as .tns or .tpb, with skewed indices and uniform,
 *               Pareto or binary values, or a planted sparse low-rank tensor.
 *   gen sttid:  the STTID paper's kinds of test tensor as .tns or .tpb, with exactly N
 *               distinct nonzeros: power-law (Pareto values) or knowledge-graph facts. */
#include <stdio.h>
#include <string.h>

#include "tools/tenport/gen_cli.h"

int tenport_cmd_gen(int argc, char **argv) {
  if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    tenport_gen_usage_dense(stdout);
    printf("\n");
    tenport_gen_usage_sparse(stdout);
    printf("\n");
    tenport_gen_usage_sttid(stdout);
    return 0;
  }
  if (argc < 2)
    return tenport_gen_usage_error(
        "what to generate? 'tenport gen dense ...', 'tenport gen sparse ...' "
        "or 'tenport gen sttid ...'");
  if (!strcmp(argv[1], "dense"))
    return tenport_gen_dense(argc - 1, argv + 1);
  if (!strcmp(argv[1], "sparse"))
    return tenport_gen_sparse(argc - 1, argv + 1);
  if (!strcmp(argv[1], "sttid"))
    return tenport_gen_sttid(argc - 1, argv + 1);
  fprintf(stderr, "tenport gen: unknown kind '%s': 'dense', 'sparse' or 'sttid'\n", argv[1]);
  return 2;
}
