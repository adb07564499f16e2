/* TP_API marks what the shared library exports: every function of the public headers.
 * The library is compiled with hidden visibility by default, so its internal functions
 * stay out of the dynamic symbol table (tools/ci/exports.sh checks it). */
#ifndef TENPORT_EXPORT_H
#define TENPORT_EXPORT_H

/* GCC and clang, and nvcc and hipcc through them; empty for other compilers. */
#if defined(__GNUC__) || defined(__clang__)
#define TP_API __attribute__((visibility("default")))
#else
#define TP_API
#endif

#endif
