#!/usr/bin/env bash
# Run as root, a bundle never follows a link owned by another user to a file that user could not read:
# /etc/shadow through a venv's pip.conf (or an NCCL_CONF_FILE, a dotfile link) would otherwise be copied
# into the archive. A link of that user to what it may read is still followed. A hard link is a name too: in
# a folder nobody owns, a second name of root's 0600 file (made here as root: fs.protected_hardlinks refuses a
# user a link to what they cannot read, where it is on) is not recorded; one of a file nobody may read is.
source "$2/tests/e2e/common.bash"
[[ $(id -u) == 0 ]] || skip "needs root (the case is root reading a user's link)"
id -u nobody >/dev/null 2>&1 || skip "no user 'nobody' to own the links"
chmod 755 "$work"

secret="shadow-canary-$RANDOM$RANDOM"
printf 'root:%s:19000:0:99999:7:::\n' "$secret" >"$work/shadow"
chmod 600 "$work/shadow" # root's alone, like /etc/shadow
mkdir "$work/venv" "$work/home"
ln -s "$work/shadow" "$work/venv/pip.conf"
chown -h nobody "$work/venv/pip.conf"
# A folder link: the target file is readable by all, but the folder it is in is not searchable by nobody.
mkdir -m 700 "$work/private"
printf 'NCCL_DEBUG=%s\n' "$secret-2" >"$work/private/nccl.conf"
chmod 644 "$work/private/nccl.conf"
ln -s "$work/private" "$work/home/conf"
chown -h nobody "$work/home/conf"

VIRTUAL_ENV="$work/venv" NCCL_CONF_FILE="$work/home/conf/nccl.conf" \
  "$gpudoctor" bundle -o "$work/bundle.tar.gz" >/dev/null 2>"$work/err" || fail "bundle failed: $(cat "$work/err")"
mkdir "$work/unpacked"
tar -xzf "$work/bundle.tar.gz" -C "$work/unpacked"
if grep -rqa -- "$secret" "$work/unpacked"; then
  fail "a file nobody could read was recorded through nobody's link: $(grep -rla -- "$secret" "$work/unpacked" | sed -n 1,3p)"
fi
pass "the files behind the user's links are not in the bundle"
expect "$work/unpacked/manifest.json" "'skipped:$work/venv/pip.conf' in r['redacted']" "the manifest names the skipped file"
grep -q "not recorded" "$work/err" || fail "no note on stderr: $(cat "$work/err")"
pass "the bundle says what it did not record"

# Hard links in a folder nobody owns: to root's 0600 file (not recorded), to a file all may read (recorded).
mkdir "$work/hvenv" "$work/hconf"
ln "$work/shadow" "$work/hvenv/pip.conf"
printf 'NCCL_DEBUG=%s\n' "$secret-readable" >"$work/readable.conf"
chmod 644 "$work/readable.conf"
ln "$work/readable.conf" "$work/hconf/nccl.conf"
chown nobody "$work/hvenv" "$work/hconf"
VIRTUAL_ENV="$work/hvenv" NCCL_CONF_FILE="$work/hconf/nccl.conf" \
  "$gpudoctor" bundle -o "$work/hard.tar.gz" >/dev/null 2>"$work/err" || fail "bundle failed: $(cat "$work/err")"
mkdir "$work/hard"
tar -xzf "$work/hard.tar.gz" -C "$work/hard"
if grep -rqa -- "$secret:" "$work/hard"; then
  fail "root's 0600 file was recorded through a hard link in nobody's folder: $(grep -rla -- "$secret:" "$work/hard" | sed -n 1,3p)"
fi
expect "$work/hard/manifest.json" "'skipped:$work/hvenv/pip.conf' in r['redacted']" "the manifest names the hard link not recorded"
grep -q "hard link" "$work/err" || fail "no note on the hard link: $(cat "$work/err")"
grep -rqa -- "$secret-readable" "$work/hard" || fail "a hard link to a file nobody may read was not recorded"
pass "a hard link to what its folder's owner may read is recorded"

# The same links, to files nobody may read, are followed.
chmod 644 "$work/shadow"
chmod 755 "$work/private"
VIRTUAL_ENV="$work/venv" NCCL_CONF_FILE="$work/home/conf/nccl.conf" \
  "$gpudoctor" bundle -o "$work/ok.tar.gz" >/dev/null 2>"$work/err" || fail "bundle failed: $(cat "$work/err")"
mkdir "$work/ok"
tar -xzf "$work/ok.tar.gz" -C "$work/ok"
grep -rqa -- "$secret-2" "$work/ok" || fail "a link to a file its owner may read was not followed"
pass "links to what their owner may read are recorded"
