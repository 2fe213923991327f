// Reads the knowledge files (checks/knowledge/*.yaml) into Knowledge. Row schemas: docs/knowledge.md.
// yaml-cpp throws, and so does this file internally (Failure); load_knowledge turns both into an error.
#include "knowledge/knowledge.hpp"
#include "util/embedded.hpp"
#include "util/file_text.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

namespace gpudoctor {
namespace {

struct Failure {
  YAML::Mark mark;
  std::string message;
};

[[noreturn]] void fail(const YAML::Node& at, std::string message) {
  throw Failure{at.IsDefined() ? at.Mark() : YAML::Mark::null_mark(), std::move(message)};
}

std::string where(const std::string& file, const YAML::Mark& mark) {
  return mark.is_null() ? file : file + ":" + std::to_string(mark.line + 1);
}

// Digits separated by dots, min_parts..max_parts of them: "550.54.14", "12.4".
bool dotted_number(const std::string& s, std::size_t min_parts, std::size_t max_parts) {
  auto parts = text::split(s, '.', true);
  if (parts.size() < min_parts || parts.size() > max_parts) return false;
  return std::ranges::all_of(parts, [](const std::string& p) {
    return !p.empty() && std::ranges::all_of(p, [](char c) { return c >= '0' && c <= '9'; });
  });
}

// One row of a table: its fields are read by name and every field must be known.
class Row {
public:
  Row(const YAML::Node& node, std::initializer_list<const char*> allowed) : node_(node) {
    if (!node.IsMap()) fail(node, "a row must be a mapping of field: value");
    for (const auto& kv : node) {
      std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
      if (std::ranges::none_of(allowed, [&](const char* a) { return key == a; }))
        fail(kv.first, "unknown field '" + key + "'");
    }
  }
  const YAML::Node& node() const { return node_; }
  bool has(const char* key) const { return node_[key].IsDefined() && !node_[key].IsNull(); }

  [[noreturn]] void bad(const char* key, const std::string& what) const {
    fail(node_[key], "field '" + std::string(key) + "' " + what);
  }
  std::string str(const char* key) const {
    YAML::Node v = node_[key];
    if (!v.IsDefined() || v.IsNull()) fail(node_, "missing required field '" + std::string(key) + "'");
    if (!v.IsScalar() || text::trim(v.Scalar()).empty()) bad(key, "must be a non-empty text");
    return v.Scalar();
  }
  std::string version(const char* key, std::size_t min_parts, std::size_t max_parts) const {
    std::string s = str(key);
    if (!dotted_number(s, min_parts, max_parts)) bad(key, "is not a dotted version: '" + s + "'");
    return s;
  }
  long long integer(const char* key) const {
    auto v = text::to_int(str(key), 10);
    if (!v || *v <= 0) bad(key, "must be a positive decimal integer");
    return *v;
  }
  unsigned hex(const char* key, unsigned max) const {
    std::string s = str(key);
    auto v = text::starts_with(text::lower(s), "0x") ? text::to_int(s, 16) : std::nullopt;
    if (!v || *v < 0 || *v > max) bad(key, "must be a 0x hex id, got '" + s + "'");
    return static_cast<unsigned>(*v);
  }
  double number(const char* key) const {
    auto v = text::to_double(str(key));
    if (!v || !(*v > 0) || *v > 1e6) bad(key, "must be a positive number");
    return *v;
  }
  bool flag(const char* key) const {
    if (!has(key)) return false;
    std::string s = str(key);
    if (s != "true" && s != "false") bad(key, "must be true or false");
    return s == "true";
  }

private:
  YAML::Node node_;
};

// A field that is a list of non-empty texts: [a, b].
std::vector<std::string> list(const Row& r, const char* key) {
  YAML::Node v = r.node()[key];
  if (!v.IsDefined() || v.IsNull()) fail(r.node(), "missing required field '" + std::string(key) + "'");
  if (!v.IsSequence() || v.size() == 0) r.bad(key, "must be a non-empty list");
  std::vector<std::string> out;
  for (const auto& item : v) {
    if (!item.IsScalar() || text::trim(item.Scalar()).empty()) r.bad(key, "must list non-empty texts");
    out.push_back(item.Scalar());
  }
  return out;
}

class Loader {
public:
  Knowledge kb;

