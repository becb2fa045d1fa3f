#!/usr/bin/env python3
"""Checks the relative links of the project's Markdown files: every linked file exists and every
#anchor names a heading of the file it points into (GitHub's anchors: lowercase, punctuation
dropped, spaces as hyphens, -1, -2 for repeats). Prints each broken link; exits 1 if any.
  python3 scripts/check_doc_links.py [ROOT]"""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def anchor(heading):
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def prose_lines(path):
    """(number, line) of the lines outside fenced code blocks."""
    fence = False
    for number, line in enumerate(path.read_text().split("\n"), 1):
        if line.startswith("```"):
            fence = not fence
        elif not fence:
            yield number, line


def headings(path, cache={}):
    if path not in cache:
        seen, found = {}, set()
        for _, line in prose_lines(path):
            m = re.match(r"^#{1,6} (.*)$", line)
            if m:
                a = anchor(m.group(1))
                found.add(a if a not in seen else f"{a}-{seen[a]}")
                seen[a] = seen.get(a, 0) + 1
        cache[path] = found
    return cache[path]


def markdown_files():
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "*.md"], capture_output=True, text=True)
    if listed.returncode == 0 and listed.stdout.strip():
        return [ROOT / p for p in listed.stdout.split()]
    return sorted(p for p in ROOT.rglob("*.md")
                  if not any(part.startswith("build") or part in ("node_modules", ".git") for part in p.relative_to(ROOT).parts))


broken = checked = 0
for md in markdown_files():
    for number, line in prose_lines(md):
        for target in LINK.findall(line):
            if re.match(r"^[a-z]+:", target):  # https:, mailto:
                continue
            checked += 1
            file_part, _, fragment = target.partition("#")
            path = (md.parent / file_part).resolve() if file_part else md
            problem = None
            if not path.exists():
                problem = "no such file"
            elif fragment and path.suffix == ".md" and fragment not in headings(path):
                problem = "no such heading"
            if problem:
                broken += 1
                print(f"{md.relative_to(ROOT)}:{number}: {target}: {problem}")
print(f"doc links: {checked} checked, {broken} broken")
sys.exit(1 if broken else 0)
