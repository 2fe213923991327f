// The one file that includes yaml-cpp: its tree is copied into ours while the exceptions are in reach.
#include "util/yaml_doc.hpp"

#include "util/text.hpp"

#include <algorithm>
#include <cstdint>
#include <map>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace gpudoctor::yaml {

struct Data {
  Node::Kind kind = Node::Kind::null;
  int line = 0;
  std::string scalar;
  std::vector<Data> keys;     // a map's keys (scalars)
  std::vector<Data> children; // a list's items, or a map's values (beside keys)
};

struct Document {
  std::string file;
  Data root;
};

namespace {

// Aliases share yaml-cpp nodes but are copied here: a few lines of `&a [*b, *b, ...]` would expand to
// billions of nodes. The built-in data holds well under 100,000.
constexpr std::size_t k_max_nodes = 1'000'000;

const std::string k_empty;

class Converter {
public:
  explicit Converter(const std::string& file) : m_file(file) {}

  Data convert(const YAML::Node& in, int fallback_line) {
    if (++m_nodes > k_max_nodes)
      throw Error{fmt::format("{}: more than {} nodes (aliases expanding?)", m_file, k_max_nodes)};
    Data out;
    out.line = in.Mark().is_null() ? fallback_line : in.Mark().line + 1;
    switch (in.Type()) {
    case YAML::NodeType::Scalar:
      out.kind = Node::Kind::scalar;
      out.scalar = in.Scalar();
      break;
    case YAML::NodeType::Sequence:
      out.kind = Node::Kind::list;
      for (const auto& item : in)
        out.children.push_back(convert(item, out.line));
      break;
    case YAML::NodeType::Map:
      out.kind = Node::Kind::map;
      for (const auto& kv : in)
        add_entry(out, kv.first, kv.second);
      break;
    default:
      out.kind = Node::Kind::null;
    }
    return out;
  }

private:
  const std::string& m_file;
  std::size_t m_nodes = 0;

  // yaml-cpp keeps both entries of a repeated key and answers lookups with the first: refuse it instead.
  void add_entry(Data& map, const YAML::Node& key, const YAML::Node& value) {
    Data k = convert(key, map.line);
    if (k.kind != Node::Kind::scalar) throw Error{fmt::format("{}:{}: a key must be a text", m_file, k.line)};
    for (const auto& earlier : map.keys)
      if (earlier.scalar == k.scalar)
        throw Error{fmt::format("{}:{}: key '{}' given twice in one mapping (first at line {})", m_file,
                                k.line, k.scalar, earlier.line)};
    map.children.push_back(convert(value, k.line));
    map.keys.push_back(std::move(k));
  }
};

} // namespace

std::expected<Node, std::string> parse(std::string file, const std::string& text) {
  try {
    YAML::Node root = YAML::Load(text);
    auto doc = std::make_shared<Document>();
    doc->file = std::move(file);
    doc->root = Converter(doc->file).convert(root, 1);
    const Data* data = &doc->root;
    return Node(std::move(doc), data, data->line);
  } catch (const Error& e) {
    return std::unexpected(e.message);
  } catch (const YAML::Exception& e) {
    if (e.mark.is_null()) return std::unexpected(fmt::format("{}: {}", file, e.msg));
    return std::unexpected(fmt::format("{}:{}: {}", file, e.mark.line + 1, e.msg));
  } catch (const std::exception& e) {
    return std::unexpected(fmt::format("{}: {}", file, e.what()));
  }
}

namespace {

// The packed form: per node a kind byte and its line (a varint), then a scalar's length and bytes, a list's
// count and items, or a map's count and key-value pairs, depth first.
void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void put_tree(std::string& out, const Data& d) {
  out.push_back(static_cast<char>(d.kind));
  put_varint(out, static_cast<std::uint64_t>(d.line));
  switch (d.kind) {
  case Node::Kind::scalar:
    put_varint(out, d.scalar.size());
    out += d.scalar;
    break;
  case Node::Kind::list:
    put_varint(out, d.children.size());
    for (const auto& c : d.children)
      put_tree(out, c);
    break;
  case Node::Kind::map:
    put_varint(out, d.children.size());
    for (std::size_t i = 0; i < d.children.size(); ++i) {
      put_tree(out, d.keys[i]);
      put_tree(out, d.children[i]);
    }
    break;
  default:
    break;
  }
}

class Unpacker {
public:
  Unpacker(const std::string& file, std::string_view in) : m_file(file), m_in(in) {}

