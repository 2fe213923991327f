#!/usr/bin/env bash
# `gpudoctor migrate --to nvidia` on Rocky Linux 9 (the RHEL family), proven with dnf itself: Debian's dnf 4
# and rpm install into an RPM root (dnf --installroot) from local repositories of dummy RPMs built from the
# graphs tests/root/graphs/rpm/*.txt (Rocky 9 with CRB disabled, EPEL with DKMS, NVIDIA's rhel9 repository
# with its nvidia-driver module streams 570-open and 580-open). The root had NVIDIA's 570 driver once: its
# stream 570-open is still enabled. The rendered script's steps run from outside in installroot mode
# (GD_INSTALLROOT: fixes/lib.bash), dnf isolated from the host's configuration, plugins and repositories.
# Asserted by what rpm and dnf's module state say afterwards; the plan --from a snapshot is the live one.
source "$(dirname "$0")/lib.bash"
for tool in dnf rpm rpmbuild createrepo_c modifyrepo_c; do
  command -v "$tool" >/dev/null || skip "$tool is missing (apt-get install dnf rpm createrepo-c)"
done

# rpm's database in the root where the RHEL family keeps it (Debian's rpm defaults to ~/.rpmdb): rpm and
# dnf read ~/.rpmmacros.
export HOME=$work
printf '%%_dbpath /var/lib/rpm\n' >"$HOME/.rpmmacros"
mirror=$work/rpm-mirror
R=$work/rocky9
"$host_python" "$root_dir/tools/make_rpms.py" "$mirror" "file://$mirror" "$root_dir"/graphs/rpm/*.txt ||
  fail "could not build the RPM repositories"

# dnf sees only this test's configuration and repositories: no host dnf.conf, plugin or .repo file.
printf '[main]\ninstallonly_limit=3\nkeepcache=0\n' >"$work/dnf.conf"
isolation=(--config="$work/dnf.conf" --noplugins --nogpgcheck)
test_dnf() { dnf -q "${isolation[@]}" --setopt=reposdir="$1" --installroot "$R" -y "${@:2}"; }
mkdir -p "$work/bootstrap.repos.d"
cat >"$work/bootstrap.repos.d/bootstrap.repo" <<EOF
[bootstrap-baseos]
name=bootstrap BaseOS
baseurl=file://$mirror/rocky/9/BaseOS/x86_64/os/
gpgcheck=0
[bootstrap-cuda]
name=bootstrap NVIDIA
baseurl=file://$mirror/compute/cuda/repos/rhel9/x86_64/
gpgcheck=0
EOF
test_dnf "$work/bootstrap.repos.d" --releasever=9 install rocky-release >"$work/bootstrap.out" 2>&1 ||
  fail "could not install rocky-release into the root: $(tail -5 "$work/bootstrap.out")"
test_dnf "$work/bootstrap.repos.d" module enable nvidia-driver:570-open >>"$work/bootstrap.out" 2>&1 ||
  fail "could not enable the stream 570-open: $(tail -5 "$work/bootstrap.out")"
# The kernel the plan is made for (a file here: the root has no /proc), the one the graph's kernel-devel is for.
kernel=5.14.0-427.13.1.el9_4.x86_64
mkdir -p "$R/proc/sys/kernel"
echo "$kernel" >"$R/proc/sys/kernel/osrelease"
# What dnf or rpm would leave on this host if anything escaped the installroot.
host_dnf_state() { ls -la --time-style=full-iso /var/log/dnf.log /var/log/hawkey.log /var/cache/dnf /etc/dnf/modules.d /var/lib/rpm 2>&1 || true; }
host_before=$(host_dnf_state)
rpm_q() { rpm --root "$R" -q --qf '%{NAME} %{EPOCH}:%{VERSION}\n' "$@" 2>/dev/null; }

# ---- the plan ---------------------------------------------------------------------------------------------------
args=(--to nvidia --mirror "file://$mirror")
script=$work/migrate.sh
"$gpudoctor" migrate "${args[@]}" --root "$R" --emit "$script" 2>"$work/emit.err" || fail "migrate --root: $(cat "$work/emit.err")"
shellcheck "$script" || fail "the migration script does not pass shellcheck"
grep -q "^GD_KERNEL=$kernel$" "$script" || fail "the script is not made for the root's kernel: $(grep '^GD_KERNEL' "$script")"
steps=(install-nvidia.epel install-nvidia.rhel-repository install-nvidia.driver-stream prepare.download
  install-nvidia.headers install-nvidia.driver install-nvidia.toolkit)
for id in "${steps[@]}"; do
  grep -q "^#  *[0-9]*\. $id " "$script" || fail "the plan has no step $id: $(grep '^#  *[0-9]*\. ' "$script")"
done
grep -qx '  gd_switch_module_stream nvidia-driver 580-open' "$script" || fail "the plan does not switch to the stream 580-open"
pass "the plan enables CRB and EPEL, adds NVIDIA's repository and switches the driver stream before the download"
same_plan_from_snapshot "$R" "${args[@]}"
pass "the plan made --from a bundle of the root is the live one"

# ---- the steps, in installroot mode -------------------------------------------------------------------------------
run_steps() {
  local id out=$1
  for id in "${steps[@]}"; do
    GD_INSTALLROOT=$R GD_DNF_OPTS=$(printf '%s\n' "${isolation[@]}" "--setopt=reposdir=$R/etc/yum.repos.d") \
      bash "$script" --any-host --step "$id" >>"$out" 2>&1 || fail "step $id failed: $(tail -15 "$out")"
  done
}
run_steps "$work/run1.out"
grep -q 'dnf switches streams only after a reset' "$work/run1.out" || fail "the stream 570-open was not reset first"
stream=$(sed -n 's/^stream=//p; s/^state=/state /p' "$R/etc/dnf/modules.d/nvidia-driver.module" | tr '\n' ' ')
[[ $stream == '580-open state enabled ' ]] || fail "dnf's module state is not 580-open enabled: $stream"
awk '/^\[crb\]/ { c = 1; next } /^\[/ { c = 0 } c && /^enabled=1$/ { ok = 1 } END { exit !ok }' \
  "$R/etc/yum.repos.d/rocky.repo" || fail "CRB is not enabled: $(cat "$R/etc/yum.repos.d/rocky.repo")"
for want in 'epel-release (none):9' 'dkms (none):3.1.5' 'kmod-nvidia-open-dkms 3:580.95.05' 'nvidia-open 3:580.95.05' \
  'nvidia-driver 3:580.95.05' 'nvidia-driver-cuda 3:580.95.05' 'cuda-toolkit-13-0 (none):13.0.2' \
  'kernel-devel (none):5.14.0'; do
  got=$(rpm_q "${want%% *}")
  [[ $got == "$want" ]] || fail "${want%% *} is not ${want#* } (rpm says: ${got:-not installed})"
done
grep -q '^570\.' <<<"$(rpm --root "$R" -qa --qf '%{VERSION}\n')" && fail "a 570 package is installed: $(rpm --root "$R" -qa | grep 570)"
compgen -G "$R/var/cache/gpudoctor/*/debs/nvidia-open-580.95.05-*.rpm" >/dev/null ||
  fail "the download step did not download nvidia-open into the script's cache"
