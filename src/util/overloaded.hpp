// std::visit over a variant with one lambda per alternative: overloaded{[](const A&) {...}, [](const B&)
// {...}}.
#pragma once

namespace gpudoctor {

template <class... F> struct overloaded : F... { using F::operator()...; };
template <class... F> overloaded(F...) -> overloaded<F...>;

} // namespace gpudoctor
