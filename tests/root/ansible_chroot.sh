#!/usr/bin/env bash
# The Ansible role (contrib/ansible, docs/fleet.md) with Debian's ansible, through a chroot connection
# (community.general.chroot) into a throwaway Debian 12 root (never the machine running the test): it copies
# and installs the package of this checkout (./install.sh --deb), runs `gpudoctor check` and `gpudoctor bundle`
# there and fetches the reports and the bundle to the controller; a second run changes nothing but the
# bundle. The root gets python3 and python3-apt from the Debian archive for Ansible's modules (cached as a
# tarball named by what it holds).
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

cat >"$work/inventory.ini" <<INV
[gpu_nodes]
node17 ansible_connection=community.general.chroot ansible_host=$root ansible_python_interpreter=/usr/bin/python3
INV
cd "$work"
export HOME=$work ANSIBLE_LOCAL_TEMP=$work/ansible-tmp ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 \
  ANSIBLE_HOST_KEY_CHECKING=0 ANSIBLE_ROLES_PATH=$source_dir/contrib/ansible/roles
playbook() {
  timeout 600 ansible-playbook -i "$work/inventory.ini" "$source_dir/contrib/ansible/site.yml" \
    -e gpudoctor_become=false -e "gpudoctor_deb=$deb" -e "gpudoctor_fetch_dir=$work/fetched"
}
playbook >"$work/run1.log" 2>&1 || fail "ansible-playbook failed: $(tail -n 30 "$work/run1.log")"
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
