#!/usr/bin/env bash
# End-to-end checks of `hmtt profile --method chameleon` and `hmtt synth` on a
# Chameleon profile: output shapes, exit codes, errors naming the field.
# Usage: cli_test.sh path/to/hmtt
set -u
HMTT=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
. "$(dirname "$0")/../cli_lib.sh"

expect list "^chameleon +Chameleon memory signature" -- "$HMTT" profile --list
expect profile "sampled_references +20000" -- "$HMTT" profile demo:20000 --method chameleon -o "$dir/p.json"
expect profile-json "\"method\": \"chameleon\"" -- "$HMTT" profile demo:20000 --method chameleon -o "$dir/p.json" --overwrite --json
expect file "\"format\": \"hmtt-profile\"" -- cat "$dir/p.json"
expect synth "synthesised 20000 references from .*\(chameleon\)" -- "$HMTT" synth "$dir/p.json" -o "$dir/s.hmtt"
expect synth-length "synthesised 70000 references" -- "$HMTT" synth "$dir/p.json" -o "$dir/l.din" --length 70000
expect_rc synth-compare 0 -- "$HMTT" synth "$dir/p.json" -o "$dir/c.hmtt" --compare demo:20000 --json
# The 512 B rates of a synthetic trace follow the signature: a generous bound passes ...
expect_rc synth-max-error-ok 0 -- "$HMTT" synth "$dir/p.json" -o "$dir/c2.hmtt" --compare demo:20000 --max-error 0.5
# ... errors in the profile name the field and fail with a non-zero exit.
sed 's/"sampled_references": 20000/"sampled_references": "x"/' "$dir/p.json" > "$dir/bad.json"
expect bad-field "sampled_references: not an unsigned integer" -- "$HMTT" synth "$dir/bad.json" -o "$dir/b.hmtt"
expect_rc bad-field-rc 1 -- "$HMTT" synth "$dir/bad.json" -o "$dir/b2.hmtt"
expect bad-param "'sub_bins'" -- "$HMTT" profile demo:100 --method chameleon --param sub_bins=3 -o "$dir/x.json"
printf 'region 1 a 0 10\nregion two b 10 20\n' > "$dir/bad.map"
expect bad-map "bad.map:2" -- "$HMTT" profile demo:100 --method chameleon --param "regions=$dir/bad.map" -o "$dir/y.json"
printf 'region 1 a 0 10\nregion 4294967295 b 10 20\n' > "$dir/reserved.map"
expect reserved-map "reserved.map:2: region id 4294967295 is reserved for references outside every region" -- "$HMTT" profile demo:100 --method chameleon --param "regions=$dir/reserved.map" -o "$dir/z.json"
expect_rc reserved-map-rc 1 -- "$HMTT" profile demo:100 --method chameleon --param "regions=$dir/reserved.map" -o "$dir/z2.json"
printf 'region 1 first 0 50000\nregion 2 second 50000 100000000\n' > "$dir/ok.map"
expect regions "regions +3" -- "$HMTT" profile demo:20000 --method chameleon --param "regions=$dir/ok.map" -o "$dir/r.json"
expect regions-synth "synthesised 20000 references" -- "$HMTT" synth "$dir/r.json" -o "$dir/r.hmtt"
# The layout knob (off by default): written, read back, synthesised.
expect layout "references +20000" -- "$HMTT" profile demo:20000 --method chameleon --param layout=16M -o "$dir/lay.json"
expect layout-file "\"layout_bytes\": 16777216" -- cat "$dir/lay.json"
expect layout-synth "synthesised 20000 references" -- "$HMTT" synth "$dir/lay.json" -o "$dir/lay.hmtt"
expect bad-layout "'layout'" -- "$HMTT" profile demo:100 --method chameleon --param layout=100 -o "$dir/z.json"

if [ "$fails" -ne 0 ]; then
  echo "$fails check(s) failed"
  exit 1
fi
echo "all chameleon CLI checks passed"
