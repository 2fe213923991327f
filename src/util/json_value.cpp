#include "util/json_value.hpp"

#include "util/escape.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

using Members = Json::object_t::Container; // ordered_map is a vector of (key, value) pairs

// Builds the document from nlohmann's SAX events. Members are appended without a search; each object is
// checked for repeated keys once, when it ends, by sorting (O(k log k)), so a document parses in O(n log n).
class Builder {
public:
  Builder(Json& root, const JsonLimits& limits) : m_root(root), m_limits(limits) {}

  bool null() { return value(nullptr); }
  bool boolean(bool b) { return value(b); }
  bool number_integer(Json::number_integer_t n) { return value(n); }
  bool number_unsigned(Json::number_unsigned_t n) { return value(n); }
  bool number_float(Json::number_float_t n, const Json::string_t&) { return value(n); }
  bool string(Json::string_t& s) { return value(std::move(s)); }
  bool binary(Json::binary_t& b) { return value(Json::binary(std::move(b))); }

  bool start_object(std::size_t) { return open(Json::object()); }
  bool start_array(std::size_t) { return open(Json::array()); }
  bool key(Json::string_t& k) {
    Members& members = m_stack.back()->get_ref<Json::object_t&>();
    members.emplace_back(std::move(k), nullptr);
    m_slot = &members.back().second;
    return true;
  }
  bool end_object() {
    merge_repeated_keys(m_stack.back()->get_ref<Json::object_t&>());
    m_stack.pop_back();
    return true;
  }
  bool end_array() {
    m_stack.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
    if (m_error.empty()) m_error = e.what();
    return false;
  }

  const std::string& error() const { return m_error; }

private:
  // Where the next value goes: the root, the end of the innermost array, or the member whose key came last.
  Json* place(Json&& v) {
    if (m_stack.empty()) {
      m_root = std::move(v);
      return &m_root;
    }
    Json& parent = *m_stack.back();
    if (parent.is_array()) {
      auto& items = parent.get_ref<Json::array_t&>();
      items.push_back(std::move(v));
      return &items.back();
    }
    *m_slot = std::move(v);
    return m_slot;
  }
  bool count() {
    if (++m_values <= m_limits.max_values) return true;
    m_error = fmt::format("JSON holds more than {} values", m_limits.max_values);
    return false;
  }
  bool value(Json&& v) {
    if (!count()) return false;
    place(std::move(v));
    return true;
  }
  bool open(Json&& container) {
    if (!count()) return false;
    if (m_stack.size() >= m_limits.max_depth) {
      m_error = fmt::format("JSON nested deeper than {} levels", m_limits.max_depth);
      return false;
    }
    m_stack.push_back(place(std::move(container)));
    return true;
  }

  // A key given twice keeps its first place and its last value (what nlohmann's own parser gives).
  static void merge_repeated_keys(Members& members) {
    if (members.size() < 2) return;
    std::vector<std::size_t> order(members.size());
    for (std::size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return members[a].first < members[b].first; });
    bool repeated = false;
    for (std::size_t i = 1; i < order.size() && !repeated; ++i)
      repeated = members[order[i]].first == members[order[i - 1]].first;
    if (!repeated) return;
    // For each run of one key (in document order): the first index takes the last one's value.
    std::vector<std::ptrdiff_t> take(members.size(), -1); // first index -> index of the value; others: -2
    for (std::size_t i = 0; i < order.size();) {
      std::size_t j = i;
      while (j + 1 < order.size() && members[order[j + 1]].first == members[order[i]].first)
        ++j;
      take[order[i]] = static_cast<std::ptrdiff_t>(order[j]);
      for (std::size_t k = i + 1; k <= j; ++k)
        take[order[k]] = -2;
      i = j + 1;
    }
    Members kept;
    kept.reserve(members.size());
    for (std::size_t i = 0; i < members.size(); ++i)
      if (take[i] >= 0) kept.emplace_back(members[i].first, std::move(members[take[i]].second));
    members.swap(kept);
  }

  Json& m_root;
  const JsonLimits& m_limits;
  std::vector<Json*> m_stack; // the open objects and arrays, innermost last
  Json* m_slot = nullptr;     // the value of the member whose key came last
  std::size_t m_values = 0;
  std::string m_error;
};

} // namespace

bool parse_json_into(std::string_view text, Json& out, std::string& error, const JsonLimits& limits) {
  try {
    Json result;
    Builder builder(result, limits);
    if (!Json::sax_parse(text.begin(), text.end(), &builder)) {
      error = builder.error().empty() ? "invalid JSON" : builder.error();
      return false;
    }
    out = std::move(result);
    return true;
  } catch (const std::exception& e) { // allocation failure; nlohmann reports parse errors to the builder
    error = e.what();
    return false;
  }
}

std::string dump_json(const Json& j, int indent) {
  // nlohmann escapes C0 controls but leaves DEL, C1 and bidi controls raw: JSON is printed to terminals too.
  return escape::json_text(j.dump(indent, ' ', false, nlohmann::detail::error_handler_t::replace));
}

std::optional<std::string> dump_json_exact(const Json& j) {
  try {
    return j.dump(-1, ' ', false, nlohmann::detail::error_handler_t::strict);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<std::string> json_string(const Json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::optional<long long> json_int(const Json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<long long>();
}

std::optional<bool> json_bool(const Json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || !it->is_boolean()) return std::nullopt;
  return it->get<bool>();
}

} // namespace gpudoctor
