#!/usr/bin/env python3
"""gen-cldr.py - writes csrc/locale_data.c, the locale tables of the C core
(include/sdui/locale.h), from the CLDR data that Babel ships.

    python3 scripts/gen-cldr.py            writes csrc/locale_data.c
    python3 scripts/gen-cldr.py --check    exits 1 when the committed file
                                           differs from what it would write

Babel is pinned (BABEL_VERSION): `pip install babel==2.19.0`.  With --check
and another Babel (or none), the script prints "skipped: babel 2.19.0 not
installed" and exits 0, so a machine without it does not fail; without
--check it refuses to write.

What comes from where (docs/locales.md says the same for readers):
  - plural rules, cardinal and ordinal: Locale.plural_form / ordinal_form,
    whose parsed rules (PluralRule.abstract) are compiled here into the
    relation table that csrc/locale.c interprets;
  - number symbols, the default numbering system, the decimal, percent and
    standard currency patterns, currency symbols: Babel's locale data,
    inherited the way CLDR inherits (Babel merges each locale's parents);
    among the symbols, currencyDecimal and currencyGroup (the separators
    of amounts of money, where a locale's differ from its decimal and
    group: fr-CH writes 1'234.50 CHF but 1'234,5), kept only where they
    differ (Babel has them in its data but its format_currency does not
    use them);
  - currency fraction digits: babel.numbers.get_currency_precision;
  - parent locales: Babel's parent_exceptions; the rest is CLDR's rule,
    applied in csrc/locale.c: the tag less its last subtag, except that a
    language-Script tag whose script is not the language's likely one has
    root for parent (localRules="nonlikelyScript": zh-Hant, sr-Latn);
  - likely scripts (that rule, and the writing direction): Babel's
    likely_subtags, each language's script where it is not Latn.
Babel 2.19.0 does not carry four small pieces of CLDR, which are written
below as constants, each checked where it can be:
  - minimumGroupingDigits (MIN_GROUPING): from CLDR's numbers data (the
    cldr-json 48 numbers.json files); a locale not listed inherits its
    parent's, root's is 1;
  - the digits of each numbering system (NUMBERING_ZERO): CLDR's
    numberingSystems.xml; checked with unicodedata (ten consecutive
    decimal digits 0-9);
  - currencySpacing: root's rule, which every locale here keeps (insert
    U+00A0 between the currency symbol and a digit when the symbol's
    character next to the number is neither a symbol nor a space);
  - the right-to-left scripts (RTL_SCRIPTS): Unicode's scripts of Bidi_Class
    R and AL; checked against CLDR's characterOrder of every Babel locale.

The output is deterministic: every table is sorted, every string appears
once in one pool.
"""
import argparse
import os
import sys
import unicodedata

BABEL_VERSION = "2.19.0"
OUT = "csrc/locale_data.c"

# The chosen locales of the tables (BCP 47, canonical case): the 40 most
# used languages and their main regional variants, plus those with
# interesting plural rules (ar, cy, ga, he, lt, lv, pl, ru, sl, uk) and the
# parents the chains of common tags pass through (en-001, es-419, no,
# sr-Latn).  table_locales() adds the regional locales whose data differ.
LOCALES = """
en en-001 en-AU en-CA en-GB en-IN
de de-AT de-CH fr fr-CA fr-CH es es-419 es-MX it pt pt-PT nl
sv da no nb fi is pl cs sk hu ro ru uk bg hr sr sr-Latn sl el tr
lt lv et ca ga cy
he ar ar-EG fa ur hi bn ta te mr
th vi id ms fil ja ko zh zh-Hant zh-Hant-HK sw
""".split()

def babel_parent(ident):
    """The parent of a Babel identifier by CLDR's rules as Babel applies
    them (parent_exceptions, its nonlikelyScript rule, truncation), or
    None for root."""
    from babel.core import get_global
    from babel.localedata import _is_non_likely_script
    parent = get_global("parent_exceptions").get(ident)
    if parent:
        return None if parent == "root" else parent
    if _is_non_likely_script(ident):
        return None
    parts = ident.split("_")
    return None if len(parts) == 1 else "_".join(parts[:-1])


def signature(ident):
    """What the tables hold of a locale: its number formats, currency
    symbols and plural rules (root for None)."""
    from babel import Locale
    loc = Locale.parse(ident or "root")
    ns = loc.default_numbering_system
    syms = loc.number_symbols[ns]
    if "alias" in syms or "decimal" not in syms:
        syms = loc.number_symbols["latn"]
    numbers = (ns, tuple(sorted(dict(syms).items())), loc.decimal_formats[None].pattern,
               loc.percent_formats[None].pattern, loc.currency_formats["standard"].pattern,
               min_grouping(ident))
    symbols = tuple(loc.currency_symbols.get(c) or c for c in CURRENCIES)
    plurals = (tuple(sorted(loc.plural_form.rules.items())), tuple(sorted(loc.ordinal_form.rules.items())))
    return numbers, symbols, plurals


