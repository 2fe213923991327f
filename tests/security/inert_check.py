#!/usr/bin/env python3
"""Whether files (or stdin) hold only text a reader can take at face value.

    inert_check.py [--allow-tab] [--allow-sgr] [FILE...]     exit 1 naming each offence, else 0

An offence is a raw control byte other than line feed (C0, DEL), a C1 control (U+0080-U+009F), a bidi
control (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069), a line or paragraph separator (U+2028,
U+2029), U+FFFE or U+FFFF, or bytes that are not UTF-8 (the same list as util/escape.hpp). --allow-tab
lets tabs through (the script library is indented with none, but other files may be); --allow-sgr lets
colour sequences through (ESC [ digits/semicolons m: gpudoctor's own colours).
"""

import argparse
import re
import sys

SGR = re.compile(r"\x1b\[[0-9;]*m")
BAD = re.compile(r"[\x00-\x09\x0b-\x1f\x7f\x80-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029"
                 r"\ufffe\uffff]")


def offences(data, allow_tab=False, allow_sgr=False, limit=5):
    out = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return ["bytes that are not UTF-8 at offset %d: %r" % (e.start, data[max(0, e.start - 20):e.start + 8])]
    if allow_sgr:
        text = SGR.sub("", text)
    for m in BAD.finditer(text):
        if allow_tab and m.group() == "\t":
            continue
        line = text.count("\n", 0, m.start()) + 1
        out.append("U+%04X on line %d: %r" % (ord(m.group()), line, text[max(0, m.start() - 30):m.start() + 10]))
        if len(out) >= limit:
            break
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*")
    ap.add_argument("--allow-tab", action="store_true")
    ap.add_argument("--allow-sgr", action="store_true")
    args = ap.parse_args()
    status = 0
    for name in args.files or ["-"]:
        data = sys.stdin.buffer.read() if name == "-" else open(name, "rb").read()
        for o in offences(data, args.allow_tab, args.allow_sgr):
            print("%s: %s" % (name, o))
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
