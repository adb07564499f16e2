/* A concurrent open-addressing hash map with 64-bit keys and 64-bit values, living in a
 * space. Bulk operations run as kernels; kernels of the algorithms layer use the same
 * table through tp_hashmap_view (portable/tp_hashmap_device.h). */
#ifndef TENPORT_HASHMAP_H
#define TENPORT_HASHMAP_H

#include <stdint.h>
#include "tenport/export.h"
#include "tenport/space.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The one key value that cannot be stored: it marks empty slots. */
#define TP_HASHMAP_EMPTY_KEY UINT64_MAX

typedef struct tp_hashmap tp_hashmap;

/* One slot: key and value side by side, so a probe touches one memory sector. */
typedef struct tp_hashmap_slot {
  uint64_t key;
  uint64_t value;
} tp_hashmap_slot;

/* What kernels need: the slot array and capacity - 1 (capacity is a power of two). */
typedef struct tp_hashmap_view {
  tp_hashmap_slot *slots;
  uint64_t mask;
} tp_hashmap_view;

/* Creates an empty map of at least min_capacity slots (rounded up to a power of two).
 * Keep the load (entries / capacity) at or below about 0.7 for short probe sequences. */
TP_API tp_status tp_hashmap_create(tp_space *space, int64_t min_capacity, tp_hashmap **map);
TP_API tp_status tp_hashmap_destroy(tp_hashmap **map);

/* Empties the map; every value returns to 0. */
TP_API tp_status tp_hashmap_clear(tp_hashmap *map);

TP_API int64_t tp_hashmap_capacity(const tp_hashmap *map);
TP_API tp_hashmap_view tp_hashmap_get_view(const tp_hashmap *map);

/* Inserts n keys (arrays in the space). A key already present keeps its value; among
 * equal keys inserted together one value wins. inserted (may be NULL) receives 1 where
 * the key was new. Returns TP_ERROR_CAPACITY if the table filled up (the keys that fit
 * are in), TP_ERROR_INVALID_ARGUMENT if a key equals TP_HASHMAP_EMPTY_KEY. */
TP_API tp_status tp_hashmap_insert(tp_hashmap *map, const uint64_t *keys, const uint64_t *values,
                                   int64_t n, uint8_t *inserted);

/* Looks up n keys: values[i] receives the stored value, or missing_value if absent. */
TP_API tp_status tp_hashmap_find(tp_hashmap *map, const uint64_t *keys, int64_t n, uint64_t *values,
                                 uint64_t missing_value);

/* Atomic in-place update: adds deltas[i] to the value of keys[i] (as two's-complement
 * 64-bit integers), inserting absent keys with value 0 first. */
TP_API tp_status tp_hashmap_add(tp_hashmap *map, const uint64_t *keys, const int64_t *deltas,
                                int64_t n);

/* Number of live entries (a host value; waits for the count). */
TP_API tp_status tp_hashmap_size(tp_hashmap *map, int64_t *size);

/* Writes the live entries, in slot order, to keys and values (each with room for
 * tp_hashmap_size entries; values may be NULL); *count receives their number (host). */
TP_API tp_status tp_hashmap_entries(tp_hashmap *map, uint64_t *keys, uint64_t *values,
                                    int64_t *count);

#ifdef __cplusplus
}
#endif
#endif
