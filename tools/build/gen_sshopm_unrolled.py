#!/usr/bin/env python3
"""Generates straight-line SS-HOPM products for fixed (order m, dimension n).

Usage: gen_sshopm_unrolled.py OUTPUT.h

The output is a template header: the includer defines TP_REAL (float or double) and
TP_SYM_FN(name) (name pasting with a precision suffix), and may include it once per
precision. For each shape it emits

  <s>_prescale1(a, b)   b[i*M1 + t] = multinomial(m-1; k_t) * a[class(k_t + e_i)]
  <s>_prescale2(a, b2)  b2[p*M2 + t] = multinomial(m-2; k_t) * a[class(k_t + e_i + e_j)]
                        for the pairs p = (i <= j) in row order
  <s>_axm1(b, x, y)     y = A x^(m-1) = B * monomials_{m-1}(x), factored by the
                        monomials' last index where that takes fewer operations
  <s>_axm2(b2, x, h)    h = A x^(m-2) (n x n, both triangles)
  <s>_axm(a, x)         A x^m
  <s>_norm2(a, s)       sum_j multinomial(class j) (s a[j])^2: |A|_F^2 for s = 1

where a holds the unique values in lexicographic class order, k_t runs over the
monomials of the given degree in the same order, and monomials are built once each
from their parent of one degree lower (common subexpressions shared). Constants
TP_SYM_<s>_U, _M1, _M2, _NB1, _NB2 give the sizes (<s> is e.g. m4n3), and
TP_SSHOPM_UNROLLED_SHAPES(X) lists the shapes as X(m, n, <s>).
"""
import itertools
import math
import sys

# DW-MRI shapes (n = 3, even m = 4, 6, 8), odd orders for tests and other
# applications, and small 2-D and 4-D cases.
SHAPES = [(3, 2), (4, 2), (3, 3), (4, 3), (5, 3), (6, 3), (8, 3), (3, 4), (4, 4)]


def classes(degree, n):
    """Nondecreasing index tuples of a degree, lexicographic (the storage order)."""
    return list(itertools.combinations_with_replacement(range(n), degree))


def multinomial(index):
    counts = {}
    for i in index:
        counts[i] = counts.get(i, 0) + 1
    denominator = 1
    for c in counts.values():
        denominator *= math.factorial(c)
    return math.factorial(len(index)) // denominator


def mono_name(index):
    return "p_" + "".join(str(i) for i in index) if index else "one"


def literal(value):
    return "(TP_REAL)%d" % value


def emit_monomials(out, degree, n):
    """Locals for every monomial up to degree, each one product from its parent."""
    for d in range(2, degree + 1):
        for index in classes(d, n):
            parent = mono_name(index[:-1]) if d > 2 else "x[%d]" % index[0]
            out.append("  const TP_REAL %s = %s * x[%d];" % (mono_name(index), parent,
                                                              index[-1]))


def mono_ref(index):
    if len(index) == 0:
        return "(TP_REAL)1"
    if len(index) == 1:
        return "x[%d]" % index[0]
    return mono_name(index)


def flat_cost(degree, n):
    """Multiplies and FMAs of y = B p(x) from every monomial of the degree."""
    return sum(len(classes(d, n)) for d in range(2, degree + 1)) + n * len(classes(degree, n))


def factored_cost(degree, n):
    """The same with the last factor taken out (emit_factored_products)."""
    shared = sum(len(classes(d, n)) for d in range(2, degree)) + 1
    return shared + n * (len(classes(degree, n)) + n - 1)


def emit_factored_products(out, degree, n):
    """y_i = sum_t b[i, t] k_t(x) over the monomials k_t of the degree, grouped by their
    last (largest) index c: y_i = b x_0^degree + sum_{c >= 1} x_c S_ic, where S_ic sums
    b times monomials of one degree lower. Each coefficient then costs one FMA, and only
    the monomials of degree - 1 (and x_0^degree) are built: fewer multiplies than
    building every monomial of the degree once all n outputs share them."""
    emit_monomials(out, degree - 1, n)
    first = (0,) * degree
    out.append("  const TP_REAL %s = %s * x[0];" % (mono_name(first), mono_ref(first[:-1])))
    mon = classes(degree, n)
    for i in range(n):
        base = i * len(mon)
        parts = ["b[%d] * %s" % (base, mono_name(first))]
        for c in range(1, n):
            group = ["b[%d] * %s" % (base + t, mono_ref(k[:-1]))
                     for t, k in enumerate(mon) if k[-1] == c]
            parts.append("x[%d] * (%s)" % (c, " + ".join(group)))
        out.append("  y[%d] = %s;" % (i, " + ".join(parts)))


