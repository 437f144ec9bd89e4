#!/usr/bin/env python3
"""Reads a tengen frames file (the black box) without tengen: docs/frames-format.md.

    python3 frames_reader.py FILE                 what the file holds (one JSON line)
    python3 frames_reader.py FILE --at MS         the board then, rows of .XO? top row first
    python3 frames_reader.py FILE --from MS --to MS
                                                  the board at MS, then each scan with a change
                                                  or a press up to --to, as JSON lines
                                                  {"ms":N,"board":"...","presses":[...]}

Python 3 standard library only. The tests run it beside `tengen frames` on the same files
(daemon/tests/fast/black_box.rs): the two must print the same lines.
"""

import json
import struct
import sys

MAGIC = b"TGNFRMS1"
PRESS_INDEX = 0x1FFF
CHARS = ".XO?"


def _crc32c_table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _crc32c_table()


def crc32c(data):
    """CRC-32C (Castagnoli), as iSCSI and ext4 use it."""
    c = 0xFFFFFFFF
    for b in data:
        c = _TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def varint(buf, at):
    """An unsigned LEB128 varint at `at`: (value, next offset)."""
    value, shift = 0, 0
    while True:
        b = buf[at]
        at += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, at
        shift += 7


def records(data):
    """The payloads of the whole records, in order. A record that does not check is
    skipped up to the next one that does (a damaged record), or ends the file (a torn
    tail: the last write cut by a power failure)."""
    if not data.startswith(MAGIC):
        raise ValueError("not a tengen frames file")
    at = len(MAGIC)
    while at + 8 <= len(data):
        length, crc = struct.unpack_from("<II", data, at)
        payload = data[at + 8 : at + 8 + length]
        if 0 < length <= 1 << 20 and len(payload) == length and crc32c(data[at : at + 4] + payload) == crc:
            yield payload
            at += 8 + length
        else:
            at += 1  # look for the next whole record


def events(data):
    """The header, and the file as a list of ("key", ms, board) and
    ("change", ms, index, code) in order; index PRESS_INDEX is a clock press
    (code 1: Black's button, 2: White's)."""
    header, out = None, []
    for p in records(data):
        kind, body = p[:1], p[1:]
        if kind == b"H":
            header = header or json.loads(body)
            continue
        points = header["size"] ** 2
        t, at = varint(body, 0)
        if kind == b"K":
            packed = body[at : at + (points + 3) // 4]
            at += (points + 3) // 4
            board = [(packed[i // 4] >> (i % 4 * 2)) & 3 for i in range(points)]
            out.append(("key", t, board))
        while at < len(body):
            dt, at = varint(body, at)
            t += dt
            more = True
            while more:
                (item,) = struct.unpack_from("<H", body, at)
                at += 2
                more = bool(item & 0x8000)
                out.append(("change", t, (item >> 2) & 0x1FFF, item & 3))
    return header, out


def text(board):
    return "".join(CHARS[c] for c in board)


def window(header, evs, start, to):
    """The board at `start`, then each scan with a change or a press up to `to`."""
    first = next((e[1] for e in evs if e[0] == "key"), None)
    if first is None or max(start, first) > to:
        return []
    start = max(start, first)
    board, presses, i = None, [], 0
    while i < len(evs) and evs[i][1] <= start:
        e = evs[i]
        if e[0] == "key":
            board = list(e[2])
        elif e[2] == PRESS_INDEX:
            presses = presses + ["B" if e[3] == 1 else "W"] if e[1] == start else presses
        else:
            board[e[2]] = e[3]
        i += 1
    lines = [{"ms": start, "board": text(board), "presses": presses}]
    while i < len(evs) and evs[i][1] <= to:
        ms, presses = evs[i][1], []
        while i < len(evs) and evs[i][1] == ms:
            e = evs[i]
            if e[0] == "key":
                board = list(e[2])
            elif e[2] == PRESS_INDEX:
                presses.append("B" if e[3] == 1 else "W")
            else:
                board[e[2]] = e[3]
            i += 1
        lines.append({"ms": ms, "board": text(board), "presses": presses})
    return lines


def main(argv):
    args = dict(zip(argv[2::2], argv[3::2]))
    with open(argv[1], "rb") as f:
        header, evs = events(f.read())
    size = header["size"]
    if "--at" in args:
        at = int(args["--at"])
        board = window(header, evs, at, at)[0]["board"]
        print("\n".join(board[r * size : (r + 1) * size] for r in range(size)))
    elif "--from" in args:
        for line in window(header, evs, int(args["--from"]), int(args["--to"])):
            print(json.dumps(line, separators=(",", ":")))
    else:
        changes = sum(1 for e in evs if e[0] == "change")
        print(json.dumps({"board": header["board"], "game": header["game"], "size": size, "changes": changes}))


if __name__ == "__main__":
    main(sys.argv)
