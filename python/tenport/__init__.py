"""tenport: portable tensor decompositions (CP-ALS of dense and sparse tensors, Generalized
CP, MTTKRP, ...), from the tenport C library.

Arrays are used in place whenever their layout allows: numpy arrays on CPU builds; on a
GPU build, CuPy arrays and PyTorch CUDA tensors stay on the GPU and results come back as
arrays of the same kind. Objects that offer only DLPack (__dlpack__) are viewed through
numpy (CPU memory) or PyTorch/CuPy (GPU memory), and results are converted back with
their module's from_dlpack where it has one. The library releases the GIL while it works. Errors the library
reports raise tenport.Error with its message."""

import numbers

import numpy as np

from . import _tenport
from ._arrays import (adopt, describe, describe_host, empty_like_kind, give_back,
                      is_device_array, to_host)
from ._tenport import Error

__all__ = ["Error", "SparseTensor", "SSHOPMResult", "backend", "cp_als", "cp_apr", "fiber_peaks",
           "gcp", "load", "mttkrp", "sshopm", "sttid", "TensorTrain", "__version__"]

__version__ = _tenport.version()


def backend():
    """The backend this tenport was built for: "serial", "openmp", "cuda" or "hip"."""
    return _tenport.backend()


class SparseTensor:
    """A sparse tensor in coordinate form.

    coords: integer array of shape (nnz, N), 0-based (pydata sparse's (N, nnz) `.coords`
    is accepted through SparseTensor.from_coo); values: nnz values; shape: N sizes.
    Duplicates add up."""

    def __init__(self, coords, values, shape):
        coords = np.asarray(coords)
        if coords.ndim != 2:
            raise ValueError("tenport: coords must be an (nnz, N) integer array")
        self._init(coords.T, values, shape)

    @classmethod
    def _from_buffers(cls, coords, values, shape):
        """Over the library's own arrays, without a copy: coords the (N, nnz) int64 bytes
        of every mode's indices, values float64 bytes (buffers such as _tenport.Block)."""
        t = cls.__new__(cls)
        t.shape = tuple(shape)
        t.values = np.frombuffer(values, dtype=np.float64)
        t.coords_by_mode = np.frombuffer(coords, dtype=np.int64).reshape(len(t.shape), -1)
        return t

    @classmethod
    def from_coo(cls, x):
        """From any object with .coords (N x nnz), .data and .shape (pydata sparse.COO)."""
        t = cls.__new__(cls)
        t._init(np.asarray(x.coords), x.data, x.shape)
        return t

    def _init(self, coords_by_mode, values, shape):
        if not np.issubdtype(coords_by_mode.dtype, np.integer):
            raise TypeError(f"tenport: coords have element type {coords_by_mode.dtype}; "
                            "integers are needed")
        self.shape = tuple(int(n) for n in shape)
        if coords_by_mode.shape[0] != len(self.shape):
            raise ValueError(f"tenport: coords have {coords_by_mode.shape[0]} modes and the "
                             f"shape {len(self.shape)}")
        if coords_by_mode.size and coords_by_mode.dtype.kind == "u" and \
                int(coords_by_mode.max()) > np.iinfo(np.int64).max:
            raise ValueError(f"tenport: a coordinate is {int(coords_by_mode.max())}, beyond "
                             "the largest index a tensor can have (2**63 - 1)")
        # (N, nnz) int64 in C order: each mode's indices contiguous, as tp_coo keeps them.
        self.coords_by_mode = np.ascontiguousarray(coords_by_mode, dtype=np.int64)
        values = np.asarray(values)
        if values.dtype not in (np.float32, np.float64):
            values = values.astype(np.float64)
        self.values = np.ascontiguousarray(values)
        if self.values.shape != (self.coords_by_mode.shape[1],):
            raise ValueError(f"tenport: {self.values.size} values for "
                             f"{self.coords_by_mode.shape[1]} coordinates")

    @property
    def coords(self):
        """The (nnz, N) coordinates."""
        return self.coords_by_mode.T

    @property
    def nnz(self):
        return self.values.size

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def dtype(self):
        return self.values.dtype

    def _descriptors(self):
        c = describe_host(self.coords_by_mode, dtype=np.int64, name="coords")
        v = describe_host(self.values, name="values")
        return c, v

    def to_dense(self):
        """A numpy array with the duplicates added up."""
        out = np.zeros(self.shape, dtype=self.values.dtype)
        np.add.at(out, tuple(self.coords_by_mode), self.values)
        return out

    def __repr__(self):
        return f"tenport.SparseTensor(shape={self.shape}, nnz={self.nnz}, dtype={self.dtype})"


def _as_sparse(x):
    if isinstance(x, SparseTensor):
        return x
    if hasattr(x, "coords") and hasattr(x, "data") and hasattr(x, "shape"):
        return SparseTensor.from_coo(x)
    return None