  void load(const std::string& label, const std::string& content) {
    file_ = label;
    name_ = std::filesystem::path(label).filename().string();
    file_sources_.clear();
    const YAML::Node doc = YAML::Load(content);
    if (!doc.IsMap()) fail(doc, "expected a mapping of tables (sources:, gpus:, ...) at the top");
    if (doc["sources"].IsDefined()) read_sources(doc["sources"]);
    for (const auto& kv : doc) {
      std::string table = kv.first.IsScalar() ? kv.first.Scalar() : "";
      if (table == "sources") continue;
      const YAML::Node& rows = kv.second;
      if (!rows.IsSequence()) fail(rows.IsNull() ? kv.first : rows, "'" + table + "' must be a list of rows");
      for (const auto& row : rows)
        read_row(table, kv.first, row);
    }
  }

private:
  std::string file_, name_;
  std::set<std::string> file_sources_;
  std::map<std::string, std::string> source_origin_; // key -> file that defined it
  std::map<std::string, std::string> seen_;          // table + row key -> "file:line"

  void read_sources(const YAML::Node& node) {
    if (!node.IsMap()) fail(node, "'sources' must be a mapping of key: citation");
    for (const auto& kv : node) {
      if (!kv.first.IsScalar() || !kv.second.IsScalar() || text::trim(kv.second.Scalar()).empty())
        fail(kv.first, "a source must be 'KEY: citation'");
      const std::string& key = kv.first.Scalar();
      auto [it, added] = kb.sources.emplace(key, kv.second.Scalar());
      if (!added && it->second != kv.second.Scalar())
        fail(kv.first, "source '" + key + "' differs from its definition in " + source_origin_[key]);
      source_origin_.emplace(key, file_);
      file_sources_.insert(key);
    }
  }

  // A row's `source`: one key or a list of keys, each defined in this file's sources map.
  std::string read_source(const Row& row) const {
    YAML::Node v = row.node()["source"];
    if (!v.IsDefined() || v.IsNull()) fail(row.node(), "missing required field 'source'");
    std::vector<std::string> keys;
    if (v.IsScalar())
      keys.push_back(v.Scalar());
    else if (v.IsSequence())
      for (const auto& k : v)
        keys.push_back(k.IsScalar() ? k.Scalar() : "");
    if (keys.empty()) fail(v, "field 'source' must be a key or a list of keys");
    for (const auto& k : keys)
      if (!file_sources_.count(k)) fail(v, "source key '" + k + "' is not in this file's sources map");
    return text::join(keys, ", ");
  }

  void unique(const YAML::Node& at, const std::string& key, const std::string& what) {
    auto [it, added] = seen_.emplace(key, where(file_, at.Mark()));
    if (!added) fail(at, "duplicate " + what + " (first at " + it->second + ")");
  }

