#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# scripts/link-commands.sh [DEST] — put this tree's commands on PATH, as the guides use
# them (slicectl, slicepath-plot...): a symbolic link in DEST (default /usr/local/bin)
# to each program in the build tree (SLICEPATH_BUILD_DIR, default <repo>/build) or in
# tools/. scripts/setup.sh runs it. A link already there is replaced (it may point into
# another tree); a file that is no link, a program installed there, is left as it is.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Absolute: a link holding a relative path would resolve from DEST.
BUILD_DIR="$(realpath -m "${SLICEPATH_BUILD_DIR:-$ROOT/build}")"
DEST="${1:-/usr/local/bin}"

COMMANDS=(
	"$BUILD_DIR/slicepathd"
	"$BUILD_DIR/control/slicectld/slicectld"
	"$BUILD_DIR/control/slicectl/slicectl"
	"$BUILD_DIR/tools/gen/slicepath-gen"
	"$BUILD_DIR/codeopts/i3/slowpath/i3-slowpath"
	"$ROOT/tools/slicepath-bench"
	"$ROOT/tools/slicepath-plot"
)

log() { printf '[link-commands] %s\n' "$*"; }

if [ ! -w "$DEST" ]; then
	log "$DEST is not writable, so the commands stay in $BUILD_DIR and tools/: run $0 as root"
	exit 0
fi
linked=()
for target in "${COMMANDS[@]}"; do
	name="$(basename "$target")"
	[ -x "$target" ] || { log "$target is not built: no $name on PATH"; continue; }
	if [ -e "$DEST/$name" ] && [ ! -L "$DEST/$name" ]; then
		log "kept $DEST/$name (not a link: an installed program); this tree's is $target"
		continue
	fi
	ln -sfn "$target" "$DEST/$name"
	linked+=("$name")
done
log "in $DEST, linked into this tree: ${linked[*]:-nothing}"
