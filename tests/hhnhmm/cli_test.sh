#!/usr/bin/env bash
# End-to-end checks of `hmtt profile --method hhnhmm` and `hmtt synth` on an
# HHnHMM profile: output shapes, exit codes, errors naming the knob or field.
# Usage: cli_test.sh path/to/hmtt
set -u
HMTT=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
. "$(dirname "$0")/../cli_lib.sh"

expect list "^hhnhmm +HHnHMM" -- "$HMTT" profile --list
expect list-knob "--param jump_mode=absolute" -- "$HMTT" profile --list
expect profile "classification_rate +[01]\.[0-9]+" -- "$HMTT" profile demo:40000 --method hhnhmm -o "$dir/p.json"
expect profile-json "\"frame_length\": [0-9]+" -- "$HMTT" profile demo:40000 --method hhnhmm -o "$dir/p.json" --overwrite --json
expect profile-file "\"method\": \"hhnhmm\"" -- cat "$dir/p.json"
expect synth "compare: A 40000 references, B 40000 references" -- "$HMTT" synth "$dir/p.json" -o "$dir/s.hmtt" --compare demo:40000
expect synth-length "1234" -- "$HMTT" synth "$dir/p.json" -o "$dir/s.csv" --length 1234 --json
expect_rc bad-knob 1 -- "$HMTT" profile demo:1000 --method hhnhmm -o "$dir/q.json" --param kinds=both
expect bad-knob-msg "kinds" -- "$HMTT" profile demo:1000 --method hhnhmm -o "$dir/q.json" --param kinds=both
expect unknown-knob "unknown for this method" -- "$HMTT" profile demo:1000 --method hhnhmm -o "$dir/q.json" --param colour=red
sed 's/"jump_step"/"jump_stride"/' "$dir/p.json" >"$dir/bad.json"
expect bad-profile "jump_step: missing" -- "$HMTT" synth "$dir/bad.json" -o "$dir/b.hmtt"
expect_rc bad-profile-rc 1 -- "$HMTT" synth "$dir/bad.json" -o "$dir/b2.hmtt"
[ -e "$dir/b.hmtt" ] && { echo "FAIL bad-profile: wrote an output"; fails=$((fails + 1)); }

if [ "$fails" -ne 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "hhnhmm cli: all checks passed"