  // The environment-variable tables (knowledge_env.hpp): nccl.yaml, pytorch_env.yaml, env.yaml's
  // device_selection. False when `table` is none of them.
  bool read_env_row(const std::string& table, const YAML::Node& node) {
    auto whole = [&](const Row& r, const char* key) -> std::optional<long long> {
      if (!r.has(key)) return std::nullopt;
      auto v = text::to_int(r.str(key), 10);
      if (!v) r.bad(key, "must be a decimal integer");
      return v;
    };
    auto texts = [&](const Row& r, const char* key) {
      return r.has(key) ? list(r, key) : std::vector<std::string>{};
    };
    auto text_or = [&](const Row& r, const char* key) { return r.has(key) ? r.str(key) : std::string(); };
    auto variable = [&](const Row& r, const char* key) {
      std::string v = r.str(key);
      if (v.find_first_of(" =\t") != std::string::npos) fail(node[key], "'" + v + "' is not a variable name");
      return v;
    };
    EnvKnowledge& env = kb.env;
    if (table == "nccl_vars") {
      Row r(node, {"name", "kind", "values", "functions", "case_sensitive", "min", "max", "since",
                   "deprecated", "removed", "replaced_by", "rccl_only", "rccl_current", "documented", "note",
                   "source", "uncertain"});
      NcclVarRow v;
      v.name = variable(r, "name");
      if (!text::starts_with(v.name, "NCCL_") && !text::starts_with(v.name, "RCCL_"))
        fail(node["name"], "'" + v.name + "' is not an NCCL_ or RCCL_ name");
      v.kind = r.str("kind");
      static const std::set<std::string> kinds = {"int",  "bool",    "enum", "level",
                                                  "list", "ifnames", "hcas", "text"};
      if (!kinds.count(v.kind))
        r.bad("kind", "must be one of int, bool, enum, level, list, ifnames, hcas, text");
      v.values = texts(r, "values");
      if ((v.kind == "enum" || v.kind == "level" || v.kind == "list") && v.values.empty())
        fail(node, "kind " + v.kind + " needs 'values'");
      if (v.kind == "int")
        for (const auto& x : v.values)
          if (!text::to_int(x, 10)) fail(node["values"], "'" + x + "' is not a number");
      v.functions = texts(r, "functions");
      v.case_sensitive = r.flag("case_sensitive");
      v.min = whole(r, "min");
      v.max = whole(r, "max");
      v.since = text_or(r, "since");
      v.deprecated = text_or(r, "deprecated");
      v.removed = text_or(r, "removed");
      v.replaced_by = text_or(r, "replaced_by");
      v.rccl_only = r.flag("rccl_only");
      v.rccl_current = r.flag("rccl_current");
      v.documented = !r.has("documented") || r.flag("documented");
      v.note = text_or(r, "note");
      v.source = read_source(r);
      v.uncertain = r.flag("uncertain");
      unique(node, "nccl var " + v.name, "variable " + v.name);
      env.nccl_vars.push_back(std::move(v));
    } else if (table == "nccl_prefixes") {
      Row r(node, {"prefix", "rccl_only", "documented", "source", "uncertain"});
      NcclPrefixRow p{variable(r, "prefix"), r.flag("rccl_only"),
                      !r.has("documented") || r.flag("documented"), read_source(r), r.flag("uncertain")};
      unique(node, "nccl prefix " + p.prefix, "prefix " + p.prefix);
      env.nccl_prefixes.push_back(std::move(p));
    } else if (table == "nccl_foreign_names") {
      Row r(node, {"name", "reader", "replaced_by", "source", "uncertain"});
      NcclForeignRow f{variable(r, "name"), r.str("reader"), text_or(r, "replaced_by"), read_source(r),
                       r.flag("uncertain")};
      unique(node, "nccl var " + f.name, "variable " + f.name);
      env.nccl_foreign.push_back(std::move(f));
    } else if (table == "nccl_risky") {
      Row r(node, {"name", "equals", "below", "above", "any", "requires", "vendor", "why", "better", "source",
                   "uncertain"});
      NcclRiskyRow x;
      x.name = variable(r, "name");
      x.equals = texts(r, "equals");
      x.below = whole(r, "below");
      x.above = whole(r, "above");
      x.any = r.flag("any");
      int conditions = !x.equals.empty() + x.below.has_value() + x.above.has_value() + x.any;
      if (conditions != 1) fail(node, "a risky row needs exactly one of equals, below, above, any");
      x.requirement = text_or(r, "requires");
      if (!x.requirement.empty() && x.requirement != "ib_device" && x.requirement != "multi_gpu")
        r.bad("requires", "must be ib_device or multi_gpu");
      x.vendor = text_or(r, "vendor");
      if (!x.vendor.empty() && x.vendor != "nvidia" && x.vendor != "amd")
        r.bad("vendor", "must be nvidia or amd");
      x.why = r.str("why");
      x.better = r.str("better");
      x.source = read_source(r);
      x.uncertain = r.flag("uncertain");
      unique(node,
             "nccl risky " + x.name + " " + text::join(x.equals, ",") + " " +
                 std::to_string(x.below.value_or(-1)) + " " + std::to_string(x.above.value_or(-1)),
             "risky row for " + x.name);
      env.nccl_risky.push_back(std::move(x));
    } else if (table == "alloc_conf_options") {
      Row r(node, {"option", "kind", "values", "min", "max", "rocm_only", "note", "source", "uncertain"});
      AllocOptionRow o;
      o.option = r.str("option");
      o.kind = r.str("kind");
      static const std::set<std::string> kinds = {"size_mb", "fraction",     "divisions",   "enum",
                                                  "bool",    "power_of_two", "positive_int"};
      if (!kinds.count(o.kind)) r.bad("kind", "is not an allocator option kind (docs/knowledge.md)");
      o.values = texts(r, "values");
      if (o.kind == "enum" && o.values.empty()) fail(node, "kind enum needs 'values'");
      o.min = whole(r, "min");
      o.max = whole(r, "max");
      o.rocm_only = r.flag("rocm_only");
      o.note = text_or(r, "note");
      o.source = read_source(r);
      o.uncertain = r.flag("uncertain");
      unique(node, "alloc option " + o.option, "option " + o.option);
      env.alloc_options.push_back(std::move(o));
    } else if (table == "device_selection") {
      Row r(node, {"name", "vendor", "layer", "note", "source", "uncertain"});
      DeviceSelectionRow d{variable(r, "name"), r.str("vendor"), r.str("layer"),
                           text_or(r, "note"),  read_source(r),  r.flag("uncertain")};
      if (d.vendor != "nvidia" && d.vendor != "amd") r.bad("vendor", "must be nvidia or amd");
      unique(node, "device selection " + d.name, "variable " + d.name);
      env.device_selection.push_back(std::move(d));
    } else {
      return false;
    }
    return true;
  }

