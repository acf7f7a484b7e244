#!/usr/bin/env bash
# Real Chameleon signatures written by `hmtt profile --method chameleon` against
# docs/chameleon-signature.schema.json: every profile made here must validate,
# and mutated copies must be rejected (by the schema, and by `hmtt synth` where
# the reader checks the same thing), so that the schema and the writer cannot
# drift apart unnoticed.
# Usage: schema_test.sh path/to/hmtt
set -u
HMTT=$1
SCHEMA="$(cd "$(dirname "$0")/../.." && pwd)/docs/chameleon-signature.schema.json"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
. "$(dirname "$0")/../schema_lib.sh"
require_jsonschema

# ---- real signatures: each must validate --------------------------------------------------------
# The default knobs (line histograms on, no layout) on the built-in demo workload.
profile default -- demo:20000 --method chameleon
has default /signature/line_reuse /signature/cdf/hit /signature/alpha /params/line /fill_bytes /signature/block_fill/0 /synthesis/fill_candidates
# The layout knob on.
profile layout -- demo:20000 --method chameleon --param layout=16M
has layout /layout_bytes /signature/layout/streams /signature/layout/exact/0 /signature/layout/bins
# A made-up lackey trace (instruction fetches, modifies) with other shapes: no line histograms or
# block fill counts, no age split, the visits clock, 8 slices per octave, interval sampling.
lackey_trace "$dir/t.lackey" 40000
profile lackey -- "$dir/t.lackey" --method chameleon \
  --param line=0 --param fill_bytes=0 --param age_bins=1 --param age_clock=visits --param sub_bins=8 \
  --param sample_on=10000 --param sample_off=5000
# Regions from a region map, with the layout on: every region signature has its own layout.
printf 'region 1 first 0 15000\nregion 2 second 15000 30000\nregion 1 first 30000 35000\n' > "$dir/t.map"
profile map -- "$dir/t.lackey" --method chameleon --param "regions=$dir/t.map" --param layout=1M --param block=256
has map /regions/0/intervals /regions/2/signature/layout/streams /regions/1/signature/line_reuse
# Regions from the I-Code events of a store: `hmtt sim` puts a user event (HMTT_EVENT(k),
# k = 0, 1, ...) every 2000 requests into the capture.
sim_store run
profile icode -- "$dir/run.hmtt" --method chameleon --param "regions=$dir/run.hmtt"
has icode /regions/0/intervals /regions/3/signature/kinds /regions/0/weight

