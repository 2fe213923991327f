// The properties `fleet` and `diff` compare, read from a report's "facts" (src/facts/facts_json.cpp writes
// them). The hundreds of a rank are its group, in the order the tables show them.
#include "fleet/node_report.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

// The Python distributions that are built for, or ship, the GPU stack: a node whose copy differs is the
// one that breaks a job. Names as the collector normalises them (lower case, '-'). `fleet` compares only
// these; `diff` compares every distribution.
constexpr std::string_view k_gpu_distributions[] = {"torch",
                                                    "triton",
                                                    "pytorch-triton",
                                                    "xformers",
                                                    "flash-attn",
                                                    "apex",
                                                    "deepspeed",
                                                    "vllm",
                                                    "bitsandbytes",
                                                    "jax",
                                                    "jaxlib",
                                                    "tensorflow",
                                                    "tensorrt",
                                                    "onnxruntime-gpu",
                                                    "megatron-core",
                                                    "cupy",
                                                    "mpi4py",
                                                    "nccl",
                                                    "torchvision",
                                                    "torchaudio",
                                                    "transformer-engine"};
constexpr std::string_view k_gpu_distribution_prefixes[] = {
    "torch-",  "triton-",    "pytorch-triton-",    "nvidia-",  "cuda-",
    "cupy-",   "jax-cuda",   "jax-rocm",           "rocm-",    "hip-",
    "amd-",    "flash-attn", "transformer-engine", "tensorrt", "onnxruntime-",
    "xformers"};

bool gpu_distribution(std::string_view name) {
  for (auto n : k_gpu_distributions)
    if (name == n) return true;
  for (auto p : k_gpu_distribution_prefixes)
    if (name.starts_with(p)) return true;
  return false;
}

class Builder {
public:
  explicit Builder(std::vector<NodeProperty>& out) : m_out(out) {}
  void add(int rank, std::string_view group, std::string name, std::optional<std::string> value) {
    if (value && !value->empty())
      m_out.push_back({rank, std::string(group), std::move(name), std::move(*value)});
  }
  // A variable set to "" is not an unset one (CUDA_VISIBLE_DEVICES="" hides every GPU).
  void add_even_empty(int rank, std::string_view group, std::string name, std::optional<std::string> value) {
    if (value) m_out.push_back({rank, std::string(group), std::move(name), std::move(*value)});
  }

private:
  std::vector<NodeProperty>& m_out;
};

// A fact of facts_json: {"value": ..., "source": ...} or null.
std::optional<std::string> node_fact(const JsonValue& v) {
  auto s = v["value"].string();
  return s ? std::optional<std::string>(std::string(*s)) : std::nullopt;
}

std::optional<std::string> str(const JsonValue& v) {
  auto s = v.string();
  return s ? std::optional<std::string>(std::string(*s)) : std::nullopt;
}

