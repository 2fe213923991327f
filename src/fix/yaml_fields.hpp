// Reading the rows of gpudoctor's fix data files (fixes/*.yaml) with yaml-cpp: every field is read by name,
// unknown fields are refused, and every error names the file and line. Only the two loaders include this.
#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace gpudoctor::fix {

// Thrown inside the loaders; they turn it into the error text of their std::expected.
struct DataError {
  std::string message; // "fixes/purge-rocm.yaml:12: missing \"title\""
};

class Fields {
public:
  // `node` must be a mapping whose keys are all in `allowed`.
  Fields(std::string file, const YAML::Node& node, const std::vector<std::string>& allowed);

  bool has(const char* key) const;
  std::string text(const char* key) const; // required, non-empty
  std::string text_or(const char* key, std::string fallback) const;
  std::vector<std::string> list(const char* key) const; // optional list of texts (or one text)
  bool flag(const char* key) const;                     // optional true/false, default false
  const YAML::Node& node() const { return m_node; }
  std::string where(const YAML::Node& at) const; // "file:line"
  std::string where() const { return where(m_node); }
  [[noreturn]] void fail(const YAML::Node& at, const std::string& message) const;

private:
  std::string m_file;
  YAML::Node m_node;
};

// The text of one data file: the copy built into the binary (`dir` empty) or `dir`/`rel`.
std::string read_data_file(const std::string& dir, const std::string& rel);
// The names (relative, "fixes/x.yaml") of the data files below fixes/ with this suffix.
std::vector<std::string> list_data_files(const std::string& dir, const std::string& suffix);
// Parses YAML; a syntax error becomes a DataError with the line.
YAML::Node parse_yaml(const std::string& rel, const std::string& text);

} // namespace gpudoctor::fix
