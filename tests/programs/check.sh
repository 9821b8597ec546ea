#!/usr/bin/env bash
# Checks every program here with `p4forge check`:
#   valid/*.p4    must be accepted (exit 0);
#   invalid/*.p4  must be rejected (exit 1) and the first `error:` line must contain the fragment
#                 written on the program's first line as `// error: <fragment>`.
# Usage: tests/programs/check.sh [path/to/p4forge]   (default: p4forge on PATH)
# Exit status: 0 when every program behaves, 1 otherwise (each misbehaving program is listed).
set -uo pipefail
p4forge=${1:-p4forge}
here=$(cd "$(dirname "$0")" && pwd)
include="$here/../../p4include"
bad=0

for f in "$here"/valid/*.p4; do
    if ! out=$("$p4forge" check -I "$include" "$f" 2>&1); then
        echo "REJECTED (should be valid): ${f#$here/}"
        echo "$out" | sed 's/^/    /' | head -8
        bad=1
    fi
done

for f in "$here"/invalid/*.p4; do
    fragment=$(head -n1 "$f" | sed -n 's#^// error: ##p')
    if [ -z "$fragment" ]; then
        echo "MALFORMED (first line is not \`// error: ...\`): ${f#$here/}"
        bad=1
        continue
    fi
    out=$("$p4forge" check -I "$include" "$f" 2>&1)
    status=$?
    first=$(printf '%s\n' "$out" | grep -m1 '^error' || true)
    if [ "$status" -eq 0 ]; then
        echo "ACCEPTED (should be rejected with \"$fragment\"): ${f#$here/}"
        bad=1
    elif ! printf '%s\n' "$first" | grep -qF -- "$fragment"; then
        echo "WRONG ERROR in ${f#$here/}: expected \"$fragment\", got: $first"
        bad=1
    fi
done

[ "$bad" -eq 0 ] && echo "tests/programs: all $(ls "$here"/valid/*.p4 | wc -l) valid and $(ls "$here"/invalid/*.p4 | wc -l) invalid programs behave"
exit "$bad"
