/* tenport's binary COO format (.tpb), little-endian whatever the host:
 *
 *   bytes 0-7    magic "TPCOO\0\0\1"
 *   8-11         u32 version (1)
 *   12-15        u32 index width in bytes: 4 when every dim fits in uint32, else 8
 *   16-19        u32 value width in bytes: 4 (float32) or 8 (float64)
 *   20-23        u32 order (1 to 16)
 *   24-31        u64 nnz
 *   32-          u64 dims[order]
 *   then         each mode's nnz zero-based indices, mode 0 first, then the nnz values.
 *
 * The reader checks the header against the size of the file before allocating (a pipe,
 * whose size is unknown, is only checked for truncation as it is read), then every index
 * against its dimension and every value for finiteness. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "portable/tp_error.h"
#include "portable/tp_host_omp.h"
#include "algorithms/sparse/tp_sparse_internal.h"

static void put_u32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = (unsigned char)(v >> 8 * i);
}

static void put_u64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    p[i] = (unsigned char)(v >> 8 * i);
}

static uint32_t get_u32(const unsigned char *p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i)
    v = v << 8 | p[i];
  return v;
}

static uint64_t get_u64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i)
    v = v << 8 | p[i];
  return v;
}

/* ---- writing ----------------------------------------------------------------------------- */

static uint32_t index_width(const tp_coo *t) {
  for (int m = 0; m < t->order; ++m)
    if ((uint64_t)t->dims[m] > UINT32_MAX)
      return 8;
  return 4;
}

static void write_header(tpi_output *s, const tp_coo *t) {
  unsigned char h[TP_TPB_FIXED_HEADER + 8 * TP_COO_MAX_ORDER];
  memcpy(h, TP_TPB_MAGIC, TP_TPB_MAGIC_BYTES);
  put_u32(h + 8, TP_TPB_VERSION);
  put_u32(h + 12, index_width(t));
  put_u32(h + 16, (uint32_t)tp_dtype_size(t->dtype));
  put_u32(h + 20, (uint32_t)t->order);
  put_u64(h + 24, (uint64_t)t->nnz);
  for (int m = 0; m < t->order; ++m)
    put_u64(h + TP_TPB_FIXED_HEADER + 8 * m, (uint64_t)t->dims[m]);
  tpi_output_write(s, h, TP_TPB_FIXED_HEADER + 8 * (size_t)t->order);
}

/* Element k of the index array (width w) or of the values, as little-endian bytes. */
static void put_index(unsigned char *p, uint32_t w, int64_t v) {
  if (w == 4)
    put_u32(p, (uint32_t)v);
  else
    put_u64(p, (uint64_t)v);
}

static void put_value(unsigned char *p, const tp_coo *t, int64_t k) {
  if (t->dtype == TP_DTYPE_F32) {
    uint32_t bits;
    memcpy(&bits, (const float *)t->values + k, 4);
    put_u32(p, bits);
  } else {
    uint64_t bits;
    memcpy(&bits, (const double *)t->values + k, 8);
    put_u64(p, bits);
  }
}

/* One array (mode m, or the values for m = -1) in blocks that fit the output's buffer. */
static void write_array(tpi_output *s, const tp_coo *t, int m) {
  uint32_t w = m >= 0 ? index_width(t) : (uint32_t)tp_dtype_size(t->dtype);
  int64_t per_block = (int64_t)(TP_OUTPUT_BUFFER_BYTES / w);
  for (int64_t k0 = 0; k0 < t->nnz; k0 += per_block) {
    int64_t n = t->nnz - k0 < per_block ? t->nnz - k0 : per_block;
    unsigned char *p = (unsigned char *)tpi_output_reserve(s, (size_t)n * w);
    if (!p)
      return; /* the output keeps the error */
    for (int64_t k = 0; k < n; ++k, p += w)
      if (m >= 0)
        put_index(p, w, t->indices[m][k0 + k]);
      else
        put_value(p, t, k0 + k);
    tpi_output_advance(s, (size_t)n * w);
  }
}

static tp_status write_tpb(tpi_output *f, const void *what) {
  const tp_coo *host = (const tp_coo *)what;
  write_header(f, host);
  for (int m = 0; m < host->order; ++m)
    write_array(f, host, m);
  write_array(f, host, -1);
  return TP_SUCCESS;
}

tp_status tp_coo_write_binary(const char *path, const tp_coo *host) {
  TP_TRY(tp_coo_validate(host));
  return tpi_output_write_one(path, write_tpb, host);
}

