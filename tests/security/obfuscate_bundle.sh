#!/usr/bin/env bash
# bundle --obfuscate-key on this machine: the host name (a made-up one, set in a UTS namespace), user names,
# addresses and GPU UUIDs given to it are in no byte of the archive nor in its name; the key file is created
# 0600 and never bundled; one key gives one host one pseudonym across bundles and another host another;
# check --from the obfuscated bundle judges as the live run.
source "$2/tests/e2e/common.bash"
gpudoctor=$(realpath "$gpudoctor") # the bundle runs from another folder

# A host name of our choosing, where a UTS namespace can be had (root here); else this machine's own.
in_host() { # in_host NAME command...
  local name=$1
  shift
  if unshare -u true 2>/dev/null; then
    # shellcheck disable=SC2016 # expanded by the inner bash
    unshare -u bash -c 'hostname "$1" && shift && exec "$@"' _ "$name" "$@"
  else
    "$@"
  fi
}
host_a="e2e-node-a$RANDOM"
host_b="e2e-node-b$RANDOM"
unshare -u true 2>/dev/null || host_a=$(hostname)

user="e2e-user$RANDOM"
ip4="10.$((RANDOM % 200 + 20)).$((RANDOM % 250)).$((RANDOM % 250 + 1))"
mac=$(printf '3c:fd:fe:%02x:%02x:%02x' $((RANDOM % 256)) $((RANDOM % 256)) $((RANDOM % 256)))
uuid=$(printf 'GPU-%08x-1c2e-4b8e-9a51-%012x' $((RANDOM * RANDOM)) $((RANDOM * RANDOM * RANDOM)))
export SUDO_USER=$user LOGNAME=$user SSH_CONNECTION="$ip4 51234 $ip4 22" E2E_NOTE="link up, MAC $mac"
export CUDA_VISIBLE_DEVICES="$uuid"
key="$work/site.key"

mkdir "$work/out"
(cd "$work/out" && in_host "$host_a" "$gpudoctor" bundle --obfuscate-key "$key" >"$work/name" 2>"$work/err") ||
  fail "bundle failed: $(cat "$work/err")"
archive=$work/out/$(cat "$work/name")
[[ -s $archive ]] || fail "no bundle at $archive"
[[ $(stat -c %a "$key") == 600 && $(stat -c %s "$key") == 32 ]] || fail "the key file is not 32 bytes, mode 600"
pass "the key file was created: 32 bytes, mode 600"
[[ $archive != *"$host_a"* ]] || fail "the archive's name holds the host name: $archive"
[[ $(basename "$archive") == gpudoctor-bundle-host-????????-* ]] || fail "the archive is not named after the pseudonym: $archive"
pass "the archive is named after the host's pseudonym: $(basename "$archive")"

mkdir "$work/a"
tar -xzf "$archive" -C "$work/a"
for identity in "$host_a" "$user" "$ip4" "$mac" "${uuid#GPU-}" "${uuid:4:8}"; do
  if grep -rqaF -- "$identity" "$work/a" || grep -qF -- "$identity" <<<"$(tar -tzf "$archive")"; then
    fail "'$identity' is in the obfuscated bundle: $(grep -rlaF -- "$identity" "$work/a" | sed -n 1,3p)"
  fi
done
pass "no host name, user name, address, MAC or GPU UUID in any byte of the bundle"
"$py" - "$key" "$work/a" <<'PY' || fail "the key's bytes are in the bundle"
import os, sys
key = open(sys.argv[1], 'rb').read()
for root, _, files in os.walk(sys.argv[2]):
    for f in files:
        p = os.path.join(root, f)
        if not os.path.islink(p) and key in open(p, 'rb').read():
            sys.exit(1)
PY
pass "the key is not in the bundle"
expect "$work/a/manifest.json" "'site' in r['note'] and 'hostname' in r['redacted']" "the manifest says how names were obfuscated"
expect "$work/a/env.json" "r['CUDA_VISIBLE_DEVICES'].startswith('GPU-') and len(r['CUDA_VISIBLE_DEVICES']) == len('$uuid')" \
  "the GPU UUID keeps its form"

# The same key, the same host: the same pseudonym. Another host: another one.
in_host "$host_a" "$gpudoctor" bundle --obfuscate-key "$key" -o "$work/a2.tar.gz" >/dev/null 2>&1 || fail "second bundle failed"
mkdir "$work/a2"
tar -xzf "$work/a2.tar.gz" -C "$work/a2"
pseudonym=$(jq_py "$work/a/identity.json" "r['hostname']")
[[ $pseudonym == host-* && $(jq_py "$work/a2/identity.json" "r['hostname']") == "$pseudonym" ]] ||
  fail "one key gave one host two pseudonyms"
pass "one key, one host: one pseudonym ($pseudonym) in both bundles"
if unshare -u true 2>/dev/null; then
  in_host "$host_b" "$gpudoctor" bundle --obfuscate-key "$key" -o "$work/b.tar.gz" >/dev/null 2>&1 || fail "bundle on host b failed"
  mkdir "$work/b"
  tar -xzf "$work/b.tar.gz" -C "$work/b"
  other=$(jq_py "$work/b/identity.json" "r['hostname']")
  [[ $other == host-* && $other != "$pseudonym" ]] || fail "two hosts got one pseudonym ($other)"
  pass "another host, another pseudonym ($other)"
fi

# check --from the obfuscated bundle judges as the live run did.
in_host "$host_a" "$gpudoctor" check --format json >"$work/live.json" || true
"$gpudoctor" check --from "$archive" --format json >"$work/replay.json" || true
same=$("$py" - "$work/live.json" "$work/replay.json" <<'PY'
import json, sys
live, replay = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda r: [(x['id'], x['status']) for x in r['results']]
print(key(live) == key(replay))
PY
)
[[ $same == True ]] || fail "the obfuscated bundle judges differently from the live run"
pass "check --from the obfuscated bundle judges as the live run"

# A key file others may read is refused before anything is recorded, naming the file.
chmod 644 "$key"
set +e
"$gpudoctor" bundle --obfuscate-key "$key" -o "$work/x.tar.gz" >/dev/null 2>"$work/err"
rc=$?
set -e
if [[ $rc != 2 || -e $work/x.tar.gz ]] || ! grep -qF "$key" "$work/err"; then
  fail "a readable key file was used (exit $rc): $(cat "$work/err")"
fi
pass "a key file others may read is refused (exit 2, naming it)"
