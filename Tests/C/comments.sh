#!/usr/bin/env bash
# comments.sh - checks the house rule "a comment above every function" in
# csrc/*.c: prints each function definition whose line above is not the end
# of a comment, and exits 1 if there is any.  `make test` runs it.
#
# A definition is a "{" alone at column 0 (its header is the lines above,
# back to the one that starts at column 0) or a one-line function
# "type name(...) { ... }"; a "static SDUI_ALWAYS_INLINE ..." line of its
# own belongs to the header.
set -u
cd "$(dirname "$0")/../.." || exit 2
missing="$(awk '
FNR == 1 { n = 0 }
{ line[++n] = $0 }
/^\{$/ {
    h = n - 1
    while (h > 1 && line[h] ~ /^[ \t]/) h--
    check(h)
}
/^[A-Za-z_].*\) \{.*\}$/ && !/=/ { check(n) }
function check(h,   p, name) {
    p = h - 1
    if (line[p] ~ /^(static )?SDUI_ALWAYS_INLINE/) p--
    if (p < 1 || line[p] !~ /\*\/[ \t]*$/) {
        name = line[h]; sub(/\(.*/, "", name); sub(/.*[ *]/, "", name)
        print FILENAME ":" h ": " name
    }
}' csrc/*.c)"
if [ -n "$missing" ]; then
    echo "functions without a comment above them:"
    echo "$missing"
    exit 1
fi
exit 0