def load(path):
    """Reads a tensor file with the library's readers, the format told by the content
    (gzip-compressed files too): .npy gives a numpy array (its dtype, in the file's order);
    dense text (the "tensor" format of GenTen and the Tensor Toolbox) a float64 array in
    Fortran order; sparse text (.tns, sptensor text) and .tpb (tenport binary) a
    SparseTensor (float64)."""
    import os
    name = os.fspath(path)
    kind = _tenport.file_format(name)
    if kind in ("npy", "tensor"):
        read = _tenport.read_npy if kind == "npy" else _tenport.read_dense_text
        block, code, shape, fortran = read(name)
        flat = np.frombuffer(block, dtype=np.dtype("=" + code))
        return flat.reshape(shape, order="F" if fortran else "C")
    coords, values, code, shape, nnz, header = _tenport.read_coo(name)
    if header == "order and dims line":  # the one header a first nonzero could look like
        import warnings
        warnings.warn(f"tenport: {name}: its first line was taken as a header (order "
                      f"{len(shape)}, dims {'x'.join(map(str, shape))}), not as a nonzero",
                      stacklevel=2)
    return SparseTensor._from_buffers(coords, values, shape)


def _seed(random_state):
    if random_state is None:
        return 1
    if isinstance(random_state, numbers.Integral):
        if random_state < 0 or random_state >= 2**64:
            raise ValueError(f"tenport: random_state={random_state}: an integer from 0 to "
                             "2**64 - 1 is needed")
        return int(random_state)
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**63 - 1))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    raise TypeError("tenport: random_state must be None, an integer or a numpy random "
                    "generator")


def _init_factors(init, shape, rank, code, methods=("random", "nvecs", "svd"),
                  fold_weights=True):
    """init: one of `methods` (None: the library makes the start) or a (weights, factors)
    pair. Returns the arrays to keep alive, the factors' descriptors and the weights'
    (None when fold_weights: the weights are folded into the first factor, for a
    library that ignores initial weights)."""
    names = ", ".join(repr(m) for m in methods)
    if isinstance(init, str):
        if init not in methods:
            raise ValueError(f"tenport: init={init!r}; {names} or a (weights, factors) pair")
        return None, None, None
    try:
        weights, factors = init
    except (TypeError, ValueError):
        raise TypeError(f"tenport: init must be {names} or a (weights, factors) "
                        "pair") from None
    dtype = np.float32 if code == "f4" else np.float64
    factors = [np.array(to_host(f), dtype=dtype, order="C") for f in factors]
    if len(factors) != len(shape):
        raise ValueError(f"tenport: init has {len(factors)} factors for {len(shape)} modes")
    for m, f in enumerate(factors):
        if f.shape != (shape[m], rank):
            raise ValueError(f"tenport: init factor {m} has shape {f.shape}, "
                             f"({shape[m]}, {rank}) is needed")
    kept_weights = None
    if weights is not None:
        weights = np.array(to_host(weights), dtype=dtype).reshape(-1)
        if weights.shape != (rank,):
            raise ValueError(f"tenport: init weights have shape {weights.shape}, ({rank},) "
                             "is needed")
        if fold_weights:
            factors[0] = factors[0] * weights[None, :]
        else:
            kept_weights = describe_host(weights, name="init weights")
    kept = [describe_host(f, name=f"init factor {m}") for m, f in enumerate(factors)]
    return ((kept, kept_weights), [d.descriptor for d in kept],
            kept_weights.descriptor if kept_weights else None)


