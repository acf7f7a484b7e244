# Shared by the verbs' end-to-end scripts (tests/*/cli_test.sh): sourced after
# `fails=0`. Each check prints FAIL and counts it; the script ends with
# `exit $((fails > 0))` or similar.

expect() {  # expect NAME PATTERN -- command...   (the output must match PATTERN)
  local name=$1 pattern=$2
  shift 3
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL $name: output does not match /$pattern/ (exit $rc):"
    echo "$out" | head -20
    fails=$((fails + 1))
  fi
  return $rc
}

expect_rc() {  # expect_rc NAME RC -- command...   (the command must exit with RC)
  local name=$1 want=$2
  shift 3
  "$@" >/dev/null 2>&1
  local rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL $name: exit $rc, expected $want"
    fails=$((fails + 1))
  fi
}
