#!/usr/bin/env python3
"""bundle-openapi.py - writes schemas/openapi.json, the registry's OpenAPI
document in one self-contained file, from schemas/openapi.src.json and the
JSON Schemas it refers to.

Usage: bundle-openapi.py          write schemas/openapi.json
       bundle-openapi.py --check  exit 1 if the committed file is not what
                                  the sources give (scripts/check-schemas.py
                                  runs this)

Why two files: a token, a screen payload, a flow and an event batch each
have one JSON Schema in schemas/ that the examples, the CLI and the API
share, and the hand-written source refers to them by file ("$ref":
"events.json").  Tools that read an OpenAPI document (code generators such
as swift-openapi-generator, schemathesis, documentation viewers) want one
file whose references all point inside it.  So the source is edited, and
this script writes the bundle, which is committed for those tools.

How: every "$ref" that names another file, and every "#/$defs/..." inside
such a file, becomes "#/components/schemas/NAME".  NAME is the schema's
"title" for a whole file (design-token.json: DesignToken), and for one of
its $defs the def's own "title" when it has one, else the file's title
followed by the def's name with a capital (design-token.json#/$defs/tokenId:
DesignTokenTokenId).  Only what the document reaches is copied, each once,
without "$schema", "$id" and "$defs" (an "$id" inside a component would
move the base that "#/components/..." resolves against).  A reference the
script cannot place (a pointer other than the root or one $def, a name
taken twice) is an error naming the file and the reference.  The order is
the source's, then the copied schemas by name, so the same sources always
give the same bytes.  A document whose operations name a tag not declared
under "tags", or share an operationId, is refused.
"""
import copy
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMAS = os.path.join(ROOT, "schemas")
SOURCE = os.path.join(SCHEMAS, "openapi.src.json")
OUTPUT = os.path.join(SCHEMAS, "openapi.json")
BASE = "https://sdui.example.com/schemas/"
NOTE = ("Written by scripts/bundle-openapi.py from schemas/openapi.src.json and the JSON Schemas it "
        "refers to; edit those and run the script, not this file.")


class BundleError(Exception):
    pass


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def dump(doc):
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


class Bundler:
    def __init__(self):
        self.files = {}        # file name -> its JSON
        self.names = {}        # (file, def or None) -> component name
        self.components = {}   # component name -> schema
        self.pending = []      # (file, def or None) still to copy

    def schema_file(self, name, where):
        if name not in self.files:
            path = os.path.join(SCHEMAS, name)
            if os.path.dirname(name) or not os.path.isfile(path):
                raise BundleError(f"{where}: $ref names {name!r}, which is not a file in schemas/")
            self.files[name] = load(path)
        return self.files[name]

    def target(self, ref, current, where):
        """(file, def or None) that `ref` names, read in `current` (None: the OpenAPI document)."""
        if ref.startswith(BASE):
            ref = ref[len(BASE):]
        name, _, pointer = ref.partition("#")
        if not name:
            if current is None:
                return None            # a reference inside the OpenAPI document stays as it is
            name = current
        doc = self.schema_file(name, where)
        if pointer in ("", "/"):
            return (name, None)
        parts = pointer.split("/")
        if len(parts) != 3 or parts[1] != "$defs" or parts[2] not in doc.get("$defs", {}):
            raise BundleError(f"{where}: $ref {ref!r}: only a whole file or one of its $defs can be bundled")
        return (name, parts[2])

    def component(self, key, where):
        """The component name for `key`, queuing its schema the first time."""
        if key in self.names:
            return self.names[key]
        name, definition = key
        doc = self.files[name]
        title = doc.get("title")
        if not title:
            raise BundleError(f"schemas/{name}: no \"title\" to name its component by")
        if definition is None:
            component = title
        else:
            component = doc["$defs"][definition].get("title") or title + definition[0].upper() + definition[1:]
        if component in self.components or component in self.names.values():
            raise BundleError(f"{where}: component name {component!r} is taken twice")
        self.names[key] = component
        self.pending.append(key)
        return component

    def rewrite(self, node, current, where):
        """`node` with every reference to a schema file pointed at its component."""
        if isinstance(node, list):
            return [self.rewrite(v, current, f"{where}/{i}") for i, v in enumerate(node)]
        if not isinstance(node, dict):
            return node
        out = {}
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str):
                key = self.target(v, current, where)
                out[k] = v if key is None else "#/components/schemas/" + self.component(key, where)
            else:
                out[k] = self.rewrite(v, current, f"{where}/{k}")
        return out

    def bundle(self, source):
        doc = source
        existing = doc.get("components", {}).get("schemas", {})
        self.components.update({k: None for k in existing})
        doc = self.rewrite(doc, None, "schemas/openapi.src.json#")
        copied = {}
        while self.pending:
            name, definition = self.pending.pop(0)
            file_doc = self.files[name]
            if definition is None:
                schema = {k: v for k, v in file_doc.items() if k not in ("$schema", "$id", "$defs")}
                where = f"schemas/{name}#"
            else:
                schema = copy.deepcopy(file_doc["$defs"][definition])
                where = f"schemas/{name}#/$defs/{definition}"
            copied[self.names[(name, definition)]] = self.rewrite(schema, name, where)
        schemas = doc.setdefault("components", {}).setdefault("schemas", {})
        for k in sorted(copied):
            schemas[k] = copied[k]
        bundled = {}
        for k, v in doc.items():
            bundled[k] = v
            if k == "info":
                bundled["x-bundled"] = NOTE
        return bundled


METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def lint(doc):
    """Refuses a document whose operations name an undeclared tag or share an operationId."""
    declared = {t.get("name") for t in doc.get("tags", [])}
    ids = {}
    for path, item in doc.get("paths", {}).items():
        for method in METHODS:
            op = item.get(method)
            if op is None:
                continue
            where = f"{method.upper()} {path}"
            for tag in op.get("tags", []):
                if tag not in declared:
                    raise BundleError(f"schemas/openapi.src.json: {where} has tag {tag!r}, not declared under \"tags\"")
            oid = op.get("operationId")
            if oid in ids:
                raise BundleError(f"schemas/openapi.src.json: {where} and {ids[oid]} share operationId {oid!r}")
            if oid is not None:
                ids[oid] = where


def build():
    doc = Bundler().bundle(load(SOURCE))
    lint(doc)
    return dump(doc)


def main():
    check = sys.argv[1:] == ["--check"]
    if sys.argv[1:] and not check:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        text = build()
    except (BundleError, OSError, ValueError) as e:
        print(f"bundle-openapi: {e}", file=sys.stderr)
        return 1
    if check:
        try:
            with open(OUTPUT, encoding="utf-8") as f:
                current = f.read()
        except OSError as e:
            print(f"bundle-openapi: {e}", file=sys.stderr)
            return 1
        if current != text:
            print("bundle-openapi: schemas/openapi.json is not what schemas/openapi.src.json and the schemas it "
                  "refers to give; run python3 scripts/bundle-openapi.py and commit the result", file=sys.stderr)
            return 1
        return 0
    with open(OUTPUT, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"bundle-openapi: wrote schemas/openapi.json ({len(text.encode())} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
