#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on 127.0.0.1, from Debian's `postgresql` package, for tests and
# for trying the PostgreSQL log on one machine. Nothing listens on any other address.
#
#   scripts/throwaway_postgres.sh start DIR [PORT]   # prints the URL of its `postgres` database
#   scripts/throwaway_postgres.sh stop DIR
#
# The cluster trusts local connections (it is a throwaway): never point it at real data.
set -euo pipefail

command=${1:?usage: throwaway_postgres.sh start|stop DIR [PORT]}
dir=${2:?usage: throwaway_postgres.sh start|stop DIR [PORT]}
port=${3:-55432}

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
    echo "PostgreSQL's server is not installed: apt-get install postgresql (Debian's package)" >&2
    exit 3
fi

# initdb and postgres refuse to run as root: as root, run them as Debian's `postgres` user.
as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$command" in
start)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [ "$(id -u)" = 0 ]; then
        chown postgres: "$dir"
        runuser -u postgres -- test -x "$dir" || {
            echo "the postgres user cannot reach $dir: make the folders above it traversable (chmod o+x)" >&2
            exit 1
        }
    fi
    if [ ! -f "$dir/data/PG_VERSION" ]; then
        as_owner "$bindir/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
            || { cat "$dir/initdb.log" >&2; exit 1; }
    fi
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=100" start >/dev/null \
        || { cat "$dir/server.log" >&2; exit 1; }
    echo "postgresql://postgres@127.0.0.1:$port/postgres"
    ;;
stop)
    as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    ;;
*)
    echo "usage: throwaway_postgres.sh start|stop DIR [PORT]" >&2
    exit 2
    ;;
esac
