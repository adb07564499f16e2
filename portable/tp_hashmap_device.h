/* Kernel-side operations on a tp_hashmap_view: open addressing with linear probing,
 * keys claimed by compare-and-swap. Written once on the portable atomics.
 *
 * A key, once claimed, never moves, so a slot index stays valid for the map's life.
 * Values are plain 64-bit words: tp_hashmap_put stores one for a new key, and
 * tp_hashmap_add_i64 updates one atomically; a value stored by put becomes visible to
 * other threads of the same kernel only when that kernel ends. */
#ifndef TP_HASHMAP_DEVICE_H
#define TP_HASHMAP_DEVICE_H

#include "tenport/hashmap.h"
#include "portable/tp_portable.h"

/* A 64-bit finaliser (good avalanche), so that structured keys spread over the table. */
TP_INLINE uint64_t tp_hash_u64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return k;
}

/* Finds or claims the slot of key. Returns its index, or -1 if the table is full;
 * *inserted tells whether this call claimed it. key must not be TP_HASHMAP_EMPTY_KEY. */
TP_DEVICE int64_t tp_hashmap_claim(tp_hashmap_view m, uint64_t key, int *inserted) {
  uint64_t i = tp_hash_u64(key) & m.mask;
  *inserted = 0;
  for (uint64_t probe = 0; probe <= m.mask; ++probe, i = (i + 1) & m.mask) {
    uint64_t seen = tp_atomic_load_relaxed_u64(&m.slots[i].key);
    if (seen == TP_HASHMAP_EMPTY_KEY)
      seen = tp_atomic_cas_u64(&m.slots[i].key, TP_HASHMAP_EMPTY_KEY, key);
    if (seen == TP_HASHMAP_EMPTY_KEY) {
      *inserted = 1;
      return (int64_t)i;
    }
    if (seen == key)
      return (int64_t)i;
  }
  return -1;
}

/* Slot of key, or -1 if absent. */
TP_DEVICE int64_t tp_hashmap_lookup(tp_hashmap_view m, uint64_t key) {
  if (key == TP_HASHMAP_EMPTY_KEY) /* never stored: it marks empty slots */
    return -1;
  uint64_t i = tp_hash_u64(key) & m.mask;
  for (uint64_t probe = 0; probe <= m.mask; ++probe, i = (i + 1) & m.mask) {
    uint64_t seen = tp_atomic_load_relaxed_u64(&m.slots[i].key);
    if (seen == key)
      return (int64_t)i;
    if (seen == TP_HASHMAP_EMPTY_KEY)
      return -1;
  }
  return -1;
}

/* Inserts key with value if absent (an existing key keeps its value). Returns the slot
 * or -1 if full; *inserted as for tp_hashmap_claim. */
TP_DEVICE int64_t tp_hashmap_put(tp_hashmap_view m, uint64_t key, uint64_t value, int *inserted) {
  int64_t slot = tp_hashmap_claim(m, key, inserted);
  if (slot >= 0 && *inserted)
    m.slots[slot].value = value;
  return slot;
}

/* Atomically adds delta to key's value (absent keys start at 0). Returns the slot or -1. */
TP_DEVICE int64_t tp_hashmap_add_i64(tp_hashmap_view m, uint64_t key, int64_t delta) {
  int inserted;
  int64_t slot = tp_hashmap_claim(m, key, &inserted);
  if (slot >= 0)
    tp_atomic_add_u64(&m.slots[slot].value, (uint64_t)delta);
  return slot;
}

TP_DEVICE int tp_hashmap_slot_live(tp_hashmap_view m, int64_t slot) {
  return m.slots[slot].key != TP_HASHMAP_EMPTY_KEY;
}

#endif
