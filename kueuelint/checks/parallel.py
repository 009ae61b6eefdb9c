"""Spread a large run over worker processes with the same results as a serial run.

Each worker parses and checks its own shard of the files.  Cross-object rules need every
object of the run, so the workers first send back the plain data of the objects they
identified; the parent hands the complete list, in the serial run's order, to every
worker, which rebuilds the same inventory before checking its shard.  Run tables (tables
some rules build by deriving every object, see ``checks.api.RunTable``) are built the same
way: each worker from its own objects, merged by the parent.  Findings always belong to the
file being checked, so no finding depends on which worker holds which file.
"""

from __future__ import annotations

import marshal
import os
import time
import traceback
from dataclasses import dataclass

from kueuelint.config import Config
from kueuelint.findings import Finding, RunResult, RunStatistics
from kueuelint.load.discover import Target
from kueuelint.load.source import Document, SourceFile
from kueuelint.run import FirstError, Run, assemble, identify_file, read_entries, read_entry

# A worker costs a fork, its share of the lazily imported modules and compiled CEL, and the
# exchange of every object's data.  On two cores -j 2 took 0.37 s against 0.40 s for 153 files
# and 0.60 s against 0.78 s for 791 files, so two workers start paying at about 256 files.
MIN_FILES_PER_WORKER = 128


@dataclass
class FileSummary:
    index: int                        # position in the serial run's order
    path: str
    is_context: bool
    file_type: str | None
    # (document index, first line, data) of each object, packed by the worker that read the
    # file: the parent only passes the bytes on, instead of unpickling and pickling every
    # document of the run again for each worker (a third of a second at 5,000 manifests).
    documents: bytes


def worth_parallel(jobs: int, files: int) -> bool:
    return jobs > 1 and files >= 2 * MIN_FILES_PER_WORKER


def shard(sizes: list[int], jobs: int) -> list[list[int]]:
    """Largest files first onto the least loaded worker: balanced and deterministic."""
    loads = [[0, n, []] for n in range(jobs)]
    for index in sorted(range(len(sizes)), key=lambda i: (-sizes[i], i)):
        target = min(loads, key=lambda load: (load[0], load[1]))
        target[0] += sizes[index] + 1
        target[2].append(index)
    return [sorted(load[2]) for load in loads if load[2]]


def run_parallel(entries: list[tuple[Target, bool, str | None]], config: Config, rules, *,
                 jobs: int, use_suppressions: bool, stdin_name: str) -> RunResult:
    """``entries`` are (target, is_context, file type) in the serial run's order."""
    try:
        return _run_workers(entries, config, rules, jobs=jobs, use_suppressions=use_suppressions,
                            stdin_name=stdin_name)
    except WorkerFailed:
        # The serial run reports the same failure, with every finding it can still gather.
        return _run_serial(entries, config, rules, use_suppressions, stdin_name)


def _run_serial(entries, config: Config, rules, use_suppressions: bool, stdin_name: str) -> RunResult:
    from kueuelint.checks.runner import Checker

    run = assemble(read_entries(entries, config, stdin_name), config)
    return Checker(rules, config, use_suppressions=use_suppressions).run(run)


def _run_workers(entries: list[tuple[Target, bool, str | None]], config: Config, rules, *,
                 jobs: int, use_suppressions: bool, stdin_name: str) -> RunResult:
    started = time.perf_counter()
    sizes = [_size(target.path) for target, _, _ in entries]
    shards = shard(sizes, jobs)
    _import_rule_modules(rules, config)
    import multiprocessing  # only large runs pay for it

    context = multiprocessing.get_context("fork")
    workers = []
    for indices in shards:
        parent_end, child_end = context.Pipe()
        process = context.Process(target=_worker, args=(child_end, [(i, entries[i]) for i in indices],
                                                          config, rules, use_suppressions, stdin_name))
        process.start()
        child_end.close()
        workers.append((process, parent_end))
    try:
        summaries = sorted((s for _, conn in workers for s in _receive(conn)), key=lambda s: s.index)
        for _, conn in workers:
            conn.send(summaries)
        tables = _merge_tables([_receive(conn) for _, conn in workers])
        for _, conn in workers:
            conn.send(tables)
        findings, files, objects, stats, errors = [], 0, 0, RunStatistics(), []
        for _, conn in workers:
            shard_findings, shard_files, shard_objects, shard_stats, error = _receive(conn)
            findings += shard_findings
            files += shard_files
            objects += shard_objects
            errors += [error] if error else []
            stats.add(shard_stats)
    finally:
        for process, conn in workers:
            conn.close()
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
    return RunResult(sorted(findings, key=Finding.sort_key), files=files, objects=objects,
                     seconds=time.perf_counter() - started,
                     rules={code: rule.meta for code, rule in rules.items()},
                     internal_error=min(errors) if errors else None, stats=stats)


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