tp_status tp_coo_write_binary_to(tp_output_set *set, const char *path, const tp_coo *host) {
  TP_CHECK_ARG(set, "set is NULL");
  TP_TRY(tp_coo_validate(host));
  return tpi_output_write_in(set, path, write_tpb, host);
}

/* ---- reading ----------------------------------------------------------------------------- */

typedef struct tpb_header {
  uint32_t version, index_width, value_width, order;
  uint64_t nnz, dims[TP_COO_MAX_ORDER];
  uint64_t header_bytes, data_bytes;
} tpb_header;

static tp_status bad_header(const char *name, const char *problem, uint64_t value) {
  return TP_ERROR(TP_ERROR_FORMAT, "%s: %s (%llu)", name, problem, (unsigned long long)value);
}

/* Magic, version, widths and order, from the fixed part (got bytes of it). */
static tp_status parse_fixed(const char *name, const unsigned char *h, size_t got, tpb_header *t) {
  size_t n = got < TP_TPB_MAGIC_BYTES ? got : TP_TPB_MAGIC_BYTES;
  if (memcmp(h, TP_TPB_MAGIC, n) != 0 || got == 0)
    return TP_ERROR(TP_ERROR_FORMAT,
                    "%s is not a tenport binary COO file: bad magic (expected "
                    "\"TPCOO\\0\\0\\1\")",
                    name);
  if (got < TP_TPB_FIXED_HEADER)
    return bad_header(name, "truncated header: bytes read of the 32 of its fixed part",
                      (uint64_t)got);
  t->version = get_u32(h + 8), t->index_width = get_u32(h + 12);
  t->value_width = get_u32(h + 16), t->order = get_u32(h + 20), t->nnz = get_u64(h + 24);
  if (t->version != TP_TPB_VERSION)
    return bad_header(name, "unsupported version (version 1 is read)", t->version);
  if (t->index_width != 4 && t->index_width != 8)
    return bad_header(name, "index width is not 4 or 8 bytes", t->index_width);
  if (t->value_width != 4 && t->value_width != 8)
    return bad_header(name, "value width is not 4 or 8 bytes", t->value_width);
  if (t->order < 1 || t->order > TP_COO_MAX_ORDER)
    return bad_header(name, "order is outside [1, 16]", t->order);
  if (t->nnz > INT64_MAX)
    return bad_header(name, "nnz does not fit in int64", t->nnz);
  return TP_SUCCESS;
}

static tp_status parse_dims(const char *name, const unsigned char *d, tpb_header *t) {
  for (uint32_t m = 0; m < t->order; ++m) {
    t->dims[m] = get_u64(d + 8 * m);
    if (t->dims[m] < 1 || t->dims[m] > INT64_MAX)
      return TP_ERROR(TP_ERROR_FORMAT, "%s: dims[%u] = %llu is outside [1, 2^63 - 1]", name, m,
                      (unsigned long long)t->dims[m]);
  }
  return TP_SUCCESS;
}

/* The bytes the header promises must be what the source holds. */
static tp_status check_size(const tp_input *src, tpb_header *t) {
  uint64_t per_nonzero = (uint64_t)t->order * t->index_width + t->value_width;
  t->header_bytes = TP_TPB_FIXED_HEADER + 8 * (uint64_t)t->order;
  if (t->nnz > (UINT64_MAX - t->header_bytes) / per_nonzero)
    return bad_header(src->name, "nnz is too large: the file size would overflow 64 bits", t->nnz);
  t->data_bytes = t->nnz * per_nonzero;
  uint64_t expected = t->header_bytes + t->data_bytes, after = tpi_input_remaining(src);
  uint64_t total = after == UINT64_MAX ? after : after + t->header_bytes; /* header read */
  if (total == UINT64_MAX || total == expected)
    return TP_SUCCESS;
  return TP_ERROR(TP_ERROR_FORMAT,
                  "%s: %s: the file holds %llu bytes, the header (order %u, "
                  "nnz %llu, widths %u and %u) says %llu",
                  src->name, total < expected ? "truncated" : "bytes after the data",
                  (unsigned long long)total, t->order, (unsigned long long)t->nnz, t->index_width,
                  t->value_width, (unsigned long long)expected);
}

