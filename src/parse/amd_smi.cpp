// amd-smi list / static, text and JSON, and its version lines. The text form is "GPU: 0" followed by
// indented "KEY: value" lines; a key without a value opens a section ("ASIC:", "DRIVER:"). The JSON form
// has the same names in lower case, sections as objects, and in newer releases numbers as
// {"value": 196592, "unit": "MB"}.
#include "parse/json_doc.hpp"
#include "parse/parsers_system.hpp"
#include "parse/scan.hpp"
#include "util/text.hpp"

namespace gpudoctor::parse {

namespace {

constexpr std::size_t k_max_gpus = 4096;

// "196592 MB", "192 GB", "196592" -> MB.
std::optional<long long> megabytes(std::string_view v) {
  std::size_t pos = 0;
  auto n = text::to_int(detail::next_token(v, pos));
  if (!n || *n < 0 || *n > (1LL << 40)) return std::nullopt;
  std::string unit = text::lower(detail::next_token(v, pos));
  if (unit == "gb" || unit == "gib") return *n * 1024;
  if (unit == "kb" || unit == "kib") return *n / 1024;
  if (unit.empty() || unit == "mb" || unit == "mib") return n;
  return std::nullopt;
}

void set_field(AmdSmiGpu& g, std::string_view section, std::string_view raw_key, std::string_view raw_value) {
  std::string_view value = detail::trim_view(raw_value);
  if (value.empty() || value == "N/A") return;
  std::string key = text::lower(detail::trim_view(raw_key));
  std::string v(value);
  auto number = [&](int base = 10) { return text::to_int(value, base); };
  if (key == "bdf")
    g.bdf = text::lower(v);
  else if (key == "uuid")
    g.uuid = v;
  else if (key == "kfd_id")
    g.kfd_id = number();
  else if (key == "node_id")
    g.node_id = number();
  else if (key == "partition_id")
    g.partition_id = number();
  else if (key == "market_name")
    g.market_name = v;
  else if (key == "vendor_id")
    g.vendor_id = v;
  else if (key == "device_id")
    g.device_id = v;
  else if (key == "subsystem_id")
    g.subsystem_id = v;
  else if (key == "rev_id")
    g.rev_id = v;
  else if (key == "target_graphics_version")
    g.target_graphics_version = v;
  else if (key == "num_compute_units")
    g.num_compute_units = number();
  else if (key == "oam_id")
    g.oam_id = number();
  else if (key == "compute_partition")
    g.compute_partition = v;
  else if (key == "memory_partition")
    g.memory_partition = v;
  else if (key == "driver_version" || (section == "driver" && key == "version"))
    g.driver_version = v;
  else if (section == "driver" && (key == "name" || key == "driver_name"))
    g.driver_name = v;
  else if (key == "vbios_version" || (section == "vbios" && key == "version"))
    g.vbios_version = v;
  else if (section == "board" && key == "product_name")
    g.board_product_name = v;
  else if (key == "vram_type" || (section == "vram" && key == "type"))
    g.vram_type = v;
  else if (key == "vram_size" || key == "vram_size_mb" || (section == "vram" && key == "size"))
    g.vram_size_mb = megabytes(v);
}

// A JSON scalar as text; {"value": 196592, "unit": "MB"} as "196592 MB".
std::optional<std::string> scalar(const detail::JsonDoc& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_number_integer()) return std::to_string(j.get<long long>());
  if (j.is_number_unsigned()) return std::to_string(j.get<unsigned long long>());
  if (j.is_object()) {
    auto it = j.find("value");
    if (it == j.end() || it->is_structured()) return std::nullopt;
    auto v = scalar(*it);
    if (!v) return std::nullopt;
    std::string unit = detail::json_text(j, "unit");
    return unit.empty() ? *v : *v + " " + unit;
  }
  return std::nullopt;
}

void json_gpu(const detail::JsonDoc& j, std::vector<AmdSmiGpu>& out) {
  if (!j.is_object() || out.size() >= k_max_gpus) return;
  AmdSmiGpu g;
  if (auto n = detail::json_integer(j, "gpu"); n && *n >= 0 && *n < 1'000'000) g.gpu = static_cast<int>(*n);
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (auto v = scalar(it.value())) {
      set_field(g, "", it.key(), *v);
    } else if (it.value().is_object()) {
      std::string section = text::lower(it.key());
      for (auto f = it.value().begin(); f != it.value().end(); ++f)
        if (auto fv = scalar(f.value())) set_field(g, section, f.key(), *fv);
    }
  }
  out.push_back(std::move(g));
}