def table_locales():
    """The locales of the tables: LOCALES, and every regional locale Babel
    has of their languages (language-REGION, language-Script, with a region
    after) whose numbers, currency symbols or plural rules differ from the
    locale its chain would otherwise reach (es-AR is not es-419, en-NZ
    writes NZD as $).  Sorted."""
    from babel import localedata
    table = {babel_tag(t) for t in LOCALES}
    langs = {t.split("-")[0] for t in LOCALES}
    cands = [i for i in localedata.locale_identifiers()
             if i.split("_")[0] in langs and i not in table
             and all(len(p) in (2, 3, 4) and not (len(p) == 4 and p[0].isdigit()) for p in i.split("_")[1:])]
    for ident in sorted(cands, key=lambda i: (i.count("_"), i)):
        fallback = babel_parent(ident)
        while fallback is not None and fallback not in table:
            fallback = babel_parent(fallback)
        if signature(ident) != signature(fallback):
            table.add(ident)
    return sorted(bcp47(i) for i in table)


# The currencies whose symbols and digits the tables hold.
CURRENCIES = """
USD EUR GBP JPY CNY INR BRL RUB KRW TRY MXN CAD AUD CHF SEK NOK DKK PLN
CZK HUF ILS SAR AED EGP THB VND IDR MYR PHP ZAR NGN UAH RON KWD HKD TWD
SGD NZD
""".split()

# CLDR's minimumGroupingDigits where a locale sets it (a locale not listed
# inherits its parent's; root's is 1): es sets 2 and es-419 1 again, so
# es-MX has 1.  Babel does not keep it; these are CLDR's numbers data as
# cldr-json 48 publishes them (main/<locale>/numbers.json, resolved; a
# value is listed where it differs from the parent's), the newest the
# project could read.
MIN_GROUPING = {
    "bg": 2, "es": 2, "es-419": 1, "et": 2, "hu": 2, "it": 2, "lv": 2, "pl": 2,
    "pt-AO": 1, "pt-PT": 2, "ru-UA": 2, "sl": 2,
}


def min_grouping(ident):
    """The minimumGroupingDigits of a Babel identifier (None: root)."""
    while ident is not None:
        if bcp47(ident) in MIN_GROUPING:
            return MIN_GROUPING[bcp47(ident)]
        ident = babel_parent(ident)
    return 1

# The zero digit of each numbering system a locale here uses by default
# (CLDR numberingSystems.xml; the ten digits are consecutive code points).
NUMBERING_ZERO = {
    "latn": 0x30, "arab": 0x660, "arabext": 0x6F0, "beng": 0x9E6,
    "deva": 0x966, "mymr": 0x1040, "thai": 0xE50, "tamldec": 0xBE6,
    "telu": 0xC66, "orya": 0xB66, "gujr": 0xAE6, "guru": 0xA66,
    "knda": 0xCE6, "mlym": 0xD66, "khmr": 0x17E0, "laoo": 0xED0,
    "tibt": 0xF20, "olck": 0x1C50, "mtei": 0xABF0, "adlm": 0x1E950,
    "nkoo": 0x7C0, "hanidec": None,
}

# Scripts written right to left (Unicode Bidi_Class R or AL).
RTL_SCRIPTS = sorted("""
Adlm Arab Aran Armi Avst Chrs Cprt Elym Gara Hatr Hebr Hung Khar Lydi Mand
Mani Mend Merc Mero Narb Nbat Nkoo Orkh Ougr Palm Phli Phlp Phlv Phnx Prti
Rohg Samr Sarb Sogd Sogo Syrc Thaa Yezi
""".split())

CATEGORIES = ["zero", "one", "two", "few", "many", "other"]
OPERANDS = {"n": 0, "i": 1, "v": 2, "w": 3, "f": 4, "t": 5, "e": 6, "c": 6}
OP_NOT = 0x08
OP_OR = 0x10


def fail(msg):
    print("gen-cldr.py: " + msg, file=sys.stderr)
    sys.exit(2)


def babel_tag(tag):
    """Babel's identifier of a BCP 47 tag (underscores)."""
    return tag.replace("-", "_")


def bcp47(ident):
    """The canonical BCP 47 tag of a Babel identifier."""
    parts = ident.split("_")
    out = [parts[0].lower()]
    for p in parts[1:]:
        if len(p) == 4 and p[0].isalpha():
            out.append(p.title())
        elif len(p) in (2, 3) and (p.isalpha() or p.isdigit()):
            out.append(p.upper())
        else:
            out.append(p.lower())
    return "-".join(out)