static tp_status read_header(tp_input *src, tpb_header *t) {
  unsigned char h[TP_TPB_FIXED_HEADER + 8 * TP_COO_MAX_ORDER];
  size_t got;
  memset(t, 0, sizeof *t);
  TP_TRY(tpi_input_read(src, h, TP_TPB_FIXED_HEADER, &got));
  TP_TRY(parse_fixed(src->name, h, got, t));
  size_t dims_bytes = 8 * (size_t)t->order;
  TP_TRY(tpi_input_read(src, h + TP_TPB_FIXED_HEADER, dims_bytes, &got));
  if (got < dims_bytes)
    return bad_header(src->name, "truncated header: bytes read of the dims", (uint64_t)got);
  TP_TRY(parse_dims(src->name, h + TP_TPB_FIXED_HEADER, t));
  return check_size(src, t);
}

/* ---- the arrays ----
 * Each array is read with one large read straight into its place in the tensor when the
 * file's element has the width of the tensor's (8-byte indices, values of the tensor's
 * precision), else through a buffer of TPB_STAGE_BYTES; the elements are then decoded and
 * checked in place on every core, in blocks, and the first bad element of the array
 * (the one a reader going front to back meets) is reported. */

enum { TPB_STAGE_BYTES = 32 << 20, TPB_BLOCK = 1 << 16 };

static tp_status truncated(const char *name) {
  return TP_ERROR(TP_ERROR_FORMAT, "%s: truncated: the data ends before the header's nnz", name);
}

/* Element k of an array of width w (little-endian bytes). */
static uint64_t get_element(const unsigned char *p, uint32_t w, int64_t k) {
  return w == 4 ? get_u32(p + 4 * k) : get_u64(p + 8 * k);
}

static double get_value(const unsigned char *p, uint32_t w, int64_t k) {
  if (w == 4) {
    uint32_t bits = get_u32(p + 4 * k);
    float f;
    memcpy(&f, &bits, 4);
    return f;
  }
  uint64_t bits = get_u64(p + 8 * k);
  double d;
  memcpy(&d, &bits, 8);
  return d;
}

/* n elements of mode m from p (width w) into indices k0..; the first bad one, or -1. */
static int64_t decode_indices(const unsigned char *p, uint32_t w, int64_t k0, int64_t n, int m,
                              tp_coo *t) {
  const uint64_t dim = (uint64_t)t->dims[m];
  int64_t *out = t->indices[m] + k0, first_bad = INT64_MAX;
  const int64_t blocks = (n + TPB_BLOCK - 1) / TPB_BLOCK;
  TP_HOST_OMP(omp parallel for schedule(static) reduction(min : first_bad))
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t end = (b + 1) * TPB_BLOCK < n ? (b + 1) * TPB_BLOCK : n;
    for (int64_t k = b * TPB_BLOCK; k < end; ++k) {
      const uint64_t v = get_element(p, w, k); /* read before the write: p may be out */
      out[k] = (int64_t)v;
      if (v >= dim && k < first_bad)
        first_bad = k;
    }
  }
  return first_bad == INT64_MAX ? -1 : k0 + first_bad;
}

static int64_t decode_values(const unsigned char *p, uint32_t w, int64_t k0, int64_t n, tp_coo *t) {
  int64_t first_bad = INT64_MAX;
  const int64_t blocks = (n + TPB_BLOCK - 1) / TPB_BLOCK;
  TP_HOST_OMP(omp parallel for schedule(static) reduction(min : first_bad))
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t end = (b + 1) * TPB_BLOCK < n ? (b + 1) * TPB_BLOCK : n;
    for (int64_t k = b * TPB_BLOCK; k < end; ++k) {
      tpi_coo_set_value(t, k0 + k, get_value(p, w, k));
      if (!isfinite(tpi_coo_value(t, k0 + k)) && k < first_bad)
        first_bad = k;
    }
  }
  return first_bad == INT64_MAX ? -1 : k0 + first_bad;
}

static tp_status bad_index(const char *name, const tp_coo *t, int m, int64_t k) {
  return TP_ERROR(TP_ERROR_FORMAT,
                  "%s: nonzero %lld, mode %d: index %llu is beyond the "
                  "dimension %lld (indices are zero-based)",
                  name, (long long)k, m, (unsigned long long)(uint64_t)t->indices[m][k],
                  (long long)t->dims[m]);
}

/* The file's value (read again from the bytes that held it: the tensor has it rounded). */
static tp_status bad_value(const char *name, int64_t k, double v) {
  return TP_ERROR(TP_ERROR_FORMAT, "%s: nonzero %lld: value %g %s", name, (long long)k, v,
                  isfinite(v) ? "overflows float32" : "is not finite");
}

