#!/usr/bin/env bash
# Puts .gpudoctor-keep into every empty folder of a snapshot so that git keeps the folder (docs/snapshot.md);
# replay leaves the name out of listings. Usage: tests/machines/add-keep-files.sh tests/machines/NAME/snapshot
set -euo pipefail
[[ -d ${1:-} && -f $1/manifest.json ]] || { echo "usage: $0 SNAPSHOT-FOLDER (with manifest.json)" >&2; exit 2; }
find "$1" -type d -empty -exec touch {}/.gpudoctor-keep \;
