// NVIDIA's runtime in the container engines' configuration (what `nvidia-ctk runtime configure` writes): the
// files as they should be once the NVIDIA stack is gone. Computed when the plan is made, from the machine's
// files; the script writes them only if the files still are what the plan saw.
#pragma once

#include <optional>
#include <string>

namespace gpudoctor {

// Docker's daemon.json without "default-runtime": "nvidia" and the "nvidia" runtime; nothing when there is
// nothing of NVIDIA's in it or it is not JSON (then the plan says it is left as is).
std::optional<std::string> docker_without_nvidia(const std::string& daemon_json);

// containerd's config.toml without the nvidia runtime tables and with default_runtime_name "runc" where it
// named nvidia; nothing when the file has neither.
std::optional<std::string> containerd_without_nvidia(const std::string& config_toml);

// Standard base64 (RFC 4648, with padding): how a file's content travels into a script inertly.
std::string base64(const std::string& bytes);

} // namespace gpudoctor
