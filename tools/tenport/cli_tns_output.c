/* Whether sparse text needs its header to read back as the tensor written. */
#include "tools/tenport/cli_tns_output.h"

int tenport_tns_needs_header(const tp_coo *host, int base) {
  if (host->nnz == 0)
    return 1; /* a reader finds no dims in text without nonzeros */
  int zero_seen = 0;
  for (int m = 0; m < host->order; ++m) {
    int64_t top = 0;
    const int64_t *idx = host->indices[m];
    for (int64_t k = 0; k < host->nnz; ++k) {
      top = idx[k] > top ? idx[k] : top;
      zero_seen |= idx[k] == 0;
    }
    if (top + 1 != host->dims[m])
      return 1;
  }
  return base == 0 && !zero_seen; /* read as 1-based: every index one less */
}

tp_tns_write_options tenport_tns_output_options(const tp_coo *host, int base, int sptensor,
                                                int no_header) {
  tp_tns_write_options o = tp_tns_write_options_default();
  o.index_base = base;
  o.sptensor = sptensor || (!no_header && tenport_tns_needs_header(host, base));
  return o;
}
