#!/usr/bin/env python3
"""Render a terminal capture (`tmux capture-pane -e -p`, ANSI colours) to a PNG.

usage: render_ansi.py CAPTURE.txt OUT.png COLS ROWS
needs: pyte, Pillow, the DejaVu Sans Mono fonts (Debian fonts-dejavu-core)
"""
import sys

import pyte
from PIL import Image, ImageDraw, ImageFont

FONT_DIR = "/usr/share/fonts/truetype/dejavu/"
SIZE = 15
BG, FG = (0x1e, 0x1e, 0x2e), (0xcd, 0xd6, 0xf4)
# xterm's 16 colours
NAMED = {
    "black": (0, 0, 0), "red": (205, 49, 49), "green": (13, 188, 121), "brown": (229, 229, 16),
    "yellow": (229, 229, 16), "blue": (36, 114, 200), "magenta": (188, 63, 188), "cyan": (17, 168, 205),
    "white": (229, 229, 229), "brightblack": (102, 102, 102), "brightred": (241, 76, 76),
    "brightgreen": (35, 209, 139), "brightyellow": (245, 245, 67), "brightbrown": (245, 245, 67),
    "brightblue": (59, 142, 234), "brightmagenta": (214, 112, 214), "brightcyan": (41, 184, 219),
    "brightwhite": (255, 255, 255),
}


def colour(c, default):
    if c == "default":
        return default
    if c in NAMED:
        return NAMED[c]
    try:
        return tuple(int(c[i:i + 2], 16) for i in (0, 2, 4))
    except ValueError:
        return default


def main():
    src, out, cols, rows = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    screen = pyte.Screen(cols, rows)
    stream = pyte.Stream(screen)
    text = open(src, encoding="utf-8", errors="replace").read()
    # capture-pane ends lines with \n only; the terminal needs \r\n.
    stream.feed(text.rstrip("\n").replace("\n", "\r\n"))

    regular = ImageFont.truetype(FONT_DIR + "DejaVuSansMono.ttf", SIZE)
    bold = ImageFont.truetype(FONT_DIR + "DejaVuSansMono-Bold.ttf", SIZE)
    italic = ImageFont.truetype(FONT_DIR + "DejaVuSansMono-Oblique.ttf", SIZE)
    cw = round(regular.getlength("M"))
    ch = SIZE + 5
    pad = 10
    img = Image.new("RGB", (cols * cw + 2 * pad, rows * ch + 2 * pad), BG)
    draw = ImageDraw.Draw(img)
    for y in range(rows):
        line = screen.buffer[y]
        for x in range(cols):
            cell = line[x]
            fg, bg = colour(cell.fg, FG), colour(cell.bg, BG)
            if cell.reverse:
                fg, bg = bg, fg
            x0, y0 = pad + x * cw, pad + y * ch
            if bg != BG:
                draw.rectangle([x0, y0, x0 + cw - 1, y0 + ch - 1], fill=bg)
            if cell.data.strip():
                font = bold if cell.bold else italic if cell.italics else regular
                draw.text((x0, y0 + 2), cell.data, font=font, fill=fg)
            if cell.underscore:
                draw.line([x0, y0 + ch - 3, x0 + cw - 1, y0 + ch - 3], fill=fg)
    img.save(out)


if __name__ == "__main__":
    main()
