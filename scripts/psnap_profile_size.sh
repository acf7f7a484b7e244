#!/usr/bin/env bash
# PSnAP profile size against the trace store, one table row per trace
# (docs/accuracy.md, ## psnap, "Profile size"). For each store: the default
# binary profile (varints in columns + LZMA2), the fields interleaved under
# deflate (the default before stop 26), interleaved and uncompressed and under LZ4 HC (`lz4 -12`, for comparison),
# and the JSON export.
# Usage: scripts/psnap_profile_size.sh HMTT TRACE.hmtt... [-- --param key=value ...]
set -euo pipefail
. "$(dirname "$0")/trace_args.sh"
parse_trace_args "$@"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "| trace | references | store bytes | binary profile bytes | profile/store | deflate instead | body stored | body lz4 -12 | JSON bytes | loops | regions | seconds |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for t in "${traces[@]}"; do
  name=$(basename "$t" .hmtt)
  start=$(date +%s.%N)
  "$H" profile "$t" --method psnap -o "$work/p.psnap" --overwrite --json "${extra[@]}" > "$work/p.sum"
  end=$(date +%s.%N)
  "$H" profile "$t" --method psnap -o "$work/p.deflate" --overwrite --json --param encoding=binary-deflate "${extra[@]}" > /dev/null
  "$H" profile "$t" --method psnap -o "$work/p.stored" --overwrite --json --param encoding=binary-stored "${extra[@]}" > /dev/null
  "$H" profile "$t" --method psnap -o "$work/p.json" --overwrite --json --param encoding=json "${extra[@]}" > /dev/null
  tail -c +21 "$work/p.stored" > "$work/body"
  lz4 -12 -q -f "$work/body" "$work/body.lz4"
  python3 - "$name" "$t" "$work" "$start" "$end" <<'PY'
import json, os, sys
name, trace, work, start, end = sys.argv[1:6]
s = json.load(open(f"{work}/p.sum"))
size = lambda f: os.path.getsize(f"{work}/{f}")
store = os.path.getsize(trace)
b = size("p.psnap")
print(f"| {name} | {s['summary']['references']:,} | {store:,} | {b:,} | {100*b/store:.2f} % | {size('p.deflate'):,} | {size('body'):,} "
      f"| {size('body.lz4'):,} | {size('p.json'):,} | {s['summary']['loops']} | {s['summary']['regions']} "
      f"| {float(end)-float(start):.0f} |")
PY
done
