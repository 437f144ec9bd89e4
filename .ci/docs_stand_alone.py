#!/usr/bin/env python3
"""Checks what the repository says to a newcomer:

- no tracked file names `SPEC.md`, `RULES.md` or `../shared`: files that are not in the
  repository (a user who clones it must find everything in `docs/`);
- the README stays a front door: at most 1,500 words and no line over 200 characters.

Exit 1 with one line per problem.
"""
import os, subprocess, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
me = os.path.relpath(os.path.abspath(__file__), root)
problems = []
names = ["SPEC" + ".md", "RULES" + ".md", "../" + "shared"]
files = subprocess.check_output(["git", "ls-files"], cwd=root, text=True).split("\n")
for f in filter(None, files):
    if f == me or not os.path.isfile(os.path.join(root, f)):
        continue
    try:
        text = open(os.path.join(root, f), encoding="utf-8").read()
    except UnicodeDecodeError:
        continue
    for n, line in enumerate(text.splitlines(), 1):
        for name in names:
            if name in line:
                problems.append(f"{f}:{n}: names {name}, which is not in the repository")
readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
words = len(readme.split())
if words > 1500:
    problems.append(f"README.md: {words} words (at most 1,500: the detail goes to docs/)")
for n, line in enumerate(readme.splitlines(), 1):
    if len(line) > 200:
        problems.append(f"README.md:{n}: {len(line)} characters (at most 200)")
for p in problems:
    print(p)
if not problems:
    print(f"docs stand alone; README.md: {words} words")
sys.exit(1 if problems else 0)
