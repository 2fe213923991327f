// Reads the knowledge files (checks/knowledge/*.yaml) into Knowledge. Row schemas: docs/knowledge.md.
// Each table has one reader (k_tables); the rows are read through util/yaml_doc, whose errors name the
// file and line.
#include "knowledge/knowledge.hpp"
#include "util/data_files.hpp"
#include "util/text.hpp"
#include "util/yaml_doc.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

#include <fmt/format.h>

namespace gpudoctor {
namespace {

// Digits separated by dots, min_parts..max_parts of them: "550.54.14", "12.4".
bool dotted_number(const std::string& s, std::size_t min_parts, std::size_t max_parts) {
  auto parts = text::split(s, '.', true);
  if (parts.size() < min_parts || parts.size() > max_parts) return false;
  return std::ranges::all_of(parts, [](const std::string& p) {
    return !p.empty() && std::ranges::all_of(p, [](char c) { return c >= '0' && c <= '9'; });
  });
}

std::string version(const yaml::Fields& r, const char* key, std::size_t min_parts, std::size_t max_parts) {
  std::string s = r.text(key);
  if (!dotted_number(s, min_parts, max_parts)) r.bad(key, fmt::format("is not a dotted version: '{}'", s));
  return s;
}

std::string variable(const yaml::Fields& r, const char* key) {
  std::string v = r.text(key);
  if (v.find_first_of(" =\t") != std::string::npos)
    yaml::fail(r[key], fmt::format("'{}' is not a variable name", v));
  return v;
}

std::string one_of(const yaml::Fields& r, const char* key, std::initializer_list<const char*> values) {
  std::string v = r.text(key);
  if (std::ranges::none_of(values, [&](const char* x) { return v == x; }))
    r.bad(key, fmt::format("must be one of {}",
                           text::join(std::vector<std::string>(values.begin(), values.end()), ", ")));
  return v;
}

std::string nonempty(const yaml::Fields& r, const char* key) {
  std::string v = r.text(key);
  if (v.empty()) r.bad(key, "must not be empty");
  return v;
}

class Loader {
  std::string name_;
  std::set<std::string> file_sources_;
  std::map<std::string, std::string> source_origin_; // key -> file that defined it
  std::map<std::string, std::string> seen_;          // table + row key -> "file:line"

public:
  Knowledge kb;

  void load(const yaml::Node& doc);

  // The readers are public so that k_tables, after the class, can name them.
  void read_sources(const yaml::Node& node) {
    if (!node.is_map()) yaml::fail(node, "'sources' must be a mapping of key: citation");
    for (const auto& [key_node, value] : node.entries()) {
      if (!value.is_scalar() || text::trim(value.scalar()).empty())
        yaml::fail(key_node, "a source must be 'KEY: citation'");
      const std::string& key = key_node.scalar();
      auto [it, added] = kb.sources.emplace(key, value.scalar());
      if (!added && it->second != value.scalar())
        yaml::fail(key_node,
                   fmt::format("source '{}' differs from its definition in {}", key, source_origin_[key]));
      source_origin_.emplace(key, node.file());
      file_sources_.insert(key);
    }
  }

  // A row's `source`: one key or a list of keys, each defined in this file's sources map.
  std::string read_source(const yaml::Fields& row) const {
    yaml::Node v = row["source"];
    if (!v.present()) yaml::fail(row.node(), "missing required field 'source'");
    std::vector<std::string> keys;
    if (v.is_scalar())
      keys.push_back(v.scalar());
    else if (v.is_list())
      for (const auto& k : v.items())
        keys.push_back(k.scalar());
    if (keys.empty()) yaml::fail(v, "field 'source' must be a key or a list of keys");
    for (const auto& k : keys)
      if (!file_sources_.count(k))
        yaml::fail(v, fmt::format("source key '{}' is not in this file's sources map", k));
    return text::join(keys, ", ");
  }

  void unique(const yaml::Node& at, const std::string& key, const std::string& what) {
    auto [it, added] = seen_.emplace(key, at.where());
    if (!added) yaml::fail(at, fmt::format("duplicate {} (first at {})", what, it->second));
  }

  // The environment-variable names that select or hide GPUs (env.yaml): a prefix or a whole name.
  void read_gpu_env(const yaml::Node& node, bool prefix) {
    const char* field = prefix ? "prefix" : "name";
    yaml::Fields r(node, {field, "source", "uncertain"});
    std::string v = variable(r, field);
    read_source(r);
    r.flag("uncertain");
    unique(node, fmt::format("{} {}", prefix ? "gpu_env_prefixes" : "gpu_env_names", v), "variable " + v);
    (prefix ? kb.gpu_env_prefixes : kb.gpu_env_names).push_back(v);
  }
  void read_gpu_env_prefixes(const yaml::Node& node) { read_gpu_env(node, true); }
  void read_gpu_env_names(const yaml::Node& node) { read_gpu_env(node, false); }

