#!/usr/bin/env bash
# Live loopback test of the receiver (opt-in benchmark, not part of ctest):
# hmtt_link_sender (a separate process) plays one board's three links over UDP on
# 127.0.0.1 at MBPS per link (Gigabit Ethernet line rate counted: 1538 bytes per
# full frame), receiver_live_bench captures them and reports what was lost.
#
#   bench/receiver/loopback.sh [BUILD_DIR] [MBPS_PER_LINK] [SECONDS] [--store FILE]
# Examples:
#   bench/receiver/loopback.sh build 1000 60            # the test: 3 x 1 Gb/s for 60 s
#   bench/receiver/loopback.sh build sweep 10           # highest loss-free rate, 10 s per step
set -euo pipefail
build=${1:-build}
rate=${2:-1000}
secs=${3:-60}
shift $(( $# < 3 ? $# : 3 ))
extra=("$@")
sender=$build/bench/receiver/hmtt_link_sender
recv=$build/bench/receiver/receiver_live_bench
port=${HMTT_LOOPBACK_PORT:-7400}
ports="$port-$((port + 2))"

one_run() {  # rate seconds -> prints the receiver's JSON line, then the sender's
  local r=$1 s=$2 out
  out=$(mktemp)
  "$recv" --udp "$ports" --duration $((s + 120)) --idle-stop 2 "${extra[@]}" >"$out" &
  local rpid=$!
  sleep 1
  "$sender" --udp 127.0.0.1 --base-port "$port" --links 3 --mbps "$r" --duration "$s" --pool-refs 3000000 \
    > "$out.sender"
  wait $rpid
  cat "$out" "$out.sender"
  rm -f "$out" "$out.sender"
}

lossless() {  # json -> 0 if no frame was lost
  python3 -c 'import json,sys; r=json.loads(sys.stdin.readline()); s=json.loads(sys.stdin.readline());
ok = r["gap_frames"]==0 and r["kernel_drops"]==0 and r["frames"]==s["frames"] and r["too_late_references"]==0
print("lossless" if ok else "LOSS: received %d of %d frames, gap %d, kernel drops %d" % (r["frames"], s["frames"], r["gap_frames"], r["kernel_drops"]))
sys.exit(0 if ok else 1)'
}

if [ "$rate" = sweep ]; then
  best=0
  for r in 1000 1500 2000 2500 3000 4000 5000 6000 8000; do
    res=$(one_run "$r" "$secs")
    echo "$res"
    if echo "$res" | lossless; then best=$r; else break; fi
  done
  echo "highest loss-free rate: $best Mb/s per link x 3 links = $((best * 3)) Mb/s aggregate (${secs} s steps)"
else
  res=$(one_run "$rate" "$secs")
  echo "$res"
  echo "$res" | lossless
fi
