#!/usr/bin/env python3
"""The import graph of the workspace, checked: `make arch` (part of `make lint`).

1. Files: within each crate, a file imports another when it names one of its items through a
   `crate::`, `super::` or `self::` path, or through a child module it declares (`mod x;` then
   `x::f`): the arrow goes to the file of the deepest module the path names (a re-export counts
   as the file that re-exports it, whose own `pub use` is its arrow on). A module's use of the
   modules that enclose it (its parent, the crate root) is not an arrow: it is part of them. A circle is a set of two or more files that import each other in a loop (a strongly
   connected component); there must be none. Test modules inside a file count as the file.
2. Crates: the workspace's crates depend on each other only as
   proto <- worker/server <- coordinator -> results, with worker/papers (the samplers, which
   depend on no other crate of the workspace) below worker/server and results, and proto
   depending on no crate of the workspace.

Exit 1 with the circles or the forbidden arrows listed; 0 otherwise. Python 3 standard library
only, so CI needs nothing beyond cargo and python3.
"""

import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# crate -> the workspace crates it may depend on (normal and build dependencies).
ALLOWED = {
    "causeway-proto": set(),
    "causeway-papers": set(),
    "causeway-worker": {"causeway-proto", "causeway-papers"},
    "causeway-results": {"causeway-papers"},
    "causeway-coordinator": {
        "causeway-proto",
        "causeway-papers",
        "causeway-worker",
        "causeway-results",
    },
}

# A path to a name that a module re-exports stops at that module (as `farm-studio look` reads it).
FOLLOW_REEXPORTS = False

USE_RE = re.compile(r"\buse\s+([^;]*);", re.S)
PATH_RE = re.compile(r"\b((?:crate|super|self)(?:::\w+)+)")
MOD_DECL_RE = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", re.M)