  // A row of pytorch_wheels.yaml: a CUDA variant names its CUDA, a ROCm one its ROCm, cpu neither.
  void read_torch_wheel(const yaml::Node& node) {
    yaml::Fields r(node, {"torch", "variant", "cuda", "rocm", "arches", "source", "uncertain"});
    TorchWheelRow w;
    w.torch = version(r, "torch", 2, 2);
    w.variant = r.text("variant");
    if (r.has("cuda")) w.cuda = version(r, "cuda", 2, 3);
    if (r.has("rocm")) w.rocm = version(r, "rocm", 2, 3);
    bool cpu = w.variant == "cpu";
    if (cpu != (w.cuda.empty() && w.rocm.empty()) || (!w.cuda.empty() && !w.rocm.empty()))
      yaml::fail(node, "a cpu row names no toolkit; a CUDA row names cuda, a ROCm row rocm");
    std::string want = !w.cuda.empty()   ? "cu" + text::join(text::split(w.cuda, '.'), "")
                       : !w.rocm.empty() ? "rocm" + w.rocm
                                         : "cpu";
    if (w.variant != want) r.bad("variant", fmt::format("must be {} for that toolkit", want));
    yaml::Node arches = node["arches"];
    if (!arches.is_list()) yaml::fail(node, "missing list 'arches'");
    for (const auto& a : arches.items()) {
      const std::string& e = a.scalar();
      bool ok = w.rocm.empty() ? text::starts_with(e, "sm_") || text::starts_with(e, "compute_")
                               : text::starts_with(e, "gfx");
      if (!ok)
        yaml::fail(a, fmt::format("'{}' is not an arch of a {} wheel", e, w.rocm.empty() ? "CUDA" : "ROCm"));
      w.arches.push_back(e);
    }
    if (cpu != w.arches.empty()) yaml::fail(node, "only cpu rows have no arches");
    w.source = read_source(r);
    w.uncertain = r.flag("uncertain");
    unique(node, "torch wheel " + w.torch + " " + w.variant, "row for torch " + w.torch + " " + w.variant);
    kb.torch_wheels.push_back(std::move(w));
  }

  void read_nccl_vars(const yaml::Node& node) {
    yaml::Fields r(node, {"name", "kind", "values", "functions", "case_sensitive", "min", "max", "since",
                          "deprecated", "removed", "replaced_by", "rccl_only", "rccl_current", "documented",
                          "note", "source", "uncertain"});
    NcclVarRow v;
    v.name = variable(r, "name");
    if (!text::starts_with(v.name, "NCCL_") && !text::starts_with(v.name, "RCCL_"))
      yaml::fail(node["name"], fmt::format("'{}' is not an NCCL_ or RCCL_ name", v.name));
    v.kind = r.text("kind");
    static const std::set<std::string> kinds = {"int",  "bool",    "enum", "level",
                                                "list", "ifnames", "hcas", "text"};
    if (!kinds.count(v.kind))
      r.bad("kind", "must be one of int, bool, enum, level, list, ifnames, hcas, text");
    v.values = r.list_if("values");
    if ((v.kind == "enum" || v.kind == "level" || v.kind == "list") && v.values.empty())
      yaml::fail(node, fmt::format("kind {} needs 'values'", v.kind));
    if (v.kind == "int")
      for (const auto& x : v.values)
        if (!text::to_int(x, 10)) yaml::fail(node["values"], fmt::format("'{}' is not a number", x));
    v.functions = r.list_if("functions");
    v.case_sensitive = r.flag("case_sensitive");
    v.min = r.integer_if("min");
    v.max = r.integer_if("max");
    v.since = r.text_or("since");
    v.deprecated = r.text_or("deprecated");
    v.removed = r.text_or("removed");
    v.replaced_by = r.text_or("replaced_by");
    v.rccl_only = r.flag("rccl_only");
    v.rccl_current = r.flag("rccl_current");
    v.documented = !r.has("documented") || r.flag("documented");
    v.note = r.text_or("note");
    v.source = read_source(r);
    v.uncertain = r.flag("uncertain");
    unique(node, "nccl var " + v.name, "variable " + v.name);
    kb.env.nccl_vars.push_back(std::move(v));
  }

  void read_nccl_prefixes(const yaml::Node& node) {
    yaml::Fields r(node, {"prefix", "rccl_only", "documented", "source", "uncertain"});
    NcclPrefixRow p{variable(r, "prefix"), r.flag("rccl_only"), !r.has("documented") || r.flag("documented"),
                    read_source(r), r.flag("uncertain")};
    unique(node, "nccl prefix " + p.prefix, "prefix " + p.prefix);
    kb.env.nccl_prefixes.push_back(std::move(p));
  }

