#!/usr/bin/env python3
"""No module cycles inside any crate of the workspace (Cargo already forbids them between
crates), neither between modules nor between the top-level modules they belong to. A module's edges are the modules it names through `crate::`, `super::` and
`self::` paths, in `use` trees (groups expanded) and in code, outside `#[cfg(test)]`
blocks and comments; a module and its own submodules do not count as a cycle.

Usage: .ci/module_cycles.py [CRATE_DIR ...]  (default: every workspace member)
Prints each crate's verdict; exits 1 when any crate has a cycle, naming its modules.
"""

import os
import re
import sys


def workspace_members(root):
    text = open(os.path.join(root, "Cargo.toml"), encoding="utf-8").read()
    m = re.search(r"members\s*=\s*\[([^\]]*)\]", text)
    return re.findall(r'"([^"]+)"', m.group(1)) if m else []


def modules(src):
    """Module path (`a::b`, `crate` for the root) -> source text."""
    mods = {}
    for root, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            path = os.path.join(root, f)
            parts = os.path.relpath(path, src)[:-3].split(os.sep)
            if parts[-1] in ("mod", "lib", "main"):
                parts = parts[:-1]
            if parts[:1] == ["bin"]:
                continue  # binaries are their own crate roots
            mods["::".join(parts) or "crate"] = open(path, encoding="utf-8").read()
    return mods


def without_tests_and_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = "\n".join(line.split("//", 1)[0] for line in text.split("\n"))
    out, i = [], 0
    for m in re.finditer(r"#\[cfg\(test\)\]", text):
        if m.start() < i:
            continue
        out.append(text[i : m.start()])
        # Skip the item that follows: up to its matching brace, or its semicolon.
        j = m.end()
        while j < len(text) and text[j] not in "{;":
            j += 1
        if j < len(text) and text[j] == "{":
            depth = 0
            while j < len(text):
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                j += 1
                if depth == 0:
                    break
        else:
            j += 1
        i = j
    out.append(text[i:])
    return "".join(out)


def expand_use_tree(tree):
    """`crate::{a::B, c::{d, e}}` -> [`crate::a::B`, `crate::c::d`, `crate::c::e`]."""
    tree = re.sub(r"\s+", "", tree)

    def expand(s):
        depth, brace = 0, None
        for k, ch in enumerate(s):
            if ch == "{" and depth == 0:
                brace = k
                break
        if brace is None:
            return [s]
        if "}" not in s:
            return [s]
        prefix, inner = s[:brace], s[brace + 1 : s.rindex("}")]
        items, depth, start = [], 0, 0
        for k, ch in enumerate(inner):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                items.append(inner[start:k])
                start = k + 1
        items.append(inner[start:])
        return [p for item in items if item for p in expand(prefix + item)]

    return expand(tree)


def referenced_paths(text):
    paths = []
    use_item = r"^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+([\w:{},*\s]+);"
    for m in re.finditer(use_item, text, flags=re.M):
        paths += expand_use_tree(m.group(1))
    paths += re.findall(r"(?<![\w:])((?:crate|super|self)(?:::\w+)+)", text)
    return [p for p in paths if p.split("::")[0] in ("crate", "super", "self")]


def edges(mods):
    graph = {m: set() for m in mods}
    for m, text in mods.items():
        here = [] if m == "crate" else m.split("::")
        for path in referenced_paths(without_tests_and_comments(text)):
            segs = path.split("::")
            if segs[0] == "crate":
                cur = []
            elif segs[0] == "super":
                cur = here[:-1]
            else:
                cur = list(here)
            rest = segs[1:]
            while rest and rest[0] == "super":
                cur, rest = cur[:-1], rest[1:]
            target = None
            for k in range(len(rest), 0, -1):
                cand = "::".join(cur + rest[:k])
                if cand in mods:
                    target = cand
                    break
            if target is None or target == m:
                continue
            if m.startswith(target + "::") or target.startswith(m + "::"):
                continue
            graph[m].add(target)
    return graph


def top_level(graph):
    """The same graph between the crate's top-level modules (`service`, `mqtt`...)."""
    top = {}
    for a, targets in graph.items():
        ta = a.split("::")[0]
        top.setdefault(ta, set())
        for b in targets:
            tb = b.split("::")[0]
            if ta != tb and ta != "crate" and tb != "crate":
                top[ta].add(tb)
    return top


def strongly_connected(graph):
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in list(graph):
        if v not in index:
            visit(v)
    return found


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    crates = sys.argv[1:] or workspace_members(root)
    bad = False
    for crate in crates:
        src = os.path.join(root, crate, "src")
        graph = edges(modules(src))
        for kind, g in (("module", graph), ("top-level module", top_level(graph))):
            for comp in strongly_connected(g):
                bad = True
                print(f"{crate}: {kind} cycle:")
                for a in comp:
                    print(f"    {a} -> {', '.join(sorted(b for b in g[a] if b in comp))}")
        print(f"{crate}: {len(graph)} modules checked")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
