#include "report/html_page.hpp"

#include "util/escape.hpp"

#include <fmt/format.h>

namespace gpudoctor::html {

namespace {

// One style sheet for every page. Long values (paths, variables) wrap anywhere, so nothing leaves the page
// on a screen or on paper; cards do not break across printed pages.
constexpr std::string_view k_style = R"css(
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#f6f8fa;--card:#fff;
--error:#cf222e;--error-bg:#ffebe9;--warn:#9a6700;--warn-bg:#fff8c5;--info:#0969da;--info-bg:#ddf4ff;
--pass:#1a7f37;--pass-bg:#dafbe1;--skip:#59636e;--skip-bg:#eff2f5;--odd:#fff1c2}
*{box-sizing:border-box}
html{-webkit-print-color-adjust:exact;print-color-adjust:exact}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
header.band{background:#0d1b2a;color:#fff;padding:22px 0 18px}
.wrap{max-width:1120px;margin:0 auto;padding:0 24px}
header .kind{font-size:12px;letter-spacing:.12em;text-transform:uppercase;color:#8fb8de;font-weight:600}
header h1{margin:4px 0 6px;font-size:26px;line-height:1.25;overflow-wrap:anywhere}
header .meta{color:#c9d6e3;font-size:13px;overflow-wrap:anywhere}
main.wrap{padding-top:20px;padding-bottom:32px}
.tiles{display:flex;flex-wrap:wrap;gap:12px;margin:0 0 18px}
.tile{flex:1 1 120px;background:var(--card);border:1px solid var(--line);border-top:4px solid var(--line);border-radius:8px;padding:10px 14px}
.tile .n{font-size:28px;font-weight:700;line-height:1.1}
.tile .l{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.06em}
.tile.error{border-top-color:var(--error)}.tile.error .n{color:var(--error)}
.tile.warn{border-top-color:#d4a72c}.tile.warn .n{color:var(--warn)}
.tile.info{border-top-color:var(--info)}.tile.pass{border-top-color:var(--pass)}.tile.pass .n{color:var(--pass)}
.verdict{font-size:16px;font-weight:600;margin:0 0 18px;padding:10px 14px;border-radius:8px}
.verdict.error{background:var(--error-bg);color:var(--error)}.verdict.warn{background:var(--warn-bg);color:var(--warn)}
.verdict.pass{background:var(--pass-bg);color:var(--pass)}
section.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:14px 18px;margin:0 0 16px}
section.card>h2{font-size:17px;margin:0 0 10px;padding-bottom:8px;border-bottom:1px solid var(--line)}
h3{font-size:14px;margin:16px 0 8px;color:var(--muted);text-transform:uppercase;letter-spacing:.05em}
table{width:100%;border-collapse:collapse;font-size:13px}
th{text-align:left;color:var(--muted);font-weight:600;border-bottom:1px solid var(--line);padding:6px 8px}
td{padding:6px 8px;border-bottom:1px solid #eaeef2;vertical-align:top;overflow-wrap:anywhere}
tbody tr:nth-child(even) td{background:#fafbfc}
td.num,th.num{text-align:right;white-space:nowrap}
tr.odd td{background:var(--odd)!important}
tr.row-error td:first-child{box-shadow:inset 3px 0 var(--error)}tr.row-warn td:first-child{box-shadow:inset 3px 0 #d4a72c}
code,.mono{font-family:"DejaVu Sans Mono",ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;overflow-wrap:anywhere}
.badge{display:inline-block;padding:1px 9px;border-radius:999px;font-size:12px;font-weight:600;white-space:nowrap}
.badge.error{background:var(--error-bg);color:var(--error)}.badge.warn{background:var(--warn-bg);color:var(--warn)}
.badge.info{background:var(--info-bg);color:var(--info)}.badge.pass{background:var(--pass-bg);color:var(--pass)}
.badge.skip{background:var(--skip-bg);color:var(--skip)}
.badge.add{background:var(--pass-bg);color:var(--pass)}.badge.del{background:var(--error-bg);color:var(--error)}
.badge.chg{background:var(--warn-bg);color:var(--warn)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 18px;margin:0}
dl.facts dt{color:var(--muted);font-weight:600}dl.facts dd{margin:0;overflow-wrap:anywhere}
.result{border:1px solid var(--line);border-left:4px solid var(--line);border-radius:6px;padding:10px 14px;margin:0 0 10px;break-inside:avoid}
.result.error{border-left-color:var(--error)}.result.warn{border-left-color:#d4a72c}.result.info{border-left-color:var(--info)}
.result .head{display:flex;gap:10px;align-items:baseline;flex-wrap:wrap}
.result .title{font-weight:600;font-size:15px}
.result .where{color:var(--muted);font-size:12px}
.result p{margin:6px 0}
.result ul.evidence{margin:6px 0;padding-left:18px;color:var(--muted)}
.result .fix{margin-top:6px;padding:6px 10px;background:#f6f8fa;border-radius:6px}
.result .fix code{font-weight:600;color:var(--fg)}
.muted{color:var(--muted)}
.names{color:var(--fg)}
.bar{height:8px;background:#eaeef2;border-radius:4px;min-width:80px;overflow:hidden}
.bar>span{display:block;height:100%;background:#8fb8de}
tr.odd .bar>span{background:#d4a72c}
.note{background:var(--warn-bg);color:var(--warn);border-radius:6px;padding:8px 12px;margin:0 0 12px}
figure{margin:0}figure svg{max-width:100%;height:auto}figcaption{color:var(--muted);font-size:12px;margin-top:6px}
footer{color:var(--muted);font-size:12px;margin-top:24px}
a{color:var(--info)}a.id{color:inherit;text-decoration:underline dotted}a.tile-link{flex:1 1 120px;display:flex;text-decoration:none;color:inherit}
a.tile-link .tile{flex:1}a.fix-link{text-decoration:none}
td.cell{text-align:center;padding:4px 2px}td.cell a{text-decoration:none}td.cell.none{color:var(--muted)}
.status-list ul{margin:4px 0 8px;padding-left:18px}.explain{border-top:1px solid #eaeef2;padding:6px 0}
.explain h3{text-transform:none;letter-spacing:0;color:var(--fg)}
th.vertical{writing-mode:vertical-rl;transform:rotate(180deg);white-space:nowrap;vertical-align:bottom;font-weight:500;padding:6px 2px}
.scroll{overflow-x:auto}td.node{white-space:nowrap;max-width:26em;overflow:hidden;text-overflow:ellipsis}
.mark{font-weight:700}.mark.error{color:var(--error)}.mark.warn{color:var(--warn)}
details summary{cursor:pointer;color:var(--info)}
@page{size:A4;margin:12mm}
@media print{body{background:#fff;font-size:11px}.wrap{max-width:none;padding:0}header.band{padding:12px 14px}
section.card{break-inside:auto;border-color:#ccc}tr,.tile{break-inside:avoid}figure{break-inside:avoid}}
)css";

} // namespace

std::string h(std::string_view s) {
  return escape::html(s);
}

std::string page(std::string_view title, const Header& header, std::string_view body) {
  std::string meta;
  for (const auto& line : header.meta)
    meta += "<div class=\"meta\">" + line + "</div>";
  // No script may run and nothing may load: the page is a document, whatever a snapshot put in it.
  return fmt::format(R"(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="gpudoctor {}">
<title>{}</title>
<style>{}</style>
</head>
<body>
<header class="band"><div class="wrap"><div class="kind">gpudoctor {}</div><h1>{}</h1>{}</div></header>
<main class="wrap">
{}
<footer>Written by gpudoctor {}. <code>gpudoctor explain ID</code> says what a check looks at, why it matters and how to fix it.</footer>
</main>
</body>
</html>
)",
                     GPUDOCTOR_VERSION, h(title), k_style, h(header.kind), header.heading, meta, body,
                     GPUDOCTOR_VERSION);
}

std::string status_class(Status s) {
  return status_name(s);
}

std::string badge(Status s) {
  static constexpr std::string_view words[] = {"passed", "info", "warning", "error", "skipped"};
  return fmt::format("<span class=\"badge {}\">{}</span>", status_class(s), words[static_cast<int>(s)]);
}

std::string tile(long long number, std::string_view label, std::string_view cls) {
  return fmt::format("<div class=\"tile {}\"><div class=\"n\">{}</div><div class=\"l\">{}</div></div>", cls,
                     number, label);
}

std::string section(std::string_view id, std::string_view heading, std::string_view body) {
  return fmt::format("<section class=\"card\" id=\"{}\"><h2>{}</h2>\n{}</section>\n", id, heading, body);
}

std::string table(std::string_view head, std::string_view rows) {
  return fmt::format("<table><thead><tr>{}</tr></thead><tbody>{}</tbody></table>\n", head, rows);
}

} // namespace gpudoctor::html