std::vector<AmdSmiGpu> json_gpus(const detail::JsonDoc& j) {
  std::vector<AmdSmiGpu> out;
  const detail::JsonDoc* list = &j;
  if (j.is_object()) {
    auto it = j.find("gpu_data");
    if (it == j.end()) {
      json_gpu(j, out); // a single GPU object
      return out;
    }
    list = &*it;
  }
  if (list->is_array())
    for (const auto& e : *list)
      json_gpu(e, out);
  return out;
}

std::vector<AmdSmiGpu> text_gpus(std::string_view text) {
  std::vector<AmdSmiGpu> out;
  bool in_gpu = false;
  std::vector<std::pair<std::size_t, std::string>> sections; // (indent, lower-case name), innermost last
  detail::for_each_line(text, [&](std::string_view line) {
    std::string_view t = detail::trim_view(line);
    std::size_t colon = t.find(':');
    if (t.empty() || colon == std::string_view::npos) return;
    std::size_t indent = detail::indent_of(line);
    std::string_view key = detail::trim_view(t.substr(0, colon)),
                     value = detail::trim_view(t.substr(colon + 1));
    if (indent == 0) {
      in_gpu = key == "GPU" && out.size() < k_max_gpus;
      sections.clear();
      if (in_gpu) {
        out.emplace_back();
        auto n = text::to_int(value);
        if (n && *n >= 0 && *n < 1'000'000) out.back().gpu = static_cast<int>(*n);
      }
      return;
    }
    if (!in_gpu) return;
    while (!sections.empty() && sections.back().first >= indent)
      sections.pop_back();
    if (value.empty()) {
      if (sections.size() < 64) sections.emplace_back(indent, text::lower(key));
      return;
    }
    set_field(out.back(), sections.empty() ? std::string_view() : sections.back().second, key, value);
  });
  return out;
}

// The token after `label`, when it starts with a digit.
std::string version_after(std::string_view line, std::string_view label) {
  std::size_t at = line.find(label);
  if (at == std::string_view::npos) return {};
  std::size_t pos = at + label.size();
  std::string_view tok = detail::next_token(line, pos);
  if (tok.empty() || !detail::is_digit(tok.front())) return {};
  return std::string(tok.substr(0, 128));
}

} // namespace

std::vector<AmdSmiGpu> amd_smi_gpus(std::string_view text) {
  std::string_view t = detail::trim_view(text);
  if (t.starts_with('[') || t.starts_with('{')) {
    auto j = detail::json_document(t);
    return j ? json_gpus(*j) : std::vector<AmdSmiGpu>{};
  }
  return text_gpus(text);
}

std::optional<AmdSmiVersion> amd_smi_version(std::string_view text) {
  AmdSmiVersion v;
  detail::for_each_line(text, [&](std::string_view line) {
    for (auto label : {"AMDSMI Tool:", "AMD-SMI ", "Management Interface | Version:"})
      if (v.tool.empty()) v.tool = version_after(line, label);
    if (v.library.empty()) v.library = version_after(line, "AMDSMI Library version:");
    if (v.rocm.empty()) v.rocm = version_after(line, "ROCm version:");
    if (v.amdgpu.empty()) v.amdgpu = version_after(line, "amdgpu version:");
  });
  if (v.tool.empty() && v.library.empty() && v.rocm.empty() && v.amdgpu.empty()) return std::nullopt;
  return v;
}

} // namespace gpudoctor::parse
