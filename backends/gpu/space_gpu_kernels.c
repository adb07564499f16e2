/* Spaces of the GPU backends: device selection, a stream, device memory, launches. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tenport/memory.h"
#include "tp_backend.h"
#include "portable/tp_handles.h"
#include "portable/tp_host_memory.h"

struct tp_space {
  tp_space_common common;
  int device;
  tpg_stream_t stream;
  int owns_stream;
  tpg_device_prop props;
  /* Lanes: lane_streams[0] is stream; the others are created on first use. */
  tpg_stream_t lane_streams[TP_SPACE_MAX_LANES];
  tpg_event_t lane_event;
  int lanes_made, lanes_open;
  tpg_stream_t current; /* where work goes now */
};

/* Turns a runtime error into a tp_status with the call's text and the runtime's words. */
static tp_status tpg_status(tpg_error_t e, const char *what, const char *file, int line,
                            const char *func) {
  if (e == TPG_SUCCESS)
    return TP_SUCCESS;
  tp_status code = e == TPG_ERROR_MEMORY ? TP_ERROR_OUT_OF_MEMORY : TP_ERROR_DEVICE;
  (void)TPG(GetLastError)(); /* clear non-sticky errors so later calls are unaffected */
  return tp_error_raise(code, file, line, func, "%s failed: %s (%s)", what, TPG(GetErrorString)(e),
                        TPG(GetErrorName)(e));
}

#define TPG_CHECK(call) TP_TRY(tpg_status((call), #call, __FILE__, __LINE__, __func__))

tp_space_common *tp_space_common_of(tp_space *space) { return &space->common; }

const char *tp_backend_name(void) { return TP_BACKEND_NAME; }

tp_status tp_device_count(int *count) {
  TP_CHECK_ARG(count, "count must not be NULL");
  *count = 0;
  tpg_error_t e = TPG(GetDeviceCount)(count);
  if (e == TPG_ERROR_NO_DEVICE) {
    (void)TPG(GetLastError)();
    *count = 0;
    return TP_SUCCESS;
  }
  if (e != TPG_SUCCESS)
    *count = 0;
  TPG_CHECK(e);
  return TP_SUCCESS;
}

static tp_status tpg_select(const tp_space *space) {
  TPG_CHECK(TPG(SetDevice)(space->device));
  return TP_SUCCESS;
}

tp_status tp_backend_raw_alloc(tp_space *space, size_t bytes, void **ptr) {
  TP_TRY(tpg_select(space));
  tpg_error_t e = TPG(Malloc)(ptr, bytes);
  if (e != TPG_SUCCESS) {
    *ptr = NULL;
    (void)TPG(GetLastError)();
    if (e == TPG_ERROR_MEMORY)
      return TP_ERROR(TP_ERROR_OUT_OF_MEMORY,
                      "cannot allocate %zu bytes on device %d (%zu bytes held by this space)",
                      bytes, space->device, space->common.bytes_in_use);
    TPG_CHECK(e);
  }
  return TP_SUCCESS;
}

void tp_backend_raw_free(tp_space *space, void *ptr) {
  if (tpg_select(space) == TP_SUCCESS)
    (void)TPG(Free)(ptr);
}

/* Large requests are compared with the device's free memory first, for a message that
 * says what was asked and what is there. */
tp_status tp_backend_memory_check(tp_space *space, size_t bytes, const char *what) {
  if (bytes < TP_HOST_MEMORY_CHECK_FROM)
    return TP_SUCCESS;
  size_t free_bytes = 0, total_bytes = 0;
  TP_TRY(tpg_select(space));
  TPG_CHECK(TPG(MemGetInfo)(&free_bytes, &total_bytes));
  if (bytes <= free_bytes)
    return TP_SUCCESS;
  char total[32], held[32], bound[256];
  tp_bytes_format(total_bytes, total, sizeof total);
  tp_bytes_format(space->common.bytes_in_use, held, sizeof held);
  snprintf(bound, sizeof bound, "free on device %d, %.96s, of %s; this space holds %s",
           space->device, space->props.name, total, held);
  return tp_memory_does_not_fit(bytes, what, free_bytes, bound);
}

