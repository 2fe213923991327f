// The lookup every table of rows does: the first row whose field equals a key, or null.
#pragma once

#include <algorithm>
#include <ranges>

namespace gpudoctor {

// `field` is a pointer to member (&Row::id) or any projection std::ranges::find takes.
template <std::ranges::forward_range Rows, class Key, class Field>
auto find_row(Rows& rows, const Key& key, Field field) {
  auto it = std::ranges::find(rows, key, field);
  return it == std::ranges::end(rows) ? nullptr : &*it;
}

} // namespace gpudoctor