  void read_nccl_foreign_names(const yaml::Node& node) {
    yaml::Fields r(node, {"name", "reader", "replaced_by", "source", "uncertain"});
    NcclForeignRow f{variable(r, "name"), r.text("reader"), r.text_or("replaced_by"), read_source(r),
                     r.flag("uncertain")};
    unique(node, "nccl var " + f.name, "variable " + f.name);
    kb.env.nccl_foreign.push_back(std::move(f));
  }

  void read_nccl_socket_tiers(const yaml::Node& node) {
    yaml::Fields r(node, {"match", "since", "source"});
    NcclSocketTierRow x{nonempty(r, "match"), r.text_or("since"), read_source(r)};
    unique(node, "nccl socket tier " + x.match, "tier \"" + x.match + "\"");
    kb.env.nccl_socket_tiers.push_back(std::move(x));
  }

  void read_net_interface_kinds(const yaml::Node& node) {
    yaml::Fields r(node, {"marker", "kind", "source"});
    NetInterfaceKindRow x{r.text("marker"), r.text("kind"), read_source(r)};
    bool type = x.marker.starts_with("type ") && text::to_int(x.marker.substr(5)).has_value();
    if (!type && x.marker != "bridge" && x.marker != "tun" && x.marker != "peer-link" &&
        x.marker != "no-device")
      yaml::fail(node["marker"], "marker must be bridge, tun, peer-link, no-device or \"type <number>\"");
    unique(node, "net interface kind " + x.marker, "row for " + x.marker);
    kb.env.net_interface_kinds.push_back(std::move(x));
  }

  void read_nccl_risky(const yaml::Node& node) {
    yaml::Fields r(node, {"name", "equals", "below", "above", "any", "requires", "vendor", "why", "better",
                          "source", "uncertain"});
    NcclRiskyRow x;
    x.name = variable(r, "name");
    x.equals = r.list_if("equals");
    x.below = r.integer_if("below");
    x.above = r.integer_if("above");
    x.any = r.flag("any");
    int conditions = !x.equals.empty() + x.below.has_value() + x.above.has_value() + x.any;
    if (conditions != 1) yaml::fail(node, "a risky row needs exactly one of equals, below, above, any");
    x.requirement = r.text_or("requires");
    if (!x.requirement.empty() && x.requirement != "ib_device" && x.requirement != "multi_gpu")
      r.bad("requires", "must be ib_device or multi_gpu");
    x.vendor = r.text_or("vendor");
    if (!x.vendor.empty() && x.vendor != "nvidia" && x.vendor != "amd")
      r.bad("vendor", "must be nvidia or amd");
    x.why = r.text("why");
    x.better = r.text("better");
    x.source = read_source(r);
    x.uncertain = r.flag("uncertain");
    unique(node,
           "nccl risky " + x.name + " " + text::join(x.equals, ",") + " " +
               std::to_string(x.below.value_or(-1)) + " " + std::to_string(x.above.value_or(-1)),
           "risky row for " + x.name);
    kb.env.nccl_risky.push_back(std::move(x));
  }

  void read_alloc_conf_options(const yaml::Node& node) {
    yaml::Fields r(node,
                   {"option", "kind", "values", "min", "max", "rocm_only", "note", "source", "uncertain"});
    AllocOptionRow o;
    o.option = r.text("option");
    o.kind = r.text("kind");
    static const std::set<std::string> kinds = {"size_mb", "fraction",     "divisions",   "enum",
                                                "bool",    "power_of_two", "positive_int"};
    if (!kinds.count(o.kind)) r.bad("kind", "is not an allocator option kind (docs/knowledge.md)");
    o.values = r.list_if("values");
    if (o.kind == "enum" && o.values.empty()) yaml::fail(node, "kind enum needs 'values'");
    o.min = r.integer_if("min");
    o.max = r.integer_if("max");
    o.rocm_only = r.flag("rocm_only");
    o.note = r.text_or("note");
    o.source = read_source(r);
    o.uncertain = r.flag("uncertain");
    unique(node, "alloc option " + o.option, "option " + o.option);
    kb.env.alloc_options.push_back(std::move(o));
  }

  void read_device_selection(const yaml::Node& node) {
    yaml::Fields r(node, {"name", "vendor", "layer", "note", "source", "uncertain"});
    DeviceSelectionRow d{variable(r, "name"), r.text("vendor"), r.text("layer"),
                         r.text_or("note"),   read_source(r),   r.flag("uncertain")};
    if (d.vendor != "nvidia" && d.vendor != "amd") r.bad("vendor", "must be nvidia or amd");
    unique(node, "device selection " + d.name, "variable " + d.name);
    kb.env.device_selection.push_back(std::move(d));
  }

