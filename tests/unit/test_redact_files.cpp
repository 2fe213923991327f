// Bundles: secrets in the recorded configuration files are redacted, what the checks read stays.
#include "bundle/redact.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include <doctest/doctest.h>

namespace fs = std::filesystem;
using namespace gpudoctor;

namespace {

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace

TEST_CASE("bundle: tokens in shell profiles, pip.conf and .repo files are redacted") {
  fs::path dir = fs::temp_directory_path() / ("gpudoctor-redact-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  write(dir / "fs/home/ada/.bashrc", "export HF_TOKEN=hf_abcdef\nexport PATH=/opt/rocm-5.7.1/bin:$PATH\n"
                                     "WANDB_API_KEY='x1'\nexport CUDA_HOME=/usr/local/cuda-11.8");
  write(dir / "fs/etc/pip.conf", "[global]\nextra-index-url = https://ada:s3cret@pypi.corp/simple\n");
  write(dir / "fs/etc/yum.repos.d/private.repo", "[rocm]\nbaseurl=https://repo.radeon.com/rocm/el9/6.2/main\n"
                                                 "username=ada\npassword = hunter2\n");
  write(dir / "fs/etc/os-release", "PASSWORD_HINT=not-a-config-file\n");
  RedactionLog log = redact_snapshot(dir, false);
  CHECK(read(dir / "fs/home/ada/.bashrc") ==
        "export HF_TOKEN=<redacted>\nexport PATH=/opt/rocm-5.7.1/bin:$PATH\n"
        "WANDB_API_KEY=<redacted>\nexport CUDA_HOME=/usr/local/cuda-11.8");
  CHECK(read(dir / "fs/etc/pip.conf") == "[global]\nextra-index-url = https://<redacted>@pypi.corp/simple\n");
  CHECK(read(dir / "fs/etc/yum.repos.d/private.repo") ==
        "[rocm]\nbaseurl=https://repo.radeon.com/rocm/el9/6.2/main\nusername=ada\npassword =<redacted>\n");
  CHECK(read(dir / "fs/etc/os-release") == "PASSWORD_HINT=not-a-config-file\n");
  std::sort(log.redacted.begin(), log.redacted.end());
  CHECK(log.redacted == std::vector<std::string>{"file:/etc/pip.conf", "file:/etc/yum.repos.d/private.repo",
                                                 "file:/home/ada/.bashrc"});
  fs::remove_all(dir);
}

TEST_CASE("bundle: which variable names hold secrets") {
  for (const char* name : {"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "WANDB_API_KEY", "AWS_SECRET_ACCESS_KEY",
                           "PIP_PASSWORD", "OPENAI_APIKEY", "SSH_KEY", "key", "GITHUB_TOKEN"})
    CHECK_MESSAGE(gpudoctor::is_secret_name(name), name);
  // Places, not secrets: seen redacted on a real machine (TIKTOKEN_CACHE_DIR), which hid a plain path.
  for (const char* name : {"TIKTOKEN_CACHE_DIR", "HF_TOKEN_PATH", "TOKENIZERS_PARALLELISM_HOME",
                           "SECRETS_ROOT", "PATH", "CUDA_HOME", "KEYBOARD", "TOKENIZERS_PARALLELISM"})
    CHECK_MESSAGE(!gpudoctor::is_secret_name(name), name);
}
