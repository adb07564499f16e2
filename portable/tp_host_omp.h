/* OpenMP pragmas for host-side loops in algorithm code (pre- and post-processing that
 * runs on the CPU whatever the backend): active where the host compiler has OpenMP
 * enabled, nothing otherwise, so algorithm sources need no conditionals.
 *
 * Where they are active: the openmp, cuda and hip backends compile their host C with
 * OpenMP (backends/meson.build), so readers, duplicate merging and FLYCOO's host steps
 * use every core whatever runs the kernels. The serial backend does not: it is the
 * single-threaded reference, needs no OpenMP runtime, and its results are the ones the
 * threaded builds are checked against. Host loops written with these pragmas must give
 * the same result for any thread count (fixed blocks, ordered merges), so the serial
 * build and a threaded one agree bit for bit. */
#ifndef TP_HOST_OMP_H
#define TP_HOST_OMP_H

#ifdef _OPENMP
#define TP_HOST_OMP(...) _Pragma(#__VA_ARGS__)
#else
#define TP_HOST_OMP(...)
#endif

#endif
