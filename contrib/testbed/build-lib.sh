# Sourced by slurm-release.sh and mpich.sh: their messages and logged build
# steps.  The sourcing script sets ME (its name, for the messages) first.
log() { echo "$ME: $*" >&2; }
die() { log "error: $*"; exit 1; }

# Run one build step with its output in a log; on failure name the step and
# the log and show the log's last lines.
step() {
  local name=$1 logf=$2; shift 2
  log "$name (log: $logf)"
  if ! "$@" >"$logf" 2>&1; then
    tail -n 25 "$logf" >&2
    die "$name failed; full log: $logf"
  fi
}
