/* gzip sources, decompressed by zlib as they are read: a .tns.gz, .npy.gz or .tpb.gz
 * file, or gzip data on a pipe. Concatenated gzip members are read one after another,
 * as gzip -d does. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "portable/tp_error.h"
#include "algorithms/io/tp_io_internal.h"

enum { GZIP_STORED_CHUNK = 1 << 18 };

struct tpi_input_gzip {
  z_stream z;
  unsigned char stored[GZIP_STORED_CHUNK];
  int at_end;      /* the stored bytes are all read */
  int member_done; /* the last inflate ended a member, and nothing followed yet */
};

tp_status tpi_input_gzip_start(tp_input *in, const unsigned char *head, size_t len, int *started) {
  struct tpi_input_gzip *g = (struct tpi_input_gzip *)calloc(1, sizeof *g);
  if (!g)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "%s: no memory to decompress gzip data", in->name);
  if (inflateInit2(&g->z, 16 + MAX_WBITS) != Z_OK) { /* 16: a gzip header and trailer */
    free(g);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "%s: zlib could not start decompressing", in->name);
  }
  memcpy(g->stored, head, len);
  g->z.next_in = g->stored, g->z.avail_in = (uInt)len;
  in->gzip = g;
  *started = 1;
  return TP_SUCCESS;
}

/* More stored bytes when zlib has used those it had. */
static tp_status refill(tp_input *in, struct tpi_input_gzip *g) {
  if (g->z.avail_in || g->at_end)
    return TP_SUCCESS;
  size_t got = 0;
  TP_TRY(tpi_input_read_stored(in, g->stored, sizeof g->stored, &got));
  g->z.next_in = g->stored, g->z.avail_in = (uInt)got;
  g->at_end = got == 0;
  return TP_SUCCESS;
}

tp_status tpi_input_gzip_read(tp_input *in, unsigned char *dst, size_t n, size_t *got) {
  struct tpi_input_gzip *g = in->gzip;
  *got = 0;
  while (*got < n) {
    TP_TRY(refill(in, g));
    if (g->member_done) { /* another member follows, or the data ends here */
      if (!g->z.avail_in)
        return TP_SUCCESS;
      inflateReset(&g->z);
      g->member_done = 0;
    }
    if (g->at_end && !g->z.avail_in)
      return TP_ERROR(TP_ERROR_FORMAT, "%s: the gzip data ends early (a truncated file?)",
                      in->name);
    size_t want = n - *got < (size_t)1 << 30 ? n - *got : (size_t)1 << 30;
    g->z.next_out = dst + *got, g->z.avail_out = (uInt)want;
    int r = inflate(&g->z, Z_NO_FLUSH);
    *got += want - g->z.avail_out;
    if (r == Z_STREAM_END)
      g->member_done = 1;
    else if (r == Z_MEM_ERROR)
      return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "%s: no memory to decompress", in->name);
    else if (r != Z_OK && r != Z_BUF_ERROR)
      return TP_ERROR(TP_ERROR_FORMAT, "%s: corrupt gzip data (zlib: %s)", in->name,
                      g->z.msg ? g->z.msg : "inflate failed");
  }
  return TP_SUCCESS;
}

void tpi_input_gzip_end(tp_input *in) {
  if (!in->gzip)
    return;
  inflateEnd(&in->gzip->z);
  free(in->gzip);
  in->gzip = NULL;
}

int tp_input_has_gzip(void) { return 1; }
