#!/usr/bin/env bash
# `hmtt logs --store` end to end: a kernel log into a capture made by `hmtt sim` +
# `hmtt capture`, the tables readable by `hmtt info`, and the refusals (a second
# log into the same store, an empty log, a file that is not a store).
# Usage: logs_store_cli.sh path/to/hmtt SOURCE_DIR
set -u
HMTT=$1
src=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
. "$src/tests/cli_lib.sh"
log=$src/tests/fuzz/corpus/kernel_log/page_map.bin

"$HMTT" sim -n 2000 --workload seq-read -o "$dir/s" >/dev/null || { echo "FAIL sim"; exit 1; }
"$HMTT" capture --pcap "$dir"/s-b0-l0.pcap -o "$dir/c.hmtt" >/dev/null || { echo "FAIL capture"; exit 1; }
expect add '"store": \{"rows": 19, "aligned": 0, "processes": 1\}' -- "$HMTT" logs "$log" --store "$dir/c.hmtt" --json
expect info 'page map +19 entries' -- "$HMTT" info "$dir/c.hmtt"
expect twice 'already holds a kernel log' -- "$HMTT" logs "$log" --store "$dir/c.hmtt"
expect_rc twice-rc 1 -- "$HMTT" logs "$log" --store "$dir/c.hmtt"
expect info-again 'page map +19 entries' -- "$HMTT" info "$dir/c.hmtt"
: >"$dir/empty.hlog"
expect empty 'holds no records' -- "$HMTT" logs "$dir/empty.hlog" --store "$dir/c.hmtt"
echo "not a store" >"$dir/x.hmtt"
expect foreign 'x.hmtt' -- "$HMTT" logs "$log" --store "$dir/x.hmtt"
expect_rc foreign-rc 1 -- "$HMTT" logs "$log" --store "$dir/x.hmtt"
[ "$fails" = 0 ] && echo "logs_store_cli: PASS" || echo "logs_store_cli: $fails FAILED"
exit $((fails > 0))
