/* OpenMP pragmas for host-side loops in algorithm code (pre- and post-processing that
 * runs on the CPU whatever the backend): active where the host compiler has OpenMP
 * enabled, nothing otherwise, so algorithm sources need no conditionals. */
#ifndef TP_HOST_OMP_H
#define TP_HOST_OMP_H

#ifdef _OPENMP
#define TP_HOST_OMP(...) _Pragma(#__VA_ARGS__)
#else
#define TP_HOST_OMP(...)
#endif

#endif
