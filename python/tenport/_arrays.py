"""How tenport's Python layer hands arrays to the C library: a descriptor of each array
(address, shape, element type, order, where it lives), built without a copy whenever
the array's layout allows, and results allocated as arrays of the input's kind."""

import numpy as np

from . import _tenport

_CODES = {np.dtype(np.float32): "f4", np.dtype(np.float64): "f8", np.dtype(np.int64): "i8",
          np.dtype(np.int32): "i4", np.dtype(np.int8): "i1"}


_DLPACK_CPU, _DLPACK_CUDA, _DLPACK_ROCM = 1, 2, 10


def _dlpack_only(x):
    return (hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__")
            and not hasattr(x, "__cuda_array_interface__") and not _is_torch(x)
            and not isinstance(x, np.ndarray))


def adopt(x):
    """An object the rest of this module handles, viewing the same memory: x itself, or
    for an object that offers only DLPack (__dlpack__), a numpy view (CPU memory) or a
    PyTorch or CuPy view (GPU memory), whichever is installed."""
    if not _dlpack_only(x):
        return x
    device = x.__dlpack_device__()[0]
    if device == _DLPACK_CPU:
        return np.from_dlpack(x)
    if device in (_DLPACK_CUDA, _DLPACK_ROCM):
        for name in ("torch", "cupy"):
            try:
                module = __import__(name)
            except ImportError:
                continue
            return module.from_dlpack(x)
        raise TypeError("tenport: a GPU array offered through DLPack only needs PyTorch or "
                        "CuPy to be viewed")
    raise TypeError(f"tenport: DLPack device type {device} is neither the CPU nor a GPU")


def give_back(result, original):
    """result as the kind of `original` when that offers only DLPack and its module has
    from_dlpack (no copy); else result as it is."""
    if not _dlpack_only(original):
        return result
    import sys
    module = sys.modules.get(type(original).__module__.split(".")[0])
    convert = getattr(module, "from_dlpack", None)
    return convert(result) if convert else result


def is_device_array(x):
    """Whether x is a GPU array (CuPy, PyTorch CUDA tensors, anything with
    __cuda_array_interface__)."""
    return hasattr(x, "__cuda_array_interface__") or (
        _is_torch(x) and x.device.type == "cuda")


def _is_torch(x):
    return type(x).__module__.startswith("torch")


def _device_interface(x):
    if _is_torch(x) and not hasattr(x, "__cuda_array_interface__"):
        x = x.detach()
    return x.__cuda_array_interface__


class Described:
    """An array as the library sees it: `array` is the object whose memory the library
    uses (the caller's own, or a contiguous copy); `descriptor` goes to the C layer."""

    def __init__(self, array, descriptor):
        self.array = array
        self.descriptor = descriptor

    @property
    def shape(self):
        return self.descriptor[1]

    @property
    def code(self):
        return self.descriptor[2]


def describe_host(x, *, dtype=None, name="array", writable=False):
    """A numpy array (or anything numpy.asarray takes) as the library sees it: in place
    when it is C- or Fortran-contiguous with an element type the library takes, else a
    contiguous copy."""
    a = np.asarray(x)
    want = np.dtype(dtype) if dtype is not None else a.dtype
    if want.byteorder not in ("=", "|"):  # byte-swapped data is converted, not refused
        want = want.newbyteorder("=")
    if want not in _CODES:
        raise TypeError(f"tenport: {name} has element type {a.dtype}; "
                        "float32 or float64 is needed")
    # The library reads elements in place only where they are native, aligned and
    # contiguous (an array at an odd byte offset is copied, not read misaligned).
    in_place = a.dtype == want and a.flags.aligned and (a.flags.c_contiguous or a.flags.f_contiguous)
    if not in_place:
        if writable:
            raise ValueError(f"tenport: {name} must be a contiguous, aligned {want} array")
        a = np.require(np.asarray(a, dtype=want), requirements=("C", "A"))
    fortran = bool(a.flags.f_contiguous and not a.flags.c_contiguous)
    return Described(a, (a.__array_interface__["data"][0], tuple(int(n) for n in a.shape),
                         _CODES[want], fortran, False))


def describe_device(x, *, name="array"):
    """A GPU array in place: it must be contiguous (C or Fortran order)."""
    iface = _device_interface(x)
    shape = tuple(int(n) for n in iface["shape"])
    typestr = iface["typestr"]
    code = {"<f4": "f4", "<f8": "f8", "<i8": "i8"}.get(typestr)
    if code is None:
        raise TypeError(f"tenport: {name} has element type {typestr}; float32 or float64 "
                        "is needed")
    itemsize = int(typestr[2:])
    strides = iface.get("strides")
    fortran = False
    if strides is not None:
        c_strides = _contiguous_strides(shape, itemsize, reverse=False)
        f_strides = _contiguous_strides(shape, itemsize, reverse=True)
        if tuple(strides) == f_strides and tuple(strides) != c_strides:
            fortran = True
        elif tuple(strides) != c_strides:
            raise ValueError(f"tenport: {name} must be contiguous on the GPU "
                             "(C or Fortran order)")
    return Described(x, (iface["data"][0], shape, code, fortran, True))


def _contiguous_strides(shape, itemsize, reverse):
    dims = list(reversed(shape)) if not reverse else list(shape)
    strides, step = [], itemsize
    for n in dims:
        strides.append(step)
        step *= n
    return tuple(reversed(strides)) if not reverse else tuple(strides)


def describe(x, *, dtype=None, name="array"):
    """x as the library sees it, host or GPU; GPU arrays only on a GPU backend."""
    if is_device_array(x):
        if not _tenport.is_gpu():
            raise ValueError(f"tenport: {name} is a GPU array, and this tenport is built for "
                             f"the {_tenport.backend()} backend (CPU)")
        return describe_device(x, name=name)
    return describe_host(x, dtype=dtype, name=name)


def empty_like_kind(like, shape, code):
    """An uninitialised C-order array of the given shape and element type, of the same
    kind and device as `like` (numpy, CuPy or PyTorch)."""
    if _is_torch(like):
        import torch
        dt = {"f4": torch.float32, "f8": torch.float64}[code]
        return torch.empty(shape, dtype=dt, device=like.device)
    if is_device_array(like):
        module = __import__(type(like).__module__.split(".")[0])
        return module.empty(shape, dtype={"f4": "float32", "f8": "float64"}[code])
    return np.empty(shape, dtype={"f4": np.float32, "f8": np.float64}[code])


def to_host(x):
    """A numpy view or copy of x wherever it lives (GPU arrays are copied to the host)."""
    if _is_torch(x):
        return x.detach().cpu().numpy()
    if is_device_array(x) and hasattr(x, "get"):
        return x.get()
    return np.asarray(x)
