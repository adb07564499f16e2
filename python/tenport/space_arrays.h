/* Arrays in and out of the space, run without the GIL: where the space can read an
 * array where it lies (host arrays on CPU backends, GPU arrays on GPU backends) the
 * library uses it in place; host arrays on a GPU backend are copied in, and results
 * copied back out. */
#ifndef PY_SPACE_ARRAYS_H
#define PY_SPACE_ARRAYS_H

#include "py_tenport.h"

/* A dense tensor descriptor of the array, in place. */
tp_dense py_dense_of(const py_array *a);

/* *X: the array as the space sees it; *copied when it had to be copied into the space
 * (release with py_dense_release). */
tp_status py_dense_to_space(tp_space *space, const py_array *a, tp_dense *X, int *copied);
void py_dense_release(tp_space *space, tp_dense *X, int copied);

/* A Kruskal descriptor of weights (may have data NULL) and order factor arrays. */
tp_kruskal py_kruskal_of(const py_array *weights, const py_array *factors, int order);

/* *k: the model as the space sees it (in place, or allocated in the space when the
 * arrays are host arrays on a GPU space: *copied, and `upload` copies their values in). */
tp_status py_kruskal_to_space(tp_space *space, const tp_kruskal *given, int on_device, int upload,
                              tp_kruskal *k, int *copied);
/* Copies a model allocated by py_kruskal_to_space back into the given arrays and frees it
 * (only frees when failed is set). */
tp_status py_kruskal_finish(tp_space *space, tp_kruskal *k, int copied, const tp_kruskal *given,
                            int failed);

/* An array's memory as the space sees it: the array itself (CPU spaces, or an array
 * already on the GPU), else a temporary in the space (*moved), filled from the array
 * when upload is set. */
tp_status py_array_in_space(tp_space *space, const py_array *a, int upload, void **at, int *moved);
/* Frees a moved array's temporary, first copying it back to the array when copy_back
 * is set. */
tp_status py_array_leave_space(tp_space *space, const py_array *a, void *at, int moved,
                               int copy_back);

/* Runs work(space, context) without the GIL and holding the space's lock. */
typedef tp_status (*py_space_work)(tp_space *space, void *context);
tp_status py_run_unlocked(tp_space *space, py_space_work work, void *context);

/* What a method does with the tensor as the space sees it: a tp_dense * (sparse = 0) or
 * the tp_flycoo * built from a COO tensor (sparse = 1). */
typedef tp_status (*py_tensor_work)(tp_space *space, void *tensor, int sparse, void *context);

/* Runs work on the dense array `dense` (in place, or copied into the space) or on the
 * FLYCOO form of `coo` (exactly one of them given), without the GIL and holding the
 * space's lock. Records the tensor's values as py_last_input. */
tp_status py_run_on_tensor(tp_space *space, const py_array *dense, const tp_coo *coo,
                           py_tensor_work work, void *context);

#endif