tp_status tp_space_create(tp_space **space, const tp_space_options *opts) {
  TP_CHECK_ARG(space, "space must not be NULL");
  *space = NULL;
  tp_space_options o = opts ? *opts : tp_space_options_default();
  int count = 0;
  TP_TRY(tp_device_count(&count));
  if (count == 0)
    return TP_ERROR(TP_ERROR_DEVICE, "no %s device is available", TP_BACKEND_NAME);
  TP_CHECK_ARG(o.device >= 0 && o.device < count, "device %d does not exist (%d available)",
               o.device, count);
  TP_CHECK_ARG(o.threads >= 0 && o.threads <= TP_MAX_THREADS,
               "thread count %d is not from 0 (the default) to %d", o.threads, TP_MAX_THREADS);
  tp_space *s = (tp_space *)calloc(1, sizeof *s);
  if (!s)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate a space");
  s->device = o.device;
  s->common.memory_limit = o.memory_limit;
  tp_status st = tpg_select(s);
  if (st == TP_SUCCESS)
    st = tpg_status(tpg_get_device_properties(&s->props, s->device), "GetDeviceProperties",
                    __FILE__, __LINE__, __func__);
  if (st == TP_SUCCESS && s->props.warpSize != TPG_WARP_SIZE)
    st = TP_ERROR(TP_ERROR_NOT_SUPPORTED,
                  "device %d runs %d-lane warps, but this %s build of tenport assumes %d",
                  s->device, s->props.warpSize, TP_BACKEND_NAME, TPG_WARP_SIZE);
  if (st == TP_SUCCESS && o.stream) {
    s->stream = (tpg_stream_t)o.stream;
  } else if (st == TP_SUCCESS) {
    st = tpg_status(TPG(StreamCreateWithFlags)(&s->stream, TPG(StreamNonBlocking)),
                    "StreamCreateWithFlags", __FILE__, __LINE__, __func__);
    s->owns_stream = st == TP_SUCCESS;
  }
  if (st != TP_SUCCESS) {
    free(s);
    return st;
  }
  s->current = s->lane_streams[0] = s->stream;
  s->lanes_made = s->lanes_open = 1;
  tp_status listed = tpi_handle_list(s, "space");
  if (listed == TP_SUCCESS)
    *space = s;
  else /* no host memory for one more pointer: the streams stay with the process */
    free(s);
  return listed;
}

tp_status tp_space_destroy(tp_space **space) {
  TP_CHECK_ARG(space, "space must not be NULL");
  tp_space *s = *space;
  if (!s)
    return TP_SUCCESS;
  TP_CHECK_LIVE(s, "space"); /* not destroyed already through a copy of the handle */
  tp_status st = tp_space_fence(s);
  tpi_handle_unlist(s, "space");
  size_t leaked = tp_space_common_release_all(s);
  for (int l = 1; l < s->lanes_made; ++l)
    (void)TPG(StreamDestroy)(s->lane_streams[l]);
  if (s->lanes_made > 1)
    (void)TPG(EventDestroy)(s->lane_event);
  if (s->owns_stream)
    (void)TPG(StreamDestroy)(s->stream);
  free(s);
  *space = NULL;
  if (st == TP_SUCCESS && leaked)
    st = TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                  "%zu allocation(s) still held when the space was destroyed; they are "
                  "freed now",
                  leaked);
  return st;
}

tp_status tp_space_fence(tp_space *space) {
  TP_CHECK_ARG(space, "space must not be NULL");
  TP_CHECK_LIVE(space, "space");
  TP_TRY(tpg_select(space));
  for (int l = 0; l < space->lanes_open; ++l)
    TPG_CHECK(TPG(StreamSynchronize)(space->lane_streams[l]));
  return TP_SUCCESS;
}

void *tp_space_stream(const tp_space *space) { return space ? (void *)space->current : NULL; }

/* ---- lanes ---------------------------------------------------------------- */
/* `waiter` starts its later work after what `signaler` has been given so far. */
static tp_status tpg_stream_wait(tp_space *space, tpg_stream_t waiter, tpg_stream_t signaler) {
  TPG_CHECK(TPG(EventRecord)(space->lane_event, signaler));
  TPG_CHECK(TPG(StreamWaitEvent)(waiter, space->lane_event, 0));
  return TP_SUCCESS;
}

static tp_status tpg_make_lanes(tp_space *space, int want) {
  if (space->lanes_made == 1 && want > 1)
    TPG_CHECK(TPG(EventCreateWithFlags)(&space->lane_event, TPG(EventDisableTiming)));
  while (space->lanes_made < want) {
    TPG_CHECK(TPG(StreamCreateWithFlags)(&space->lane_streams[space->lanes_made],
                                         TPG(StreamNonBlocking)));
    space->lanes_made++;
  }
  return TP_SUCCESS;
}

