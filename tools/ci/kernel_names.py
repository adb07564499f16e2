#!/usr/bin/env python3
"""Every kernel a GPU build compiles can be found by grep in the source.

A profile names kernels as the build made them (flycoo_n3c_f32_k4); many are pasted
together by macros, so each source that instantiates kernels lists them in a comment that
starts with "generates:". This reads the kernels of a CUDA build's library (the device
stubs nvcc leaves in each object, found with nm) and checks that every name appears as a
word in a source file under algorithms/, portable/ or backends/.

    tools/ci/kernel_names.py BUILD_DIR            exit 1, naming each kernel grep misses
    tools/ci/kernel_names.py BUILD_DIR --list     each source's kernels, for its list
"""
import argparse
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCE_DIRS = ("algorithms", "portable", "backends")
STUB = re.compile(r"__device_stub__Z(\d+)(\w+)")


def kernels_of(obj):
    """The kernel names of one object: nvcc's __device_stub__ symbols, demangled enough."""
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    names = set()
    for m in STUB.finditer(out):
        name = m.group(2)[: int(m.group(1))]
        names.add(name[: -len("_entry")] if name.endswith("_entry") else name)
    return names


def source_of(obj):
    """The .c file a generated .cu wrapper compiled (meson-generated_NAME.cu.o)."""
    stem = os.path.basename(obj)[len("meson-generated_"):-len(".cu.o")]
    for d in SOURCE_DIRS:
        hits = glob.glob(os.path.join(ROOT, d, "**", stem + ".c"), recursive=True)
        if hits:
            return os.path.relpath(hits[0], ROOT)
    return stem + ".c"


def words_in_sources():
    words = set()
    for d in SOURCE_DIRS:
        for path in glob.glob(os.path.join(ROOT, d, "**", "*.[ch]"), recursive=True):
            with open(path, encoding="utf-8", errors="replace") as f:
                words.update(re.findall(r"\w+", f.read()))
    return words


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    objects = sorted(glob.glob(os.path.join(args.build, "libtenport_cuda.so*.p",
                                            "meson-generated_*.cu.o")))
    if not objects:
        sys.exit(f"kernel_names: no CUDA objects in {args.build} (a cuda build, compiled)")
    per_source = {}
    for obj in objects:
        per_source.setdefault(source_of(obj), set()).update(kernels_of(obj))
    if args.list:
        for src, names in sorted(per_source.items()):
            print(f"{src}: {' '.join(sorted(names))}")
        return 0
    words = words_in_sources()
    missing = [(src, n) for src, names in sorted(per_source.items()) for n in sorted(names)
               if n not in words]
    total = sum(len(v) for v in per_source.values())
    for src, n in missing:
        print(f"kernel_names: {n} (compiled from {src}) is not in the source: add it to the "
              "file's generates: list", file=sys.stderr)
    print(f"== kernels of {args.build}: {total}, {total - len(missing)} found by grep")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
