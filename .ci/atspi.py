#!/usr/bin/python3
"""Reads the accessibility tree Solescope publishes on the AT-SPI bus, as a screen reader would.

    atspi.py tree PID                 # the window of the app with process id PID, and a count
                                      # of its named descendants
    atspi.py centre PID ROLE TEXT     # screen centre "x y" of the first showing node of ROLE
                                      # whose name or description is TEXT

Used by .ci/window-check.sh, which starts the accessibility bus, turns it on and runs the app
on it. Exits 1 with a message when the app, its window or the node is not in the tree. The walk
is bounded (MAX_NODES), so a huge or cyclic tree cannot hang it.
"""

import sys

import pyatspi

MAX_NODES = 20000


def find_app(pid):
    """The application the process `pid` registered on the bus."""
    desktop = pyatspi.Registry.getDesktop(0)
    apps = [desktop.getChildAtIndex(i) for i in range(desktop.childCount)]
    seen = []
    for app in apps:
        if app is None:
            continue
        try:
            app_pid = app.get_process_id()
        except Exception as err:  # an app that went away while listed
            seen.append(f"{app.name} ({err})")
            continue
        if app_pid == pid:
            return app
        seen.append(f"{app.name} (pid {app_pid})")
    sys.exit(f"no application of process {pid} on the AT-SPI bus (there are: {seen})")


def walk(node):
    """Every node under `node`, depth first, at most MAX_NODES."""
    stack = [node]
    seen = 0
    while stack and seen < MAX_NODES:
        current = stack.pop()
        seen += 1
        yield current
        children = [current.getChildAtIndex(i) for i in range(current.childCount)]
        stack.extend(child for child in reversed(children) if child is not None)


def is_showing(node):
    return node.getState().contains(pyatspi.STATE_SHOWING)


def tree(pid):
    app = find_app(pid)
    windows = [app.getChildAtIndex(i) for i in range(app.childCount)]
    windows = [w for w in windows if w is not None]
    if not windows:
        sys.exit(f"{app.name!r} (process {pid}) publishes no window")
    window = windows[0]
    roles = {}
    named = 0
    examples = []
    for node in walk(window):
        if node is window:
            continue
        role = node.getRoleName()
        roles[role] = roles.get(role, 0) + 1
        if node.name.strip():
            named += 1
            if role in ("push button", "toggle button", "link", "entry", "page tab") and len(
                examples
            ) < 12:
                examples.append(f"{role} {node.name!r}")
    print(
        f"application {app.name!r}, {window.getRoleName()} {window.name!r}: "
        f"{named} named descendants"
    )
    print("roles: " + ", ".join(f"{role} {count}" for role, count in sorted(roles.items())))
    print("some controls: " + "; ".join(examples))


def centre(pid, role, text):
    app = find_app(pid)
    for node in walk(app):
        if node.getRoleName() != role or text not in (node.name, node.description):
            continue
        if not is_showing(node):
            continue
        extents = node.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        if extents.width <= 0 or extents.height <= 0:
            continue
        print(extents.x + extents.width // 2, extents.y + extents.height // 2)
        return
    sys.exit(f"no showing {role} named or described {text!r} in {app.name!r}")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "tree":
        tree(int(sys.argv[2]))
    elif len(sys.argv) == 5 and sys.argv[1] == "centre":
        centre(int(sys.argv[2]), sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
