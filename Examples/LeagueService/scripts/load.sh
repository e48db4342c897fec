#!/usr/bin/env bash
# The League service under load (docs/benchmarks.md, "The example service under load"): builds
# the service in release mode, starts it on SQLite and then on PostgreSQL (a throwaway server of
# its own, in a temporary folder), seeds teams and players through its API, runs wrk on a
# filtered and paged list, a single-object GET and a POST/PATCH mix, stops everything and prints
# a Markdown table (requests/s, p50, p99, non-2xx answers, socket errors and timeouts, load
# average).
#
#   bash Examples/LeagueService/scripts/load.sh                 # both backends, 30 s per endpoint
#   BACKENDS=sqlite DURATION=10s bash Examples/LeagueService/scripts/load.sh
#
# Settings (environment): BACKENDS ("sqlite postgresql"), DURATION (30s), THREADS (2),
# CONNECTIONS (32), TEAMS (20), PLAYERS (1000), PORT (18080), PERSISTENCE_STORE_URL (a
# PostgreSQL database to use instead of starting a server; it should be empty), LEAGUE_BINARY (a
# service already built, instead of building it).
# wrk is installed with apt-get when missing; PostgreSQL needs its server binaries (initdb,
# pg_ctl), as scripts/ensure-deps.sh installs them.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
package="$(cd "$here/.." && pwd)"
backends="${BACKENDS:-sqlite postgresql}"
duration="${DURATION:-30s}"
threads="${THREADS:-2}"
connections="${CONNECTIONS:-32}"
teams="${TEAMS:-20}"
players="${PLAYERS:-1000}"
port="${PORT:-18080}"
base="http://127.0.0.1:$port"

if ! command -v wrk >/dev/null; then
    sudo=()
    if [[ "$(id -u)" -ne 0 ]]; then sudo=(sudo); fi
    "${sudo[@]}" apt-get install -y wrk >/dev/null || { "${sudo[@]}" apt-get update >/dev/null && "${sudo[@]}" apt-get install -y wrk >/dev/null; }
fi

if [[ -n "${LEAGUE_BINARY:-}" ]]; then
    binary="$LEAGUE_BINARY"
else
    swift build -c release --package-path "$package" --product LeagueService >&2
    binary="$(swift build -c release --package-path "$package" --show-bin-path)/LeagueService"
fi

work="$(mktemp -d /tmp/league-load.XXXXXX)"
server=""
pg_folder=""
pg_bin=""
pg_url=""
as_postgres=()
cleanup() {
    if [[ -n "$server" ]]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    if [[ -n "$pg_folder" ]]; then "${as_postgres[@]}" "$pg_bin/pg_ctl" -D "$pg_folder/data" -m fast stop >/dev/null 2>&1 || true; fi
    rm -rf "$work" "$pg_folder"
}
trap cleanup EXIT

# A PostgreSQL server of this script's own (fsync off; it holds nothing worth keeping), so that
# no other server on the machine is touched; its connection URI in `pg_url`. (Not called in a
# command substitution: the cleanup needs the folder it sets.)
start_postgres() {
    pg_bin="$(pg_config --bindir 2>/dev/null || ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
    pg_folder="$(mktemp -d /tmp/league-load-pg.XXXXXX)"
    if [[ "$(id -u)" -eq 0 ]]; then as_postgres=(runuser -u postgres --); chown postgres "$pg_folder"; fi
    "${as_postgres[@]}" "$pg_bin/initdb" -D "$pg_folder/data" -A trust -U postgres -E UTF8 --locale=C.UTF-8 --no-sync >/dev/null
    "${as_postgres[@]}" "$pg_bin/pg_ctl" -D "$pg_folder/data" -l "$pg_folder/server.log" -w \
        -o "-k $pg_folder -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off" start >/dev/null
    pg_url="postgresql:///postgres?host=$pg_folder&user=postgres"
}

# Starts the service with the given environment and waits (at most a minute) until it answers.
start_service() {
    env -u PERSISTENCE_STORE_URL "$@" LEAGUE_PORT="$port" LEAGUE_HOST=127.0.0.1 "$binary" >"$work/server.log" 2>&1 &
    server=$!
    for _ in $(seq 1 600); do
        if curl -sf "$base/teams?limit=1" >/dev/null; then return 0; fi
        if ! kill -0 "$server" 2>/dev/null; then cat "$work/server.log" >&2; echo "the service stopped" >&2; exit 1; fi
        sleep 0.1
    done
    echo "the service did not answer within a minute" >&2
    exit 1
}