  void read_vendor_variables(const yaml::Node& node) {
    yaml::Fields r(node, {"name", "vendor", "kind", "reader", "prefix", "source"});
    VendorVariableRow v{variable(r, "name"), r.text("vendor"), r.text("kind"),
                        r.text("reader"),    r.flag("prefix"), read_source(r)};
    if (v.vendor != "nvidia" && v.vendor != "amd") r.bad("vendor", "must be nvidia or amd");
    if (v.kind != "runtime" && v.kind != "build") r.bad("kind", "must be runtime or build");
    unique(node, "vendor variable " + v.name, "variable " + v.name);
    kb.env.vendor_variables.push_back(std::move(v));
  }

  void read_xid_codes(const yaml::Node& node) {
    yaml::Fields r(node, {"code", "mnemonic", "description", "resolution", "investigation", "category",
                          "status", "after_repair", "advice", "source", "uncertain"});
    XidRow x;
    x.code = static_cast<int>(r.positive("code"));
    x.mnemonic = r.text("mnemonic");
    x.description = r.text("description");
    x.resolution = r.text("resolution");
    x.investigation = r.text_or("investigation");
    x.category = one_of(
        r, "category",
        {"application", "memory", "nvlink", "gsp-firmware", "bus", "power", "board", "driver", "unused"});
    x.status = one_of(r, "status", {"info", "warn", "error"});
    x.after_repair = r.flag("after_repair");
    x.advice = r.text_or("advice");
    x.source = read_source(r);
    r.flag("uncertain");
    unique(node, "xid " + std::to_string(x.code), "row for Xid " + std::to_string(x.code));
    kb.health.xids.push_back(std::move(x));
  }

  void read_xid_resolutions(const yaml::Node& node) {
    yaml::Fields r(node, {"resolution", "advice", "source"});
    XidResolutionRow x{r.text("resolution"), r.text("advice"), read_source(r)};
    unique(node, "xid resolution " + x.resolution, "row for " + x.resolution);
    kb.health.xid_resolutions.push_back(std::move(x));
  }

  void read_nvidia_module_flavours(const yaml::Node& node) {
    yaml::Fields r(node, {"family", "model", "open", "proprietary", "source", "uncertain"});
    ModuleFlavourRow m{r.text("family"),
                       r.text_or("model"),
                       one_of(r, "open", {"required", "supported", "unsupported"}),
                       one_of(r, "proprietary", {"supported", "unsupported"}),
                       read_source(r),
                       r.flag("uncertain")};
    unique(node, "flavour " + m.family + " " + m.model, "row for " + m.family + " " + m.model);
    kb.health.module_flavours.push_back(std::move(m));
  }

  void read_nvswitch_devices(const yaml::Node& node) {
    yaml::Fields r(node, {"device", "name", "generation", "source", "uncertain"});
    NvSwitchRow n{r.hex("device", 0xffff), r.text("name"), static_cast<int>(r.positive("generation")),
                  read_source(r)};
    r.flag("uncertain");
    unique(node, "nvswitch " + std::to_string(n.device_id), "row for NVSwitch " + n.name);
    kb.health.nvswitches.push_back(std::move(n));
  }

  void read_nvlink_subnet_manager(const yaml::Node& node) {
    yaml::Fields r(node, {"family", "package", "source", "uncertain"});
    SubnetManagerRow m{r.text("family"), r.text("package"), read_source(r)};
    r.flag("uncertain");
    unique(node, "subnet manager " + m.family, "row for " + m.family);
    kb.health.subnet_managers.push_back(std::move(m));
  }

  void read_firmware_packages(const yaml::Node& node) {
    yaml::Fields r(node, {"vendor", "os", "package", "note", "source", "uncertain"});
    FirmwarePackageRow f{one_of(r, "vendor", {"amd", "nvidia"}),
                         r.text("os"),
                         r.text("package"),
                         r.text_or("note"),
                         read_source(r),
                         r.flag("uncertain")};
    unique(node, "firmware " + f.vendor + " " + f.os + " " + f.package, "row for " + f.package);
    kb.health.firmware_packages.push_back(std::move(f));
  }

  void read_module_refusals(const yaml::Node& node) {
    yaml::Fields r(node, {"line", "meaning", "source"});
    ModuleRefusalRow x{nonempty(r, "line"), r.text("meaning"), read_source(r)};
    unique(node, "module refusal " + x.line, "row for \"" + x.line + "\"");
    kb.health.module_refusals.push_back(std::move(x));
  }

