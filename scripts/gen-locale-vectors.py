#!/usr/bin/env python3
"""gen-locale-vectors.py - writes the locale test vectors,
Tests/LocaleVectors/{plural,numbers,percent,currency,chain}.json, from Babel:
an oracle independent of the C code (csrc/locale.c) that every port of the
locale functions must agree with (Tests/LocaleVectors/README.md).

    python3 scripts/gen-locale-vectors.py            writes the files
    python3 scripts/gen-locale-vectors.py --check    exits 1 when a committed
                                                     file differs

Babel is pinned as in scripts/gen-cldr.py (the same CLDR release as the
tables); with --check and another Babel the script prints "skipped: babel
2.19.0 not installed" and exits 0.  The locales, currencies and the CLDR
data Babel lacks (minimumGroupingDigits, numbering systems' digits) are
read from scripts/gen-cldr.py.

The locales are those of the tables (gen-cldr.py's table_locales()): the
chosen ones get many cases, the regional ones it adds one number and one
amount each.  The oracle is Babel's, with the parts of CLDR's rules (UTS #35) that Babel
2.19.0 leaves out done here, each in a few lines, as the README lists:
  - plural categories: Babel's PluralRule for numbers without an exponent;
    for compact numbers (1.2c6) the operands are read from the text as UTS
    #35 says (Babel sets e and c to 0) and Babel's own compiled rules are
    evaluated on them in CLDR's category order;
  - numbers: Babel's format_decimal / format_percent / format_currency with
    numbering_system="default", in a decimal context of 1000 digits (its
    default of 28 cannot quantize 1e300), and then: the pattern's '-' and
    '%' replaced by the locale's minus and percent signs, ASCII digits by
    the default numbering system's, no grouping below primary +
    minimumGroupingDigits integer digits, CLDR's currencySpacing (a
    no-break space between the currency symbol and a digit when the
    symbol's character there is neither a symbol nor a space), an
    amount of money written with CLDR's currencyDecimal and currencyGroup
    where the locale has them (fr-CH: 1'234.50 CHF), and a number that
    rounds to zero written without its minus sign (locale.h);
  - chains: Babel's parent rules (parent_exceptions, then its
    _is_non_likely_script, then truncation), on the tag written in
    canonical case.
"""
import argparse
import decimal
import importlib.util
import json
import os
import re
import sys
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "Tests", "LocaleVectors")


