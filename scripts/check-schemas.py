#!/usr/bin/env python3
"""check-schemas.py - validates the examples, and render trees the built
`sdui` writes, against the JSON Schemas in schemas/, and checks that the
committed OpenAPI bundle (schemas/openapi.json) is what its sources give
and judges every example as the schema file it copies does.

Usage: check-schemas.py SDUI_BINARY

Uses python3-jsonschema (Debian).  Every file is checked; the exit status is
1 when any fails, with one line per error naming the file and the place.
"""
import functools
import glob
import json
import os
import subprocess
import sys
import tempfile
import warnings

import jsonschema

# Debian's jsonschema (4.10) resolves $ref with RefResolver; newer releases
# still do but warn.
warnings.filterwarnings("ignore", category=DeprecationWarning)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE = "https://sdui.example.com/schemas/"


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


SCHEMAS = {os.path.basename(p): load(p) for p in glob.glob(os.path.join(ROOT, "schemas", "*.json"))}
STORE = {BASE + name: s for name, s in SCHEMAS.items()}


@functools.lru_cache(maxsize=None)
def validator(name):
    schema = SCHEMAS[name]
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    resolver = jsonschema.RefResolver(base_uri=BASE + name, referrer=schema, store=STORE)
    return cls(schema, resolver=resolver)


def errors(name, doc):
    return sorted(validator(name).iter_errors(doc), key=lambda e: list(e.absolute_path))


# schemas/openapi.json copies a schema file into components/schemas under
# its title (scripts/bundle-openapi.py).
BUNDLE = SCHEMAS["openapi.json"]


@functools.lru_cache(maxsize=None)
def bundled_validator(component):
    schema = {"$ref": "#/components/schemas/" + component}
    cls = jsonschema.validators.validator_for(BUNDLE["components"]["schemas"][component])
    return cls(schema, resolver=jsonschema.RefResolver(base_uri="", referrer=BUNDLE))


def bundled_errors(name, doc):
    """What the bundle's copy of schema file `name` finds in `doc`, or None when it has none."""
    component = SCHEMAS[name].get("title")
    if component not in BUNDLE.get("components", {}).get("schemas", {}):
        return None
    return sorted(bundled_validator(component).iter_errors(doc), key=lambda e: list(e.absolute_path))


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    sdui = sys.argv[1]
    failed = 0
    checked = 0

    def check(name, label, doc):
        nonlocal failed, checked
        checked += 1
        found = errors(name, doc)
        for e in found:
            failed += 1
            where = "/".join(str(p) for p in e.absolute_path) or "(top level)"
            print(f"{label}: {where}: {e.message} [{name}]", file=sys.stderr)
        copied = bundled_errors(name, doc)
        if copied is not None and [(list(e.absolute_path), e.message) for e in copied] != \
                [(list(e.absolute_path), e.message) for e in found]:
            failed += 1
            print(f"{label}: schemas/openapi.json's copy of {name} finds {len(copied)} error(s), "
                  f"{name} {len(found)}", file=sys.stderr)

    # The OpenAPI bundle is what schemas/openapi.src.json and the files it refers to give.
    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "bundle-openapi.py"), "--check"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        failed += 1
        print(r.stderr.strip() or f"bundle-openapi.py --check: exit {r.returncode}", file=sys.stderr)

    ex = os.path.join(ROOT, "Examples")
    for p in sorted(glob.glob(os.path.join(ex, "tokens", "*.json"))):
        check("design-token.json", p, load(p))
    for p in sorted(glob.glob(os.path.join(ex, "screens", "*.json"))):
        check("screen-payload.json", p, load(p))
    for p in sorted(glob.glob(os.path.join(ex, "blocks", "*.json"))):
        check("block-screen.json", p, load(p))
    for p in sorted(glob.glob(os.path.join(ex, "flows", "*.json")) + glob.glob(os.path.join(ex, "flow-versions", "*.json"))):
        check("flow.json", p, load(p))
    for p in sorted(glob.glob(os.path.join(ex, "payloads", "*.json"))):
        check("normalized-screen.json", p, load(p))
    for p in sorted(glob.glob(os.path.join(ex, "experiments", "*.json"))):
        check("experiment.json", p, load(p))
    for p in sorted(glob.glob(os.path.join(ex, "strings", "*.json"))):
        check("string-catalog.json", p, load(p))
    for p in sorted(glob.glob(os.path.join(ex, "themes", "*.json"))):
        doc = load(p)
        if "id" in doc:  # W3C Design Tokens files have no id; they are imported, not validated here
            check("theme.json", p, doc)

    # Render trees: every example screen in both modes, plus degraded ones.
    pack = os.path.join(ex, "core-pack.json.gz")
    theme = os.path.join(ex, "themes", "theme_nordlicht.json")
    runs = []
    for p in sorted(glob.glob(os.path.join(ex, "screens", "*.json"))):
        for mode in ("light", "dark"):
            runs.append([p, "--pack", pack, "--theme", theme, "--mode", mode])
    for p in sorted(glob.glob(os.path.join(ex, "blocks", "*.json"))):
        runs.append([p, "--theme", os.path.join(ex, "themes", "theme_mint_dark.json")])
    for p in sorted(glob.glob(os.path.join(ex, "payloads", "*.json"))):
        runs.append([p, "--theme", os.path.join(ex, "themes", "theme_mint_dark.json")])
    for locale in ("de-CH", "ar", "fr"):
        runs.append([os.path.join(ex, "screens", "checkout.json"), "--pack", pack, "--theme", theme, "--locale", locale,
                     "--strings", os.path.join(ex, "strings")])
    runs.append([os.path.join(ex, "screens", "checkout.json"), "--pack", pack, "--offline",
                 "checkout_upsell,checkout_totals", "--primitives", "Column@2,Text@4,Row@2,Spacer@1"])
    with tempfile.TemporaryDirectory() as tmp:
        for i, args in enumerate(runs):
            out = os.path.join(tmp, f"tree{i}.json")
            r = subprocess.run([sdui, "render", *args, "--out", out], capture_output=True, text=True)
            if r.returncode != 0:
                failed += 1
                print(f"sdui render {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}", file=sys.stderr)
                continue
            check("render-tree.json", f"sdui render {os.path.basename(args[0])} {' '.join(args[1:])}", load(out))

    # The validator itself must reject a broken tree.
    bad = {"screen": "s", "renderedScreen": "s", "theme": "t", "themeSource": "sdk", "mode": "light",
           "root": {"kind": "placeholder", "primitive": "", "version": 0}, "issues": [], "events": []}
    if not errors("render-tree.json", bad):
        failed += 1
        print("render-tree.json accepted a placeholder without a reason", file=sys.stderr)

    print(f"check-schemas: {checked} documents, {failed} error(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
