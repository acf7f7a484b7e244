#!/bin/sh
# Every benchmark program answers --help (exit 0, a usage text on stdout) and refuses an
# unknown option by name (exit not 0, the option named on stderr), without starting a run.
# Usage: bench_cli_test.sh PROGRAM...
fails=0
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
for p in "$@"; do
  name=$(basename "$p")
  if ! "$p" --help > "$out" 2> "$err"; then
    echo "FAIL $name --help: exit $?"; fails=$((fails + 1))
  elif ! grep -qi usage "$out"; then
    echo "FAIL $name --help: no usage on stdout"; fails=$((fails + 1))
  fi
  if timeout 60 "$p" --no-such-option > "$out" 2> "$err"; then
    echo "FAIL $name --no-such-option: exit 0"; fails=$((fails + 1))
  elif ! grep -q -- '--no-such-option' "$err"; then
    echo "FAIL $name --no-such-option: stderr does not name it:"; head -3 "$err"; fails=$((fails + 1))
  fi
done
[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "$# benchmark programs: --help and unknown options answered"
