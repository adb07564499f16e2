#!/usr/bin/env python3
"""Figures of how readable the C sources are, for comparing two revisions:

  files          C sources and headers of the library, the command and the tests
  functions      function definitions, their median length, and the longest ones
  macros         #define's of more than MAX_MACRO_LINES lines (generator macros), their
                 lines, and every backslash-continued line of the tree
  tp_ internals  functions named tp_... outside include/ that no public header declares
                 (internal names that read as the API)

With --check it prints no figures and checks the layout's rules instead, exiting 1 with a
line per breach:
  backends/ depends on portable/ only: no file under backends/ includes a header under
                 algorithms/ (the GEMM providers take portable/tp_gemm_provider.h);
  templates      a header meant to be included more than once (no include guard or
                 #pragma once, or included twice by one file) is named *_template.h, so
                 that a reader knows what it is before opening it.

Usage: tools/ci/code_metrics.py [ROOT] [--longest N] [--macros] [--check]
  ROOT defaults to the repository this script is in; --macros lists each long macro.
"""
import argparse
import os
import re
import statistics
import sys

MAX_MACRO_LINES = 10
SOURCE_DIRS = ("algorithms", "portable", "backends", "include", "tools/tenport", "tests", "perf",
               "python")
DEFINE = re.compile(r"\s*#\s*define\s+(\w+)")
# A definition starts at column 0 with a return type and a name followed by '(' and
# ends with the first '}' at column 0.
FUNCTION = re.compile(r"^(?!typedef|struct|enum|union|#|static_assert)[A-Za-z_][\w \*]*?\b(\w+)\s*\(")


def sources(root):
    for top in SOURCE_DIRS:
        for folder, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if name.endswith((".c", ".h", ".cu", ".cpp")):
                    yield os.path.join(folder, name)


def read_lines(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read().split("\n")


def macros(lines):
    """(name, line count) of every #define, counting continuation lines."""
    i = 0
    while i < len(lines):
        m = DEFINE.match(lines[i])
        if m:
            first = i
            while lines[i].rstrip().endswith("\\") and i + 1 < len(lines):
                i += 1
            yield m.group(1), i - first + 1
        i += 1


def code_of(line):
    """The line without string and character literals and // comments."""
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(\\.|[^'\\])*'", "''", line)
    return line.split("//")[0]


def functions(lines):
    """(name, line count) of every function defined at column 0."""
    i = 0
    while i < len(lines):
        m = FUNCTION.match(lines[i])
        if m and not lines[i].rstrip().endswith(";"):
            j = i
            while j < len(lines) and "{" not in lines[j] and not lines[j].rstrip().endswith(";"):
                j += 1
            if j < len(lines) and "{" in lines[j]:
                k, depth = j, 0
                while k < len(lines):
                    depth += code_of(lines[k]).count("{") - code_of(lines[k]).count("}")
                    if depth <= 0:
                        break
                    k += 1
                yield m.group(1), k - i + 1
                i = k
        i += 1


INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
GUARD = re.compile(r"#\s*(?:ifndef\s+(\w+)|if\s+!\s*defined\s*\(?\s*(\w+)\s*\)?)\s*\n"
                   r"\s*#\s*define\s+(\w+)")


def has_guard(text):
    """Whether a header opens with an include guard or #pragma once (after comments)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = "\n".join(line.strip() for line in text.split("\n") if line.strip())
    if re.match(r"#\s*pragma\s+once\b", text):
        return True
    m = GUARD.match(text)
    return bool(m) and (m.group(1) or m.group(2)) == m.group(3)


def layout_breaches(root, files):
    """The lines --check prints: backends reaching into algorithms/, and headers
    included more than once that are not named *_template.h."""
    breaches = []
    repeated = {}  # header -> a file that includes it twice
    for path in files:
        rel = os.path.relpath(path, root)
        text = open(path, encoding="utf-8", errors="replace").read()
        includes = INCLUDE.findall(text)
        for inc in includes:
            if rel.startswith("backends" + os.sep) and "algorithms/" in inc:
                breaches.append(f"{rel}: includes {inc}: backends/ depends on portable/ only "
                                "(a provider interface in portable/, as portable/tp_gemm_provider.h)")
        for inc in set(includes):
            if includes.count(inc) > 1:
                repeated.setdefault(inc, rel)
        if rel.endswith(".h") and not rel.endswith("_template.h") and not has_guard(text):
            breaches.append(f"{rel}: no include guard or #pragma once: a header included more "
                            "than once is named *_template.h")
    for inc, rel in sorted(repeated.items()):
        if not inc.endswith("_template.h") and os.path.isfile(os.path.join(root, inc)):
            breaches.append(f"{inc}: included more than once by {rel}: a header included more "
                            "than once is named *_template.h")
    return breaches


def public_names(root):
    names = set()
    for folder, _, files in os.walk(os.path.join(root, "include", "tenport")):
        for name in files:
            if name.endswith(".h"):
                text = open(os.path.join(folder, name), encoding="utf-8", errors="replace").read()
                names.update(re.findall(r"\b(tp_\w+)\s*\(", text))
    return names


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root", nargs="?", default=os.path.dirname(os.path.dirname(here)))
    ap.add_argument("--longest", type=int, default=5)
    ap.add_argument("--macros", action="store_true")
    ap.add_argument("--check", action="store_true", help="check the layout's rules (see above)")
    args = ap.parse_args()

    files = list(sources(args.root))
    if args.check:
        breaches = layout_breaches(args.root, files)
        for line in breaches:
            print("code_metrics.py --check: " + line, file=sys.stderr)
        if breaches:
            return 1
        print(f"code_metrics.py --check: {len(files)} files follow the layout's rules")
        return 0
    lengths, long_macros, continued = [], [], 0
    internal_tp = set()
    public = public_names(args.root)
    for path in files:
        lines = read_lines(path)
        rel = os.path.relpath(path, args.root)
        continued += sum(1 for line in lines if line.rstrip().endswith("\\"))
        for name, n in macros(lines):
            if n > MAX_MACRO_LINES:
                long_macros.append((n, rel, name))
        for name, n in functions(lines):
            lengths.append((n, rel, name))
            if name.startswith("tp_") and not rel.startswith("include") and name not in public:
                internal_tp.add(name)

    print(f"files: {len(files)}")
    sizes = [n for n, _, _ in lengths]
    print(f"functions: {len(sizes)}, median {statistics.median(sizes) if sizes else 0} lines")
    for n, rel, name in sorted(lengths, reverse=True)[: args.longest]:
        print(f"  {n:4d} lines  {name} ({rel})")
    print(f"macros of more than {MAX_MACRO_LINES} lines: {len(long_macros)}, "
          f"{sum(n for n, _, _ in long_macros)} lines; backslash-continued lines: {continued}")
    if args.macros:
        for n, rel, name in sorted(long_macros, reverse=True):
            print(f"  {n:4d} lines  {name} ({rel})")
    print(f"tp_ functions outside the API: {len(internal_tp)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
