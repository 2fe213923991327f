// Installed packages and the package sources of the GPU vendors.
#pragma once

#include "facts/fact.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

// Installed distribution packages (dpkg status, or `rpm -qa`).
struct PackageFacts {
  bool readable = false;
  std::string manager; // "dpkg" or "rpm"
  std::string source;
  // Not read for a bound (system/input_limits.hpp): why ("... lists 150000 packages, more than ..."); the
  // checks that need the package list skip with it, and no plan is made without it.
  std::string over_limit;
  std::map<std::string, std::string> installed;            // name -> version
  std::map<std::string, std::vector<std::string>> depends; // name -> what it depends on (dpkg only)
  std::optional<std::string> version_of(const std::string& name) const {
    auto it = installed.find(name);
    if (it == installed.end()) return std::nullopt;
    return it->second;
  }
};

// A package source of a GPU vendor, or a PyTorch wheel index, configured on the machine.
struct RepoSource {
  std::string vendor; // "amd", "nvidia", "pytorch" (knowledge vendor_repos)
  std::string kind;   // "apt", "dnf", "pip"
  std::string uri;    // apt URI, dnf baseurl, pip index URL, as written
  std::string suite;  // apt suite ("jammy", or an exact path ending in '/'); empty otherwise
  std::string origin; // "/etc/apt/sources.list.d/rocm.list:1", "env PIP_EXTRA_INDEX_URL"
  bool enabled = true;
  bool release_specific = true; // the repository publishes per OS release (knowledge vendor_repos)
};

// What fetching one repository URL gave (`check --online`).
struct RepoProbe {
  std::string url;
  std::string origin;   // the RepoSource's origin
  bool reached = false; // an HTTP answer below 400
  std::optional<long> http_status;
  std::string error; // transport error: DNS, proxy, TLS, refused, time limit
  long duration_ms = 0;
};

struct RepoFacts {
  std::vector<RepoSource> sources;
  std::vector<std::string> files;    // source files read (apt, dnf, pip)
  Fact<std::string> ubuntu_codename; // os-release UBUNTU_CODENAME (Mint, Pop!_OS name their Ubuntu base)
  bool online = false;               // the probes ran (check --online on a live machine)
  std::vector<RepoProbe> probes;
};

} // namespace gpudoctor
