/* Bulk operations of tp_hashmap: each a range kernel over the keys (or the slots) on
 * top of the kernel-side operations of tp_hashmap_device.h. */
/* generates: hm_add hm_clear hm_count hm_count_final hm_find hm_gather hm_insert hm_live */
#include <stdlib.h>

#include "portable/tp_hashmap_device.h"
#include "portable/tp_portable.h"

struct tp_hashmap {
  tp_space *space;
  tp_hashmap_slot *slots;
  int64_t capacity;
  uint32_t *problems; /* [HM_PROBLEMS] flags in the space, raised by bulk kernels */
};

enum { HM_FULL, HM_RESERVED_KEY, HM_PROBLEMS };

/* ---- kernels -------------------------------------------------------------- */
typedef struct hm_clear_args {
  tp_hashmap_slot *slots;
} hm_clear_args;

TP_RANGE_KERNEL(hm_clear, hm_clear_args, i, a) {
  a.slots[i].key = TP_HASHMAP_EMPTY_KEY;
  a.slots[i].value = 0;
}

typedef struct hm_insert_args {
  tp_hashmap_view map;
  const uint64_t *keys, *values;
  uint8_t *inserted;
  uint32_t *problems;
} hm_insert_args;

TP_RANGE_KERNEL(hm_insert, hm_insert_args, i, a) {
  uint64_t key = a.keys[i];
  int inserted = 0;
  if (key == TP_HASHMAP_EMPTY_KEY)
    tp_atomic_max_u32(&a.problems[HM_RESERVED_KEY], 1u);
  else if (tp_hashmap_put(a.map, key, a.values[i], &inserted) < 0)
    tp_atomic_max_u32(&a.problems[HM_FULL], 1u);
  if (a.inserted)
    a.inserted[i] = (uint8_t)inserted;
}

typedef struct hm_find_args {
  tp_hashmap_view map;
  const uint64_t *keys;
  uint64_t *values;
  uint64_t missing;
} hm_find_args;

TP_RANGE_KERNEL(hm_find, hm_find_args, i, a) {
  int64_t slot = tp_hashmap_lookup(a.map, a.keys[i]);
  a.values[i] = slot >= 0 ? a.map.slots[slot].value : a.missing;
}

typedef struct hm_add_args {
  tp_hashmap_view map;
  const uint64_t *keys;
  const int64_t *deltas;
  uint32_t *problems;
} hm_add_args;

TP_RANGE_KERNEL(hm_add, hm_add_args, i, a) {
  uint64_t key = a.keys[i];
  if (key == TP_HASHMAP_EMPTY_KEY)
    tp_atomic_max_u32(&a.problems[HM_RESERVED_KEY], 1u);
  else if (tp_hashmap_add_i64(a.map, key, a.deltas[i]) < 0)
    tp_atomic_max_u32(&a.problems[HM_FULL], 1u);
}

typedef struct hm_count_args {
  tp_hashmap_view map;
} hm_count_args;

TP_RANGE_REDUCE_KERNEL(hm_count, hm_count_args, int64_t, tp_join_sum_i64, 0, i, a, acc) {
  *acc += tp_hashmap_slot_live(a.map, i);
}

typedef struct hm_live_args {
  tp_hashmap_view map;
  uint8_t *live;
} hm_live_args;

TP_RANGE_KERNEL(hm_live, hm_live_args, i, a) {
  a.live[i] = (uint8_t)tp_hashmap_slot_live(a.map, i);
}

typedef struct hm_gather_args {
  const tp_hashmap_slot *slots;
  const int64_t *which;
  uint64_t *keys, *values;
} hm_gather_args;

TP_RANGE_KERNEL(hm_gather, hm_gather_args, i, a) {
  tp_hashmap_slot s = a.slots[a.which[i]];
  a.keys[i] = s.key;
  if (a.values)
    a.values[i] = s.value;
}

