#!/usr/bin/env python3
"""Runs the command blocks of README.md and docs/*.md that are marked runnable, as written.

A block is marked by an HTML comment (invisible on the rendered page) on the line right before its fence:
    <!-- run -->            run it: a ```sh block with bash -e (each line must succeed), a ```python block with
                            the Python of $WGPRIM_PYTHON (skipped, visibly, when that is not set)
    <!-- run: REASON -->    not run here (e.g. `slow`, `gpu`, `network`): listed as skipped with its reason
    <!-- python: run by python/tests -->    the README's Python example, which python/tests/test_wgprim.py runs
                            (test_readme_example finds it by this comment): listed as skipped
Every ```sh and ```python block must carry one of these marks: an unmarked block fails the run, so a new block is
either run or says why not.
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

MARK = re.compile(r"<!-- (?:run(?::\s*(?P<why>[^>]*?))?|(?P<elsewhere>python: run by python/tests))\s*-->")
FENCE = re.compile(r"^```(?P<lang>sh|python)\n(?P<body>.*?)\n```", re.S | re.M)


def blocks(path):
    """(line, language, reason to skip or "", body, marked) of every ```sh / ```python block of the file."""
    text = path.read_text()
    for m in FENCE.finditer(text):
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        mark = MARK.fullmatch(before.strip())
        why = "" if not mark else "run by python/tests" if mark.group("elsewhere") else (mark.group("why") or "")
        line = text.count("\n", 0, m.start("body")) + 1
        yield line, m.group("lang"), why.strip(), m.group("body"), mark is not None


def main():
    build, source = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]).resolve()
    only = sys.argv[3] if len(sys.argv) > 3 else None
    files = [source / "README.md"] + sorted((source / "docs").glob("*.md"))
    ran = skipped = failed = unmarked = 0
    for f in files:
        for line, lang, why, body, marked in blocks(f):
            where = f"{f.relative_to(source)}:{line}"
            if not marked:
                unmarked += 1
                print(f"UNMARKED {where}: put <!-- run --> or <!-- run: REASON --> on the line before its fence")
                continue
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
    print(f"doc blocks: {ran} run, {failed} failed, {skipped} skipped, {unmarked} unmarked")
    if ran + skipped == 0:
        print("doc blocks: no block marked <!-- run --> was found")
        return 1
    return 1 if failed or unmarked else 0


if __name__ == "__main__":
    sys.exit(main())