// "8 × NVIDIA H200" or "4 × A, 2 × B": a multiset, most common first.
std::optional<std::string> counted(const std::vector<std::string>& items) {
  if (items.empty()) return std::nullopt;
  std::map<std::string, int> n;
  for (const auto& i : items)
    ++n[i];
  std::vector<std::pair<std::string, int>> v(n.begin(), n.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> parts;
  for (const auto& [item, count] : v)
    parts.push_back(fmt::format("{} × {}", count, item));
  return text::join(parts, ", ");
}

std::string node_link_text(const JsonValue& link) {
  auto speed = link["speed_current"].string();
  auto width = link["width_current"].integer();
  if (!speed && !width) return {};
  std::string out = fmt::format("{} x{}", speed.value_or("?"), width ? std::to_string(*width) : "?");
  auto max_speed = link["speed_max"].string();
  auto max_width = link["width_max"].integer();
  if ((max_speed && max_speed != speed) || (max_width && max_width != width))
    out +=
        fmt::format(" (max {} x{})", max_speed.value_or("?"), max_width ? std::to_string(*max_width) : "?");
  return out;
}

// "00000000:19:00.0" (nvidia-smi) and "0000:19:00.0" (sysfs) name one device.
std::string short_bus_id(std::string_view id) {
  std::string s = text::lower(id);
  return s.size() > 12 ? s.substr(s.size() - 12) : s;
}

void gpus(const JsonValue& facts, const ReadOptions& opt, Builder& b) {
  std::vector<std::string> models, drivers, links;
  std::map<std::string, std::string> uuids;
  facts["drivers"]["nvidia"]["smi_gpus"].each([&](JsonValue g) {
    if (auto uuid = g["uuid"].string()) uuids[short_bus_id(g["bus_id"].text())] = std::string(*uuid);
  });
  facts["gpus"].each([&](JsonValue g) {
    std::string name = g["name"].text("unknown GPU");
    std::string driver = node_fact(g["driver"]).value_or("none");
    std::string link = node_link_text(g["link"]);
    models.push_back(name);
    drivers.push_back(driver);
    if (!link.empty()) links.push_back(link);
    if (!opt.details) return;
    std::string bdf = g["bdf"].text();
    std::string what = fmt::format("{}, driver {}", name, driver);
    if (!link.empty()) what += ", " + link;
    b.add(210, "GPUs", "GPU " + bdf, what);
    if (auto it = uuids.find(short_bus_id(bdf)); it != uuids.end())
      b.add(211, "GPUs", "GPU " + bdf + " UUID", it->second);
  });
  b.add(201, "GPUs", "GPUs", models.empty() ? std::optional<std::string>("none") : counted(models));
  b.add(202, "GPUs", "bound to", counted(drivers));
  b.add(203, "GPUs", "PCIe links", counted(links));
}

void drivers(const JsonValue& facts, Builder& b) {
  JsonValue nv = facts["drivers"]["nvidia"];
  if (auto v = node_fact(nv["kernel_module_version"]))
    b.add(301, "Driver", "NVIDIA kernel module",
          nv["open_kernel_module"].boolean().value_or(false) ? *v + " (open)" : *v);
  b.add(302, "Driver", "nvidia-smi driver", node_fact(nv["smi_driver_version"]));
  b.add(303, "Driver", "amdgpu module", node_fact(facts["drivers"]["amd"]["amdgpu_module_version"]));
}

void toolkits(const JsonValue& facts, Builder& b) {
  JsonValue tk = facts["toolkits"];
  b.add(401, "CUDA", "CUDA (driver)", node_fact(facts["drivers"]["nvidia"]["smi_cuda_version"]));
  std::vector<std::string> cuda, rocm;
  tk["cuda"].each([&](JsonValue c) {
    cuda.push_back(fmt::format("{} ({})", node_fact(c["version"]).value_or("?"), c["path"].text()));
  });
  tk["rocm"].each([&](JsonValue r) {
    rocm.push_back(fmt::format("{} ({})", node_fact(r["version"]).value_or("?"), r["path"].text()));
  });
  if (!cuda.empty()) b.add(402, "CUDA", "CUDA toolkits", text::join(cuda, ", "));
  b.add(403, "CUDA", "nvcc", node_fact(tk["nvcc_version"]));
  b.add(404, "CUDA", "cuDNN", node_fact(tk["cudnn_version"]));
  b.add(405, "CUDA", "NCCL", node_fact(tk["nccl_version"]));
  if (!rocm.empty()) b.add(501, "ROCm", "ROCm", text::join(rocm, ", "));
  b.add(502, "ROCm", "ROCr runtime", node_fact(facts["drivers"]["amd"]["rocminfo_runtime_version"]));
  b.add(503, "ROCm", "RCCL", node_fact(tk["rccl_version"]));
}

std::string torch_text(const JsonValue& torch) {
  if (!torch.is_object()) return "not installed";
  std::string v = torch["version"].text("?");
  if (auto cuda = torch["cuda"].string()) return fmt::format("{} CUDA {}", v, *cuda);
  if (auto hip = torch["hip"].string()) return fmt::format("{} HIP {}", v, *hip);
  return v + " CPU-only";
}

void python(const JsonValue& facts, const ReadOptions& opt, Builder& b) {
  std::map<std::string, int> roles;
  facts["python"]["interpreters"].each([&](JsonValue e) {
    std::string role = e["role"].text("?");
    int n = ++roles[role];
    std::string label = n == 1 ? fmt::format("python3 ({})", role) : fmt::format("python3 ({} #{})", role, n);
    b.add(601, "Python", label, node_fact(e["version"]));
    b.add(602, "Python", "PyTorch · " + label, torch_text(e["torch"]));
    std::map<std::string, std::set<std::string>> dists;
    e["distributions"].each([&](JsonValue d) {
      std::string_view s = d.string().value_or("");
      auto eq = s.find("==");
      if (eq == std::string_view::npos) return;
      std::string name(s.substr(0, eq));
      if (opt.details || gpu_distribution(name)) dists[name].insert(std::string(s.substr(eq + 2)));
    });
    for (const auto& [name, versions] : dists)
      b.add(701, "Python packages", name + " · " + label,
            text::join(std::vector<std::string>(versions.begin(), versions.end()), ", "));
  });
}

} // namespace

std::vector<NodeProperty> node_properties(const JsonValue& report, const ReadOptions& opt) {
  std::vector<NodeProperty> out;
  Builder b(out);
  JsonValue facts = report["facts"];
  b.add(101, "System", "OS", str(report["host"]["os"]));
  b.add(102, "System", "kernel", str(report["host"]["kernel"]));
  b.add(103, "System", "architecture", node_fact(facts["os"]["architecture"]));
  b.add(104, "System", "gpudoctor", str(report["tool"]["version"]));
  gpus(facts, opt, b);
  drivers(facts, b);
  toolkits(facts, b);
  python(facts, opt, b);
  facts["environment"]["gpu_variables"].each_member([&](std::string_view name, JsonValue value) {
    b.add_even_empty(801, "Environment", std::string(name), str(value));
  });
  return out;
}

} // namespace gpudoctor