tp_status tp_space_lanes_begin(tp_space *space, int want, int *got) {
  TP_CHECK_ARG(space && got, "space and got must not be NULL");
  TP_CHECK_ARG(want >= 1 && want <= TP_SPACE_MAX_LANES, "lanes %d outside 1..%d", want,
               TP_SPACE_MAX_LANES);
  TP_CHECK_ARG(space->lanes_open == 1, "lanes are already open on this space");
  TP_TRY(tpg_select(space));
  TP_TRY(tpg_make_lanes(space, want));
  for (int l = 1; l < want; ++l)
    TP_TRY(tpg_stream_wait(space, space->lane_streams[l], space->stream));
  space->lanes_open = want;
  space->current = space->stream;
  *got = want;
  return TP_SUCCESS;
}

tp_status tp_space_lane_select(tp_space *space, int lane) {
  TP_CHECK_ARG(space, "space must not be NULL");
  TP_CHECK_ARG(lane >= 0 && lane < space->lanes_open, "lane %d does not exist (%d open)", lane,
               space->lanes_open);
  space->current = space->lane_streams[lane];
  return TP_SUCCESS;
}

tp_status tp_space_lane_after(tp_space *space, int lane) {
  TP_CHECK_ARG(space, "space must not be NULL");
  TP_CHECK_ARG(lane >= 0 && lane < space->lanes_open, "lane %d does not exist (%d open)", lane,
               space->lanes_open);
  if (space->lane_streams[lane] == space->current)
    return TP_SUCCESS; /* a lane's own work is in order already */
  TP_TRY(tpg_select(space));
  return tpg_stream_wait(space, space->current, space->lane_streams[lane]);
}

tp_status tp_space_lanes_end(tp_space *space) {
  TP_CHECK_ARG(space, "space must not be NULL");
  TP_TRY(tpg_select(space));
  tp_status st = TP_SUCCESS;
  for (int l = 1; l < space->lanes_open && st == TP_SUCCESS; ++l)
    st = tpg_stream_wait(space, space->stream, space->lane_streams[l]);
  space->lanes_open = 1;
  space->current = space->stream;
  if (st == TP_SUCCESS)
    tp_temp_joined(space, space->stream);
  return st;
}

int tp_space_launch_threads(const tp_space *space) {
  (void)space; /* a GPU launch is sized by its own work */
  return 0;
}

tp_status tp_space_get_info(const tp_space *space, tp_space_info *info) {
  TP_CHECK_ARG(space && info, "space and info must not be NULL");
  const tpg_device_prop *p = &space->props;
  memset(info, 0, sizeof *info);
  info->backend = TP_BACKEND_NAME;
  snprintf(info->device_name, sizeof info->device_name, "%s", p->name);
  info->is_gpu = 1;
  info->device = space->device;
  info->compute_units = p->multiProcessorCount;
  info->warp_size = p->warpSize;
  info->max_vector_length = p->warpSize < TPG_WARP_SIZE ? p->warpSize : TPG_WARP_SIZE;
  info->max_team_threads = p->maxThreadsPerBlock;
  size_t reserve = TPG_TEAM_RESERVE(p->maxThreadsPerBlock);
  size_t optin = tpg_prop_shared_per_block_optin(p);
  info->max_scratch_bytes = optin > reserve ? optin - reserve : 0;
  /* L1 and shared memory are one array per multiprocessor on recent GPUs. */
  info->l1_bytes = tpg_prop_shared_per_sm(p);
  info->l2_bytes = (size_t)p->l2CacheSize;
  info->memory_bytes = p->totalGlobalMem;
  return TP_SUCCESS;
}

size_t tp_team_scratch_limit(const tp_space *space, int team_size) {
  size_t optin = tpg_prop_shared_per_block_optin(&space->props);
  size_t reserve = TPG_TEAM_RESERVE(team_size > 0 ? team_size : 1);
  return optin > reserve ? optin - reserve : 0;
}

/* ---- copies --------------------------------------------------------------- */
static tp_status tpg_copy(tp_space *space, void *dst, const void *src, size_t bytes, int wait) {
  TP_CHECK_ARG(space, "space must not be NULL");
  TP_CHECK_ARG(bytes == 0 || (dst && src), "NULL pointer in a copy of %zu bytes", bytes);
  if (bytes == 0)
    return TP_SUCCESS;
  TP_TRY(tp_space_check_span(space, dst, bytes, "copy destination"));
  TP_TRY(tp_space_check_span(space, src, bytes, "copy source"));
  TP_TRY(tpg_select(space));
  TPG_CHECK(TPG(MemcpyAsync)(dst, src, bytes, TPG(MemcpyDefault), space->current));
  if (wait)
    TPG_CHECK(TPG(StreamSynchronize)(space->current));
  return TP_SUCCESS;
}

