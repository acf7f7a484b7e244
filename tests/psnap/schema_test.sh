#!/usr/bin/env bash
# Real PSnAP profiles written by `hmtt profile --method psnap --param encoding=json`
# against docs/psnap-profile.schema.json: every profile made here must validate,
# and mutated copies must be rejected (by the schema, and by `hmtt synth` where
# the reader checks the same thing).
# Usage: schema_test.sh path/to/hmtt
set -u
HMTT=$1
SCHEMA="$(cd "$(dirname "$0")/../.." && pwd)/docs/psnap-profile.schema.json"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
. "$(dirname "$0")/../schema_lib.sh"
require_jsonschema

# ---- real profiles: each must validate ----------------------------------------------------------
# The default knobs on the built-in demo workload.
profile default -- demo:20000 --method psnap --param encoding=json
has default /loops/0/regions/0/instances_seen /loops/0/regions/0/strides /loops/0/pattern/0 /order/0 /complexity
# A made-up lackey trace (code regions, modifies): short windows (several loops), a short pattern
# buffer, no merging, the page signature.
lackey_trace "$dir/t.lackey" 40000
profile lackey -- "$dir/t.lackey" --method psnap --param encoding=json \
  --param window=4K --param pattern_buffer=64 --param merge_below=0 --param loop_signature=pages
# A board capture (64-byte bursts of the Appendix A sweep), merging the regions accessed
# fewer than 16 times per window.
sim_store run
profile store -- "$dir/run.hmtt" --method psnap --param encoding=json --param merge_below=16 --param window=2K
# A table of 256 rows of 1 KB read down 128 columns (Dinero din): its +1024 steps are a sweep.
"$PYTHON" -c '
import sys
with open(sys.argv[1], "w") as f:
    for c in range(128):
        for r in range(256): f.write("0 %x\n" % (0x2000000 + 1024 * r + 8 * c))
' "$dir/columns.din"
profile columns -- "$dir/columns.din" --method psnap --param encoding=json
# bzip2's bucket table (tests/psnap/streams.h, bucket_table): two sweeps, +1020 and +1024 in runs.
"$PYTHON" -c '
import sys
at = lambda r, c: 0x3000000 + 1024 * r + 4 * c
with open(sys.argv[1], "w") as f:
    for i in range(8):
        ss = (i * 97) % 255
        for j in range(255): f.write("0 %x\n0 %x\n" % (at(ss, j), at(ss, j + 1)))
        for j in range(256): f.write("0 %x\n0 %x\n" % (at(j, ss), at(j, ss + 1)))
        for j in range(256): f.write("1 %x\n" % at(j, ss))
' "$dir/buckets.din"
profile buckets -- "$dir/buckets.din" --method psnap --param encoding=json
# The parts of the format those cover (so the valid cases really exercise them).
covered() {  # covered DESCRIPTION PYTHON-EXPRESSION-ON-PROFILES: true for at least one profile
  if ! "$PYTHON" - "$dir"/default.json "$dir"/lackey.json "$dir"/store.json "$dir"/columns.json "$dir"/buckets.json <<EOF; then
import json, sys
regions = [r for f in sys.argv[1:] for l in json.load(open(f))["loops"] for r in l["regions"]]
patterns = [e for f in sys.argv[1:] for l in json.load(open(f))["loops"] for e in l["pattern"]]
sys.exit(0 if ($2) else 1)
EOF
    echo "FAIL coverage: no profile has $1"
    fails=$((fails + 1))
  fi
}
covered "a code region"         'any(r.get("code") for r in regions)'
covered "a merged region"       'any(r.get("merged", 0) > 0 for r in regions)'
covered "jump_reuse"            'any("jump_reuse" in r for r in regions)'
covered "moves and move_reuse"  'any("move_reuse" in r for r in regions)'
covered "a random stride"       'any("random" in r["strides"] for r in regions)'
covered "a negative stride bin" 'any(k.startswith("-") for r in regions for k in r["strides"])'
covered "a run in a pattern"    'any(isinstance(e, list) for e in patterns)'
covered "a modify"              'any("modify" in r["kinds"] for r in regions)'
covered "a sweep"               'any("sweeps" in r for r in regions)'
covered "two sweeps"            'any(len(r.get("sweeps", [])) == 2 for r in regions)'
covered "a sweep's long runs"   'any(w[3] > 0 for r in regions for w in r.get("sweeps", []))'
covered "alternations"          'any(w[4] > 0 for r in regions for w in r.get("sweeps", []))'
covered "footprint blocks"      'any("footprint" in r for r in regions)'
covered "open times"            'any(len(e) == 3 for r in regions for e in r.get("footprint", []))'
covered "an activity curve"     'any("activity" in r for r in regions)'
covered "a loop from I-Code events" 'any("code_region" in l for f in sys.argv[1:] for l in json.load(open(f))["loops"])'

