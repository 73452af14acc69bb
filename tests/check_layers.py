#!/usr/bin/env python3
"""Checks that every #include "catenary/..." in include/, src/ and kernels/ points down the layer
order of docs/architecture.md (its line "Bottom to top: a; b, c; d (with kernels/); ..."): a file
includes headers of its own directory or of a lower layer, never of a peer or a higher one.
Usage: check_layers.py SOURCE_DIR. Exit 0 when clean, 1 naming each include that breaks it."""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
text = (root / "docs" / "architecture.md").read_text()
found = re.search(r"^Bottom to top: (.*)\.$", text, re.M)
if not found:
    sys.exit("docs/architecture.md has no line 'Bottom to top: ...'")
level = {}  # directory -> (layer index, layer name)
for index, group in enumerate(found.group(1).split(";")):
    for member in group.split(","):
        name = member.strip()
        with_dir = re.match(r"([a-z_]+) \(with ([a-z_]+)/\)$", name)
        if with_dir:
            name = with_dir.group(1)
            level[with_dir.group(2)] = (index, name)
        level[name] = (index, name)


def layer_of(path):
    parts = path.relative_to(root).parts
    directory = parts[0] if parts[0] == "kernels" else parts[2] if parts[0] == "include" else parts[1]
    if directory not in level:
        sys.exit(f"{path}: directory '{directory}' is in no layer of docs/architecture.md")
    return level[directory]


broken = []
files = [p for top in ("include/catenary", "src", "kernels") for p in (root / top).rglob("*")
         if p.suffix in (".hpp", ".cpp", ".cuh", ".cu")]
for path in files:
    own = layer_of(path)
    for number, line in enumerate(path.read_text().splitlines(), 1):
        include = re.match(r'\s*#include "catenary/([a-z_]+)/', line)
        if not include:
            continue
        target = level.get(include.group(1))
        if target is None:
            broken.append(f"{path.relative_to(root)}:{number}: '{include.group(1)}' is in no layer")
        elif target[0] > own[0] or (target[0] == own[0] and target[1] != own[1]):
            broken.append(f"{path.relative_to(root)}:{number}: {own[1]} includes {target[1]}: {line.strip()}")
print("\n".join(broken) if broken else f"include layers: {len(files)} files follow docs/architecture.md")
sys.exit(1 if broken else 0)
