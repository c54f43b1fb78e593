#!/usr/bin/env python3
"""The pages a newcomer reads, checked: README.md, ARCHITECTURE.md, CONTRIBUTING.md, docs/*.md
and packaging/README.md.

- Every relative link and image ([text](path), ![alt](path), with an optional #anchor) names a
  file or folder that exists, and an #anchor names a heading of the page it points into (as
  GitHub makes anchors: lower case, punctuation dropped, spaces to hyphens).
- The README is at most 300 lines and starts with two commands in one code block: one runs the
  dashboard (`cargo run ...`), one runs the tests (`cargo test ...`); .ci/run runs that test
  command (with `--locked`).
- No page names an issue number, a commit id or a path of the machine it was written on.

Fails (exit 1) with one line per finding. Standard-library Python only.
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = (
    [ROOT / "README.md", ROOT / "ARCHITECTURE.md", ROOT / "CONTRIBUTING.md"]
    + sorted((ROOT / "docs").glob("*.md"))
    + [ROOT / "packaging" / "README.md"]
)
README_MAX_LINES = 300

# [text](target) and ![alt](target); a target ends at the first space or closing parenthesis.
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")
# A commit id: 7 to 40 lower-case hex digits with both a digit and a letter, in backticks or
# after the word "commit". (16-digit page checksums printed by the search bench are named as
# checksums and left alone.)
COMMIT = re.compile(r"(?:`|\bcommits?\s+)([0-9a-f]{7,15}|[0-9a-f]{17,40})\b")
ISSUE = re.compile(r"\b[Ii]ssues?\s+#?\d+|(?<![\w&/])#\d{1,5}\b")
MACHINE_PATH = re.compile(r"(?<![\w.])(/work/|/root/|/home/\w+/|/tmp/[\w.-]+/)")


def is_commit_like(word):
    """Hex with both a digit and a letter: `a7f6a1a`, not `1000000` nor `deadbeef`-free words."""
    return any(c.isdigit() for c in word) and any(c.isalpha() for c in word)


def prose_lines(text):
    """(line number, line) outside fenced code blocks."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def anchor_of(heading):
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    found = set()
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        match = re.match(r"^#{1,6}\s+(.*)$", line)
        if match:
            found.add(anchor_of(match.group(1)))
    return found


def main():
    problems = []
    links_checked = 0
    for page in PAGES:
        if not page.exists():
            problems.append(f"{page.relative_to(ROOT)}: missing")
            continue
        name = page.relative_to(ROOT)
        text = page.read_text(encoding="utf-8")
        for number, line in prose_lines(text):
            for match in LINK.finditer(line):
                target = match.group(1)
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                    continue  # http:, https:, mailto:
                links_checked += 1
                path_part, _, anchor = target.partition("#")
                resolved = (page.parent / path_part).resolve() if path_part else page
                if not resolved.exists():
                    problems.append(f"{name}:{number}: {target}: no such file")
                    continue
                if anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
                    problems.append(f"{name}:{number}: {target}: no heading #{anchor} there")
        # Fenced blocks too: a command block must not cite a commit or a machine's path either.
        for number, line in enumerate(text.splitlines(), 1):
            for pattern, what in (
                (COMMIT, "a commit id"),
                (ISSUE, "an issue number"),
                (MACHINE_PATH, "a machine path"),
            ):
                for match in pattern.finditer(line):
                    if pattern is COMMIT and not is_commit_like(match.group(1)):
                        continue
                    problems.append(f"{name}:{number}: {what}: {match.group(0)!r}")

    readme = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    if len(readme) > README_MAX_LINES:
        problems.append(f"README.md: {len(readme)} lines, more than {README_MAX_LINES}")
    first_block = []
    inside = False
    for line in readme:
        if FENCE.match(line):
            if inside:
                break
            inside = True
            continue
        if inside:
            first_block.append(line.split("#")[0].strip())
    commands = [line for line in first_block if line]
    if len(commands) != 2 or not commands[0].startswith("cargo run") or not commands[1].startswith(
        "cargo test"
    ):
        problems.append(
            f"README.md: the first code block must be `cargo run ...` then `cargo test ...`, is {commands}"
        )
    else:
        ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
        wanted = commands[1].replace("cargo test", "cargo test --locked", 1)
        if not re.search(r"^\s*" + re.escape(wanted) + r"\s*$", ci, re.MULTILINE):
            problems.append(f".ci/run does not run the README's test command as `{wanted}`")

    for problem in problems:
        print(f"docs: {problem}")
    if problems:
        return 1
    print(
        f"docs: {len(PAGES)} pages, {links_checked} relative links resolve; README {len(readme)} "
        f"lines, its test command is CI's; no issue numbers, commit ids or machine paths"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
