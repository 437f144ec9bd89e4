#!/usr/bin/env python3
"""Builds fuzz/corpus/: the seed inputs of every fuzz target, from the repo's real inputs.

- sgf:     the SGF fixtures (sgfmill's, GNU Go's games, the simulator's, the demo game)
- script:  the referee scenarios and the config's scripts
- config:  the example configs in config/
- command, command_checked: every command of docs/mqtt-http.md, as an arbiter's console sends them
- console_command: bodies of the console's command POST in the hall
- hall_config: the example hall config and two small ones
- serial:  frames of hal/PROTOCOL.md (hello, buttons, raw16, raw12 and classified scans of
           a real position), written here with zlib's CRC-32 (= CRC-32/ISO-HDLC) and COBS
- hall:    what a board publishes (status, state, events, alerts/active, sgf, cmd/reply),
           events taken from `tengen sim --events` of a scenario (pass its JSONL file as
           the first argument; without it a few events of the wire contract's form are used)

Run from the repo root: `python3 fuzz/make_seeds.py [events.jsonl]`. Deterministic.
"""
import glob
import json
import os
import shutil
import struct
import sys
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")


def put(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def copy_files(target, pattern, limit=None, max_bytes=8192):
    files = sorted(glob.glob(os.path.join(ROOT, pattern)))
    n = 0
    for path in files:
        if os.path.getsize(path) > max_bytes:
            continue
        rel = os.path.relpath(path, ROOT).replace("/", "_")
        shutil.copyfile(path, os.path.join(CORPUS, target, rel))
        n += 1
        if limit and n >= limit:
            break


# --- serial -------------------------------------------------------------------------

def cobs(frame):
    out = bytearray([0])
    code_at, code = 0, 1
    for b in frame:
        if b == 0:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
        else:
            out.append(b)
            code += 1
            if code == 0xFF:
                out[code_at] = code
                code_at = len(out)
                out.append(0)
                code = 1
    out[code_at] = code
    return bytes(out)


def frame(kind, seq, time, payload):
    head = b"TG" + bytes([1, kind]) + struct.pack("<HIH", seq, time & 0xFFFFFFFF, len(payload))
    body = head + payload
    return b"\x00" + cobs(body + struct.pack("<I", zlib.crc32(body))) + b"\x00"


def hello(boot=True):
    return bytes([19, 12, 1, 0, 0, 1 if boot else 0]) + struct.pack("<H", 100)


def position(size):
    # A few stones of a real opening: 0 empty, 1 black, 2 white.
    s = [0] * (size * size)
    for (c, r, v) in [(3, 3, 1), (15, 15, 2), (15, 3, 1), (3, 15, 2), (2, 5, 1), (16, 13, 2)]:
        if c < size and r < size:
            s[r * size + c] = v
    return s


def raw16(size):
    vals = [2048 + (614 if v == 1 else -614 if v == 2 else 0) for v in position(size)]
    return bytes([size]) + b"".join(struct.pack("<H", v) for v in vals)


def raw12(size):
    vals = [2048 + (614 if v == 1 else -614 if v == 2 else 0) for v in position(size)]
    out = bytearray([size])
    for i in range(0, len(vals), 2):
        a = vals[i]
        b = vals[i + 1] if i + 1 < len(vals) else None
        out.append(a & 0xFF)
        if b is None:
            out.append(a >> 8)
        else:
            out.append((a >> 8) | ((b & 0x0F) << 4))
            out.append(b >> 4)
    return bytes(out)


def classified(size):
    # Two bits per point, four points a byte, low bits first: 0 empty, 1 black, 2 white.
    vals = position(size)
    out = bytearray([size])
    for i in range(0, len(vals), 4):
        b = 0
        for j, v in enumerate(vals[i:i + 4]):
            b |= v << (2 * j)
        out.append(b)
    return bytes(out)


def serial():
    put("serial", "hello_boot", frame(0x01, 0, 5, hello(True)))
    put("serial", "buttons", frame(0x20, 1, 900, bytes([0, 0])) + frame(0x20, 2, 980, bytes([0, 1]))
        + frame(0x20, 3, 2000, bytes([1, 0])))
    put("serial", "scan_raw16_9", frame(0x10, 4, 1000, raw16(9)))
    put("serial", "scan_raw12_19", frame(0x11, 5, 1010, raw12(19)))
    put("serial", "scan_classified_19", frame(0x12, 6, 1020, classified(19)))
    put("serial", "stream", frame(0x01, 0, 0, hello(True)) + b"".join(
        frame(0x12, i + 1, 10 * (i + 1), classified(19)) for i in range(3))
        + frame(0x20, 4, 35, bytes([1, 0])))
    put("serial", "garbage_then_frame", b"hello\xff\x13" + frame(0x20, 9, 4294967290, bytes([1, 1])))
    # Sealed-frame form of the target: type, seq (2), time (4), payload.
    put("serial", "sealed_classified", bytes([0x12]) + struct.pack("<HI", 7, 70) + classified(9))
    put("serial", "sealed_hello", bytes([0x01]) + struct.pack("<HI", 0, 1) + hello(False))


# --- command ------------------------------------------------------------------------

def commands():
    cmds = [
        {"id": "c1", "type": "pause", "by": "chief"},
        {"id": "c2", "type": "resume", "by": "chief"},
        {"id": "c3", "type": "adjust_time", "color": "W", "ms": 60000, "periods": 3, "by": "chief"},
        {"id": "hall-4", "type": "confirm", "alert": "a12", "by": "arbiter-ana"},
        {"id": "hall-5", "type": "dismiss", "alert": "a3", "by": "arbiter-ana"},
        {"id": "c6", "type": "resign", "color": "B"},
        {"id": "c7", "type": "set_result", "result": "W+T"},
        {"id": "c8", "type": "resume_play", "color": "W"},
        {"id": "c9", "type": "republish", "from_seq": 17},
        {"id": "c10", "type": "new_game", "game": "r3-t07", "black": "Honinbo Shusaku",
         "white": "Gennan Inseki", "round": "3", "table": "7", "size": 19, "komi": 7.5,
         "handicap": 0, "time_control": "byoyomi 60m 5x60s"},
        {"id": "c11", "type": "reopen", "reason": "Black resigned by mistake", "by": "chief"},
        {"id": "c12", "type": "withdraw_warning", "color": "B", "reason": "wrong card",
         "by": "chief"},
        {"id": "c13", "type": "set_result", "result": "W+T", "reason": "time"},
    ]
    for c in cmds:
        put("command", c["type"] + "_" + c["id"], json.dumps(c))
        put("command_checked", c["type"] + "_" + c["id"], json.dumps(c))


# --- the console's command POST and the hall's config -------------------------------

def console_commands():
    board = {"tournament": "open-2026", "board": "hall1-07"}
    bodies = [
        {"type": "pause"},
        {"type": "adjust_time", "color": "B", "ms": 300000, "periods": 5},
        {"type": "confirm", "alert": "a12"},
        {"type": "set_result", "result": "B+R"},
        {"type": "reopen", "reason": "the wrong card was confirmed"},
        {"type": "withdraw_warning", "color": "W"},
        {"type": "new_game", "game": "r4-t07", "black": "Lee Changho", "white": "Cho Hunhyun",
         "black_rank": "9p", "white_rank": "9p", "event": "Open 2026", "round": "4",
         "table": "7", "size": 19, "komi": 7.5, "time_control": "byoyomi 60m 5x30s"},
    ]
    for body in bodies:
        put("console_command", body["type"], json.dumps(dict(board, **body)))


def hall_configs():
    shutil.copyfile(os.path.join(ROOT, "config", "hall.toml"),
                    os.path.join(CORPUS, "hall_config", "example_hall.toml"))
    put("hall_config", "minimal.toml", '[mqtt]\nprefix = "tengen"\n')
    put("hall_config", "delay_and_tournament.toml",
        '[hall]\nidentity = "hall-2"\n[broadcast]\ndelay_moves = 5\ndelay_minutes = 2\n'
        '[tournament]\nfile = "open.xml"\nboards = "hall1-{table:02}"\n')


# --- hall ---------------------------------------------------------------------------

def hall(events_file):
    root = "tengen/open-2026/hall1-07"
    if events_file:
        with open(events_file) as f:
            events = [line.strip() for line in f if line.strip()]
    else:
        events = [json.dumps({"seq": 1, "time": "2026-11-29T13:45:01.250Z", "board": "hall1-07",
                              "game": "r3-t07", "type": "move", "number": 1, "color": "B",
                              "point": "Q16", "captured": [], "clock": {"B": 1, "W": 2}})]
    state = {"game": "r3-t07", "round": "3", "size": 9, "board": "." * 81, "to_move": "B",
             "number": 0, "seq": 0, "alerts": []}
    status = {"state": "online", "version": "0.1.0"}
    msgs = [
        (root + "/status", json.dumps(status)),
        (root + "/state", json.dumps(state)),
        (root + "/alerts/active", "[]"),
        (root + "/sgf", "(;FF[4]GM[1]SZ[9];B[cc];W[gg])"),
    ]
    msgs += [(root + "/events", e) for e in events[:12]]
    alerts = [json.loads(e) for e in events if '"type":"alert"' in e]
    msgs.append((root + "/alerts/active", json.dumps(alerts)))
    msgs.append((root + "/cmd/reply", json.dumps({"id": "f-1", "ok": True})))
    put("hall", "board_session", b"\x00".join(t.encode() + b"\n" + p.encode() for t, p in msgs))
    put("hall", "status_only", root + "/status\n" + json.dumps(status))
    put("hall", "late_join", root + "/events\n" + (events[-1] if events else "{}"))


def main():
    if os.path.isdir(CORPUS):
        shutil.rmtree(CORPUS)
    for t in ["sgf", "script", "config", "hall_config"]:
        os.makedirs(os.path.join(CORPUS, t), exist_ok=True)
    copy_files("sgf", "rules/tests/fixtures/sgf/*.sgf")
    copy_files("sgf", "rules/tests/fixtures/sgf/selfplay/*.sgf")
    copy_files("sgf", "rules/tests/fixtures/gnugo/games/*/game_000[01].sgf")
    copy_files("sgf", "sim/tests/fixtures/*.sgf")
    copy_files("sgf", "config/games/*.sgf", max_bytes=16384)
    copy_files("script", "referee/tests/scenarios/*.txt")
    copy_files("config", "config/*.toml")
    serial()
    commands()
    console_commands()
    hall_configs()
    hall(sys.argv[1] if len(sys.argv) > 1 else None)


if __name__ == "__main__":
    main()
