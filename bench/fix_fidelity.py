"""How many bytes each way of fixing changes outside the fix, per fixer, over real manifests.

Two ways are compared for every finding kueuelint can fix:

- kueuelint's position-based edits (``kueuelint.fix``), and
- a ruamel.yaml round trip (load, apply the same change to the data, dump), the usual way
  of editing YAML "with comments kept".

The lines a fix must touch are those its position-based edits touch. A way's bytes outside
the fix are the bytes of every line it removes or adds that is not one of those lines, in a
line diff against the original file. Both ways must also give the data the fix promises.

    python bench/fix_fidelity.py [PATH ...]     (default: ../shared/corpus, fixtures/, rules/)

ruamel.yaml is needed only here: ``pip install ruamel.yaml``.
"""

from __future__ import annotations

import argparse
import difflib
import io
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from kueuelint import pipeline  # noqa: E402
from kueuelint.config import Config  # noqa: E402
from kueuelint.fix.apply import plan_fixes  # noqa: E402
from kueuelint.fix.fixers import fixer_for  # noqa: E402


def default_paths() -> list[str]:
    paths = [REPO.parent / "shared" / "corpus", REPO / "fixtures", REPO / "rules"]
    return [str(p) for p in paths if p.is_dir()]


def fixable_findings(paths: list[str]):
    config = Config()
    rules = pipeline.load_rules(config)
    result = pipeline.run_check(paths, config, rules)
    return [f for f in result.findings if fixer_for(f.code) is not None and f.obj is not None]


def touched_lines(text: str, edits) -> set[int]:
    """0-based line numbers of the original text that the edits replace or insert at."""
    lines = set()
    for edit in edits:
        first = text.count("\n", 0, edit.start)
        last = text.count("\n", 0, max(edit.start, edit.end - 1))
        lines.update(range(first, last + 1))
    return lines


def bytes_outside(original: str, new: str, fix_lines: set[int]) -> int:
    old_lines, new_lines = original.splitlines(keepends=True), new.splitlines(keepends=True)
    outside = 0
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag in ("replace", "delete"):
            outside += sum(len(old_lines[i].encode()) for i in range(i1, i2) if i not in fix_lines)
        if tag in ("replace", "insert"):
            near_fix = any(i in fix_lines for i in range(max(i1 - 1, 0), max(i2, i1 + 1)))
            if not near_fix:
                outside += sum(len(line.encode()) for line in new_lines[j1:j2])
            elif tag == "replace":
                # lines added beside the fix beyond what the fix itself adds
                removed = [old_lines[i] for i in range(i1, i2) if i in fix_lines]
                added = new_lines[j1:j2]
                extra = max(0, len(added) - len(removed) - 2)
                outside += sum(len(line.encode()) for line in added[len(added) - extra:]) if extra else 0
    return outside


def ruamel_fixed(text: str, findings) -> tuple[str, list]:
    """The text a ruamel.yaml round trip writes after applying the fixers' data changes."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 1 << 16
    documents = list(yaml.load_all(text))
    lines = [d.lc.line + 1 if hasattr(d, "lc") else 0 for d in documents]
    done = set()
    for finding in findings:
        index = max((i for i, first in enumerate(lines) if first <= finding.location.line), default=0)
        fixer = fixer_for(finding.code)
        key = (index, type(fixer).__name__)
        if key not in done:
            documents[index] = fixer.expected(documents[index])
            done.add(key)
    out = io.StringIO()
    yaml.dump_all(documents, out)
    return out.getvalue(), documents


def measure(paths: list[str]) -> dict[str, dict[str, int]]:
    by_file = defaultdict(list)
    for finding in fixable_findings(paths):
        by_file[finding.location.path].append(finding)
    totals: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for path, findings in sorted(by_file.items()):
        for code in sorted({f.code for f in findings}):
            _measure_one(path, [f for f in findings if f.code == code], totals[code])
    return totals


def _measure_one(path: str, findings, row: dict[str, int]) -> None:
    import yaml as pyyaml

    plans, _ = plan_fixes(findings)
    if not plans:
        row["not fixable"] += 1
        return
    [plan] = plans
    fix_lines = touched_lines(plan.text, [e for _, edits in plan.edits for e in edits])
    row["files"] += 1
    row["own: bytes outside the fix"] += bytes_outside(plan.text, plan.new_text, fix_lines)
    try:
        ruamel_text, _ = ruamel_fixed(plan.text, findings)
    except Exception as exc:  # noqa: BLE001 - a library failure is a result here
        row["ruamel: failed"] += 1
        print(f"{path}: ruamel.yaml failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return
    row["ruamel: bytes outside the fix"] += bytes_outside(plan.text, ruamel_text, fix_lines)
    same = list(pyyaml.safe_load_all(ruamel_text)) == list(pyyaml.safe_load_all(plan.new_text))
    row["ruamel: files changed outside the fix"] += bytes_outside(plan.text, ruamel_text, fix_lines) > 0
    row["ruamel: files with other data"] += not same


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*")
    args = parser.parse_args()
    totals = measure(args.paths or default_paths())
    columns = ["files", "own: bytes outside the fix", "ruamel: bytes outside the fix",
               "ruamel: files changed outside the fix", "ruamel: files with other data", "ruamel: failed"]
    print("| fixer | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for code, row in sorted(totals.items()):
        print(f"| {code} | " + " | ".join(str(row.get(c, 0)) for c in columns) + " |")


if __name__ == "__main__":
    main()
