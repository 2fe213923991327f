#!/usr/bin/env bash
# Remakes snapshot/ (needs root): the ROCm 6 workstation of tests/root/lib.bash, installed by apt from the real
# package graphs, dressed as the Ubuntu 22.04 machine it stands for (os-release, the archive's and AMD's
# https sources), with the sysfs of tests/machines/nvidia-nouveau (the GeForce RTX 3060 that replaced the AMD
# card, taken by nouveau), recorded with `gpudoctor bundle --root` and the venv found through VIRTUAL_ENV.
# Usage: tests/fixes/machines/ubuntu2204-rocm6/make-snapshot.sh path/to/gpudoctor SOURCE-DIR
source "$2/tests/root/lib.bash"
root_setup
R=$roots/ws
new_machine rocm6 "$R"
nouveau=$source_dir/tests/machines/nvidia-nouveau/snapshot
cat >"$R/etc/os-release" <<'OS'
PRETTY_NAME="Ubuntu 22.04.4 LTS"
NAME="Ubuntu"
VERSION_ID="22.04"
VERSION="22.04.4 LTS (Jammy Jellyfish)"
VERSION_CODENAME=jammy
ID=ubuntu
ID_LIKE=debian
HOME_URL="https://www.ubuntu.com/"
UBUNTU_CODENAME=jammy
OS
printf 'deb http://archive.ubuntu.com/ubuntu jammy main restricted universe multiverse\ndeb http://archive.ubuntu.com/ubuntu jammy-updates main restricted universe multiverse\n' >"$R/etc/apt/sources.list"
sed -i 's|http://repo.radeon.com|https://repo.radeon.com|' "$R"/etc/apt/sources.list.d/*.list
cp -a "$nouveau/fs/sys/." "$R/sys/"
cp -a "$nouveau/fs/proc/." "$R/proc/"
"$gpudoctor" bundle --root "$R" --python /home/sam/venv/bin/python3 -o "$work/ws.tar.gz" >/dev/null
out=$source_dir/tests/fixes/machines/ubuntu2204-rocm6/snapshot
rm -rf "$out"
mkdir -p "$out"
tar -C "$out" -xzf "$work/ws.tar.gz"
rm -f "$out/report.json" "$out/report.txt"
"$host_python" - "$out" "$nouveau" <<'PY'
import json, sys
out = sys.argv[1]
ident = {"user": "root", "uid": 0, "gid": 0, "groups": ["root"], "gids": [0], "home": "/root", "hostname": "ws-gpu07"}
json.dump(ident, open(out + "/identity.json", "w"), indent=2)
env = {"PATH": "/home/sam/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
       "HOME": "/root", "USER": "root", "LOGNAME": "root", "LANG": "C.UTF-8", "SUDO_USER": "sam",
       "VIRTUAL_ENV": "/home/sam/venv"}
json.dump(env, open(out + "/env.json", "w"), indent=2)
# The GPU's device nodes from nvidia-nouveau, the venv's python (VIRTUAL_ENV's candidate), and what was recorded.
stat = json.load(open(out + "/stat.json"))
stat.update(json.load(open(sys.argv[2] + "/stat.json")))
stat["/home/sam/venv/bin/python3"] = {"type": "file", "mode": "0755", "uid": 1000, "gid": 1000, "group": "sam"}
json.dump(stat, open(out + "/stat.json", "w"), indent=2, sort_keys=True)
PY
"$source_dir/tests/machines/add-keep-files.sh" "$out"
echo "wrote $out"
