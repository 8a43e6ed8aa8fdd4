#!/usr/bin/env python3
"""hostile.py - writes normalized payloads (schemas/normalized-screen.json)
that are small on disk and huge when rendered, because templates reuse
components and components reuse bodies.  Used to measure `sdui render` on
them by hand and to seed the payload fuzzer (run-swift.sh).

    python3 Tests/Fuzz/swift/hostile.py wide  2.3 > wide-2.3mb.json
    python3 Tests/Fuzz/swift/hostile.py deep  9.3 > deep-9.3mb.json

Shapes (the number is the target size in MB, approximate):
  wide    many templates, each listing the same 100 header components:
          every 25-byte reference draws a whole header block.
  deep    one benefits_list body of 2,000 items, used by one component
          that every template lists: every reference draws 6,001 nodes.
  nested  a choice body of 500 large options, which its renderer copies
          into its node, reused by every template.
  keys    a header body with 50,000 unused fields, reused by every
          template: drawing it is small, joining it per use is not.
"""
import json
import sys


def size_of(v):
    return len(json.dumps(v, separators=(",", ":")))


def wide(size):
    comps = [{"id": f"c{i}", "type": "header", "bodyId": f"b{i % 10}"} for i in range(100)]
    bodies = [{"id": f"b{i}", "body": {"title": f"Title {i} " + "x" * 20, "subtitle": "Subtitle " + "y" * 30}}
              for i in range(10)]
    refs = [{"id": f"c{i}", "order": i} for i in range(100)]
    per = size_of({"id": "t00000", "type": "column", "order": 0, "componentsId": refs})
    n = max(1, int(size * 1e6) // per)
    templates = [{"id": f"t{i}", "type": "column", "order": i, "componentsId": refs} for i in range(n)]
    return {"screenName": "wide", "templates": templates, "components": comps, "body": bodies}


def deep(size):
    items = [f"item {i}" for i in range(2000)]
    body = {"id": "b", "body": {"items": items}}
    per = size_of({"id": "t00000", "type": "list", "order": 0, "componentsId": [{"id": "c", "order": 1}]})
    n = max(1, (int(size * 1e6) - size_of(body)) // per)
    templates = [{"id": f"t{i}", "type": "list", "order": i, "componentsId": [{"id": "c", "order": 1}]}
                 for i in range(n)]
    return {"screenName": "deep", "templates": templates,
            "components": [{"id": "c", "type": "benefits_list", "bodyId": "b"}], "body": [body]}


def nested(size):
    leaf = {"label": "option " + "z" * 40, "value": list(range(20))}
    options = [leaf] * 500
    body = {"id": "b", "body": {"key": "k", "options": options}}
    per = size_of({"id": "t00000", "type": "row", "order": 0, "componentsId": [{"id": "c", "order": 1}]})
    n = max(1, (int(size * 1e6) - size_of(body)) // per)
    templates = [{"id": f"t{i}", "type": "row", "order": i, "componentsId": [{"id": "c", "order": 1}]}
                 for i in range(n)]
    return {"screenName": "nested", "templates": templates,
            "components": [{"id": "c", "type": "choice", "bodyId": "b"}], "body": [body]}


def keys(size):
    fields = {f"k{i}": i for i in range(50_000)}
    fields["title"] = "many keys"
    body = {"id": "b", "body": fields}
    per = size_of({"id": "t00000", "type": "row", "order": 0, "componentsId": [{"id": "c", "order": 1}]})
    n = max(1, (int(size * 1e6) - size_of(body)) // per)
    templates = [{"id": f"t{i}", "type": "row", "order": i, "componentsId": [{"id": "c", "order": 1}]}
                 for i in range(n)]
    return {"screenName": "keys", "templates": templates,
            "components": [{"id": "c", "type": "header", "bodyId": "b"}], "body": [body]}


def main():
    shapes = {"wide": wide, "deep": deep, "nested": nested, "keys": keys}
    if len(sys.argv) != 3 or sys.argv[1] not in shapes:
        sys.exit(f"usage: hostile.py {{{'|'.join(shapes)}}} MEGABYTES")
    json.dump(shapes[sys.argv[1]](float(sys.argv[2])), sys.stdout, separators=(",", ":"))


if __name__ == "__main__":
    main()