# ---------------------------------------------------------------- strings

class Pool:
    """One pool of NUL-terminated UTF-8 strings, each stored once; offset 0
    is the empty string."""

    def __init__(self):
        self.strings = [""]
        self.index = {"": 0}
        self.size = 1

    def add(self, s):
        if s not in self.index:
            self.index[s] = None
            self.strings.append(s)
        return s

    def freeze(self):
        """Lays the strings out: the empty one first, the others sorted."""
        rest = sorted(s for s in self.strings if s)
        self.strings = [""] + rest
        off = 0
        for s in self.strings:
            self.index[s] = off
            off += len(s.encode("utf-8")) + 1
        self.size = off
        if off > 0xFFFF:
            fail("the string pool passed 64 KiB")

    def at(self, s):
        return self.index[s]


def c_string(s):
    """A C string literal of UTF-8 s (octal escapes: never glued to a digit)."""
    out = []
    for b in s.encode("utf-8"):
        c = chr(b)
        if c in '"\\':
            out.append("\\" + c)
        elif 0x20 <= b < 0x7F:
            out.append(c)
        else:
            out.append("\\%03o" % b)
    return '"' + "".join(out) + '"'


# ----------------------------------------------------------- plural rules

def flatten_or(node):
    """The conjunctions of a rule's condition (CLDR: or of ands)."""
    op, args = node
    if op == "or":
        return flatten_or(args[0]) + flatten_or(args[1])
    return [flatten_and(node)]


def flatten_and(node):
    op, args = node
    if op == "and":
        return flatten_and(args[0]) + flatten_and(args[1])
    if op == "or":
        fail("an 'or' inside an 'and' (not CLDR's grammar)")
    return [relation(node)]


def relation(node):
    """(operand, modulus, negated, ranges) of one relation node."""
    op, args = node
    negated = False
    if op == "not":
        negated = True
        op, args = args[0]
    if op in ("is", "isnot"):
        expr, value = args
        ranges = [(value[1][0], value[1][0])]
        negated = negated != (op == "isnot")
    elif op == "relation":
        method, expr, range_list = args
        if method != "in":
            fail("a 'within' relation (not in CLDR's rules)")
        ranges = [(lo[1][0], hi[1][0]) for lo, hi in range_list[1]]
    else:
        fail("unknown plural rule node %r" % (op,))
    mod = 0
    if expr[0] == "mod":
        (name, _), value = expr[1]
        mod = value[1][0]
    else:
        name = expr[0]
    if name not in OPERANDS:
        fail("unknown plural operand %r" % name)
    for lo, hi in ranges:
        if not (0 <= lo <= hi < 2**32):
            fail("a range outside 32 bits")
    return (OPERANDS[name], mod, negated, tuple(ranges))


def compile_rules(rule):
    """A rule set as [(category index, [conjunction, ...]), ...] in CLDR's
    order (zero, one, two, few, many)."""
    out = []
    for cat in CATEGORIES[:-1]:
        for tag, ast in rule.abstract:
            if tag == cat:
                out.append((CATEGORIES.index(cat), flatten_or(ast)))
    for tag, _ in rule.abstract:
        if tag not in CATEGORIES[:-1]:
            fail("a rule for %r" % tag)
    return tuple((c, tuple(tuple(conj) for conj in conjs)) for c, conjs in out)


# --------------------------------------------------------------- patterns

def parse_pattern(pattern, symbols):
    """A CLDR number pattern as (pos_prefix, pos_suffix, neg_prefix,
    neg_suffix, primary, secondary, min_int, min_frac, max_frac); in the
    affixes the quotes are resolved and the special characters replaced by
    the locale's symbols, except the currency sign, kept as U+00A4."""

    def split(sub):
        """prefix, number part, suffix of one subpattern."""
        i, prefix, quoted = 0, [], False
        while i < len(sub):
            c = sub[i]
            if c == "'":
                if sub[i + 1:i + 2] == "'":
                    prefix.append("'")
                    i += 2
                    continue
                quoted = not quoted
                i += 1
                continue
            if not quoted and c in "#0123456789@,.":
                break
            prefix.append(c if quoted else affix_char(c))
            i += 1
        j = i
        while j < len(sub) and sub[j] in "#0123456789@,.":
            j += 1
        number = sub[i:j]
        suffix, quoted, k = [], False, j
        while k < len(sub):
            c = sub[k]
            if c == "'":
                if sub[k + 1:k + 2] == "'":
                    suffix.append("'")
                    k += 2
                    continue
                quoted = not quoted
                k += 1
                continue
            suffix.append(c if quoted else affix_char(c))
            k += 1
        return "".join(prefix), number, "".join(suffix)

    def affix_char(c):
        if c == "%":
            return symbols["percentSign"]
        if c == "-":
            return symbols["minusSign"]
        if c == "+":
            return symbols["plusSign"]
        if c == "\u2030":
            return symbols["perMille"]
        if c in "E@*":
            fail("pattern %r: %r is not supported" % (pattern, c))
        return c

    subs = pattern.split(";")
    pos_prefix, number, pos_suffix = split(subs[0])
    if len(subs) > 1:
        neg_prefix, _, neg_suffix = split(subs[1])
    else:
        neg_prefix, neg_suffix = symbols["minusSign"] + pos_prefix, pos_suffix
    if "." in number:
        integer, fraction = number.split(".")
    else:
        integer, fraction = number, ""
    min_frac = fraction.count("0")
    max_frac = min_frac + fraction.count("#")
    if fraction.strip("0#") or fraction.rstrip("#") != "0" * min_frac:
        fail("pattern %r: odd fraction" % pattern)
    digits = integer.replace(",", "")
    min_int = digits.count("0")
    groups = integer.split(",")
    primary = len(groups[-1]) if len(groups) > 1 else 0
    secondary = len(groups[-2]) if len(groups) > 2 else primary
    return (pos_prefix, pos_suffix, neg_prefix, neg_suffix, primary, secondary,
            min_int, min_frac, max_frac)