  void read_gpus(const yaml::Node& node) {
    yaml::Fields r(node, {"vendor", "device", "revision", "subsystem_device", "subsystem_vendor", "name",
                          "arch", "family", "gfx_target_version", "vram_gib", "vram_uncertain",
                          "memory_bandwidth_floor_gbps", "host_bandwidth_floor_gbps", "source", "uncertain"});
    GpuRow g;
    g.vendor_id = r.hex("vendor", 0xffff);
    if (g.vendor_id != 0x10de && g.vendor_id != 0x1002)
      yaml::fail(node["vendor"],
                 fmt::format("unknown vendor '{}' (expected 0x10de or 0x1002)", r.text("vendor")));
    g.device_id = r.hex("device", 0xffff);
    if (r.has("revision")) g.revision = r.hex("revision", 0xff);
    if (r.has("subsystem_device")) g.subsystem_device = r.hex("subsystem_device", 0xffff);
    if (r.has("subsystem_vendor")) g.subsystem_vendor = r.hex("subsystem_vendor", 0xffff);
    g.model.name = r.text("name");
    g.model.arch = r.text("arch");
    if (!text::starts_with(g.model.arch, g.vendor_id == 0x10de ? "sm_" : "gfx"))
      yaml::fail(node["arch"],
                 fmt::format("arch '{}' must be sm_XX for NVIDIA and gfxNNNN for AMD", g.model.arch));
    g.model.family = r.text("family");
    if (r.has("gfx_target_version")) g.model.gfx_target_version = r.positive("gfx_target_version");
    if (r.has("vram_gib"))
      g.model.vram_bytes = static_cast<std::uint64_t>(std::llround(r.number("vram_gib") * 1073741824.0));
    g.vram_uncertain = r.flag("vram_uncertain");
    if (r.has("memory_bandwidth_floor_gbps"))
      g.model.memory_bandwidth_floor_gbps = r.number("memory_bandwidth_floor_gbps");
    if (r.has("host_bandwidth_floor_gbps"))
      g.model.host_bandwidth_floor_gbps = r.number("host_bandwidth_floor_gbps");
    g.model.source = fmt::format("knowledge {}: {}", name_, read_source(r));
    g.model.uncertain = r.flag("uncertain");
    std::ostringstream id;
    id << std::hex << g.vendor_id << ':' << g.device_id << " rev " << g.revision.value_or(0x100) << " subsys "
       << g.subsystem_device.value_or(0x10000) << ":" << g.subsystem_vendor.value_or(0x10000);
    unique(node, "gpu " + id.str(), "GPU row");
    kb.gpus.push_back(std::move(g));
  }

  void read_toolkit_min_driver(const yaml::Node& node) {
    yaml::Fields r(node, {"cuda", "min_driver", "source", "uncertain"});
    CudaDriverRow c{version(r, "cuda", 2, 3), version(r, "min_driver", 1, 4), read_source(r),
                    r.flag("uncertain")};
    unique(node, "cuda " + c.cuda, "row for CUDA " + c.cuda);
    kb.cuda_drivers.push_back(std::move(c));
  }

  void read_minor_compat(const yaml::Node& node) {
    yaml::Fields r(node, {"major", "min_driver", "below_branch", "source", "uncertain"});
    CudaFamilyRow f;
    f.major = static_cast<int>(r.positive("major"));
    f.min_driver = version(r, "min_driver", 1, 4);
    if (r.has("below_branch")) f.below_branch = static_cast<int>(r.positive("below_branch"));
    f.source = read_source(r);
    f.uncertain = r.flag("uncertain");
    unique(node, "family " + std::to_string(f.major), "row for CUDA " + std::to_string(f.major) + ".x");
    kb.cuda_families.push_back(std::move(f));
  }

  void read_driver_branches(const yaml::Node& node) {
    yaml::Fields r(node, {"branch", "max_cuda", "source", "uncertain"});
    DriverBranchRow b{static_cast<int>(r.positive("branch")), version(r, "max_cuda", 2, 3), read_source(r),
                      r.flag("uncertain")};
    unique(node, "branch " + std::to_string(b.branch), "row for branch " + std::to_string(b.branch));
    kb.driver_branches.push_back(std::move(b));
  }

  void read_amdgpu_driver_releases(const yaml::Node& node) {
    yaml::Fields r(node, {"driver", "rocm", "source"});
    AmdgpuDriverRow x{r.text("driver"), r.list("rocm"), read_source(r)};
    if (!dotted_number(x.driver, 2, 2)) r.bad("driver", "must be a release line such as 6.4 or 30.10");
    for (const auto& v : x.rocm)
      if (!dotted_number(v, 2, 2)) r.bad("rocm", fmt::format("'{}' is not a release line such as 7.2", v));
    unique(node, "amdgpu driver " + x.driver, "row for driver " + x.driver);
    kb.amdgpu_driver_releases.push_back(std::move(x));
  }

  void read_rocm_inbox_kernels(const yaml::Node& node) {
    yaml::Fields r(node, {"rocm", "os", "kernels", "source"});
    RocmInboxKernelRow x{r.text("rocm"), r.text("os"), r.list("kernels"), read_source(r)};
    if (!dotted_number(x.rocm, 2, 2)) r.bad("rocm", "must be a release line such as 7.0");
    if (text::split(x.os, ' ', true).size() != 2) r.bad("os", "must be '<os-release ID> <VERSION_ID>'");
    unique(node, "inbox kernels " + x.rocm + " " + x.os, "row for ROCm " + x.rocm + " on " + x.os);
    kb.rocm_inbox_kernels.push_back(std::move(x));
  }

