#!/bin/sh
# Re-makes every figure of docs/accuracy.md "## hhnhmm": the five Valgrind lackey
# traces, then per trace the I-cache curves (defaults and the paper's settings)
# and `hmtt synth --compare` on the instruction fetches.
#   bench/hhnhmm/measure_accuracy.sh BUILD_DIR WORK_DIR
set -e
BUILD=$(cd "${1:?build dir}" && pwd)
WORK=${2:?work dir}
B=$BUILD/bench/hhnhmm/hhnhmm_icache
H=$BUILD/apps/hmtt/hmtt
PAPER=$(cd "$(dirname "$0")/../../.." && pwd)/shared/papers/hhnhmm-markov-trace-synthesis.txt
mkdir -p "$WORK" && cd "$WORK"
head -c 60000 "$PAPER" > input.txt
head -c 12000 input.txt > small.txt
lackey() { name=$1; shift; [ -s $name.lackey ] || valgrind --tool=lackey --trace-mem=yes "$@" > /dev/null 2> $name.lackey; }
lackey gzip gzip -c small.txt
lackey bzip2 bzip2 -c small.txt
lackey sort sort input.txt
lackey grep grep -c e input.txt
lackey awk awk '{n+=NF}END{print(n)}' input.txt
for t in grep awk gzip sort bzip2; do
  grep '^I' $t.lackey > $t.I.lackey
  nice -n 15 $B --learn $t.lackey > $t.default.out
  nice -n 15 $B --learn $t.lackey jump_mode=relative sequential_max_step=0 > $t.paper.out
  rm -f $t.syn.hmtt $t.json
  nice -n 15 $H profile $t.I.lackey --method hhnhmm -o $t.json > /dev/null
  nice -n 15 $H synth $t.json -o $t.syn.hmtt --compare $t.I.lackey --json > $t.cmp.json
done
# Data references (lackey L/S/M) and the built-in demo workload, against the IRM floor.
for t in grep awk gzip sort bzip2 demo; do
  src=$t.D.lackey
  if [ $t = demo ]; then src=demo:1000000; else grep -v '^I' $t.lackey > $t.D.lackey; fi
  for m in hhnhmm irm; do
    rm -f $t.D.$m.json $t.D.$m.hmtt
    nice -n 15 $H profile $src --method $m -o $t.D.$m.json --json > $t.D.$m.prof
    nice -n 15 $H synth $t.D.$m.json -o $t.D.$m.hmtt --compare $src --json > $t.D.$m.cmp
  done
done
python3 - <<'PY'
import json
T = ['grep', 'awk', 'gzip', 'sort', 'bzip2']
last = lambda f: json.loads(open(f).read().splitlines()[-1])
print("| trace | N | classified | S / P / R / J / O frames | profile bytes | mean error | max error | paper settings: classified, mean / max error |")
for t in T:
    d, p = last(t + '.default.out'), last(t + '.paper.out')
    f = d['profile']['frames']
    print('| %s | %d | %.1f %% | %s | %s | **%.4f** | %.4f | %.1f %%, %.4f / %.4f |' % (
        t, d['profile']['frame_length'], 100 * d['profile']['classification_rate'],
        ' / '.join(str(f[k]) for k in ['sequential', 'periodic', 'random', 'jump', 'other']),
        format(d['profile']['profile_bytes'], ','), d['mean_abs_error'], d['max_abs_error'],
        100 * p['profile']['classification_rate'], p['mean_abs_error'], p['max_abs_error']))
for name in ['default', 'paper']:
    for t in T:
        d = last(t + '.' + name + '.out')
        print('%-7s %-5s' % (name, t), ' '.join('%.4f/%.4f' % (a, b) for a, b in zip(d['miss_rate_a'], d['miss_rate_b'])))
for t in T:
    c = json.load(open(t + '.cmp.json'))['compare']
    he, le, pl = c['hierarchy_error'], c['lru_error'], c['hierarchy_error_per_level']
    print('| %s | %.4f / %.4f | %s | %.4f / %.4f | %.4f |' % (t, he['mean_abs'], he['max_abs'],
          ', '.join('%s %.4f' % (k, v['mean_abs']) for k, v in pl.items()), le['mean_abs'], le['max_abs'],
          c['locality_surface_distance']))
print("| trace | references | classified | S / P / R / J / O | hhnhmm: hierarchy mean, L1 mean, LRU mean, locality | irm: hierarchy mean, L1 mean, LRU mean, locality |")
for t in T + ['demo']:
    row = []
    for m in ['hhnhmm', 'irm']:
        c = json.load(open('%s.D.%s.cmp' % (t, m)))['compare']
        row.append('%.4f, %.4f, %.4f, %.4f' % (c['hierarchy_error']['mean_abs'], c['hierarchy_error_per_level']['L1']['mean_abs'],
                                             c['lru_error']['mean_abs'], c['locality_surface_distance']))
    p = json.load(open('%s.D.hhnhmm.json' % t))
    f = p['frames']
    print('| %s | %s | %.1f %% | %s | %s | %s |' % (t, format(p['references'], ','), 100 * p['classification_rate'],
          ' / '.join(str(f[k]) for k in ['sequential', 'periodic', 'random', 'jump', 'other']), row[0], row[1]))
PY
