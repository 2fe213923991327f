// nvidia-smi -q -x without an XML library: a tolerant tag scanner that tracks the element path and keeps
// the few leaf values gpudoctor needs. Unbalanced, truncated or garbage input yields what was read.
#include "parse/nvidia_smi_health.hpp"
#include "parse/parsers.hpp"
#include "parse/scan.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <array>
#include <initializer_list>

namespace gpudoctor::parse {

namespace {

constexpr std::size_t k_max_depth = 128;

bool name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool name_char(char c) {
  return name_start(c) || detail::is_digit(c) || c == '-' || c == '.' || c == ':';
}

struct Element {
  std::string_view name;
  std::size_t content_start = 0;
  bool has_child = false;
};

// The five predefined entities; nvidia-smi writes no others.
std::string decode_entities(std::string_view s) {
  static constexpr std::pair<std::string_view, char> k_entities[] = {
      {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
  std::string out;
  out.reserve(s.size());
  while (!s.empty()) {
    auto it = std::find_if(std::begin(k_entities), std::end(k_entities),
                           [&](const auto& e) { return s.starts_with(e.first); });
    out += it == std::end(k_entities) ? s.front() : it->second;
    s.remove_prefix(it == std::end(k_entities) ? 1 : it->first.size());
  }
  return out;
}

// "37 C", "67.03 W": a number, a space and `unit`; "N/A" and anything else leaves `sink` as it is.
// `overwrite`: a reading that is there already is replaced (false: kept).
void set_reading(std::optional<double>& sink, std::string_view value, std::string_view unit, bool overwrite) {
  if (sink && !overwrite) return;
  std::size_t space = value.find(' ');
  if (space == std::string_view::npos || value.substr(space + 1) != unit) return;
  if (auto v = text::to_double(value.substr(0, space)); v && *v >= 0 && *v < 1e6) sink = *v;
}

// "81920 MiB"; "N/A" and anything else: unset.
std::optional<long long> mib_of(std::string_view value) {
  std::size_t p = 0;
  std::string_view number = detail::next_token(value, p);
  if (detail::next_token(value, p) != "MiB") return std::nullopt;
  auto n = text::to_int(number);
  if (!n || *n < 0) return std::nullopt;
  return n;
}

std::size_t skip_spaces(std::string_view s, std::size_t p) {
  while (p < s.size() && detail::is_space(s[p]))
    ++p;
  return p;
}

// The value of attribute `key` in `<gpu id="00000000:01:00.0">`.
std::string attribute(std::string_view attrs, std::string_view key) {
  for (std::size_t at = attrs.find(key); at != std::string_view::npos; at = attrs.find(key, at + 1)) {
    if (at > 0 && name_char(attrs[at - 1])) continue;
    std::size_t p = skip_spaces(attrs, at + key.size());
    if (p >= attrs.size() || attrs[p] != '=') continue;
    p = skip_spaces(attrs, p + 1);
    if (p >= attrs.size() || (attrs[p] != '"' && attrs[p] != '\'')) continue;
    std::size_t end = attrs.find(attrs[p], p + 1);
    if (end == std::string_view::npos) return {};
    return decode_entities(attrs.substr(p + 1, end - p - 1));
  }
  return {};
}

class Reader {
public:
  explicit Reader(std::string_view xml) : xml_(xml) {}
  bool run();
  NvidiaSmiReport report;

private:
  std::string_view xml_;
  std::size_t pos_ = 0;
  std::vector<Element> stack_;
  std::optional<std::size_t> gpu_depth_; // index in stack_ of the open <gpu>

  bool skip_past(std::string_view terminator);
  bool tag();
  void open(std::string_view name, std::string_view attrs, bool self_closing, std::size_t content_start);
  void close(std::string_view name, std::size_t close_start);
  void leaf(std::string_view value);
  void health_leaf(NvidiaSmiGpu& gpu, std::string_view value) const;
  bool rel_path_is(std::initializer_list<std::string_view> names) const;
};

bool Reader::skip_past(std::string_view terminator) {
  std::size_t end = xml_.find(terminator, pos_);
  if (end == std::string_view::npos) return false;
  pos_ = end + terminator.size();
  return true;
}

bool Reader::run() {
  while (pos_ < xml_.size()) {
    std::size_t lt = xml_.find('<', pos_);
    if (lt == std::string_view::npos) break;
    pos_ = lt;
    if (!tag()) break;
  }
  return !report.driver_version.empty() || !report.cuda_version.empty() || !report.gpus.empty();
}

// At a '<': comments, declarations (<?xml ?>, <!DOCTYPE ...>), end tags and start tags. False: stop.
bool Reader::tag() {
  std::string_view rest = xml_.substr(pos_);
  if (rest.starts_with("<!--")) return skip_past("-->");
  if (rest.starts_with("<?")) return skip_past("?>");
  if (rest.starts_with("<!")) return skip_past(">");
  bool closing = rest.size() > 1 && rest[1] == '/';
  std::size_t n = pos_ + (closing ? 2 : 1);
  std::size_t name_end = n;
  if (name_end >= xml_.size() || !name_start(xml_[name_end])) { // a stray '<' in text
    ++pos_;
    return true;
  }
  std::size_t gt = xml_.find('>', pos_);
  if (gt == std::string_view::npos) return false;
  while (name_end < gt && name_char(xml_[name_end]))
    ++name_end;
  std::string_view name = xml_.substr(n, name_end - n);
  std::string_view attrs = xml_.substr(name_end, gt - name_end);
  std::size_t tag_start = pos_;
  pos_ = gt + 1;
  if (closing)
    close(name, tag_start);
  else
    open(name, attrs, !attrs.empty() && attrs.back() == '/', pos_);
  return stack_.size() < k_max_depth;
}

void Reader::open(std::string_view name, std::string_view attrs, bool self_closing,
                  std::size_t content_start) {
  if (!stack_.empty()) stack_.back().has_child = true;
  // <processes> directly below <gpu>: the list is read (empty, or "<processes />": none runs).
  bool process_list = name == "processes" && gpu_depth_ && stack_.size() == *gpu_depth_ + 1;
  if (process_list) report.gpus.back().compute_processes = report.gpus.back().compute_processes.value_or(0);
  if (self_closing) return; // <processes />
  // <mig_devices> below <gpu> lists the MIG devices ("None" when there are none); each <mig_device> is one.
  if (name == "mig_devices" && gpu_depth_ && stack_.size() == *gpu_depth_ + 1)
    report.gpus.back().mig_devices = report.gpus.back().mig_devices.value_or(0);
  if (name == "mig_device" && rel_path_is({"mig_devices"}) &&
      report.gpus.back().mig_devices.value_or(0) < 1024)
    report.gpus.back().mig_devices = report.gpus.back().mig_devices.value_or(0) + 1;
  if (name == "gpu" && !gpu_depth_) {
    gpu_depth_ = stack_.size();
    report.gpus.emplace_back();
    report.gpus.back().bus_id = attribute(attrs, "id");
  }
  stack_.push_back({name, content_start});
}

void Reader::close(std::string_view name, std::size_t close_start) {
  std::size_t i = stack_.size();
  while (i > 0 && stack_[i - 1].name != name)
    --i;
  if (i == 0) return; // an end tag that matches nothing open
  if (i == stack_.size() && !stack_.back().has_child) {
    std::string_view content =
        xml_.substr(stack_.back().content_start, close_start - stack_.back().content_start);
    if (content.find('<') == std::string_view::npos) leaf(detail::trim_view(content)); // no comments
  }
  stack_.resize(i - 1); // also drops children left unclosed
  if (gpu_depth_ && stack_.size() <= *gpu_depth_) gpu_depth_.reset();
}

// The open path below <gpu> is exactly `names`.
bool Reader::rel_path_is(std::initializer_list<std::string_view> names) const {
  if (!gpu_depth_ || stack_.size() != *gpu_depth_ + 1 + names.size()) return false;
  std::size_t i = *gpu_depth_ + 1;
  for (auto n : names)
    if (stack_[i++].name != n) return false;
  return true;
}

void Reader::leaf(std::string_view value) {
  std::string_view name = stack_.back().name;
  if (!gpu_depth_) {
    if (name == "driver_version" && report.driver_version.empty())
      report.driver_version = decode_entities(value);
    if (name == "cuda_version" && report.cuda_version.empty()) report.cuda_version = decode_entities(value);
    return;
  }
  NvidiaSmiGpu& gpu = report.gpus.back();
  if (rel_path_is({"product_name"}))
    gpu.name = decode_entities(value);
  else if (rel_path_is({"product_brand"}))
    gpu.brand = decode_entities(value.substr(0, 32));
  else if (rel_path_is({"uuid"}))
    gpu.uuid = decode_entities(value);
  else if (rel_path_is({"pci", "pci_bus_id"}) && !value.empty())
    gpu.bus_id = decode_entities(value);
  else if (rel_path_is({"performance_state"}) && value.starts_with("P"))
    gpu.performance_state = std::string(value);
  else if (rel_path_is({"utilization", "gpu_util"})) {
    // "37 %"; "N/A" stays empty.
    std::size_t p = 0;
    if (auto n = text::to_int(detail::next_token(value, p)); n && *n >= 0 && *n <= 100)
      gpu.gpu_utilization = static_cast<int>(*n);
  } else if (rel_path_is({"processes", "process_info", "type"})) {
    // "C" compute, "G" graphics (Xorg), "C+G" both: the probes must not share a GPU with compute.
    if (value.find('C') != std::string_view::npos)
      gpu.compute_processes = gpu.compute_processes.value_or(0) + 1;
  } else if (rel_path_is({"temperature", "gpu_temp"})) {
    set_reading(gpu.temperature_celsius, value, "C", true);
  } else if (rel_path_is({"gpu_power_readings", "instant_power_draw"}) ||
             rel_path_is({"gpu_power_readings", "power_draw"}) ||
             rel_path_is({"power_readings", "power_draw"})) {
    set_reading(gpu.power_draw_watts, value, "W", true);
  } else if (rel_path_is({"gpu_power_readings", "average_power_draw"})) {
    set_reading(gpu.power_draw_watts, value, "W", false); // only where no instant reading is
  } else if (rel_path_is({"gpu_power_readings", "current_power_limit"}) ||
             rel_path_is({"power_readings", "enforced_power_limit"})) {
    set_reading(gpu.power_limit_watts, value, "W", true);
  } else if (rel_path_is({"power_readings", "power_limit"})) {
    set_reading(gpu.power_limit_watts, value, "W", false);
  } else if (rel_path_is({"clocks", "sm_clock"})) {
    set_reading(gpu.sm_clock_mhz, value, "MHz", true);
  } else if (rel_path_is({"clocks", "mem_clock"})) {
    set_reading(gpu.memory_clock_mhz, value, "MHz", true);
  } else if (rel_path_is({"mig_mode", "current_mig"}) || rel_path_is({"mig_mode", "pending_mig"})) {
    std::string& mode = stack_.back().name == "current_mig" ? gpu.mig_current : gpu.mig_pending;
    if (value == "Enabled" || value == "Disabled") mode = std::string(value); // N/A: no MIG on this GPU
  } else if (rel_path_is({"bar1_memory_usage", "total"})) {
    gpu.bar1_total_mib = mib_of(value);
  } else if (rel_path_is({"fb_memory_usage", "total"})) {
    // The <mig_devices> entries carry their own, deeper fb_memory_usage.
    gpu.memory_total_mib = mib_of(value);
  } else {
    health_leaf(gpu, value);
  }
}

// The element path below <gpu> names a health field (nvidia_smi_health.hpp).
void Reader::health_leaf(NvidiaSmiGpu& gpu, std::string_view value) const {
  std::array<std::string_view, 6> path;
  std::size_t n = stack_.size() - (*gpu_depth_ + 1);
  if (n == 0 || n > path.size()) return;
  for (std::size_t i = 0; i < n; ++i)
    path[i] = stack_[*gpu_depth_ + 1 + i].name;
  std::string_view reason;
  if (auto field = detail::xml_health_field(path.data(), n, reason))
    detail::set_health(gpu.health, *field, decode_entities(value), reason);
}

} // namespace

std::optional<NvidiaSmiReport> nvidia_smi_xml(std::string_view xml) {
  Reader reader(xml);
  if (!reader.run()) return std::nullopt;
  return std::move(reader.report);
}

} // namespace gpudoctor::parse
