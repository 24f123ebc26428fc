#!/usr/bin/env python3
"""Runs the command blocks of README.md and docs/*.md that are marked runnable, as written.

A block is marked by an HTML comment (invisible on the rendered page) on the line right before its fence:
    <!-- run -->            run it: a ```sh block with bash -e (each line must succeed), a ```python block with
                            the Python of $WGPRIM_PYTHON (skipped, visibly, when that is not set)
    <!-- run: REASON -->    not run here (e.g. `slow`, `gpu`, `network`): listed as skipped with its reason
Blocks run in a fresh temporary folder in which `build` is the build tree, so `build/wgprim` works as written and
the files a block writes (x.npy, x.csv, ...) land there. The C++ blocks are compiled elsewhere
(cmake/readme_snippets.cmake).

    tests/doc_blocks.py BUILD_DIR SOURCE_DIR [sh|python]     (the last argument: only blocks of that language)
"""
import os
import pathlib
import re
import subprocess
import sys
import tempfile

MARK = re.compile(r"<!-- run(?::\s*(?P<why>[^>]*?))?\s*-->\s*\n```(?P<lang>sh|python)\n(?P<body>.*?)\n```", re.S)


def blocks(path):
    text = path.read_text()
    for m in MARK.finditer(text):
        line = text.count("\n", 0, m.start("body")) + 1
        yield line, m.group("lang"), (m.group("why") or "").strip(), m.group("body")


def main():
    build, source = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]).resolve()
    only = sys.argv[3] if len(sys.argv) > 3 else None
    files = [source / "README.md"] + sorted((source / "docs").glob("*.md"))
    ran = skipped = failed = 0
    for f in files:
        for line, lang, why, body in blocks(f):
            where = f"{f.relative_to(source)}:{line}"
            if only and lang != only:
                continue
            python = os.environ.get("WGPRIM_PYTHON")
            if why or (lang == "python" and not python):
                print(f"SKIP {where} ({why or 'python: set WGPRIM_PYTHON to a Python with wgprim installed'})")
                skipped += 1
                continue
            with tempfile.TemporaryDirectory(prefix="wgprim-doc-") as tmp:
                os.symlink(build, pathlib.Path(tmp) / "build")
                cmd = ["bash", "-e", "-o", "pipefail", "-c", body] if lang == "sh" else [python, "-c", body]
                r = subprocess.run(cmd, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                   timeout=600)
            ran += 1
            if r.returncode == 0:
                print(f"ok   {where}")
            else:
                failed += 1
                print(f"FAIL {where} (exit {r.returncode}):\n{body}\n--- output:\n{r.stdout[-4000:]}")
    print(f"doc blocks: {ran} run, {failed} failed, {skipped} skipped")
    if ran + skipped == 0:
        print("doc blocks: no block marked <!-- run --> was found")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
