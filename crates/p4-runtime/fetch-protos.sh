#!/usr/bin/env bash
# Fetches P4Runtime's .proto files into DIR (default .venv/proto) from the pinned, hash-checked wheel
# in proto-wheel.txt, for build.rs to compile. Run by `make tools-proto`; needs Python 3 and PyPI.
# What DIR holds is complete or absent: the files are unpacked beside it and renamed into place.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dir=${1:-$root/.venv/proto}
venv=$root/.venv
[ -x "$venv/bin/pip" ] || python3 -m venv "$venv"
mkdir -p "$(dirname "$dir")"
work=$(mktemp -d "$(dirname "$dir")/.proto.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$venv/bin/pip" download -q --disable-pip-version-check --no-deps --require-hashes \
  -r "$here/proto-wheel.txt" -d "$work/wheel"
"$venv/bin/python" -m zipfile -e "$work"/wheel/*.whl "$work/unpacked"
mkdir -p "$work/proto"
for sub in p4/v1 p4/config/v1 google/rpc; do
  mkdir -p "$work/proto/$sub"
  cp "$work/unpacked/finsy/proto/$sub"/*.proto "$work/proto/$sub/"
done
cp "$here/proto-wheel.txt" "$work/proto/.stamp"
rm -rf "$dir.old"
[ ! -e "$dir" ] || mv "$dir" "$dir.old"
mv "$work/proto" "$dir"
rm -rf "$dir.old"
echo "tools: P4Runtime .proto files in $dir"
