#include "probe/probe_compile.hpp"

#include "system/root_trust.hpp"
#include "system/temp_files.hpp"
#include "system/view_lookup.hpp"
#include "util/file_text.hpp"
#include "util/temp_dir.hpp"
#include "util/text.hpp"

#include <cstdio>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace gpudoctor::probe {

namespace fs = std::filesystem;

namespace {

constexpr std::chrono::milliseconds k_compile_timeout{600000};

// FNV-1a, 64 bits: a cache key, not a security boundary (the cache is the user's own folder).
struct Hash {
  std::uint64_t h = 1469598103934665603ull;
  void add(std::string_view s) {
    for (unsigned char c : s)
      h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull; // field separator
  }
  std::string hex() const {
    char buf[20];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
  }
};

std::optional<std::string> find_compiler(SystemView& view, const std::string& backend) {
  const bool cuda = backend == "cuda";
  const std::string name = cuda ? "nvcc" : "hipcc";
  if (auto on_path = find_on_path(view, name)) return on_path;
  std::vector<std::string> candidates;
  for (const char* var :
       cuda ? std::vector<const char*>{"CUDA_HOME", "CUDA_PATH"} : std::vector<const char*>{"ROCM_PATH"})
    if (auto dir = view.env(var); dir && !dir->empty() && (*dir)[0] == '/')
      candidates.push_back(*dir + "/bin/" + name);
  candidates.push_back(cuda ? "/usr/local/cuda/bin/nvcc" : "/opt/rocm/bin/hipcc");
  for (const auto& c : candidates)
    if (auto st = view.stat(c); st && st->type == FileType::file) return c;
  return std::nullopt;
}

// The nearest folder of `p` that exists (itself, or one above it).
fs::path existing_part(fs::path p) {
  struct stat st {};
  while (p.has_relative_path() && ::lstat(p.c_str(), &st) != 0)
    p = p.parent_path();
  return p;
}

// $XDG_CACHE_HOME/gpudoctor, else ~/.cache/gpudoctor. Run as root, the cache holds programs root runs and
// files root writes, so it must be a folder no other user can change (system/root_trust): the $HOME or
// $XDG_CACHE_HOME a `sudo -E` passed on from a user is passed over for root's own home (the user database's);
// the error says why none would do.
std::expected<fs::path, std::string> cache_root(SystemView& view) {
  std::vector<fs::path> candidates;
  if (auto xdg = view.env("XDG_CACHE_HOME"); xdg && !xdg->empty() && (*xdg)[0] == '/')
    candidates.push_back(fs::path(*xdg) / "gpudoctor");
  if (auto home = view.env("HOME"); home && !home->empty() && (*home)[0] == '/')
    candidates.push_back(fs::path(*home) / ".cache" / "gpudoctor");
  if (::geteuid() != 0) {
    if (!candidates.empty()) return candidates.front();
    // Never the current folder (temp_directory_path(ec) gives an empty path for a bad TMPDIR).
    return temp_root().value_or(fs::path("/tmp")) / ("gpudoctor-cache-" + std::to_string(::getuid()));
  }
  if (auto home = home_of(0); home && !home->empty() && (*home)[0] == '/')
    candidates.push_back(fs::path(*home) / ".cache" / "gpudoctor");
  std::string refused;
  for (const auto& c : candidates) {
    fs::path judged = existing_part(c);
    auto d = distrust_for_root(judged.string());
    if (!d) return c;
    if (refused.empty()) refused = fmt::format("{} ({})", c.string(), d->describe(judged.string()));
  }
  return std::unexpected(fmt::format(
      "as root, the probes are built and run only in a folder no other user can change, and the cache {} is "
      "not one",
      refused.empty() ? std::string("has no home") : refused));
}

std::string tail_of(const std::string& s, std::size_t lines) {
  auto all = text::lines(text::trim(s));
  std::size_t from = all.size() > lines ? all.size() - lines : 0;
  std::vector<std::string> kept(all.begin() + static_cast<std::ptrdiff_t>(from), all.end());
  return text::join(kept, " | ");
}

std::string program_name(const std::string& backend, const std::string& program) {
  return "gpudoctor-probe-" + backend + (program == "kernels" ? "-kernels" : "");
}

// Runs the compiler for one program; the result lands at `out` only when it succeeded.
std::expected<void, std::string> build(SystemView& view, const std::string& compiler,
                                       const std::string& backend, const std::string& program,
                                       const std::vector<std::string>& target_flags, const fs::path& sources,
                                       const std::vector<std::string>& files, const fs::path& dir) {
  fs::path out = dir / program_name(backend, program);
  fs::path tmp = out.string() + ".tmp" + std::to_string(::getpid());
  std::vector<std::string> argv = {compiler, "-O3", "-std=c++17"};
  if (backend == "hip") argv.push_back("-D__HIP_PLATFORM_AMD__");
  argv.insert(argv.end(), target_flags.begin(), target_flags.end());
  for (const auto& inc : {dir, sources})
    argv.insert(argv.end(), {"-I", inc.string()});
  argv.insert(argv.end(), {"-o", tmp.string()});
  // hipcc compiles .cpp as HIP for every target; the host files need no device code, so they go as C++.
  if (backend == "hip") argv.insert(argv.end(), {"-x", "c++"});
  for (const auto& f : files)
    if (backend != "hip" || !text::ends_with(f, ".cu")) argv.push_back((sources / f).string());
  if (backend == "hip") {
    bool kernels = false;
    for (const auto& f : files)
      if (text::ends_with(f, ".cu")) {
        if (!kernels) argv.insert(argv.end(), {"-x", "hip"});
        kernels = true;
        argv.push_back((sources / f).string());
      }
  }
  std::string key = "probe-build@" + backend + (program == "kernels" ? "-kernels" : "");
  temp::track(tmp); // the compiler's half-written output goes if gpudoctor is interrupted
  auto r = view.run({key, argv, k_compile_timeout, {}});
  temp::untrack(tmp);
  std::error_code ec;
  if (!r.ok()) {
    fs::remove(tmp, ec);
    std::string why = r.timed_out   ? "timed out"
                      : r.exit_code ? "exit " + std::to_string(*r.exit_code)
                                    : "killed";
    return std::unexpected(why + ": " + tail_of(r.err + "\n" + r.out, 4));
  }
  fs::rename(tmp, out, ec);
  if (ec) return std::unexpected("cannot place " + out.string() + ": " + ec.message());
  return {};
}

} // namespace