def load_gen():
    """scripts/gen-cldr.py as a module (its constants)."""
    spec = importlib.util.spec_from_file_location("gen_cldr", os.path.join(ROOT, "scripts", "gen-cldr.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


GEN = load_gen()
CATEGORIES = ["zero", "one", "two", "few", "many", "other"]
TABLE = []   # every locale of the tables (GEN.table_locales(), once Babel is there)

# ------------------------------------------------------------------ JSON

def jstr(s):
    """A JSON string: UTF-8 as it is, but spaces other than ' ', format
    characters (LRM, RLM, ALM) and controls as \\u escapes, so that every
    invisible character can be read in the file."""
    out = ['"']
    for ch in s:
        cat = unicodedata.category(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch != " " and (cat.startswith("Z") or cat.startswith("C")):
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def jval(v):
    """A JSON value of a case."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, str):
        return jstr(v)
    if isinstance(v, float):
        if v == int(v) and abs(v) < 2 ** 53 and not (v == 0 and str(v).startswith("-")):
            return str(int(v))
        return repr(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, list):
        return "[" + ", ".join(jval(x) for x in v) + "]"
    raise TypeError(v)


def jcase(d):
    return "{" + ", ".join("%s: %s" % (jstr(k), jval(v)) for k, v in d.items()) + "}"


def document(head, cases):
    """A vectors file: its head members, then one case a line."""
    lines = ["{" + ", ".join("%s: %s" % (jstr(k), jval(v)) for k, v in head.items()) + ', "cases": [']
    lines.append(",\n".join(" " + jcase(c) for c in cases))
    lines.append("]}")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ tags

TAG_RE = re.compile(r"^[A-Za-z]{2,3}([-_][A-Za-z]{4})?([-_]([A-Za-z]{2}|[0-9]{3}))?"
                    r"([-_]([A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*$")
# Extensions (a singleton other than x, then subtags of 2-8) and private use
# (x, then subtags of 1-8), after the tag proper; read past, left out.
EXT_RE = re.compile(r"^([-_][0-9A-WYZa-wyz]([-_][A-Za-z0-9]{2,8})+)*([-_][Xx]([-_][A-Za-z0-9]{1,8})+)?$")
SINGLETON_RE = re.compile(r"[-_][A-Za-z0-9](?=[-_]|$)")


def canonical(tag):
    """The canonical form of a tag by locale.h's grammar, or None."""
    if len(tag) > 255:
        return None
    m = SINGLETON_RE.search(tag, 2)
    core, ext = (tag[:m.start()], tag[m.start():]) if m else (tag, "")
    if len(core) > 35 or not TAG_RE.match(core) or not EXT_RE.match(ext):
        return None
    parts = re.split(r"[-_]", core)
    out = [parts[0].lower()]
    seen_region = False
    for i, p in enumerate(parts[1:]):
        if i == 0 and len(p) == 4 and p.isalpha():
            out.append(p.title())
        elif not seen_region and ((len(p) == 2 and p.isalpha()) or (len(p) == 3 and p.isdigit())):
            out.append(p.upper())
            seen_region = True
        else:
            out.append(p.lower())
    return "-".join(out)


def babel_chain(tag):
    """The chain of a canonical tag by Babel's parent rules."""
    from babel.core import get_global
    from babel.localedata import _is_non_likely_script
    exceptions = get_global("parent_exceptions")
    out = [tag]
    ident = tag.replace("-", "_")
    while True:
        parent = exceptions.get(ident)
        if not parent:
            if _is_non_likely_script(ident):
                parent = "root"
            else:
                parts = ident.split("_")
                parent = "root" if len(parts) == 1 else "_".join(parts[:-1])
        if parent == "root":
            return out
        ident = parent
        out.append(GEN.bcp47(parent))


def data_locale(tag):
    """The table locale whose data a canonical tag uses, or root."""
    for t in babel_chain(tag):
        if t in TABLE:
            return t
    return "root"


def direction(tag):
    """rtl or ltr: CLDR's characterOrder of the tag's locale where Babel has
    it, else of its likely script (Babel's likely_subtags)."""
    from babel import Locale, localedata
    from babel.core import get_global
    ident = tag.replace("-", "_")
    parts = ident.split("_")
    if localedata.exists(ident) and not any(len(p) > 4 or (len(p) == 4 and p[0].isdigit()) for p in parts):
        return "rtl" if Locale.parse(ident).character_order == "right-to-left" else "ltr"
    likely = get_global("likely_subtags")
    script = None
    if len(parts) > 1 and len(parts[1]) == 4 and parts[1].isalpha():
        script = parts[1]
    else:
        regions = [p for p in parts[1:] if len(p) == 2 or (len(p) == 3 and p.isdigit())]
        for key in ([parts[0] + "_" + regions[0]] if regions else []) + [parts[0]]:
            if key in likely:
                script = likely[key].split("_")[1]
                break
    return "rtl" if script in GEN.RTL_SCRIPTS else "ltr"


# ------------------------------------------------------------------ plural

INTEGERS = [str(k) for k in list(range(0, 31)) + [40, 41, 42, 43, 45, 48, 50, 60, 70, 80, 90, 100, 101, 102, 103,
                                                  104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 119,
                                                  120, 121, 122, 123, 125, 200, 201, 202, 203, 1000, 1001, 1002,
                                                  1003, 1011, 10000, 100000, 1000000, 2000000, 1000001]]
NEGATIVES = ["-1", "-2", "-3", "-22"]
DECIMALS = ["0.0", "0.1", "0.2", "0.3", "0.5", "1.0", "1.00", "1.1", "1.2", "1.3", "1.5", "2.0", "2.1", "2.4",
            "2.5", "3.0", "3.4", "5.0", "10.0", "10.1", "11.0", "21.1", "0.01", "0.11", "1.10", "2.25", "0.05",
            "100.0", "1000.5"]
COMPACT = ["1c3", "2c3", "1.1c3", "1c6", "2c6", "1.1c6", "1.0000001c6", "1e6", "1.5e3", "5c7", "1.2C6"]


def operands(text):
    """UTS #35 operands (n, i, v, w, f, t, c, e) of a decimal text, exponent
    and all: the point moved by the exponent, the fraction digits left."""
    m = re.match(r"^-?([0-9]+)(?:\.([0-9]+))?(?:[eEcC]([+-]?[0-9]+))?$", text)
    int_part, frac, exp = m.group(1), m.group(2) or "", int(m.group(3) or 0)
    digits = int_part + frac
    point = len(int_part) + exp
    if point >= len(digits):
        int_digits, frac_digits = digits + "0" * (point - len(digits)), ""
    elif point <= 0:
        int_digits, frac_digits = "0", "0" * (-point) + digits
    else:
        int_digits, frac_digits = digits[:point], digits[point:]
    i = int(int_digits)
    v = len(frac_digits)
    t_digits = frac_digits.rstrip("0")
    n = decimal.Decimal(int_digits + ("." + frac_digits if frac_digits else ""))
    return dict(n=n, i=i, v=v, w=len(t_digits), f=int(frac_digits or "0"), t=int(t_digits or "0"), c=exp, e=exp)


def category(rule, text):
    """The category of text by a Babel PluralRule, in CLDR's order, with
    operands per UTS #35; for texts without an exponent checked against
    Babel's own evaluation."""
    from babel import plural
    env = dict(operands(text))
    env.update(IN=plural.in_range_list, WITHIN=plural.within_range_list, MOD=plural.cldr_modulo)
    found = "other"
    for cat in CATEGORIES[:-1]:
        for tag, ast in rule.abstract:
            if tag == cat and eval(plural._PythonCompiler().compile(ast), env):
                found = cat
                break
        if found != "other":
            break
    if not re.search("[eEcC]", text):
        babel_says = rule(decimal.Decimal(text))
        if babel_says != found:
            raise SystemExit("plural %s: Babel %s, CLDR order %s" % (text, babel_says, found))
    return found


def uses_exponent(rule):
    return any(re.search(r"\b[ec]\b", r) for r in rule.rules.values())


def plural_cases():
    from babel import Locale
    cases = []
    seen = set()
    for tag in sorted(GEN.LOCALES):
        loc = Locale.parse(tag.replace("-", "_"))
        for ordinal, rule in ((False, loc.plural_form), (True, loc.ordinal_form)):
            key = (ordinal, tuple(sorted(rule.rules.items())))
            full = key not in seen
            seen.add(key)
            pools = [INTEGERS] if ordinal else [INTEGERS, DECIMALS]
            if full and not ordinal:
                pools.append(NEGATIVES)
                if uses_exponent(rule):
                    pools.append(COMPACT)
            each = (3 if ordinal else 2) if full else 1
            chosen = []
            for cat in CATEGORIES:
                for pool in pools:
                    picked = [x for x in pool if category(rule, x) == cat][:each]
                    chosen += [(x, cat) for x in picked]
                    if not full and picked:
                        break
            for x, cat in chosen:
                cases.append({"locale": tag, "number": x, "ordinal": ordinal, "category": cat})
    # The regional table locales: one case each (their language's rules).
    for tag in TABLE:
        if tag not in GEN.LOCALES:
            loc = Locale.parse(tag.replace("-", "_"))
            cases.append({"locale": tag, "number": "1", "ordinal": False, "category": category(loc.plural_form, "1")})
    # Tags that are not table locales: their chain's data, or root.
    for tag, x in (("de_ch", "1"), ("PL-pl", "5"), ("es-AR", "1000000"), ("xx", "1"), ("und", "1"),
                   ("sr-Latn-RS", "3"), ("zh-Hant-TW", "1"), ("pt-AO", "0"), ("pt-BR", "0"), ("ar-Latn", "0"),
                   ("en-US-posix", "1"), ("nn", "1")):
        canon = canonical(tag)
        data = data_locale(canon)
        loc = Locale.parse("root" if data == "root" else data.replace("-", "_"))
        cases.append({"locale": tag, "number": x, "ordinal": False, "category": category(loc.plural_form, x)})
    return cases


# ------------------------------------------------------------------ formats

def symbols_of(loc):
    ns = loc.default_numbering_system
    syms = loc.number_symbols[ns]
    if "alias" in syms or "decimal" not in syms:
        syms = loc.number_symbols["latn"]
    return ns, dict(syms)


def plain(ch):
    cat = unicodedata.category(ch)
    return not (cat.startswith("S") or cat.startswith("Z"))


def spaced(pattern, symbol):
    """The currency pattern with CLDR's currencySpacing written into it."""
    out = []
    for sub in pattern.split(";"):
        if plain(symbol[-1]):
            sub = re.sub("\u00a4(?=[#0])", "\u00a4\u00a0", sub)
        if plain(symbol[0]):
            sub = re.sub("(?<=[#0])\u00a4", "\u00a0\u00a4", sub)
        out.append(sub)
    return ";".join(out)


GROUP_MARK = "\ue000"   # private-use characters no locale writes
DECIMAL_MARK = "\ue001"


def oracle(kind, tag, x, digits=None, code=None):
    """What a format writes, by Babel and the rules it lacks (the module's
    docstring)."""
    from babel import Locale, numbers
    data = data_locale(canonical(tag))
    loc = Locale.parse("root" if data == "root" else data.replace("-", "_"))
    ns, syms = symbols_of(loc)
    zero = GEN.NUMBERING_ZERO[ns]
    with decimal.localcontext() as ctx:
        ctx.prec = 1000
        ctx.rounding = decimal.ROUND_HALF_EVEN
        if kind == "decimal":
            pat = numbers.parse_pattern(loc.decimal_formats[None].pattern)
            if digits is not None:
                pat.frac_prec = (digits, digits)
            max_frac, scale = pat.frac_prec[1], 0
        elif kind == "percent":
            pat = numbers.parse_pattern(loc.percent_formats[None].pattern)
            max_frac, scale = pat.frac_prec[1], 2
        else:
            code = code.upper()
            symbol = numbers.get_currency_symbol(code, loc)
            pat = numbers.parse_pattern(spaced(loc.currency_formats["standard"].pattern, symbol))
            max_frac, scale = numbers.get_currency_precision(code), 0
            for s in (symbol,):
                if re.search("[-%0-9]", s):
                    raise SystemExit("symbol %r would be rewritten" % s)
        value = decimal.Decimal(repr(x))
        rounded = value.scaleb(scale).quantize(decimal.Decimal(1).scaleb(-max_frac))
        if rounded == 0:
            value = abs(value)   # never "-0" (locale.h)
        int_digits = len(str(abs(int(rounded))))
        g1 = pat.grouping[0]
        min_grouping = GEN.min_grouping(None if data == "root" else data.replace("-", "_"))
        grouping = not (g1 < 1000 and int_digits < g1 + min_grouping)
        # Babel's apply() ends by removing the pattern's quotes from the
        # whole text, which eats an apostrophe group separator (de-CH):
        # it writes placeholders for the separators, put back below (which
        # is also where an amount of money gets CLDR's currencyDecimal and
        # currencyGroup, which Babel does not use: fr-CH).
        real_group, real_decimal = numbers.get_group_symbol, numbers.get_decimal_symbol
        numbers.get_group_symbol = lambda *a, **k: GROUP_MARK
        numbers.get_decimal_symbol = lambda *a, **k: DECIMAL_MARK
        try:
            if kind == "currency":
                text = pat.apply(value, loc, currency=code, group_separator=grouping, numbering_system="default")
            else:
                text = pat.apply(value, loc, group_separator=grouping, numbering_system="default")
        finally:
            numbers.get_group_symbol, numbers.get_decimal_symbol = real_group, real_decimal
    point, group = syms["decimal"], syms["group"]
    if kind == "currency":
        point = syms.get("currencyDecimal", point)
        group = syms.get("currencyGroup", group)
    for s in (point, group):
        if re.search("[-%0-9\ue000\ue001]", s):
            raise SystemExit("symbol %r would be rewritten" % s)
    text = text.replace(GROUP_MARK, group).replace(DECIMAL_MARK, point)
    text = text.replace("-", syms["minusSign"]).replace("%", syms["percentSign"])
    return "".join(chr(zero + int(c)) if "0" <= c <= "9" else c for c in text)


def own_currency(tag):
    """The currency of the tag's likely region when the tables have it,
    else USD."""
    from babel import Locale, numbers
    from babel.core import get_global
    loc = Locale.parse(tag.replace("-", "_"))
    region = loc.territory or get_global("likely_subtags")[loc.language].split("_")[-1]
    if region == "419":
        region = "MX"
    if region == "001":
        region = "US"
    cur = numbers.get_territory_currencies(region)
    return cur[0] if cur and cur[0] in GEN.CURRENCIES else "USD"


def number_cases():
    cases = []

    def add(tag, x, digits):
        cases.append({"locale": tag, "x": x, "digits": digits, "expect": oracle("decimal", tag, x, digits)})

    for tag in TABLE:
        add(tag, 1234567.891, None)
        if tag in GEN.LOCALES:
            add(tag, -1234.5, 2)
    for x, dg in ((0.0, None), (-0.0, None), (0.125, 2), (2.675, 2), (1.005, 2), (0.5, 0), (1.5, 0), (2.5, 0),
                  (-0.0001, None), (-0.4, 0), (9.9995, 3), (0.1, 20), (1e-10, None), (1e-10, 20), (5e-324, 20),
                  (1e21, None), (1.2345678901234568e20, None), (1e300, None), (1.7976931348623157e308, 0),
                  (123.456, 0), (0.0005, 3), (0.0015, 3), (1234.5678, 1), (999.9996, 3), (-999.9996, 3)):
        add("en", x, dg)
    for tag, x, dg in (("es", 1234.0, None), ("es", 12345.0, None), ("es", -1234.0, None), ("es", 1234.5, 2),
                       ("es-MX", 1234.0, None), ("pl", 1234.5, None), ("pl", 12345.5, None),
                       ("pt-PT", 1234.0, None), ("it", 1234.0, None), ("hu", 9999.0, None),
                       ("hi", 12345678.0, 2), ("en-IN", 100000.0, None), ("en-IN", 1234567890.5, 1),
                       ("bn", 12345678.9, None), ("ar-EG", -1234.5, None), ("fa", -0.5, 1), ("mr", 1e9, None),
                       ("de-CH", 1234567.5, None), ("fr", 1e6, None), ("sv", -7.0, None), ("xx", 1234.5, None),
                       ("DE_at", 1234.5, None), ("zh-Hant-TW", 1234.5, None), ("es-AR", 1234.0, None),
                       ("bn", 1.7976931348623157e308, 20), ("ar-EG", 0.0, 2), ("fr-CH", 1234567.5, 2)):
        add(tag, x, dg)
    return cases


def percent_cases():
    cases = []

    def add(tag, x):
        cases.append({"locale": tag, "x": x, "expect": oracle("percent", tag, x)})

    for tag in sorted(GEN.LOCALES):
        add(tag, 0.25)
    for x in (0.125, 0.135, -0.125, 1.0, 0.0, -0.001, 12.3456, 1234.5, 1e-5, 1e20):
        add("en", x)
    for tag, x in (("fr", -0.5), ("de", 12.5), ("tr", -0.5), ("ar-EG", -0.25), ("fa", 0.5), ("he", -0.5),
                   ("bn", 123456.0), ("hi", 123456.0), ("sv", -0.5), ("es", 12.34), ("es", 123.45), ("xx", 0.5)):
        add(tag, x)
    return cases


def currency_cases():
    cases = []

    def add(tag, x, code):
        cases.append({"locale": tag, "x": x, "code": code, "expect": oracle("currency", tag, x, code=code)})

    for tag in TABLE:
        add(tag, 1234.5, own_currency(tag))
        if tag in GEN.LOCALES:
            add(tag, -1234.5, "USD")
    for tag, x, code in (("en", 1234.5, "EUR"), ("en", 1234.5, "CHF"), ("en", 1234.5, "JPY"), ("en", 1.2345, "KWD"),
                         ("en", 1234.5, "HUF"), ("en", 0.125, "USD"), ("en", 0.135, "USD"), ("en", -0.001, "USD"),
                         ("en", 5.0, "XYZ"), ("en", 5.0, "usd"), ("en", 1e21, "EUR"), ("en", 0.0, "GBP"),
                         ("en-CA", 5.0, "USD"), ("en-CA", 5.0, "CAD"), ("en-AU", 5.0, "AUD"), ("en-GB", 5.0, "USD"),
                         ("de", 1234.5, "USD"), ("de", 1234.5, "CHF"), ("de", -1234.5, "EUR"),
                         ("de-CH", -5.0, "CHF"), ("de-CH", 5.0, "EUR"), ("nl", -5.0, "EUR"), ("fr", 1234.5, "CAD"),
                         ("fr-CA", 1234.5, "CAD"), ("ja", 1234.5, "JPY"), ("ja", 1234.5, "CNY"),
                         ("zh", 1234.5, "CNY"), ("zh-Hant", 1234.5, "TWD"), ("ko", 1234.5, "KRW"),
                         ("he", -5.0, "ILS"), ("ar", 5.0, "SAR"), ("ar-EG", -1234.5, "EGP"), ("fa", 5.0, "USD"),
                         ("fa", 5.0, "EUR"), ("hi", 12345678.0, "INR"), ("bn", 12345678.0, "INR"),
                         ("tr", 5.0, "TRY"), ("pl", 1234.5, "PLN"), ("pt", 1234.5, "BRL"), ("es", 1234.0, "EUR"),
                         ("xx", 5.0, "EUR"), ("xx", 5.0, "USD"), ("de-LI", 5.0, "CHF"),
                         ("fr-CH", 1234567.5, "EUR"), ("fr-CH", 0.5, "CHF"), ("fr_ch", -1234567.891, "CHF"),
                         ("fr-CH-1996", 12.0, "USD"), ("de-AT", 1234567.5, "EUR"), ("de-AT", -1234567.5, "CHF")):
        add(tag, x, code)
    return cases


def chain_cases():
    cases = []
    inputs = ["EN_gb", "es_mx", "de-ch", "ZH-HANT-hk", "sr_latn", "fil", "en-001", "pt_pt"] + [
        "de-LI", "de-CH-1996", "es-AR", "es-US", "es-419", "en-NZ", "en-AT", "en-150", "en-IN", "pt-AO", "pt-BR",
        "pt-MZ", "zh-Hant-TW", "zh-Hant-MO", "zh-TW", "zh-Hans-CN", "sr-Latn-RS", "sr-Cyrl", "sr-Cyrl-RS",
        "nb-NO", "nn-NO", "no-NO", "hi-Latn", "hi-Latn-IN", "az-Arab", "az-Latn-AZ", "ar-Latn", "pa-PK",
        "pa-Arab", "pa", "sd-IN", "sd", "ur-IN", "fa-AF", "he-IL", "ar-SA", "ar-EG", "ckb", "yi", "dv", "ps",
        "ug", "ks-Deva", "uz-AF", "ms-Arab", "xx", "und", "en-US-posix", "sl-rozaj-biske", "en-Latn-US",
        "ja-JP", "ko_KR", "th-TH", "ru-UA", "uk-UA", "ca-ES-valencia", "en-AT-1aaa-1bbb-1ccc-1ddd-1eee-1fff",
        "hi-Latn-IN-1aaa-1bbb-1ccc-1ddd-1eee",
        # Extensions and private use are read past: the tag before them counts.
        "en-US-u-ca-gregory", "zh-Hant-TW-x-private", "de-CH-u-nu-arab", "ar-EG-u-nu-latn",
        "en-GB-u-fw-mon-mu-celsius", "de_ch_u_fw_mon", "sr-Latn-RS-t-sr-Cyrl-x-app", "fr-x-a-b", "en-x-a-u", "en-x-1",
        "es-419-a-bbb-z-ccc", "sl-rozaj-biske-1994-u-co-phonebk",
        "en-AT-1aaa-1bbb-1ccc-1ddd-1eee-1fff-u-" + "-".join(["abcdefgh"] * 24),
    ]
    for tag in inputs:
        canon = canonical(tag)
        assert canon, tag
        cases.append({"locale": tag, "chain": babel_chain(canon), "data": data_locale(canon),
                      "direction": direction(canon)})
    for bad in ["", "e", "english", "en-", "-en", "en--US", "not a tag!", "en_US.UTF-8", "en-US-u",
                "en-Latn-Latn", "123", "en-1234567890", "de@euro", "zh-Hant-TW-x", "en-US-", "e1",
                "en-a", "en-US-Latn", "en-abcdefghi", "en-AT-1aaa-1bbb-1ccc-1ddd-1eee-1ffff", "\u00e9n",
                "en-u-c", "en-u-abcdefghi", "en-x-abcdefghi", "en-u-nu-x", "en-u-nu-latn-t", "x-private",
                "en-x--a", "en-u-nu-l@tn", "en-AT-1aaa-1bbb-1ccc-1ddd-1eee-1ffff-u-nu-latn",
                "en-u-" + "-".join(["abcdefgh"] * 28)]:
        assert canonical(bad) is None, bad
        cases.append({"locale": bad, "error": True})
    return cases


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when a committed file is not current")
    args = ap.parse_args()
    try:
        import babel
        import babel.core
        ok = babel.__version__ == GEN.BABEL_VERSION
    except ImportError:
        ok = False
    if not ok:
        if args.check:
            print("skipped: babel %s not installed" % GEN.BABEL_VERSION)
            return 0
        raise SystemExit("gen-locale-vectors.py: needs babel %s" % GEN.BABEL_VERSION)
    cldr = babel.core.get_cldr_version()
    TABLE.extend(GEN.table_locales())
    files = {
        "plural.json": document({"topic": "plural", "cldr": cldr}, plural_cases()),
        "numbers.json": document({"topic": "numbers"}, number_cases()),
        "percent.json": document({"topic": "percent"}, percent_cases()),
        "currency.json": document({"topic": "currency"}, currency_cases()),
        "chain.json": document({"topic": "chain"}, chain_cases()),
    }
    stale = 0
    for name, text in files.items():
        path = os.path.join(OUT_DIR, name)
        json.loads(text)
        if args.check:
            try:
                with open(path, encoding="utf-8") as fp:
                    same = fp.read() == text
            except OSError:
                same = False
            if not same:
                print("%s is not what scripts/gen-locale-vectors.py writes" % os.path.relpath(path, ROOT))
                stale = 1
        else:
            os.makedirs(OUT_DIR, exist_ok=True)
            with open(path, "w", encoding="utf-8") as fp:
                fp.write(text)
            print("wrote %s: %d cases" % (os.path.relpath(path, ROOT), text.count("\n") - 2))
    if args.check and not stale:
        print("Tests/LocaleVectors is current (CLDR %s, Babel %s)" % (cldr, babel.__version__))
    return stale


if __name__ == "__main__":
    sys.exit(main())
