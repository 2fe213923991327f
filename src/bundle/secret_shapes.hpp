// Secrets recognised by their form, whatever name they stand under (FOO=ghp_...): the token formats of
// checks/knowledge/secrets.yaml (secret_shapes: GitHub, GitLab, Hugging Face, Slack and Discord webhooks,
// Vault, ...), and three with a structure rather than a prefix, scanned here: JSON Web Tokens (RFC 7519:
// base64url header "eyJ...", payload, signature), PEM private key blocks (RFC 7468) and AWS access keys (AWS
// IAM "Managing access keys": AKIA/ASIA and 16 characters; the 40-character secret beside it). Hand-written
// scanners, linear in the text (no regular expressions over unbounded input).
#pragma once

#include "knowledge/knowledge_secrets.hpp"

#include <cstddef>
#include <string_view>
#include <vector>

namespace gpudoctor {

struct ShapeMatch {
  std::size_t begin = 0, end = 0; // [begin, end) in the scanned text
  std::string_view kind;          // "github", "huggingface", ..., "private-key": lives as long as the rows
};

// Non-overlapping matches in text order. An AWS secret access key (40 characters of base64) counts only
// within two lines of an AWS access key id, as it stands in credentials files and profiles.
std::vector<ShapeMatch> find_secret_shapes(std::string_view text, const std::vector<SecretShapeRow>& shapes);

} // namespace gpudoctor
