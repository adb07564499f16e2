/* Sparse text that reads back as the tensor written. A .tns without a header is read with
 * each mode's largest index as its size and 1-based unless an index 0 appears; when that
 * would give another tensor (a shape beyond the largest indices, 0-based indices without
 * an index 0, no nonzeros), the commands write the sptensor header first, which carries
 * the dims and the base. --no-header-out leaves it out, for tools that read no header. */
#ifndef TENPORT_CLI_TNS_OUTPUT_H
#define TENPORT_CLI_TNS_OUTPUT_H

#include "tenport/tenport.h"

/* Whether host, written with indices of base (0 or 1) and no header, would read back as
 * another tensor. */
int tenport_tns_needs_header(const tp_coo *host, int base);

/* The writer's options for host: indices of base, and the sptensor header when asked
 * (sptensor) or needed, unless no_header. */
tp_tns_write_options tenport_tns_output_options(const tp_coo *host, int base, int sptensor,
                                                int no_header);

/* The usage lines of --no-header-out in gen's texts (which write 1-based indices). */
#define TENPORT_NO_HEADER_OUT_HELP                                                         \
  "  --no-header-out     no header in a .tns output (default: the sptensor header, with\n" \
  "                      the dims, when they go beyond the largest indices)\n"

#endif
