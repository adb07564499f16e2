"""tenport.gcp: planted models recovered (Poisson counts, Gaussian with missing
entries), masked entries never read, sparse tensors and their missing entries, the run's
record, verbose lines through sys.stdout, Ctrl-C, and the inputs refused by name."""

import contextlib
import io
import itertools

import numpy as np
import pytest

import tenport


def unit_columns(f):
    f = np.asarray(f, dtype=np.float64)
    return f / np.linalg.norm(f, axis=0)


def factor_match_score(factors, truth):
    """The best matching of components of the mean over components of the product over
    modes of the columns' congruence |a.b| / (|a| |b|) (weights not compared)."""
    a = [unit_columns(f) for f in factors]
    b = [unit_columns(f) for f in truth]
    rank = a[0].shape[1]
    congruence = np.ones((rank, rank))
    for fa, fb in zip(a, b):
        congruence *= np.abs(fa.T @ fb)
    return max(np.mean(congruence[np.arange(rank), list(p)])
               for p in itertools.permutations(range(rank)))


def planted_factors(rng, shape, rank):
    """Nonnegative factors whose columns differ: most entries small, some large."""
    factors = [rng.random((n, rank)) for n in shape]
    return [np.where(f < 0.5, 0.05 * f, f) for f in factors]


def model(factors, weights=None):
    rank = factors[0].shape[1]
    w = np.ones(rank) if weights is None else np.asarray(weights, dtype=np.float64)
    return np.einsum("r,ir,jr,kr->ijk", w, *[np.asarray(f, dtype=np.float64) for f in factors])


def test_poisson_recovers_a_planted_count_tensor():
    rng = np.random.default_rng(11)
    truth = planted_factors(rng, (24, 20, 18), 3)
    X = rng.poisson(8.0 * model(truth)).astype(np.float64)
    w, f, info = tenport.gcp(X, 3, "poisson", random_state=3, return_info=True)
    assert factor_match_score(f, truth) >= 0.95, info
    assert info["loss"] < info["initial_loss"]
    assert all((x >= 0).all() for x in f), "poisson's factors are bounded below by 0"
    assert np.all(np.diff(w) <= 0), "weights in decreasing order"
    np.testing.assert_allclose([np.linalg.norm(x, axis=0) for x in f], 1, rtol=1e-12)


def test_integer_count_arrays_are_taken_as_float64():
    rng = np.random.default_rng(12)
    X = rng.poisson(3.0 * model(planted_factors(rng, (6, 5, 4), 2)))
    assert X.dtype.kind == "i"
    w, f = tenport.gcp(X, 2, "poisson", n_iter_max=5)
    assert w.dtype == np.float64 and all(x.dtype == np.float64 for x in f)


@pytest.mark.parametrize("order", ["C", "F"])
def test_gaussian_with_holes_recovers_the_model_and_never_reads_them(order):
    rng = np.random.default_rng(21)
    truth = [rng.standard_normal((n, 3)) for n in (15, 13, 12)]
    full = model(truth)
    observed = rng.random(full.shape) >= 0.3
    X = np.asarray(np.where(observed, full, np.nan), order=order)
    # Some starts end in a local minimum (2 seeds of 60 here): the lower loss of two.
    runs = {s: tenport.gcp(X, 3, mask=observed, random_state=s, return_info=True)
            for s in (1, 2)}
    seed = min(runs, key=lambda s: runs[s][2]["loss"])
    w, f, _ = runs[seed]
    assert factor_match_score(f, truth) >= 0.95
    assert np.linalg.norm(model(f, w) - full) < 1e-3 * np.linalg.norm(full)
    if not tenport._tenport.is_gpu():  # X is used where it lies
        assert tenport._tenport.last_input_address() == X.ctypes.data
    # Other values (or NaN again) where the mask is 0 change nothing, bit for bit; a 0/1
    # float mask is the same mask.
    Y = X.copy(order="A")
    Y[~observed] = rng.standard_normal((~observed).sum()) * 1e6
    w2, f2 = tenport.gcp(Y, 3, mask=observed.astype(np.float32), random_state=seed)
    np.testing.assert_array_equal(w, w2)
    for a, b in zip(f, f2):
        np.testing.assert_array_equal(a, b)


def test_float32_stays_float32():
    rng = np.random.default_rng(22)
    X = model([rng.standard_normal((n, 2)) for n in (7, 6, 5)]).astype(np.float32)
    w, f = tenport.gcp(X, 2, mask=np.ones(X.shape, bool), n_iter_max=20)
    assert w.dtype == np.float32 and all(x.dtype == np.float32 for x in f)


def test_bernoulli_on_a_sparse_binary_tensor_lowers_the_loss():
    rng = np.random.default_rng(31)
    shape = (12, 10, 9)
    odds = 0.5 * model(planted_factors(rng, shape, 2))
    coords = np.argwhere(rng.random(shape) < odds / (1 + odds))
    S = tenport.SparseTensor(coords, np.ones(len(coords)), shape)
    w, f, info = tenport.gcp(S, 2, "bernoulli-odds", return_info=True, random_state=1)
    assert 0 < S.nnz < np.prod(shape) // 2
    assert [x.shape for x in f] == [(12, 2), (10, 2), (9, 2)]
    assert info["loss"] < info["initial_loss"] and np.isfinite(info["loss"])
    assert all((x >= 0).all() for x in f)


