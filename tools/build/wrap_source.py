#!/usr/bin/env python3
"""Writes a one-line source that includes another by absolute path.

The build uses it to hand a portable .c file to nvcc as a .cu file, so that the
compiler picks the GPU language by suffix while diagnostics still name the original.
"""
import os
import sys


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: wrap_source.py INPUT OUTPUT", file=sys.stderr)
        return 2
    source, output = sys.argv[1], sys.argv[2]
    with open(output, "w", encoding="utf-8") as out:
        out.write('#include "%s"\n' % os.path.abspath(source))
    return 0


if __name__ == "__main__":
    sys.exit(main())