def strip(text):
    """Source without comments and string or char literals (so a doc example names nothing):
    a small scanner for `//` and nested `/* */` comments, "…" and b"…" strings with escapes,
    raw strings r#"…"#, and char literals (not lifetimes)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
            out.append(" ")
        elif c == "r" and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")) and re.match(r'r#*"', text[i:]):
            hashes = re.match(r"r(#*)", text[i:]).group(1)
            end = text.find('"' + hashes, i + len(hashes) + 2)
            i = n if end < 0 else end + 1 + len(hashes)
            out.append('""')
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            out.append('""')
        elif c == "'" and re.match(r"'(\\.[^']*|[^'\\])'", text[i:]):
            m = re.match(r"'(\\.[^']*|[^'\\])'", text[i:])
            i += len(m.group(0))
            out.append("''")
        else:
            out.append(c)
            i += 1
    return "".join(out)


def expand_use(tree):
    """`a::{b, c::{d, e}}` -> ["a::b", "a::c::d", "a::c::e"] (whitespace removed)."""
    tree = re.sub(r"\s+as\s+\w+", "", tree)
    tree = re.sub(r"\s+", "", tree)
    out = []

    def rec(prefix, s):
        depth, start, parts = 0, 0, []
        for i, ch in enumerate(s):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(s[start:i])
                start = i + 1
        parts.append(s[start:])
        for p in parts:
            if not p:
                continue
            j = p.find("{")
            if j >= 0 and p.endswith("}"):
                rec(prefix + p[:j], p[j + 1 : -1])
            else:
                out.append(prefix + p)

    rec("", tree)
    return out


class Crate:
    def __init__(self, name, src):
        self.name, self.src = name, src
        self.files = {}  # module path tuple -> file
        for dp, _, fns in os.walk(src):
            for f in fns:
                if f.endswith(".rs"):
                    path = os.path.join(dp, f)
                    rel = os.path.relpath(path, src)[:-3].split(os.sep)
                    if rel[-1] in ("mod", "lib", "main"):
                        rel = rel[:-1]
                    if tuple(rel) in self.files and rel == []:
                        continue  # lib.rs beside main.rs: the library is the root
                    self.files[tuple(rel)] = path
        self.module_of = {v: k for k, v in self.files.items()}
        self.text = {f: strip(open(f, encoding="utf-8").read()) for f in self.files.values()}
        self.reexports = {f: self._reexports(f) for f in self.files.values()}

    def _reexports(self, f):
        out = {}
        for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]*);", self.text[f]):
            for p in expand_use(m.group(1)):
                segs = p.split("::")
                if segs[-1] not in ("*", "self"):
                    out[segs[-1]] = segs
        return out

    def inline_spans(self, f):
        """(start, end) of every inline module (`mod tests { ... }`) of file f."""
        text, spans = self.text[f], []
        for m in re.finditer(r"\bmod\s+\w+\s*\{", text):
            depth, i = 0, m.end() - 1
            while i < len(text):
                if text[i] == "{":
                    depth += 1
                elif text[i] == "}":
                    depth -= 1
                    if depth == 0:
                        break
                i += 1
            spans.append((m.start(), i))
        return spans

    def absolute(self, f, segs, inline=0):
        """Module path segments of `segs` (crate::, super::, self:: or a child) from file f, from
        a place `inline` inline modules deep."""
        here = list(self.module_of[f]) + ["<inline>"] * inline
        if segs[0] == "crate":
            return segs[1:]
        while segs and segs[0] in ("self", "super"):
            if segs[0] == "super":
                if not here:
                    return None
                here = here[:-1]
            segs = segs[1:]
        return here + segs

    def resolve(self, f, segs, depth=0):
        """The file defining the item that absolute path `segs` names (re-exports followed)."""
        for n in range(len(segs), -1, -1):
            if tuple(segs[:n]) in self.files:
                target = self.files[tuple(segs[:n])]
                rest = segs[n:]
                if FOLLOW_REEXPORTS and rest and depth < 8 and rest[0] in self.reexports[target]:
                    via = self.reexports[target][rest[0]]
                    if via[0] in ("crate", "super", "self"):
                        absolute = self.absolute(target, via)
                    else:
                        absolute = list(self.module_of[target]) + via
                    if absolute is not None and absolute + rest[1:] != segs:
                        found = self.resolve(target, absolute + rest[1:], depth + 1)
                        if found:
                            return found
                return target
        return None

    def encloses(self, parent, child):
        """Whether file `parent` is a module that contains file `child`'s module (a child using
        its enclosing module's items is not an arrow: the child is part of it)."""
        a, b = self.module_of[parent], self.module_of[child]
        return len(a) < len(b) and b[: len(a)] == a

    def edges(self):
        out = {f: set() for f in self.files.values()}
        for f, text in self.text.items():
            spans = self.inline_spans(f)

            def depth(pos):
                return sum(1 for a, b in spans if a <= pos <= b)

            paths = []
            for m in USE_RE.finditer(text):
                paths += [(p, depth(m.start())) for p in expand_use(m.group(1))]
            # paths in code (a `use` statement's own paths were expanded above)
            code = USE_RE.sub(lambda m: " " * len(m.group(0)), text)
            paths += [(m.group(1), depth(m.start())) for m in PATH_RE.finditer(code)]
            here = list(self.module_of[f])
            for child in MOD_DECL_RE.findall(text):
                for m in re.finditer(r"\b%s::(\w+)" % child, text):
                    paths.append(("self::%s::%s" % (child, m.group(1)), 0))
            for p, inline in paths:
                segs = [s for s in p.split("::") if s]
                if not segs:
                    continue
                if segs[0] not in ("crate", "super", "self"):
                    if tuple(here + segs[:1]) in self.files:
                        segs = ["self"] + segs
                    else:
                        continue
                absolute = self.absolute(f, segs, inline)
                if absolute is None or "<inline>" in absolute:
                    continue
                target = self.resolve(f, absolute)
                if target and target != f and not self.encloses(target, f):
                    out[f].add(target)
        return out


def circles(edges):
    """Strongly connected components of two or more files (Tarjan, iterative)."""
    index, low, on, stack, found, counter = {}, {}, set(), [], [], [0]
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
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
    return found


def main():
    meta = json.loads(
        subprocess.check_output(
            ["cargo", "metadata", "--format-version", "1", "--no-deps", "--locked"], cwd=ROOT
        )
    )
    failures = []
    names = {p["name"] for p in meta["packages"]}
    for pkg in meta["packages"]:
        name = pkg["name"]
        deps = {
            d["name"]
            for d in pkg["dependencies"]
            if d["name"] in names and d.get("kind") in (None, "build") and d["name"] != name
        }
        if name in ALLOWED:
            for d in sorted(deps - ALLOWED[name]):
                failures.append("crate arrow %s -> %s is not allowed" % (name, d))
        src = os.path.join(os.path.dirname(pkg["manifest_path"]), "src")
        if not os.path.isdir(src) or name not in ALLOWED:
            continue
        crate = Crate(name, src)
        edges = crate.edges()
        for comp in circles(edges):
            rel = [os.path.relpath(f, ROOT) for f in comp]
            lines = ["circle of %d files in %s:" % (len(comp), name)]
            for f in comp:
                for g in sorted(edges[f] & set(comp)):
                    lines.append("  %s -> %s" % (os.path.relpath(f, ROOT), os.path.relpath(g, ROOT)))
            failures.append("\n".join(lines) if len(rel) < 12 else "\n".join(lines[:30] + ["  ..."]))
    if failures:
        print("\n".join(failures))
        print("import graph: %d problem(s)" % len(failures))
        return 1
    print("import graph: no circle; crate arrows as allowed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
