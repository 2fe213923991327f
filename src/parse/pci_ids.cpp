// pci.ids: "vvvv  Vendor" lines, "\tdddd  Device" below them, "\t\tssss ssss  Subsystem" below a device.
// One pass over ~1.3 MB that stops at the end of the device's block; lines of other vendors are skipped
// by their first byte.
#include "parse/parsers.hpp"
#include "parse/scan.hpp"

namespace gpudoctor::parse {

namespace {

std::optional<unsigned> hex4(std::string_view s) {
  if (s.size() < 4) return std::nullopt;
  unsigned v = 0;
  for (char c : s.substr(0, 4)) {
    unsigned d;
    if (c >= '0' && c <= '9')
      d = static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'f')
      d = static_cast<unsigned>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      d = static_cast<unsigned>(c - 'A' + 10);
    else
      return std::nullopt;
    v = v * 16 + d;
  }
  return v;
}

// "2335  GH100 [H200 SXM 141GB]" -> "GH100 [H200 SXM 141GB]" when the id matches.
std::optional<std::string_view> entry(std::string_view body, unsigned id) {
  auto v = hex4(body);
  if (!v || *v != id || body.size() < 5 || !detail::is_space(body[4])) return std::nullopt;
  std::string_view name = detail::trim_view(body.substr(4));
  if (name.empty()) return std::nullopt;
  return name;
}

enum class State { seek_vendor, seek_device, in_device, done };

} // namespace

std::optional<std::string> pci_ids_name(std::string_view pci_ids, unsigned vendor, unsigned device,
                                        std::optional<unsigned> subsystem_vendor,
                                        std::optional<unsigned> subsystem_device) {
  State state = State::seek_vendor;
  std::optional<std::string> device_name, subsystem_name;
  bool want_subsystem = subsystem_vendor && subsystem_device;
  detail::for_each_line(pci_ids, [&](std::string_view line) {
    if (line.empty() || line.front() == '#') return true;
    std::size_t tabs = line.find_first_not_of('\t');
    if (tabs == std::string_view::npos) return true;
    std::string_view body = line.substr(tabs);
    if (tabs == 0) { // a vendor line, or the "C xx  class" section after the vendor list
      if (state != State::seek_vendor || line.starts_with("C "))
        state = State::done;
      else if (entry(body, vendor))
        state = State::seek_device;
    } else if (tabs == 1 && state != State::seek_vendor) {
      if (state == State::in_device)
        state = State::done;
      else if (auto name = entry(body, device)) {
        device_name = std::string(*name);
        state = State::in_device;
      }
    } else if (tabs == 2 && state == State::in_device && want_subsystem) {
      auto sv = hex4(body);
      if (sv && *sv == *subsystem_vendor && body.size() > 5 && body[4] == ' ')
        if (auto name = entry(body.substr(5), *subsystem_device)) {
          subsystem_name = std::string(*name);
          state = State::done;
        }
    }
    return state != State::done;
  });
  return subsystem_name ? subsystem_name : device_name;
}

} // namespace gpudoctor::parse