# ---- mutated signatures: the schema must reject each ---------------------------------------------
# mutant NAME BASE OP POINTER VALUE LOADER (tests/schema_lib.sh); LOADER '-': hmtt synth does not
# check it (unknown fields and the derived cdf / alpha are ignored when read).
zeros162="[$(printf '0,%.0s' $(seq 161))0]"
# wrong types
mutant str-count       default set /sampled_references '"x"'        'sampled_references: not an unsigned integer'
mutant float-integer   default set /block_bytes 512.0               'block_bytes: not an unsigned integer'
mutant negative        default set /signature/cold -1               'signature\.cold: not an unsigned integer'
mutant str-kind        default set /signature/kinds/read '"7"'      'signature\.kinds\.read: not an unsigned integer'
mutant region-float    icode   set /regions/1/signature/kinds/write 1.5 'regions\[1\]\.signature\.kinds\.write: not an unsigned integer'
mutant str-age-clock   default set /age_clock '"ticks"'             'age_clock: must be "references" or "visits"'
mutant alpha-range     default set /signature/alpha/0/0 1.5         -
# missing required fields
mutant no-kind         default delete /signature/kinds/modify ''    'signature\.kinds\.modify: missing'
mutant no-tolerance    default delete /synthesis/tolerance ''       'synthesis\.tolerance: missing'
mutant no-line-reuse   default delete /signature/line_reuse ''      'signature\.line_reuse: missing'
mutant no-layout       layout  delete /signature/layout ''          'signature\.layout: missing'
mutant no-region-name  icode   delete /regions/0/name ''            'regions\[0\]\.name: missing or not a string'
mutant no-region-layout map    delete /regions/1/signature/layout '' 'regions\[1\]\.signature\.layout: missing'
# unknown fields (hmtt synth ignores them: the schema is what catches a misspelt field)
mutant extra-top       default add /refrences 20000                 -
mutant extra-signature default add /signature/alpha_maybe '[]'      -
mutant extra-layout    layout  add /signature/layout/jumps '[]'     -
mutant extra-region    icode   add /regions/0/colour '"red"'        -
mutant extra-param     default add /params/blocks '"512"'           -
mutant stray-line-reuse lackey add /signature/line_reuse '[]'       -
mutant stray-layout    default add /signature/layout '{"streams": [0,0,0,0,0,0,0,0], "exact": [], "bins": []}' -
# wrong array lengths
mutant cdf-16          default pop /signature/cdf/hit ''            -
mutant streams-9       layout  append /signature/layout/streams 0   'signature\.layout\.streams: has 9 entries, expected 8'
mutant exact-triple    layout  append /signature/layout/exact/0 1   'signature\.layout\.exact\[0\]: has 3 entries, expected 2'
mutant alpha-rows-19   default append /signature/alpha_yes '[0,0]'  'signature\.alpha_yes: has 19 rows, expected 18'
mutant reuse-162       default set /signature/reuse "$zeros162"     'signature\.reuse: has 162 entries, expected 161'
mutant line-rows-71    default pop /signature/line_reuse ''         'signature\.line_reuse: has 71 rows, expected 72'
mutant levels-13       default set /signature/first_left '[0,0,0,0,0,0,0,0,0,0,0,0,0]' 'signature\.first_left: has 13 entries, expected 7'
# values out of range
mutant iterations-101  default set /synthesis/max_iterations 101    'synthesis\.max_iterations: must be in 1 \.\. 100'
mutant seed-max-0      default set /synthesis/seed_max 0            'synthesis\.seed_max: must be in 1 \.\. 2\^31'
mutant sub-bins-3      default set /sub_bins 3                      'sub_bins: must be a power of two <= 64'
mutant age-bins-17     default set /age_bins 17                     'age_bins: must be in 1 \.\. 16'
mutant layout-1000     layout  set /layout_bytes 1000               'layout_bytes: must be 0 or a power of two'
mutant fill-bytes-96   default set /fill_bytes 96                   'fill_bytes: must be 0 or a power of two'
mutant fill-cand-65    default set /synthesis/fill_candidates 65    'synthesis\.fill_candidates: must be in 1 \.\. 64'
mutant fill-rows-17    default pop /signature/block_fill ''         'signature\.block_fill: has 17 rows, expected 18'
mutant stray-fill      lackey  add /signature/block_fill '[[],[],[],[],[],[],[],[],[],[],[],[],[],[],[],[],[],[]]' 'signature\.block_fill: present, but the profile has no fill_bytes'
mutant exact-far       layout  set /signature/layout/exact/0/0 549755813888 'signature\.layout\.exact\[0\]: distance 549755813888 is not below'
mutant weight-negative icode   set /regions/0/weight -0.5           'regions\[0\]\.weight: must be a finite number >= 0'
mutant format          default set /format '"hmtt-trace"'           'not a profile of any method'
mutant version-2       default set /version 2                       'profile: version: 2 is not a version this hmtt reads \(1\)'
mutant no-version      default delete /version ''                   'profile: version: missing'
mutant region-id-2-32  icode   set /regions/0/id 4294967296         'regions\[0\]\.id: 4294967296 is above 4294967295'

if [ "$fails" -ne 0 ]; then
  echo "$fails check(s) failed"
  exit 1
fi
echo "all chameleon schema checks passed (5 real signatures valid, every mutant rejected)"
