#!/usr/bin/env bash
# Runs the dataplane tests that execute generated machine code and raw-memory paths under
# valgrind memcheck, with every error fatal: the tests' own assertions check the bytes, memcheck
# checks that no byte came from memory the process did not own (an invalid read or write, a jump
# on uninitialised data). Usage: tests/valgrind/run.sh [CARGO_PROFILE]   (default: ci)
#
# Under memcheck everything runs 20-50 times slower, so the random-program test runs 24 programs
# (P4F_RANDOM_PROGRAMS) and each property test 8 cases (P4F_PROPTEST_CASES); set either to run more.
set -euo pipefail
cd "$(dirname "$0")/../.."
profile=${1:-ci}
tests=(deparser_control_flow machine_code random_programs)

if ! command -v valgrind >/dev/null 2>&1; then
  echo "error: valgrind is missing. Install it with:  sudo apt-get install -y valgrind" >&2
  exit 1
fi

args=()
for t in "${tests[@]}"; do args+=(--test "$t"); done
# The test binaries' paths, from cargo's JSON messages (one "executable" per test target).
mapfile -t bins < <(cargo test --profile "$profile" -p p4-dataplane "${args[@]}" --no-run --message-format=json 2>/dev/null \
  | grep -o '"executable":"[^"]*"' | sed 's/^"executable":"//; s/"$//')
if [ "${#bins[@]}" != "${#tests[@]}" ]; then
  echo "error: expected ${#tests[@]} test binaries from cargo, got ${#bins[@]}: ${bins[*]:-none}" >&2
  exit 1
fi

failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for bin in "${bins[@]}"; do
  name=$(basename "$bin")
  echo "+ valgrind --tool=memcheck --error-exitcode=99 $name"
  start=$SECONDS
  # Leaks are not errors here: the generated code's pages and the tests' statics live as long as
  # the process.
  if P4F_RANDOM_PROGRAMS=${P4F_RANDOM_PROGRAMS:-24} P4F_PROPTEST_CASES=${P4F_PROPTEST_CASES:-8} valgrind --tool=memcheck --error-exitcode=99 --leak-check=no -q \
      "$bin" --test-threads=2 >"$log" 2>&1; then
    echo "  ok ($((SECONDS - start)) s): $(grep -h '^test result' "$log" | tail -1)"
  else
    echo "  FAILED ($((SECONDS - start)) s):"
    sed 's/^/  /' "$log" | tail -60
    failed=1
  fi
done
[ "$failed" = 0 ] && echo "valgrind: no memory errors in ${#bins[@]} test binaries"
exit "$failed"
