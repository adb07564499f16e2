/* C linkage for headers that nvcc and hipcc compile as C++. */
#ifndef TP_EXTERN_C_H
#define TP_EXTERN_C_H
#ifdef __cplusplus
#define TP_EXTERN_C_BEGIN extern "C" {
#define TP_EXTERN_C_END }
#else
#define TP_EXTERN_C_BEGIN
#define TP_EXTERN_C_END
#endif
#endif
