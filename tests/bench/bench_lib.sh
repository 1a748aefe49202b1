# Helpers shared by the testbed benchmarks (bench_sched.sh, bench_curve.sh):
# testbed paths, figures as median and spread, and the build being measured.
# Source it; it defines functions, and makes the daemons of every testbed
# the benchmark starts end after it, however it ends (cluster.sh guard).
export PSIPLACE_STOP_WITH=${PSIPLACE_STOP_WITH:-$$}

conf() { echo "/tmp/psiplace-testbed-$1/etc/slurm.conf"; }
now() { date +%s.%N; }
load1() { awk '{print $1}' /proc/loadavg; }
# CPU ticks (user + system) of instance $1's slurmctld.
ctld_ticks() { awk '{print $14 + $15}' "/proc/$(cat "/tmp/psiplace-testbed-$1/pids/slurmctld")/stat"; }

# "median spread" of the numbers given (spread = max - min).
stats() {
  printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1}
    END {m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print m, v[NR] - v[1]}'
}
# bench: NAME and NAME_spread lines: name, printf format of the value, unit, values...
figure() {
  local name=$1 fmt=$2 unit=$3 med spread
  shift 3
  read -r med spread < <(stats "$@")
  printf "bench: %s $fmt %s\n" "$name" "$med" "$unit"
  printf "bench: %s_spread $fmt %s\n" "$name" "$spread" "$unit"
}

# The build the plugins come from, as bench_rank's header says it: buildtype,
# optimization and the -O/-march/-f flags of c_args (path remapping flags
# left out), read from meson's introspection file; and its source commit.
# One option's value from meson's intro-buildoptions.json (one line of
# {"name": N, "value": V, ...} objects), arrays as blank-separated words.
meson_opt() {
  grep -o "{\"name\": \"$2\", \"value\": \(\"[^\"]*\"\|\[[^]]*\]\)" "$1" |
    sed 's/.*"value": //; s/^\[//; s/\]$//; s/", "/ /g; s/"//g'
}
build_type() {
  local f=$1/meson-info/intro-buildoptions.json desc flags dir
  [ -f "$f" ] || { echo "unknown (no $f)"; return; }
  desc="$(meson_opt "$f" buildtype) optimization=$(meson_opt "$f" optimization)"
  flags=$(meson_opt "$f" c_args | tr ' ' '\n' | grep -E '^-(O|march|f)' |
          grep -vE '^-f(file|debug|macro)-prefix-map' | paste -sd' ' -) || true
  [ -z "$flags" ] || desc="$desc c_args: $flags"
  dir=$(grep -o '"source": "[^"]*"' "$1/meson-info/meson-info.json" 2>/dev/null | sed 's/.*: "//; s/"$//') || true
  echo "$desc ($1, source ${dir:-unknown} at $(git -C "${dir:-/nonexistent}" describe --always --dirty 2>/dev/null || echo unknown))"
}

# hold_port_start INSTANCE OUTFILE NAME: hold the absent nodes' slurmd port of
# a testbed instance (hold_port.py: listens, never accepts) so that
# slurmctld's registration requests wait instead of retrying per node; its
# PID is appended to the caller's `holders` array (ended by the caller).
hold_port_start() {
  local port=$((17000 + 20 * $1 + 6)) out=$2 name=$3 deadline=$((SECONDS + 10))
  python3 "$src/tests/bench/hold_port.py" "$port" >"$out" 2>&1 &
  holders+=("$!")
  until grep -qs READY "$out"; do
    [ $SECONDS -lt $deadline ] || { cat "$out" >&2; echo "$name: hold_port on $port did not start" >&2; exit 1; }
    sleep 0.05
  done
}
