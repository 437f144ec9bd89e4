#!/usr/bin/env python3
"""Reports for bench/latency.sh.

realtime WORK[,WORK...] STABLE_MS: joins tengen-mcu's move log (WORK/g*/mcu.jsonl: touch_us, stable_us)
with mosquitto_sub's arrivals (WORK/arrivals.txt: "<unix seconds.ns> <event JSON>") by
(board, move number) and prints p50/p99/max of arrival - stable and arrival - touch-down.

tradeoff INDEX: one line per `tengen sim` run ("stable_ms noise sgf events.jsonl"); prints
per stable time and noise the moves recorded against the game's and the alerts raised (every
alert is false: no violation is injected).
"""
import json
import re
import sys
from collections import defaultdict
from pathlib import Path


def pct(values, p):
    """Nearest-rank percentile of a non-empty list."""
    v = sorted(values)
    k = max(0, min(len(v) - 1, int(round(p / 100 * len(v) + 0.5)) - 1))
    return v[k]


def realtime(works, stable_ms):
    stamps = {}
    accepts = {}
    arrivals = {}
    duplicates = 0
    wrong = 0
    for work in works.split(","):
        work = Path(work)
        for log in sorted(work.glob("g*/mcu.jsonl")):
            board = "lat-" + log.parent.name
            for line in log.read_text().splitlines():
                r = json.loads(line)
                if r.get("event") == "move":
                    stamps[(str(work), board, r["number"])] = r
                elif r.get("event") == "accept":
                    accepts[(str(work), board, r["number"])] = r["sent_us"]
        seqs = defaultdict(set)
        for line in (work / "arrivals.txt").read_text().splitlines():
            at, _, payload = line.partition(" ")
            try:
                e = json.loads(payload)
            except json.JSONDecodeError:
                continue
            if e["seq"] in seqs[e["board"]]:
                duplicates += 1
                continue
            seqs[e["board"]].add(e["seq"])
            if e.get("type") != "move":
                continue
            key = (str(work), e["board"], e["number"])
            s = stamps.get(key)
            if s is None or s["point"] != e["point"] or s["color"] != e["color"]:
                wrong += 1
                continue
            arrivals[key] = int(round(float(at) * 1e6))
    keys = sorted(set(arrivals) & set(stamps))
    missing = len(set(stamps) - set(arrivals))
    if not keys:
        print("no move arrived")
        sys.exit(1)
    d_stable = [(arrivals[k] - stamps[k]["stable_us"]) / 1000 for k in keys]
    d_touch = [(arrivals[k] - stamps[k]["touch_us"]) / 1000 for k in keys]
    beyond = [d - stable_ms for d in d_stable]
    own = [(arrivals[k] - accepts[k]) / 1000 for k in keys if k in accepts]
    print(f"\nmoves: {len(keys)} measured, {missing} logged by the board but not received, "
          f"{wrong} received that the board did not play, {duplicates} duplicate seq")
    print(f"stable time: {stable_ms} ms\n")
    print("| from | moves | p50 ms | p99 ms | max ms | min ms |")
    print("|---|---:|---:|---:|---:|---:|")
    rows = [("touch-down", d_touch), ("stable on the sensors", d_stable),
            ("stable instant + stable_ms", beyond)]
    if own:
        rows.append(("completing scan sent (tengen's own part)", own))
    for name, v in rows:
        print(f"| {name} | {len(v)} | {pct(v, 50):.1f} | {pct(v, 99):.1f} | {max(v):.1f} "
              f"| {min(v):.1f} |")
    ok = pct(beyond, 99) < 10
    print(f"\ntarget p99 < 10 ms beyond the stable time: {'met' if ok else 'NOT met'} "
          f"({pct(beyond, 99):.1f} ms)")


def sgf_moves(path):
    text = Path(path).read_text()
    moves = re.findall(r"(?<![A-Z])[BW]\[([a-s]{2})?\]", text)
    return len([m for m in moves if m and m != "tt"])


def tradeoff(index):
    rows = defaultdict(lambda: defaultdict(int))
    for line in Path(index).read_text().splitlines():
        s, n, sgf, out = line.split()
        r = rows[(int(s), float(n))]
        r["games"] += 1
        r["expected"] += sgf_moves(sgf)
        try:
            events = [json.loads(x) for x in Path(out).read_text().splitlines()]
        except FileNotFoundError:
            r["failed"] += 1
            continue
        moves = sum(1 for e in events if e["type"] == "move")
        retracted = sum(1 for e in events if e["type"] == "move_retracted")
        alerts = [e for e in events if e["type"] == "alert"]
        r["recorded"] += moves - retracted
        r["alerts"] += len(alerts)
        r["games_with_alert"] += 1 if alerts else 0
        r["games_exact"] += 1 if (moves - retracted == sgf_moves(sgf) and not alerts) else 0
        for a in alerts:
            r["code:" + a["code"]] += 1
    print("\n| stable_ms | noise | games | moves (game) | moves recorded | false alerts "
          "| per 1,000 moves | games exact | alert codes |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for (s, n), r in sorted(rows.items()):
        codes = ", ".join(f"{k[5:]} {v}" for k, v in sorted(r.items()) if k.startswith("code:"))
        rate = 1000 * r["alerts"] / max(1, r["expected"])
        print(f"| {s} | {n} | {r['games']} | {r['expected']} | {r['recorded']} | {r['alerts']} "
              f"| {rate:.1f} | {r['games_exact']}/{r['games']} | {codes or '-'} |")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "realtime":
        realtime(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 3 and sys.argv[1] == "tradeoff":
        tradeoff(sys.argv[2])
    else:
        print(__doc__)
        sys.exit(2)
