// What names a machine and its people in a recorded snapshot, for --obfuscate: the host (identity.json,
// HOSTNAME, /etc/hostname), the users (identity.json, SUDO_USER, LOGNAME, USER, the last part of a home that
// is not /root), and GPU serials and unique ids wherever a tool prints them (nvidia-smi's <serial>,
// rocm-smi's "Serial Number" and "Unique ID", amd-smi's *serial*, KFD's unique_id, sysfs serial_number and
// unique_id).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace gpudoctor {

struct Identities {
  std::vector<std::string> hosts; // as written (a name with dots also by its first label)
  std::vector<std::string> users;
  std::vector<std::string> serials;
  struct GpuId {
    std::string
        value; // AMD unique ids: "0x79cc..." (rocm-smi), "8776436624898757194" (KFD), "79cc..." (sysfs)
    bool decimal = false;
  };
  std::vector<GpuId> gpu_ids;
  // Names left as they are, each with why: a word the snapshot needs ("ubuntu" of ID=ubuntu, "root").
  std::vector<std::string> kept;
};

Identities find_identities(const std::filesystem::path& snapshot_dir);

} // namespace gpudoctor