  void read_amdgpu_params(const yaml::Node& node) {
    yaml::Fields r(node, {"name", "default", "auto", "auto_off_targets", "auto_off", "harmful", "source"});
    AmdgpuParamRow x{
        .name = r.text("name"), .default_value = r.text_or("default"), .auto_text = r.text("auto")};
    x.auto_off_targets = r.list_if("auto_off_targets");
    if (!x.auto_off_targets.empty()) x.auto_off = r.text("auto_off");
    if (!r["harmful"].is_list()) r.bad("harmful", "must be a list of {value, status, why}");
    for (const auto& h : r["harmful"].items()) {
      yaml::Fields hr(h, {"value", "status", "why"});
      x.harmful.push_back({hr.text("value"), one_of(hr, "status", {"warn", "info"}), hr.text("why")});
    }
    x.source = read_source(r);
    unique(node, "amdgpu param " + x.name, "row for amdgpu." + x.name);
    kb.amdgpu_params.push_back(std::move(x));
  }

  void read_tool_errors(const yaml::Node& node) {
    yaml::Fields r(node, {"tool", "line", "meaning", "source"});
    ToolErrorRow x{r.text("tool"), nonempty(r, "line"), r.text("meaning"), read_source(r)};
    unique(node, "tool error " + x.tool + " " + x.line, "row for " + x.tool + "'s \"" + x.line + "\"");
    kb.tool_errors.push_back(std::move(x));
  }

  void read_gfx_targets(const yaml::Node& node) {
    yaml::Fields r(
        node, {"gfx_target_version", "target", "family", "gc_ip", "products", "apu", "source", "uncertain"});
    GfxRow x;
    x.gfx_target_version = r.positive("gfx_target_version");
    x.target = r.text("target");
    if (!text::starts_with(x.target, "gfx")) yaml::fail(node["target"], "target must be an LLVM gfx name");
    x.family = r.text("family");
    x.source = read_source(r);
    if (r.has("gc_ip")) x.gc_ip = r.text("gc_ip");
    if (r.has("products")) x.products = r.text("products");
    x.apu = r.flag("apu");
    x.uncertain = r.flag("uncertain");
    unique(node, "gfx " + std::to_string(x.gfx_target_version),
           "row for " + std::to_string(x.gfx_target_version));
    unique(node, "target " + x.target, "row for " + x.target);
    kb.gfx_targets.push_back(std::move(x));
  }

  void read_rocm_releases(const yaml::Node& node) {
    yaml::Fields r(node, {"rocm", "gfx_targets", "os", "source", "uncertain"});
    RocmReleaseRow x;
    x.rocm = version(r, "rocm", 2, 3);
    x.gfx_targets = r.list("gfx_targets");
    for (const auto& t : x.gfx_targets)
      if (!text::starts_with(t, "gfx"))
        yaml::fail(node["gfx_targets"], fmt::format("'{}' is not an LLVM gfx name", t));
    x.os = r.list("os");
    for (const auto& o : x.os)
      if (text::split(o, ' ').size() != 2 || !dotted_number(text::split(o, ' ')[1], 1, 3))
        yaml::fail(node["os"], fmt::format("'{}' is not '<os-release ID> <version>'", o));
    x.source = read_source(r);
    x.uncertain = r.flag("uncertain");
    unique(node, "rocm " + x.rocm, "row for ROCm " + x.rocm);
    kb.rocm_releases.push_back(std::move(x));
  }

  void read_distro_releases(const yaml::Node& node) {
    yaml::Fields r(node, {"id", "version", "codename", "source", "uncertain"});
    DistroReleaseRow d{r.text("id"), version(r, "version", 1, 2), r.text("codename"), read_source(r),
                       r.flag("uncertain")};
    unique(node, "distro " + d.id + " " + d.version, "row for " + d.id + " " + d.version);
    unique(node, "codename " + d.id + " " + d.codename, "row for " + d.id + " " + d.codename);
    kb.distro_releases.push_back(std::move(d));
  }

  void read_vendor_repos(const yaml::Node& node) {
    yaml::Fields r(node, {"host", "vendor", "release_specific", "source", "uncertain"});
    VendorRepoRow v;
    v.host = text::lower(r.text("host"));
    v.vendor = r.text("vendor");
    if (v.vendor != "amd" && v.vendor != "nvidia" && v.vendor != "pytorch")
      yaml::fail(node["vendor"], "vendor must be amd, nvidia or pytorch");
    if (!r.has("release_specific")) yaml::fail(node, "missing required field 'release_specific'");
    v.release_specific = r.flag("release_specific");
    v.source = read_source(r);
    r.flag("uncertain");
    unique(node, "repo host " + v.host, "row for " + v.host);
    kb.vendor_repos.push_back(std::move(v));
  }