  // The after-the-install tables (knowledge_health.hpp): xid.yaml and health.yaml. False: not one of them.
  bool read_health_row(const std::string& table, const YAML::Node& node) {
    auto text_or = [&](const Row& r, const char* key) { return r.has(key) ? r.str(key) : std::string(); };
    auto one_of = [&](const Row& r, const char* key, std::initializer_list<const char*> values) {
      std::string v = r.str(key);
      if (std::ranges::none_of(values, [&](const char* x) { return v == x; }))
        r.bad(key,
              "must be one of " + text::join(std::vector<std::string>(values.begin(), values.end()), ", "));
      return v;
    };
    HealthKnowledge& h = kb.health;
    if (table == "xid_codes") {
      Row r(node, {"code", "mnemonic", "description", "resolution", "investigation", "category", "status",
                   "after_repair", "advice", "source", "uncertain"});
      XidRow x;
      x.code = static_cast<int>(r.integer("code"));
      x.mnemonic = r.str("mnemonic");
      x.description = r.str("description");
      x.resolution = r.str("resolution");
      x.investigation = text_or(r, "investigation");
      x.category = one_of(
          r, "category",
          {"application", "memory", "nvlink", "gsp-firmware", "bus", "power", "board", "driver", "unused"});
      x.status = one_of(r, "status", {"info", "warn", "error"});
      x.after_repair = r.flag("after_repair");
      x.advice = text_or(r, "advice");
      x.source = read_source(r);
      r.flag("uncertain");
      unique(node, "xid " + std::to_string(x.code), "row for Xid " + std::to_string(x.code));
      h.xids.push_back(std::move(x));
    } else if (table == "xid_resolutions") {
      Row r(node, {"resolution", "advice", "source"});
      XidResolutionRow x{r.str("resolution"), r.str("advice"), read_source(r)};
      unique(node, "xid resolution " + x.resolution, "row for " + x.resolution);
      h.xid_resolutions.push_back(std::move(x));
    } else if (table == "nvidia_module_flavours") {
      Row r(node, {"family", "model", "open", "proprietary", "source", "uncertain"});
      ModuleFlavourRow m{r.str("family"),
                         text_or(r, "model"),
                         one_of(r, "open", {"required", "supported", "unsupported"}),
                         one_of(r, "proprietary", {"supported", "unsupported"}),
                         read_source(r),
                         r.flag("uncertain")};
      unique(node, "flavour " + m.family + " " + m.model, "row for " + m.family + " " + m.model);
      h.module_flavours.push_back(std::move(m));
    } else if (table == "nvswitch_devices") {
      Row r(node, {"device", "name", "generation", "source", "uncertain"});
      NvSwitchRow n{r.hex("device", 0xffff), r.str("name"), static_cast<int>(r.integer("generation")),
                    read_source(r)};
      r.flag("uncertain");
      unique(node, "nvswitch " + std::to_string(n.device_id), "row for NVSwitch " + n.name);
      h.nvswitches.push_back(std::move(n));
    } else if (table == "nvlink_subnet_manager") {
      Row r(node, {"family", "package", "source", "uncertain"});
      SubnetManagerRow m{r.str("family"), r.str("package"), read_source(r)};
      r.flag("uncertain");
      unique(node, "subnet manager " + m.family, "row for " + m.family);
      h.subnet_managers.push_back(std::move(m));
    } else if (table == "firmware_packages") {
      Row r(node, {"vendor", "os", "package", "note", "source", "uncertain"});
      FirmwarePackageRow f{one_of(r, "vendor", {"amd", "nvidia"}),
                           r.str("os"),
                           r.str("package"),
                           text_or(r, "note"),
                           read_source(r),
                           r.flag("uncertain")};
      unique(node, "firmware " + f.vendor + " " + f.os + " " + f.package, "row for " + f.package);
      h.firmware_packages.push_back(std::move(f));
    } else {
      return false;
    }
    return true;
  }

