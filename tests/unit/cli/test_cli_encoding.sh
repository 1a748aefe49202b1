#!/usr/bin/env bash
# What the command writes is well-formed whatever the names it is given
# (TAP): UTF-8 passes through JSON unchanged, a byte that is not UTF-8
# becomes U+FFFD (the document stays valid UTF-8 JSON), and SVG escapes
# <, &, > and " in the names it prints and replaces bytes that are not
# UTF-8 the same way (the document parses as XML).
# usage: test_cli_encoding.sh PSIPLACE
set -uo pipefail
psiplace=$1
source "$(dirname "$0")/tap.sh"
topology() { lstopo -f --input "pack:1 core:2 pu:1" --of xml "$1" 2>/dev/null; }
# The "topology" of node 0 as Python's strict UTF-8 JSON parser reads it.
json_topology() {
  python3 -c 'import json, sys; print(json.loads(sys.stdin.buffer.read().decode("utf-8", "strict"))["nodes"][0]["topology"])'
}

utf8=$d/tôpo-ü.xml
topology "$utf8"
out=$("$psiplace" map --topology "$utf8" -n 1 --format json | json_topology 2>&1)
check "map --format json: a UTF-8 topology name passes through" "$utf8" "$out"

bad=$d/$(printf 'bad\xffname').xml
topology "$bad"
out=$("$psiplace" map --topology "$bad" -n 1 --format json | json_topology 2>&1)
check "map --format json: a byte that is not UTF-8 becomes U+FFFD, the JSON stays valid" \
  "$d/bad"$'\xef\xbf\xbd'"name.xml" "$out"

mark=$d/'a<b&c>.xml'
topology "$mark"
svg=$("$psiplace" map --topology "$mark" -n 1 --format svg)
check "map --format svg: <, & and > in a name are escaped" 1 \
  "$(grep -c 'a&lt;b&amp;c&gt;\.xml' <<<"$svg")"
out=$(python3 -c 'import sys, xml.etree.ElementTree as E; E.fromstring(sys.stdin.read()); print("xml")' <<<"$svg" 2>&1)
check "map --format svg: the document parses as XML" xml "$out"

quote=$d/'say "hi".xml'
topology "$quote"
svg=$("$psiplace" map --topology "$quote" -n 1 --format svg)
check "map --format svg: a double quote in a name is escaped" 1 \
  "$(grep -c 'say &quot;hi&quot;\.xml' <<<"$svg")"

# The node label of a name with a byte that is not UTF-8, as a strict
# UTF-8 XML parser reads it.
svg_label() {
  python3 -c 'import sys, xml.etree.ElementTree as E
r = E.fromstring(sys.stdin.buffer.read().decode("utf-8", "strict"))
print([t.text for t in r.iter("{http://www.w3.org/2000/svg}text") if (t.text or "").startswith("node 0")][0])'
}
out=$("$psiplace" map --topology "$bad" -n 1 --format svg | svg_label 2>&1)
check "map --format svg: a byte that is not UTF-8 becomes U+FFFD, the SVG stays valid" \
  "node 0  ($d/bad"$'\xef\xbf\xbd'"name.xml)" "$out"

out=$("$psiplace" spawn-plan --strategy diffusive --method merge --cores 2,2 --running 1,0 \
  --nodelist 'n[1-2]' --format json | python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["nodes"][1]["host"])' 2>&1)
check "spawn-plan --format json: valid JSON through the same writer" n2 "$out"

tap_end
