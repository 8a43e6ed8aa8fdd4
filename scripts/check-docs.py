#!/usr/bin/env python3
"""check-docs.py - every public declaration of the library modules has a doc
comment, and no documentation cites the internal requirement documents.

Two checks:

1. Doc comments.  Scans Sources/<Module>/**/*.swift for declarations written
   `public` or `open` (types, functions, initialisers, properties, subscripts,
   typealiases, associated types; not extensions, which document nothing of
   their own, and not `public import`) and checks that a `///` line or a
   `/** */` block sits right above it (attributes such as `@discardableResult`
   may come between).  Prints each undocumented one as file:line: declaration,
   then a count per module.

2. Citations.  Users do not have the requirement documents the code was
   written from, and they read the doc comments (DocC renders them) and the
   JSON Schemas.  So no comment (`//`, `///`, `/* */`, `/** */`) of
   Sources/**/*.swift, include/sdui/*.h or csrc/*.{c,h}, and no "description",
   "title" or "summary" string of schemas/*.json, may cite one: neither
   `seed <digit>` (any case) nor a section sign `§`, except where the section
   sign names a section of an RFC (`RFC 9110 §15.4.5`).  Comments are found
   by a small lexer that skips string literals (Swift raw, multi-line and
   interpolated ones included), so a URL's `//` in a string is not a comment.
   Prints each citation as file:line: cites a requirement document: text,
   then a count.

Exits 1 when either check finds anything, else 0.  `--count` prints the
counts only and exits 0; `--root DIR` checks DIR (its Sources, include, csrc
and schemas) instead of this repository.
"""
import glob
import json
import os
import re
import sys

MODULES = ["SDUICore", "SDUI", "SDUIStore", "SDUIFlow", "SDUIRegistryKit", "SDUIServer"]
DECL = re.compile(r'^\s*(?:@[\w().:, "]+\s+)*(?:public|open)\s+(?:(?:static|class|final|override|mutating|nonmutating|'
                  r'convenience|required|nonisolated|indirect|lazy|weak|unowned|dynamic|isolated|consuming|borrowing)\s+)*'
                  r'(func|init|var|let|struct|class|enum|protocol|actor|typealias|subscript|associatedtype|case)\b')

SEED = re.compile(r"\bseed \d", re.IGNORECASE)
RFC_SECTION = re.compile(r"\bRFC \d+ §")
# A schema annotation and its string value, which may hold escapes.
ANNOTATION = re.compile(r'"(description|title|summary)"\s*:\s*"((?:[^"\\]|\\.)*)"')
# Where a Swift string starts: `"`, three quotes, or either after some `#`.
SWIFT_QUOTE = re.compile(r'(#*)("""|")')


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


def cites(text):
    """Whether text cites a requirement document: `seed <digit>`, or a `§` that is not an RFC's."""
    return bool(SEED.search(text)) or "§" in RFC_SECTION.sub("", text)