def spacing_flags(symbol):
    """Bit 0: the symbol's first character is neither a symbol nor a space
    (currencySpacing applies when it follows a digit); bit 1: the same for
    its last character (when it precedes a digit)."""
    def plain(ch):
        cat = unicodedata.category(ch)
        return not (cat.startswith("S") or cat.startswith("Z"))
    if not symbol:
        return 0
    return (1 if plain(symbol[0]) else 0) | (2 if plain(symbol[-1]) else 0)


# ------------------------------------------------------------------ main

def collect(babel):
    from babel import Locale, localedata, numbers
    from babel.core import get_global

    pool = Pool()
    rule_sets = []        # distinct compiled plural rule sets
    patterns = []         # distinct parsed patterns
    number_recs = []      # distinct number records
    rows = []
    likely = get_global("likely_subtags")

    def intern(lst, item):
        if item not in lst:
            lst.append(item)
        return lst.index(item)

    root = Locale.parse("root")
    root_symbols = []
    for code in CURRENCIES:
        s = root.currency_symbols.get(code) or code
        root_symbols.append(s)
        pool.add(s)

    def row_of(tag, loc):
        """The table row of one locale (root too)."""
        pool.add(tag)
        card = intern(rule_sets, compile_rules(loc.plural_form))
        ordn = intern(rule_sets, compile_rules(loc.ordinal_form))
        ns = loc.default_numbering_system
        syms = loc.number_symbols[ns]
        if "alias" in syms or "decimal" not in syms:
            syms = loc.number_symbols["latn"]   # CLDR: an alias to latn's
        syms = dict(syms)
        if ns not in NUMBERING_ZERO or NUMBERING_ZERO[ns] is None:
            fail("%s: numbering system %s has no digits here" % (tag, ns))
        zero = NUMBERING_ZERO[ns]
        for dg in range(10):
            if unicodedata.decimal(chr(zero + dg), -1) != dg:
                fail("numbering system %s: U+%04X is not digit %d" % (ns, zero + dg, dg))
        cur = loc.currency_formats["standard"].pattern
        if "\u00a4" not in cur:
            fail("%s: no currency sign in %r" % (tag, cur))
        pats = []
        for p in (loc.decimal_formats[None].pattern, loc.percent_formats[None].pattern, cur):
            parsed = parse_pattern(p, syms)
            for st in parsed[:4]:
                pool.add(st)
                if "\u00a4" in st and p is not cur:
                    fail("%s: a currency sign in pattern %r" % (tag, p))
            pats.append(intern(patterns, parsed))
        pool.add(syms["decimal"])
        pool.add(syms["group"])
        # currencyDecimal and currencyGroup: "" (offset 0) where absent or
        # the same as decimal and group, which the formats then use.
        cur_decimal = syms.get("currencyDecimal", syms["decimal"])
        cur_group = syms.get("currencyGroup", syms["group"])
        cur_decimal = "" if cur_decimal == syms["decimal"] else cur_decimal
        cur_group = "" if cur_group == syms["group"] else cur_group
        pool.add(cur_decimal)
        pool.add(cur_group)
        rec = (syms["decimal"], syms["group"], cur_decimal, cur_group, zero,
               min_grouping(None if tag == "root" else babel_tag(tag)), pats[0], pats[1], pats[2])
        nums = intern(number_recs, rec)
        overrides = []
        for ci, code in enumerate(CURRENCIES):
            sym = loc.currency_symbols.get(code) or code
            if sym != root_symbols[ci]:
                pool.add(sym)
                overrides.append((ci, sym))
        return (tag, card, ordn, nums, tuple(overrides))

    for tag in table_locales():
        if bcp47(babel_tag(tag)) != tag:
            fail("%s is not canonical" % tag)
        if not localedata.exists(babel_tag(tag)):
            fail("Babel has no locale %s" % tag)
        rows.append(row_of(tag, Locale.parse(babel_tag(tag))))
    root_row = row_of("root", root)
    if root_row[4]:
        fail("root has currency symbols of its own")
    if len(rule_sets) > 255 or len(patterns) > 255 or len(number_recs) > 255:
        fail("a table outgrew its uint8_t index")

    for tag in MIN_GROUPING:
        if not localedata.exists(babel_tag(tag)):
            fail("MIN_GROUPING names %s, which Babel does not have" % tag)

    # Parents: CLDR's exceptions (the rest is a rule: the tag less its
    # last subtag, or root for language-Script with a script that is not
    # the language's likely one, CLDR's localRules="nonlikelyScript").
    parents = {}
    for child, parent in get_global("parent_exceptions").items():
        parents[bcp47(child)] = "" if parent == "root" else bcp47(parent)
    for child, parent in parents.items():
        pool.add(child)
        pool.add(parent)

    # Likely scripts: each language's where it is not Latn (the default,
    # as for a language CLDR does not know), and language-region pairs
    # whose likely script runs the other way than their language's.
    def script_of(value):
        parts = value.split("_")
        return parts[1] if len(parts) > 1 and len(parts[1]) == 4 else ""

    lang_scripts = {}
    for key, value in likely.items():
        if "_" not in key and key != "und":
            if not (2 <= len(key) <= 3 and key.isalpha() and key.islower()):
                fail("likely subtags: a language %r" % key)
            if script_of(value) != "Latn":
                lang_scripts[key] = script_of(value)
    region_dirs = {}
    for key, value in likely.items():
        parts = key.split("_")
        if len(parts) == 2 and parts[0] != "und" and len(parts[1]) != 4:
            rtl = script_of(value) in RTL_SCRIPTS
            if rtl != (lang_scripts.get(parts[0], "Latn") in RTL_SCRIPTS):
                region_dirs[bcp47(key)] = rtl
    for key in region_dirs:
        pool.add(key)
    scripts = sorted(set(lang_scripts.values()) | set(RTL_SCRIPTS) | {"Latn"})
    if len(scripts) > 255:
        fail("more than 255 scripts")

    # Check the direction rule against CLDR's characterOrder.
    for ident in localedata.locale_identifiers():
        if ident == "root":
            continue
        order = Locale.parse(ident).character_order
        if order not in ("right-to-left", "left-to-right"):
            continue
        parts = ident.split("_")
        if len(parts) > 1 and len(parts[1]) == 4:
            rtl = parts[1] in RTL_SCRIPTS
        elif len(parts) > 1 and bcp47(parts[0] + "_" + parts[1]) in region_dirs:
            rtl = region_dirs[bcp47(parts[0] + "_" + parts[1])]
        else:
            rtl = lang_scripts.get(parts[0], "Latn") in RTL_SCRIPTS
        if rtl != (order == "right-to-left"):
            fail("direction of %s: %s by the rule, %s in CLDR" % (ident, rtl, order))

    currency_digits = [numbers.get_currency_precision(c) for c in CURRENCIES]
    return dict(pool=pool, rule_sets=rule_sets, patterns=patterns, number_recs=number_recs,
                rows=rows, root_symbols=root_symbols, parents=parents, lang_scripts=lang_scripts,
                scripts=scripts,
                region_dirs=region_dirs, currency_digits=currency_digits,
                root_row=root_row)