std::expected<std::vector<std::string>, std::string> source_list(const fs::path& sources,
                                                                 const std::string& program) {
  auto text = read_whole_file(sources / "sources.txt");
  if (!text) return std::unexpected("no sources.txt in " + sources.string());
  for (const auto& line : text::lines(*text)) {
    std::string t = text::trim(line);
    if (t.empty() || t[0] == '#' || !text::starts_with(t, program + ":")) continue;
    auto files = text::split(t.substr(program.size() + 1), ' ');
    if (!files.empty()) return files;
  }
  return std::unexpected("sources.txt in " + sources.string() + " lists no files for " + program);
}

Targets probe_targets(const std::string& backend, const Facts& facts) {
  const Vendor vendor = backend == "cuda" ? Vendor::nvidia : Vendor::amd;
  std::set<std::string> archs;
  bool unknown = false;
  for (const auto& gpu : facts.gpus) {
    if (gpu.vendor != vendor) continue;
    std::string arch = gpu.arch();
    arch = arch.substr(0, arch.find(':'));
    bool usable = vendor == Vendor::nvidia ? text::starts_with(arch, "sm_") && arch.size() > 3
                                           : text::starts_with(arch, "gfx") && arch.size() > 3;
    if (usable)
      archs.insert(arch);
    else
      unknown = true;
  }
  Targets t;
  if (archs.empty() || unknown) {
    t.names = backend == "cuda" ? "nvcc's default arch, with PTX" : "the GPUs hipcc detects";
    return t;
  }
  for (const auto& arch : archs) {
    if (vendor == Vendor::nvidia) {
      std::string n = arch.substr(3);
      t.flags.push_back("-gencode=arch=compute_" + n + ",code=[sm_" + n + ",compute_" + n + "]");
    } else {
      t.flags.push_back("--offload-arch=" + arch);
    }
  }
  t.names = text::join(std::vector<std::string>(archs.begin(), archs.end()), " ");
  return t;
}

std::string nothing_to_probe(const std::string& backend, const Facts& facts) {
  if (backend == "hip") {
    if (facts.count(Vendor::amd) > 0 || facts.amd.kfd_device || facts.modules.has("amdgpu")) return {};
    return "no AMD GPU, no /dev/kfd and no amdgpu module here: the HIP probes are not compiled";
  }
  if (facts.count(Vendor::nvidia) > 0 || facts.modules.has("nvidia") || facts.nvidia.kernel_module_version)
    return {};
  return "no NVIDIA GPU and no nvidia module here: the CUDA probes are not compiled";
}

