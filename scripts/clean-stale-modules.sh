#!/usr/bin/env bash
# Removes this repository's own module folders from a build folder of a package that depends on
# it (Benchmarks/, Fuzz/) when the sources changed since the folder was last built, so the next
# `swift build` compiles them anew; dependencies' modules are kept.
#
#   bash scripts/clean-stale-modules.sh <package folder> <configuration folder>   (e.g. Benchmarks release)
#   bash scripts/clean-stale-modules.sh --stamp <package folder> <configuration folder>
#
# Why: an incremental build of such a package once kept an older object size of a class of this
# repository (`ManagedObjectContext`, after StoreCore changed its stored properties) inlined in a
# module of the package, and the program wrote past the object (docs/benchmarks.md). The
# fingerprint is the commit and any uncommitted change to the sources; `--stamp` records it
# after a build. A folder that does not exist yet (a fresh clone) is left alone.
set -euo pipefail
cd "$(dirname "$0")/.."
stamp=false
if [[ "${1:-}" == "--stamp" ]]; then stamp=true; shift; fi
[[ $# -eq 2 ]] || { echo "usage: $0 [--stamp] <package folder> <configuration folder>" >&2; exit 64; }
package="$1"
folder="$package/.build/$2"
fingerprint="$( (git rev-parse HEAD 2>/dev/null || true
    git diff HEAD -- Package.swift Sources Conformance ModelConformance Examples "$package/Package.swift" "$package/Sources" 2>/dev/null || true
) | sha256sum | cut -c1-32)"
[[ -d "$folder" ]] || exit 0
if $stamp; then
    echo "$fingerprint" > "$folder/.sources-fingerprint"
    exit 0
fi
if [[ "$(cat "$folder/.sources-fingerprint" 2>/dev/null || true)" != "$fingerprint" ]]; then
    targets="$(cat Package.swift "$package/Package.swift" | tr '\n' ' ' \
        | grep -oE '\.(target|executableTarget|macro|testTarget|systemLibrary)\( *name: "[^"]*"' | cut -d'"' -f2 | sort -u)"
    # Targets declared by name, and those at their default path (a folder of Sources/, such as
    # the fuzz harnesses, which Fuzz/Package.swift declares from a list).
    for source in Sources/*/ "$package"/Sources/*/; do
        [[ -d "$source" ]] && targets+=" $(basename "$source")"
    done
    for name in $targets; do
        rm -rf "$folder/${name//-/_}.build" "$folder/${name}-tool.build"
    done
    # SwiftPM writes a module's output file map when it plans the build, and plans again only
    # when the manifest changed: touched, so the removed folders are planned anew.
    touch "$package/Package.swift"
fi
