/* Name pasting and stringizing that expand their arguments first: the *_template.h files
 * build their names from their parameters (TP_PASTE3(tp_join_sum_, JOIN_SFX) is
 * tp_join_sum_f64 when JOIN_SFX is f64), and kernels are named by macros. */
#ifndef TP_PASTE_H
#define TP_PASTE_H

#define TP_PASTE_(a, b) a##b
#define TP_PASTE(a, b) TP_PASTE_(a, b)
#define TP_PASTE3(a, b, c) TP_PASTE(TP_PASTE(a, b), c)
#define TP_STRINGIZE_(x) #x
#define TP_STRINGIZE(x) TP_STRINGIZE_(x)

#endif