stop_service() {
    kill "$server"
    wait "$server" || true
    server=""
}

# The "id" of a JSON answer, on a line of its own (the answer ends without a newline).
id_of() { { cat; echo; } | sed -n 's/.*"id":"\([^"]*\)".*/\1/p'; }

seed() {
    : >"$work/teams"
    : >"$work/players"
    for t in $(seq 1 "$teams"); do
        curl -sf -X POST "$base/teams" -H 'Content-Type: application/json' \
            -d "{\"name\":\"Team $t\",\"city\":\"City $t\"}" | id_of >>"$work/teams"
    done
    mapfile -t team_ids <"$work/teams"
    for p in $(seq 1 "$players"); do
        curl -sf -X POST "$base/players" -H 'Content-Type: application/json' \
            -d "{\"name\":\"Player $p\",\"number\":$((p % 99)),\"team\":\"${team_ids[$((p % teams))]}\"}" | id_of >>"$work/players"
    done
    if [[ "$(wc -l <"$work/players")" -ne "$players" ]]; then echo "seeding failed" >&2; exit 1; fi
}

rows=()
# Runs wrk on one endpoint and keeps a table row: backend, endpoint, requests/s, p50, p99, non-2xx.
run_wrk() {
    local backend=$1 label=$2 target=$3 script=${4:-}
    local load output
    load="$(cut -d' ' -f1-3 /proc/loadavg)"
    local arguments=(--latency -t "$threads" -c "$connections" -d "$duration")
    if [[ -n "$script" ]]; then arguments+=(-s "$script"); fi
    output="$(LEAGUE_PLAYER_IDS="$work/players" LEAGUE_TEAM_IDS="$work/teams" wrk "${arguments[@]}" "$target")"
    echo "$output" >&2
    local rps p50 p99 errors socket
    rps="$(awk '/^Requests\/sec:/ {print $2}' <<<"$output")"
    p50="$(awk '$1 == "50%" {print $2}' <<<"$output")"
    p99="$(awk '$1 == "99%" {print $2}' <<<"$output")"
    errors="$(awk '/Non-2xx or 3xx responses:/ {print $NF}' <<<"$output")"
    # Connect, read, write errors and timeouts, added up.
    socket="$(awk '/Socket errors:/ {print $4 + $6 + $8 + $10}' <<<"$output")"
    rows+=("| $backend | $label | ${rps%.*} | $p50 | $p99 | ${errors:-0} | ${socket:-0} | $load |")
}

for backend in $backends; do
    case "$backend" in
        sqlite) start_service PERSISTENCE_STORE_PATH="$work/league.sqlite" ;;
        postgresql)
            if [[ -n "${PERSISTENCE_STORE_URL:-}" ]]; then pg_url="$PERSISTENCE_STORE_URL"; else start_postgres; fi
            start_service PERSISTENCE_STORE_URL="$pg_url" ;;
        *) echo "unknown backend $backend (sqlite, postgresql)" >&2; exit 64 ;;
    esac
    echo "== $backend: seeding $teams teams and $players players" >&2
    seed
    run_wrk "$backend" 'GET /players?filter=number < 50&sort=name&limit=20&offset=40' \
        "$base/players?filter=number%20%3C%2050&sort=name&limit=20&offset=40"
    run_wrk "$backend" 'GET /players/:id (random)' "$base" "$here/get-player.lua"
    run_wrk "$backend" 'POST /players + PATCH /players/:id (half each)' "$base" "$here/writes.lua"
    stop_service
    if [[ -n "$pg_folder" ]]; then
        "${as_postgres[@]}" "$pg_bin/pg_ctl" -D "$pg_folder/data" -m fast stop >/dev/null
        rm -rf "$pg_folder"
        pg_folder=""
    fi
done

echo
echo "wrk -t $threads -c $connections -d $duration --latency; $teams teams, $players players seeded; $(nproc) cores"
echo
echo "| backend | endpoint | requests/s | p50 | p99 | non-2xx | socket errors | load average before |"
echo "|---|---|---:|---:|---:|---:|---:|---|"
printf '%s\n' "${rows[@]}"