  // A row of pytorch_wheels.yaml: a CUDA variant names its CUDA, a ROCm one its ROCm, cpu neither.
  void read_torch_wheel(const YAML::Node& node) {
    Row r(node, {"torch", "variant", "cuda", "rocm", "arches", "source", "uncertain"});
    TorchWheelRow w;
    w.torch = r.version("torch", 2, 2);
    w.variant = r.str("variant");
    if (r.has("cuda")) w.cuda = r.version("cuda", 2, 3);
    if (r.has("rocm")) w.rocm = r.version("rocm", 2, 3);
    bool cpu = w.variant == "cpu";
    if (cpu != (w.cuda.empty() && w.rocm.empty()) || (!w.cuda.empty() && !w.rocm.empty()))
      fail(node, "a cpu row names no toolkit; a CUDA row names cuda, a ROCm row rocm");
    std::string want = !w.cuda.empty()   ? "cu" + text::join(text::split(w.cuda, '.'), "")
                       : !w.rocm.empty() ? "rocm" + w.rocm
                                         : "cpu";
    if (w.variant != want) r.bad("variant", "must be " + want + " for that toolkit");
    YAML::Node arches = node["arches"];
    if (!arches.IsDefined() || !arches.IsSequence()) fail(node, "missing list 'arches'");
    for (const auto& a : arches) {
      std::string e = a.IsScalar() ? a.Scalar() : "";
      bool ok = w.rocm.empty() ? text::starts_with(e, "sm_") || text::starts_with(e, "compute_")
                               : text::starts_with(e, "gfx");
      if (!ok) fail(a, "'" + e + "' is not an arch of a " + (w.rocm.empty() ? "CUDA" : "ROCm") + " wheel");
      w.arches.push_back(e);
    }
    if (cpu != w.arches.empty()) fail(node, "only cpu rows have no arches");
    w.source = read_source(r);
    w.uncertain = r.flag("uncertain");
    unique(node, "torch wheel " + w.torch + " " + w.variant, "row for torch " + w.torch + " " + w.variant);
    kb.torch_wheels.push_back(std::move(w));
  }