/* ---- host side ------------------------------------------------------------ */
static tp_status hm_check(const tp_hashmap *map) {
  TP_CHECK_ARG(map, "map must not be NULL");
  return TP_SUCCESS;
}

tp_status tp_hashmap_create(tp_space *space, int64_t min_capacity, tp_hashmap **map) {
  TP_CHECK_ARG(space && map, "space and map must not be NULL");
  *map = NULL;
  TP_CHECK_ARG(min_capacity >= 0, "capacity %lld is negative", (long long)min_capacity);
  TP_CHECK_ARG(min_capacity <= ((int64_t)1 << 58),
               "capacity %lld is beyond the 2^58 slots a map can address", (long long)min_capacity);
  int64_t capacity = 1;
  while (capacity < min_capacity)
    capacity <<= 1;
  tp_hashmap *m = (tp_hashmap *)calloc(1, sizeof *m);
  if (!m)
    return TP_ERROR(TP_ERROR_OUT_OF_MEMORY, "cannot allocate a hash map handle");
  m->space = space;
  m->capacity = capacity;
  tp_status st = tp_alloc(space, sizeof(tp_hashmap_slot) * (size_t)capacity, (void **)&m->slots);
  if (st == TP_SUCCESS)
    st = tp_alloc(space, sizeof(uint32_t) * HM_PROBLEMS, (void **)&m->problems);
  if (st == TP_SUCCESS)
    st = tp_hashmap_clear(m);
  if (st != TP_SUCCESS) {
    tp_free(space, m->slots);
    tp_free(space, m->problems);
    free(m);
    return st;
  }
  *map = m;
  return TP_SUCCESS;
}

tp_status tp_hashmap_destroy(tp_hashmap **map) {
  TP_CHECK_ARG(map, "map must not be NULL");
  tp_hashmap *m = *map;
  if (!m)
    return TP_SUCCESS;
  tp_status st = tp_free(m->space, m->slots);
  tp_status st2 = tp_free(m->space, m->problems);
  free(m);
  *map = NULL;
  return st != TP_SUCCESS ? st : st2;
}

tp_status tp_hashmap_clear(tp_hashmap *map) {
  TP_TRY(hm_check(map));
  hm_clear_args a;
  a.slots = map->slots;
  return hm_clear_launch(map->space, map->capacity, a);
}

int64_t tp_hashmap_capacity(const tp_hashmap *map) { return map ? map->capacity : 0; }

tp_hashmap_view tp_hashmap_get_view(const tp_hashmap *map) {
  tp_hashmap_view v;
  v.slots = map ? map->slots : NULL;
  v.mask = map ? (uint64_t)map->capacity - 1 : 0;
  return v;
}

/* Turns the problem bits a bulk kernel raised into a status (waits for the kernel). */
static tp_status hm_report(tp_hashmap *map, const char *what) {
  uint32_t problems[HM_PROBLEMS];
  TP_TRY(tp_copy_to_host(map->space, problems, map->problems, sizeof problems));
  if (problems[HM_RESERVED_KEY])
    return TP_ERROR(TP_ERROR_INVALID_ARGUMENT,
                    "%s: a key equals TP_HASHMAP_EMPTY_KEY (2^64 - 1), which marks empty "
                    "slots and cannot be stored",
                    what);
  if (problems[HM_FULL])
    return TP_ERROR(TP_ERROR_CAPACITY,
                    "%s: the map's %lld slots are full; the keys that fit were stored. "
                    "Create a larger map",
                    what, (long long)map->capacity);
  return TP_SUCCESS;
}

static tp_status hm_check_bulk(tp_hashmap *map, const void *keys, const void *other, int64_t n) {
  TP_TRY(hm_check(map));
  TP_CHECK_ARG(n >= 0, "key count %lld is negative", (long long)n);
  TP_CHECK_ARG(n == 0 || (keys && other), "NULL key or value array");
  return TP_SUCCESS;
}

