// The text redactor's edges: what it must leave (the words checks read, look-alikes of secrets), that the
// same secret gets the same placeholder, and that hostile input costs linear work (hand-written scanners).
#include "bundle/redact_text.hpp"
#include "bundle/secret_shapes.hpp"

#include <doctest/doctest.h>

using namespace gpudoctor;

TEST_SUITE("security") {

  TEST_CASE("redaction: look-alikes of secrets and what the checks read are left alone") {
    TextRedactor r;
    for (const char* text :
         {"deb [signed-by=/usr/share/keyrings/rocm.gpg arch=amd64] https://repo.radeon.com/rocm/apt/6.2 "
          "jammy main",
          "baseurl=https://developer.download.nvidia.com/compute/cuda/repos/rhel9/x86_64\ngpgkey=https://x/"
          "key.pub",
          "<uuid>GPU-8d3b6c0f-1c2e-4b8e-9a51-3f1f2e0c9d11</uuid>",
          "pip install scikit-learn sk-video-tools-and-more",
          "from huggingface_hub import hf_hub_download_with_retries_and_cache",
          "sha256:" /* hex digests */
          "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
          "Version: 535.104.05-0ubuntu1\nMaintainer: Ubuntu Developers",
          "NCCL_IB_HCA=mlx5_0:1 NCCL_DEBUG=INFO", "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
          "the bearer of news", "AKIAS are not keys", "ps -u root", "git@github.com:org/repo.git",
          "https://registry.npmjs.org/@types/node",
          "--tcp-readiness-only --auth-required --log-vsock-port 5002"})
      CHECK(r.scrub(text, true) == text);
  }

  TEST_CASE("redaction: one secret, one placeholder, wherever it stands") {
    TextRedactor r;
    const std::string a = "ghp_" + std::string(18, 'a') + std::string(18, 'B'),
                      b = "ghp_" + std::string(36, 'c');
    std::string first = r.shapes("x=" + a), second = r.shapes(a + " " + b);
    CHECK(first == "x=<redacted:github-1>");
    CHECK(second == "<redacted:github-1> <redacted:github-2>");
  }

  TEST_CASE("redaction: hostile input costs linear work") {
    // Each line would cost a backtracking matcher (or a naive rescan per start) quadratic time on 1 MiB.
    const std::size_t n = 1 << 20;
    auto repeat = [&](const std::string& unit) {
      std::string out;
      while (out.size() < n)
        out += unit;
      return out;
    };
    TextRedactor r;
    for (const std::string& text :
         {repeat("sk-"), repeat("ghp_"), repeat("eyJaaaaaaaaaa."), repeat("a://"), repeat("https://u:p@"),
          repeat("-----BEGIN "), repeat("AKIA"), repeat("x=a&token"), repeat("\"'"), std::string(n, 'A'),
          repeat("Bearer "), repeat("--password ")}) {
      std::string out = r.scrub(text, true);
      CHECK(out.size() <= text.size() * 2);
    }
    CHECK(
        find_secret_shapes(std::string(n, '/') + "AKIA" + std::string(16, 'Z'), builtin_secret_rules().shapes)
            .size() == 1);
  }

} // TEST_SUITE
