/* The joins of one floating-point type: sum, min and max (NaN propagates) and the arg-max
 * of |x| (NaN ranks above every number; a tie goes to the smallest index). tp_join.h
 * includes this file once per type with JOIN_T (float or double) and JOIN_SFX (f32 or
 * f64); it undefines both at its end.
 * generates: tp_join_sum_f32 tp_join_min_f32 tp_join_max_f32 tp_argmax_f32_identity
 * tp_argmax_f32_make tp_join_argmax_abs_f32 tp_join_sum_f64 tp_join_min_f64 tp_join_max_f64
 * tp_argmax_f64_identity tp_argmax_f64_make tp_join_argmax_abs_f64 */

#define JOIN_NAME(base) TP_PASTE(base, JOIN_SFX)
#define JOIN_ARGMAX JOIN_NAME(tp_argmax_)
#define JOIN_ARGMAX_OP(op) TP_PASTE3(JOIN_ARGMAX, _, op)

TP_INLINE JOIN_T JOIN_NAME(tp_join_sum_)(JOIN_T a, JOIN_T b) { return a + b; }

TP_INLINE JOIN_T JOIN_NAME(tp_join_min_)(JOIN_T a, JOIN_T b) {
  if (a != a)
    return a;
  if (b != b)
    return b;
  return b < a ? b : a;
}

TP_INLINE JOIN_T JOIN_NAME(tp_join_max_)(JOIN_T a, JOIN_T b) {
  if (a != a)
    return a;
  if (b != b)
    return b;
  return b > a ? b : a;
}

/* The pair no element beats: index -1. */
TP_INLINE JOIN_ARGMAX JOIN_ARGMAX_OP(identity)(void) {
  JOIN_ARGMAX r;
  r.value = 0;
  r.index = -1;
  return r;
}

TP_INLINE JOIN_ARGMAX JOIN_ARGMAX_OP(make)(JOIN_T value, int64_t index) {
  JOIN_ARGMAX r;
  r.value = value;
  r.index = index;
  return r;
}

TP_INLINE JOIN_ARGMAX JOIN_NAME(tp_join_argmax_abs_)(JOIN_ARGMAX a, JOIN_ARGMAX b) {
  if (a.index < 0)
    return b;
  if (b.index < 0)
    return a;
  JOIN_T fa = a.value < 0 ? -a.value : a.value;
  JOIN_T fb = b.value < 0 ? -b.value : b.value;
  int a_nan = fa != fa, b_nan = fb != fb;
  if (a_nan != b_nan)
    return a_nan ? a : b;
  if (!a_nan && fa != fb)
    return fa > fb ? a : b;
  return a.index <= b.index ? a : b;
}

#undef JOIN_NAME
#undef JOIN_ARGMAX
#undef JOIN_ARGMAX_OP
#undef JOIN_T
#undef JOIN_SFX
