// Bundles: secrets in the recorded configuration files are redacted, what the checks read stays.
#include "bundle/redact.hpp"
#include "unit/testutil.hpp"

#include <algorithm>
#include <filesystem>

#include <doctest/doctest.h>

namespace fs = std::filesystem;
using namespace gpudoctor;
using namespace gpudoctor::test;

TEST_CASE("bundle: tokens in shell profiles, pip.conf and .repo files are redacted") {
  TempDir tmp("gpudoctor-redact");
  const fs::path& dir = tmp.path();
  write_text(dir / "fs/home/ada/.bashrc", "export HF_TOKEN=hf_abcdef\nexport PATH=/opt/rocm-5.7.1/bin:$PATH\n"
                                          "WANDB_API_KEY='x1'\nexport CUDA_HOME=/usr/local/cuda-11.8");
  write_text(dir / "fs/etc/pip.conf", "[global]\nextra-index-url = https://ada:s3cret@pypi.corp/simple\n");
  write_text(dir / "fs/etc/yum.repos.d/private.repo",
             "[rocm]\nbaseurl=https://repo.radeon.com/rocm/el9/6.2/main\n"
             "username=ada\npassword = hunter2\n");
  write_text(dir / "fs/etc/os-release", "PASSWORD_HINT=not-a-config-file\n");
  RedactionLog log = redact_snapshot(dir, false);
  CHECK(slurp(dir / "fs/home/ada/.bashrc") ==
        "export HF_TOKEN=<redacted>\nexport PATH=/opt/rocm-5.7.1/bin:$PATH\n"
        "WANDB_API_KEY=<redacted>\nexport CUDA_HOME=/usr/local/cuda-11.8");
  CHECK(slurp(dir / "fs/etc/pip.conf") ==
        "[global]\nextra-index-url = https://<redacted>@pypi.corp/simple\n");
  CHECK(slurp(dir / "fs/etc/yum.repos.d/private.repo") ==
        "[rocm]\nbaseurl=https://repo.radeon.com/rocm/el9/6.2/main\nusername=ada\npassword =<redacted>\n");
  CHECK(slurp(dir / "fs/etc/os-release") == "PASSWORD_HINT=not-a-config-file\n");
  std::sort(log.redacted.begin(), log.redacted.end());
  CHECK(log.redacted == std::vector<std::string>{"file:/etc/pip.conf", "file:/etc/yum.repos.d/private.repo",
                                                 "file:/home/ada/.bashrc"});
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

TEST_CASE("bundle: the recorded kernel log is redacted and obfuscated like other text") {
  TempDir tmp("gpudoctor-redact-log");
  const fs::path& dir = tmp.path();
  write_text(dir / "manifest.json", R"({"format": "gpudoctor-snapshot", "version": 1, "origin": "live"})");
  write_text(dir / "identity.json",
             R"({"user": "ada", "uid": 1000, "gid": 1000, "groups": ["ada"], "gids": [1000],
                                   "home": "/home/ada", "hostname": "gpu-node07"})");
  write_text(
      dir / "commands.json",
      R"([{"key": "dmesg", "argv": ["journalctl", "-k"], "found": true, "exit": 0, "stdout": "cmd/1-dmesg.out"},
            {"key": "journal-kernel-previous", "argv": ["journalctl"], "found": true, "exit": 0,
             "stdout": "cmd/2-journal-kernel-previous.out"}])");
  write_text(
      dir / "cmd/1-dmesg.out",
      "2026-12-01T10:00:00+0000 gpu-node07 kernel: Kernel command line: BOOT_IMAGE=/vmlinuz root=/dev/sda1 "
      "luks.api_key=s3cr3t-key nfsroot=http://ada:hunter2@10.1.2.3/root quiet\n"
      "2026-12-01T10:00:05+0000 gpu-node07 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=77, name=train.py, "
      "GPU "
      "has fallen off the bus.\n");
  write_text(dir / "cmd/2-journal-kernel-previous.out",
             "2026-11-30T09:00:00+0000 gpu-node07 kernel: token=abc123\n");
  RedactionLog log = redact_snapshot(dir, true);
  std::string now = slurp(dir / "cmd/1-dmesg.out");
  CHECK(now.find("s3cr3t-key") == std::string::npos);
  CHECK(now.find("hunter2") == std::string::npos);
  CHECK(now.find("gpu-node07") == std::string::npos); // the host name, as everywhere with --obfuscate
  CHECK(now.find("luks.api_key=<redacted>") != std::string::npos);
  CHECK(now.find("http://<redacted>@") != std::string::npos);
  CHECK(now.find("10.1.2.3") == std::string::npos); // addresses, as everywhere with --obfuscate
  CHECK(now.find("NVRM: Xid (PCI:0000:3b:00): 79, pid=77, name=train.py") != std::string::npos); // facts stay
  CHECK(slurp(dir / "cmd/2-journal-kernel-previous.out").find("abc123") == std::string::npos);
  CHECK(std::find(log.redacted.begin(), log.redacted.end(), "file:cmd/1-dmesg.out") != log.redacted.end());
}
