/* tenport convert: what the command line asked for (cmd_convert.c) and the conversion
 * itself (convert_run.c). */
#ifndef TENPORT_CONVERT_H
#define TENPORT_CONVERT_H

#include <stdint.h>

#include "tools/tenport/cli_files.h"
#include "tenport/tenport.h"

/* The formats written, in the order of --format's names. */
typedef enum convert_format {
  CONVERT_TNS = 0,      /* FROSTT .tns text */
  CONVERT_SPTENSOR = 1, /* the sptensor text of the Tensor Toolbox and GenTen */
  CONVERT_TPB = 2,      /* tenport's binary sparse format */
  CONVERT_NPY = 3,      /* NumPy .npy (dense) */
  CONVERT_TENSOR = 4    /* the dense text of GenTen and the Tensor Toolbox */
} convert_format;
extern const char *const convert_format_names[5];

/* The largest dense tensor made from a sparse one unless --max-elements says otherwise. */
#define CONVERT_MAX_ELEMENTS ((uint64_t)1 << 32)

typedef struct convert_cli {
  const char *input, *output, *precision, *dims_text;
  int order;
  int64_t dims[TP_COO_MAX_ORDER];
  tenport_text_options text;    /* --index-base, --no-header (a sparse text input) */
  int format;                   /* convert_format */
  int gzip;                     /* the output's name ends in .gz */
  int out_base, out_base_given; /* --output-index-base */
  int no_header_out;            /* --no-header-out */
  double drop_below;            /* --drop-below */
  int drop_given;
  uint64_t max_elements; /* --max-elements */
  int max_given;
} convert_cli;

static inline int convert_is_dense(int format) {
  return format == CONVERT_NPY || format == CONVERT_TENSOR;
}

/* Reads the input and writes the output; the exit code (0, 1 when the work failed, 2 for
 * an option that does not apply to the input). */
int tenport_convert_run(const convert_cli *c);

#endif