def comment_text(source, swift):
    """The comment text of each line of a Swift or C source, as {line number: text}.

    A left-to-right lexer with a stack of modes: code, string, block comment
    and (C only) character literal.  Code pushes a string at `"` (in Swift
    also at three quotes, and at either after one or more `#`: a raw
    string), a block comment at `/*`, and takes a line comment from `//` to
    the end of the line.  A string ends at its closing quote (with the same
    number of `#`) and skips each escaped character; in Swift a backslash
    and `(` push code again for an interpolation, which returns to the
    string at its matching `)`.  A block comment ends at `*/`; in Swift block
    comments nest.  A single-line string or character literal left open at
    the end of a line is closed there, so one unbalanced quote cannot hide
    the rest of the file.
    """
    found = {}
    line, i, n = 1, 0, len(source)
    stack = [["code", None]]     # ["code", parens or None], ["str", hashes, multi], ["block", depth], ["char"]

    def note(text):
        found[line] = found.get(line, "") + text

    while i < n:
        c = source[i]
        top = stack[-1]
        if c == "\n":
            if top[0] == "block":
                note(" ")
            elif (top[0] == "str" and not top[2]) or top[0] == "char":
                stack.pop()
            line += 1
            i += 1
            continue
        if top[0] == "code":
            if source.startswith("//", i):
                end = source.find("\n", i)
                end = n if end < 0 else end
                note(source[i:end])
                i = end
                continue
            if source.startswith("/*", i):
                stack.append(["block", 1])
                note("/*")
                i += 2
                continue
            if swift:
                m = SWIFT_QUOTE.match(source, i)
                if m:
                    stack.append(["str", len(m.group(1)), m.group(2) == '"""'])
                    i = m.end()
                    continue
            elif c == '"':
                stack.append(["str", 0, False])
                i += 1
                continue
            elif c == "'":
                stack.append(["char"])
                i += 1
                continue
            if top[1] is not None:
                if c == "(":
                    top[1] += 1
                elif c == ")":
                    if top[1] == 0:
                        stack.pop()
                    else:
                        top[1] -= 1
            i += 1
        elif top[0] == "str":
            hashes, multi = top[1], top[2]
            close = ('"""' if multi else '"') + "#" * hashes
            escape = "\\" + "#" * hashes
            if source.startswith(close, i):
                stack.pop()
                i += len(close)
            elif source.startswith(escape, i):
                k = i + len(escape)
                if swift and k < n and source[k] == "(":
                    stack.append(["code", 0])
                    i = k + 1
                elif k < n and source[k] == "\n":
                    i = k            # a line continuation: the newline is counted above
                else:
                    i = k + 1
            else:
                i += 1
        elif top[0] == "block":
            if source.startswith("*/", i):
                note("*/")
                top[1] -= 1
                if top[1] == 0:
                    stack.pop()
                i += 2
            elif swift and source.startswith("/*", i):
                note("/*")
                top[1] += 1
                i += 2
            else:
                note(c)
                i += 1
        else:   # a C character literal
            if c == "\\":
                i += 2
            else:
                if c == "'":
                    stack.pop()
                i += 1
    return found


def citations(base):
    """Every citation of a requirement document under base, as file:line: text."""
    out = []

    def rel(path):
        return os.path.relpath(path, base)

    sources = []
    for folder, _, files in os.walk(os.path.join(base, "Sources")):
        sources += [(os.path.join(folder, f), True) for f in files if f.endswith(".swift")]
    sources += [(p, False) for p in glob.glob(os.path.join(base, "include", "sdui", "*.h"))]
    sources += [(p, False) for p in glob.glob(os.path.join(base, "csrc", "*.c"))]
    sources += [(p, False) for p in glob.glob(os.path.join(base, "csrc", "*.h"))]
    for path, swift in sorted(sources):
        with open(path, encoding="utf-8") as f:
            lines = comment_text(f.read(), swift)
        for number in sorted(lines):
            if cites(lines[number]):
                out.append(f"{rel(path)}:{number}: cites a requirement document: {lines[number].strip()}")

    for path in sorted(glob.glob(os.path.join(base, "schemas", "*.json"))):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for m in ANNOTATION.finditer(text):
            try:
                value = json.loads('"' + m.group(2) + '"')
            except ValueError:
                value = m.group(2)
            if cites(value):
                number = text.count("\n", 0, m.start()) + 1
                out.append(f"{rel(path)}:{number}: cites a requirement document: \"{m.group(1)}\": {value}")
    return out


def main():
    sys.stdout.reconfigure(encoding="utf-8")     # file names and `§` whatever the locale
    base = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    if "--root" in sys.argv:
        base = sys.argv[sys.argv.index("--root") + 1]
    base = os.path.abspath(base)
    root = os.path.join(base, "Sources")
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
                        missing[module].append(f"{os.path.relpath(path, base)}:{i + 1}: {line.strip()}")
    cited = citations(base)
    count_only = "--count" in sys.argv
    if not count_only:
        for module in MODULES:
            for entry in missing[module]:
                print(entry)
        for entry in cited:
            print(entry)
    for module in MODULES:
        print(f"{module}: {len(missing[module])} of {total[module]} public declarations without a doc comment")
    print(f"{len(cited)} citations of a requirement document in comments and schema descriptions")
    if count_only:
        return 0
    return 1 if any(missing.values()) or cited else 0


if __name__ == "__main__":
    sys.exit(main())
