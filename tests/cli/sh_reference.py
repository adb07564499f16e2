"""Real symmetric spherical-harmonic bases written out from each tool's own definition,
independently of tenport: the orthonormal associated Legendre functions with the
Condon-Shortley phase by their three-term recurrence, and from them the bases of MRtrix3,
DIPY (descoteaux07, legacy and not) and FSL's qboot. Each stores even degrees l only,
coefficient (l, m) at l(l+1)/2 + m; theta is the angle from z, phi from x towards y."""
import math

import numpy as np


def legendre(l, m, x):
    """P_l^m(x) for m >= 0, with the Condon-Shortley phase (-1)^m (as Numerical Recipes'
    plgndr and scipy's lpmv compute it)."""
    pmm = np.ones_like(x)
    s = np.sqrt(np.maximum(0.0, 1.0 - x * x))
    for i in range(1, m + 1):
        pmm = -pmm * (2 * i - 1) * s
    if l == m:
        return pmm
    pm1 = x * (2 * m + 1) * pmm
    for ll in range(m + 2, l + 1):
        pm1, pmm = (x * (2 * ll - 1) * pm1 - (ll + m - 1) * pmm) / (ll - m), pm1
    return pm1


def norm(l, m):
    return math.sqrt((2 * l + 1) / (4 * math.pi) * math.factorial(l - m) / math.factorial(l + m))


def complex_y(l, m, theta, phi):
    """Y_l^m with the Condon-Shortley phase; Y_l^{-m} = (-1)^m conj(Y_l^m)."""
    k = abs(m)
    y = norm(l, k) * legendre(l, k, np.cos(theta)) * np.exp(1j * k * phi)
    return y if m >= 0 else (-1) ** k * np.conj(y)


def basis_function(basis, l, m, theta, phi):
    r2 = math.sqrt(2.0)
    if m == 0:
        return complex_y(l, 0, theta, phi).real
    k = abs(m)
    if basis == "mrtrix":  # MRtrix3: sqrt2 Re Y_l^m (m > 0), sqrt2 Im Y_l^|m| (m < 0)
        y = complex_y(l, k, theta, phi)
        return r2 * (y.real if m > 0 else y.imag)
    if basis == "dipy":  # descoteaux07 legacy: sqrt2 Im Y_l^m (m > 0), sqrt2 Re Y_l^|m|
        y = complex_y(l, k, theta, phi)
        return r2 * (y.imag if m > 0 else y.real)
    if basis == "dipy-nonlegacy":  # sqrt2 Im Y_l^m (m > 0), sqrt2 Re Y_l^m (m < 0)
        y = complex_y(l, m, theta, phi)
        return r2 * (y.imag if m > 0 else y.real)
    if basis == "fsl":  # qboot's fill_SH_matrix, with plgndr's phase
        mag = norm(l, k) * legendre(l, k, np.cos(theta))
        if m < 0:
            return r2 * mag * np.cos(k * phi)
        return (-1) ** m * r2 * mag * np.sin(m * phi)
    raise ValueError(basis)


def count(lmax):
    return (lmax + 1) * (lmax + 2) // 2


def matrix(basis, lmax, directions):
    """Rows: directions; columns: the basis functions in storage order."""
    d = np.asarray(directions, dtype=float)
    d = d / np.linalg.norm(d, axis=1, keepdims=True)
    theta = np.arccos(np.clip(d[:, 2], -1, 1))
    phi = np.arctan2(d[:, 1], d[:, 0])
    cols = [basis_function(basis, l, m, theta, phi)
            for l in range(0, lmax + 1, 2) for m in range(-l, l + 1)]
    return np.stack(cols, axis=1)


def sphere(n=2000):
    """n points spread over the sphere (a Fibonacci lattice)."""
    i = np.arange(n) + 0.5
    z = 1 - 2 * i / n
    r = np.sqrt(1 - z * z)
    phi = math.pi * (1 + 5 ** 0.5) * i
    return np.stack([r * np.cos(phi), r * np.sin(phi), z], axis=1)


def fiber_coefficients(basis, lmax, fibers):
    """Coefficients in basis of f(x) = sum_i w_i (d_i . x)^lmax, fitted by least squares
    on the sphere (exact: f is a polynomial of degree lmax, even). fibers: [(d, w)]."""
    pts = sphere()
    f = np.zeros(len(pts))
    for d, w in fibers:
        d = np.asarray(d, float) / np.linalg.norm(d)
        f += w * (pts @ d) ** lmax
    c, *_ = np.linalg.lstsq(matrix(basis, lmax, pts), f, rcond=None)
    return c


def evaluate(basis, lmax, coeffs, directions):
    return matrix(basis, lmax, directions) @ np.asarray(coeffs)


def fit_many(basis, lmax, voxels):
    """Coefficients in basis of each voxel's f(x) = sum_i w_i (d_i . x)^lmax (voxels: a
    list of [(d, w)]), fitted by one pseudo-inverse."""
    pts = sphere()
    pinv = np.linalg.pinv(matrix(basis, lmax, pts))
    out = []
    for fibers in voxels:
        f = np.zeros(len(pts))
        for d, w in fibers:
            d = np.asarray(d, float) / np.linalg.norm(d)
            f += w * (pts @ d) ** lmax
        out.append(pinv @ f)
    return np.array(out)


def random_unit(rng, n):
    v = rng.normal(size=(n, 3))
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def angle_deg(a, b):
    """Angle between the axes of a and b (x and -x are one axis), in degrees."""
    a = np.asarray(a, float) / np.linalg.norm(a)
    b = np.asarray(b, float) / np.linalg.norm(b)
    return math.degrees(math.acos(min(1.0, abs(float(a @ b)))))