  Data tree(int depth) {
    if (depth > 1000 || ++m_nodes > k_max_nodes) damaged("nested or counted past its bounds");
    Data d;
    auto kind = static_cast<Node::Kind>(byte());
    d.line = static_cast<int>(varint(1u << 30));
    d.kind = kind;
    switch (kind) {
    case Node::Kind::null:
      break;
    case Node::Kind::scalar: {
      auto size = varint(m_in.size() - m_at);
      d.scalar.assign(m_in.substr(m_at, size));
      m_at += size;
      break;
    }
    case Node::Kind::list:
    case Node::Kind::map: {
      auto count = varint(m_in.size() - m_at); // each item takes at least two bytes
      d.children.reserve(count);
      if (kind == Node::Kind::map) d.keys.reserve(count);
      for (std::uint64_t i = 0; i < count; ++i) {
        if (kind == Node::Kind::map) {
          d.keys.push_back(tree(depth + 1));
          if (d.keys.back().kind != Node::Kind::scalar) damaged("a key that is not a text");
        }
        d.children.push_back(tree(depth + 1));
      }
      break;
    }
    default:
      damaged("an unknown node kind");
    }
    return d;
  }

  bool at_end() const { return m_at == m_in.size(); }

private:
  const std::string& m_file;
  std::string_view m_in;
  std::size_t m_at = 0;
  std::size_t m_nodes = 0;

  [[noreturn]] void damaged(std::string_view why) const {
    throw Error{fmt::format("{}: the packed data file is damaged at byte {}: {}", m_file, m_at, why)};
  }
  unsigned char byte() {
    if (m_at >= m_in.size()) damaged("it ends early");
    return static_cast<unsigned char>(m_in[m_at++]);
  }
  std::uint64_t varint(std::uint64_t max) {
    std::uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      if (shift > 56) damaged("a number too long");
      unsigned char b = byte();
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) break;
    }
    if (v > max) damaged("a size past its end");
    return v;
  }
};

} // namespace

std::expected<std::string, std::string> pack(std::string file, const std::string& text) {
  auto root = parse(std::move(file), text);
  if (!root) return std::unexpected(root.error());
  std::string out;
  put_tree(out, root->m_doc->root);
  return out;
}

std::expected<Node, std::string> unpack(std::string file, std::string_view packed) {
  auto doc = std::make_shared<Document>();
  doc->file = std::move(file);
  try {
    Unpacker reader(doc->file, packed);
    doc->root = reader.tree(0);
    if (!reader.at_end())
      return std::unexpected(fmt::format("{}: the packed data file has bytes past its tree", doc->file));
  } catch (const Error& e) {
    return std::unexpected(e.message);
  }
  const Data* data = &doc->root;
  return Node(std::move(doc), data, data->line);
}

Node::Kind Node::kind() const {
  return m_data ? m_data->kind : Kind::absent;
}

const std::string& Node::scalar() const {
  return m_data && m_data->kind == Kind::scalar ? m_data->scalar : k_empty;
}

std::size_t Node::size() const {
  return m_data ? m_data->children.size() : 0;
}

std::vector<Node> Node::items() const {
  std::vector<Node> out;
  if (is_list())
    for (const auto& c : m_data->children)
      out.push_back(Node(m_doc, &c, c.line));
  return out;
}

std::vector<std::pair<Node, Node>> Node::entries() const {
  std::vector<std::pair<Node, Node>> out;
  if (is_map())
    for (std::size_t i = 0; i < m_data->keys.size(); ++i)
      out.emplace_back(Node(m_doc, &m_data->keys[i], m_data->keys[i].line),
                       Node(m_doc, &m_data->children[i], m_data->children[i].line));
  return out;
}

Node Node::operator[](std::string_view key) const {
  if (is_map())
    for (std::size_t i = 0; i < m_data->keys.size(); ++i)
      if (m_data->keys[i].scalar == key) return Node(m_doc, &m_data->children[i], m_data->children[i].line);
  return Node(m_doc, nullptr, m_line);
}

