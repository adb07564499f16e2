/* SIMD arrays of compile-time width W: a thread's W values, kept in registers on GPUs
 * and in vector lanes on CPUs. Types are named tp_<T>x<W> (tp_f64x4) and their
 * operations tp_<T>x<W>_<op> (tp_f64x4_fma), generated once per type and width by
 * portable/simd_template.h in the widths 1, 2, 3, 4, 8, 12, 16 and 32.
 *
 *   zero, fill(s), load(p), load_n(p, n), store(p, a), store_n(p, a, n)
 *   add(a, b), sub(a, b), mul(a, b), scale(a, s), fma(a, b, c) = a*b + c,
 *   fma_s(a, s, c) = a*s + c, max(a, b) = b > a ? b : a, hsum(a), dot(a, b)
 *
 * load_n reads the first n (0 <= n <= W) elements and zeroes the other lanes; store_n
 * writes the first n and leaves memory past them untouched, so ragged tails need no
 * separate code. fma rounds once where the compiler contracts a*b + c (nvcc does by
 * default, the host build without -mfma does not). */
#ifndef TP_SIMD_H
#define TP_SIMD_H

#include "portable/tp_paste.h"

#define TP_LANE_LOOP(k, W) TP_LANES for (int k = 0; k < (W); ++k)

#define SIMD_T float
#define SIMD_SFX f32
#include "portable/simd_widths_template.h"

#define SIMD_T double
#define SIMD_SFX f64
#include "portable/simd_widths_template.h"

#endif
