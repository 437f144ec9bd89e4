#!/usr/bin/env python3
"""Writes table/src/fonts/wqy12_big5.bin: the 12 px WenQuanYi Bitmap Song glyphs of the
Big5 level 1 hanzi that GB2312 lacks (the traditional characters: 讀, 勳, 賴, 對, 數...), so
that a traditional Chinese face reads evenly instead of falling back to the 9 px font.

The source is the same family as U8g2's `wqy12` fonts already drawn (identical bitmaps for
the characters both have): Debian's xfonts-wqy, `wenquanyi_9pt.pcf` (12 px), converted
with pcf2bdf:

    apt-get download xfonts-wqy && dpkg-deb -x xfonts-wqy_*.deb wqy
    pcf2bdf -o wqy12.bdf wqy/usr/share/fonts/X11/misc/wenquanyi_9pt.pcf
    python3 table/tools/big5_12.py wqy12.bdf table/src/fonts/wqy12_big5.bin

Licence: WenQuanYi Bitmap Song, GPL v2 with the font embedding exception (as U8g2's wqy
fonts). Format (little-endian): b"TGF1", u16 count, then for every glyph its bounding box
is the font's 11x11 at x 0, y -1 (baseline) with advance 12 (checked here); `count` u32
code points, ascending; then `count` bitmaps of 11 rows, each a big-endian u16 whose top
bit is the leftmost pixel.
"""
import re
import struct
import sys

WIDTH, HEIGHT, XOFF, YOFF, ADVANCE = 11, 11, 0, -1, 12


def big5_level1():
    for lead in range(0xA4, 0xC7):
        for trail in list(range(0x40, 0x7F)) + list(range(0xA1, 0xFF)):
            if lead == 0xC6 and trail > 0x7E:
                return
            try:
                yield bytes([lead, trail]).decode("big5")
            except UnicodeDecodeError:
                pass


def in_gb2312(c):
    try:
        c.encode("gb2312")
        return True
    except UnicodeEncodeError:
        return False


def main(bdf_path, out_path):
    src = open(bdf_path, encoding="latin-1").read()
    glyphs = {}
    pattern = (r"STARTCHAR.*?\nENCODING (-?\d+)\n.*?DWIDTH (\d+) \d+\n"
               r"BBX (-?\d+) (-?\d+) (-?\d+) (-?\d+)\nBITMAP\n(.*?)ENDCHAR")
    for m in re.finditer(pattern, src, re.S):
        glyphs[int(m.group(1))] = (int(m.group(2)), tuple(map(int, m.group(3, 4, 5, 6))),
                                   [int(h, 16) for h in m.group(7).split()])
    wanted = sorted({ord(c) for c in big5_level1() if not in_gb2312(c)})
    out = bytearray(b"TGF1" + struct.pack("<H", len(wanted)))
    bitmaps = bytearray()
    for cp in wanted:
        advance, bbx, rows = glyphs[cp]
        assert (advance, bbx) == (ADVANCE, (WIDTH, HEIGHT, XOFF, YOFF)), (chr(cp), advance, bbx)
        assert len(rows) == HEIGHT
        out += struct.pack("<I", cp)
        for r in rows:
            bitmaps += struct.pack(">H", r)
    open(out_path, "wb").write(bytes(out + bitmaps))
    print(f"{len(wanted)} glyphs, {len(out) + len(bitmaps)} bytes")


if __name__ == "__main__":
    main(*sys.argv[1:3])
