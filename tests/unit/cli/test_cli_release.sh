#!/usr/bin/env bash
# psiplace release's step check against a stand-in scontrol first on PATH
# (TAP): only scontrol's exact answer for a job without steps means "no
# steps"; a failed or unreadable step list refuses and updates nothing.
# usage: test_cli_release.sh PSIPLACE
set -uo pipefail
psiplace=$1
source "$(dirname "$0")/tap.sh"

# Job 42 runs on n[1-4]; STEPS (an environment variable) picks the answer
# to `show step 42`; update writes its arguments to $d/update.
mkdir "$d/bin"
cat >"$d/bin/scontrol" <<EOF
#!/usr/bin/env bash
step() { # ID NODELIST: a 22.05 one-line record, about 400 bytes
  printf 'StepId=42.%s UserId=1000 StartTime=2026-12-01T10:00:00 TimeLimit=UNLIMITED State=RUNNING Partition=debug NodeList=%s Gres=(null) Nodes=1 CPUs=1 Tasks=1 Name=hydra_pmi_proxy_of_a_spawned_group Network=(null) TRES=cpu=1,mem=1000M,node=1 ResvPorts=(null) CPUFreqReq=Default Dist=Block SrunHost:Pid=n1:12345 Container=/var/lib/containers/a-rather-long-bundle-path-to-reach-a-realistic-length/%s\n' "\$1" "\$2" "\$1"
}
case "\$*" in
'-o show job 42') echo 'JobId=42 JobName=malleable JobState=RUNNING Partition=debug NodeList=n[1-4] BatchHost=n1' ;;
'-o show step 42')
  case \$STEPS in
  padded) for i in \$(seq 0 199); do step \$i n1; done; step 200 n4 ;;
  unreachable) echo 'slurm_get_job_steps error: Unable to contact slurm controller (connect failure)' >&2; exit 1 ;;
  none) echo 'Job step 42. not found'; exit 1 ;;
  none_other_job) echo 'Job step 43. not found'; exit 1 ;;
  none_rc0) echo 'Job step 42. not found' ;;
  silent) ;;
  elsewhere) step batch n1; step 0 n[1-3] ;;
  garbled) step 0 n1; echo 'StepId=42.1 UserId=1000 State=RUNNING' ;;
  killed) step 0 n1; kill -9 \$\$ ;;
  esac ;;
update*) echo "\$*" >"$d/update"; pwd >"$d/cwd"
  # as scontrol does: the resize scripts, named by the number it parsed
  touch slurm_job_42_resize.sh slurm_job_42_resize.csh ;;
*) echo "unexpected: \$*" >&2; exit 1 ;;
esac
EOF
chmod +x "$d/bin/scontrol"

release() { # STEPS ARGS...: "rc|stdout|stderr", stdout and stderr lines joined by ';'
  local steps=$1 out rc
  shift
  rm -f "$d/update"
  out=$(STEPS=$steps PATH="$d/bin:$PATH" "$psiplace" release --job 42 "$@" 2>"$d/err"); rc=$?
  echo "$rc|$(printf '%s' "$out" | paste -sd';')|$(paste -sd';' "$d/err")"
}

check "a busy node after 200 steps (80 KiB of step list) is seen: refused, nothing run" \
  "1||psiplace: error: release: node n4 still runs step 42.200 of job 42; end it first" \
  "$(release padded --dry-run n4)"
check "controller unreachable: refused with scontrol's line" \
  "1||psiplace: error: release: cannot check the steps of job 42: scontrol -o show step 42 exited 1: slurm_get_job_steps error: Unable to contact slurm controller (connect failure)" \
  "$(release unreachable n4)"
check "controller unreachable: nothing updated" "no update" "$([ -e "$d/update" ] && cat "$d/update" || echo no update)"
check "Slurm's exact answer for a job without steps: released" \
  "0|would run: scontrol update JobId=42 NodeList=n1,n2,n3;kept n1,n2,n3|" "$(release none --dry-run n4)"
check "the same, for real: scontrol update runs" \
  "0|kept n1,n2,n3||update JobId=42 NodeList=n1,n2,n3" "$(release none n4)|$(cat "$d/update")"
check "steps on other nodes only: released" \
  "0|would run: scontrol update JobId=42 NodeList=n1,n2,n3;kept n1,n2,n3|" "$(release elsewhere --dry-run n4)"
check "a busy node in a normal list: refused" \
  "1||psiplace: error: release: node n3 still runs step 42.0 of job 42; end it first" \
  "$(release elsewhere --dry-run n3)"
check "'not found' for another job is no answer about this one: refused" \
  "1||psiplace: error: release: cannot check the steps of job 42: scontrol -o show step 42 exited 1: Job step 43. not found" \
  "$(release none_other_job --dry-run n4)"
check "'not found' with exit 0 is not Slurm's answer: refused" \
  "1||psiplace: error: release: cannot read the steps of job 42: not a step record: 'Job step 42. not found'" \
  "$(release none_rc0 --dry-run n4)"
check "no output with exit 0 is not Slurm's answer: refused" \
  "1||psiplace: error: release: cannot read the steps of job 42: scontrol -o show step 42 printed nothing and exited 0" \
  "$(release silent --dry-run n4)"
check "a step record without NodeList: refused" \
  "1||psiplace: error: release: cannot read the steps of job 42: not a step record: 'StepId=42.1 UserId=1000 State=RUNNING'" \
  "$(release garbled --dry-run n4)"
check "scontrol killed while listing: refused" \
  "1||psiplace: error: release: cannot check the steps of job 42: scontrol -o show step 42 was killed by signal 9" \
  "$(release killed n4)"
check "scontrol killed while listing: nothing updated" "no update" "$([ -e "$d/update" ] && cat "$d/update" || echo no update)"

# --job 042: scontrol answers and names its files by the number (42), so
# the id is normalised; the working directory is made under TMPDIR.
mkdir "$d/tmp"
rm -f "$d/update" "$d/cwd"
got=$(STEPS=none TMPDIR=$d/tmp PATH="$d/bin:$PATH" "$psiplace" release --job 042 n4 2>&1; echo "rc $?")
check "--job 042: released as job 42, success reported" \
  "kept n1,n2,n3;rc 0|update JobId=42 NodeList=n1,n2,n3" "$(printf '%s' "$got" | paste -sd';')|$(cat "$d/update" 2>/dev/null)"
check "--job 042: scontrol ran in a directory under TMPDIR" "$d/tmp" "$(dirname "$(cat "$d/cwd" 2>/dev/null)")"
check "--job 042: the directory and scontrol's resize scripts are gone" "" "$(ls -A "$d/tmp")"
check "--job 0: refused as no job id" \
  "psiplace: error: release: --job: '0' is not a job id; accepted: a number 1..4294967295;rc 2" \
  "$( (STEPS=none PATH="$d/bin:$PATH" "$psiplace" release --job 0 n4 2>&1; echo "rc $?") | paste -sd';')"

tap_end