def text_bound(d):
    """The longest text any format can write, in bytes with the NUL: the
    largest double (309 integer digits; 311 as a percentage) with 20
    fraction digits, grouped, negative, with the longest symbol."""
    pool_sym_max = max(len(s.encode("utf-8")) for s in d["root_symbols"])
    for row in d["rows"]:
        for _, s in row[4]:
            pool_sym_max = max(pool_sym_max, len(s.encode("utf-8")))
    worst = 0
    for row in d["rows"]:
        dec, grp, cdec, cgrp, zero, _, p_dec, p_pct, p_cur = d["number_recs"][row[3]]
        db = len(chr(zero).encode("utf-8"))
        for pi, int_digits, frac, point, sep in ((p_dec, 309, 20, dec, grp), (p_pct, 311, 0, dec, grp),
                                                 (p_cur, 309, 3, cdec or dec, cgrp or grp)):
            pp, ps, np_, ns_, g1, g2 = d["patterns"][pi][:6]
            seps = 0
            if g1 and int_digits > g1:
                seps = 1 + (int_digits - g1 - 1) // (g2 or g1)
            affix = max(len((pp + ps).encode("utf-8")), len((np_ + ns_).encode("utf-8")))
            affix += (pool_sym_max + 4) * 2   # a currency sign as the symbol, with its space
            total = (affix + (int_digits + frac) * db + seps * len(sep.encode("utf-8"))
                     + len(point.encode("utf-8")) + 1)
            worst = max(worst, total)
    return worst


