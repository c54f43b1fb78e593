#!/usr/bin/env python3
"""The import-circle check: no two files of one layer's module tree may import each other,
directly or through others (each circle is broken by moving the shared piece down).

A file's imports are the `super::`, `self::` and `crate::` paths in its code before the first
`#[cfg(test)]` (tests may assemble anything, as in .ci/layering.sh), resolved to the file that
defines the module. A file and the modules above it (its `mod.rs` chain) are one module tree,
not a circle: a parent declares and calls its children, which use the parent's types.
Then the same one level up, in every folder of those trees: a folder's files and sub-folders
(each sub-folder taken whole, with everything under it) may not import each other in a circle
either, so `service/source.rs` importing from `service/routes/` while a route imports
`service::source` is a circle between `source` and `routes`, although no two files
import each other. The folder's own `mod.rs` is their parent, not one of them.
Prints each circle and exits 1 when there is one."""
import os
import re
import sys

ROOTS = sys.argv[1:] or ["search", "catalogue", "service"]
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def module_of(path):
    parts = path[len("src/"):-len(".rs")].split("/")
    if parts[-1] == "mod":
        parts.pop()
    return tuple(parts)


files = {}
for root in ROOTS:
    for directory, _, names in os.walk(os.path.join("src", root)):
        for name in names:
            if name.endswith(".rs"):
                path = os.path.join(directory, name)
                files[module_of(path)] = path
    if os.path.exists(f"src/{root}.rs"):
        files[(root,)] = f"src/{root}.rs"

PATH = re.compile(r"\b((?:crate|super|self)(?:::(?:super|[A-Za-z_][A-Za-z0-9_]*|\{))+)")


def resolve(module, segments):
    """The file module a path starting at `module` names: its longest known prefix."""
    here = list(module)
    if segments[0] == "crate":
        here = []
        segments = segments[1:]
    while segments and segments[0] in ("super", "self"):
        if segments[0] == "super":
            here = here[:-1]
        segments = segments[1:]
    target = here + [s for s in segments if s != "{"]
    for end in range(len(target), 0, -1):
        if tuple(target[:end]) in files:
            return tuple(target[:end])
    return None


edges = {module: set() for module in files}
for module, path in files.items():
    with open(path, encoding="utf-8") as source:
        code = source.read().split("#[cfg(test)]")[0]
    code = re.sub(r"//[^\n]*", "", code)
    # `use super::{a, b::C}`: each item of a brace list is a path of its own.
    for match in re.finditer(r"\b((?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^{}]*)\}", code):
        for item in match.group(2).split(","):
            item = item.strip().split(" as ")[0]
            if item and item != "self" and item != "*":
                segments = match.group(1).split("::") + item.split("::")
                target = resolve(module, segments)
                if target:
                    edges[module].add(target)
    for match in PATH.finditer(code):
        target = resolve(module, match.group(1).split("::"))
        if target:
            edges[module].add(target)


def related(a, b):
    """Whether one module is the other's ancestor (one module tree)."""
    shorter, longer = sorted((a, b), key=len)
    return longer[: len(shorter)] == shorter


graph = {a: {b for b in targets if not related(a, b)} for a, targets in edges.items()}

def circles_of(graph):
    """Strongly connected components of more than one node (Tarjan), each sorted."""
    index, low, stack, on_stack, components = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


sys.setrecursionlimit(10000)
status = 0
for component in circles_of(graph):
    names = ["/".join(m) for m in component]
    print("circles: import circle between " + ", ".join(names))
    status = 1

# One level up: in each folder, its files and sub-folders (each whole) as the nodes.
folders = {module[:end] for module in files for end in range(1, len(module))}
for folder in sorted(folders):
    depth = len(folder)
    children = {m[depth] for m in files if len(m) > depth and m[:depth] == folder}
    folder_graph = {child: set() for child in children}
    for source, targets in edges.items():
        if len(source) <= depth or source[:depth] != folder:
            continue
        for target in targets:
            if len(target) > depth and target[:depth] == folder and target[depth] != source[depth]:
                folder_graph[source[depth]].add(target[depth])
    for component in circles_of(folder_graph):
        print(
            "circles: in src/" + "/".join(folder) + ", an import circle between "
            + ", ".join(component)
        )
        status = 1
sys.exit(status)