tp_status tp_copy_to_device(tp_space *space, void *dst, const void *src, size_t bytes) {
  return tpg_copy(space, dst, src, bytes, 1);
}

tp_status tp_copy_to_host(tp_space *space, void *dst, const void *src, size_t bytes) {
  return tpg_copy(space, dst, src, bytes, 1);
}

tp_status tp_copy_on_device(tp_space *space, void *dst, const void *src, size_t bytes) {
  return tpg_copy(space, dst, src, bytes, 0);
}

tp_status tp_memset(tp_space *space, void *dst, int byte_value, size_t bytes) {
  TP_CHECK_ARG(space, "space must not be NULL");
  TP_CHECK_ARG(bytes == 0 || dst, "NULL pointer in a memset of %zu bytes", bytes);
  if (bytes == 0)
    return TP_SUCCESS;
  TP_TRY(tp_space_check_span(space, dst, bytes, "memset destination"));
  TP_TRY(tpg_select(space));
  TPG_CHECK(TPG(MemsetAsync)(dst, byte_value, bytes, space->current));
  return TP_SUCCESS;
}

/* ---- launches ------------------------------------------------------------- */
tp_status tpg_range_setup(tp_space *space, int64_t n, const char *kernel, tpg_launch *cfg) {
  TP_CHECK_ARG(space, "kernel %s: space must not be NULL", kernel);
  TP_TRY(tp_check_range(n, kernel));
  TP_TRY(tpg_select(space));
  /* One wave of full blocks at most; the kernels stride over the rest. */
  int64_t max_blocks = (int64_t)space->props.multiProcessorCount *
                       (space->props.maxThreadsPerMultiProcessor / TPG_RANGE_BLOCK);
  int64_t blocks = (n + TPG_RANGE_BLOCK - 1) / TPG_RANGE_BLOCK;
  cfg->grid = (unsigned)(blocks < 1 ? 1 : (blocks < max_blocks ? blocks : max_blocks));
  cfg->block_x = TPG_RANGE_BLOCK;
  cfg->block_y = 1;
  cfg->shared_bytes = 0;
  cfg->stream = space->current;
  return TP_SUCCESS;
}

tp_status tpg_team_setup(tp_space *space, const tp_team_policy *p, const void *entry,
                         const char *kernel, tpg_launch *cfg) {
  TP_CHECK_ARG(space, "kernel %s: space must not be NULL", kernel);
  TP_TRY(tp_team_policy_check(space, p, kernel));
  TP_TRY(tpg_select(space));
  size_t scratch = (p->scratch_bytes + 15) / 16 * 16;
  size_t shared = TPG_TEAM_RESERVE(p->team_size) + scratch;
  if (shared > 48 * 1024)
    TPG_CHECK(
        TPG(FuncSetAttribute)(entry, TPG(FuncAttributeMaxDynamicSharedMemorySize), (int)shared));
  const int64_t max_grid = 0x7fffffff;
  cfg->grid =
      (unsigned)(p->league_size < max_grid ? (p->league_size > 0 ? p->league_size : 1) : max_grid);
  cfg->block_x = (unsigned)p->vector_length;
  cfg->block_y = (unsigned)p->team_size;
  cfg->shared_bytes = shared;
  cfg->stream = space->current;
  return TP_SUCCESS;
}

tp_status tpg_launch_check(tp_space *space, const char *kernel, const char *file, int line) {
  tpg_error_t e = TPG(GetLastError)();
  if (e != TPG_SUCCESS)
    return tp_error_raise(TP_ERROR_DEVICE, file, line, kernel, "launch failed: %s (%s)",
                          TPG(GetErrorString)(e), TPG(GetErrorName)(e));
#ifdef TP_DEBUG_SYNC
  e = TPG(StreamSynchronize)(space->current);
  if (e != TPG_SUCCESS)
    return tp_error_raise(TP_ERROR_DEVICE, file, line, kernel, "kernel failed: %s (%s)",
                          TPG(GetErrorString)(e), TPG(GetErrorName)(e));
#else
  (void)space;
#endif
  return TP_SUCCESS;
}

/* ---- recorded work ------------------------------------------------------- */
struct tp_recording {
  tpg_graph_exec_t exec;
};

/* Debug builds wait after every launch, which a recording stream cannot do; some
 * runtimes have no graphs (TPG_NO_GRAPHS: the HIP CPU runtime). */
