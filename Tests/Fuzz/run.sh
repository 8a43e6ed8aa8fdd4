#!/usr/bin/env bash
# run.sh - builds the libFuzzer harnesses of the SDUIKit C core and runs each
# one for SECONDS_EACH seconds (default 60).  Run from anywhere:
#
#     bash Tests/Fuzz/run.sh [SECONDS_EACH [NAME...]]
#
# NAME picks harnesses from HARNESSES below (default: all); the harness NAME
# is Tests/Fuzz/fuzz_NAME.c, except the Swift harness payload (the
# normalized-payload decoder), which Tests/Fuzz/run-swift.sh builds and runs; and a listed harness whose file is missing is
# an error, not skipped.  The core's csrc/*.c are compiled once, under the
# harnesses' sanitizers and coverage (-fsanitize=fuzzer-no-link,address,
# undefined; not the .a), into build/fuzz/obj/, and each harness is linked
# with them under -fsanitize=fuzzer,address,undefined.  The harnesses run
# FUZZ_JOBS at a time (default: the number of processors; each libFuzzer
# run is one process on one core), each for SECONDS_EACH, and report in
# the order they are listed.  Work files live in build/fuzz/:
#   obj/<file>.o       the core, instrumented (and obj/build-<file>.log)
#   fuzz_<name>        the harness binaries (and build-<name>.log)
#   seeds/<name>/      seed inputs: Tests/Fuzz/seeds/<name>/ (pack_open and
#                      token_parse: seeds/pack/, seeds/token/ plus Examples/;
#                      pack_open also each JSON seed as several gzip members
#                      with a size field, written by the harness itself
#                      (FUZZ_PACK_SEEDS=DIR);
#                      scan_paths: the JSON of both, plus the JSONTestSuite
#                      parsing corpus, $SDUI_JSONTESTSUITE or
#                      ../shared/JSONTestSuite)
#   corpus/<name>/     the growing corpus, kept between runs
#   artifacts/<name>/  crash, timeout and out-of-memory inputs
#   <name>.log         the fuzzer's output
#   seeds/expr/        one file per expression of Tests/ExprVectors/*.json
#                      (extracted with python3), plus Tests/Fuzz/seeds/expr/
#   expr.dict          the expression language's tokens (written here)
#   seeds/matches/     each matches('subject', 'pattern') of
#                      Tests/ExprVectors/regex.json as "pattern 0xFF subject"
#                      (extracted with python3), plus Tests/Fuzz/seeds/matches/
#   matches.dict       the regex syntax (written here)
#   seeds/snapshot/    real snapshot files (and PATH.prev beside them) made
#                      by sdui_snapshot_write, whole and damaged, written by
#                      the harness itself (FUZZ_SNAPSHOT_SEEDS=DIR), plus
#                      Tests/Fuzz/seeds/snapshot/ if it exists
#   snapshot.dict      json.dict and the snapshot envelope's pieces
#   seeds/seekable_open/ real seekable packs made by sdui_pack_write_seekable,
#                      written by the harness itself (FUZZ_SEEKABLE_SEEDS=DIR),
#                      plus Tests/Fuzz/seeds/seekable_open/ if it exists
# The JSON harnesses (all but disk_open, outbox_open, expr, matches and
# snapshot) get Tests/Fuzz/json.dict; expr gets expr.dict, matches
# matches.dict, snapshot snapshot.dict; disk_open and outbox_open (SQLite
# files) none.  matches is differential: it links PCRE2 (libpcre2-dev,
# found with pkg-config libpcre2-8) as the reference engine.  Prints the runs and executions per second
# of each harness and exits non-zero if any harness crashed (or failed to
# build).
# Needs: clang with the fuzzer runtime (the Swift toolchain's clang in
# /opt/swift/usr/bin is used when present), libjansson-dev, libdeflate-dev,
# libsqlite3-dev, and for matches libpcre2-dev.
set -u

USAGE="usage: bash Tests/Fuzz/run.sh [SECONDS_EACH [NAME...]]"
SECONDS_EACH="${1:-60}"
case "$SECONDS_EACH" in
'' | *[!0-9]* | 0)
    echo "$USAGE" >&2
    exit 2
    ;;
esac
[ "$#" -gt 0 ] && shift

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT" || exit 2
WORK=build/fuzz
HARNESSES="pack_open token_parse disk_open batch_split json_doc expr snapshot outbox_open scan_paths seekable_open matches experiment locale catalog"
# Harnesses written in Swift, each with a script of its own (its package
# is built with the Swift toolchain, not compiled here).
SWIFT_HARNESSES="payload"

