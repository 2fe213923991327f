// Wrapping for a terminal (util/wrap.hpp): no line past the width unless it is one word, each continuation
// under its line's text, escape sequences taking no room, and a pipe's width 0 changing nothing.
#include "util/text.hpp"
#include "util/wrap.hpp"

#include <string>

#include <doctest/doctest.h>

using namespace gpudoctor;

namespace {

std::size_t widest(const std::string& text) {
  std::size_t w = 0;
  for (const auto& line : text::lines(text))
    w = std::max(w, display_width(line));
  return w;
}

} // namespace

TEST_CASE("wrap: display width counts code points and skips escape sequences") {
  CHECK(display_width("abc") == 3);
  CHECK(display_width("✗ error") == 7);
  CHECK(display_width("\033[1;31m✗ error\033[0m") == 7);
  CHECK(display_width("") == 0);
  CHECK(display_width("\033[") == 0); // a sequence cut short takes no room
}

TEST_CASE("wrap: width 0 and short lines are left as they are") {
  std::string text = std::string(300, 'x') + " y\n  short line\n";
  CHECK(wrap_to_width(text, 0) == text);
  CHECK(wrap_to_width("  short line\n\nlast", 80) == "  short line\n\nlast");
}

TEST_CASE("wrap: evidence, fix and result lines keep their hanging indent") {
  std::string evidence = "      · " + std::string("word ") + std::string(60, 'a') + " bbb ccc ddd eee fff";
  CHECK(wrap_to_width(evidence, 40) ==
        "      · word\n        " + std::string(60, 'a') + "\n        bbb ccc ddd eee fff");

  std::string result = "  ✗ error  A compiled extension built for another GPU stack or PyTorch  [python.x]";
  std::string wrapped = wrap_to_width(result, 50);
  CHECK(wrapped == "  ✗ error  A compiled extension built for another\n"
                   "           GPU stack or PyTorch  [python.x]");

  std::string row = "  GPUs        gpu0 0000:03:00.0 AMD Radeon RX 7900 XTX, gfx1100, driver amdgpu";
  CHECK(wrap_to_width(row, 60) == "  GPUs        gpu0 0000:03:00.0 AMD Radeon RX 7900 XTX,\n"
                                  "              gfx1100, driver amdgpu");

  std::string plain =
      "gpudoctor: step 3 failed (exit status 1); nothing after it ran and the journal says why";
  CHECK(wrap_to_width(plain, 40) ==
        "gpudoctor: step 3 failed (exit status\n1); nothing after it ran and the journal\n"
        "says why");
}

TEST_CASE("wrap: colour does not count, and a word longer than the width stays whole on its own line") {
  std::string coloured = "  \033[1;31m✗ error\033[0m  " + std::string(30, 'w') + " tail words here";
  std::string wrapped = wrap_to_width(coloured, 45); // 41 columns before the tail
  CHECK(wrapped == "  \033[1;31m✗ error\033[0m  " + std::string(30, 'w') + "\n           tail words here");

  std::string dimmed = "\033[2m      · library /" + std::string(80, 'p') + "\033[0m";
  CHECK(wrap_to_width(dimmed, 60) == "\033[2m      · library\n        /" + std::string(80, 'p') + "\033[0m");

  std::string path = "      · library /" + std::string(120, 'p') + "/lib.so";
  std::string out = wrap_to_width(path, 80);
  CHECK(out == "      · library\n        /" + std::string(120, 'p') + "/lib.so");
}

TEST_CASE("wrap: every line fits unless it holds one word, and nothing is lost") {
  std::string text;
  for (int i = 0; i < 200; ++i)
    text += std::string(i % 7, ' ') + "· word" + std::to_string(i) + " " + std::string(i % 90, 'z') +
            " and a few more words to push it past eighty columns of a terminal\n";
  std::string wrapped = wrap_to_width(text, 80);
  for (const auto& line : text::lines(wrapped)) {
    std::string trimmed = text::trim(line);
    if (display_width(line) > 80) CHECK(trimmed.find(' ') == std::string::npos);
  }
  std::string a, b;
  for (char c : text)
    if (c != ' ' && c != '\n') a += c;
  for (char c : wrapped)
    if (c != ' ' && c != '\n') b += c;
  CHECK(a == b);
  CHECK(widest(wrap_to_width(std::string(100000, 'q'), 80)) == 100000); // one word: whole, in linear time
}

TEST_CASE("cut_to_width: a progress line stays one terminal line") {
  CHECK(cut_to_width("gpudoctor: packing a.tar.gz ...", 0) == "gpudoctor: packing a.tar.gz ...");
  CHECK(cut_to_width("gpudoctor: packing a.tar.gz ...", 31) == "gpudoctor: packing a.tar.gz ...");
  CHECK(cut_to_width("gpudoctor: packing a.tar.gz ...", 20) == "gpudoctor: packing …");
  CHECK(display_width(cut_to_width("gpudoctor: packing a.tar.gz ...", 20)) == 20);
  // Cut between code points, never inside one.
  CHECK(cut_to_width("ab→cd→ef", 4) == "ab→…");
}

TEST_CASE("wrap_line_with_hang: a message continues under its given indent") {
  const std::string message =
      "gpudoctor: warning: the redacted snapshot judges differently from the live run";
  CHECK(wrap_line_with_hang(message, 0, 4) == message);
  CHECK(wrap_line_with_hang(message, 100, 4) == message);
  CHECK(wrap_line_with_hang(message, 40, 4) ==
        "gpudoctor: warning: the redacted\n    snapshot judges differently from the\n    live run");
  // A path longer than the width stays whole.
  CHECK(wrap_line_with_hang("gpudoctor: cannot write /a/very/long/path/to/a/bundle.tar.gz: gone", 30, 4) ==
        "gpudoctor: cannot write\n    /a/very/long/path/to/a/bundle.tar.gz:\n    gone");
}

TEST_CASE("display_width: wide characters take two columns, combining marks none") {
  CHECK(display_width("/home/张三/venv") == 15); // 11 narrow, 2 wide
  CHECK(display_width("ｇｐｕ") == 6);           // fullwidth forms
  CHECK(display_width("e\xcc\x81") == 1);        // e and a combining acute accent
  CHECK(display_width("· → ✗") == 5);            // gpudoctor's marks are narrow
  CHECK(display_width("\xff\xfe") == 2);         // invalid bytes: a column each, no overrun
  CHECK(display_width("\xe4\xb8") == 2);         // a sequence cut short at the end
  // Wrapping counts them: a line of wide characters breaks where it would pass the width.
  CHECK(wrap_to_width("路径 很长的 中文 目录", 10) == "路径\n很长的\n中文 目录"); // 4+1+6 = 11 > 10
  CHECK(cut_to_width("进度 进度 进度", 7) == "进度 …"); // 进 would end at column 7, the ellipsis needs it
  CHECK(display_width(cut_to_width("进度 进度 进度", 8)) <= 8);
}

TEST_CASE("display_width: a malformed escape ends at a space, so a line and its words agree") {
  // Found by fuzz_wrap: ESC [ with a space and bytes past 0x7e in it was one sequence for the line and two
  // for its words, and a line of two words passed the width.
  const std::string line = "\x1b[1;31\xe2\x9c\x97 \x1b[1;31mword";
  CHECK(display_width(line) == display_width("\x1b[1;31\xe2\x9c\x97") + 1 + display_width("\x1b[1;31mword"));
  CHECK(display_width("\x1b[1;31merror\x1b[0m") == 5);
}
