#include "facts/config_facts_json.hpp"

#include "facts/json_fields.hpp"
#include "util/url_text.hpp"

namespace gpudoctor {

using namespace facts_json;

Json repos_to_json(const RepoFacts& r) {
  Json sources = Json::array(), probes = Json::array();
  for (const auto& s : r.sources)
    sources.push_back({{"vendor", s.vendor},
                       {"kind", s.kind},
                       {"uri", url_without_credentials(s.uri)},
                       {"suite", text_or_null(s.suite)},
                       {"origin", s.origin},
                       {"enabled", s.enabled},
                       {"release_specific", s.release_specific}});
  for (const auto& p : r.probes)
    probes.push_back({{"url", url_without_credentials(p.url)},
                      {"origin", p.origin},
                      {"reached", p.reached},
                      {"http_status", p.http_status ? Json(*p.http_status) : Json(nullptr)},
                      {"error", text_or_null(p.error)},
                      {"duration_ms", p.duration_ms}});
  return {{"sources", sources},
          {"files", r.files},
          {"ubuntu_codename", fact(r.ubuntu_codename)},
          {"online", r.online},
          {"probes", probes}};
}

Json boot_to_json(const BootFacts& b) {
  Json dkms = Json::array();
  for (const auto& m : b.dkms)
    dkms.push_back({{"module", m.module},
                    {"version", m.version},
                    {"kernel", text_or_null(m.kernel)},
                    {"arch", text_or_null(m.arch)},
                    {"state", m.state},
                    {"detail", text_or_null(m.detail)}});
  return {{"dkms_ran", b.dkms_ran},
          {"dkms", dkms},
          {"dkms_messages", b.dkms_messages},
          {"secure_boot", fact(b.secure_boot)},
          {"shim_validation_disabled", b.shim_validation_disabled}};
}

Json stack_paths_to_json(const PathFacts& p) {
  Json settings = Json::array();
  for (const auto& s : p.settings)
    settings.push_back({{"variable", s.variable},
                        {"entry", s.entry},
                        {"resolved", text_or_null(s.resolved)},
                        {"exists", s.exists ? Json(*s.exists) : Json(nullptr)},
                        {"stack", vendor_name(s.stack)},
                        {"origin", s.origin}});
  auto pointers = [](const std::vector<StackPointer>& list) {
    Json out = Json::array();
    for (const auto& x : list)
      out.push_back({{"what", x.what},
                     {"path", x.path},
                     {"resolved", x.resolved},
                     {"exists", x.exists},
                     {"version", fact(x.version)}});
    return out;
  };
  return {{"settings", settings},
          {"files", p.files},
          {"not_read", p.not_read},
          {"cuda", pointers(p.cuda)},
          {"rocm", pointers(p.rocm)}};
}

Json containers_to_json(const ContainerFacts& c) {
  return {{"docker_installed", c.docker_installed},
          {"docker_evidence", text_or_null(c.docker_evidence)},
          {"docker_info_ok", c.docker_info_ok},
          {"docker_info_error", text_or_null(c.docker_info_error)},
          {"runtimes", c.runtimes},
          {"default_runtime", text_or_null(c.default_runtime)},
          {"daemon_json", text_or_null(c.daemon_json_source)},
          {"daemon_json_runtimes", c.daemon_json_runtimes},
          {"nvidia_toolkit_config", c.nvidia_toolkit_config}};
}

} // namespace gpudoctor
