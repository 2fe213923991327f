// The key of --obfuscate's pseudonyms. A site keeps one key file (--obfuscate-key FILE, created 0600 with
// random bytes when absent) on the machine that makes its bundles, so its bundles give each host one stable
// pseudonym; the key is never written into a bundle. Without a file, each bundle gets a random key.
#pragma once

#include <expected>
#include <string>

namespace gpudoctor {

// Reads the key in `path`, or creates the file (0600, 32 random bytes) when it does not exist. Refuses a
// link, a file others may read or write, one shorter than 16 bytes, and one owned by another user (who knows
// the key, and could reverse the pseudonyms); run as root, also a key in a folder another user can change
// (who could swap it for their own). The file is opened and created through its folder's descriptor
// (system/output_file), O_NOFOLLOW, O_EXCL when created. The error names the path.
std::expected<std::string, std::string> load_or_create_obfuscation_key(const std::string& path);
// 32 random bytes from the kernel.
std::string random_obfuscation_key();

} // namespace gpudoctor
