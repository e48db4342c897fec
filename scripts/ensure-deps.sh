#!/usr/bin/env bash
# Installs the system packages the build needs (the -dev packages of sqlite3, libxml2 and zlib,
# and pkg-config) with apt, only when one is missing. Installs nothing else.
set -euo pipefail
needed=(libsqlite3-dev libxml2-dev zlib1g-dev pkg-config)
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
