#!/bin/bash
# The documentation holds together:
#  1. every option `psiplace CMD --help` shows is in psiplace(8)'s COMMANDS entry of CMD
#     (the --psi-* options of map anywhere in psiplace(8)), every command of `psiplace --help`
#     has an entry, and every option an entry names exists in that command's --help;
#  2. every repository path named in README.md and doc/*.md exists;
#  3. every section named beside its guide is a heading there; no doc names a path outside
#     the repository (../) or an issue number;
#  4. every guide a man page names is shipped by both packages.
# Usage: test_docs_consistency.sh PSIPLACE_CLI SOURCE_ROOT
set -u
cli=$1
root=$2
fails=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
check() { if [ -z "$2" ]; then ok "$1"; else not_ok "$1"; printf '#   %s\n' $2; fi; }

man8=$root/doc/psiplace.8
# roff to text: \- is -, drop font escapes.
unroff() { sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\(aq/'"'"'/g' "$@"; }
long_opts() { grep -oE -- '--[a-z][a-z0-9-]*[a-z0-9]' | grep -vx -- '--psi' | sort -u; }

# The COMMANDS section, one chunk per entry (an entry starts with a psiplace CMD line).
commands_text=$(unroff "$man8" | awk '/^\.SH COMMANDS/ { on = 1; next } /^\.SH / { on = 0 } on')
chunk() {
	printf '%s\n' "$commands_text" | awk -v cmd="$1" '
		/^\.B[IR]* "?psiplace [a-z-]+/ { match($0, /psiplace [a-z-]+/); cur = substr($0, RSTART + 9, RLENGTH - 9) }
		cur == cmd'
}

cmds=$("$cli" --help 2>&1 | grep -oE '^  psiplace [a-z][a-z-]*' | awk '{ print $2 }' | sort -u)
[ -n "$cmds" ] || { echo "Bail out! $cli --help lists no command"; exit 1; }
all_help=
for c in $cmds; do
	# An option table's line is the option, two blanks, its description: keep the option.
	help=$("$cli" "$c" --help 2>&1 | sed -E 's/^( +-[^ ].*[^ ])  +[^ ].*/\1/')
	all_help+=$help$'\n'
	text=$(chunk "$c")
	if [ -z "$text" ]; then
		not_ok "psiplace(8) COMMANDS has an entry for $c"
		continue
	fi
	ok "psiplace(8) COMMANDS has an entry for $c"
	missing=
	for o in $(printf '%s\n' "$help" | long_opts); do
		[ "$o" = --help ] && continue
		case $o in
		--psi-*) unroff "$man8" | grep -qF -- "$o" || missing+=" $o" ;;
		*) printf '%s\n' "$text" | grep -qE -- "$o([^a-z0-9-]|\$)" || missing+=" $o" ;;
		esac
	done
	check "every option of 'psiplace $c --help' is in its psiplace(8) entry" "$missing"
	extra=
	for o in $(printf '%s\n' "$text" | long_opts); do
		printf '%s\n' "$help" | grep -qE -- "$o([^a-z0-9-]|\$)" || extra+=" $o"
	done
	check "every option psiplace(8) gives for $c exists in its --help" "$extra"
done

# psiplace(1)'s synopsis names only options the commands have.
extra=
for o in $(unroff "$root/doc/psiplace.1" | long_opts); do
	case $o in --version | --help | --psi-*) continue ;; esac
	printf '%s\n' "$all_help" | grep -qE -- "$o([^a-z0-9-]|\$)" || extra+=" $o"
done
check "every option psiplace(1) names exists in a command's --help" "$extra"

# Repository paths: backquoted or plain words starting with a top-level directory.
docs=("$root/README.md" "$root"/doc/*.md)
top='(\.ci|cli|common|contrib|debian|doc|include|plugins|tests)'
missing=
while IFS=: read -r file path; do
	path=${path%%\{*}
	path=$(printf '%s' "$path" | sed -E 's/[.,:;)]+$//')
	case $path in *'*'* | *'<'* | *'…'*) continue ;; esac
	[ -e "$root/$path" ] || ls "$root/$path"* >/dev/null 2>&1 || missing+=" ${file#"$root"/}:$path"
done < <(grep -oE "(^|[^A-Za-z0-9_./\$-])$top/[A-Za-z0-9_./+{},-]*" "${docs[@]}" |
	sed -E "s/:[^a-z.]?($top\/)/:\1/")
check "every repository path named in README.md and doc/*.md exists" "$missing"

# A section named beside its guide (doc/select.md, "How many nodes") is a heading there.
missing=
while read -r ref; do
	f=$(printf '%s' "$ref" | grep -oE '^[a-z-]+\.md')
	sec=$(printf '%s' "$ref" | sed -E 's/.*"([^"]+)"/\1/')
	grep -qF -- "# $sec" "$root/doc/$f" 2>/dev/null || missing+=" $f:\"${sec// /_}\""
done < <(grep -ohE '[a-z-]+\.md`?,? "[^"]+"' "${docs[@]}" | sort -u)
check "every section a doc names beside its guide is a heading there" "$missing"

outside=$(grep -nE '(^|[^A-Za-z0-9_.])\.\./[A-Za-z]' "${docs[@]}" "$root"/doc/*.[158] | cut -d: -f1,2 | sed "s|$root/||")
check "no doc names a path outside the repository (../)" "$outside"
issues=$(grep -nEi '\bissues? #?[0-9]+|(^|[ (])#[0-9]+\b' "${docs[@]}" "$root"/doc/*.[158] | cut -d: -f1,2 | sed "s|$root/||")
check "no doc names an issue number" "$issues"

# Guides the man pages point to are shipped by both packages.
missing=
for g in $(unroff "$root"/doc/*.[158] | grep -oE '(doc/)?[a-z-]+\.md' | sed 's|^doc/||' | sort -u); do
	[ -e "$root/doc/$g" ] || { missing+=" doc/$g(absent)"; continue; }
	grep -qx "doc/$g" "$root/debian/psiplace-plugins.docs" || missing+=" debian:doc/$g"
	grep -E '^%doc' "$root/psiplace.spec" | grep -qw "doc/$g" || missing+=" rpm:doc/$g"
done
check "every guide a man page names is in debian/psiplace-plugins.docs and psiplace.spec %doc" "$missing"

echo "1..$n"
[ "$fails" -eq 0 ]
