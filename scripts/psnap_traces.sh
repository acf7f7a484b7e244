#!/usr/bin/env bash
# Records the real-program traces of docs/accuracy.md (## psnap, "How the traces were
# made" and "Long traces") with Valgrind lackey and imports them into hmtt stores.
# Usage: scripts/psnap_traces.sh HMTT DIR [short|long|all] [NAME...]
#   short: gzs gzip gzgpl gzw md5sum sed awk xz bzip2 (0.7-18 M references each)
#   long:  gz128k gz512k gz1m bzip2l xz1m sed1m xzl (25-205 M references each; the
#          accuracy tables call bzip2l and xzl "bzip2" and "xz")
# NAME...: only these traces of the set. Writes DIR/NAME.hmtt; a finished store already
# there is kept (delete it to record again), an unfinished one is recorded again.
# Needs valgrind, gzip, bzip2, xz-utils, sed, gawk or mawk and coreutils (apt install valgrind).
# The inputs are deterministic: in.txt is the first 30,000 bytes of the PSnAP paper's
# text (../shared/papers), small.txt and words.txt are generated here, and corpus.txt
# is every /usr/share/doc/*/copyright of the machine in LC_ALL=C path order (its
# sha256 is printed: it differs between Debian images).
set -euo pipefail
if [ $# -lt 2 ] || [ "$1" = "--help" ] || [ "$1" = "-h" ]; then
  awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
  [ $# -ge 1 ] && [ "$1" != "--help" ] && [ "$1" != "-h" ] && exit 2
  exit 0
fi
H=$(realpath "$1")
D=$2
set_name=${3:-all}
shift $(($# < 3 ? $# : 3))
only=("$@")
case $set_name in
  short | long | all) ;;
  *) echo "psnap_traces.sh: '$set_name' is not short, long or all" >&2; exit 2 ;;
esac
short_names="gzs gzip gzgpl gzw md5sum sed awk xz bzip2"
long_names="gz128k gz512k gz1m bzip2l xzl xz1m sed1m"
case $set_name in
  short) known=$short_names ;;
  long) known=$long_names ;;
  *) known="$short_names $long_names" ;;
esac
for n in "${only[@]}"; do
  case " $known " in
    *" $n "*) ;;
    *) echo "psnap_traces.sh: no trace '$n' in the $set_name set ($known)" >&2; exit 2 ;;
  esac
done
here=$(cd "$(dirname "$0")/.." && pwd)
paper=$here/../shared/papers/psnap-synthetic-address-streams.txt
mkdir -p "$D"
cd "$D"
for tool in valgrind; do
  command -v "$tool" > /dev/null || { echo "psnap_traces.sh: $tool is missing (apt install $tool)" >&2; exit 1; }
done

wanted() {  # wanted NAME: in the chosen set and (if names were given) named
  [ ${#only[@]} -eq 0 ] && return 0
  local n
  for n in "${only[@]}"; do [ "$n" = "$1" ] && return 0; done
  return 1
}

# finished STORE: the store's writer reached finish() (an interrupted import leaves one that is not).
finished() {
  "$H" info "$1" --json 2> /dev/null | python3 -c 'import json, sys; sys.exit(0 if json.load(sys.stdin).get("finished") else 1)'
}

# record NAME COMMAND...: lackey through a FIFO into NAME.hmtt (the raw text of a long trace is
# tens of GB; it never lands on disk).
record() {
  local name=$1
  shift
  wanted "$name" || return 0
  if [ -s "$name.hmtt" ]; then
    if finished "$name.hmtt"; then
      echo "$name: $name.hmtt is there, kept"
      return 0
    fi
    echo "$name: $name.hmtt is unfinished (an interrupted recording): recording it again" >&2
  fi
  echo "$name: $*" >&2
  local t0=$SECONDS
  rm -f "$name.fifo"
  mkfifo "$name.fifo"
  valgrind --tool=lackey --trace-mem=yes "$@" 2> "$name.fifo" > /dev/null &
  local vg=$!
  if ! "$H" import "$name.fifo" --format lackey -o "$name.hmtt" --overwrite > "$name.import" 2>&1; then
    kill "$vg" 2> /dev/null || true
    wait "$vg" 2> /dev/null || true
    rm -f "$name.fifo" "$name.hmtt"
    echo "psnap_traces.sh: $name: import failed:" >&2
    cat "$name.import" >&2
    exit 1
  fi
  wait "$vg"
  rm -f "$name.fifo"
  echo "$name: $("$H" info "$name.hmtt" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["references"], "references")') in $((SECONDS - t0)) s"
}

make_short_inputs() {
  [ -f "$paper" ] || { echo "psnap_traces.sh: $paper is missing" >&2; exit 1; }
  head -c 30000 "$paper" > in.txt
  python3 - <<'PY'
with open("small.txt", "w") as f:
    for i in range(400):
        f.write(f"line {i} of a small deterministic input, {(i * 7919) % 1000}\n")
words = "trace memory region stride loop pattern cache profile synthetic address stream hit rate the a".split()
x, out = 42, []
for _ in range(4500):
    x = (6364136223846793005 * x + 1442695040888963407) % (1 << 64)
    out.append(words[(x >> 33) % 15])
    out.append("\n" if (x >> 20) % 9 == 0 else " ")
with open("words.txt", "w") as f:
    f.write("".join(out))
PY
}

any_wanted() {  # any_wanted NAME...: one of them is wanted
  local n
  for n in "$@"; do wanted "$n" && return 0; done
  return 1
}

if { [ "$set_name" = short ] || [ "$set_name" = all ]; } && any_wanted $short_names; then
  make_short_inputs
  record gzs gzip -c small.txt
  record gzip gzip -c in.txt
  record gzgpl gzip -c /usr/share/common-licenses/GPL-3
  record gzw gzip -c words.txt
  record md5sum md5sum in.txt
  record sed sed -e 's/the/THE/g' -e 's/[0-9]\+/N/g' in.txt
  record awk awk '{ for (i = 1; i <= NF; i++) c[$i]++ } END { for (w in c) n++; print n }' in.txt
  record xz xz -c -1 in.txt
  record bzip2 bzip2 -c in.txt
fi
if { [ "$set_name" = long ] || [ "$set_name" = all ]; } && any_wanted $long_names; then
  if [ ! -s corpus.txt ]; then
    find /usr/share/doc -name copyright -type f | LC_ALL=C sort | xargs cat > corpus.txt
  fi
  echo "corpus.txt: $(stat -c %s corpus.txt) bytes, sha256 $(sha256sum corpus.txt | cut -c1-16)..."
  for n in 131072 262144 524288 1048576; do head -c "$n" corpus.txt > "c$n.txt"; done
  record gz128k gzip -c c131072.txt
  record gz512k gzip -c c524288.txt
  record gz1m gzip -c c1048576.txt
  record bzip2l bzip2 -c c262144.txt
  record xzl xz -c -1 c262144.txt
  record xz1m xz -c -1 c1048576.txt
  record sed1m sed -e 's/the/THE/g' -e 's/[0-9]\+/N/g' c1048576.txt
fi
