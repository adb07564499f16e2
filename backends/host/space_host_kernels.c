/* Spaces of the host backends: host memory, OpenMP threads, per-thread team scratch. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tenport/memory.h"
#include "tp_backend.h"
#include "portable/tp_handles.h"
#include "portable/tp_host_memory.h"

enum { TP_HOST_ALIGN = 64 };
#define TP_HOST_MAX_SCRATCH ((size_t)64 << 20)

struct tp_space {
  tp_space_common common;
  int threads;
  void **scratch;       /* one team-scratch buffer per thread */
  size_t scratch_bytes; /* size of each */
  char cpu_name[128];
};

tp_space_common *tp_space_common_of(tp_space *space) { return &space->common; }

const char *tp_backend_name(void) { return TP_BACKEND_NAME; }

tp_status tp_device_count(int *count) {
  TP_CHECK_ARG(count, "count must not be NULL");
  *count = 1;
  return TP_SUCCESS;
}

/* Arrays from this size on are placed on 2 MiB boundaries and offered huge pages: the
 * kernels gather rows at random from large factor matrices and records, and with 4 KiB
 * pages nearly every such load also misses the TLB. */
#define TP_HOST_HUGE_FROM ((size_t)8 << 20)
#define TP_HOST_HUGE_ALIGN ((size_t)2 << 20)

tp_status tp_backend_raw_alloc(tp_space *space, size_t bytes, void **ptr) {
  (void)space;
  const size_t align = bytes >= TP_HOST_HUGE_FROM ? TP_HOST_HUGE_ALIGN : TP_HOST_ALIGN;
  size_t rounded = (bytes + align - 1) / align * align;
  *ptr = rounded >= bytes ? aligned_alloc(align, rounded) : NULL;
  if (!*ptr)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate %zu bytes of host memory", bytes);
#ifdef MADV_HUGEPAGE
  if (align == TP_HOST_HUGE_ALIGN)
    (void)madvise(*ptr, rounded, MADV_HUGEPAGE); /* a hint: failure only costs speed */
#endif
  return TP_SUCCESS;
}

void tp_backend_raw_free(tp_space *space, void *ptr) {
  (void)space;
  free(ptr);
}

tp_status tp_backend_memory_check(tp_space *space, size_t bytes, const char *what) {
  (void)space;
  return tp_host_memory_check(bytes, what);
}

static void tp_read_cpu_name(char *name, size_t size) {
  snprintf(name, size, "host CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f)
    return;
  char line[256];
  while (fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (strncmp(line, "model name", 10) == 0 && colon) {
      snprintf(name, size, "%s", colon + 2);
      name[strcspn(name, "\n")] = '\0';
      break;
    }
  }
  fclose(f);
}

tp_status tp_space_create(tp_space **space, const tp_space_options *opts) {
  TP_CHECK_ARG(space, "space must not be NULL");
  *space = NULL;
  tp_space_options o = opts ? *opts : tp_space_options_default();
  TP_CHECK_ARG(o.device == 0, "device %d does not exist: the %s backend has only device 0",
               o.device, TP_BACKEND_NAME);
  TP_CHECK_ARG(o.threads >= 0 && o.threads <= TP_MAX_THREADS,
               "thread count %d is not from 0 (the default) to %d", o.threads, TP_MAX_THREADS);
  tp_space *s = (tp_space *)calloc(1, sizeof *s);
  int threads = o.threads > 0 ? o.threads : TP_HOST_DEFAULT_THREADS();
  void **scratch = (void **)calloc((size_t)threads, sizeof(void *));
  if (!s || !scratch) {
    free(s);
    free(scratch);
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate a space");
  }
  s->threads = TP_HOST_THREADED ? threads : 1;
  s->scratch = scratch;
  s->common.memory_limit = o.memory_limit;
  tp_read_cpu_name(s->cpu_name, sizeof s->cpu_name);
  tp_status st = tpi_handle_list(s, "space");
  if (st != TP_SUCCESS) {
    free(scratch), free(s);
    return st;
  }
  *space = s;
  return TP_SUCCESS;
}

tp_status tp_space_destroy(tp_space **space) {
  TP_CHECK_ARG(space, "space must not be NULL");
  tp_space *s = *space;
  if (!s)
    return TP_SUCCESS;
  TP_TRY(tpi_handle_unlist(s, "space"));
  size_t leaked = tp_space_common_release_all(s);
  for (int t = 0; t < s->threads; ++t)
    free(s->scratch[t]);
  free(s->scratch);
  free(s);
  *space = NULL;
  if (leaked)
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                    "%zu allocation(s) still held when the space was destroyed; they are "
                    "freed now",
                    leaked);
  return TP_SUCCESS;
}

