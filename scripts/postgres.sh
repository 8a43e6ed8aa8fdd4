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
# --tls: a second, private PostgreSQL of its own, for the TLS tests, with
# TLS on and plain connections refused.  In a new folder /tmp/sdui-pg-tls.*:
# a CA (ca.pem), a server certificate it signed for localhost and
# 127.0.0.1 (not 127.0.0.2, where the server listens too), and a second CA
# that signed nothing (other-ca.pem).  Prints "URL FOLDER", the URL on
# 127.0.0.1 with the test role.  --tls-stop FOLDER stops it and removes the
# folder.
tls_as_postgres() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

start_tls() {
    if ! command -v pg_lsclusters >/dev/null 2>&1; then
        bash "$(dirname "$0")/setup.sh"
    fi
    bin=/usr/lib/postgresql/$(ls /usr/lib/postgresql | sort -n | tail -n1)/bin
    dir=$(mktemp -d /tmp/sdui-pg-tls.XXXXXX)
    cd "$dir"
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=sdui test CA" -keyout ca.key -out ca.pem 2>/dev/null
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=sdui other CA" -keyout other-ca.key -out other-ca.pem 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout server.key -out server.csr 2>/dev/null
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' > server.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile server.ext \
        -out server.pem 2>/dev/null
    chmod 600 server.key
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    if [ "$(id -u)" -eq 0 ]; then chown -R postgres "$dir"; fi
    tls_as_postgres "$bin/initdb" -D "$dir/data" -A trust -U postgres >/dev/null
    cat >> "$dir/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1,127.0.0.2'
port = $port
unix_socket_directories = '$dir'
ssl = on
ssl_cert_file = '$dir/server.pem'
ssl_key_file = '$dir/server.key'
EOF
    cat > "$dir/data/pg_hba.conf" <<EOF
local all all trust
hostssl all all 127.0.0.1/32 scram-sha-256
hostssl all all 127.0.0.2/32 scram-sha-256
EOF
    # The server must not keep the caller's descriptors above 2 (a pipe, or the
    # socket a process monitor waits on, would then never end): pg_ctl starts
    # with them closed.
    python3 -c 'import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:], close_fds=True).returncode)' \
        bash -c "$(declare -f tls_as_postgres); tls_as_postgres \"\$@\"" _ "$bin/pg_ctl" -D "$dir/data" \
        -l "$dir/server.log" -w start >/dev/null
    tls_as_postgres psql -h "$dir" -p "$port" -U postgres -qc "CREATE ROLE sdui LOGIN PASSWORD 'sdui'" \
        -c "CREATE DATABASE sdui_test OWNER sdui" >/dev/null
    echo "postgres://sdui:sdui@127.0.0.1:$port/sdui_test $dir"
}

case "${1:-}" in
    --tls)
        start_tls
        exit 0
        ;;
    --tls-stop)
        dir=${2:-}
        case "$dir" in /tmp/sdui-pg-tls.*) ;; *) echo "postgres.sh: --tls-stop takes a folder --tls made" >&2; exit 2 ;; esac
        bin=/usr/lib/postgresql/$(ls /usr/lib/postgresql | sort -n | tail -n1)/bin
        tls_as_postgres "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
        rm -rf "$dir"
        exit 0
        ;;
esac

start_and_prepare >&2
echo "$url"

