#!/usr/bin/env bash
# Measures PSnAP against the IRM baseline on real-program traces, one table
# row per trace (docs/accuracy.md, ## psnap).
# Usage: scripts/psnap_accuracy.sh HMTT TRACE.hmtt... [-- --param key=value ...]
# Each TRACE is an hmtt store (made by `hmtt import X.lackey -o X.hmtt`); its
# size is the compressed size the profile is measured against.
# SEED=N (environment) passes --seed N to hmtt synth (default 1), to see how
# much of a difference is the replay's randomness.
set -euo pipefail
. "$(dirname "$0")/trace_args.sh"
parse_trace_args "$@"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "| trace | references | store bytes | profile bytes | profile/store | loops | regions | CM | L1 | L2 | L3 | LRU sweep | locality distance | IRM L1 / L2 / L3 | IRM locality distance |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for t in "${traces[@]}"; do
  name=$(basename "$t" .hmtt)
  "$H" profile "$t" --method psnap -o "$work/p.json" --overwrite --json "${extra[@]}" > "$work/p.sum"
  "$H" synth "$work/p.json" -o "$work/p.hmtt" --overwrite --seed "${SEED:-1}" --compare "$t" --json > "$work/p.cmp"
  "$H" profile "$t" --method irm -o "$work/i.json" --overwrite --json > /dev/null
  "$H" synth "$work/i.json" -o "$work/i.hmtt" --overwrite --seed "${SEED:-1}" --compare "$t" --json > "$work/i.cmp"
  python3 - "$name" "$t" "$work" <<'PY'
import json, os, sys
name, trace, work = sys.argv[1:4]
p = json.load(open(f"{work}/p.cmp"))["compare"]
i = json.load(open(f"{work}/i.cmp"))["compare"]
s = json.load(open(f"{work}/p.sum"))
def find(d, k):
    if isinstance(d, dict):
        if k in d: return d[k]
        for v in d.values():
            r = find(v, k)
            if r is not None: return r
    return None
store = os.path.getsize(trace)
prof = os.path.getsize(f"{work}/p.json")
lv = lambda c, l: c["hierarchy_error_per_level"].get(l, {}).get("mean_abs", 0) * 100
print(f"| {name} | {p['references']['a']:,} | {store:,} | {prof:,} | {100*prof/store:.1f} % | {find(s,'loops')} | {find(s,'regions')} "
      f"| {find(s,'complexity'):.0f} | {lv(p,'L1'):.2f} % | {lv(p,'L2'):.2f} % | {lv(p,'L3'):.2f} % | {100*p['lru_error']['mean_abs']:.2f} % "
      f"| {p['locality_surface_distance']:.3f} | {lv(i,'L1'):.1f} / {lv(i,'L2'):.1f} / {lv(i,'L3'):.1f} % | {i['locality_surface_distance']:.3f} |")
PY
done
