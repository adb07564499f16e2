/* The atomics of one type on the host: GCC's __atomic builtins, relaxed except
 * fetch-add and compare-and-swap (sequentially consistent), load (acquire) and store
 * (release). Team scope: only the calling team touches the location, and a CPU team is
 * one thread, so plain read-modify-writes are exact (and far cheaper than locked ones).
 * tp_host.h includes this file once per type with ATOMIC_T and ATOMIC_SFX (the type and
 * its suffix), and ATOMIC_FLOAT for float and double; it undefines them at its end.
 * generates: tp_atomic_add_<T> tp_atomic_add_<T>_team tp_atomic_fetch_add_<T>
 * tp_atomic_fetch_add_<T>_team tp_atomic_max_<T> tp_atomic_max_<T>_team for T in i32 u32
 * i64 u64 f32 f64, and for the integers also tp_atomic_cas_<T> tp_atomic_cas_<T>_team
 * tp_atomic_load_<T> tp_atomic_load_relaxed_<T> tp_atomic_store_<T>
 * tp_atomic_store_relaxed_<T> (tp_atomic_fetch_add_i64_team, tp_atomic_max_f32) */

#define ATOMIC_OP(op) TP_PASTE3(tp_atomic_, op, TP_PASTE(_, ATOMIC_SFX))
#define ATOMIC_TEAM_OP(op) TP_PASTE(ATOMIC_OP(op), _team)

#ifdef ATOMIC_FLOAT
/* Floating-point add and max: compare-and-swap loops on the value. */
TP_DEVICE ATOMIC_T ATOMIC_OP(fetch_add)(ATOMIC_T *p, ATOMIC_T v) {
  ATOMIC_T old, sum;
  __atomic_load(p, &old, __ATOMIC_RELAXED);
  do {
    sum = old + v;
  } while (!__atomic_compare_exchange(p, &old, &sum, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
  return old;
}
TP_DEVICE void ATOMIC_OP(add)(ATOMIC_T *p, ATOMIC_T v) { (void)ATOMIC_OP(fetch_add)(p, v); }
TP_DEVICE ATOMIC_T ATOMIC_OP(max)(ATOMIC_T *p, ATOMIC_T v) {
  ATOMIC_T old;
  __atomic_load(p, &old, __ATOMIC_RELAXED);
  while (v > old &&
         !__atomic_compare_exchange(p, &old, &v, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
  }
  return old;
}
#else
TP_DEVICE void ATOMIC_OP(add)(ATOMIC_T *p, ATOMIC_T v) {
  __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
TP_DEVICE ATOMIC_T ATOMIC_OP(fetch_add)(ATOMIC_T *p, ATOMIC_T v) {
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
TP_DEVICE ATOMIC_T ATOMIC_OP(cas)(ATOMIC_T *p, ATOMIC_T expected, ATOMIC_T desired) {
  __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return expected;
}
TP_DEVICE ATOMIC_T ATOMIC_OP(max)(ATOMIC_T *p, ATOMIC_T v) {
  ATOMIC_T old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (v > old &&
         !__atomic_compare_exchange_n(p, &old, v, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
  }
  return old;
}
TP_DEVICE ATOMIC_T ATOMIC_OP(load_relaxed)(const ATOMIC_T *p) {
  return __atomic_load_n(p, __ATOMIC_RELAXED);
}
TP_DEVICE ATOMIC_T ATOMIC_OP(load)(const ATOMIC_T *p) {
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
TP_DEVICE void ATOMIC_OP(store)(ATOMIC_T *p, ATOMIC_T v) {
  __atomic_store_n(p, v, __ATOMIC_RELEASE);
}
TP_DEVICE void ATOMIC_OP(store_relaxed)(ATOMIC_T *p, ATOMIC_T v) {
  __atomic_store_n(p, v, __ATOMIC_RELAXED);
}
TP_DEVICE ATOMIC_T ATOMIC_TEAM_OP(cas)(ATOMIC_T *p, ATOMIC_T expected, ATOMIC_T desired) {
  ATOMIC_T old = *p;
  if (old == expected)
    *p = desired;
  return old;
}
#endif

TP_DEVICE ATOMIC_T ATOMIC_TEAM_OP(fetch_add)(ATOMIC_T *p, ATOMIC_T v) {
  ATOMIC_T old = *p;
  *p = old + v;
  return old;
}
TP_DEVICE void ATOMIC_TEAM_OP(add)(ATOMIC_T *p, ATOMIC_T v) { *p += v; }
TP_DEVICE ATOMIC_T ATOMIC_TEAM_OP(max)(ATOMIC_T *p, ATOMIC_T v) {
  ATOMIC_T old = *p;
  if (v > old)
    *p = v;
  return old;
}

#undef ATOMIC_OP
#undef ATOMIC_TEAM_OP
#undef ATOMIC_T
#undef ATOMIC_SFX
#undef ATOMIC_FLOAT