# ---- mutated profiles: the schema must reject each -----------------------------------------------
# mutant NAME BASE OP POINTER VALUE LOADER (tests/schema_lib.sh); LOADER '-': hmtt synth does not
# check it (unknown fields are ignored when read).
R=/loops/0/regions/0
zeros18="[$(printf '0,%.0s' $(seq 17))0]"
# wrong types
mutant str-count       default set /references '"x"'            '\.references: expected an unsigned integer'
mutant float-integer   default set /window 65536.0              '\.window: expected an unsigned integer'
mutant negative        default set $R/count -1                  '\.loops\[0\]\.regions\[0\]\.count: expected an unsigned integer'
mutant bool-count      default set $R/working_set true          '\.loops\[0\]\.regions\[0\]\.working_set: expected an unsigned integer'
mutant str-code        default add $R/code '"yes"'              '\.loops\[0\]\.regions\[0\]\.code: expected true or false'
# missing required fields
mutant no-stride-order default delete $R/stride_order ''        '\.loops\[0\]\.regions\[0\]\.stride_order: expected an object'
mutant no-pattern      default delete /loops/0/pattern ''       '\.loops\[0\]\.pattern: missing'
mutant no-order        default delete /order ''                 '\.order: missing'
mutant no-base         store   delete $R/base ''                '\.loops\[0\]\.regions\[0\]\.base: missing'
# unknown fields
mutant extra-top       default add /loop_count2 1               -
mutant extra-loop      default add /loops/0/name '"main"'       -
mutant extra-region    default add $R/colour '"red"'            -
mutant extra-param     default add /params/windows '"1"'        -
mutant unknown-kind    default add $R/kinds/prefetch 1          '\.kinds\.prefetch: unknown kind'
mutant unknown-bin     default add $R/strides/+3 '[1, 3]'       '\.strides\.\+3: unknown stride bin'
mutant unknown-from    default add $R/stride_order/+512 '{}'    '\.stride_order\.\+512: unknown stride bin'
# wrong array lengths
mutant order-triple    default append /order/0 1                '\.order\[0\]: expected \[loop, windows\]'
mutant seen-triple     default append $R/instances_seen 3       'instances_seen: expected \[first, last\]'
mutant size-triple     default append $R/sizes/0 1              '\.sizes\[0\]: expected \[size, count\]'
mutant jump-reuse-18   default set $R/jump_reuse "$zeros18"     'jump_reuse: expected an array of at most 17 counts'
mutant no-regions      default set /loops/0/regions '[]'        '\.loops\[0\]\.regions: a loop needs at least one region'
mutant empty-pattern   default set /loops/0/pattern '[]'        '\.loops\[0\]\.pattern: the pattern buffer is empty'
# values out of range
mutant window-0        default set /window 0                    '\.window: must be at least 1'
mutant loop-refs-0     default set /loops/0/references 0        '\.loops\[0\]\.references: must be at least 1'
mutant size-5000       default set $R/sizes/0/0 5000            'access size above 4096 bytes'
mutant run-0           default set /loops/0/pattern/0 '[0, 0]'  '\.loops\[0\]\.pattern\[0\]\[1\]: a run is at least 1'
mutant stride-300      default set $R/strides '{"+256": [1, 300]}'   'stride 300 is not in bin \+256'
mutant random-stride   default set $R/strides '{"random": [1, 8]}'   '\.loops\[0\]\.regions\[0\]\.strides\.random: expected \[count\]'
mutant format          default set /format '"hmtt-trace"'       'not a profile of any method'
mutant version-2       default set /version 2                   'profile: version: 2 is not a version this hmtt reads \(1\)'
mutant no-version      default delete /version ''               'profile: version: missing'
mutant sweep-stride    columns set $R/sweeps/0/1 100            '\.sweeps\[0\]\[1\]: stride 100 is not a random one'
mutant sweep-count-0   columns set $R/sweeps/0/0 0              '\.sweeps\[0\]\[0\]: not 1 \.\. the random'
mutant sweep-single    columns set $R/sweeps/0 '[5]'            '\.sweeps\[0\]: expected \[count, stride, runs, long runs, alternations\]'
mutant sweep-2-63      columns set $R/sweeps/0/1 9223372036854775808  '\.sweeps\[0\]\[1\]: stride 9223372036854775808 is beyond'
mutant sweep-runs-0    columns set $R/sweeps/0/2 0              '\.sweeps\[0\]\[2\]: not 1 \.\. the sweep'
mutant sweeps-3        columns set $R/sweeps '[[1, 1024, 1, 0, 0], [1, 2048, 1, 0, 0], [1, 4096, 1, 0, 0]]'  '\.sweeps: expected 1 \.\. 2 sweeps'
mutant sweeps-empty    columns set $R/sweeps '[]'               '\.sweeps: expected 1 \.\. 2 sweeps'
mutant sweep-and-sweeps columns add $R/sweep '[1, 1024]'        '\.sweep: given with sweeps'
# loops from code regions (the board capture's I-Code events 0 .. 4 are its loops 4 .. 8); a
# code region given twice is beyond JSON Schema, format_test.cpp checks the reader refuses it
mutant code-region-top  store set /loops/4/code_region 4294967295 '\.loops\[4\]\.code_region: 4294967295 is above 4294967294'
mutant code-region-str  store set /loops/4/code_region '"main"'   '\.loops\[4\]\.code_region: expected an unsigned integer'
# a merged region's footprint blocks (the demo's pointer chase is region 16 of loop 0)
M=/loops/0/regions/16
has default $M/footprint/0
mutant footprint-lines-0 default set $M/footprint/0/1 0          'footprint\[0\]\[1\]: expected 1 \.\. '
mutant footprint-offset  default set $M/footprint/0/0 64         'footprint\[0\]\[0\]: not a 64 KiB block'
mutant footprint-four    default append $M/footprint/0 1         'footprint\[0\]: expected \[block address, lines\(, open\)\]'
mutant footprint-open    default set $M/footprint/0/2 65537      'footprint\[0\]\[2\]: expected 0 \.\. 65536'
mutant footprint-empty   default set $M/footprint '[]'           'footprint: expected \[\[block address, lines\]'
# an activity curve: the first region that has one in the board capture's profile
A=$("$PYTHON" -c '
import json, sys
p = json.load(open(sys.argv[1]))
print(next(("/loops/%d/regions/%d" % (i, j) for i, l in enumerate(p["loops"]) for j, r in enumerate(l["regions"]) if "activity" in r), "/none"))
' "$dir/store.json")
has store $A/activity/0
mutant activity-short   store delete $A/activity/0 ''            'activity: expected 8 shares of the lifetime'
mutant activity-late    store set $A/activity/7 65537            'activity\[7\]: past the lifetime.s end'
mutant activity-float   store set $A/activity/0 0.5              'activity\[0\]: expected an unsigned integer'

if [ "$fails" -ne 0 ]; then
  echo "$fails check(s) failed"
  exit 1
fi
echo "all psnap schema checks passed (5 real profiles valid, every mutant rejected)"
