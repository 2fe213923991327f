// The check page's parts that tie it together (`check --format html`, docs/fleet.md "One HTML page"): a
// per-GPU health grid, the results by status behind each counter, and inline the explanation of every check
// id and the description of every fix the page names; every counter, id and fix is a link to one of them,
// inside the page (it stays one self-contained file). Anchors: `r-N` (result N of the report), `gpu-I` (the
// grid's row of GPU index I), `status-NAME`, `explain-ID`, `fix-ID`.
#pragma once

#include "engine/catalogue.hpp"
#include "report/report.hpp"

#include <string>

namespace gpudoctor::html {

// The anchor of result `index` of the report.
std::string result_anchor(std::size_t index);
// `<a class="id" href="#explain-ID">ID</a>`, and the fix's `<a href="#fix-ID"><code>gpudoctor fix
// ID</code></a>`.
std::string id_link(const std::string& id);
std::string fix_link(const std::string& fix);

// GPU × grid column (the catalogue's `health:`): the worst status of the GPU's results of those checks, each
// cell a link to the first such result; a row for the machine-wide results; "—" where nothing was judged.
std::string health_grid(const Report& report, const Catalogue& cat);
// The worst status of all results about GPU `gpu` (its subject), as a badge linked to its grid row.
std::string gpu_health_cell(const Report& report, const Gpu& gpu);

// The tiles: the count of each status, each a link to the list of those results (status_lists).
std::string linked_tiles(const Summary& s);
// Per status, the results that have it, each a link to its card or row.
std::string status_lists(const Report& report);

// What every check id on the page looks at, why it matters and how to fix it; and every fix the page names,
// with its command.
std::string explanations(const Report& report, const Catalogue& cat);
std::string fix_descriptions(const Report& report, const Catalogue& cat);

} // namespace gpudoctor::html