def test_a_sparse_tensor_with_missing_entries_is_its_dense_form_with_a_mask():
    rng = np.random.default_rng(32)
    shape = (6, 5, 7)
    counts = rng.poisson(2.0 * model(planted_factors(rng, shape, 2)))
    coords = np.argwhere(counts > 0)
    S = tenport.SparseTensor(coords, counts[tuple(coords.T)], shape)
    missing = np.argwhere(rng.random(shape) < 0.2)
    mask = np.ones(shape)
    mask[tuple(missing.T)] = 0
    dense = np.asarray(counts, dtype=np.float64, order="F")  # the library's form of S
    expected = tenport.gcp(dense, 2, "poisson", mask=mask, random_state=4, return_info=True)
    for given in (missing, tenport.SparseTensor(missing, np.zeros(len(missing)), shape)):
        w, f, info = tenport.gcp(S, 2, "poisson", mask=given, random_state=4, return_info=True)
        np.testing.assert_array_equal(w, expected[0])
        assert info["loss"] == expected[2]["loss"]


def test_the_record_of_the_run():
    rng = np.random.default_rng(41)
    X = model([rng.standard_normal((n, 2)) for n in (8, 7, 6)])
    X += 0.1 * rng.standard_normal(X.shape)
    w, f, info = tenport.gcp(X, 2, return_info=True, random_state=5)
    assert set(info) >= {"loss", "initial_loss", "losses", "iterations", "evaluations",
                         "converged", "stop_reason", "seconds", "eval_seconds",
                         "gradient_norm"}
    losses = np.array(info["losses"])
    assert len(losses) == info["iterations"] >= 1
    assert info["evaluations"] >= info["iterations"]
    assert np.all(np.diff(losses) <= 0), "L-BFGS-B accepts only steps that lower the loss"
    assert losses[-1] == info["loss"] < info["initial_loss"]
    assert info["converged"] and info["stop_reason"].startswith("CONVERGENCE")
    assert 0 <= info["eval_seconds"] <= info["seconds"]
    assert info["gradient_norm"] >= 0
    # the same seed, the same run; the limits stop it
    np.testing.assert_array_equal(tenport.gcp(X, 2, random_state=5)[0], w)
    _, _, short = tenport.gcp(X, 2, n_iter_max=3, return_info=True)
    assert short["iterations"] == 3 and short["stop_reason"] == "max_iters"
    assert not short["converged"]
    _, _, few = tenport.gcp(X, 2, max_evals=4, return_info=True)
    assert few["evaluations"] == 4 and few["stop_reason"] == "max_evals"
    _, _, timed = tenport.gcp(X, 2, max_seconds=1e-9, return_info=True)
    assert timed["iterations"] == 1 and timed["stopped_by_time"]


def test_a_start_and_a_lower_bound():
    rng = np.random.default_rng(42)
    truth = [rng.standard_normal((n, 2)) for n in (6, 5, 4)]
    X = model(truth)
    _, _, info = tenport.gcp(X, 2, init=(None, truth), return_info=True)
    assert info["initial_loss"] < 1e-20 * np.sum(X**2)  # started at the answer
    w, f = tenport.gcp(X, 2, lower=0.0, random_state=1)
    assert all((x >= 0).all() for x in f)
    w, f = tenport.gcp(X, 2, normalize=False, n_iter_max=5, init=(np.array([2.0, 3.0]), truth))
    np.testing.assert_array_equal(w, 1)  # the factors as optimised
    with pytest.raises(tenport.Error, match="lower bound"):
        tenport.gcp(np.abs(X).round(), 2, "poisson", lower=-1.0)


def test_verbose_prints_every_iteration_through_sys_stdout(capfd):
    X = model([np.arange(1.0, n + 1)[:, None] * [1.0, 0.5] for n in (5, 4, 3)])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        _, _, info = tenport.gcp(X + 1, 2, verbose=True, return_info=True, random_state=1)
    lines = out.getvalue().splitlines()
    assert len(lines) == info["iterations"] >= 1
    assert lines[0].startswith("iter    1  loss ") and "|pg|" in lines[0]
    assert capfd.readouterr().out == "", "nothing went to the C stdout"


