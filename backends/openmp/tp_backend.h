/* OpenMP backend: leagues spread over OpenMP threads. */
#ifndef TP_BACKEND_H
#define TP_BACKEND_H
#include <omp.h>
#define TP_BACKEND_NAME "openmp"
#define TP_OMP(...) _Pragma(#__VA_ARGS__)
#define TP_HOST_THREAD_NUM() omp_get_thread_num()
#define TP_HOST_DEFAULT_THREADS() omp_get_max_threads()
#define TP_HOST_THREADED 1
#include "backends/host/tp_host.h"
#endif
