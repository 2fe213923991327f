// Package versions compared as the package managers compare them: dpkg's order (Debian Policy 5.6.12:
// epoch, upstream version, revision; `~` before anything, even the end; letters before other characters)
// and rpm's (rpmvercmp: alphanumeric segments, numbers above letters, `~` before and `^` after the end).
// The numeric compare of text::compare_versions stays right for driver and CUDA numbers only.
#pragma once

#include <string_view>

namespace gpudoctor {

// <0, 0, >0 as `dpkg --compare-versions A lt|eq|gt B` says; "1:2.0-3" is epoch 1, upstream 2.0, revision 3.
int dpkg_version_compare(std::string_view a, std::string_view b);

// The upstream version of "[epoch:]version[-revision]" (dpkg's and rpm's split): "1:3.0.11-1ubuntu13" ->
// "3.0.11".
std::string_view upstream_version(std::string_view v);

// rpmvercmp of one field (a version or a release), as rpm.vercmp() answers.
int rpm_field_compare(std::string_view a, std::string_view b);

// Whole rpm versions "[E:]V[-R]": the epoch (absent: 0), then the version, then the release where both have
// one (as rpm compares an installed package's EVR).
int rpm_version_compare(std::string_view a, std::string_view b);

} // namespace gpudoctor
