// The fix inventory (collect/inventory.cpp): what of each vendor's stack is on the machine, file by file and
// package by package. Recipes act on these explicit lists; the scripts check every item again before they
// touch it. Part of Facts only for fix, migrate and bundle (the report's facts.inventory, docs/snapshot.md).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace gpudoctor {

struct StackInventory {
  std::vector<std::string> packages; // what a purge removes: the stack on the dependency graph
  std::vector<std::string> held;     // of those, held (apt-mark hold)
  std::vector<std::pair<std::string, std::string>> kept; // the stack's packages left: package, who needs it
  std::vector<std::string> replacements;    // the distribution's packages installed in their place
  std::vector<std::string> orphans;         // auto-installed packages nothing needs after the purge
  std::vector<std::string> versionlocks;    // dnf versionlock entries of the packages purged
  std::vector<std::string> config_packages; // removed, configuration files left (dpkg "rc")
  std::vector<std::string> dkms;            // module/version
  std::vector<std::string> trees;           // /opt/rocm-6.2.4, /opt/rocm, /var/lib/dkms/amdgpu/6.8.5-...
  std::vector<std::string> alternatives;    // update-alternatives groups
  std::vector<std::string> sources;         // source files of this vendor only
  std::vector<std::string> source_edits;    // source files with some lines of this vendor
  std::vector<std::string> hosts;           // the vendor's repository hosts
  std::vector<std::string> keyrings, pins, ld_conf, modprobe, icd;
  std::vector<std::string> container_edits; // file, old content, new content (base64), repeated
  std::vector<std::string> cdi;             // the vendor's CDI specs (/etc/cdi, /var/run/cdi)
  std::vector<std::string> user_caches;     // folders below the homes only the stack uses (relative)
  std::vector<std::string> notes;           // what the inventory saw and leaves (a daemon.json not JSON)
  // The distribution's own builds of the stack (Ubuntu's nvidia-driver-550, Debian's rocminfo), told by
  // their Maintainer and Version: an install of the vendor's stack purges them in its step, just before it
  // installs. Those a package outside the stack needs stay: the package, and who needs it.
  std::vector<std::string> distribution;
  std::vector<std::pair<std::string, std::string>> distribution_kept;
};

// A variable a system-wide profile (/etc/environment, /etc/profile.d/*.sh, ...) sets.
struct ProfileAssignment {
  std::string file, name;
};

// A stanza of apt's preferences (/etc/apt/preferences, /etc/apt/preferences.d/*): an admin's pin, its fields
// as written (Package: names, globs or /regex/; Pin:; Pin-Priority:).
struct AptPin {
  std::string file, packages, pin, priority;
};

struct Inventory {
  StackInventory amd, nvidia;
  std::vector<std::string> homes; // login users' home folders (or the user's own)
  std::vector<ProfileAssignment> system_assignments;
  std::vector<AptPin> apt_pins; // every stanza of apt's preferences that names packages

  const StackInventory& of(const std::string& vendor) const { return vendor == "amd" ? amd : nvidia; }
};

} // namespace gpudoctor