tp_status tp_hashmap_insert(tp_hashmap *map, const uint64_t *keys, const uint64_t *values,
                            int64_t n, uint8_t *inserted) {
  TP_TRY(hm_check_bulk(map, keys, values, n));
  TP_TRY(tp_memset(map->space, map->problems, 0, sizeof(uint32_t) * HM_PROBLEMS));
  hm_insert_args a;
  a.map = tp_hashmap_get_view(map);
  a.keys = keys;
  a.values = values;
  a.inserted = inserted;
  a.problems = map->problems;
  TP_TRY(hm_insert_launch(map->space, n, a));
  return hm_report(map, "tp_hashmap_insert");
}

tp_status tp_hashmap_find(tp_hashmap *map, const uint64_t *keys, int64_t n, uint64_t *values,
                          uint64_t missing_value) {
  TP_TRY(hm_check_bulk(map, keys, values, n));
  hm_find_args a;
  a.map = tp_hashmap_get_view(map);
  a.keys = keys;
  a.values = values;
  a.missing = missing_value;
  return hm_find_launch(map->space, n, a);
}

tp_status tp_hashmap_add(tp_hashmap *map, const uint64_t *keys, const int64_t *deltas, int64_t n) {
  TP_TRY(hm_check_bulk(map, keys, deltas, n));
  TP_TRY(tp_memset(map->space, map->problems, 0, sizeof(uint32_t) * HM_PROBLEMS));
  hm_add_args a;
  a.map = tp_hashmap_get_view(map);
  a.keys = keys;
  a.deltas = deltas;
  a.problems = map->problems;
  TP_TRY(hm_add_launch(map->space, n, a));
  return hm_report(map, "tp_hashmap_add");
}

tp_status tp_hashmap_size(tp_hashmap *map, int64_t *size) {
  TP_TRY(hm_check(map));
  TP_CHECK_ARG(size, "size must not be NULL");
  int64_t *count = NULL;
  TP_TRY(tp_temp_alloc(map->space, sizeof *count, (void **)&count));
  hm_count_args a;
  a.map = tp_hashmap_get_view(map);
  tp_status st = hm_count_launch(map->space, map->capacity, a, count);
  if (st == TP_SUCCESS)
    st = tp_copy_to_host(map->space, size, count, sizeof *size);
  tp_temp_release(map->space, count);
  return st;
}

tp_status tp_hashmap_entries(tp_hashmap *map, uint64_t *keys, uint64_t *values, int64_t *count) {
  TP_TRY(hm_check(map));
  TP_CHECK_ARG(keys && count, "keys and count must not be NULL");
  tp_space *s = map->space;
  uint8_t *live = NULL;
  int64_t *which = NULL, *found = NULL;
  tp_status st;
  TP_TRY_GOTO(st, tp_temp_alloc(s, (size_t)map->capacity, (void **)&live), done);
  TP_TRY_GOTO(st, tp_temp_alloc(s, sizeof(int64_t) * (size_t)map->capacity, (void **)&which), done);
  TP_TRY_GOTO(st, tp_temp_alloc(s, sizeof(int64_t), (void **)&found), done);
  {
    hm_live_args l;
    l.map = tp_hashmap_get_view(map);
    l.live = live;
    TP_TRY_GOTO(st, hm_live_launch(s, map->capacity, l), done);
    TP_TRY_GOTO(st, tp_compact_indices(s, live, map->capacity, which, found), done);
    TP_TRY_GOTO(st, tp_copy_to_host(s, count, found, sizeof *count), done);
    hm_gather_args g;
    g.slots = map->slots;
    g.which = which;
    g.keys = keys;
    g.values = values;
    TP_TRY_GOTO(st, hm_gather_launch(s, *count, g), done);
  }
done:
  tp_temp_release(s, found);
  tp_temp_release(s, which);
  tp_temp_release(s, live);
  return st;
}