pass "CRB enabled, EPEL's DKMS, the stream switched 570-open -> 580-open (reset first), driver 580 and CUDA 13.0 installed by dnf"

before=$(rpm --root "$R" -qa | sort)
run_steps "$work/run2.out"
[[ $(rpm --root "$R" -qa | sort) == "$before" ]] || fail "a second run changed the installed packages"
grep -q 'the module stream nvidia-driver:580-open is enabled already' "$work/run2.out" || fail "the second run did not see the stream"
grep -q 'repository crb is enabled already' "$work/run2.out" || fail "the second run did not see CRB enabled"
pass "a second run changes nothing"
# A root that has NVIDIA's own .repo file of the same address: it is reused, not defined a second time.
sed 's/^\[cuda-gpudoctor\]$/[cuda-rhel9-x86_64]/' "$R/etc/yum.repos.d/cuda-gpudoctor.repo" >"$R/etc/yum.repos.d/cuda-rhel9.repo"
rm "$R/etc/yum.repos.d/cuda-gpudoctor.repo"
steps=(install-nvidia.rhel-repository)
run_steps "$work/reuse.out"
grep -q 'reusing the repository of /etc/yum.repos.d/cuda-rhel9.repo' "$work/reuse.out" || fail "NVIDIA's .repo was not reused: $(cat "$work/reuse.out")"
[[ ! -e $R/etc/yum.repos.d/cuda-gpudoctor.repo ]] || fail "a second .repo file of NVIDIA's repository was written"
pass "a .repo file of the same address (NVIDIA's cuda-rhel9.repo) is reused, not defined twice"
# ---- the purge: rpm's database read through rpm --root, the module reset ----------------------------------------
purge=$work/purge-nvidia.sh
"$gpudoctor" fix purge-nvidia --root "$R" --emit "$purge" 2>"$work/purge.err" || fail "fix purge-nvidia --root: $(cat "$work/purge.err")"
nvidia_packages=$(rpm --root "$R" -qa --qf '%{NAME}\n' | grep -E '^(nvidia-|kmod-nvidia|cuda-|libcublas)' | sort | tr '\n' ' ')
purge_list=$(sed -n 's/^  gd_purge_packages \(.*\) --.*/\1/p' "$purge" | tr ' ' '\n' | sort | tr '\n' ' ')
[[ $purge_list == "$nvidia_packages" ]] || fail "the purge list is not NVIDIA's installed packages: '$purge_list' vs '$nvidia_packages'"
same_plan_from_snapshot "$R" --to amd --mirror "file://$mirror"
pass "the purge list is every NVIDIA package rpm has (${nvidia_packages% }), not dkms or the kernel's; migrate --to amd --from a bundle of the root is the live plan"
steps=(purge-nvidia.packages purge-nvidia.driver-module)
script=$purge
run_steps "$work/purge.out"
left=$(rpm --root "$R" -qa --qf '%{NAME}\n' | grep -E '^(nvidia-|kmod-nvidia|cuda-|libcublas)' || true)
[[ -z $left ]] || fail "NVIDIA's packages are still installed: $left"
for p in dkms kernel-devel epel-release rocky-release; do rpm --root "$R" -q "$p" >/dev/null || fail "the purge took $p"; done
grep -q '^state=$' "$R/etc/dnf/modules.d/nvidia-driver.module" || fail "the nvidia-driver module is not reset: $(cat "$R/etc/dnf/modules.d/nvidia-driver.module")"
pass "dnf removed NVIDIA's packages (not dkms, the kernel's or EPEL's) and reset the nvidia-driver module"

[[ $(host_dnf_state) == "$host_before" ]] || fail "dnf or rpm changed this host: $(diff <(echo "$host_before") <(host_dnf_state))"
pass "nothing of dnf's or rpm's state on this host changed (logs, cache, module state, rpm database)"
