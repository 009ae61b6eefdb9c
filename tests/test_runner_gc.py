"""The cyclic collector during a check: what was loaded is frozen before the run indexes its
scopes, so those allocations cannot set off a full collection over all of it, and the run
gives the objects back afterwards.

Checked in a fresh interpreter: other tests (``admit``) leave objects frozen for good, and a
run then leaves the collector alone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).parent.parent / "fixtures" / "examples"

CHECK_RECORDING_FREEZES = """
import gc, json, sys
import kueuelint.run
from kueuelint.checks.registry import load_rules
from kueuelint.checks.runner import Checker
from kueuelint.config import Config

config = Config()
run = kueuelint.run.open_run([sys.argv[1]], config)
while_indexing = []
build = kueuelint.run.build_inventory

def recording_build(*args, **kwargs):
    while_indexing.append(gc.get_freeze_count())
    return build(*args, **kwargs)

kueuelint.run.build_inventory = recording_build
before = gc.get_freeze_count()
result = Checker(load_rules(config), config).run(run)
print(json.dumps({"before": before, "while_indexing": while_indexing, "after": gc.get_freeze_count(),
                  "objects": result.objects, "findings": len(result.findings)}))
"""


def test_scopes_are_indexed_with_the_loaded_data_frozen():
    done = subprocess.run([sys.executable, "-c", CHECK_RECORDING_FREEZES, str(EXAMPLES)],
                          capture_output=True, text=True, check=True, env={"KUEUELINT_NO_CACHE": "1"})
    seen = json.loads(done.stdout)
    assert seen["objects"] > 0 and seen["findings"] > 0
    assert seen["before"] == 0 and seen["after"] == 0
    assert seen["while_indexing"] and all(count > 0 for count in seen["while_indexing"])


CHECK_COUNTING_COLLECTIONS = """
import gc, json, sys
from kueuelint import pipeline
from kueuelint.cli import main

checking, collections = [False], []
gc.callbacks.append(lambda phase, info: checking[0] and phase == "start" and collections.append(info))
run_check_guarded = pipeline.run_check_guarded

def watched(*args, **kwargs):
    checking[0] = True
    try:
        return run_check_guarded(*args, **kwargs)
    finally:
        checking[0] = False

pipeline.run_check_guarded = watched
code = main(["check", "-q", "--exit-zero", "--no-progress", "-j", "1", sys.argv[1]])
print(json.dumps({"code": code, "collections": len(collections), "enabled": gc.isenabled()}))
"""


def test_the_check_command_runs_without_collector_passes_and_turns_it_back_on():
    done = subprocess.run([sys.executable, "-c", CHECK_COUNTING_COLLECTIONS, str(EXAMPLES)],
                          capture_output=True, text=True, check=True, env={"KUEUELINT_NO_CACHE": "1"})
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen == {"code": 0, "collections": 0, "enabled": True}
