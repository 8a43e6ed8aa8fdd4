#!/usr/bin/env bash
# check-client-json.sh - fails when Foundation's JSON readers appear in a
# client module (Sources/SDUICore, Sources/SDUI, Sources/SDUIStore,
# Sources/SDUIFlow).  Text becomes a JSONValue only through the C core's
# parser, `JSONValue(json:source:)`, and a typed model only through
# `JSONValueDecoder` from that value: `JSONDecoder` and `JSONSerialization`
# read numbers by other rules (3.0 became the integer 3, an integer past
# 2^63 became a double), so one use of them brings the two rules back.
#
# The names are matched as whole words (`JSONValueDecoder` is fine) in code
# and in string literals; comments are skipped.  Each Swift file is read by
# a small scanner that knows Swift's comments (`//`, nested `/* */`) and
# string literals (single-line, multi-line `"""`, raw `#"…"#`, with
# `\( … )` interpolations, which are code), so a `//` inside a string is
# not taken for a comment and a quote inside an interpolation does not end
# its string.
#
# Usage: scripts/check-client-json.sh [--root DIR]
#   --root DIR  the tree to check (default: this repository).
# Prints `path:line: text` for each use, relative to the root, and exits 1
# when there is one; 0 when there is none; 2 for a usage error or a root
# that holds none of the client modules.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
while [ $# -gt 0 ]; do
    case "$1" in
        --root) [ $# -ge 2 ] || { echo "check-client-json: --root needs a directory" >&2; exit 2; }
                root=$2; shift 2 ;;
        *) echo "usage: check-client-json.sh [--root DIR]" >&2; exit 2 ;;
    esac
done
modules=(Sources/SDUICore Sources/SDUI Sources/SDUIStore Sources/SDUIFlow)
cd "$root" 2>/dev/null || { echo "check-client-json: no directory $root" >&2; exit 2; }
dirs=()
for m in "${modules[@]}"; do [ -d "$m" ] && dirs+=("$m"); done
if [ ${#dirs[@]} -eq 0 ]; then
    echo "check-client-json: $root holds none of ${modules[*]}" >&2
    exit 2
fi

# The scanner: for each file, blanks out comments (newlines kept, so line
# numbers stay), then reports the lines whose remaining text names a
# forbidden type.  States form a stack: code (inside an interpolation it
# counts its parentheses), a string (its `#` count, single- or multi-line).
# A block comment is skipped whole, nesting counted.
find "${dirs[@]}" -name '*.swift' -type f -print0 | sort -z | perl -e '
    use strict; use warnings;
    my $found = 0;
    my @files = do { local $/ = "\0"; map { chomp; $_ } <STDIN> };
    for my $path (@files) {
        open(my $fh, "<", $path) or die "check-client-json: cannot read $path: $!\n";
        local $/; my $src = <$fh>; close $fh;
        my $out = "";
        my @stack = ({ t => "code", interp => 0, paren => 0 });
        pos($src) = 0;
        while (pos($src) < length($src)) {
            my $top = $stack[-1];
            if ($top->{t} eq "code") {
                if ($src =~ m{\G//[^\n]*}gc) { next; }
                if ($src =~ m{\G/\*}gc) {
                    my $depth = 1;
                    while ($depth > 0 && pos($src) < length($src)) {
                        if ($src =~ m{\G/\*}gc) { $depth++; }
                        elsif ($src =~ m{\G\*/}gc) { $depth--; }
                        elsif ($src =~ m{\G(\n)}gc) { $out .= "\n"; }
                        else { $src =~ m{\G.}gcs; }
                    }
                    next;
                }
                if ($src =~ m{\G(#*)"""}gc) { push @stack, { t => "str", hashes => length($1), multi => 1 }; $out .= " "; next; }
                if ($src =~ m{\G(#*)"}gc) { push @stack, { t => "str", hashes => length($1), multi => 0 }; $out .= " "; next; }
                if ($top->{interp} && $src =~ m{\G\(}gc) { $top->{paren}++; $out .= "("; next; }
                if ($top->{interp} && $src =~ m{\G\)}gc) {
                    if ($top->{paren} == 0) { pop @stack; $out .= " "; } else { $top->{paren}--; $out .= ")"; }
                    next;
                }
                $src =~ m{\G(.)}gcs; $out .= $1; next;
            }
            # A string literal: its text is kept (a name quoted in code counts).
            my $h = "#" x $top->{hashes};
            if ($src =~ m{\G\\\Q$h\E\(}gc) { push @stack, { t => "code", interp => 1, paren => 0 }; $out .= " "; next; }
            if ($src =~ m{\G\\\Q$h\E(.)}gcs) { $out .= $1 eq "\n" ? " \n" : "  "; next; }
            if ($top->{multi} && $src =~ m{\G"""\Q$h\E}gc) { pop @stack; $out .= " "; next; }
            if (!$top->{multi} && $src =~ m{\G"\Q$h\E}gc) { pop @stack; $out .= " "; next; }
            if (!$top->{multi} && $src =~ m{\G\n}gc) { pop @stack; $out .= "\n"; next; }   # unterminated: stop at the line end
            $src =~ m{\G(.)}gcs; $out .= $1;
        }
        my $n = 0;
        my @lines = split /\n/, $src, -1;
        for my $line (split /\n/, $out, -1) {
            $n++;
            if ($line =~ /\b(?:JSONDecoder|JSONSerialization)\b/) {
                my $text = $lines[$n - 1] // "";
                $text =~ s/^\s+|\s+$//g;
                print "$path:$n: $text\n";
                $found = 1;
            }
        }
    }
    exit($found ? 1 : 0);
' && status=0 || status=$?
if [ "$status" -eq 1 ]; then
    echo "check-client-json: FAILED: JSONDecoder or JSONSerialization in a client module; parse with" \
         "JSONValue(json:source:) and decode with JSONValueDecoder" >&2
fi
exit "$status"