  void read_module_signing(const yaml::Node& node) {
    yaml::Fields r(node, {"builder", "since", "before", "distribution", "key", "certificate", "made_by",
                          "read_from", "source", "uncertain"});
    ModuleSigningRow x;
    x.builder = one_of(r, "builder", {"dkms", "akmods"});
    if (r.has("since")) x.since = version(r, "since", 2, 4);
    if (r.has("before")) x.before = version(r, "before", 2, 4);
    x.distribution = r.text("distribution");
    x.key = r.text_or("key");
    x.certificate = r.text_or("certificate");
    x.made_by = one_of(r, "made_by", {"dkms", "update-secureboot-policy", "kmodgenca", "none"});
    if ((x.made_by == "none") != (x.key.empty() && x.certificate.empty()))
      yaml::fail(node, "key and certificate go together with a made_by other than none");
    for (const auto* path : {&x.key, &x.certificate})
      if (!path->empty() && ((*path)[0] != '/' || path->find("..") != std::string::npos))
        yaml::fail(node, fmt::format("'{}' is not an absolute path", *path));
    x.read_from = r.text("read_from");
    x.source = read_source(r);
    x.uncertain = r.flag("uncertain");
    kb.module_signing.push_back(std::move(x));
  }

  void read_torch_extensions(const yaml::Node& node) {
    yaml::Fields r(node, {"dist", "folders", "files", "rocm", "note", "source", "uncertain"});
    TorchExtensionRow x{r.text("dist"),    r.list("folders"), r.list_if("files"), r.text_or("rocm"),
                        r.text_or("note"), read_source(r),    r.flag("uncertain")};
    for (const auto& folder : x.folders)
      if (folder.empty() || folder[0] == '/' || folder.find("..") != std::string::npos)
        yaml::fail(node["folders"], fmt::format("'{}' is not a folder inside the site folder", folder));
    if (x.rocm != "" && x.rocm != "none" && !dotted_number(x.rocm, 1, 4))
      r.bad("rocm", "must be none or a release");
    unique(node, "extension " + x.dist, "row for " + x.dist);
    kb.torch_extensions.push_back(std::move(x));
  }

