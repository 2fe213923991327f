// What a compiled extension was built for, from what its files say: the version's local label
// (+cu123torch2.4, +rocm6.1), the names of its shared libraries (libbitsandbytes_cuda121.so) and their
// DT_NEEDED (libcudart.so.12, libamdhip64.so.6, libc10_cuda.so). python.extension-mismatch judges it.
#include "collect/link_facts.hpp"
#include "parse/parsers_layer.hpp"
#include "util/text.hpp"

#include <cctype>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

std::string leading_digits(const std::string& s, std::size_t at) {
  std::string d;
  while (at < s.size() && std::isdigit(static_cast<unsigned char>(s[at])))
    d += s[at++];
  return d;
}

// "121" (libbitsandbytes_cuda121.so) -> 12, as in a cu121 label.
std::optional<int> cuda_major_of(const std::string& digits) {
  return parse::version_label(fmt::format("+cu{}", digits)).and_then([](const VersionLabel& l) {
    return l.cuda_major;
  });
}

// "libcudart.so.12" -> 12, "libamdhip64.so.6" -> 6: the first number after ".so.".
std::optional<int> so_major(const std::string& name) {
  auto at = name.find(".so.");
  if (at == std::string::npos) return std::nullopt;
  auto d = leading_digits(name, at + 4);
  if (d.empty() || d.size() > 3) return std::nullopt;
  return static_cast<int>(*text::to_int(d));
}

void from_label(const CompiledExtension& x, ExtensionBuild& b) {
  auto label = parse::version_label(x.version);
  if (!label) return;
  if (label->cuda || label->rocm)
    b.evidence.push_back(fmt::format("{} {}: version label +{}", x.dist, x.version, label->label));
  b.cuda = label->cuda, b.cuda_major = label->cuda_major;
  b.rocm = label->rocm, b.rocm_major = label->rocm_major;
  b.torch_release = label->torch_release;
}

void from_library(const CompiledExtension::Library& lib, ExtensionBuild& b) {
  std::string name = lib.path.substr(lib.path.rfind('/') + 1);
  std::string lower = text::lower(name);
  // bitsandbytes names its libraries by backend and version: libbitsandbytes_cuda121.so, _rocm63, _hip.
  if (auto at = lower.find("_cuda"); at != std::string::npos && !leading_digits(lower, at + 5).empty()) {
    b.cuda = true;
    if (!b.cuda_major) b.cuda_major = cuda_major_of(leading_digits(lower, at + 5));
    b.evidence.push_back(fmt::format("library {}", lib.path));
  }
  if (text::contains(lower, "_rocm") || text::contains(lower, "_hip")) {
    b.rocm = true;
    b.evidence.push_back(fmt::format("library {}", lib.path));
  }
  if (!lib.needed) return;
  for (const auto& n : *lib.needed) {
    bool cuda = text::starts_with(n, "libcudart.so") || text::starts_with(n, "libcublas") ||
                text::starts_with(n, "libnvrtc.so") || n == "libc10_cuda.so" || n == "libtorch_cuda.so";
    bool rocm = text::starts_with(n, "libamdhip64.so") || text::starts_with(n, "libhipblas") ||
                n == "libc10_hip.so" || n == "libtorch_hip.so";
    if (!cuda && !rocm) continue;
    b.evidence.push_back(fmt::format("elf-needed@{}: {}", lib.path, n));
    if (cuda) {
      b.cuda = true;
      if (text::starts_with(n, "libcudart.so") && so_major(n)) b.cuda_major = so_major(n);
    } else {
      b.rocm = true;
      if (text::starts_with(n, "libamdhip64.so") && so_major(n)) b.rocm_major = so_major(n);
    }
  }
}

} // namespace

ExtensionBuild extension_build(const CompiledExtension& x) {
  ExtensionBuild b;
  from_label(x, b);
  for (const auto& lib : x.libraries)
    from_library(lib, b);
  return b;
}

} // namespace gpudoctor