def test_bad_inputs_are_refused_by_name():
    rng = np.random.default_rng(51)
    X = rng.poisson(2.0, (4, 5, 6)).astype(np.float64)
    with pytest.raises(ValueError, match="unknown loss 'poison'.*poisson, poisson-log"):
        tenport.gcp(X, 2, "poison")
    with pytest.raises(ValueError, match="huber loss needs loss_param"):
        tenport.gcp(X, 2, "huber")
    with pytest.raises(ValueError, match="negative-binomial loss needs loss_param"):
        tenport.gcp(X, 2, "negative-binomial")
    with pytest.raises(ValueError, match="beta loss; it must be b"):
        tenport.gcp(X, 2, "beta", loss_param=1)
    with pytest.raises(ValueError, match="takes no loss_param"):
        tenport.gcp(X, 2, "poisson", loss_param=2.0)
    with pytest.raises(ValueError, match=r"mask has shape \(4, 6, 5\) and X \(4, 5, 6\)"):
        tenport.gcp(X, 2, mask=np.ones((4, 6, 5)))
    S = tenport.SparseTensor([[0, 1, 2]], [1.0], (4, 5, 6))
    with pytest.raises(ValueError, match=r"\(n, 3\) integer coordinates.*\(1, 2\)"):
        tenport.gcp(S, 2, mask=np.array([[0, 1]]))
    with pytest.raises(ValueError, match=r"missing entry \(0, 5, 2\) is outside"):
        tenport.gcp(S, 2, mask=[[0, 1, 2], [0, 5, 2]])
    with pytest.raises(ValueError, match=r"mask has shape \(4, 5\) and X \(4, 5, 6\)"):
        tenport.gcp(S, 2, mask=tenport.SparseTensor([[0, 1]], [1.0], (4, 5)))
    with pytest.raises(ValueError, match="init='nvecs'"):
        tenport.gcp(X, 2, init="nvecs")
    for bad in ({"n_iter_max": 0}, {"max_evals": 0}, {"factr": -1}, {"pgtol": np.nan},
                {"memory": 0}, {"max_seconds": 0}, {"lower": np.nan}):
        with pytest.raises(ValueError):
            tenport.gcp(X, 2, **bad)
    X[1, 2, 3] = 2.5
    with pytest.raises(tenport.Error, match=r"X\[1, 2, 3\] = 2.5: the poisson loss needs "
                                            r"nonnegative integers"):
        tenport.gcp(X, 2, "poisson")
    observed = np.ones(X.shape, bool)
    observed[1, 2, 3] = False  # not read where it is missing
    tenport.gcp(X, 2, "poisson", mask=observed, n_iter_max=2)
    with pytest.raises(tenport.Error, match="no observed entry"):
        tenport.gcp(X, 2, mask=np.zeros(X.shape))


def test_ctrl_c_stops_gcp_within_an_iteration():
    import os
    import signal
    import threading
    import time
    X = np.random.default_rng(61).standard_normal((40, 30, 20))
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            tenport.gcp(X, 8, n_iter_max=10**9, max_evals=10**9, factr=0, pgtol=0,
                        max_seconds=60)
    finally:
        timer.cancel()
    assert time.monotonic() - start < 20, "the run went on after Ctrl-C"


def test_adam_samples_a_sparse_tensor_and_repeats():
    """solver="adam" on a sparse count tensor: the estimate falls, the same seed gives the
    same bits, and the info says the loss is an estimate; on a dense tensor it is exact."""
    rng = np.random.default_rng(11)
    x = rng.poisson(np.einsum("ir,jr,kr->ijk", *[rng.uniform(0, 1, (n, 2))
                                                 for n in (12, 10, 8)]))
    coords = np.argwhere(x)
    X = tenport.SparseTensor(coords, x[tuple(coords.T)].astype(float), x.shape)
    kw = dict(loss="poisson", solver="adam", epochs=5, epoch_iters=20, random_state=3,
              return_info=True)
    w1, f1, info = tenport.gcp(X, 2, **kw)
    w2, f2, _ = tenport.gcp(X, 2, **kw)
    assert info["solver"] == "adam" and info["loss_is_estimate"]
    assert info["loss"] < info["initial_loss"] and info["evaluations"] == 20 * info["iterations"]
    assert np.array_equal(w1, w2) and all(np.array_equal(a, b) for a, b in zip(f1, f2))
    _, _, dense_info = tenport.gcp(x.astype(float), 2, **kw)
    assert not dense_info["loss_is_estimate"]
    with pytest.raises(ValueError, match="solvers"):
        tenport.gcp(X, 2, loss="poisson", solver="sgd")


def test_cp_als_with_a_mask_is_cp_wopt():
    rng = np.random.default_rng(8)
    truth = [rng.uniform(0, 1, (n, 2)) for n in (9, 8, 7)]
    x = model(truth)
    observed = rng.uniform(size=x.shape) > 0.3
    y = np.where(observed, x, np.nan)
    w, f, info = tenport.cp_als(y, 2, mask=observed, random_state=3, return_info=True)
    assert info["fit"] > 0.999 and factor_match_score(f, truth) >= 0.95
    assert info["fit"] == pytest.approx(
        1 - np.sqrt(info["loss"]) / np.linalg.norm(x[observed]), rel=1e-12)
    w2, f2 = tenport.gcp(np.where(observed, x, 1e6), 2, "gaussian", mask=observed,
                         random_state=3)
    assert np.array_equal(w, w2) and all(np.array_equal(a, b) for a, b in zip(f, f2))
    with pytest.raises(ValueError, match="l2_reg belongs to ALS"):
        tenport.cp_als(y, 2, mask=observed, l2_reg=0.1)
