// The local version label of a compiled extension's wheel (PEP 440 "+local"): what flash-attn, bitsandbytes,
// torchvision and the like say they were built for ("+cu123torch2.4cxx11abiFALSE", "+rocm6.1", "+cu121").
#include "parse/parsers_layer.hpp"
#include "util/text.hpp"

namespace gpudoctor::parse {

namespace {

std::string leading_digits(std::string_view s, std::size_t at) {
  std::string d;
  while (at < s.size() && s[at] >= '0' && s[at] <= '9' && d.size() < 8)
    d += s[at++];
  return d;
}

std::optional<int> digits_to_int(std::string_view digits) {
  return text::to_int(digits).transform([](long long v) { return static_cast<int>(v); });
}

// "123" -> 12 (cu123), "118" -> 11, "12" -> 12, "130" -> 13: CUDA majors have two digits since CUDA 10.
std::optional<int> cuda_major_of(const std::string& digits) {
  if (digits.size() == 3 || digits.size() == 2) return digits_to_int(digits.substr(0, 2));
  return std::nullopt;
}

} // namespace

std::optional<VersionLabel> version_label(std::string_view version) {
  auto plus = version.find('+');
  if (plus == std::string_view::npos) return std::nullopt;
  VersionLabel v;
  v.label = text::lower(version.substr(plus + 1));
  const std::string& label = v.label;
  if (text::starts_with(label, "cu")) {
    auto d = leading_digits(label, 2);
    if (!d.empty()) v.cuda = true, v.cuda_major = cuda_major_of(d);
  } else if (text::starts_with(label, "rocm")) {
    auto d = leading_digits(label, 4);
    bool dotted = 4 + d.size() < label.size() && label[4 + d.size()] == '.';
    // "rocm6.1": the digits before the dot; "rocm61": ROCm's majors have had one digit.
    if (!d.empty()) v.rocm = true, v.rocm_major = dotted ? digits_to_int(d) : digits_to_int(d.substr(0, 1));
  }
  if (auto t = label.find("torch"); t != std::string::npos) {
    std::string rest = label.substr(t + 5);
    std::string release = text::version_prefix(rest.substr(0, rest.find_first_not_of("0123456789.")), 2);
    if (release.find('.') != std::string::npos) v.torch_release = release;
  }
  return v;
}

} // namespace gpudoctor::parse
