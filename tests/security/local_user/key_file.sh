#!/usr/bin/env bash
# Root's `bundle --obfuscate-key FILE` takes no key another user knows or can swap (docs/security.md,
# "Writing as root"): the pseudonyms of a bundle are only as secret as its key. Refused as root, before
# anything is recorded, with exit 2: a key file the account owns (0600, as the mode rule wants; in a folder
# of root's), a key of
# root's in the account's folder (the account can put its own in its place), a key to be created there, and
# a key reached through the account's link to root's folder. A key in root's own folder is created there
# (0600, through the folder's descriptor) and used.
# shellcheck source=tests/security/local_user/common.bash
source "$(dirname "$0")/common.bash" "$@"

keys=$lu_home/keys
as_user mkdir -m 0700 "$keys"
mkdir -m 0700 "$work/roots-keys"
head -c 32 /dev/urandom >"$work/roots-keys/theirs" # the account's key file, in a folder of root's
chmod 0600 "$work/roots-keys/theirs"
chown "$lu_uid" "$work/roots-keys/theirs"
head -c 32 /dev/urandom >"$keys/roots" # root's file in the account's folder
chmod 0600 "$keys/roots"
as_user ln -s "$work/roots-keys" "$lu_home/keylink"
head -c 32 /dev/urandom >"$work/roots-keys/behind-link"
chmod 0600 "$work/roots-keys/behind-link"

for case in "$work/roots-keys/theirs:is owned by $lu_user" "$keys/roots:is in a folder another user can change" \
  "$keys/new:is in a folder another user can change" \
  "$lu_home/keylink/behind-link:is in a folder another user can change"; do
  key=${case%%:*} want=${case#*:}
  status=0
  timeout -s KILL 300 "$gpudoctor" bundle --obfuscate-key "$key" -o "$work/b.tar.gz" >/dev/null 2>"$work/err" ||
    status=$?
  [[ ! -e $work/b.tar.gz ]] || fail "--obfuscate-key $key: a bundle was made with a key $lu_user knows or can swap"
  if [[ $status != 2 ]] || ! grep -qF -- "$want" "$work/err"; then
    fail "--obfuscate-key $key: exit $status, not refused ($want): $(head -c 300 "$work/err")"
  fi
  pass "--obfuscate-key $key: refused: $(sed -n 1p "$work/err" | cut -c1-150)"
done
[[ ! -e $keys/new ]] || fail "root created a key file in $lu_user's folder"
pass "no key file made in $lu_user's folder"

key=$work/roots-keys/site.key
"$gpudoctor" bundle --obfuscate-key "$key" -o "$work/b.tar.gz" >/dev/null 2>"$work/err" ||
  fail "bundle with a key in root's folder failed: $(head -c 300 "$work/err")"
[[ $(stat -c '%u %a %s' "$key") == "0 600 32" ]] || fail "the key made is not root's, 0600, 32 bytes: $(stat -c '%u %a %s' "$key")"
pass "a key in root's own folder is made 0600 and used"
no_canary "the key file"