def _check_count(value, name):
    """A positive integer option, capped at the library's int range."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 1:
        raise ValueError(f"tenport: {name} must be a positive integer")
    return min(int(value), 2**31 - 1)


def _check_seconds(max_seconds):
    """max_seconds as the library takes it: 0.0 for None (no limit)."""
    if max_seconds is not None and (not isinstance(max_seconds, numbers.Real) or
                                    not max_seconds > 0 or not np.isfinite(max_seconds)):
        raise ValueError("tenport: max_seconds must be None or a number of seconds above 0")
    return float(max_seconds or 0.0)


def _check_rank(rank):
    if not isinstance(rank, numbers.Integral) or isinstance(rank, bool):
        raise TypeError("tenport: rank must be an integer")
    if rank < 1:
        raise ValueError(f"tenport: rank {rank}; at least 1 is needed")
    return int(rank)


def _tensor_view(X):
    """X for cp_als and mttkrp: (sparse, coords, values) for a sparse tensor, else
    (None, x, None) with x the dense descriptor; then its shape, element code and the
    array whose kind results take. Integer host arrays are taken as float64."""
    sparse = _as_sparse(X)
    if sparse is not None:
        coords, values = sparse._descriptors()
        return (sparse, coords, values), sparse.shape, values.code, values.array
    x = describe(X, name="X")
    if x.code not in ("f4", "f8"):
        x = describe_host(np.asarray(X, dtype=np.float64), name="X")
        return (None, x, None), x.shape, x.code, x.array
    return (None, x, None), x.shape, x.code, X if is_device_array(X) else x.array


def _fixed_mask(fixed_modes, order):
    """fixed_modes (None or mode numbers) as a bit mask; every mode may not be fixed."""
    if fixed_modes is None:
        return 0
    mask = 0
    for m in fixed_modes:
        if not isinstance(m, numbers.Integral) or isinstance(m, bool) or not 0 <= m < order:
            raise ValueError(f"tenport: fixed_modes holds {m!r}; modes are 0..{order - 1}")
        mask |= 1 << int(m)
    if mask == (1 << order) - 1:
        raise ValueError("tenport: fixed_modes fixes every mode; nothing would be updated")
    return mask


def _cp_extras(init, l2_reg, fixed_modes, order, max_seconds, restarts, linesearch, nonneg):
    """The options beyond plain ALS, checked, as the extension takes them."""
    if not isinstance(l2_reg, numbers.Real) or not np.isfinite(l2_reg) or l2_reg < 0:
        raise ValueError("tenport: l2_reg must be a finite number >= 0")
    max_seconds = _check_seconds(max_seconds)
    if not isinstance(restarts, numbers.Integral) or isinstance(restarts, bool) or restarts < 0:
        raise ValueError("tenport: restarts must be an integer >= 0")
    nvecs = isinstance(init, str) and init in ("nvecs", "svd")
    return (float(l2_reg), _fixed_mask(fixed_modes, order), nvecs, max_seconds, int(restarts),
            bool(linesearch), bool(nonneg))


def cp_als(X, rank, *, n_iter_max=None, tol=1e-4, init="random", random_state=None,
           mttkrp="auto", normalize=True, verbose=False, return_info=False, l2_reg=0.0,
           fixed_modes=None, linesearch=True, restarts=0, max_seconds=None, mask=None,
           nonneg=False):
    """Rank-`rank` CP decomposition of X by alternating least squares.

    X: a dense array (numpy; CuPy or PyTorch CUDA on a GPU build), a SparseTensor or an
    object with .coords, .data and .shape. Returns (weights, factors), factors[k] of shape
    (X.shape[k], rank), arrays of X's kind; with return_info=True, also a dict with the
    final `fit`, the `fits` after every iteration, `iterations`, `converged`, `seconds`,
    `extrapolations`, `starts`, `best_start` and `stopped_by_time`. Stops after
    n_iter_max iterations, when the fit changes by less than tol, or once max_seconds
    have passed.
    init: "random", "nvecs" (or "svd": the leading eigenvectors of each unfolding's Gram)
    or a (weights, factors) pair. random_state: None (the library's default seed, 1), an
    integer or a numpy generator. mttkrp: the dense MTTKRP variant (auto, elem, slice,
    tile, gemm, blocked). l2_reg: ridge regularisation of the solves. fixed_modes: modes
    whose factors keep their init values. linesearch: extrapolation between iterations,
    kept only when it raises the fit. restarts: more starts from random factors, the best
    fit kept. n_iter_max: None for 50. nonneg: nonnegative factors, each mode updated by
    HALS (column by column, each entry the nonnegative least-squares minimiser with the
    others fixed; up to 10 sweeps a row) instead of the unconstrained solve; with a mask,
    gcp's lower=0.
    mask: fit only the observed entries, weighted least squares by CP-WOPT: L-BFGS-B on
    their squared error, which is gcp(X, rank, "gaussian", mask=mask) (the mask as gcp
    takes it; n_iter_max then counts L-BFGS-B iterations, None for gcp's 1000; tol,
    mttkrp, l2_reg, fixed_modes, linesearch and restarts belong to ALS and must keep
    their defaults). The info is gcp's, with the `fit` over the observed entries,
    1 - ||W (X - M)|| / ||W X||, for a dense X."""
    if mask is not None:
        return _cp_wopt(X, rank, mask, n_iter_max, init, random_state, normalize, verbose,
                        return_info, max_seconds, nonneg,
                        {"tol": (tol, 1e-4), "mttkrp": (mttkrp, "auto"), "l2_reg": (l2_reg, 0.0),
                         "fixed_modes": (fixed_modes, None), "linesearch": (linesearch, True),
                         "restarts": (restarts, 0)})
    rank = _check_rank(rank)
    n_iter_max = _check_count(50 if n_iter_max is None else n_iter_max, "n_iter_max")
    seed = _seed(random_state)
    original, X = X, adopt(X)
    (sparse, x_or_coords, values), shape, code, like = _tensor_view(X)
    kept_init, init_descriptors, _ = _init_factors(init, shape, rank, code)
    weights = empty_like_kind(like, (rank,), code)
    factors = [empty_like_kind(like, (n, rank), code) for n in shape]
    w = describe(weights, name="weights")
    fs = [describe(f, name="factor") for f in factors]
    extras = _cp_extras(init, l2_reg, fixed_modes, len(shape), max_seconds, restarts,
                        linesearch, nonneg)
    common = (rank, float(tol), n_iter_max, seed, str(mttkrp), bool(normalize),
              bool(verbose), w.descriptor, [f.descriptor for f in fs], init_descriptors, extras)
    if sparse is not None:
        info = _tenport.cp_als_sparse(x_or_coords.descriptor, values.descriptor, shape, *common)
    else:
        info = _tenport.cp_als_dense(x_or_coords.descriptor, *common)
    del kept_init
    weights = give_back(weights, original)
    factors = [give_back(f, original) for f in factors]
    return (weights, factors, info) if return_info else (weights, factors)


def _cp_wopt(X, rank, mask, n_iter_max, init, random_state, normalize, verbose, return_info,
             max_seconds, nonneg, als_options):
    """cp_als with a mask: gcp's Gaussian loss under it (CP-WOPT), the fit added."""
    for name, (value, default) in als_options.items():
        if value is not default and value != default:
            raise ValueError(f"tenport: cp_als with a mask fits the observed entries by "
                             f"CP-WOPT (gcp's Gaussian loss); {name} belongs to ALS and must "
                             f"keep its default")
    weights, factors, info = gcp(X, rank, "gaussian", mask=mask, init=init,
                                 lower=0.0 if nonneg else None,
                                 random_state=random_state,
                                 n_iter_max=1000 if n_iter_max is None else n_iter_max,
                                 max_seconds=max_seconds, normalize=normalize, verbose=verbose,
                                 return_info=True)
    if _as_sparse(X) is None and info["data_norm2"] > 0:
        info["fit"] = 1.0 - float(np.sqrt(max(info["loss"], 0.0) / info["data_norm2"]))
    return (weights, factors, info) if return_info else (weights, factors)


def _number_or_nan(value, name):
    """An optional number as the library takes it: NaN for None (not given)."""
    if value is None:
        return float("nan")
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or np.isnan(value):
        raise ValueError(f"tenport: {name} must be a number or None, not {value!r}")
    return float(value)


def _tolerance(value, name):
    """A stopping tolerance: a finite number >= 0."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or \
            not np.isfinite(value) or value < 0:
        raise ValueError(f"tenport: {name} must be a finite number >= 0")
    return float(value)


def _gcp_mask(mask, sparse, shape, x):
    """The mask as the extension takes it, and what keeps its memory alive for the call:
    for a dense X, the descriptor of an array of X's shape, element type and order
    (nonzero: observed); for a sparse X, the (coords, values) descriptors of the missing
    entries (values zeros, which the library does not read). None for no mask."""
    if mask is None:
        return None, None
    shape = tuple(shape)
    if sparse is None:
        if _as_sparse(mask) is not None:
            raise TypeError("tenport: the mask of a dense X is an array of X's shape "
                            "(nonzero: observed)")
        m = to_host(adopt(mask))
        if m.shape != shape:
            raise ValueError(f"tenport: the mask has shape {m.shape} and X {shape}; they "
                             "must be the same")
        m = np.asarray(m, dtype=np.float32 if x.code == "f4" else np.float64,
                       order="F" if x.descriptor[3] else "C")
        kept = describe_host(m, name="mask")
        return kept, kept.descriptor
    given = _as_sparse(mask)
    if given is not None:
        if given.shape != shape:
            raise ValueError(f"tenport: the mask has shape {given.shape} and X {shape}; they "
                             "must be the same")
        coords = given.coords
    else:
        coords = np.asarray(to_host(adopt(mask)))
        if coords.ndim != 2 or coords.shape[1] != len(shape) or \
                not np.issubdtype(coords.dtype, np.integer):
            raise ValueError(f"tenport: the mask of a sparse X of shape {shape} holds the "
                             f"missing entries, as (n, {len(shape)}) integer coordinates or a "
                             f"SparseTensor; it has shape {coords.shape} ({coords.dtype})")
    outside = ((coords < 0) | (coords >= np.array(shape))).any(axis=1)
    if outside.any():
        at = tuple(int(i) for i in coords[np.argmax(outside)])
        raise ValueError(f"tenport: the mask's missing entry {at} is outside X's shape {shape}")
    kept = SparseTensor(coords, np.zeros(len(coords)), shape)._descriptors()
    return kept, tuple(d.descriptor for d in kept)


def gcp(X, rank, loss="gaussian", *, loss_param=None, mask=None, lower=None, init="random",
        random_state=None, n_iter_max=1000, max_evals=15000, factr=1e7, pgtol=1e-5, memory=10,
        max_seconds=None, normalize=True, verbose=False, return_info=False, solver="lbfgsb",
        epochs=1000, epoch_iters=1000, rate=1e-3, decay=0.1, max_fails=1, samples=None,
        zero_samples=None, function_samples=None, function_zero_samples=None):
    """Rank-`rank` Generalized CP decomposition of X: the CP model M that minimises the
    sum over the observed entries of loss(x, m), with every factor entry >= lower, by
    L-BFGS-B (solver="lbfgsb") or by Adam on sampled gradients (solver="adam").

    X: a dense array (numpy; CuPy or PyTorch CUDA on a GPU build), a SparseTensor or an
    object with .coords, .data and .shape (whose unstored entries are zeros that count;
    the library works on its dense form). Returns (weights, factors) as cp_als does;
    with return_info=True, also a dict with the final `loss`, `initial_loss`, the
    `losses` after every iteration, `iterations`, `evaluations`, `converged`,
    `stop_reason`, `stopped_by_time`, `seconds`, `eval_seconds`, `gradient_norm` and
    `data_norm2` (the observed entries' sum of squares).
    loss: "gaussian", "poisson", "poisson-log", "bernoulli-odds", "bernoulli-logit",
    "gamma", "rayleigh", "negative-binomial" (loss_param: the trials r), "huber"
    (loss_param: the threshold d), "beta" (loss_param: b) or "zt-poisson"; the observed
    data must suit it (counts for the Poisson ones, 0 or 1 for the Bernoulli ones, ...).
    mask: for a dense X, an array of X's shape whose nonzero entries mark the observed
    ones (the others are never read: they may be NaN); for a sparse X, the missing
    entries as (n, N) integer coordinates or a SparseTensor. lower: the factors' lower
    bound; None: the loss's (0 where the model must be nonnegative, else none).
    init: "random" (uniform factors scaled to the data's norm) or a (weights, factors)
    pair. random_state: None (seed 1), an integer or a numpy generator. Stops after
    n_iter_max iterations or max_evals evaluations, when the loss falls by less than
    factr times the machine epsilon (relative), when the projected gradient is below
    pgtol, or after max_seconds; memory: L-BFGS-B's correction pairs. normalize: unit
    columns and the weights in decreasing order (else weights of 1). verbose: a line per
    iteration on sys.stdout.
    solver="adam" (GCP-Adam): `epochs` epochs of `epoch_iters` steps of size `rate`, each
    along a gradient from `samples` entries (dense X) or nonzeros plus `zero_samples` zero
    draws (sparse X, never made dense); after each epoch the loss is estimated on a fixed
    sample (`function_samples`, `function_zero_samples`) and an epoch that raised it is
    undone, the step times `decay`; more than `max_fails` such epochs end the run. None
    counts take pyttb's defaults. The info's `loss` is then an estimate for a sparse X
    (`loss_is_estimate`), the exact loss for a dense one; `iterations` counts epochs."""
    rank = _check_rank(rank)
    if not isinstance(loss, str):
        raise TypeError(f"tenport: loss must be a loss's name, not {loss!r}")
    options = (loss, _number_or_nan(loss_param, "loss_param"), _number_or_nan(lower, "lower"),
               _seed(random_state), _check_count(n_iter_max, "n_iter_max"),
               _check_count(max_evals, "max_evals"), _tolerance(factr, "factr"),
               _tolerance(pgtol, "pgtol"), _check_count(memory, "memory"),
               _check_seconds(max_seconds), bool(normalize), bool(verbose))
    if solver not in ("lbfgsb", "adam"):
        raise ValueError(f"tenport: solver {solver!r}; the solvers are 'lbfgsb' and 'adam'")
    adam = (solver, _check_count(epochs, "epochs"), _check_count(epoch_iters, "epoch_iters"),
            _number_or_nan(rate, "rate"), _number_or_nan(decay, "decay"),
            _check_count(max_fails + 1, "max_fails") - 1,
            *[0 if n is None else _check_count(n, name) for n, name in
              ((samples, "samples"), (zero_samples, "zero_samples"),
               (function_samples, "function_samples"),
               (function_zero_samples, "function_zero_samples"))])
    original, X = X, adopt(X)
    (sparse, x_or_coords, values), shape, code, like = _tensor_view(X)
    kept_mask, masked = _gcp_mask(mask, sparse, shape, x_or_coords)
    kept_init, init_factors, init_weights = _init_factors(init, shape, rank, code, ("random",),
                                                          fold_weights=False)
    weights = empty_like_kind(like, (rank,), code)
    factors = [empty_like_kind(like, (n, rank), code) for n in shape]
    w = describe(weights, name="weights")
    fs = [describe(f, name="factor") for f in factors]
    common = (rank, options, adam, w.descriptor, [f.descriptor for f in fs], init_weights,
              init_factors)
    if sparse is not None:
        info = _tenport.gcp_sparse(x_or_coords.descriptor, values.descriptor, shape, masked,
                                   *common)
    else:
        info = _tenport.gcp_dense(x_or_coords.descriptor, masked, *common)
    del kept_init, kept_mask
    weights = give_back(weights, original)
    factors = [give_back(f, original) for f in factors]
    return (weights, factors, info) if return_info else (weights, factors)


def cp_apr(X, rank, *, n_iter_max=1000, n_inner=10, tol=1e-4, kappa=1e-2, kappa_tol=1e-10,
           inadmissible_phi=1.0, init="random", random_state=None, verbose=False,
           return_info=False):
    """Rank-`rank` CP-APR of a count tensor X (Chi & Kolda): the Poisson maximum-likelihood
    CP model with nonnegative factors, by multiplicative updates with the Tensor Toolbox's
    defaults. X: a SparseTensor (or an object with .coords, .data and .shape) or a dense
    host array, of which the nonzeros are taken (zeros add nothing to the updates); its
    values must be finite and >= 0. Returns (weights, factors) as cp_als does, each
    factor's columns summing to 1 and the weights in lambda; with return_info=True, also a
    dict with the final `loglik` (sum x log m - m), the last `kkt` violation, the `kkts`
    of every iteration, `iterations`, `inner` (inner iterations in all), `converged`,
    `seconds` and `setup_seconds` (of seconds: the nonzeros laid out per mode, the
    start). Each outer iteration (at most n_iter_max) gives every mode at most n_inner
    multiplicative updates, stopping a mode when its KKT violation max |min(B, 1 - Phi)|
    is below tol, and converges when no mode needed one; entries below kappa_tol whose
    Phi exceeds inadmissible_phi (1; pyttb's cp_apr uses 0) are raised by kappa. init:
    "random" (factors uniform in [0, 1) from random_state) or a (weights, factors) pair
    whose factors are the start (weights ignored)."""
    rank = _check_rank(rank)
    for value, name in ((tol, "tol"), (kappa, "kappa"), (kappa_tol, "kappa_tol")):
        _tolerance(value, name)
    options = (_check_count(n_iter_max, "n_iter_max"), _check_count(n_inner, "n_inner"),
               float(tol), float(kappa), float(kappa_tol),
               _number_or_nan(inadmissible_phi, "inadmissible_phi"), _seed(random_state),
               bool(verbose))
    original, X = X, adopt(X)
    if _as_sparse(X) is None:  # a dense array: its nonzeros
        dense = np.asarray(to_host(X))
        dense = dense if dense.dtype in (np.float32, np.float64) else dense.astype(np.float64)
        X = SparseTensor(np.argwhere(dense != 0), dense[dense != 0], dense.shape)
    (sparse, coords, values), shape, code, like = _tensor_view(X)
    kept_init, init_factors, _ = _init_factors(init, shape, rank, code, ("random",),
                                               fold_weights=False)
    weights = empty_like_kind(like, (rank,), code)
    factors = [empty_like_kind(like, (n, rank), code) for n in shape]
    w = describe(weights, name="weights")
    fs = [describe(f, name="factor") for f in factors]
    info = _tenport.cp_apr_sparse(coords.descriptor, values.descriptor, shape, rank, options,
                                  w.descriptor, [f.descriptor for f in fs], init_factors)
    del kept_init
    weights = give_back(weights, original)
    factors = [give_back(f, original) for f in factors]
    return (weights, factors, info) if return_info else (weights, factors)


def mttkrp(X, factors, mode):
    """The mode-`mode` MTTKRP of X with the factors (factors[mode] is not read): an array
    of shape (X.shape[mode], rank), of X's kind. X dense or sparse, as for cp_als."""
    original, X = X, adopt(X)
    factors = [adopt(f) for f in factors]
    (sparse, x_or_coords, values), shape, code, like = _tensor_view(X)
    if not isinstance(mode, numbers.Integral) or not 0 <= mode < len(shape):
        raise ValueError(f"tenport: mode {mode} of a {len(shape)}-mode tensor")
    if len(factors) != len(shape):
        raise ValueError(f"tenport: {len(factors)} factors for {len(shape)} modes")
    dtype = np.float32 if code == "f4" else np.float64
    fs = []
    for m, f in enumerate(factors):
        d = describe(f, name=f"factor {m}") if is_device_array(f) else \
            describe_host(f, dtype=dtype, name=f"factor {m}")
        if len(d.shape) != 2 or d.shape[0] != shape[m]:
            raise ValueError(f"tenport: factor {m} has shape {d.shape}; ({shape[m]}, rank) "
                             "is needed")
        if d.descriptor[3]:  # Fortran order: the library reads factors by rows
            d = describe_host(np.ascontiguousarray(f, dtype=dtype), name=f"factor {m}")
        fs.append(d)
    if len({f.descriptor[4] for f in fs}) > 1:
        raise ValueError("tenport: the factors must all be on the GPU or all on the host")
    rank = fs[0].shape[1]
    if any(f.shape[1] != rank for f in fs):
        raise ValueError("tenport: the factors have different ranks")
    ones = empty_like_kind(fs[0].array if fs[0].descriptor[4] else like, (rank,), code)
    ones[...] = 1
    o = describe(ones, name="weights")
    out = empty_like_kind(like, (shape[mode], rank), code)
    g = describe(out, name="result")
    args = ([f.descriptor for f in fs], o.descriptor, int(mode), g.descriptor)
    if sparse is not None:
        _tenport.mttkrp_sparse(x_or_coords.descriptor, values.descriptor, shape, *args)
    else:
        _tenport.mttkrp_dense(x_or_coords.descriptor, *args)
    return give_back(out, original)


def fiber_peaks(sh, lmax, *, max_peaks=3, min_amplitude=0.1, starts=64, random_state=None,
                precision="single"):
    """Fiber peaks of diffusion-MRI fiber orientation functions: the local maxima of each
    voxel's real symmetric spherical-harmonic series (MRtrix3's convention, even lmax in
    [2, 16]), found by SS-HOPM. sh has shape (..., C) with C = (lmax+1)(lmax+2)/2.
    Returns (directions, amplitudes) of shapes (..., max_peaks, 3) and (..., max_peaks),
    by decreasing amplitude, NaN where a voxel has fewer peaks. Peaks below min_amplitude
    times the voxel's largest are dropped. precision: "single" (SS-HOPM in float32) or
    "double"."""
    if precision not in ("single", "double"):
        raise ValueError(f"tenport: precision={precision!r}; 'single' or 'double'")
    if not isinstance(lmax, numbers.Integral) or lmax < 2 or lmax > 16 or lmax % 2:
        raise ValueError(f"tenport: lmax {lmax}; an even number from 2 to 16")
    a = np.asarray(sh, dtype=np.float64)
    count = (lmax + 1) * (lmax + 2) // 2
    if a.ndim < 1 or a.shape[-1] != count:
        raise ValueError(f"tenport: sh has shape {a.shape}; the last axis must hold the "
                         f"{count} coefficients of lmax {lmax}")
    lead = a.shape[:-1]
    flat = describe_host(np.ascontiguousarray(a.reshape(-1, count)), name="sh")
    voxels = flat.shape[0]
    directions = np.empty((voxels, max_peaks, 3))
    amplitudes = np.empty((voxels, max_peaks))
    counts = np.empty(voxels, dtype=np.int32)
    _tenport.fiber_peaks(flat.descriptor, int(lmax), int(max_peaks), float(min_amplitude),
                         int(starts), _seed(random_state), precision == "single",
                         describe_host(directions, name="directions").descriptor,
                         describe_host(amplitudes, name="amplitudes").descriptor,
                         describe_host(counts, name="counts").descriptor)
    return directions.reshape(*lead, max_peaks, 3), amplitudes.reshape(*lead, max_peaks)


class SSHOPMResult:
    """SS-HOPM runs of a batch: lambdas and iterations of shape (T, V), vectors
    (T, V, n), flags (T, V: 0 converged, 1 zero iterate, 2 iteration limit, 3 non-finite
    tensor, 4 lambda overflow) and, per tensor, the distinct eigenpairs of its converged
    runs as (lambda, vector, kind, runs) tuples, largest lambda first; kind is "maximum",
    "minimum", "saddle" or "degenerate"."""

    def __init__(self, lambdas, vectors, flags, iterations, eigenpairs):
        self.lambdas, self.vectors, self.flags = lambdas, vectors, flags
        self.iterations, self.eigenpairs = iterations, eigenpairs

    def __repr__(self):
        return (f"tenport.SSHOPMResult(tensors={self.lambdas.shape[0]}, "
                f"starts={self.lambdas.shape[1]})")


def _unique_count(order, dim):
    from math import comb
    return comb(order + dim - 1, order)


def sshopm(A, order, dim, *, starts=128, shift="adaptive", alpha=0.0, tol=1e-10,
           max_iter=1000, random_state=None):
    """Eigenpairs (lambda, x) with A x^(m-1) = lambda x, |x| = 1, of symmetric tensors
    of order m and dimension n by Kolda and Mayo's SS-HOPM, batched.

    A: the tensors' unique values in tenport's order (symtensor.h), shape (T, U) or (U,)
    with U = C(m+n-1, m). starts: a number of random unit starting vectors (the same for
    every tensor) or a (V, n) array of them. shift: "adaptive" (maxima), "adaptive-min"
    (minima) or "fixed" (with alpha). The tensors' element type (float32 or float64) is
    the solver's."""
    a = np.asarray(A)
    if a.dtype not in (np.float32, np.float64):
        a = a.astype(np.float64)
    unique = _unique_count(order, dim)
    tensors = a.reshape(1, -1) if a.ndim == 1 else a
    if tensors.ndim != 2 or tensors.shape[1] != unique:
        raise ValueError(f"tenport: A has shape {a.shape}; order {order} and dimension {dim} "
                         f"have {unique} unique values per tensor")
    if shift not in ("adaptive", "adaptive-min", "fixed"):
        raise ValueError(f"tenport: shift={shift!r}; 'adaptive', 'adaptive-min' or 'fixed'")
    if isinstance(starts, numbers.Integral):
        if starts < 1:
            raise ValueError("tenport: starts must be at least 1")
        rng = np.random.default_rng(_seed(random_state))
        s = rng.standard_normal((int(starts), dim))
        s /= np.linalg.norm(s, axis=1, keepdims=True)
    else:
        s = np.asarray(starts, dtype=np.float64)
        if s.ndim != 2 or s.shape[1] != dim:
            raise ValueError(f"tenport: starts has shape {s.shape}; (V, {dim}) is needed")
        # Only a start's direction matters: each row divided by its largest |entry| (rows
        # of zeros, NaN or Inf left as they are), so that tiny or huge starts survive the
        # cast to float32.
        with np.errstate(invalid="ignore", divide="ignore"):
            big = np.max(np.abs(s), axis=1, keepdims=True) if s.size else s[:, :1]
            s = np.where((big > 0) & np.isfinite(big), s / np.where(big > 0, big, 1), s)
    t = describe_host(tensors, name="A")
    sv = describe_host(np.ascontiguousarray(s, dtype=tensors.dtype), name="starts")
    T, V = tensors.shape[0], s.shape[0]
    lambdas = np.empty((T, V), dtype=tensors.dtype)
    vectors = np.empty((T, V, dim), dtype=tensors.dtype)
    flags = np.empty((T, V), dtype=np.int8)
    iterations = np.empty((T, V), dtype=np.int32)
    _tenport.sshopm(t.descriptor, sv.descriptor, int(order), int(dim), shift != "fixed",
                    float(alpha), shift == "adaptive-min", float(tol), int(max_iter),
                    describe_host(lambdas).descriptor, describe_host(vectors).descriptor,
                    describe_host(flags).descriptor, describe_host(iterations).descriptor)
    pairs = []
    for k in range(T):
        pairs.append(_tenport.eigenpairs(
            int(order), int(dim),
            describe_host(np.ascontiguousarray(tensors[k], dtype=np.float64)).descriptor,
            describe_host(np.ascontiguousarray(lambdas[k], dtype=np.float64)).descriptor,
            describe_host(np.ascontiguousarray(vectors[k], dtype=np.float64)).descriptor,
            describe_host(np.ascontiguousarray(flags[k])).descriptor))
    return SSHOPMResult(lambdas, vectors, flags, iterations, pairs)


def _sparse_or_dense(X):
    """X as a SparseTensor: a dense array gives its nonzeros."""
    sparse = _as_sparse(X)
    if sparse is not None:
        return sparse
    a = np.asarray(X, dtype=np.float64)
    coords = np.argwhere(a != 0)
    return SparseTensor(coords, a[tuple(coords.T)], a.shape)


class TensorTrain:
    """A tensor train in TCI form from tenport.sttid: every stored core entry is an entry
    of the input tensor. ranks has order + 1 entries (1 at both ends); cores[k] is a
    SparseTensor of shape (ranks[k], shape[k], ranks[k+1])."""

    def __init__(self, tci):
        self._tci = tci

    @property
    def ranks(self):
        return self._tci.ranks

    @property
    def shape(self):
        return self._tci.shape

    @property
    def cores(self):
        return [SparseTensor._from_buffers(*self._tci.core(k)) for k in range(len(self.shape))]

    def evaluate(self, indices):
        """Values at 0-based multi-indices, an integer array of shape (..., order)."""
        idx = np.asarray(indices)
        if idx.shape[-1:] != (len(self.shape),) or not np.issubdtype(idx.dtype, np.integer):
            raise ValueError(f"tenport: indices must be integers of shape (..., {len(self.shape)})")
        flat = describe_host(np.ascontiguousarray(idx.reshape(-1, len(self.shape)),
                                                  dtype=np.int64), dtype=np.int64,
                             name="indices")
        out = np.empty(flat.shape[0])
        self._tci.evaluate(flat.descriptor, describe_host(out).descriptor)
        return out.reshape(idx.shape[:-1])

    def error(self, X):
        """||X - TT|| / ||X|| over X's stored entries and the train's norm (tp_tci_error)."""
        S = _sparse_or_dense(X)
        c, v = S._descriptors()
        if v.code != "f8":
            v = describe_host(S.values, dtype=np.float64, name="values")
        return self._tci.error(c.descriptor, v.descriptor, S.shape)["relative_error"]

    def save(self, prefix):
        """Writes the train with tenport's writer (PREFIX.* files, as `tenport sttid`)."""
        import os
        self._tci.save(os.fspath(prefix))

    def __repr__(self):
        return f"tenport.TensorTrain(shape={self.shape}, ranks={self.ranks})"


def sttid(X, *, eps=1e-12, relative=True, rmax=None):
    """The sparse tensor-train interpolative decomposition of X (a SparseTensor, an
    object with .coords, .data and .shape, or a dense array): one sparse PRRLU per bond,
    stopping at pivots below eps (relative to the first pivot when relative) or at rank
    rmax (None: no limit). Pivots at the level of round-off never count, so eps=0 gives
    the ranks to working precision."""
    S = _sparse_or_dense(X)
    if eps < 0 or not np.isfinite(eps):
        raise ValueError("tenport: eps must be finite and >= 0")
    if rmax is None:
        rmax = 2**62
    elif not isinstance(rmax, numbers.Integral) or rmax < 1:
        raise ValueError("tenport: rmax must be a positive integer or None")
    c, v = S._descriptors()
    return TensorTrain(_tenport.sttid(c.descriptor, v.descriptor, S.shape, float(eps),
                                      bool(relative), int(rmax)))