tp_status tp_space_fence(tp_space *space) {
  TP_CHECK_ARG(space, "space must not be NULL");
  TP_CHECK_LIVE(space, "space");
  return TP_SUCCESS;
}

/* One lane: work on the host already runs in issue order. */
tp_status tp_space_lanes_begin(tp_space *space, int want, int *got) {
  TP_CHECK_ARG(space && got, "space and got must not be NULL");
  TP_CHECK_ARG(want >= 1 && want <= TP_SPACE_MAX_LANES, "lanes %d outside 1..%d", want,
               TP_SPACE_MAX_LANES);
  *got = 1;
  return TP_SUCCESS;
}

tp_status tp_space_lane_select(tp_space *space, int lane) {
  TP_CHECK_ARG(space, "space must not be NULL");
  TP_CHECK_ARG(lane == 0, "lane %d does not exist (host spaces have one lane)", lane);
  return TP_SUCCESS;
}

tp_status tp_space_lane_after(tp_space *space, int lane) {
  TP_CHECK_ARG(space, "space must not be NULL");
  TP_CHECK_ARG(lane == 0, "lane %d does not exist (host spaces have one lane)", lane);
  return TP_SUCCESS;
}

tp_status tp_space_lanes_end(tp_space *space) {
  TP_CHECK_ARG(space, "space must not be NULL");
  return TP_SUCCESS;
}

void *tp_space_stream(const tp_space *space) {
  (void)space;
  return NULL;
}

tp_status tp_space_get_info(const tp_space *space, tp_space_info *info) {
  TP_CHECK_ARG(space && info, "space and info must not be NULL");
  memset(info, 0, sizeof *info);
  info->backend = TP_BACKEND_NAME;
  snprintf(info->device_name, sizeof info->device_name, "%s", space->cpu_name);
  info->compute_units = space->threads;
  info->warp_size = 1;
  info->max_vector_length = 1;
  info->max_team_threads = 1;
  info->max_scratch_bytes = TP_HOST_MAX_SCRATCH;
  long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  info->l1_bytes = l1 > 0 ? (size_t)l1 : 0;
  info->l2_bytes = l3 > 0 ? (size_t)l3 : (l2 > 0 ? (size_t)l2 : 0);
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  info->memory_bytes = pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
  return TP_SUCCESS;
}

int tp_host_threads(const tp_space *space) {
  int64_t work = space->common.work; /* tp_space_set_work: no thread without its share */
  int64_t useful = work > 0 ? work / TP_HOST_WORK_PER_THREAD + 1 : space->threads;
  return useful < space->threads ? (int)useful : space->threads;
}

int tp_space_launch_threads(const tp_space *space) { return tp_host_threads(space); }

size_t tp_team_scratch_limit(const tp_space *space, int team_size) {
  (void)space, (void)team_size;
  return TP_HOST_MAX_SCRATCH;
}

void *tp_host_thread_scratch(const tp_space *space, int thread) { return space->scratch[thread]; }

tp_status tp_host_reserve_scratch(tp_space *space, size_t bytes) {
  if (bytes <= space->scratch_bytes)
    return TP_SUCCESS;
  size_t rounded = (bytes + TP_HOST_ALIGN - 1) / TP_HOST_ALIGN * TP_HOST_ALIGN;
  for (int t = 0; t < space->threads; ++t) {
    free(space->scratch[t]);
    space->scratch[t] = aligned_alloc(TP_HOST_ALIGN, rounded);
    if (!space->scratch[t]) {
      for (int u = 0; u < t; ++u) {
        free(space->scratch[u]);
        space->scratch[u] = NULL;
      }
      space->scratch_bytes = 0;
      return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate %zu bytes of team scratch", bytes);
    }
  }
  space->scratch_bytes = rounded;
  return TP_SUCCESS;
}

/* ---- copies --------------------------------------------------------------- */
static tp_status tp_host_check_copy(tp_space *space, void *dst, const void *src, size_t bytes) {
  TP_CHECK_ARG(space, "space must not be NULL");
  TP_CHECK_ARG(bytes == 0 || (dst && src), "NULL pointer in a copy of %zu bytes", bytes);
  TP_TRY(tp_space_check_span(space, dst, bytes, "copy destination"));
  return tp_space_check_span(space, src, bytes, "copy source");
}

