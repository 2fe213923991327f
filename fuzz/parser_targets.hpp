// The parsers of src/parse, each with the invariants its output must keep beyond "no crash, no exception":
// one table for the libFuzzer targets (fuzz_main.cpp; fuzz/CMakeLists.txt makes one executable per entry,
// reading the names from lines starting with `  {"name",`) and for the unit test that runs every parser over
// the real samples, their truncations and garbage (tests/unit/test_parse_fuzz.cpp). No <expected> here: the
// fuzz build's clang cannot compile libstdc++'s (docs/fuzzing.md).
#pragma once

#include "parse/history_reading.hpp"
#include "parse/kernel_log.hpp"
#include "parse/parsers.hpp"
#include "parse/parsers_layer.hpp"
#include "parse/parsers_system.hpp"
#include "system/record_excerpts.hpp"
#include "util/package_version.hpp"
#include "util/wrap.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor::fuzz {

// A broken invariant throws: the unit test reports it with the parser's name, libFuzzer as a crash.
inline void require(bool ok, const char* what) {
  if (!ok) throw std::logic_error(std::string("invariant broken: ") + what);
}

// The lines of `text`, without their line feeds.
inline std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  for (std::size_t at = 0; at <= text.size();) {
    std::size_t end = std::min(text.find('\n', at), text.size());
    out.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

struct Target {
  const char* name;
  void (*run)(std::string_view);
};

// clang-format off
inline constexpr Target k_targets[] = {
  {"os_release", [](std::string_view s) { (void)parse::os_release(s); }},
  {"passwd", [](std::string_view s) {
     for (const auto& account : parse::passwd(s)) require(!account.name.empty(), "account name");
   }},
  {"login_defs", [](std::string_view s) { (void)parse::login_defs_uid_range(s); }},
  {"proc_modules", [](std::string_view s) {
     for (const auto& [name, version] : parse::proc_modules(s)) require(!name.empty(), "module name");
   }},
  {"nvidia_proc_version", [](std::string_view s) { (void)parse::nvidia_proc_version(s); }},
  {"nvidia_smi_failure", [](std::string_view s) { (void)parse::nvidia_smi_failure(s); }},
  {"nvidia_smi_xml", [](std::string_view s) { (void)parse::nvidia_smi_xml(s); }},
  {"nvidia_smi_table", [](std::string_view s) { (void)parse::nvidia_smi_table(s); }},
  {"nvidia_smi_query", [](std::string_view s) { (void)parse::nvidia_smi_query(s); }},
  {"package_version", [](std::string_view s) {
     // Two versions, split at the first newline: each order is the other's opposite.
     auto nl = s.find('\n');
     std::string_view a = s.substr(0, nl), b = nl == std::string_view::npos ? "" : s.substr(nl + 1);
     auto sign = [](int c) { return (c > 0) - (c < 0); };
     require(sign(dpkg_version_compare(a, b)) == -sign(dpkg_version_compare(b, a)), "dpkg antisymmetric");
     require(sign(rpm_version_compare(a, b)) == -sign(rpm_version_compare(b, a)), "rpm antisymmetric");
     require(dpkg_version_compare(a, a) == 0 && rpm_version_compare(a, a) == 0, "reflexive");
   }},
  {"previous_reading", [](std::string_view s) {
     auto p = parse::previous_reading(s);
     if (!p) return;
     require(!p->report.empty(), "a reading names its report");
     require(p->gpus.size() <= parse::k_max_reading_rows && p->events.size() <= parse::k_max_reading_rows, "rows bounded");
     for (const auto& g : p->gpus) {
       require(g.ras.size() <= parse::k_max_reading_ras_blocks, "RAS blocks bounded");
       for (auto c : {g.volatile_uncorrectable, g.aggregate_uncorrectable, g.volatile_correctable,
                      g.aggregate_correctable, g.retired_sbe, g.retired_dbe})
         require(!c || *c >= 0, "counts are whole numbers");
     }
     for (const auto& e : p->events)
       require(e.kind == KernelEventKind::xid || e.kind == KernelEventKind::sxid, "counted kinds only");
   }},
  {"nvidia_smi_list", [](std::string_view s) {
     for (const auto& gpu : parse::nvidia_smi_list(s)) {
       require(gpu.index >= 0 && gpu.uuid.starts_with("GPU-"), "listed GPU");
       for (const auto& mig : gpu.migs) require(mig.uuid.starts_with("MIG-"), "MIG uuid");
     }
   }},
  {"bdf_from_nvidia_bus_id", [](std::string_view s) {
     auto b = parse::bdf_from_nvidia_bus_id(s);
     require(b.empty() || b.size() == 12, "bdf length");
   }},
  {"rocminfo", [](std::string_view s) {
     auto r = parse::rocminfo(s);
     require(r.ok == !r.agents.empty(), "rocminfo ok means agents");
   }},
  {"lines_containing", [](std::string_view s) {
     static constexpr std::string_view parts[] = {"HSA_STATUS_ERROR", "", "GPU is lost", "a"};
     auto lines = parse::lines_containing(s, parts, 10);
     require(lines.size() <= 10, "at most max lines");
     for (const auto& l : lines)
       require(l.part < 4 && l.part != 1 && l.line.size() <= 512 &&
                   (l.line.size() == 512 || l.line.find(parts[l.part]) != std::string::npos),
               "a line holds its part");
   }},
  {"kfd_node_properties", [](std::string_view s) { (void)parse::kfd_node_properties(s, 7); }},
  {"dpkg_status", [](std::string_view s) { (void)parse::dpkg_status(s); }},
  {"dpkg_depends", [](std::string_view s) {
     for (const auto& [name, deps] : parse::dpkg_depends(s))
       for (const auto& d : deps) require(!d.empty() && d.find_first_of(" ,|(") == std::string::npos, "dep name");
   }},
  {"cuda_version_json", [](std::string_view s) { (void)parse::cuda_version_json(s); }},
  {"cuda_version_txt", [](std::string_view s) { (void)parse::cuda_version_txt(s); }},
  {"nvcc_version", [](std::string_view s) { (void)parse::nvcc_version(s); }},
  {"rocm_info_version", [](std::string_view s) { (void)parse::rocm_info_version(s); }},
  {"torch_version_py", [](std::string_view s) { (void)parse::torch_version_py(s); }},
  {"pci_ids_name", [](std::string_view s) {
     (void)parse::pci_ids_name(s, 0x10de, 0x2335);
     (void)parse::pci_ids_name(s, 0x1002, 0x744c, 0x1002, 0x0e3b);
   }},
  {"header_version", [](std::string_view s) {
     (void)parse::cudnn_header_version(s);
     (void)parse::nccl_header_version(s);
   }},
  {"nvidia_smi_topo", [](std::string_view s) {
     auto t = parse::nvidia_smi_topo(s);
     if (!t) return;
     for (const auto& r : t->rows) {
       require(r.links.size() <= t->devices.size(), "topo row wider than the header");
       (void)parse::topo_link(r.links.empty() ? std::string() : r.links.back());
       (void)parse::cpu_list(r.cpu_affinity);
     }
     (void)t->gpus();
     if (!t->devices.empty()) (void)t->link(t->devices.front(), t->devices.back());
   }},
  {"cpu_list", [](std::string_view s) {
     for (auto [a, b] : parse::cpu_list(s)) require(a <= b, "cpu range order");
   }},
  {"rocm_smi_json", [](std::string_view s) { (void)parse::rocm_smi_json(s); }},
  {"rocm_smi_csv", [](std::string_view s) { (void)parse::rocm_smi_csv(s); }},
  {"rocm_smi_table", [](std::string_view s) { (void)parse::rocm_smi_table(s); }},
  {"rocm_smi_gfx_target", [](std::string_view s) {
     auto t = parse::rocm_smi_gfx_target(s);
     require(t.empty() || t.starts_with("gfx"), "gfx target prefix");
     if (auto v = parse::gfx_target_version_of(s)) require(*v >= 0, "gfx_target_version sign");
   }},
  {"amd_smi_gpus", [](std::string_view s) { (void)parse::amd_smi_gpus(s); }},
  {"amd_smi_version", [](std::string_view s) { (void)parse::amd_smi_version(s); }},
  {"kfd_io_link_properties", [](std::string_view s) {
     auto l = parse::kfd_io_link_properties(s);
     if (l.type) (void)parse::kfd_io_link_type_name(*l.type);
   }},
  {"rpm_qa", [](std::string_view s) {
     for (const auto& p : parse::rpm_qa(s))
       require(!p.name.empty() && !p.version.empty() && !p.release.empty(), "rpm name, version, release");
     (void)parse::rpm_qa_versions(s);
   }},
  {"dpkg_records", [](std::string_view s) {
     for (const auto& r : parse::dpkg_records(s)) {
       require(!r.name.empty(), "dpkg record name");
       for (const auto& clause : r.clauses) {
         require(!clause.empty(), "a clause has an alternative");
         for (const auto& alt : clause) require(!alt.empty() && alt.find_first_of(" ,|(") == std::string::npos, "dep name");
       }
     }
     for (const auto& name : parse::apt_auto_installed(s)) require(!name.empty(), "auto name");
   }},
  {"apt_policy_sources", [](std::string_view s) {
     for (const auto& [name, hosts] : parse::apt_policy_sources(s)) {
       require(!name.empty() && name.find_first_of(" :") == std::string::npos, "policy package name");
       require(hosts.size() <= 16, "policy hosts bounded");
       for (const auto& h : hosts) require(!h.empty() && h.find('/') == std::string::npos, "policy host");
     }
   }},
  {"dnf_versionlock", [](std::string_view s) {
     for (const auto& e : parse::dnf_versionlock(s)) {
       require(!e.empty() && e.find_first_of(" \t") == std::string::npos, "one word an entry");
       auto name = parse::versionlock_name(e);
       require(name.size() < e.size(), "the name is a prefix");
     }
   }},
  {"rpm_relations", [](std::string_view s) {
     for (const auto& [name, rel] : parse::rpm_relations(s)) {
       require(!name.empty(), "rpm name");
       for (const auto& r : rel.requires_) require(!r.empty() && r.front() != '/', "no file requirement");
     }
   }},
  {"apt_sources", [](std::string_view s) {
     for (const char* file : {"x.list", "x.sources"})
       for (const auto& e : parse::apt_sources(s, file))
         require(!e.uri.empty() && !e.suite.empty() && (e.type == "deb" || e.type == "deb-src"), "apt entry");
   }},
  {"yum_repos", [](std::string_view s) {
     for (const auto& r : parse::yum_repos(s, "x.repo")) require(!r.id.empty() && r.line > 0, "repo id");
   }},
  {"dkms_status", [](std::string_view s) {
     for (const auto& e : parse::dkms_status(s).entries)
       require(!e.module.empty() && !e.version.empty() && !e.state.empty(), "dkms entry");
   }},
  {"mokutil_sb_state", [](std::string_view s) { (void)parse::mokutil_sb_state(s); }},
  {"kernel_cmdline", [](std::string_view s) {
     auto c = parse::kernel_cmdline(s);
     (void)c.iommu_passthrough();
     (void)c.blacklisted_modules();
     (void)c.module_param("nouveau", "modeset");
   }},
  {"hsa_override_gfx", [](std::string_view s) {
     auto v = parse::hsa_override_gfx(s);
     require(!v || (*v >= 0 && *v <= 63 * 10000 + 255 * 100 + 255), "gfx version in ROCr's range");
   }},
  {"shell_profile", [](std::string_view s) {
     for (const auto& p : {parse::shell_profile(s, "x"), parse::etc_environment(s, "y")})
       for (const auto& a : p.assignments) {
         require(!a.name.empty() && a.line > 0, "assignment name and line");
         require(a.keeps_old || a.appends.empty(), "appends need the old value");
       }
   }},
  {"ld_so_conf", [](std::string_view s) {
     auto c = parse::ld_so_conf(s, "x");
     for (const auto& d : c.dirs) require(!d.path.empty(), "ld.so.conf dir");
   }},
  {"modinfo", [](std::string_view s) {
     for (const auto& [k, v] : parse::modinfo(s)) require(!k.empty() && v.size() <= 512, "modinfo field");
     if (auto c = parse::amdgpu_ras_count(s)) require(c->ue >= 0 && c->ce >= 0, "RAS counts");
   }},
  {"amdgpu_bad_pages", [](std::string_view s) {
     auto p = parse::amdgpu_bad_pages(s);
     require(p.lines.size() <= 8 && p.lines.size() <= p.reserved + p.pending + p.failed, "bad pages lines");
     for (const auto& l : p.lines) require(l.size() <= 64 && l.starts_with("0x"), "a bad-page line");
   }},
  {"kernel_log", [](std::string_view s) {
     auto scan = parse::kernel_log(s);
     require(scan.events.size() <= parse::k_max_kernel_event_groups, "kernel event groups capped");
     for (const auto& e : scan.events) {
       require(e.count > 0, "a group has lines");
       require(e.pci.empty() || e.pci.size() == 12, "PCI address form");
       require(e.first_line.size() <= 300 && e.last_line.size() <= 300, "evidence lines bounded");
     }
   }},
  {"elf_needed", [](std::string_view s) {
     auto e = parse::elf_needed_bytes(s);
     if (!e) return;
     require(e->bits == 32 || e->bits == 64, "elf class");
     require(e->needed.size() <= 512, "needed bound");
     for (const auto& n : e->needed) require(n.size() < s.size(), "name inside the file");
   }},
  {"memlock_limit", [](std::string_view s) {
     auto l = parse::memlock_limit(s);
     if (l) require(!l->soft.empty() && !l->hard.empty(), "limit values");
   }},
  {"df_size_kib", [](std::string_view s) { (void)parse::df_size_kib(s); }},
  {"nvidia_smi_nvlink_status", [](std::string_view s) {
     auto gpus = parse::nvidia_smi_nvlink_status(s);
     require(gpus.size() <= 1024, "GPU bound");
     for (const auto& g : gpus) {
       require(g.index >= 0 && g.links.size() <= 64, "index and link bound");
       for (const auto& l : g.links)
         require(l.link >= 0 && (!l.active || (l.gbps && *l.gbps > 0)), "an active link has a speed");
     }
   }},
  {"nvidia_smi_nvlink_errors", [](std::string_view s) {
     auto gpus = parse::nvidia_smi_nvlink_errors(s);
     require(gpus.size() <= 1024, "GPU bound");
     for (const auto& g : gpus) {
       require(g.index >= 0 && g.links.size() <= 64, "index and link bound");
       for (const auto& l : g.links)
         for (const auto& n : {l.replay_errors, l.recovery_errors, l.crc_errors})
           require(l.link >= 0 && !l.active && (!n || *n >= 0), "counts are counts");
     }
   }},
  {"pci_resource", [](std::string_view s) {
     for (std::size_t i : {std::size_t{0}, std::size_t{2}, std::size_t{6}})
       if (auto size = parse::pci_resource_size(s, i)) require(*size > 0, "a BAR has a size");
     if (auto top = parse::pci_rebar_largest(s))
       require(*top >= (std::uint64_t{1} << 20) && (*top & (*top - 1)) == 0, "a power of two from 1 MiB");
   }},
  {"nvidia_require", [](std::string_view s) {
     auto r = parse::nvidia_require(s);
     if (!r) return;
     require(!r->empty() && r->size() <= 64, "term bound");
     for (const auto& term : *r) {
       require(!term.empty() && term.size() <= 16, "constraint bound");
       for (const auto& c : term)
         require((c.key == "cuda" || c.key == "driver" || c.key == "arch" || c.key == "brand") && !c.value.empty() &&
                     !c.op.empty(),
                 "known key, an operator and a value");
     }
   }},
  {"ip_addresses", [](std::string_view s) {
     auto all = parse::ip_addresses(s);
     require(all.size() <= 4096, "address bound");
     for (const auto& a : all) {
       require(!a.interface.empty() && a.interface.size() <= 64 && a.interface.find('@') == std::string::npos,
               "interface name");
       require(!a.address.empty() && a.address.size() <= 64, "address");
       require(a.family == 4 || a.family == 6, "family");
       require(a.prefix >= -1 && a.prefix <= 128, "prefix");
     }
   }},
  // A bundle's excerpts (system/record_excerpts): whole lines of the input, and read by the parsers exactly
  // as the whole file.
  {"excerpt_dpkg_status", [](std::string_view s) {
     std::string e = excerpts::apply("dpkg-status-fields", s);
     require(e.size() <= s.size(), "no longer than the file");
     auto whole = parse::dpkg_records(s), part = parse::dpkg_records(e);
     require(whole.size() == part.size(), "as many packages");
     for (std::size_t i = 0; i < whole.size(); ++i)
       require(whole[i].name == part[i].name && whole[i].version == part[i].version &&
                   whole[i].want == part[i].want && whole[i].flag == part[i].flag &&
                   whole[i].status == part[i].status && whole[i].clauses == part[i].clauses &&
                   whole[i].provides == part[i].provides,
               "the same package records");
   }},
  {"excerpt_header_defines", [](std::string_view s) {
     std::string e = excerpts::apply("header-defines", s);
     require(e.size() <= s.size(), "no longer than the file");
     require(parse::nccl_header_version(e) == parse::nccl_header_version(s), "the same NCCL version");
     require(parse::cudnn_header_version(e) == parse::cudnn_header_version(s), "the same cuDNN version");
   }},
  {"requires_dist", [](std::string_view s) {
     for (const auto& r : parse::requires_dist(s)) require(!r.name.empty(), "requirement name");
   }},
  {"nccl_ib_hca", [](std::string_view s) {
     auto l = parse::nccl_ib_hca(s);
     for (const auto& e : l.entries) {
       require(!e.name.empty() && e.name.size() <= s.size(), "hca name");
       require(!e.port || (*e.port >= 0 && *e.port <= 65535), "hca port");
     }
   }},
  {"version_label", [](std::string_view s) {
     auto v = parse::version_label(s);
     if (!v) return require(s.find('+') == std::string_view::npos, "label after '+'");
     require(v->label.size() < s.size(), "label inside the version");
     require(!v->cuda_major || v->cuda, "cuda major of a cuda label");
     require(!v->rocm_major || v->rocm, "rocm major of a rocm label");
     require(!(v->cuda && v->rocm), "one vendor");
     require(v->torch_release.empty() || v->torch_release.find('.') != std::string::npos, "torch release");
   }},
  // Snapshot text reaches the terminal wrapper (a path, a tool's message): it loses no word, every line fits
  // or holds one word, and the output stays linear in the input. The first byte picks the width.
  {"wrap", [](std::string_view s) {
     std::size_t width = s.empty() ? 0 : static_cast<unsigned char>(s[0]) % 130;
     std::string wrapped = wrap_to_width(s, width);
     auto words = [](std::string_view t) {
       std::vector<std::string_view> out;
       for (std::size_t at = 0; at < t.size();) {
         std::size_t end = std::min(t.find_first_of(" \n", at), t.size());
         if (end > at) out.push_back(t.substr(at, end - at));
         at = end + 1;
       }
       return out;
     };
     require(words(wrapped) == words(s), "the same words in the same order");
     require(wrapped.size() <= s.size() * (width / 2 + 2) + 1, "linear in the input");
     if (width == 0) return require(wrapped == s, "width 0 leaves the text");
     // An escape sequence (a colour) on the line takes no column and is no word.
     auto visible_words = [&](std::string_view line) {
       auto all = words(line);
       return std::count_if(all.begin(), all.end(), [](std::string_view w) { return display_width(w) > 0; });
     };
     for (std::string_view line : lines_of(wrapped))
       require(display_width(line) <= width || visible_words(line) <= 1, "a line fits or holds one word");
     std::string first(s.substr(0, std::min(s.find('\n'), s.size())));
     require(display_width(cut_to_width(first, width)) <= width, "a cut line fits");
   }},
};
// clang-format on

} // namespace gpudoctor::fuzz