# The harnesses to run: the names given, each one of HARNESSES or
# SWIFT_HARNESSES; SELECTED keeps the C ones, SWIFT_SELECTED the others.
SELECTED=""
SWIFT_SELECTED=""
for name in ${*:-$HARNESSES $SWIFT_HARNESSES}; do
    case " $SWIFT_HARNESSES " in
    *" $name "*)
        SWIFT_SELECTED="$SWIFT_SELECTED $name"
        continue
        ;;
    esac
    case " $HARNESSES " in
    *" $name "*) SELECTED="$SELECTED $name" ;;
    *)
        echo "run.sh: no harness \"$name\" (known: $HARNESSES $SWIFT_HARNESSES)" >&2
        echo "$USAGE" >&2
        exit 2
        ;;
    esac
    if [ ! -f "Tests/Fuzz/fuzz_$name.c" ]; then
        echo "run.sh: harness $name is listed but Tests/Fuzz/fuzz_$name.c is missing" >&2
        exit 1
    fi
done

if [ -n "${FUZZ_CC:-}" ]; then
    CC="$FUZZ_CC"
elif [ -x /opt/swift/usr/bin/clang ]; then
    CC=/opt/swift/usr/bin/clang
else
    CC=clang
fi
# Link with lld when it sits beside the compiler (quieter and faster than
# gold with the sanitizer runtimes); otherwise the default linker.
LDFLAG=""
CC_PATH="$(command -v "$CC" || true)"
if [ -n "$CC_PATH" ] && [ -x "$(dirname "$CC_PATH")/ld.lld" ]; then
    LDFLAG="-fuse-ld=lld"
fi

BASE_CFLAGS="-g -O1 -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude \
-fno-sanitize-recover=undefined -fno-omit-frame-pointer"
CORE_CFLAGS="$BASE_CFLAGS -fsanitize=fuzzer-no-link,address,undefined"
CFLAGS="$BASE_CFLAGS -fsanitize=fuzzer,address,undefined"
JOBS="${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}"
case "$JOBS" in '' | *[!0-9]* | 0) JOBS=1 ;; esac

mkdir -p "$WORK"

# The libraries a harness needs beyond the core's.
libs_for() {
    case "$1" in
    matches) pkg-config --libs libpcre2-8 2>/dev/null || echo "-lpcre2-8" ;;
    esac
}

# Builds one harness; prints the compiler output only when it fails.
# Compiles one core file into $WORK/obj/ (for xargs -P: $CC and the flags
# come from the environment).
build_core_file() {
    local src="$1" obj
    obj="$WORK/obj/$(basename "$src" .c).o"
    if ! $CC $CORE_CFLAGS -c "$src" -o "$obj" >"$obj.log" 2>&1; then
        echo "fuzz: $src did not build:" >&2
        cat "$obj.log" >&2
        return 1
    fi
}

