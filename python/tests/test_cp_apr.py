"""cp_apr: CP-APR against an independent numpy implementation of the multiplicative
updates (Chi & Kolda; the Tensor Toolbox's loop) from the same start, with either rule for
the inadmissible zeros; dense and sparse inputs alike; refusals."""
import numpy as np
import pytest

import tenport


def counts(shape=(12, 9, 7), rank=2, seed=5):
    rng = np.random.default_rng(seed)
    factors = [rng.uniform(0, 1, (n, rank)) for n in shape]
    return rng.poisson(2 * np.einsum("ir,jr,kr->ijk", *factors)).astype(np.float64)


def reference(x, init, iters, inner=10, tol=1e-4, kappa=1e-2, kappa_tol=1e-10, phi_above=1.0,
              eps=1e-10):
    """The multiplicative updates written out in numpy over the nonzeros of x."""
    idx = np.argwhere(x > 0)
    vals = x[x > 0]
    factors = [f.copy() for f in init]
    lam = np.ones(init[0].shape[1])
    for f in factors:  # columns to sum 1, the sums into lambda
        s = f.sum(0)
        f /= s
        lam *= s
    phi = [np.zeros_like(f) for f in factors]
    for it in range(1, iters + 1):
        for n in range(x.ndim):
            if it > 1:
                bad = (phi[n] > phi_above) & (factors[n] < kappa_tol)
                factors[n][bad] += kappa
            B = factors[n] * lam
            lam = np.ones_like(lam)
            pi = np.prod([factors[k][idx[:, k]] for k in range(x.ndim) if k != n], axis=0)
            for _ in range(inner):
                m = np.sum(B[idx[:, n]] * pi, axis=1)
                w = vals / np.maximum(m, eps)
                phi[n] = np.zeros_like(B)
                np.add.at(phi[n], idx[:, n], w[:, None] * pi)
                if np.max(np.abs(np.minimum(B, 1 - phi[n]))) < tol:
                    break
                B = B * phi[n]
            lam = B.sum(0)
            factors[n] = B / np.where(lam > 0, lam, 1)
    return lam, factors


def full(weights, factors):
    return np.einsum("r,ir,jr,kr->ijk", weights, *factors)


@pytest.mark.parametrize("phi_above", [1.0, 0.0])
def test_the_updates_are_the_reference_loop(phi_above):
    x = counts()
    rng = np.random.default_rng(3)
    init = [rng.uniform(0, 1, (n, 2)) for n in x.shape]
    for iters in (1, 4, 25):
        w, fs, info = tenport.cp_apr(x, 2, init=(None, init), n_iter_max=iters,
                                     inadmissible_phi=phi_above, return_info=True)
        lam, ref = reference(x, init, iters, phi_above=phi_above)
        assert info["iterations"] == iters
        assert np.abs(full(w, fs) - full(lam, ref)).max() <= 1e-9 * np.abs(full(lam, ref)).max()
        m = full(w, fs)
        loglik = np.sum(x[x > 0] * np.log(m[x > 0])) - m.sum()
        assert info["loglik"] == pytest.approx(loglik, rel=1e-12)


def test_dense_and_sparse_inputs_agree_and_the_columns_sum_to_one():
    x = counts(seed=8)
    w, fs, info = tenport.cp_apr(x, 2, random_state=4, return_info=True)
    s = tenport.SparseTensor(np.argwhere(x > 0), x[x > 0], x.shape)
    w2, fs2 = tenport.cp_apr(s, 2, random_state=4)
    assert np.array_equal(w, w2) and all(np.array_equal(a, b) for a, b in zip(fs, fs2))
    assert info["converged"] and info["kkt"] < 1e-4 and len(info["kkts"]) == info["iterations"]
    assert 0 < info["setup_seconds"] < info["seconds"]
    assert all(np.allclose(f.sum(0), 1) and (f >= 0).all() for f in fs)


def test_refusals():
    x = counts()
    x[1, 2, 3] = -2
    with pytest.raises(tenport.Error, match="finite and >= 0"):
        tenport.cp_apr(x, 2)
    with pytest.raises(ValueError, match="n_inner"):
        tenport.cp_apr(counts(), 2, n_inner=0)
