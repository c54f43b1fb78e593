#!/usr/bin/env python3
"""Checks that a PNG is a real picture, not a blank or single-colour frame.

Usage: check-png.py FILE.png [MIN_STDDEV]

Prints the size, the standard deviation of the luminance (0-255) and the number of distinct
colours, and exits 1 when the deviation is under MIN_STDDEV (default 8) or fewer than 16 colours
are used. Standard library only, so the package check needs no ImageMagick.
"""

import struct
import sys
import zlib

CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # samples per pixel by colour type (8-bit, no palette)


def decode(path):
    """Width, height, samples per pixel and the unfiltered rows of an 8-bit PNG."""
    with open(path, "rb") as file:
        data = file.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
    width, height, depth, colour_type, _, _, interlace = header
    if depth != 8 or colour_type not in CHANNELS or interlace:
        raise ValueError(f"unsupported PNG (depth {depth}, colour type {colour_type})")
    pixel = CHANNELS[colour_type]
    stride = width * pixel
    raw = zlib.decompress(b"".join(idat))
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        if kind == 1:
            for x in range(pixel, stride):
                line[x] = (line[x] + line[x - pixel]) & 0xFF
        elif kind == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, previous))
        elif kind == 3:
            for x in range(stride):
                left = line[x - pixel] if x >= pixel else 0
                line[x] = (line[x] + (left + previous[x]) // 2) & 0xFF
        elif kind == 4:
            for x in range(stride):
                a = line[x - pixel] if x >= pixel else 0
                b = previous[x]
                c = previous[x - pixel] if x >= pixel else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, pixel, rows


def main():
    path = sys.argv[1]
    min_stddev = float(sys.argv[2]) if len(sys.argv) > 2 else 8.0
    width, height, pixel, rows = decode(path)
    total = total_sq = 0
    colours = set()
    for row in rows:
        for x in range(0, len(row), pixel):
            sample = row[x : x + pixel]
            colours.add(sample)
            if pixel >= 3:
                luma = (299 * sample[0] + 587 * sample[1] + 114 * sample[2]) // 1000
            else:
                luma = sample[0]
            total += luma
            total_sq += luma * luma
    count = width * height
    mean = total / count
    stddev = max(total_sq / count - mean * mean, 0.0) ** 0.5
    print(f"{path}: {width}x{height}, luminance stddev {stddev:.1f}, {len(colours)} colours")
    if stddev < min_stddev or len(colours) < 16:
        print(f"{path}: looks blank (stddev under {min_stddev} or under 16 colours)", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
