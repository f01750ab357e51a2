#!/usr/bin/env python3
"""Every Mouchard module or C library a target imports is one of its declared dependencies.

Reads `swift package dump-package` (JSON on stdin) and the targets' Swift files; prints each
undeclared import as `file:line: TARGET imports MODULE without depending on it` and exits 1.
System modules (Foundation, Glibc, Testing, ...) are not package targets and are not checked.
"""
import json
import os
import re
import sys

package = json.load(sys.stdin)
targets = {}
for t in package["targets"]:
    deps = set()
    for d in t.get("dependencies", []):
        for kind in ("byName", "target", "product"):
            if kind in d:
                deps.add(d[kind][0])
    path = t.get("path") or ("Tests/" if t["type"] == "test" else "Sources/") + t["name"]
    targets[t["name"]] = (path, deps)

names = set(targets)
pattern = re.compile(r"^\s*(?:@\w+\s+)*import\s+(?:(?:struct|class|enum|func|var|let|typealias|protocol)\s+)?(\w+)")
problems = 0
for name, (path, deps) in sorted(targets.items()):
    if not os.path.isdir(path):
        continue
    for root, _, files in os.walk(path):
        for f in sorted(files):
            if not f.endswith(".swift"):
                continue
            file = os.path.join(root, f)
            with open(file, encoding="utf-8") as handle:
                in_string = False  # inside a multi-line string literal (code the module writes, not imports)
                for number, line in enumerate(handle, 1):
                    if line.count('"""') % 2 == 1:
                        in_string = not in_string
                        continue
                    m = None if in_string else pattern.match(line)
                    if m and m.group(1) in names and m.group(1) != name and m.group(1) not in deps:
                        print(f"{file}:{number}: {name} imports {m.group(1)} without depending on it")
                        problems += 1
sys.exit(1 if problems else 0)