# The instrumented core, once for every harness, JOBS files at a time.
build_core() {
    rm -rf "$WORK/obj"
    mkdir -p "$WORK/obj"
    export CC CORE_CFLAGS WORK
    export -f build_core_file
    printf '%s\0' csrc/*.c | xargs -0 -n 1 -P "$JOBS" bash -c 'build_core_file "$1"' _
}

build_harness() {
    local name="$1"
    # shellcheck disable=SC2046 # the libraries are words
    if ! $CC $CFLAGS $LDFLAG "$WORK"/obj/*.o "Tests/Fuzz/fuzz_$name.c" \
        -ljansson -ldeflate -lsqlite3 -lpthread $(libs_for "$name") -o "$WORK/fuzz_$name" \
        >"$WORK/build-$name.log" 2>&1; then
        echo "fuzz_$name: build failed:" >&2
        cat "$WORK/build-$name.log" >&2
        return 1
    fi
}

# Gzips src into dst when gzip is available (keeping the name field too,
# so the FNAME header path is seeded).
gzip_seed() {
    if command -v gzip >/dev/null 2>&1; then
        gzip -c -9 "$1" >"$2"
    fi
}

# Fills build/fuzz/seeds/{pack_open,token_parse} from the committed seeds
# and Examples/.
make_pack_token_seeds() {
    local tokens="$WORK/seeds/token_parse" packs="$WORK/seeds/pack_open"
    local f base all first=1
    rm -rf "$tokens" "$packs"
    mkdir -p "$tokens" "$packs"
    shopt -s nullglob
    for f in Tests/Fuzz/seeds/token/*; do cp "$f" "$tokens/"; done
    for f in Tests/Fuzz/seeds/pack/*; do
        base="$(basename "$f")"
        cp "$f" "$packs/"
        gzip_seed "$f" "$packs/$base.gz"
    done
    # Real packs from Examples/, wherever they are.
    if [ -d Examples ]; then
        while IFS= read -r f; do
            cp "$f" "$packs/example-$(echo "$f" | tr '/' '_')"
        done < <(find Examples -name '*.gz' -type f 2>/dev/null)
    fi
    # Each example token as a token seed and wrapped as a one-token pack;
    # all of them together as one more pack.
    all="$packs/example-all-tokens.json"
    printf '{"formatVersion":1,"tokens":[' >"$all"
    for f in Examples/tokens/*.json; do
        base="$(basename "$f" .json)"
        cp "$f" "$tokens/example-$base.json"
        {
            printf '{"formatVersion":1,"tokens":['
            cat "$f"
            printf ']}'
        } >"$packs/example-$base.json"
        [ "$first" = 1 ] || printf ',' >>"$all"
        cat "$f" >>"$all"
        first=0
    done
    printf ']}' >>"$all"
    if [ "$first" = 0 ]; then
        gzip_seed "$all" "$all.gz"
        # Two gzip members, as `cat a.gz b.gz` makes.
        if [ -f "$packs/three_tokens.json.gz" ] && [ -f "$packs/minimal.json.gz" ]; then
            cat "$packs/three_tokens.json.gz" "$packs/minimal.json.gz" \
                >"$packs/two-members.gz"
        fi
    else
        rm -f "$all"
    fi
    shopt -u nullglob
}

# Adds to build/fuzz/seeds/pack_open/ each JSON seed written as several
# gzip members with a size field (sdui_gzip_encode_members), and a pack of
# one token a line, by the harness in its seed mode: gzip inputs that the
# open scans member by member.  Returns non-zero when the harness fails.
make_pack_member_seeds() {
    local dir="$WORK/seeds/pack_open"
    if ! FUZZ_PACK_SEEDS="$dir" "$WORK/fuzz_pack_open" \
        >"$WORK/seeds-pack_open.log" 2>&1; then
        echo "seeds: pack_open: the harness could not write its seeds:" >&2
        cat "$WORK/seeds-pack_open.log" >&2
        return 1
    fi
}

# Fills build/fuzz/seeds/scan_paths/ with the JSON of the pack and token
# seeds (not the gzip ones) and the JSONTestSuite parsing corpus.
make_scan_paths_seeds() {
    local dir="$WORK/seeds/scan_paths" suite f
    rm -rf "$dir"
    mkdir -p "$dir"
    shopt -s nullglob
    for f in "$WORK/seeds/pack_open"/* "$WORK/seeds/token_parse"/*; do
        case "$f" in
        *.gz) ;;
        *) cp "$f" "$dir/$(basename "$(dirname "$f")")-$(basename "$f")" ;;
        esac
    done
    suite="${SDUI_JSONTESTSUITE:-../shared/JSONTestSuite}"
    [ -d "$suite/test_parsing" ] && suite="$suite/test_parsing"
    for f in "$suite"/*.json; do cp "$f" "$dir/suite-$(basename "$f")"; done
    shopt -u nullglob
}

# Fills build/fuzz/seeds/expr/ with each vector's expression (one file
# each) and writes build/fuzz/expr.dict.
make_expr_seeds() {
    local dir="$WORK/seeds/expr" f
    rm -rf "$dir"
    mkdir -p "$dir"
    shopt -s nullglob
    for f in Tests/Fuzz/seeds/expr/*; do cp "$f" "$dir/"; done
    shopt -u nullglob
    if command -v python3 >/dev/null 2>&1; then
        python3 - "$dir" Tests/ExprVectors/*.json <<'PY'
import json, sys
out, n = sys.argv[1], 0
for path in sys.argv[2:]:
    for case in json.load(open(path, encoding="utf-8"))["cases"]:
        with open("%s/vector-%04d" % (out, n), "wb") as fp:
            fp.write(case["expr"].encode("utf-8"))
        n += 1
PY
    else
        echo "seeds: expr: python3 missing, vectors not used as seeds" >&2
    fi
    cat >"$WORK/expr.dict" <<'DICT'
"??"
"||"
"&&"
"=="
"!="
"<="
">="
" in "
"[*]"
"true"
"false"
"null"
"\\u00e9"
"1e308"
"9223372036854775807"
"len("
"sum("
"min("
"max("
"avg("
"count("
"contains("
"starts_with("
"ends_with("
"lower("
"upper("
"trim("
"round("
"floor("
"ceil("
"abs("
"clamp("
"string("
"number("
"int("
"fixed("
"join("
"keys("
"all("
"any("
"coalesce("
"matches("
"cart.items[*].price"
"answers['first name']"
"\\\\d"
"\\\\w"
"[^a-z]"
"{2}"
"{1,3}"
"{2,}"
"nums"
"o1 == o3"
"o2"
"long"
"wide"
"many"
"9007199254740993"
"9007199254740992.0"
DICT
}

# Fills build/fuzz/seeds/matches/ with "pattern 0xFF subject" for each
# matches() of regex.json whose arguments are string literals, plus
# Tests/Fuzz/seeds/matches/, and writes build/fuzz/matches.dict.
make_matches_seeds() {
    local dir="$WORK/seeds/matches" f
    rm -rf "$dir"
    mkdir -p "$dir"
    shopt -s nullglob
    for f in Tests/Fuzz/seeds/matches/*; do cp "$f" "$dir/"; done
    shopt -u nullglob
    if command -v python3 >/dev/null 2>&1; then
        python3 - "$dir" Tests/ExprVectors/regex.json <<'PY'
import json, re, sys
out, n = sys.argv[1], 0
lit = r"'((?:[^'\\]|\\.)*)'"
call = re.compile(r"^matches\(" + lit + r", " + lit + r"\)$")
def text(body):
    # A single-quoted literal of the language: JSON escapes plus \'.
    return json.loads('"' + body.replace("\\'", "'").replace('"', '\\"') + '"')
for case in json.load(open(sys.argv[2], encoding="utf-8"))["cases"]:
    m = call.match(case["expr"])
    if not m:
        continue
    try:
        subject, pattern = text(m.group(1)), text(m.group(2))
    except ValueError:
        continue
    with open("%s/vector-%04d" % (out, n), "wb") as fp:
        fp.write(pattern.encode("utf-8") + b"\xff" + subject.encode("utf-8"))
    n += 1
PY
    else
        echo "seeds: matches: python3 missing, vectors not used as seeds" >&2
    fi
    cat >"$WORK/matches.dict" <<'DICT'
"\xff"
"\xfe"
"\\d"
"\\w"
"\\s"
"\\n"
"\\t"
"\\."
"\\{"
"[^"
"[a-z]"
"[\\d-"
"(?"
"(|)"
"|"
"^"
"$"
"*"
"+"
"?"
"{0}"
"{1}"
"{2}"
"{3,}"
"{0,1}"
"{1,3}"
"{2,5}"
"{1000}"
"{999,1000}"
"\xc3\xa9"
"\xf0\x9f\x98\x80"
"\x0a"
DICT
}

# Fills build/fuzz/seeds/snapshot/ by running the harness in its seed mode
# (real files written by sdui_snapshot_write, then damaged) and writes
# build/fuzz/snapshot.dict.  Returns non-zero when the harness fails.
make_snapshot_seeds() {
    local dir="$WORK/seeds/snapshot" f
    rm -rf "$dir"
    mkdir -p "$dir"
    shopt -s nullglob
    for f in Tests/Fuzz/seeds/snapshot/*; do cp "$f" "$dir/"; done
    shopt -u nullglob
    if ! FUZZ_SNAPSHOT_SEEDS="$dir" "$WORK/fuzz_snapshot" \
        >"$WORK/seeds-snapshot.log" 2>&1; then
        echo "seeds: snapshot: the harness could not write its seeds:" >&2
        cat "$WORK/seeds-snapshot.log" >&2
        return 1
    fi
    {
        cat Tests/Fuzz/json.dict
        cat <<'DICT'
# snapshot.h: the envelope and the input's separator of PATH.prev
"{\"format\":\"sdui-snapshot\",\"version\":1,\"crc32\":\""
"\",\"data\":"
"}\x0a"
"\x0a@prev@\x0a"
"\"format\""
"\"version\":1"
"\"crc32\":\"00000000\""
"\"data\":"
"sdui-snapshot"
DICT
    } >"$WORK/snapshot.dict"
}

# Fills build/fuzz/seeds/seekable_open/ with real seekable packs, written by
# the harness in its seed mode.  Returns non-zero when the harness fails.
make_seekable_seeds() {
    local dir="$WORK/seeds/seekable_open" f
    rm -rf "$dir"
    mkdir -p "$dir"
    shopt -s nullglob
    for f in Tests/Fuzz/seeds/seekable_open/*; do cp "$f" "$dir/"; done
    shopt -u nullglob
    if ! FUZZ_SEEKABLE_SEEDS="$dir" "$WORK/fuzz_seekable_open" \
        >"$WORK/seeds-seekable_open.log" 2>&1; then
        echo "seeds: seekable_open: the harness could not write its seeds:" >&2
        cat "$WORK/seeds-seekable_open.log" >&2
        return 1
    fi
}

# Fills build/fuzz/seeds/<name>/ for the selected harnesses.
make_seeds() {
    local name dir f packs_done=0
    for name in $SELECTED; do
        dir="$WORK/seeds/$name"
        case "$name" in
        pack_open | token_parse)
            [ "$packs_done" = 1 ] || make_pack_token_seeds
            packs_done=1
            if [ "$name" = pack_open ]; then
                make_pack_member_seeds || return 1
            fi
            ;;
        scan_paths)
            [ "$packs_done" = 1 ] || make_pack_token_seeds
            packs_done=1
            make_scan_paths_seeds
            ;;
        expr)
            make_expr_seeds
            ;;
        matches)
            make_matches_seeds
            ;;
        snapshot)
            make_snapshot_seeds || return 1
            ;;
        seekable_open)
            make_seekable_seeds || return 1
            ;;
        *)
            rm -rf "$dir"
            mkdir -p "$dir"
            shopt -s nullglob
            for f in "Tests/Fuzz/seeds/$name"/*; do cp "$f" "$dir/"; done
            shopt -u nullglob
            ;;
        esac
        echo "seeds: $name: $(ls "$dir" | wc -l) inputs"
    done
}

# The dictionary options of a harness.
dict_for() {
    case "$1" in
    disk_open | outbox_open) ;;
    expr) echo "-dict=$WORK/expr.dict" ;;
    matches) echo "-dict=$WORK/matches.dict" ;;
    snapshot) echo "-dict=$WORK/snapshot.dict" ;;
    *) echo "-dict=Tests/Fuzz/json.dict" ;;
    esac
}

failed=0
if [ -n "$SELECTED" ]; then
    build_core || exit 1
fi
for name in $SELECTED; do
    build_harness "$name" || failed=1
done
[ "$failed" = 0 ] || exit 1
make_seeds || exit 1

# One harness's run; its exit status goes to $WORK/<name>.rc.
fuzz_one() {
    local name="$1" corpus="$WORK/corpus/$1" artifacts="$WORK/artifacts/$1"
    mkdir -p "$corpus" "$artifacts"
    # shellcheck disable=SC2046 # the dictionary option is one word or none
    "$WORK/fuzz_$name" -max_total_time="$SECONDS_EACH" -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 $(dict_for "$name") \
        -artifact_prefix="$artifacts/" \
        "$corpus" "$WORK/seeds/$name" >"$WORK/$name.log" 2>&1
    echo $? >"$WORK/$name.rc"
}

# Runs JOBS harnesses at a time: a new one starts when one ends.
running=0
for name in $SELECTED; do
    rm -f "$WORK/$name.rc"
    echo "fuzz_$name: running for ${SECONDS_EACH}s ..."
    fuzz_one "$name" &
    running=$((running + 1))
    if [ "$running" -ge "$JOBS" ]; then
        wait -n
        running=$((running - 1))
    fi
done
wait

for name in $SELECTED; do
    corpus="$WORK/corpus/$name"
    artifacts="$WORK/artifacts/$name"
    log="$WORK/$name.log"
    rc="$(cat "$WORK/$name.rc" 2>/dev/null || echo "?")"
    runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
    speed="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)"
    files="$(ls "$corpus" | wc -l)"
    echo "fuzz_$name: ${runs:-?} runs, ${speed:-?} exec/s, corpus $files files, exit $rc"
    if [ "$rc" != 0 ]; then
        failed=1
        echo "fuzz_$name: FAILED; last lines of $log:" >&2
        tail -n 40 "$log" >&2
        echo "fuzz_$name: artifacts in $artifacts:" >&2
        ls -l "$artifacts" >&2
    fi
done

# The Swift harnesses: payload is the normalized-payload decoder and the
# render of what it decodes (Tests/Fuzz/run-swift.sh).
for name in $SWIFT_SELECTED; do
    case "$name" in
    payload)
        start=$SECONDS
        bash Tests/Fuzz/run-swift.sh "$SECONDS_EACH" || failed=1
        echo "run.sh: the payload harness (build and run) took $((SECONDS - start)) s"
        ;;
    esac
done
exit "$failed"