std::expected<ProbePrograms, std::string> compile_probes(const std::string& backend, SystemView& view,
                                                         const Facts& facts, const fs::path& sources,
                                                         const ProbeSay& say) {
  const std::string title = backend == "cuda" ? "CUDA" : "HIP";
  auto compiler = find_compiler(view, backend);
  if (!compiler)
    return std::unexpected("no prebuilt " + title + " probes beside gpudoctor, and no " +
                           (backend == "cuda" ? "nvcc (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)"
                                              : "hipcc (PATH, $ROCM_PATH/bin, /opt/rocm/bin)") +
                           " to compile them");
  auto version =
      view.run({"probe-compiler@" + backend, {*compiler, "--version"}, std::chrono::seconds(30), {}});
  if (!version.ok()) return std::unexpected(*compiler + " --version failed: " + tail_of(version.err, 2));
  Targets targets = probe_targets(backend, facts);

  Hash hash;
  for (const auto& part : {backend, *compiler, version.out})
    hash.add(part);
  for (const auto& f : targets.flags)
    hash.add(f);
  std::vector<std::string> programs = {"host", "kernels"};
  std::map<std::string, std::vector<std::string>> files;
  for (const auto& program : programs) {
    auto list = source_list(sources, program);
    if (!list) return std::unexpected(list.error());
    files[program] = *list;
  }
  for (const auto& name : {std::string("sources.txt"), std::string("gpu_compat.h"),
                           std::string("probe_common.h"), std::string("probes.h"), std::string("kernels.h")})
    hash.add(name + "\n" + read_whole_file(sources / name).value_or(""));
  for (const auto& [program, list] : files)
    for (const auto& f : list)
      hash.add(f + "\n" + read_whole_file(sources / f).value_or(""));

  auto cache = cache_root(view);
  if (!cache) return std::unexpected(cache.error());
  fs::path dir = *cache / "probes" / (backend + "-" + hash.hex());
  ProbePrograms out{(dir / program_name(backend, "host")).string(),
                    (dir / program_name(backend, "kernels")).string(), ""};
  std::error_code ec;
  if (fs::exists(out.host, ec) && fs::exists(out.kernels, ec)) {
    out.how =
        "cached in " + dir.string() + " (compiled earlier with " + *compiler + " for " + targets.names + ")";
    return out;
  }
  // A build folder made now is a temporary one until its programs are in it: removed if gpudoctor is
  // interrupted while the compiler runs.
  bool fresh = !fs::exists(dir, ec);
  fs::create_directories(dir, ec);
  if (ec) return std::unexpected("cannot create the probe cache " + dir.string() + ": " + ec.message());
  if (::geteuid() == 0)
    if (auto d = distrust_for_root(dir.string())) // made with a umask that lets others write it
      return std::unexpected(fmt::format("as root, the probes are built and run only in a folder no other "
                                         "user can change, and the cache {} is {}",
                                         dir.string(), d->describe(dir.string())));
  struct Registered {
    fs::path dir;
    ~Registered() {
      if (!dir.empty()) temp::untrack(dir);
    }
  } registered{fresh ? dir : fs::path()};
  if (fresh) temp::track(dir);
  if (auto written = write_whole_file(dir / "gpudoctor_probe_targets.h",
                                      "#define GPUDOCTOR_PROBE_TARGETS \"" + targets.names + "\"\n");
      !written)
    return std::unexpected("cannot fill the probe cache: " + written.error());
  if (say)
    say("compiling the " + title + " probes with " + *compiler + " for " + targets.names +
        " (once; cached in " + dir.string() + ")");
  for (const auto& program : programs) {
    auto built = build(view, *compiler, backend, program, targets.flags, sources, files[program], dir);
    if (!built && !targets.flags.empty()) {
      // A GPU newer than the toolkit: its default target (PTX for NVIDIA) may still run there.
      if (say) say("the " + title + " compiler refused " + targets.names + "; trying its default target");
      targets = Targets{{}, backend == "cuda" ? "nvcc's default arch, with PTX" : "hipcc's default target"};
      built = build(view, *compiler, backend, program, targets.flags, sources, files[program], dir);
    }
    if (!built)
      return std::unexpected("compiling the " + title + " probes with " + *compiler + " failed (" +
                             built.error() + ")");
  }
  out.how = "compiled now with " + *compiler + " for " + targets.names + ", cached in " + dir.string();
  return out;
}

} // namespace gpudoctor::probe