  void read_row(const std::string& table, const YAML::Node& key_node, const YAML::Node& node) {
    if (table == "gpus") {
      Row r(node, {"vendor", "device", "revision", "subsystem_device", "subsystem_vendor", "name", "arch",
                   "family", "gfx_target_version", "vram_gib", "vram_uncertain",
                   "memory_bandwidth_floor_gbps", "host_bandwidth_floor_gbps", "source", "uncertain"});
      GpuRow g;
      g.vendor_id = r.hex("vendor", 0xffff);
      if (g.vendor_id != 0x10de && g.vendor_id != 0x1002)
        fail(node["vendor"], "unknown vendor '" + r.str("vendor") + "' (expected 0x10de or 0x1002)");
      g.device_id = r.hex("device", 0xffff);
      if (r.has("revision")) g.revision = r.hex("revision", 0xff);
      if (r.has("subsystem_device")) g.subsystem_device = r.hex("subsystem_device", 0xffff);
      if (r.has("subsystem_vendor")) g.subsystem_vendor = r.hex("subsystem_vendor", 0xffff);
      g.model.name = r.str("name");
      g.model.arch = r.str("arch");
      if (!text::starts_with(g.model.arch, g.vendor_id == 0x10de ? "sm_" : "gfx"))
        fail(node["arch"], "arch '" + g.model.arch + "' must be sm_XX for NVIDIA and gfxNNNN for AMD");
      g.model.family = r.str("family");
      if (r.has("gfx_target_version")) g.model.gfx_target_version = r.integer("gfx_target_version");
      if (r.has("vram_gib"))
        g.model.vram_bytes = static_cast<std::uint64_t>(std::llround(r.number("vram_gib") * 1073741824.0));
      g.vram_uncertain = r.flag("vram_uncertain");
      if (r.has("memory_bandwidth_floor_gbps"))
        g.model.memory_bandwidth_floor_gbps = r.number("memory_bandwidth_floor_gbps");
      if (r.has("host_bandwidth_floor_gbps"))
        g.model.host_bandwidth_floor_gbps = r.number("host_bandwidth_floor_gbps");
      g.model.source = "knowledge " + name_ + ": " + read_source(r);
      g.model.uncertain = r.flag("uncertain");
      std::ostringstream id;
      id << std::hex << g.vendor_id << ':' << g.device_id << " rev " << g.revision.value_or(0x100)
         << " subsys " << g.subsystem_device.value_or(0x10000) << ":" << g.subsystem_vendor.value_or(0x10000);
      unique(node, "gpu " + id.str(), "GPU row");
      kb.gpus.push_back(std::move(g));
    } else if (table == "toolkit_min_driver") {
      Row r(node, {"cuda", "min_driver", "source", "uncertain"});
      CudaDriverRow c{r.version("cuda", 2, 3), r.version("min_driver", 1, 4), read_source(r),
                      r.flag("uncertain")};
      unique(node, "cuda " + c.cuda, "row for CUDA " + c.cuda);
      kb.cuda_drivers.push_back(std::move(c));
    } else if (table == "minor_compat") {
      Row r(node, {"major", "min_driver", "below_branch", "source", "uncertain"});
      CudaFamilyRow f;
      f.major = static_cast<int>(r.integer("major"));
      f.min_driver = r.version("min_driver", 1, 4);
      if (r.has("below_branch")) f.below_branch = static_cast<int>(r.integer("below_branch"));
      f.source = read_source(r);
      f.uncertain = r.flag("uncertain");
      unique(node, "family " + std::to_string(f.major), "row for CUDA " + std::to_string(f.major) + ".x");
      kb.cuda_families.push_back(std::move(f));
    } else if (table == "driver_branches") {
      Row r(node, {"branch", "max_cuda", "source", "uncertain"});
      DriverBranchRow b{static_cast<int>(r.integer("branch")), r.version("max_cuda", 2, 3), read_source(r),
                        r.flag("uncertain")};
      unique(node, "branch " + std::to_string(b.branch), "row for branch " + std::to_string(b.branch));
      kb.driver_branches.push_back(std::move(b));
    } else if (table == "gfx_targets") {
      Row r(node, {"gfx_target_version", "target", "family", "gc_ip", "products", "source", "uncertain"});
      GfxRow x;
      x.gfx_target_version = r.integer("gfx_target_version");
      x.target = r.str("target");
      if (!text::starts_with(x.target, "gfx")) fail(node["target"], "target must be an LLVM gfx name");
      x.family = r.str("family");
      x.source = read_source(r);
      if (r.has("gc_ip")) x.gc_ip = r.str("gc_ip");
      if (r.has("products")) x.products = r.str("products");
      x.uncertain = r.flag("uncertain");
      unique(node, "gfx " + std::to_string(x.gfx_target_version),
             "row for " + std::to_string(x.gfx_target_version));
      unique(node, "target " + x.target, "row for " + x.target);
      kb.gfx_targets.push_back(std::move(x));
    } else if (table == "gpu_env_prefixes" || table == "gpu_env_names") {
      bool prefix = table == "gpu_env_prefixes";
      Row r(node, {prefix ? "prefix" : "name", "source", "uncertain"});
      std::string v = r.str(prefix ? "prefix" : "name");
      if (v.find_first_of(" =\t") != std::string::npos) fail(node, "'" + v + "' is not a variable name");
      read_source(r);
      r.flag("uncertain");
      unique(node, table + " " + v, "variable " + v);
      (prefix ? kb.gpu_env_prefixes : kb.gpu_env_names).push_back(v);
    } else if (table == "rocm_releases") {
      Row r(node, {"rocm", "gfx_targets", "os", "source", "uncertain"});
      RocmReleaseRow x;
      x.rocm = r.version("rocm", 2, 3);
      x.gfx_targets = list(r, "gfx_targets");
      for (const auto& t : x.gfx_targets)
        if (!text::starts_with(t, "gfx")) fail(node["gfx_targets"], "'" + t + "' is not an LLVM gfx name");
      x.os = list(r, "os");
      for (const auto& o : x.os)
        if (text::split(o, ' ').size() != 2 || !dotted_number(text::split(o, ' ')[1], 1, 3))
          fail(node["os"], "'" + o + "' is not '<os-release ID> <version>'");
      x.source = read_source(r);
      x.uncertain = r.flag("uncertain");
      unique(node, "rocm " + x.rocm, "row for ROCm " + x.rocm);
      kb.rocm_releases.push_back(std::move(x));
    } else if (table == "distro_releases") {
      Row r(node, {"id", "version", "codename", "source", "uncertain"});
      DistroReleaseRow d{r.str("id"), r.version("version", 1, 2), r.str("codename"), read_source(r),
                         r.flag("uncertain")};
      unique(node, "distro " + d.id + " " + d.version, "row for " + d.id + " " + d.version);
      unique(node, "codename " + d.id + " " + d.codename, "row for " + d.id + " " + d.codename);
      kb.distro_releases.push_back(std::move(d));
    } else if (table == "vendor_repos") {
      Row r(node, {"host", "vendor", "release_specific", "source", "uncertain"});
      VendorRepoRow v;
      v.host = text::lower(r.str("host"));
      v.vendor = r.str("vendor");
      if (v.vendor != "amd" && v.vendor != "nvidia" && v.vendor != "pytorch")
        fail(node["vendor"], "vendor must be amd, nvidia or pytorch");
      if (!r.has("release_specific")) fail(node, "missing required field 'release_specific'");
      v.release_specific = r.flag("release_specific");
      v.source = read_source(r);
      r.flag("uncertain");
      unique(node, "repo host " + v.host, "row for " + v.host);
      kb.vendor_repos.push_back(std::move(v));
    } else if (table == "torch_wheels") {
      read_torch_wheel(node);
    } else if (table == "torch_extensions") {
      Row r(node, {"dist", "folders", "files", "rocm", "note", "source", "uncertain"});
      TorchExtensionRow x{r.str("dist"),
                          list(r, "folders"),
                          r.has("files") ? list(r, "files") : std::vector<std::string>{},
                          r.has("rocm") ? r.str("rocm") : "",
                          r.has("note") ? r.str("note") : "",
                          read_source(r),
                          r.flag("uncertain")};
      for (const auto& folder : x.folders)
        if (folder.empty() || folder[0] == '/' || folder.find("..") != std::string::npos)
          fail(node["folders"], "'" + folder + "' is not a folder inside the site folder");
      if (x.rocm != "" && x.rocm != "none" && !dotted_number(x.rocm, 1, 4))
        r.bad("rocm", "must be none or a release");
      unique(node, "extension " + x.dist, "row for " + x.dist);
      kb.torch_extensions.push_back(std::move(x));
    } else if (read_env_row(table, node) || read_health_row(table, node)) {
      // done
    } else {
      fail(key_node, "unknown table '" + table + "'");
    }
  }
};

std::expected<std::vector<std::pair<std::string, std::string>>, std::string>
read_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::path> paths;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec; // a dangling link is skipped, not an error for the whole folder
    if (it->path().extension() == ".yaml" && it->is_regular_file(type_ec)) paths.push_back(it->path());
  }
  if (ec) return std::unexpected("cannot read knowledge folder " + dir + ": " + ec.message());
  std::ranges::sort(paths);
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& p : paths) {
    auto content = read_whole_file(p);
    if (!content) return std::unexpected("cannot read " + p.string());
    files.emplace_back(p.string(), std::move(*content));
  }
  return files;
}

} // namespace

