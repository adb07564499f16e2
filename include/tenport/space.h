/* Execution spaces: which device runs tenport's kernels, on which stream, and what it offers. */
#ifndef TENPORT_SPACE_H
#define TENPORT_SPACE_H

#include <stddef.h>
#include <stdint.h>
#include "tenport/export.h"
#include "tenport/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A space owns a device (or the host's threads), a stream, allocations and cached
 * temporary memory. Use one space from one host thread at a time. */
typedef struct tp_space tp_space;

/* The most host threads a space may have (tp_space_options.threads, tenport -t). */
#define TP_MAX_THREADS 4096

typedef struct tp_space_options {
  int device;          /* GPU index; must be 0 on the CPU backends */
  int threads;         /* OpenMP threads, 1 to TP_MAX_THREADS; 0 = the OpenMP default.
                          Ignored elsewhere */
  void *stream;        /* an existing cudaStream_t / hipStream_t to run on; NULL = create one */
  size_t memory_limit; /* bytes this space may hold at once; 0 = no limit */
} tp_space_options;

typedef struct tp_space_info {
  const char *backend; /* "serial", "openmp", "cuda" or "hip" */
  char device_name[256];
  int is_gpu;
  int device;
  int compute_units;        /* multiprocessors on a GPU, threads on the CPU */
  int warp_size;            /* 32 or 64 on GPUs, 1 on the CPU */
  int max_vector_length;    /* largest vector length a team policy accepts */
  int max_team_threads;     /* team_size * vector_length limit */
  size_t max_scratch_bytes; /* team scratch any team may request (teams of fewer
                                  threads may ask for a little more on GPUs) */
  size_t l1_bytes;          /* per compute unit (0 if unknown) */
  size_t l2_bytes;          /* last-level cache shared by all units (0 if unknown) */
  size_t memory_bytes;      /* device memory, or host memory on the CPU */
} tp_space_info;

/* Defaults: device 0, default threads, own stream, no memory limit. */
TP_API tp_space_options tp_space_options_default(void);

/* Name of the backend this library was built for. */
TP_API const char *tp_backend_name(void);

/* Number of devices the backend can use (1 on the CPU backends, 0 if no GPU). */
TP_API tp_status tp_device_count(int *count);

/* Creates a space; opts may be NULL for the defaults. */
TP_API tp_status tp_space_create(tp_space **space, const tp_space_options *opts);

/* Waits for outstanding work, frees cached memory and sets *space to NULL.
 * Allocations still held by the caller are freed too, and reported as an error. */
TP_API tp_status tp_space_destroy(tp_space **space);

/* Blocks until every operation issued on the space has finished. */
TP_API tp_status tp_space_fence(tp_space *space);

TP_API tp_status tp_space_get_info(const tp_space *space, tp_space_info *info);

/* The native stream (cudaStream_t / hipStream_t) of the selected lane, or NULL on the CPU
 * backends. */
TP_API void *tp_space_stream(const tp_space *space);

/* ---- concurrent lanes --------------------------------------------------------
 * A space runs its work in issue order. Between tp_space_lanes_begin and
 * tp_space_lanes_end, work may be sent to one of several lanes (GPU streams) that run
 * concurrently with each other; each lane still runs its own work in order. Lane 0 is
 * the space's stream. Host spaces have one lane: the calls succeed and work stays in
 * order. Lanes help when kernels leave the device partly idle (a GEMM's last wave). */
#define TP_SPACE_MAX_LANES 4

/* Opens up to `want` lanes (1..TP_SPACE_MAX_LANES), each starting after the work issued
 * so far; *got receives how many the backend gives (1 on the host). Lane 0 is selected. */
TP_API tp_status tp_space_lanes_begin(tp_space *space, int want, int *got);
/* Sends the work issued from now on to lane `lane` (< the count given by begin). */
TP_API tp_status tp_space_lane_select(tp_space *space, int lane);
/* Work sent to the selected lane from now on starts after the work lane `lane` has been
 * given so far (an ordering between two lanes; the others run on). */
TP_API tp_status tp_space_lane_after(tp_space *space, int lane);
/* Later work on the space starts after every lane's work; lane 0 is selected again. */
TP_API tp_status tp_space_lanes_end(tp_space *space);

/* ---- recorded work --------------------------------------------------------------
 * Launches issued between tp_space_record_begin and tp_space_record_end are recorded
 * instead of run (a CUDA or HIP graph); tp_space_replay runs the whole sequence again,
 * with the same arguments, for the cost of about one launch. Worth it for long runs of
 * small kernels whose sizes live in device memory. Only launches may be recorded (no
 * allocation, copy to the host or fence in between). Host spaces cannot record:
 * tp_space_can_record says so, and the caller issues the work directly. */
typedef struct tp_recording tp_recording;
TP_API int tp_space_can_record(const tp_space *space);
TP_API tp_status tp_space_record_begin(tp_space *space);
TP_API tp_status tp_space_record_end(tp_space *space, tp_recording **recording);
TP_API tp_status tp_space_replay(tp_space *space, tp_recording *recording);
TP_API tp_status tp_recording_destroy(tp_recording **recording);

/* Bytes currently allocated through the space (tp_alloc and cached temporaries). */
TP_API size_t tp_space_bytes_in_use(const tp_space *space);

/* Largest tp_space_bytes_in_use seen since the space was created or the last reset.
 * Memory a vendor library allocates on its own (cuBLAS workspaces) is not counted. */
TP_API size_t tp_space_bytes_peak(const tp_space *space);
TP_API void tp_space_reset_peak(tp_space *space);

/* Caps the bytes the space may hold; 0 removes the cap. Allocations past it fail
 * with TP_ERROR_OUT_OF_MEMORY. */
TP_API tp_status tp_space_set_memory_limit(tp_space *space, size_t bytes);

/* Frees the temporary buffers the space keeps cached between primitives. */
TP_API tp_status tp_space_trim(tp_space *space);

/* Device-side timing: GPU events on the space's stream, a wall clock on the CPU. */
typedef struct tp_timer tp_timer;
TP_API tp_status tp_timer_create(tp_space *space, tp_timer **timer);
TP_API tp_status tp_timer_destroy(tp_timer **timer);
TP_API tp_status tp_timer_start(tp_timer *timer);
/* Records the stop point, waits for it and returns the milliseconds since start. */
TP_API tp_status tp_timer_stop(tp_timer *timer, double *milliseconds);

#ifdef __cplusplus
}
#endif
#endif
