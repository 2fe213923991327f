// gpudoctor's data files (checks/knowledge, the catalogues, fixes/) read as YAML: yaml-cpp is wrapped here
// once. `parse` turns a text into an owned tree of Nodes that know their file and line; `Fields` reads one
// row by name (typed, unknown fields refused); every error text starts with "file:line: ".
// The field readers throw yaml::Error inside a loader; `guarded` is the one place it is caught, so a loader
// returns std::expected and no exception leaves it (no yaml-cpp type or exception leaves this adapter).
#pragma once

#include <expected>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace gpudoctor::yaml {

struct Error {
  std::string message; // "fixes/demo.yaml:8: unknown field 'sudo'"
};

struct Data;
struct Document;

class Node {
public:
  enum class Kind { absent, null, scalar, list, map };
  Node() = default;

  Kind kind() const;
  bool present() const { return kind() != Kind::absent && kind() != Kind::null; } // given, not `~`
  bool is_scalar() const { return kind() == Kind::scalar; }
  bool is_list() const { return kind() == Kind::list; }
  bool is_map() const { return kind() == Kind::map; }
  const std::string& scalar() const;                  // the text of a scalar, "" for any other node
  std::size_t size() const;                           // items of a list, entries of a map
  std::vector<Node> items() const;                    // a list's items; empty for other nodes
  std::vector<std::pair<Node, Node>> entries() const; // a map's key and value, in file order
  // The value of `key` in a map; an absent node (that points at this one's line) otherwise.
  Node operator[](std::string_view key) const;

  int line() const; // 1-based; an absent node has its parent's line
  const std::string& file() const;
  std::string where() const; // "file:line"

private:
  friend std::expected<Node, std::string> parse(std::string file, const std::string& text);
  friend std::expected<std::string, std::string> pack(std::string file, const std::string& text);
  friend std::expected<Node, std::string> unpack(std::string file, std::string_view packed);
  Node(std::shared_ptr<const Document> doc, const Data* data, int line)
      : m_doc(std::move(doc)), m_data(data), m_line(line) {}
  std::shared_ptr<const Document> m_doc;
  const Data* m_data = nullptr; // null: absent
  int m_line = 0;
};

// Parses one data file. Refused, with "file:line: why": a syntax error, a key given twice in one mapping, a
// key that is not a text, and documents whose aliases expand past a bound (a million nodes).
std::expected<Node, std::string> parse(std::string file, const std::string& text);

// A data file (util/data_files.hpp: built in, or in `dir`) parsed; its errors name it as the lookup does.
// A built-in one is read from the tree the build packed (util/yaml_data_file.cpp), not parsed again.
std::expected<Node, std::string> parse_data_file(std::string_view folder, const std::string& dir,
                                                 std::string_view name);

// The tree of a data file in a compact binary form, and back. The build packs the built-in data files
// (src/tools/pack_data.cpp), so that a start reads trees instead of parsing 200 KB of YAML: a third of
// `check`'s own time before (docs/architecture.md, "Data files packed at build time"). `pack` refuses what
// `parse` refuses; `unpack` refuses a damaged form, naming `file`.
std::expected<std::string, std::string> pack(std::string file, const std::string& text);
std::expected<Node, std::string> unpack(std::string file, std::string_view packed);

// Throws Error "file:line: message" at `at`.
[[noreturn]] void fail(const Node& at, std::string_view message);

// One row of a table: a mapping whose keys are all in `allowed`; fields are read by name.
class Fields {
public:
  Fields(const Node& row, std::initializer_list<std::string_view> allowed);
  Fields(const Node& row, const std::vector<std::string>& allowed);

  const Node& node() const { return m_node; }
  Node operator[](std::string_view key) const { return m_node[key]; }
  bool has(std::string_view key) const { return m_node[key].present(); }
  [[noreturn]] void bad(std::string_view key, std::string_view what) const; // "field 'key' <what>"

  std::string text(std::string_view key) const; // required, not blank
  std::string text_or(std::string_view key, std::string fallback = {}) const;
  bool flag(std::string_view key) const;                           // true or false; absent: false
  long long positive(std::string_view key) const;                  // required positive decimal integer
  std::optional<long long> integer_if(std::string_view key) const; // optional decimal integer
  unsigned hex(std::string_view key, unsigned max) const;          // required "0x.." up to max
  double number(std::string_view key) const;                       // required, above 0, at most 1e6
  std::vector<std::string> list(std::string_view key) const;       // required non-empty list of texts
  std::vector<std::string> list_if(std::string_view key) const;    // list() when given, else empty
  std::vector<std::string> words(std::string_view key) const;      // optional: one text or a list of texts

private:
  void refuse_unknown(const std::vector<std::string_view>& allowed) const;
  Node m_node;
};

// Runs a loader body; an Error it throws becomes the unexpected value, as does any other exception (then
// prefixed with `context`, the file being read).
template <class F>
auto guarded(std::string_view context, F&& body) -> std::expected<std::invoke_result_t<F>, std::string> {
  try {
    if constexpr (std::is_void_v<std::invoke_result_t<F>>) {
      body();
      return {};
    } else {
      return body();
    }
  } catch (const Error& e) {
    return std::unexpected(e.message);
  } catch (const std::exception& e) {
    return std::unexpected(std::string(context) + ": " + e.what());
  }
}

} // namespace gpudoctor::yaml
