#!/usr/bin/env bash
# The Ansible role (contrib/ansible, docs/fleet.md) with Debian's ansible, through a chroot connection
# (community.general.chroot) into a throwaway Debian 12 root (never the machine running the test): it copies
# and installs the package of this checkout (./install.sh --deb), runs `gpudoctor check` and `gpudoctor bundle`
# there and fetches the reports and the bundle to the controller; a second run changes nothing but the
# bundle. The root gets python3 and python3-apt from the Debian archive for Ansible's modules (cached as a
# tarball named by what it holds).
# Root works in a folder of its own (docs/security.md, "Writing as root"): another user made
# /var/tmp/gpudoctor first (any user can), with a link in it to a file of root's, and a link
# /var/tmp/gpudoctor-link to a folder of theirs. The play never copies, installs or writes through either:
# the planted folders stay as they were, and pointing gpudoctor_remote_dir at them is refused.
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/../e2e/common.bash"
command -v ansible-playbook >/dev/null || skip "ansible-playbook is missing (apt-get install ansible)"
# shellcheck source=tests/root/debian_root.bash
source "$(dirname "$0")/debian_root.bash"

deb=$(package_deb)
root=$work/host1
new_root "$root" python3 python3-apt
cp -n "$cache"/apt-archives/*.deb "$root/var/cache/apt/archives/" 2>/dev/null || true
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
echo gpu-node-17 >"$root/etc/hostname"

# Another user's (uid 4242, as any account of the host) folders where root might work.
planted=$root/var/tmp/gpudoctor
mkdir -p "$planted" "$root/home/mallory/stash"
ln -s /root/planted-target "$planted/report.json"
ln -s /home/mallory/stash "$root/var/tmp/gpudoctor-link"
chown -h 4242:4242 "$planted" "$planted/report.json" "$root/home/mallory/stash" "$root/var/tmp/gpudoctor-link"
chmod 0755 "$planted"
planted_state() { (cd "$root" && find var/tmp/gpudoctor var/tmp/gpudoctor-link home/mallory -printf '%p %u %m %y %l\n' | sort); }
planted_state >"$work/planted.before"
untouched() {
  planted_state | cmp -s - "$work/planted.before" ||
    fail "$1: the play used the folders another user planted: $(planted_state | diff "$work/planted.before" - | sed -n 1,8p)"
  [[ ! -e $root/root/planted-target ]] || fail "$1: root wrote through the planted link"
}

cat >"$work/inventory.ini" <<INV
[gpu_nodes]
node17 ansible_connection=community.general.chroot ansible_host=$root ansible_python_interpreter=/usr/bin/python3
INV
cd "$work"
export HOME=$work ANSIBLE_LOCAL_TEMP=$work/ansible-tmp ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 \
  ANSIBLE_HOST_KEY_CHECKING=0 ANSIBLE_ROLES_PATH=$source_dir/contrib/ansible/roles
playbook() {
  timeout 600 ansible-playbook -i "$work/inventory.ini" "$source_dir/contrib/ansible/site.yml" \
    -e gpudoctor_become=false -e "gpudoctor_deb=$deb" -e "gpudoctor_fetch_dir=$work/fetched" "$@"
}
status=0
playbook >"$work/run1.log" 2>&1 || status=$?
untouched "the first run"
((status == 0)) || fail "ansible-playbook failed: $(tail -n 30 "$work/run1.log")"
pass "the play left the user's /var/tmp/gpudoctor and the link beside it as they were"
grep -q 'failed=0' <<<"$(grep -E '^node17 +:' "$work/run1.log")" || fail "a task failed: $(tail -n 5 "$work/run1.log")"
pass "ansible-playbook over the chroot connection: $(grep -E '^node17 +:' "$work/run1.log" | tr -s ' ')"

# shellcheck disable=SC2016 # dpkg-query's format
[[ $(in_root "$root" dpkg-query -W -f='${Status} ${Version}' gpudoctor) == 'install ok installed'* ]] ||
  fail "the role did not install the package in the root"
fetched=$work/fetched/node17
for f in report.json report.txt bundle.tar.gz; do [[ -s $fetched/$f ]] || fail "the role did not fetch $f"; done
expect "$fetched/report.json" "r['format'] == 'gpudoctor-report' and r['facts']['os']['id']['value'] == 'debian' and r['source']['kind'] == 'live'" \
  "the fetched report.json is the root's live report"
grep -q '^gpudoctor ' "$fetched/report.txt" || fail "the fetched report.txt is not a text report"
# The bundle fetched is one gpudoctor reads on the controller.
status=0
"$gpudoctor" check --from "$fetched/bundle.tar.gz" --format json >"$work/from-bundle.json" 2>"$work/from-bundle.err" ||
  status=$?
((status <= 1)) || fail "check --from the fetched bundle exited $status: $(head -c 300 "$work/from-bundle.err")"
expect "$work/from-bundle.json" "r['source']['kind'] == 'snapshot' and r['facts']['os']['id']['value'] == 'debian'" \
  "the fetched bundle replays on the controller as the root's Debian 12"

playbook >"$work/run2.log" 2>&1 || fail "the second ansible-playbook run failed: $(tail -n 30 "$work/run2.log")"
grep -q 'changed=2 ' <<<"$(grep -E '^node17 +:' "$work/run2.log")" ||
  fail "a second run changed more than the bundle and its fetch: $(grep -E '^node17 +:' "$work/run2.log")"
pass "a second run: only the new bundle and its fetch changed"

# Pointed at the planted folder or at the link, the play stops before it copies anything there.
for dir in /var/tmp/gpudoctor /var/tmp/gpudoctor-link; do
  status=0
  playbook -e "gpudoctor_remote_dir=$dir" >"$work/planted.log" 2>&1 || status=$?
  ((status != 0)) || fail "the play ran in $dir, which another user made"
  grep -q "is not a folder of root's alone" "$work/planted.log" ||
    fail "the play failed in $dir, not on its own check: $(tail -n 20 "$work/planted.log")"
  untouched "gpudoctor_remote_dir=$dir"
done
pass "gpudoctor_remote_dir naming another user's folder or link is refused, nothing copied there"

# A package that is not the one meant (its SHA-256 differs) is not installed.
status=0
playbook -e gpudoctor_deb_sha256=0000000000000000000000000000000000000000000000000000000000000000 \
  >"$work/sum.log" 2>&1 || status=$?
if ((status == 0)) || ! grep -q "not installed" "$work/sum.log"; then
  fail "a package with another SHA-256 was installed: $(tail -n 20 "$work/sum.log")"
fi
pass "a package whose SHA-256 differs is refused"

# A package file that is neither a .deb nor an .rpm is refused before anything is copied.
cp "$deb" "$work/gpudoctor.tar.gz"
status=0
playbook -e "gpudoctor_package=$work/gpudoctor.tar.gz" >"$work/ext.log" 2>&1 || status=$?
if ((status == 0)) || ! grep -q "name a .deb (Debian, Ubuntu) or an .rpm" "$work/ext.log"; then
  fail "a package named .tar.gz was not refused on its own check: $(tail -n 20 "$work/ext.log")"
fi
[[ ! -e $root/var/lib/gpudoctor-ansible/gpudoctor.tar.gz ]] || fail "the refused package was copied"
pass "a package file that is neither .deb nor .rpm is refused, nothing copied"
