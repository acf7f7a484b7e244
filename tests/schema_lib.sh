# Shared by the profile-schema tests (tests/chameleon/schema_test.sh,
# tests/psnap/schema_test.sh): sourced after `fails=0`, `HMTT`, `SCHEMA` and
# `dir` are set. Each check prints FAIL and counts it in `fails`.
#
# The validator runs under Debian's /usr/bin/python3 (python3-jsonschema), not
# the python3 on PATH, which may be a pyenv shim without the module.

PYTHON=/usr/bin/python3
VALIDATOR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/validate_json_schema.py"

# require_jsonschema: the tier needs python3-jsonschema; without it the test fails
# (a skipped schema test would look like a passing one).
require_jsonschema() {
  if ! "$PYTHON" -c 'import jsonschema' 2>/dev/null; then
    echo "FAIL: $PYTHON cannot import jsonschema: install python3-jsonschema (apt-get install -y python3-jsonschema, or scripts/deps.sh all)"
    exit 1
  fi
}

# profile NAME -- hmtt profile ARGS...: runs `hmtt profile ARGS -o $dir/NAME.json`;
# the profile must be written and be valid against $SCHEMA.
profile() {
  local name=$1
  shift 2
  local out
  if ! out=$("$HMTT" profile "$@" -o "$dir/$name.json" 2>&1); then
    echo "FAIL $name: hmtt profile $* failed:"
    echo "$out" | head -20
    fails=$((fails + 1))
    return 1
  fi
  if ! "$PYTHON" "$VALIDATOR" check "$SCHEMA" "$dir/$name.json"; then
    fails=$((fails + 1))
    return 1
  fi
}

# has NAME POINTER...: the profile $dir/NAME.json holds every POINTER (so that the
# valid case really covers that part of the format).
has() {
  local name=$1
  shift
  local p
  for p in "$@"; do
    if ! "$PYTHON" "$VALIDATOR" mutate "$dir/$name.json" /dev/null set "$p" 0 2>/dev/null; then
      echo "FAIL $name: $dir/$name.json has no $p"
      fails=$((fails + 1))
    fi
  done
}

# mutant NAME BASE OP POINTER VALUE LOADER: a copy of $dir/BASE.json with one
# change (validate_json_schema.py mutate OP POINTER VALUE) must be rejected by
# the schema. LOADER is what `hmtt synth` must say about it (a regex, checked
# with exit code 1), or '-' where hmtt synth accepts or ignores it and only the
# schema catches it (an unknown field, a derived field of the wrong shape).
mutant() {
  local name=$1 base=$2 op=$3 ptr=$4 value=$5 loader=$6
  local file="$dir/mut-$name.json" out rc
  if ! "$PYTHON" "$VALIDATOR" mutate "$dir/$base.json" "$file" "$op" "$ptr" ${value:+"$value"}; then
    echo "FAIL mutant $name: cannot apply $op $ptr to $base.json"
    fails=$((fails + 1))
    return
  fi
  if ! out=$("$PYTHON" "$VALIDATOR" reject "$SCHEMA" "$file"); then
    echo "FAIL mutant $name ($op $ptr $value on $base.json): $out"
    fails=$((fails + 1))
  else
    echo "$out"
  fi
  [ "$loader" = - ] && return
  out=$("$HMTT" synth "$file" -o "$dir/mut.hmtt" --length 100 --overwrite 2>&1)
  rc=$?
  if [ "$rc" != 1 ] || ! grep -qE -- "$loader" <<<"$out"; then
    echo "FAIL mutant $name: hmtt synth should reject it with /$loader/ (exit 1), got exit $rc:"
    echo "$out" | head -5
    fails=$((fails + 1))
  fi
}

# lackey_trace FILE N: a Valgrind lackey trace of about N references, made up
# (no valgrind needed): two code phases with instruction fetches, a
# sequential walk of 8-byte loads, a 64-byte-stride store walk, read-modify-
# writes, and pseudo-random loads over 1 MB (Park-Miller, so the same on
# every awk).
lackey_trace() {
  awk -v n="$2" 'BEGIN {
    x = 1; i = 0
    while (i < n) {
      phase = int(i / (n / 4)) % 2
      pc = (phase ? 134217728 : 67108864) + (i % 48) * 4
      printf "I  %08x,4\n", pc; i++
      printf " L %08x,8\n", 268435456 + (i % 4096) * 8; i++
      if (i % 3 == 0) { printf " S %08x,4\n", 301989888 + ((i / 3) % 512) * 64; i++ }
      if (i % 7 == 0) { printf " M %08x,4\n", 335544320 + (i % 64) * 4; i++ }
      if (i % 5 == 0) { x = (x * 16807) % 2147483647; printf " L %08x,8\n", 402653184 + (x % 131072) * 8; i++ }
    }
  }' > "$1"
}

# sim_store NAME: $dir/NAME.hmtt, a capture of the board on the paper's Appendix A
# sweep (`hmtt sim`, then `hmtt capture`), with a config-space user event
# HMTT_EVENT(k), k = 0, 1, ..., every 2000 requests.
sim_store() {
  local name=$1 out
  if ! out=$("$HMTT" sim --workload appendix-a -n 12000 --events-every 2000 -o "$dir/$name" 2>&1) ||
     ! out=$("$HMTT" capture --pcap "$dir/$name"-b0-l*.pcap -o "$dir/$name.hmtt" 2>&1); then
    echo "FAIL $name: hmtt sim / capture failed:"
    echo "$out" | tail -5
    fails=$((fails + 1))
  fi
}