def chain_bound(d):
    """The longest chain a tag of at most 35 bytes can have: 8 subtags
    (language, script, region, five variants of 4) by truncation alone, or
    a tag that truncates to a child of CLDR's parents, which may go on
    longer (en-AT -> en-150 -> en-001 -> en)."""
    parents = d["parents"]

    def length(tag):
        n = 1
        while True:
            if tag in parents:
                if not parents[tag]:
                    return n
                tag = parents[tag]
            elif tag.count("-") == 1 and len(tag.split("-")[1]) == 4 and \
                    d["lang_scripts"].get(tag.split("-")[0], "Latn") != tag.split("-")[1]:
                return n
            elif "-" in tag:
                tag = tag.rsplit("-", 1)[0]
            else:
                return n
            n += 1

    worst = 8
    for child in parents:
        parts = child.split("-")
        room = 35 - len(child)
        region_ok = not any(len(p) in (2, 3) for p in parts[1:]) and len(parts) <= 2
        extra = 0
        if region_ok and room >= 3:
            extra, room = 1, room - 3
        extra += room // 5
        worst = max(worst, extra + length(child))
    return worst


def emit(d, babel_version, cldr_version):
    pool = d["pool"]
    pool.freeze()
    L = []
    w = L.append
    w("/*")
    w(" * locale_data.c - the locale tables of the core, GENERATED: do not edit.")
    w(" *")
    w(" * Written by `python3 scripts/gen-cldr.py` from CLDR %s as Babel %s ships it" % (cldr_version, babel_version))
    w(" * (`python3 scripts/gen-cldr.py --check` says whether this file is current).")
    w(" * What each table holds is said in csrc/locale_data.h; csrc/locale.c reads")
    w(" * them (its essay explains the plural rules' encoding).")
    w(" */")
    w('#include "locale_data.h"')
    w("")
    w("/* The CLDR release and the Babel release it came from. */")
    w('const char sdui__locale_cldr[] = "%s";' % cldr_version)
    w('const char sdui__locale_babel[] = "%s";' % babel_version)
    w("")
    bound = text_bound(d)
    w("/* The longest text a format writes, with its NUL: %d bytes. */" % bound)
    w("_Static_assert(%d <= SDUI_LOCALE_TEXT_MAX, \"SDUI_LOCALE_TEXT_MAX is too small for the tables\");" % bound)
    w("")
    chains = chain_bound(d)
    w("/* The longest chain of a tag of at most 35 bytes, with these parents. */")
    w("_Static_assert(%d <= SDUI_LOCALE_CHAIN_MAX, \"SDUI_LOCALE_CHAIN_MAX is too small for the parents\");" % chains)
    w("")
    w("/* Every string of the tables, NUL-terminated, at the offsets the tables")
    w(" * name (offset 0 is the empty string). */")
    w("const char sdui__locale_strings[%d] =" % pool.size)
    # Each string with its NUL written out; the literal's own final NUL is
    # the one C drops when a literal fills its array exactly.
    for s in pool.strings:
        w("    %s \"\\0\"  /* %d */" % (c_string(s), pool.at(s)))
    w(";")
    w("")

    # Plural relations.
    mods = [0]
    ranges = []
    rels = []
    rules = []
    sets = []

    def range_index(rs):
        n = len(rs)
        for i in range(len(ranges) - n + 1):
            if tuple(ranges[i:i + n]) == rs:
                return i
        ranges.extend(rs)
        return len(ranges) - n

    for rs in d["rule_sets"]:
        first_rule = len(rules)
        mask = 1 << 5
        for cat, conjs in rs:
            first_rel = len(rels)
            for ci, conj in enumerate(conjs):
                for ri, (operand, mod, neg, rngs) in enumerate(conj):
                    if mod not in mods:
                        mods.append(mod)
                    op = operand | (OP_NOT if neg else 0) | (OP_OR if ci > 0 and ri == 0 else 0)
                    rels.append((op, mods.index(mod), len(rngs), range_index(rngs)))
            rules.append((cat, first_rel, len(rels) - first_rel))
            mask |= 1 << cat
        sets.append((first_rule, len(rules) - first_rule, mask))
    if len(mods) > 255 or len(ranges) > 0xFFFF or len(rels) > 0xFFFF or len(rules) > 0xFFFF:
        fail("a plural table outgrew its index type")

    w("/* The moduli of the plural relations (index 0: none). */")
    w("const uint32_t sdui__plural_mods[%d] = {%s};" % (len(mods), ", ".join(str(m) for m in mods)))
    w("")
    w("/* The ranges of the plural relations, [lo, hi] each. */")
    w("const sdui__plural_range sdui__plural_ranges[%d] = {" % len(ranges))
    for i in range(0, len(ranges), 6):
        w("    " + " ".join("{%d, %d}," % r for r in ranges[i:i + 6]))
    w("};")
    w("")
    w("/* The relations: operand | NOT | OR, modulus index, range count, first range. */")
    w("const sdui__plural_rel sdui__plural_rels[%d] = {" % len(rels))
    for i in range(0, len(rels), 4):
        w("    " + " ".join("{0x%02x, %d, %d, %d}," % r for r in rels[i:i + 4]))
    w("};")
    w("")
    w("/* One category's condition each: category, first relation, relation count. */")
    w("const sdui__plural_rule sdui__plural_rules[%d] = {" % len(rules))
    for i in range(0, len(rules), 5):
        w("    " + " ".join("{%d, %d, %d}," % r for r in rules[i:i + 5]))
    w("};")
    w("")
    w("/* The rule sets: first rule, rule count, mask of the categories. */")
    w("const sdui__plural_set sdui__plural_sets[%d] = {" % len(sets))
    for i, s in enumerate(sets):
        cats = [CATEGORIES[c] for c, _ in d["rule_sets"][i]]
        w("    {%d, %d, 0x%02x},  /* %d: %s */" % (s + (i, " ".join(cats + ["other"]))))
    w("};")
    w("const size_t sdui__plural_set_count = %d;" % len(sets))
    w("")

    w("/* The number patterns: affixes (positive, negative), grouping, digits. */")
    w("const sdui__pattern sdui__patterns[%d] = {" % len(d["patterns"]))
    for i, p in enumerate(d["patterns"]):
        pp, ps, np_, ns_, g1, g2, mi, mnf, mxf = p
        w("    {%d, %d, %d, %d, %d, %d, %d, %d, %d},  /* %d */" % (
            pool.at(pp), pool.at(ps), pool.at(np_), pool.at(ns_), g1, g2, mi, mnf, mxf, i))
    w("};")
    w("")
    w("/* The number formats: decimal and group symbols, the currency decimal")
    w(" * and group symbols (0: the same), digit zero, minimum grouping digits,")
    w(" * decimal/percent/currency pattern. */")
    w("const sdui__numbers sdui__number_formats[%d] = {" % len(d["number_recs"]))
    for i, r in enumerate(d["number_recs"]):
        dec, grp, cdec, cgrp, zero, mg, a, b, c = r
        w("    {%d, %d, %d, %d, 0x%04X, %d, %d, %d, %d},  /* %d */" % (
            pool.at(dec), pool.at(grp), pool.at(cdec), pool.at(cgrp), zero, mg, a, b, c, i))
    w("};")
    w("")

    w("/* The currencies, sorted by code; their fraction digits; their symbols in")
    w(" * root (with the currencySpacing flags of each symbol). */")
    w("const char sdui__currency_codes[%d][4] = {" % len(CURRENCIES))
    order = sorted(range(len(CURRENCIES)), key=lambda i: CURRENCIES[i])
    for i in range(0, len(order), 10):
        w("    " + " ".join('"%s",' % CURRENCIES[j] for j in order[i:i + 10]))
    w("};")
    w("const uint8_t sdui__currency_digits[%d] = {%s};" % (
        len(CURRENCIES), ", ".join(str(d["currency_digits"][j]) for j in order)))
    w("const sdui__symbol sdui__currency_root[%d] = {" % len(CURRENCIES))
    for j in order:
        s = d["root_symbols"][j]
        w("    {%d, %d},  /* %s */" % (pool.at(s), spacing_flags(s), CURRENCIES[j]))
    w("};")
    w("const size_t sdui__currency_count = %d;" % len(CURRENCIES))
    w("")

    overrides = []
    row_ov = []
    for row in sorted(d["rows"]):
        first = len(overrides)
        for ci, s in sorted(row[4], key=lambda o: CURRENCIES[o[0]]):
            overrides.append((order.index(ci), s))
        row_ov.append((first, len(overrides) - first))
    w("/* Each locale's currency symbols that differ from root's: symbol,")
    w(" * its currencySpacing flags, currency index. */")
    w("const sdui__locale_symbol sdui__locale_symbols[%d] = {" % len(overrides))
    for i in range(0, len(overrides), 5):
        w("    " + " ".join("{%d, %d, %d}," % (pool.at(s), spacing_flags(s), ci) for ci, s in overrides[i:i + 5]))
    w("};")
    w("")

    w("/* The locales, sorted by tag: tag, cardinal and ordinal rule set, number")
    w(" * format, first currency symbol and their count. */")
    w("const sdui__locale sdui__locales[%d] = {" % len(d["rows"]))
    for (tag, card, ordn, nums, _), (first, count) in zip(sorted(d["rows"]), row_ov):
        w("    {%d, %d, %d, %d, %d, %d},  /* %s */" % (pool.at(tag), card, ordn, nums, first, count, tag))
    w("};")
    w("const size_t sdui__locale_count = %d;" % len(d["rows"]))
    w("")
    tag, card, ordn, nums, _ = d["root_row"]
    w("/* Root: the data of a tag whose chain holds none of the locales. */")
    w("const sdui__locale sdui__locale_root = {%d, %d, %d, %d, 0, 0};" % (pool.at(tag), card, ordn, nums))
    w("")

    w("/* CLDR's parent locales where the parent is not the tag less its last")
    w(" * subtag, sorted by child: child, parent (the empty string: root). */")
    parents = sorted(d["parents"].items())
    w("const sdui__parent sdui__parents[%d] = {" % len(parents))
    for i in range(0, len(parents), 4):
        w("    " + " ".join("{%d, %d}," % (pool.at(c), pool.at(p)) for c, p in parents[i:i + 4])
          + "  /* " + " ".join("%s>%s" % (c, p or "root") for c, p in parents[i:i + 4]) + " */")
    w("};")
    w("const size_t sdui__parent_count = %d;" % len(parents))
    w("")

    scripts = d["scripts"]
    w("/* The scripts the tables name, sorted, and 1 for those written right to")
    w(" * left (Unicode's Bidi_Class R and AL). */")
    w("const char sdui__scripts[%d][5] = {" % len(scripts))
    for i in range(0, len(scripts), 10):
        w("    " + " ".join('"%s",' % x for x in scripts[i:i + 10]))
    w("};")
    w("const uint8_t sdui__script_rtl[%d] = {" % len(scripts))
    for i in range(0, len(scripts), 20):
        w("    " + " ".join("%d," % int(x in RTL_SCRIPTS) for x in scripts[i:i + 20]))
    w("};")
    w("const size_t sdui__script_count = %d;" % len(scripts))
    w("")
    langs = sorted(d["lang_scripts"])
    w("/* The languages whose likely script is not Latn, sorted, and that")
    w(" * script (an index into sdui__scripts). */")
    w("const char sdui__languages[%d][4] = {" % len(langs))
    for i in range(0, len(langs), 12):
        w("    " + " ".join('"%s",' % x for x in langs[i:i + 12]))
    w("};")
    w("const uint8_t sdui__language_scripts[%d] = {" % len(langs))
    for i in range(0, len(langs), 20):
        w("    " + " ".join("%d," % scripts.index(d["lang_scripts"][x]) for x in langs[i:i + 20]))
    w("};")
    w("const size_t sdui__language_count = %d;" % len(langs))
    w("")
    regions = sorted(d["region_dirs"].items())
    w("/* Language-region pairs whose likely script runs the other way than")
    w(" * the language's, sorted: tag, 1 when right to left. */")
    w("const sdui__region_direction sdui__region_directions[%d] = {" % len(regions))
    for i in range(0, len(regions), 4):
        w("    " + " ".join("{%d, %d}," % (pool.at(k), int(v)) for k, v in regions[i:i + 4])
          + "  /* " + " ".join(k for k, _ in regions[i:i + 4]) + " */")
    w("};")
    w("const size_t sdui__region_direction_count = %d;" % len(regions))
    return "\n".join(L) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when %s is not current" % OUT)
    args = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.path.join(root, OUT)
    try:
        import babel
        import babel.core
        ok = babel.__version__ == BABEL_VERSION
    except ImportError:
        ok = False
    if not ok:
        if args.check:
            print("skipped: babel %s not installed" % BABEL_VERSION)
            return 0
        fail("needs babel %s (pip install babel==%s)" % (BABEL_VERSION, BABEL_VERSION))
    text = emit(collect(babel), babel.__version__, babel.core.get_cldr_version())
    if args.check:
        try:
            with open(path, encoding="utf-8") as fp:
                current = fp.read()
        except OSError:
            current = None
        if current != text:
            print("%s is not what scripts/gen-cldr.py writes: run python3 scripts/gen-cldr.py" % OUT)
            return 1
        print("%s is current (CLDR %s, Babel %s)" % (OUT, babel.core.get_cldr_version(), babel.__version__))
        return 0
    with open(path, "w", encoding="utf-8") as fp:
        fp.write(text)
    print("wrote %s: %d locales, CLDR %s, Babel %s" % (OUT, len(table_locales()), babel.core.get_cldr_version(),
                                                     babel.__version__))
    return 0


if __name__ == "__main__":
    sys.exit(main())
