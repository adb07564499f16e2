/* Serial backend: the reference. Plain loops, one thread. */
#ifndef TP_BACKEND_H
#define TP_BACKEND_H
#define TP_BACKEND_NAME "serial"
#define TP_OMP(...)
#define TP_HOST_THREAD_NUM() 0
#define TP_HOST_DEFAULT_THREADS() 1
#define TP_HOST_THREADED 0
#include "backends/host/tp_host.h"
#endif
