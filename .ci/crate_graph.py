#!/usr/bin/env python3
"""Checks the crate graph written in docs/development.md ("The crate graph") against
`cargo metadata`: every normal (non-dev, non-build) dependency of one workspace crate on
another must be drawn, and every arrow drawn must be a real dependency.

The graph is the first ``` block after "The crate graph": lines of `a -> b -> c` (a chain)
or `a -> b, c` (several), with anything in parentheses ignored. Crates are named by their
directory (`rules`, `firmware/host`). A crate outside the workspace (`firmware/rp2040`,
its own workspace) is not checked. Exit 1 with the differences, 0 when they agree.
"""
import json, os, re, subprocess, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
meta = json.loads(subprocess.check_output(
    ["cargo", "metadata", "--format-version", "1", "--no-deps", "--offline"], cwd=root))
by_name = {}
for p in meta["packages"]:
    d = os.path.relpath(os.path.dirname(p["manifest_path"]), root)
    by_name[p["name"]] = d
real = set()
for p in meta["packages"]:
    a = by_name[p["name"]]
    for dep in p["dependencies"]:
        if dep["name"] in by_name and dep.get("kind") is None:
            real.add((a, by_name[dep["name"]]))

text = open(os.path.join(root, "docs", "development.md"), encoding="utf-8").read()
m = re.search(r"The crate graph.*?\n```\n(.*?)```", text, re.S)
if not m:
    sys.exit("docs/development.md: no ``` block after \"The crate graph\"")
drawn = set()
for line in m.group(1).splitlines():
    line = re.sub(r"\(.*?\)", "", line).strip()
    if not line:
        continue
    parts = [p.strip() for p in line.split("->")]
    for left, right in zip(parts, parts[1:]):
        sources = [s.strip() for s in left.split(",")]
        for target in (t.strip() for t in right.split(",")):
            drawn.add((sources[-1], target))
ok = True
for a, b in sorted(real - drawn):
    print(f"docs/development.md: the crate graph lacks {a} -> {b} (Cargo.toml of {a} has it)")
    ok = False
for a, b in sorted(d for d in drawn - real if d[0] in by_name.values()):
    print(f"docs/development.md: the crate graph draws {a} -> {b}, which {a}'s Cargo.toml does not have")
    ok = False
if ok:
    print(f"crate graph: {len(real)} dependencies, as drawn")
sys.exit(0 if ok else 1)
