/* Host memory the library allocated (a file reader's arrays), lent to Python as a
 * read-write byte buffer; the memory is released with the last view of it. */
#include "py_tenport.h"

typedef struct py_block {
  PyObject_HEAD void *data;
  Py_ssize_t bytes;
  void (*release)(void *);
  void *context;
} py_block;

PyObject *py_block_new(void *data, Py_ssize_t bytes, void (*release)(void *), void *context) {
  py_block *b = PyObject_New(py_block, &py_block_type);
  if (!b) {
    release(context);
    return NULL;
  }
  b->data = data, b->bytes = bytes, b->release = release, b->context = context;
  return (PyObject *)b;
}

static void block_dealloc(PyObject *self) {
  py_block *b = (py_block *)self;
  if (b->release)
    b->release(b->context);
  PyObject_Free(self);
}

static int block_getbuffer(PyObject *self, Py_buffer *view, int flags) {
  py_block *b = (py_block *)self;
  return PyBuffer_FillInfo(view, self, b->data, b->bytes, 0, flags);
}

static PyBufferProcs block_buffer = {block_getbuffer, NULL};

PyTypeObject py_block_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tenport._tenport.Block",
    .tp_basicsize = sizeof(py_block),
    .tp_dealloc = block_dealloc,
    .tp_as_buffer = &block_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Host memory from the tenport library, as a buffer.",
};
