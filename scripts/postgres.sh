#!/usr/bin/env bash
# postgres.sh - starts Debian's PostgreSQL on 127.0.0.1:5432 (installing it
# through setup.sh when missing) and makes sure the test role and database
# exist.  Prints the URL the tests use:
#   postgres://sdui:sdui@127.0.0.1:5432/sdui_test
# Fails loudly: a test run that needs PostgreSQL must not go on without it.
set -euo pipefail
url="postgres://sdui:sdui@127.0.0.1:5432/sdui_test"

if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo -n"; fi

# Starts the cluster and creates the role and database.  Run with stdout on
# stderr: the URL must be the only line on stdout, as callers capture it
# with $(...), and pg_ctlcluster prints "Removed stale pid file." on stdout
# after an unclean shutdown.  (A saved descriptor would not do: the server
# daemon would inherit it and keep the caller's pipe open.)
start_and_prepare() {
    as_postgres() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else sudo -n -u postgres "$@"; fi; }

    if ! command -v pg_lsclusters >/dev/null 2>&1; then
        bash "$(dirname "$0")/setup.sh"   # installs postgresql with the other packages
    fi
    cluster=$(pg_lsclusters --no-header | head -n1)
    if [ -z "$cluster" ]; then
        version=$(ls /usr/lib/postgresql | sort -n | tail -n1)
        $sudo pg_createcluster "$version" main >/dev/null
        cluster=$(pg_lsclusters --no-header | head -n1)
    fi
    read -r version name port status _ <<<"$cluster"
    if [ "$status" != "online" ]; then
        $sudo pg_ctlcluster "$version" "$name" start
    fi
    if [ "$port" != "5432" ]; then
        echo "postgres.sh: cluster $version/$name listens on $port, not 5432" >&2
        exit 1
    fi
    for _ in $(seq 1 30); do
        as_postgres psql -qtAc "SELECT 1" >/dev/null 2>&1 && break
        sleep 1
    done
    as_postgres psql -qtAc "SELECT 1" >/dev/null
    if [ "$(as_postgres psql -qtAc "SELECT 1 FROM pg_roles WHERE rolname = 'sdui'")" != "1" ]; then
        as_postgres psql -qc "CREATE ROLE sdui LOGIN PASSWORD 'sdui'"
    fi
    if [ "$(as_postgres psql -qtAc "SELECT 1 FROM pg_database WHERE datname = 'sdui_test'")" != "1" ]; then
        as_postgres psql -qc "CREATE DATABASE sdui_test OWNER sdui"
    fi
    # Each test case makes its own schema t_<uuid>; drop those of earlier runs
    # (so a second test run must not start while one is under way).
    as_postgres psql -d sdui_test -qtAc "SELECT string_agg(quote_ident(nspname), ',')
        FROM pg_namespace WHERE nspname LIKE 't\_%'" | {
        read -r schemas || true
        if [ -n "$schemas" ]; then
            as_postgres psql -d sdui_test -qc "SET client_min_messages = warning; DROP SCHEMA $schemas CASCADE"
        fi
    }
    # Password login over TCP must work, as the tests log in that way.
    PGPASSWORD=sdui psql -h 127.0.0.1 -U sdui -d sdui_test -qtAc "SELECT 1" >/dev/null
}
start_and_prepare >&2
echo "$url"