int tp_space_can_record(const tp_space *space) {
#if defined(TP_DEBUG_SYNC) || defined(TPG_NO_GRAPHS)
  (void)space;
  return 0;
#else
  return space != NULL;
#endif
}

tp_status tp_space_record_begin(tp_space *space) {
  TP_CHECK_ARG(space, "space must not be NULL");
  if (!tp_space_can_record(space))
    return TP_ERROR(TP_ERROR_NOT_SUPPORTED, "this %s space cannot record work", TP_BACKEND_NAME);
  TP_TRY(tpg_select(space));
  TPG_CHECK(TPG(StreamBeginCapture)(space->current, TPG_CAPTURE_THREAD_LOCAL));
  return TP_SUCCESS;
}

tp_status tp_space_record_end(tp_space *space, tp_recording **recording) {
  TP_CHECK_ARG(space && recording, "space and recording must not be NULL");
  *recording = NULL;
  tpg_graph_t graph;
  TPG_CHECK(TPG(StreamEndCapture)(space->current, &graph));
  tp_recording *r = (tp_recording *)calloc(1, sizeof *r);
  tpg_error_t e = r ? tpg_graph_instantiate(&r->exec, graph) : TPG_SUCCESS;
  (void)TPG(GraphDestroy)(graph); /* the executable copy is all a replay needs */
  if (!r)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "no host memory for a recording");
  if (e != TPG_SUCCESS) {
    free(r);
    return tpg_status(e, "tpg_graph_instantiate", __FILE__, __LINE__, __func__);
  }
  *recording = r;
  return TP_SUCCESS;
}

tp_status tp_space_replay(tp_space *space, tp_recording *recording) {
  TP_CHECK_ARG(space && recording, "space and recording must not be NULL");
  TP_TRY(tpg_select(space));
  TPG_CHECK(TPG(GraphLaunch)(recording->exec, space->current));
  return TP_SUCCESS;
}

tp_status tp_recording_destroy(tp_recording **recording) {
  TP_CHECK_ARG(recording, "recording must not be NULL");
  if (*recording) {
    (void)TPG(GraphExecDestroy)((*recording)->exec);
    free(*recording);
    *recording = NULL;
  }
  return TP_SUCCESS;
}

/* ---- timers --------------------------------------------------------------- */
struct tp_timer {
  tp_space *space;
  tpg_event_t start, stop;
};

tp_status tp_timer_create(tp_space *space, tp_timer **timer) {
  TP_CHECK_ARG(space && timer, "space and timer must not be NULL");
  TP_TRY(tpg_select(space));
  tp_timer *t = (tp_timer *)calloc(1, sizeof *t);
  if (!t)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate a timer");
  t->space = space;
  tp_status st =
      tpg_status(TPG(EventCreate)(&t->start), "EventCreate", __FILE__, __LINE__, __func__);
  if (st == TP_SUCCESS) {
    st = tpg_status(TPG(EventCreate)(&t->stop), "EventCreate", __FILE__, __LINE__, __func__);
    if (st != TP_SUCCESS)
      (void)TPG(EventDestroy)(t->start);
  }
  if (st != TP_SUCCESS) {
    free(t);
    return st;
  }
  *timer = t;
  return TP_SUCCESS;
}

tp_status tp_timer_destroy(tp_timer **timer) {
  TP_CHECK_ARG(timer, "timer must not be NULL");
  if (*timer) {
    (void)TPG(EventDestroy)((*timer)->start);
    (void)TPG(EventDestroy)((*timer)->stop);
    free(*timer);
    *timer = NULL;
  }
  return TP_SUCCESS;
}

tp_status tp_timer_start(tp_timer *timer) {
  TP_CHECK_ARG(timer, "timer must not be NULL");
  TP_TRY(tpg_select(timer->space));
  TPG_CHECK(TPG(EventRecord)(timer->start, timer->space->stream));
  return TP_SUCCESS;
}

tp_status tp_timer_stop(tp_timer *timer, double *milliseconds) {
  TP_CHECK_ARG(timer && milliseconds, "timer and milliseconds must not be NULL");
  float ms = 0;
  TP_TRY(tpg_select(timer->space));
  TPG_CHECK(TPG(EventRecord)(timer->stop, timer->space->stream));
  TPG_CHECK(TPG(EventSynchronize)(timer->stop));
  TPG_CHECK(TPG(EventElapsedTime)(&ms, timer->start, timer->stop));
  *milliseconds = ms;
  return TP_SUCCESS;
}