def emit_shape(m, n):
    s = "m%dn%d" % (m, n)
    S = "TP_SYM_" + s
    cls = classes(m, n)
    pos = {c: j for j, c in enumerate(cls)}
    mon1, mon2 = classes(m - 1, n), classes(m - 2, n)
    pairs = [(i, j) for i in range(n) for j in range(i, n)]
    out = ["/* ---- m = %d, n = %d ---- */" % (m, n)]
    for name, value in (("U", len(cls)), ("M1", len(mon1)), ("M2", len(mon2)),
                        ("NB1", n * len(mon1)), ("NB2", len(pairs) * len(mon2))):
        out.append("#define %s_%s %d" % (S, name, value))

    out.append("TP_INLINE void TP_SYM_FN(%s_prescale1)(const TP_REAL *TP_RESTRICT a, "
               "TP_REAL *TP_RESTRICT b) {" % s)
    for i in range(n):
        for t, k in enumerate(mon1):
            j = pos[tuple(sorted(k + (i,)))]
            out.append("  b[%d] = %s * a[%d];" % (i * len(mon1) + t, literal(multinomial(k)), j))
    out.append("}")

    out.append("TP_INLINE void TP_SYM_FN(%s_prescale2)(const TP_REAL *TP_RESTRICT a, "
               "TP_REAL *TP_RESTRICT b2) {" % s)
    for p, (i, j) in enumerate(pairs):
        for t, k in enumerate(mon2):
            c = pos[tuple(sorted(k + (i, j)))]
            out.append("  b2[%d] = %s * a[%d];" % (p * len(mon2) + t,
                                                   literal(multinomial(k)), c))
    out.append("}")

    out.append("TP_INLINE void TP_SYM_FN(%s_axm1)(const TP_REAL *TP_RESTRICT b, "
               "const TP_REAL *TP_RESTRICT x, TP_REAL *TP_RESTRICT y) {" % s)
    if factored_cost(m - 1, n) < flat_cost(m - 1, n):
        emit_factored_products(out, m - 1, n)
    else:
        emit_monomials(out, m - 1, n)
        for i in range(n):
            terms = ["b[%d] * %s" % (i * len(mon1) + t, mono_ref(k))
                     for t, k in enumerate(mon1)]
            out.append("  y[%d] = %s;" % (i, " + ".join(terms)))
    out.append("}")

    out.append("TP_INLINE void TP_SYM_FN(%s_axm2)(const TP_REAL *TP_RESTRICT b2, "
               "const TP_REAL *TP_RESTRICT x, TP_REAL *TP_RESTRICT h) {" % s)
    emit_monomials(out, m - 2, n)
    for p, (i, j) in enumerate(pairs):
        terms = ["b2[%d] * %s" % (p * len(mon2) + t, mono_ref(k)) for t, k in enumerate(mon2)]
        out.append("  h[%d] = %s;" % (i * n + j, " + ".join(terms)))
        if i != j:
            out.append("  h[%d] = h[%d];" % (j * n + i, i * n + j))
    out.append("}")

    out.append("TP_INLINE TP_REAL TP_SYM_FN(%s_axm)(const TP_REAL *TP_RESTRICT a, "
               "const TP_REAL *TP_RESTRICT x) {" % s)
    emit_monomials(out, m, n)
    terms = ["%s * a[%d] * %s" % (literal(multinomial(k)), j, mono_ref(k))
             for j, k in enumerate(cls)]
    out.append("  return %s;" % " + ".join(terms))
    out.append("}")

    out.append("TP_INLINE TP_REAL TP_SYM_FN(%s_norm2)(const TP_REAL *TP_RESTRICT a, "
               "TP_REAL s) {" % s)
    for j in range(len(cls)):
        out.append("  const TP_REAL v%d = s * a[%d];" % (j, j))
    terms = ["%s * v%d * v%d" % (literal(multinomial(k)), j, j) for j, k in enumerate(cls)]
    out.append("  return %s;" % " + ".join(terms))
    out.append("}")
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    lines = ["/* Generated by tools/build/gen_sshopm_unrolled.py; do not edit. */",
             "/* Template: define TP_REAL and TP_SYM_FN(name) before including. */",
             "#define TP_SSHOPM_UNROLLED_SHAPES(X) " +
             " ".join("X(%d, %d, m%dn%d)" % (m, n, m, n) for m, n in SHAPES)]
    for m, n in SHAPES:
        lines += emit_shape(m, n)
    text = "\n".join(lines) + "\n"
    # Rewritten only when it changes: meson runs this at every reconfigure (a new
    # --prefix too), and a fresh file would recompile the SS-HOPM kernels.
    try:
        with open(sys.argv[1]) as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    with open(sys.argv[1], "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
