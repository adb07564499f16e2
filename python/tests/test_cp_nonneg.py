"""cp_als(..., nonneg=True): nonnegative CP by HALS, against an independent reference
(scipy's L-BFGS-B with bounds on the whole least-squares objective), on dense and
sparse tensors, and with a mask (gcp's lower bound 0)."""
import numpy as np
import pytest
import scipy.optimize

import tenport


def planted(shape=(8, 7, 6), rank=2, noise=0.05, seed=3):
    rng = np.random.default_rng(seed)
    factors = [rng.uniform(0.1, 1.0, (n, rank)) for n in shape]
    x = np.einsum("ir,jr,kr->ijk", *factors)
    return x + noise * rng.normal(size=shape) * np.abs(x).mean()


def full(weights, factors):
    return np.einsum("r,ir,jr,kr->ijk", weights, *factors)


def reference_fit(x, rank, seed=11):
    """The fit of the bounded least-squares minimum L-BFGS-B reaches from a random start:
    0.5 ||X - [[A, B, C]]||^2 over A, B, C >= 0, its gradient written out."""
    shape = x.shape
    sizes = [n * rank for n in shape]

    def unpack(v):
        parts = np.split(v, np.cumsum(sizes)[:-1])
        return [p.reshape(n, rank) for p, n in zip(parts, shape)]

    def objective(v):
        a, b, c = unpack(v)
        r = np.einsum("ir,jr,kr->ijk", a, b, c) - x
        grads = [np.einsum("ijk,jr,kr->ir", r, b, c), np.einsum("ijk,ir,kr->jr", r, a, c),
                 np.einsum("ijk,ir,jr->kr", r, a, b)]
        return 0.5 * np.sum(r * r), np.concatenate([g.ravel() for g in grads])

    v0 = np.random.default_rng(seed).uniform(0, 1, sum(sizes))
    res = scipy.optimize.minimize(objective, v0, jac=True, method="L-BFGS-B",
                                  bounds=[(0, None)] * len(v0),
                                  options={"maxiter": 50000, "ftol": 1e-16, "gtol": 1e-12})
    a, b, c = unpack(res.x)
    return 1 - np.linalg.norm(x - np.einsum("ir,jr,kr->ijk", a, b, c)) / np.linalg.norm(x)


def test_the_fit_is_the_bounded_least_squares_minimum():
    x = planted()
    w, fs, info = tenport.cp_als(x, 2, nonneg=True, tol=0, n_iter_max=3000, return_info=True)
    assert all((f >= 0).all() for f in fs) and (w >= 0).all()
    explicit = 1 - np.linalg.norm(x - full(w, fs)) / np.linalg.norm(x)
    assert info["fit"] == pytest.approx(explicit, abs=1e-9)
    assert abs(info["fit"] - reference_fit(x, 2)) <= 1e-6
    unconstrained = tenport.cp_als(x, 2, tol=0, n_iter_max=300, return_info=True)[2]["fit"]
    assert info["fit"] <= unconstrained + 1e-9


def test_data_of_both_signs_gives_nonnegative_factors_dense_and_sparse():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(9, 8, 7))
    for given in (x, tenport.SparseTensor(np.argwhere(x > 0.5), x[x > 0.5], x.shape)):
        w, fs = tenport.cp_als(given, 3, nonneg=True, n_iter_max=40)
        assert all((f >= 0).all() for f in fs) and (w >= 0).all()
        assert [f.shape for f in fs] == [(9, 3), (8, 3), (7, 3)]


def test_with_a_mask_the_factors_are_bounded_at_zero():
    x = planted(noise=0.5)
    mask = np.random.default_rng(2).uniform(size=x.shape) > 0.3
    w, fs = tenport.cp_als(x, 2, mask=mask, nonneg=True, n_iter_max=200)
    assert all((f >= 0).all() for f in fs)
