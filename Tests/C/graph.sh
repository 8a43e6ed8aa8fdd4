#!/usr/bin/env bash
# graph.sh - the file graph of the C core, and a check that it has no circle.
#
#     bash Tests/C/graph.sh [BUILD]      (after `make`; BUILD defaults to build)
#
# Calls: file A -> file B when A's object uses a symbol B's object defines
# (read from the symbol tables with nm, so only real references count).
# Includes: file A -> file B when A has an #include "..." line naming B
# (csrc/ and include/sdui/ headers).  Each graph is printed one file a line
# with what it uses, and handed to tsort: a circle in either makes the
# script print it and exit 1.  `make graph` runs it; `make test` too.
set -u
BUILD="${1:-build}"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT" || exit 2
command -v nm >/dev/null && command -v tsort >/dev/null || {
    echo "graph.sh: nm and tsort are needed (binutils, coreutils)" >&2
    exit 2
}
status=0

# Which object defines each global symbol: "symbol file.c".
defs="$(for o in "$BUILD"/obj/*.o; do
    f="$(basename "$o" .o).c"
    nm -g --defined-only "$o" | awk -v f="$f" 'NF == 3 { print $3, f }'
done | sort -u)"

# Call edges "A B", without self edges.
calls="$(for o in "$BUILD"/obj/*.o; do
    f="$(basename "$o" .o).c"
    nm -u "$o" | awk '{ print $NF }' | sort -u |
        join - <(echo "$defs") | awk -v f="$f" '$2 != f { print f, $2 }'
done | sort -u)"

# Include edges "A B" among the core's own files.
includes="$(for f in csrc/*.c csrc/*.h include/sdui/*.h; do
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
        while read -r inc; do
            echo "$(basename "$f") $(basename "$inc")"
        done
done | sort -u)"

# Prints a graph one file a line, then checks it with tsort.
show() {
    local name="$1" edges="$2" loop
    echo "$name:"
    echo "$edges" | awk 'NF == 2 { u[$1] = u[$1] " " $2 }
        END { for (f in u) print "  " f " ->" u[f] }' | sort
    loop="$(echo "$edges" | tsort 2>&1 >/dev/null)"
    if [ -n "$loop" ]; then
        echo "$name: CIRCLE"
        echo "$loop" | sed 's/^/  /'
        status=1
    else
        echo "$name: no circle"
    fi
}

show calls "$calls"
show includes "$includes"
exit $status
