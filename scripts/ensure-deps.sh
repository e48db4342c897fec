#!/usr/bin/env bash
# Installs the system packages the build needs (the -dev packages of sqlite3, libxml2, zlib and
# libpq, and pkg-config) with apt, only when one is missing. Installs nothing else.
#
#   bash scripts/ensure-deps.sh           what the build (and the demo) needs
#   bash scripts/ensure-deps.sh --tests   and the PostgreSQL server the PostgreSQL store's tests
#                                         start (postgresql)
set -euo pipefail
needed=(libsqlite3-dev libxml2-dev zlib1g-dev libpq-dev pkg-config)
if [[ "${1:-}" == "--tests" ]]; then
    needed+=(postgresql)
fi
missing=()
for package in "${needed[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
echo "Installing missing packages: ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