/* Reads n elements of width w into p; anything less is a truncated file. */
static tp_status read_elements(tp_input *src, void *p, uint32_t w, int64_t n) {
  size_t got;
  TP_TRY(tpi_input_read(src, p, (size_t)n * w, &got));
  return got < (size_t)n * w ? truncated(src->name) : TP_SUCCESS;
}

/* Mode m's indices (m >= 0) or the values (m = -1): in place when the widths match, else
 * through stage (TPB_STAGE_BYTES). */
static tp_status read_array(tp_input *src, const tpb_header *h, int m, unsigned char *stage,
                            tp_coo *t) {
  const uint32_t w = m >= 0 ? h->index_width : h->value_width;
  const size_t dst_width = m >= 0 ? sizeof(int64_t) : tp_dtype_size(t->dtype);
  unsigned char *dst = m >= 0 ? (unsigned char *)t->indices[m] : (unsigned char *)t->values;
  const int in_place = w == dst_width;
  const int64_t per_read = in_place ? t->nnz : (int64_t)(TPB_STAGE_BYTES / w);
  for (int64_t k0 = 0; k0 < t->nnz; k0 += per_read) {
    const int64_t n = t->nnz - k0 < per_read ? t->nnz - k0 : per_read;
    unsigned char *p = in_place ? dst + (size_t)k0 * w : stage;
    TP_TRY(read_elements(src, p, w, n));
    if (m >= 0) {
      int64_t bad = decode_indices(p, w, k0, n, m, t);
      if (bad >= 0)
        return bad_index(src->name, t, m, bad);
    } else {
      int64_t bad = decode_values(p, w, k0, n, t);
      if (bad >= 0) /* in place, the bytes now hold the tensor's value: the same number */
        return bad_value(src->name, bad,
                         in_place ? tpi_coo_value(t, bad) : get_value(p, w, bad - k0));
    }
  }
  return TP_SUCCESS;
}

/* The staging buffer, when some array needs one. */
static int needs_stage(const tpb_header *h, const tp_coo *t) {
  return h->index_width != sizeof(int64_t) || h->value_width != tp_dtype_size(t->dtype);
}

static tp_status read_arrays(tp_input *src, const tpb_header *h, tp_coo *t) {
  unsigned char *stage = NULL;
  if (needs_stage(h, t) && t->nnz > 0 && !(stage = (unsigned char *)malloc(TPB_STAGE_BYTES)))
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "%s: cannot allocate a read buffer", src->name);
  tp_status st = TP_SUCCESS;
  for (int m = 0; m < t->order && st == TP_SUCCESS; ++m)
    st = read_array(src, h, m, stage, t);
  if (st == TP_SUCCESS)
    st = read_array(src, h, -1, stage, t);
  free(stage);
  return st;
}

tp_status tpi_coo_read_binary_input(tp_input *src, tp_dtype dtype, tp_coo *host,
                                    tp_coo_read_info *info) {
  if (info)
    memset(info, 0, sizeof *info);
  TP_CHECK_ARG(host, "host is NULL");
  memset(host, 0, sizeof *host);
  TP_CHECK_ARG(tpi_coo_dtype_ok(dtype), "dtype %s is not float32 or float64", tp_dtype_name(dtype));
  tpb_header h;
  TP_TRY(read_header(src, &h));
  int64_t dims[TP_COO_MAX_ORDER];
  for (uint32_t m = 0; m < h.order; ++m)
    dims[m] = (int64_t)h.dims[m];
  TP_TRY(tpi_coo_host_alloc(dtype, (int)h.order, dims, (int64_t)h.nnz, host));
  return tpi_coo_finish_read(read_arrays(src, &h, host), src->name, host, info);
}

tp_status tp_coo_read_binary(const char *path, tp_dtype dtype, tp_coo *host) {
  if (host)
    memset(host, 0, sizeof *host);
  tp_input *in;
  TP_TRY(tp_input_open(&in, path));
  tp_status st = tpi_coo_read_binary_input(in, dtype, host, NULL);
  tp_input_close(&in);
  return st;
}

tp_status tpi_coo_read_binary_buffer(const char *name, const void *bytes, size_t size,
                                     tp_dtype dtype, tp_coo *host, tp_coo_read_info *info) {
  tp_input in;
  tpi_input_init_buffer(&in, name, bytes, size);
  tp_status st = tpi_coo_read_binary_input(&in, dtype, host, info);
  tpi_input_release(&in);
  return st;
}
