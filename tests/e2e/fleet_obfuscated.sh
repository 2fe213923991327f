#!/usr/bin/env bash
# gpudoctor fleet over obfuscated bundles of this machine under made-up host names (UTS namespaces): with one
# site key, two hosts keep two pseudonyms and the same host bundled twice keeps one (named as one host name in
# two inputs); a bundle with a key of its own is the odd one out of the "pseudonyms" row; no real host name
# reaches the output.
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/common.bash"
gpudoctor=$(realpath "$gpudoctor") # the bundles are written from another folder
unshare -u true 2>/dev/null || skip "no UTS namespace here (needs root): cannot give bundles made-up host names"

bundle_as() { # bundle_as HOST OUT-FOLDER [bundle options...]
  local name=$1 out=$2
  shift 2
  mkdir -p "$out"
  # shellcheck disable=SC2016 # expanded by the inner bash
  (cd "$out" && unshare -u bash -c 'hostname "$1" && shift && exec "$@"' _ "$name" "$gpudoctor" bundle "$@" \
    >/dev/null 2>"$work/err") || fail "bundle as $name failed: $(cat "$work/err")"
}
a="e2e-fleet-a$RANDOM"
b="e2e-fleet-b$RANDOM"
bundle_as "$a" "$work/b/1" --obfuscate-key "$work/site.key"
bundle_as "$b" "$work/b/2" --obfuscate-key "$work/site.key"
bundle_as "$a" "$work/b/3" --obfuscate-key "$work/site.key"
bundle_as "$b" "$work/b/4" --obfuscate

status=0
"$gpudoctor" fleet "$work/b/1" "$work/b/2" "$work/b/3" "$work/b/4" --format json >"$work/f.json" 2>"$work/f.err" ||
  status=$?
[[ $status == 0 || $status == 1 ]] || fail "fleet of obfuscated bundles exited $status: $(cat "$work/f.err")"
expect "$work/f.json" "r['summary']['nodes'] == 4 and all(n['host'].startswith('host-') for n in r['nodes'])" \
  "four obfuscated bundles, four nodes named by pseudonyms"
hosts="[n['host'] for n in r['nodes']]"
expect "$work/f.json" "$hosts[0] == $hosts[2] and $hosts[0] != $hosts[1] and $hosts[1] != $hosts[3]" \
  "one site key: one pseudonym per host, two hosts two; a key of its own: another"
expect "$work/f.json" "[d['host'] for d in r['duplicates']] == [$hosts[0]] and len(r['duplicates'][0]['nodes']) == 2" \
  "the host bundled twice is named as one host name in two inputs"
expect "$work/f.json" "[[v['count'], v.get('nodes')] for p in r['properties'] if p['name'] == 'pseudonyms'
  for v in p['values']] == [[3, None], [1, [$hosts[3]]]]" "the bundle with a key of its own is the odd one out"
for fmt in json text html; do
  "$gpudoctor" fleet "$work/b" --format "$fmt" >"$work/out.$fmt" 2>/dev/null || [[ $? == 1 ]] ||
    fail "fleet --format $fmt of the folder failed"
  ! grep -qF -e "$a" -e "$b" "$work/out.$fmt" || fail "a real host name is in the $fmt output"
done
pass "no real host name in the text, JSON or HTML of the fleet"
