"""A pre-commit run on one file imports only what checking that file needs."""

import subprocess
import sys

from conftest import REPO

ONE_FILE_RUN = """
import contextlib, dataclasses, io, sys
from kueuelint.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    status = main(["check", {path!r}])
print(status)
print(" ".join(sorted(sys.modules)))
ours = [(name, value) for module in list(sys.modules.values()) if module.__name__.startswith("kueuelint")
        for name, value in vars(module).items() if getattr(value, "__module__", None) == module.__name__]
print(" ".join(sorted(f"{{value.__module__}}.{{name}}" for name, value in ours
                      if isinstance(value, type) and dataclasses.is_dataclass(value)
                      and value.__dataclass_params__.frozen)))
"""


def _one_file_run(path: str) -> tuple[int, set[str], set[str]]:
    """The exit status, the modules imported and the frozen dataclasses defined."""
    done = subprocess.run([sys.executable, "-c", ONE_FILE_RUN.format(path=path)], cwd=REPO,
                          capture_output=True, text=True, check=True,
                          env={"KUEUELINT_NO_CACHE": "1", "PATH": ""})
    status, modules, frozen = (done.stdout + "\n").splitlines()[:3]
    return int(status), set(modules.split()), set(frozen.split())


def test_checking_a_job_imports_no_heavy_library_and_no_other_command():
    status, modules, _ = _one_file_run("fixtures/examples/jobs/eval.yaml")
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



def test_a_one_file_run_defines_its_immutable_records_as_named_tuples():
    # A frozen dataclass compiles six or more methods when its class is made (0.3-1 ms each:
    # the thirteen a one-file run used to define cost 9% of it); a NamedTuple is the same
    # immutable record for a fraction of that.
    _, _, frozen = _one_file_run("fixtures/examples/jobs/eval.yaml")
    assert not frozen


EXIT_STATE = """
import atexit, contextlib, gc, io, sys
from kueuelint.cli import main
# registered before main's own handler, so it runs after it
atexit.register(lambda: print("frozen at exit:", gc.get_freeze_count() > 0))
sys.argv = ["kueuelint", "check", {path!r}]
with contextlib.redirect_stdout(io.StringIO()):
    status = main({argv})
print("status", status)
"""


def _exit_state(argv: str) -> list[str]:
    script = EXIT_STATE.format(path="fixtures/examples/jobs/eval.yaml", argv=argv)
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True,
                          env={"KUEUELINT_NO_CACHE": "1", "PATH": ""})
    return done.stdout.splitlines()


def test_the_program_leaves_what_it_built_out_of_the_last_collections_and_a_caller_keeps_its_collector():
    program, caller = _exit_state(""), _exit_state("sys.argv[1:]")
    assert program[0] == caller[0] == "status 0"
    assert program[1:] == ["frozen at exit: True"]
    assert caller[1:] == ["frozen at exit: False"]
