#!/usr/bin/env bash
# A throwaway PostgreSQL server for benchmarks and manual runs (the tests start their own):
#
#   URL=$(bash scripts/postgres-scratch.sh start)   # prints the server's connection URI
#   bash scripts/postgres-scratch.sh stop           # stops it and removes its folder
#
# The server lives in /tmp/persistentstores-scratch-pg, listens on a Unix socket there only, and
# runs with fsync=off (it holds nothing worth keeping). As root it runs as the postgres user.
set -euo pipefail
folder=/tmp/persistentstores-scratch-pg
bin="$(pg_config --bindir 2>/dev/null || ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
as_server=()
if [[ "$(id -u)" -eq 0 ]]; then as_server=(runuser -u postgres --); fi
case "${1:-}" in
    start)
        if [[ ! -d "$folder/data" ]]; then
            mkdir -p "$folder"
            if [[ "$(id -u)" -eq 0 ]]; then chown postgres "$folder"; fi
            "${as_server[@]}" "$bin/initdb" -D "$folder/data" -A trust -U postgres -E UTF8 --locale=C.UTF-8 --no-sync >/dev/null
        fi
        "${as_server[@]}" "$bin/pg_ctl" -D "$folder/data" -l "$folder/server.log" -w \
            -o "-k $folder -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off" start >/dev/null
        echo "postgresql:///postgres?host=$folder&user=postgres"
        ;;
    stop)
        if [[ -d "$folder/data" ]]; then "${as_server[@]}" "$bin/pg_ctl" -D "$folder/data" -m fast stop >/dev/null || true; fi
        rm -rf "$folder"
        ;;
    *)
        echo "usage: $0 start|stop" >&2
        exit 64
        ;;
esac
