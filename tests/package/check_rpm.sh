#!/usr/bin/env bash
# Inspect the RPM from psiplace.spec (built here with Debian's rpm): both
# plugins in slurm.spec's plugin directory /usr/lib64/slurm, the command in
# /usr/bin, Requires on exactly the tree's Slurm version, and each plugin's
# plugin_version equal to the tree's SLURM_VERSION_NUMBER; psiplace-mpi with
# libpsiplace_mpi.so.0 (and its soname provided), psiplace-mpi-devel with the
# headers, the unversioned link and psiplace-mpi.pc.  TAP output.
#   check_rpm.sh DIST_DIR SLURM_TREE
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/plugin_version.sh"
dist=${1:?usage: check_rpm.sh DIST_DIR SLURM_TREE}
tree=${2:?usage: check_rpm.sh DIST_DIR SLURM_TREE}
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok $((pass + fail)) - $1"; }
not_ok() { fail=$((fail + 1)); echo "not ok $((pass + fail)) - $1"; shift; printf '#   %s\n' "$@"; }
check_eq() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "expected: '$2'" "got:      '$3'"; fi; }
check_match() { if grep -Eq -- "$2" <<<"$3"; then ok "$1"; else not_ok "$1" "no match for /$2/ in:" "$3"; fi; }

rpmf=$(ls "$dist"/psiplace-[0-9]*.rpm 2>/dev/null | grep -v -- '-debug' | head -1)
[ -n "$rpmf" ] || { echo "Bail out! no psiplace RPM in $dist"; exit 1; }
want_ver=$(sed -n 's/^#define SLURM_VERSION_STRING "\(.*\)"/\1/p' "$tree/config.h")
want_num=$(sed -n 's/^#define SLURM_VERSION_NUMBER[[:space:]]*//p' "$tree/slurm/slurm_version.h")
files=$(rpm -qlp "$rpmf")
check_eq "Requires slurm(x86-64) = $want_ver exactly, and no other slurm" \
  "slurm(x86-64) = $want_ver" "$(rpm -qp --requires "$rpmf" | grep -i '^slurm')"
check_eq "/usr/bin/psiplace is in the RPM" /usr/bin/psiplace "$(grep -x /usr/bin/psiplace <<<"$files")"
check_eq "the RPM holds exactly three plugins, all in /usr/lib64/slurm" \
  "/usr/lib64/slurm/job_submit_psiplace.so /usr/lib64/slurm/psiplace.so /usr/lib64/slurm/select_psiplace_cons_tres.so" \
  "$(grep '/slurm/.*\.so$' <<<"$files" | sort | paste -sd' ')"
x=$(mktemp -d); trap 'rm -rf "$x"' EXIT
(cd "$x" && rpm2archive - <"$rpmf" | tar -xzf -) || { echo "Bail out! cannot unpack $rpmf"; exit 1; }
for so in job_submit_psiplace.so psiplace.so select_psiplace_cons_tres.so; do
  f=$x/usr/lib64/slurm/$so
  [ -f "$f" ] || { not_ok "$so: plugin_version is the tree's SLURM_VERSION_NUMBER" "$so missing"; continue; }
  got=$(plugin_version "$f")
  if [ -z "$got" ]; then
    not_ok "$so: plugin_version is the tree's SLURM_VERSION_NUMBER" "$so exports no plugin_version"
    continue
  fi
  check_eq "$so: plugin_version is the tree's SLURM_VERSION_NUMBER" "$((want_num))" "$got"
done
mpi=$(ls "$dist"/psiplace-mpi-[0-9]*.rpm 2>/dev/null | head -1)
dev=$(ls "$dist"/psiplace-mpi-devel-[0-9]*.rpm 2>/dev/null | head -1)
if [ -z "$mpi" ] || [ -z "$dev" ]; then
  not_ok "psiplace-mpi and psiplace-mpi-devel RPMs are built" "RPMs: $(ls "$dist" | grep '\.rpm$' | paste -sd' ')"
else
  check_eq "psiplace-mpi holds libpsiplace_mpi.so.0 and its file" \
    "/usr/lib64/libpsiplace_mpi.so.0 /usr/lib64/libpsiplace_mpi.so.0.1.0" \
    "$(rpm -qlp "$mpi" | grep '\.so' | sort | paste -sd' ')"
  check_match "psiplace-mpi provides its soname" '^libpsiplace_mpi\.so\.0\(PSIPLACE_MPI_0\)\(64bit\)$' \
    "$(rpm -qp --provides "$mpi")"
  devfiles=$(rpm -qlp "$dev")
  check_eq "psiplace-mpi-devel holds the headers, the link and psiplace-mpi.pc" \
    "/usr/include/psiplace/malleable.h /usr/include/psiplace/resize.h /usr/lib64/libpsiplace_mpi.so /usr/lib64/pkgconfig/psiplace-mpi.pc" \
    "$(grep -E 'malleable\.h$|resize\.h$|\.so$|\.pc$' <<<"$devfiles" | sort | paste -sd' ')"
fi
echo "1..$((pass + fail))"
echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
