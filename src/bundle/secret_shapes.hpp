// Secrets recognised by their form, whatever name they stand under (FOO=ghp_...): the token formats of
// GitHub, GitLab, Hugging Face, OpenAI, Anthropic, NVIDIA, Slack and AWS, JSON Web Tokens and private key
// blocks. Hand-written scanners, linear in the text (no regular expressions over unbounded input).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace gpudoctor {

struct ShapeMatch {
  std::size_t begin = 0, end = 0; // [begin, end) in the scanned text
  std::string_view kind;          // "github", "huggingface", "openai", ..., "private-key"
};

// Non-overlapping matches in text order. An AWS secret access key (40 characters of base64) counts only
// within two lines of an AWS access key id, as it stands in credentials files and profiles.
std::vector<ShapeMatch> find_secret_shapes(std::string_view text);

} // namespace gpudoctor