/* Large copies are split over the threads, so that a copy measures memory bandwidth. */
static void tp_host_parallel_copy(tp_space *space, void *dst, const void *src, size_t bytes) {
  const size_t chunk = (size_t)1 << 20;
  int64_t chunks = (int64_t)((bytes + chunk - 1) / chunk);
  int threads = space->threads;
  (void)threads;
  TP_OMP(omp parallel for schedule(static) num_threads(threads) if (chunks > 1))
  for (int64_t c = 0; c < chunks; ++c) {
    size_t begin = (size_t)c * chunk;
    size_t len = bytes - begin < chunk ? bytes - begin : chunk;
    memcpy((char *)dst + begin, (const char *)src + begin, len);
  }
}

tp_status tp_copy_to_device(tp_space *space, void *dst, const void *src, size_t bytes) {
  TP_TRY(tp_host_check_copy(space, dst, src, bytes));
  tp_host_parallel_copy(space, dst, src, bytes);
  return TP_SUCCESS;
}

tp_status tp_copy_to_host(tp_space *space, void *dst, const void *src, size_t bytes) {
  TP_TRY(tp_host_check_copy(space, dst, src, bytes));
  tp_host_parallel_copy(space, dst, src, bytes);
  return TP_SUCCESS;
}

tp_status tp_copy_on_device(tp_space *space, void *dst, const void *src, size_t bytes) {
  TP_TRY(tp_host_check_copy(space, dst, src, bytes));
  tp_host_parallel_copy(space, dst, src, bytes);
  return TP_SUCCESS;
}

tp_status tp_memset(tp_space *space, void *dst, int byte_value, size_t bytes) {
  TP_CHECK_ARG(space, "space must not be NULL");
  TP_CHECK_ARG(bytes == 0 || dst, "NULL pointer in a memset of %zu bytes", bytes);
  TP_TRY(tp_space_check_span(space, dst, bytes, "memset destination"));
  if (bytes > 0) /* memset's pointer must not be NULL even for 0 bytes */
    memset(dst, byte_value, bytes);
  return TP_SUCCESS;
}

/* ---- timers --------------------------------------------------------------- */
struct tp_timer {
  tp_space *space;
  struct timespec start;
};

tp_status tp_timer_create(tp_space *space, tp_timer **timer) {
  TP_CHECK_ARG(space && timer, "space and timer must not be NULL");
  *timer = (tp_timer *)calloc(1, sizeof **timer);
  if (!*timer)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate a timer");
  (*timer)->space = space;
  return TP_SUCCESS;
}

tp_status tp_timer_destroy(tp_timer **timer) {
  TP_CHECK_ARG(timer, "timer must not be NULL");
  free(*timer);
  *timer = NULL;
  return TP_SUCCESS;
}

tp_status tp_timer_start(tp_timer *timer) {
  TP_CHECK_ARG(timer, "timer must not be NULL");
  clock_gettime(CLOCK_MONOTONIC, &timer->start);
  return TP_SUCCESS;
}

tp_status tp_timer_stop(tp_timer *timer, double *milliseconds) {
  TP_CHECK_ARG(timer && milliseconds, "timer and milliseconds must not be NULL");
  struct timespec stop;
  clock_gettime(CLOCK_MONOTONIC, &stop);
  *milliseconds = (double)(stop.tv_sec - timer->start.tv_sec) * 1e3 +
                  (double)(stop.tv_nsec - timer->start.tv_nsec) * 1e-6;
  return TP_SUCCESS;
}

/* ---- recorded work: host spaces run launches as they are issued -------------- */
struct tp_recording {
  int unused;
};

int tp_space_can_record(const tp_space *space) {
  (void)space;
  return 0;
}

tp_status tp_space_record_begin(tp_space *space) {
  (void)space;
  return TP_ERROR(TP_ERROR_NOT_SUPPORTED, "host spaces run work as it is issued; they do not "
                                          "record it (check tp_space_can_record)");
}

tp_status tp_space_record_end(tp_space *space, tp_recording **recording) {
  (void)space;
  if (recording)
    *recording = NULL;
  return TP_ERROR(TP_ERROR_NOT_SUPPORTED, "host spaces do not record work");
}

tp_status tp_space_replay(tp_space *space, tp_recording *recording) {
  (void)space, (void)recording;
  return TP_ERROR(TP_ERROR_NOT_SUPPORTED, "host spaces do not record work");
}

tp_status tp_recording_destroy(tp_recording **recording) {
  TP_CHECK_ARG(recording, "recording must not be NULL");
  *recording = NULL;
  return TP_SUCCESS;
}
