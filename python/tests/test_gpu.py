"""On a GPU build: PyTorch CUDA tensors (and CuPy arrays, where installed) in and out
without a host copy, against numpy references."""

import numpy as np
import pytest

import tenport

gpu_build = tenport.backend() in ("cuda", "hip")
torch = pytest.importorskip("torch") if gpu_build else None
pytestmark = pytest.mark.skipif(not gpu_build or not torch.cuda.is_available(),
                                reason="a GPU build and a GPU are needed")

from test_tenport import mttkrp_reference, planted, reconstruct  # noqa: E402


@pytest.fixture
def rng():
    return np.random.default_rng()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_torch_cuda_tensors_stay_on_the_gpu(rng, dtype):
    X_host, _ = planted((12, 10, 11), 3, rng, getattr(np, dtype))
    X = torch.from_numpy(X_host).cuda()
    errors = []
    for init, seed in (("nvecs", 1), ("random", 1), ("random", 2)):  # as on the CPU
        weights, factors = tenport.cp_als(X, 3, n_iter_max=1000, tol=1e-12, init=init,
                                          random_state=seed)
        assert tenport._tenport.last_input_address() == X.data_ptr()
        assert isinstance(weights, torch.Tensor) and weights.is_cuda
        assert all(isinstance(f, torch.Tensor) and f.is_cuda for f in factors)
        assert weights.dtype == X.dtype
        model = reconstruct(weights.cpu().numpy(), [f.cpu().numpy() for f in factors])
        errors.append(np.linalg.norm(model - X_host) / np.linalg.norm(X_host))
    assert min(errors) < (1e-3 if dtype == "float32" else 1e-5)


def test_torch_mttkrp_in_fortran_order_and_back(rng):
    X_host = rng.standard_normal((6, 5, 7))
    factors_host = [rng.standard_normal((n, 4)) for n in X_host.shape]
    X = torch.from_numpy(np.asfortranarray(X_host)).cuda()
    X_f = X.permute(2, 1, 0).contiguous().permute(2, 1, 0)  # Fortran-ordered on the GPU
    factors = [torch.from_numpy(f).cuda() for f in factors_host]
    for T in (X, X_f):
        for mode in range(3):
            G = tenport.mttkrp(T, factors, mode)
            assert G.is_cuda and tenport._tenport.last_input_address() == T.data_ptr()
            np.testing.assert_allclose(G.cpu().numpy(), mttkrp_reference(X_host, factors_host, mode),
                                       rtol=1e-10, atol=1e-10)


def test_cupy_arrays_if_installed(rng):
    cupy = pytest.importorskip("cupy")
    X_host, _ = planted((6, 5, 4), 2, rng)
    X = cupy.asarray(X_host)
    factors = [cupy.asarray(rng.standard_normal((n, 3))) for n in X_host.shape]
    G = tenport.mttkrp(X, factors, 1)
    assert isinstance(G, cupy.ndarray)
    assert tenport._tenport.last_input_address() == X.data.ptr
    np.testing.assert_allclose(cupy.asnumpy(G), mttkrp_reference(
        X_host, [cupy.asnumpy(f) for f in factors], 1), rtol=1e-10, atol=1e-10)


def test_a_strided_gpu_view_is_refused_with_a_message(rng):
    X = torch.from_numpy(rng.standard_normal((6, 8, 5))).cuda()[:, ::2, :]
    with pytest.raises(ValueError, match="contiguous"):
        tenport.mttkrp(X, [torch.ones((n, 2), dtype=X.dtype, device="cuda") for n in X.shape], 0)


def test_an_initial_guess_of_cuda_tensors_is_accepted(rng):
    X_host, factors_host = planted((8, 7, 6), 2, rng)
    X = torch.from_numpy(X_host).cuda()
    init = (torch.ones(2, dtype=X.dtype, device="cuda"),
            [torch.from_numpy(f).cuda() for f in factors_host])
    _, _, info = tenport.cp_als(X, 2, init=init, n_iter_max=1, return_info=True)
    assert info["fits"][0] > 1 - 1e-6
    with pytest.raises(ValueError, match="on the GPU or all on the host"):
        tenport.mttkrp(X, [factors_host[0]] + init[1][1:], 0)


class TorchDLPackOnly:
    """A GPU array that offers nothing but DLPack, as some libraries' arrays do."""

    def __init__(self, tensor):
        self._array = tensor

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def from_dlpack(x):  # what the module of TorchDLPackOnly offers, as array libraries do
    return TorchDLPackOnly(torch.from_dlpack(x))


def test_dlpack_only_gpu_arrays_stay_on_the_gpu_and_come_back_as_their_kind(rng):
    X_host = rng.standard_normal((7, 5, 6))
    factors_host = [rng.standard_normal((n, 3)) for n in X_host.shape]
    X = torch.from_numpy(X_host).cuda()
    G = tenport.mttkrp(TorchDLPackOnly(X), [TorchDLPackOnly(torch.from_numpy(f).cuda())
                                            for f in factors_host], 1)
    assert tenport._tenport.last_input_address() == X.data_ptr()
    assert isinstance(G, TorchDLPackOnly) and G._array.is_cuda
    np.testing.assert_allclose(G._array.cpu().numpy(), mttkrp_reference(X_host, factors_host, 1),
                               rtol=1e-10, atol=1e-10)
    weights, factors = tenport.cp_als(TorchDLPackOnly(X), 2, n_iter_max=3)
    assert isinstance(weights, TorchDLPackOnly) and weights._array.is_cuda
    assert all(isinstance(f, TorchDLPackOnly) and f._array.is_cuda for f in factors)


def test_gcp_of_a_cuda_tensor_and_mask_stays_on_the_gpu(rng):
    X_host, _ = planted((9, 8, 7), 2, rng)
    observed = rng.random(X_host.shape) >= 0.2
    X_host = np.where(observed, X_host, np.nan)  # never read
    X = torch.from_numpy(X_host).cuda()
    w, f, info = tenport.gcp(X, 2, mask=torch.from_numpy(observed).cuda(), random_state=1,
                             return_info=True)
    assert tenport._tenport.last_input_address() == X.data_ptr()
    assert isinstance(w, torch.Tensor) and w.is_cuda and all(x.is_cuda for x in f)
    assert info["loss"] < info["initial_loss"]
    w_host, _ = tenport.gcp(X_host, 2, mask=observed, random_state=1)  # copied in and out
    np.testing.assert_allclose(w.cpu().numpy(), w_host, rtol=1e-10)