std::expected<Knowledge, std::string> load_knowledge(const std::string& dir) {
  std::string current;
  try {
    std::vector<std::pair<std::string, std::string>> files;
    if (dir.empty()) {
      for (const auto& [path, content] : embedded_data_files())
        if (text::starts_with(path, "checks/knowledge/") && text::ends_with(path, ".yaml") &&
            path.find('/', 17) == std::string::npos)
          files.emplace_back(path, content);
    } else {
      auto read = read_dir(dir);
      if (!read) return std::unexpected(read.error());
      files = std::move(*read);
    }
    if (files.empty())
      return std::unexpected("no knowledge files (*.yaml) in " + (dir.empty() ? "the binary" : dir));
    Loader loader;
    for (const auto& [label, content] : files) {
      current = label;
      loader.load(label, content);
    }
    return std::move(loader.kb);
  } catch (const Failure& f) {
    return std::unexpected(where(current, f.mark) + ": " + f.message);
  } catch (const YAML::Exception& e) {
    return std::unexpected(where(current, e.mark) + ": " + e.msg);
  } catch (const std::exception& e) {
    return std::unexpected((current.empty() ? "knowledge" : current) + ": " + e.what());
  } catch (...) {
    return std::unexpected((current.empty() ? "knowledge" : current) + ": unexpected error");
  }
}

} // namespace gpudoctor
