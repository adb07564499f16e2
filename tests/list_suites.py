#!/usr/bin/env python3
"""Prints the Criterion suites of tests/, one `NAME PATH` line each, sorted by name.

A suite is a file tests/<folder>/test_NAME.c (any depth); its name is NAME, which
`meson test NAME` runs. tests/cli (pytest), tests/fuzz and tests/mpi hold programs of
other kinds and are left out. tests/meson.build runs this when the build is configured,
so a new suite file needs no other edit: `meson setup --reconfigure BUILD` picks it up.
Two files of one name stop the build (exit 1), since meson names tests by it.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OTHER_KINDS = {"cli", "fuzz", "mpi"}


def suites(root=HERE):
    found = {}
    for folder, dirs, names in os.walk(root):
        if folder == root:
            dirs[:] = [d for d in dirs if d not in OTHER_KINDS]
        for name in names:
            if name.startswith("test_") and name.endswith(".c"):
                suite = name[len("test_"):-len(".c")]
                rel = os.path.relpath(os.path.join(folder, name), root)
                if suite in found:
                    sys.exit(f"list_suites.py: two suites named {suite}: "
                             f"tests/{found[suite]} and tests/{rel}")
                found[suite] = rel
    return found


def main():
    for suite, rel in sorted(suites().items()):
        print(suite, rel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