int Node::line() const {
  return m_line;
}

const std::string& Node::file() const {
  return m_doc ? m_doc->file : k_empty;
}

std::string Node::where() const {
  return m_line > 0 ? fmt::format("{}:{}", file(), m_line) : file();
}

void fail(const Node& at, std::string_view message) {
  throw Error{fmt::format("{}: {}", at.where(), message)};
}

Fields::Fields(const Node& row, std::initializer_list<std::string_view> allowed) : m_node(row) {
  refuse_unknown(std::vector<std::string_view>(allowed));
}

Fields::Fields(const Node& row, const std::vector<std::string>& allowed) : m_node(row) {
  refuse_unknown(std::vector<std::string_view>(allowed.begin(), allowed.end()));
}

void Fields::refuse_unknown(const std::vector<std::string_view>& allowed) const {
  if (!m_node.is_map()) fail(m_node, "a row must be a mapping of field: value");
  for (const auto& [key, value] : m_node.entries())
    if (std::ranges::find(allowed, key.scalar()) == allowed.end())
      fail(key, fmt::format("unknown field '{}'", key.scalar()));
}

void Fields::bad(std::string_view key, std::string_view what) const {
  fail(m_node[key], fmt::format("field '{}' {}", key, what));
}

std::string Fields::text(std::string_view key) const {
  Node v = m_node[key];
  if (!v.present()) fail(m_node, fmt::format("missing required field '{}'", key));
  if (!v.is_scalar() || text::trim(v.scalar()).empty()) bad(key, "must be a non-empty text");
  return v.scalar();
}

std::string Fields::text_or(std::string_view key, std::string fallback) const {
  return has(key) ? text(key) : std::move(fallback);
}

bool Fields::flag(std::string_view key) const {
  if (!has(key)) return false;
  std::string s = text(key);
  if (s != "true" && s != "false") bad(key, "must be true or false");
  return s == "true";
}

long long Fields::positive(std::string_view key) const {
  auto v = text::to_int(text(key), 10);
  if (!v || *v <= 0) bad(key, "must be a positive decimal integer");
  return *v;
}

std::optional<long long> Fields::integer_if(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  auto v = text::to_int(text(key), 10);
  if (!v) bad(key, "must be a decimal integer");
  return v;
}

unsigned Fields::hex(std::string_view key, unsigned max) const {
  std::string s = text(key);
  auto v = text::starts_with(text::lower(s), "0x") ? text::to_int(s, 16) : std::nullopt;
  if (!v || *v < 0 || *v > max) bad(key, fmt::format("must be a 0x hex id, got '{}'", s));
  return static_cast<unsigned>(*v);
}

double Fields::number(std::string_view key) const {
  auto v = text::to_double(text(key));
  if (!v || !(*v > 0) || *v > 1e6) bad(key, "must be a positive number");
  return *v;
}

std::vector<std::string> Fields::list(std::string_view key) const {
  Node v = m_node[key];
  if (!v.present()) fail(m_node, fmt::format("missing required field '{}'", key));
  if (!v.is_list() || v.size() == 0) bad(key, "must be a non-empty list");
  std::vector<std::string> out;
  for (const auto& item : v.items()) {
    if (!item.is_scalar() || text::trim(item.scalar()).empty())
      fail(item, fmt::format("field '{}' must list non-empty texts", key));
    out.push_back(item.scalar());
  }
  return out;
}

std::vector<std::string> Fields::list_if(std::string_view key) const {
  return has(key) ? list(key) : std::vector<std::string>{};
}

std::vector<std::string> Fields::words(std::string_view key) const {
  Node v = m_node[key];
  if (!v.present()) return {};
  if (v.is_scalar()) return {v.scalar()};
  if (!v.is_list()) bad(key, "must be a list");
  std::vector<std::string> out;
  for (const auto& item : v.items()) {
    if (!item.is_scalar()) fail(item, fmt::format("field '{}' must list texts", key));
    out.push_back(item.scalar());
  }
  return out;
}

} // namespace gpudoctor::yaml
