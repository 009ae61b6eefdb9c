"""A pre-commit run on one file imports only what checking that file needs."""

import subprocess
import sys

from conftest import REPO

ONE_FILE_RUN = """
import contextlib, io, sys
from kueuelint.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    status = main(["check", {path!r}])
print(status)
print(" ".join(sorted(sys.modules)))
"""


def _modules_after(path: str) -> tuple[int, set[str]]:
    done = subprocess.run([sys.executable, "-c", ONE_FILE_RUN.format(path=path)], cwd=REPO,
                          capture_output=True, text=True, check=True,
                          env={"KUEUELINT_NO_CACHE": "1", "PATH": ""})
    status, modules = done.stdout.splitlines()
    return int(status), set(modules.split())


def test_checking_a_job_imports_no_heavy_library_and_no_other_command():
    status, modules = _modules_after("fixtures/examples/jobs/eval.yaml")
    assert status in (0, 1)
    heavy = {"pydantic", "jsonschema", "ruamel", "celpy"} & {name.split(".")[0] for name in modules}
    assert not heavy
    other_commands = {f"kueuelint.cli.{name}" for name in ("admit", "diff", "rules_cmd", "explain",
                                                            "test_rules")}
    assert not modules & other_commands
    assert not [name for name in modules
                if name.startswith(("kueuelint.admission", "kueuelint.fix", "kueuelint.models"))]
    # a run that declares no scopes does not need them
    assert "kueuelint.index.scopes" not in modules