  // secrets.yaml (knowledge_secrets.hpp).
  SecretNameRow secret_name(const yaml::Node& node, bool place) {
    yaml::Fields r(node, {"match", "text", "strong", "unless_followed_by", "example", "source"});
    if (place && (r.has("strong") || r.has("unless_followed_by")))
      yaml::fail(node, "a place name has only match, text, example and source");
    SecretNameRow n;
    n.match = place ? one_of(r, "match", {"prefix", "suffix"})
                    : one_of(r, "match", {"contains", "word", "prefix", "suffix", "exact"});
    n.text = r.text("text");
    bool normal = !n.text.empty() && std::all_of(n.text.begin(), n.text.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
    if (!normal) r.bad("text", "must be lower case letters, digits and '_' (the form names are compared in)");
    if (!place) {
      n.strong = r.flag("strong");
      n.unless_followed_by = r.text_or("unless_followed_by");
    }
    n.example = variable(r, "example");
    n.source = read_source(r);
    unique(node, fmt::format("secret name {} {} {}", place, n.match, n.text),
           "rule " + n.match + " " + n.text);
    return n;
  }
  void read_secret_names(const yaml::Node& node) { kb.secrets.names.push_back(secret_name(node, false)); }
  void read_place_names(const yaml::Node& node) { kb.secrets.places.push_back(secret_name(node, true)); }

  void read_secret_shapes(const yaml::Node& node) {
    yaml::Fields r(node, {"prefix", "kind", "alphabet", "min", "mixed_case", "digit", "source"});
    SecretShapeRow s;
    s.prefix = r.text("prefix");
    if (s.prefix.empty() || s.prefix.find_first_of(" \t\n") != std::string::npos)
      r.bad("prefix", "must be a non-empty prefix without blanks");
    s.kind = r.text("kind");
    s.alphabet = one_of(r, "alphabet", {"alnum", "alnum_underscore", "alnum_dash", "base64url", "url_path"});
    s.min = static_cast<std::size_t>(r.positive("min"));
    s.mixed_case = r.flag("mixed_case");
    s.digit = r.flag("digit");
    s.source = read_source(r);
    unique(node, "secret shape " + s.prefix, "shape " + s.prefix);
    for (const auto& earlier : kb.secrets.shapes) // the first prefix that matches wins
      if (text::starts_with(s.prefix, earlier.prefix))
        yaml::fail(node,
                   fmt::format("'{}' must come before '{}', which it starts with", s.prefix, earlier.prefix));
    kb.secrets.shapes.push_back(std::move(s));
  }
};

// Every table a knowledge file may hold, with its reader (docs/knowledge.md). An unknown table is an error.
struct Table {
  std::string_view name;
  void (Loader::*read)(const yaml::Node&);
};
constexpr Table k_tables[] = {
    {"gpus", &Loader::read_gpus},
    {"toolkit_min_driver", &Loader::read_toolkit_min_driver},
    {"minor_compat", &Loader::read_minor_compat},
    {"driver_branches", &Loader::read_driver_branches},
    {"gfx_targets", &Loader::read_gfx_targets},
    {"gpu_env_prefixes", &Loader::read_gpu_env_prefixes},
    {"gpu_env_names", &Loader::read_gpu_env_names},
    {"rocm_releases", &Loader::read_rocm_releases},
    {"distro_releases", &Loader::read_distro_releases},
    {"vendor_repos", &Loader::read_vendor_repos},
    {"torch_wheels", &Loader::read_torch_wheel},
    {"torch_extensions", &Loader::read_torch_extensions},
    {"tool_errors", &Loader::read_tool_errors},
    {"amdgpu_params", &Loader::read_amdgpu_params},
    {"amdgpu_driver_releases", &Loader::read_amdgpu_driver_releases},
    {"rocm_inbox_kernels", &Loader::read_rocm_inbox_kernels},
    {"module_signing", &Loader::read_module_signing},
    // knowledge_env.hpp: nccl.yaml, pytorch_env.yaml, env.yaml's device_selection and vendor_variables
    {"nccl_vars", &Loader::read_nccl_vars},
    {"nccl_prefixes", &Loader::read_nccl_prefixes},
    {"nccl_foreign_names", &Loader::read_nccl_foreign_names},
    {"nccl_risky", &Loader::read_nccl_risky},
    {"nccl_socket_tiers", &Loader::read_nccl_socket_tiers},
    {"net_interface_kinds", &Loader::read_net_interface_kinds},
    {"alloc_conf_options", &Loader::read_alloc_conf_options},
    {"device_selection", &Loader::read_device_selection},
    {"vendor_variables", &Loader::read_vendor_variables},
    // knowledge_health.hpp: xid.yaml, health.yaml
    {"xid_codes", &Loader::read_xid_codes},
    {"xid_resolutions", &Loader::read_xid_resolutions},
    {"nvidia_module_flavours", &Loader::read_nvidia_module_flavours},
    {"nvswitch_devices", &Loader::read_nvswitch_devices},
    {"nvlink_subnet_manager", &Loader::read_nvlink_subnet_manager},
    {"firmware_packages", &Loader::read_firmware_packages},
    {"module_refusals", &Loader::read_module_refusals},
    // knowledge_secrets.hpp: secrets.yaml
    {"secret_names", &Loader::read_secret_names},
    {"place_names", &Loader::read_place_names},
    {"secret_shapes", &Loader::read_secret_shapes},
};

void Loader::load(const yaml::Node& doc) {
  name_ = std::filesystem::path(doc.file()).filename().string();
  file_sources_.clear();
  if (!doc.is_map()) yaml::fail(doc, "expected a mapping of tables (sources:, gpus:, ...) at the top");
  if (doc["sources"].present()) read_sources(doc["sources"]);
  for (const auto& [key, rows] : doc.entries()) {
    const std::string& name = key.scalar();
    if (name == "sources") continue;
    auto table = std::ranges::find(k_tables, name, &Table::name);
    if (table == std::end(k_tables)) yaml::fail(key, fmt::format("unknown table '{}'", name));
    if (!rows.is_list())
      yaml::fail(rows.is_scalar() || rows.is_map() ? rows : key,
                 fmt::format("'{}' must be a list of rows", name));
    for (const auto& row : rows.items())
      (this->*table->read)(row);
  }
}

} // namespace

std::expected<Knowledge, std::string> load_knowledge(const std::string& dir) {
  auto files = list_data_files("checks/knowledge", dir, ".yaml");
  if (!files) return std::unexpected(files.error());
  if (files->empty())
    return std::unexpected(
        fmt::format("no knowledge files (*.yaml) in {}", dir.empty() ? "the binary" : dir));
  Loader loader;
  for (const auto& name : *files) {
    auto doc = yaml::parse_data_file("checks/knowledge", dir, name);
    if (!doc) return std::unexpected(doc.error());
    auto loaded = yaml::guarded(doc->file(), [&] { loader.load(*doc); });
    if (!loaded) return std::unexpected(loaded.error());
  }
  return std::move(loader.kb);
}

const SecretRules& builtin_secret_rules() {
  static const SecretRules rules = [] {
    auto kb = load_knowledge();
    return kb ? std::move(kb->secrets) : SecretRules{};
  }();
  return rules;
}

} // namespace gpudoctor
