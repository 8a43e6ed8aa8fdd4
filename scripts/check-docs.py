#!/usr/bin/env python3
"""check-docs.py - every public declaration of the library modules has a doc comment.

Scans Sources/<Module>/**/*.swift for declarations written `public` or `open`
(types, functions, initialisers, properties, subscripts, typealiases,
associated types; not extensions, which document nothing of their own, and not
`public import`) and checks that a `///` line or a `/** */` block sits right
above it (attributes such as `@discardableResult` may come between).  Prints
each undocumented one as file:line: declaration, then a count per module, and
exits 1 when any is found.  `--count` prints the counts and exits 0;
`--root DIR` checks DIR/Sources instead of this repository's.
"""
import os
import re
import sys

MODULES = ["SDUICore", "SDUI", "SDUIRegistryKit", "SDUIServer"]
DECL = re.compile(r'^\s*(?:@[\w().:, "]+\s+)*(?:public|open)\s+(?:(?:static|class|final|override|mutating|nonmutating|'
                  r'convenience|required|nonisolated|indirect|lazy|weak|unowned|dynamic|isolated|consuming|borrowing)\s+)*'
                  r'(func|init|var|let|struct|class|enum|protocol|actor|typealias|subscript|associatedtype|case)\b')


def documented(lines, i):
    """Whether a doc comment sits right above line i (attributes may come between)."""
    j = i - 1
    while j >= 0 and (lines[j].strip().startswith("@") or lines[j].strip() == ""):
        if lines[j].strip() == "":
            return False
        j -= 1
    if j < 0:
        return False
    above = lines[j].strip()
    return above.startswith("///") or above.endswith("*/")


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources")
    if "--root" in sys.argv:
        root = os.path.join(sys.argv[sys.argv.index("--root") + 1], "Sources")
    missing = {m: [] for m in MODULES}
    total = {m: 0 for m in MODULES}
    for module in MODULES:
        for folder, _, files in os.walk(os.path.join(root, module)):
            for name in sorted(files):
                if not name.endswith(".swift"):
                    continue
                path = os.path.join(folder, name)
                lines = open(path, encoding="utf-8").read().split("\n")
                for i, line in enumerate(lines):
                    m = DECL.match(line)
                    if not m or "public import" in line:
                        continue
                    total[module] += 1
                    if not documented(lines, i):
                        missing[module].append(f"{os.path.relpath(path, os.path.join(root, '..'))}:{i + 1}: {line.strip()}")
    count_only = "--count" in sys.argv
    if not count_only:
        for module in MODULES:
            for entry in missing[module]:
                print(entry)
    for module in MODULES:
        print(f"{module}: {len(missing[module])} of {total[module]} public declarations without a doc comment")
    if count_only:
        return 0
    return 1 if any(missing.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
