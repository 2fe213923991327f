// Sends a written bundle to a support engineer's HTTPS endpoint (a presigned PUT URL, or an upload form that
// takes a POST body). The local archive is never touched: a failed upload loses nothing.
#pragma once

#include <chrono>
#include <expected>
#include <filesystem>
#include <string>

namespace gpudoctor {

struct UploadOptions {
  std::string url;                          // https:// only: a bundle is never sent in the clear
  std::string method = "PUT";               // PUT (presigned URLs) or POST
  std::string ca_file;                      // trust this CA bundle instead of the system's
  std::chrono::milliseconds timeout{60000}; // the whole request
};

// A URL fit for messages: no user:password@, no query (presigned URLs carry their signature there).
std::string upload_url_for_messages(const std::string& url);

// Why a URL or method cannot be used; empty when they can. Checked before anything is recorded.
std::string upload_usage_error(const UploadOptions& opt);

// Uploads `file`; on success what the server answered ("HTTP 200 from https://host/path"), else why not.
std::expected<std::string, std::string> upload_bundle(const std::filesystem::path& file,
                                                      const UploadOptions& opt);

} // namespace gpudoctor