class WorkerFailed(Exception):
    """A worker died or raised outside the per-file guards; the caller reruns serially."""


def _receive(conn):
    try:
        message = conn.recv()
    except (EOFError, OSError) as exc:  # killed (out of memory, a crash in C code)
        raise WorkerFailed(f"worker process ended early: {exc!r}") from None
    if isinstance(message, tuple) and message and message[0] == "__error__":
        raise WorkerFailed(f"worker failed: {message[1]}")
    return message


def _worker(conn, shard_entries, config: Config, rules, use_suppressions: bool, stdin_name: str) -> None:
    try:
        from kueuelint.checks.api import RUN_TABLES
        from kueuelint.checks.runner import Checker

        errors = FirstError()
        own = {index: identify_file(read_entry(target, is_context, file_type, config, stdin_name),
                                    config, errors)
               for index, (target, is_context, file_type) in shard_entries}
        conn.send([_summarise(index, entry) for index, entry in own.items()])
        everything = conn.recv()
        run = Run([e for e in own.values() if not e.loaded.source.is_context],
                  [e for e in own.values() if e.loaded.source.is_context], config, errors)
        run.index_all(_objects_in_order(everything, own, config))
        checker = Checker(rules, config, use_suppressions=use_suppressions)
        own_objects = [obj for entry in own.values() for obj in entry.objects]
        conn.send(_table_parts(checker, run.inventory, own_objects, rules))
        for name, table in conn.recv().items():
            RUN_TABLES[name].provide(run.inventory, table)
        result = checker.run(run)
        conn.send((result.findings, result.files, result.objects, result.stats, result.internal_error))
    except Exception:  # reported by the parent as an internal error
        conn.send(("__error__", traceback.format_exc(limit=-4)))
    finally:
        conn.close()


def _import_rule_modules(rules, config: Config) -> None:
    """Import the selected Python rules before forking: the workers inherit the modules (and
    the run tables they register) instead of each importing them again."""
    for code, rule in rules.items():
        if rule.implementation == "python" and config.is_selected(code):
            try:
                rule.python_func()
            except Exception:  # noqa: BLE001 - the workers meet it again and report it as a rule error
                pass


def _table_parts(checker, inventory, own_objects: list, rules) -> dict:
    """This worker's part of every run table a selected rule reads.  A part that fails is left
    out: every worker then builds that table itself, meeting the error as the serial run does."""
    from kueuelint.checks.api import RUN_TABLES

    ctx = checker.rule_context(inventory)
    parts = {}
    for key, table in RUN_TABLES.items():
        if any(code in rules and checker.config.is_selected(code) for code in table.codes):
            try:
                parts[key] = table.part(own_objects, ctx)
            except Exception:  # noqa: BLE001
                continue
    return parts


def _merge_tables(parts: list[dict]) -> dict:
    """Tables every worker built its part of, merged; the others are left to each worker."""
    from kueuelint.checks.api import RUN_TABLES

    keys = set.intersection(*(set(part) for part in parts)) if parts else set()
    return {key: RUN_TABLES[key].merge([part[key] for part in parts]) for key in sorted(keys)}


def _summarise(index: int, state) -> FileSummary:
    source = state.loaded.source
    return FileSummary(index, source.path, source.is_context, source.file_type,
                       _pack([(obj.doc.index, obj.doc.line, obj.doc.data) for obj in state.objects]))


def _pack(documents: list) -> bytes:
    """marshal for the plain data YAML gives (several times faster than pickle); pickle for
    anything marshal cannot hold."""
    try:
        return b"m" + marshal.dumps(documents)
    except ValueError:
        import pickle

        return b"p" + pickle.dumps(documents, protocol=pickle.HIGHEST_PROTOCOL)


def _unpack(blob: bytes) -> list:
    if blob[:1] == b"m":
        return marshal.loads(blob[1:])
    import pickle

    return pickle.loads(blob[1:])


def _objects_in_order(summaries: list[FileSummary], own: dict, config: Config) -> list:
    """Every object of the run in serial order: own ones with positions, the rest as data."""
    from kueuelint.identify.objects import identify, shape_detector

    detector = shape_detector()
    objects = []
    for summary in summaries:
        if summary.index in own:
            objects.extend(own[summary.index].objects)
            continue
        source = SourceFile(summary.path, is_context=summary.is_context, file_type=summary.file_type)
        for doc_index, line, data in _unpack(summary.documents):
            obj = identify(Document(source, doc_index, data, None, line), config.default_namespace, detector)
            if obj is not None:
                objects.append(obj)
    return objects
