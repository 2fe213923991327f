// NVIDIA's runtime out of Docker's and containerd's configuration (what nvidia-ctk runtime configure wrote),
// computed when the plan is made; the rest of each file kept.
#include "collect/container_config.hpp"

#include <doctest/doctest.h>

using namespace gpudoctor;

TEST_CASE("fix containers: daemon.json loses the nvidia default runtime and runtime entry, nothing else") {
  std::string before = R"({
    "default-runtime": "nvidia",
    "log-driver": "json-file",
    "runtimes": {
        "nvidia": {"args": [], "path": "nvidia-container-runtime"}
    }
})";
  auto after = docker_without_nvidia(before);
  REQUIRE(after.has_value());
  CHECK(*after == "{\n    \"log-driver\": \"json-file\"\n}\n");
  auto other = docker_without_nvidia(R"({"runtimes": {"nvidia": {}, "crun": {"path": "/usr/bin/crun"}},
                                           "default-runtime": "crun"})");
  REQUIRE(other.has_value());
  CHECK(other->find("nvidia") == std::string::npos);
  CHECK(other->find("\"default-runtime\": \"crun\"") != std::string::npos);
  CHECK_FALSE(docker_without_nvidia(R"({"log-driver": "json-file"})").has_value()); // nothing to do
  CHECK_FALSE(docker_without_nvidia("not json, nvidia").has_value());               // left, with a note
}

TEST_CASE("fix containers: containerd loses the nvidia runtime tables and its default") {
  std::string before = "version = 2\n"
                       "[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n"
                       "  default_runtime_name = \"nvidia\"\n"
                       "  [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia]\n"
                       "    runtime_type = \"io.containerd.runc.v2\"\n"
                       "    [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia.options]\n"
                       "      BinaryName = \"/usr/bin/nvidia-container-runtime\"\n"
                       "  [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n"
                       "    runtime_type = \"io.containerd.runc.v2\"\n";
  auto after = containerd_without_nvidia(before);
  REQUIRE(after.has_value());
  CHECK(*after == "version = 2\n"
                  "[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n"
                  "  default_runtime_name = \"runc\"\n"
                  "  [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n"
                  "    runtime_type = \"io.containerd.runc.v2\"\n");
  CHECK_FALSE(containerd_without_nvidia("version = 2\n").has_value());
}

TEST_CASE("fix containers: base64 as RFC 4648 writes it") {
  CHECK(base64("") == "");
  CHECK(base64("f") == "Zg==");
  CHECK(base64("fo") == "Zm8=");
  CHECK(base64("foo") == "Zm9v");
  CHECK(base64(std::string("\0\xff\n", 3)) == "AP8K");
}
