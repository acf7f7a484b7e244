#!/usr/bin/env bash
# Long, coverage-guided fuzzing with clang's libFuzzer (opt-in; the `fuzz` tier
# of `make test` only replays the committed corpora plus bounded mutations).
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET_REGEX]
# New interesting inputs land in build-fuzz/corpus/<target>/; crashes in
# build-fuzz/crashes/. Copy a crash into the target's committed corpus after fixing it.
set -euo pipefail
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  cat <<'EOF'
Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET_REGEX]

Builds the fuzz targets with clang and libFuzzer in build-fuzz/ and runs each target whose
ctest name matches TARGET_REGEX (default: all) for SECONDS_PER_TARGET seconds (default 60).

  build-fuzz/corpus/<target>/   the inputs libFuzzer found interesting (seeded from the
                                committed corpora)
  build-fuzz/crashes/           crash, leak and timeout inputs, prefixed with the target name

Environment: FUZZ_TIMEOUT (default 10) is libFuzzer's -timeout, the wall-clock seconds one
input may take before it is reported as a hang. Pausing a fuzzer (SIGSTOP, a suspended
terminal) for longer makes the input it was running look like a hang: raise FUZZ_TIMEOUT, or
replay the artifact (build-fuzz/.../fuzz_X ARTIFACT) before believing it.
Exit status: 0 when no target failed, 1 otherwise (the failed targets are listed).
EOF
  exit 0
fi
secs=${1:-60}
filter=${2:-.}
timeout=${FUZZ_TIMEOUT:-10}
[[ $secs =~ ^[0-9]+$ && $timeout =~ ^[0-9]+$ ]] || { echo "fuzz.sh: SECONDS_PER_TARGET and FUZZ_TIMEOUT must be whole seconds (see --help)" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
bdir=$root/build-fuzz
"$root/scripts/deps.sh" core
CC=clang CXX=clang++ cmake -S "$root" -B "$bdir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DHMTT_LIBFUZZER=ON -DHMTT_WERROR=OFF >/dev/null
mkdir -p "$bdir/crashes"
# Only the fuzz targets that TARGET_REGEX selects (and what they link): the rest of the tree (the
# Verilated RTL models among it) is the normal build's business, and clang need not compile it.
# A fuzz test is named after its target (hmtt_fuzzer in cmake/hmtt.cmake). ctest leaves a test's
# command out of its JSON until the executable exists, so the names come first, the commands
# after the build.
ctest --test-dir "$bdir" --show-only=json-v1 -L fuzz > "$bdir/fuzz-tests.json"
targets=$(python3 -c 'import json, re, sys
print(" ".join(sorted({t["name"] for t in json.load(open(sys.argv[1]))["tests"] if re.search(sys.argv[2], t["name"])})))' \
  "$bdir/fuzz-tests.json" "$filter")
[ -n "$targets" ] || { echo "fuzz.sh: no fuzz test in $bdir matches '$filter'" >&2; exit 1; }
cmake --build "$bdir" -j "$(nproc)" --target $targets
ctest --test-dir "$bdir" --show-only=json-v1 -L fuzz > "$bdir/fuzz-tests.json"
python3 - "$bdir" "$secs" "$filter" "$timeout" <<'PY'
import json, os, re, shutil, subprocess, sys
bdir, secs, flt, timeout = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
tests = json.load(open(os.path.join(bdir, "fuzz-tests.json")))["tests"]
failed = []
for t in tests:
    name = t["name"]
    if not re.search(flt, name):
        continue
    if "command" not in t:
        print(f"fuzz: {name}: ctest has no command for it (its target was not built)", file=sys.stderr)
        failed.append(name)
        continue
    cmd = t["command"]
    exe = cmd[0]
    seeds = [c for c in cmd[1:] if not c.startswith("-")]
    work = os.path.join(bdir, "corpus", name)
    os.makedirs(work, exist_ok=True)
    for s in seeds:
        if os.path.isdir(s):
            for f in os.listdir(s):
                shutil.copy(os.path.join(s, f), work)
    print(f"fuzz: {name} for {secs}s", flush=True)
    r = subprocess.run([exe, f"-max_total_time={secs}", "-max_len=65536", f"-timeout={timeout}",
                        f"-artifact_prefix={bdir}/crashes/{name}-", work])
    if r.returncode != 0:
        failed.append(name)
print("fuzz: failed:", " ".join(failed) if failed else "none")
sys.exit(1 if failed else 0)
PY
