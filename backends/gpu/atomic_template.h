/* The atomics of one type on GPUs. Global scope: visible to the whole device; _team: only
 * the calling team touches the location (team scratch, or memory the team owns). tp_gpu.h
 * includes this file once per type with
 *   ATOMIC_T, ATOMIC_SFX  the type and its suffix (int64_t, i64)
 *   ATOMIC_U              the type the runtime's atomicAdd and atomicCAS take for it
 * and for the floating-point types
 *   ATOMIC_BITS           the unsigned integer of its size, which max compares and swaps
 *   ATOMIC_TO_BITS, ATOMIC_FROM_BITS  the bit casts between the two
 * and undefines them at its end.
 * generates: tp_atomic_add_<T> tp_atomic_add_<T>_team tp_atomic_fetch_add_<T>
 * tp_atomic_fetch_add_<T>_team tp_atomic_max_<T> tp_atomic_max_<T>_team for T in i32 u32
 * i64 u64 f32 f64, and for the integers also tp_atomic_cas_<T> tp_atomic_cas_<T>_team
 * tp_atomic_load_<T> tp_atomic_load_relaxed_<T> tp_atomic_store_<T>
 * tp_atomic_store_relaxed_<T> (tp_atomic_fetch_add_i64_team, tp_atomic_max_f32) */

#define ATOMIC_OP(op) TP_PASTE3(tp_atomic_, op, TP_PASTE(_, ATOMIC_SFX))
#define ATOMIC_TEAM_OP(op) TP_PASTE(ATOMIC_OP(op), _team)

TP_DEVICE void ATOMIC_OP(add)(ATOMIC_T *p, ATOMIC_T v) { atomicAdd((ATOMIC_U *)p, (ATOMIC_U)v); }
TP_DEVICE void ATOMIC_TEAM_OP(add)(ATOMIC_T *p, ATOMIC_T v) {
  tpg_atomic_add_block((ATOMIC_U *)p, (ATOMIC_U)v);
}
TP_DEVICE ATOMIC_T ATOMIC_OP(fetch_add)(ATOMIC_T *p, ATOMIC_T v) {
  return (ATOMIC_T)atomicAdd((ATOMIC_U *)p, (ATOMIC_U)v);
}
TP_DEVICE ATOMIC_T ATOMIC_TEAM_OP(fetch_add)(ATOMIC_T *p, ATOMIC_T v) {
  return (ATOMIC_T)tpg_atomic_add_block((ATOMIC_U *)p, (ATOMIC_U)v);
}

#ifdef ATOMIC_BITS
/* Max through compare-and-swap on the bit pattern: stores v when v > *p, so NaN is never
 * stored and a stored NaN stays. */
TP_DEVICE ATOMIC_T ATOMIC_OP(max)(ATOMIC_T *p, ATOMIC_T v) {
  ATOMIC_BITS old = *(volatile ATOMIC_BITS *)p;
  while (v > ATOMIC_FROM_BITS(old)) {
    ATOMIC_BITS seen = atomicCAS((ATOMIC_BITS *)p, old, ATOMIC_TO_BITS(v));
    if (seen == old)
      break;
    old = seen;
  }
  return ATOMIC_FROM_BITS(old);
}
#else
TP_DEVICE ATOMIC_T ATOMIC_OP(cas)(ATOMIC_T *p, ATOMIC_T expected, ATOMIC_T desired) {
  return (ATOMIC_T)atomicCAS((ATOMIC_U *)p, (ATOMIC_U)expected, (ATOMIC_U)desired);
}
TP_DEVICE ATOMIC_T ATOMIC_TEAM_OP(cas)(ATOMIC_T *p, ATOMIC_T expected, ATOMIC_T desired) {
  return (ATOMIC_T)tpg_atomic_cas_block((ATOMIC_U *)p, (ATOMIC_U)expected, (ATOMIC_U)desired);
}
TP_DEVICE ATOMIC_T ATOMIC_OP(max)(ATOMIC_T *p, ATOMIC_T v) {
  ATOMIC_T old = *(volatile ATOMIC_T *)p;
  while (v > old) {
    ATOMIC_T seen = ATOMIC_OP(cas)(p, old, v);
    if (seen == old)
      break;
    old = seen;
  }
  return old;
}
TP_DEVICE ATOMIC_T ATOMIC_OP(load_relaxed)(const ATOMIC_T *p) {
  return *(const volatile ATOMIC_T *)p;
}
TP_DEVICE ATOMIC_T ATOMIC_OP(load)(const ATOMIC_T *p) { /* acquire: later reads see after */
  ATOMIC_T v = *(const volatile ATOMIC_T *)p;
  __threadfence();
  return v;
}
TP_DEVICE void ATOMIC_OP(store)(ATOMIC_T *p, ATOMIC_T v) {
  __threadfence();
  *(volatile ATOMIC_T *)p = v;
}
TP_DEVICE void ATOMIC_OP(store_relaxed)(ATOMIC_T *p, ATOMIC_T v) { *(volatile ATOMIC_T *)p = v; }
#endif
TP_DEVICE ATOMIC_T ATOMIC_TEAM_OP(max)(ATOMIC_T *p, ATOMIC_T v) { return ATOMIC_OP(max)(p, v); }

#undef ATOMIC_OP
#undef ATOMIC_TEAM_OP
#undef ATOMIC_T
#undef ATOMIC_SFX
#undef ATOMIC_U
#undef ATOMIC_BITS
#undef ATOMIC_TO_BITS
#undef ATOMIC_FROM_BITS
