"""What one ``capzgen validate`` reads, collected once: the files its arguments stand for (folders
expanded, kustomizations walked), standard input read, and findings for what cannot be read.

The run (:mod:`generator.validate.stream`) and kubeconform beside it
(:mod:`generator.validate.beside`) are handed the same value, so paths are expanded and standard
input is read exactly once.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from typing import Final, final

from generator.errors import InputOutputError, YamlError
from generator.findings import Finding, Severity, Subject
from generator.validate import kustomization
from generator.validate.kustomization import (
    DEFAULT_RULES,
    InputRules,
    TooManyFiles,
    too_many_files,
)
from generator.yamlio.load import iter_files
from generator.yamlio.source import STDIN, display_name, read_source

STDIN_NAME = "<stdin>"


@final
class Inputs:
    """The files to read, in order (``-`` is standard input), the names findings give them,
    the texts of the inputs that can be read only once (``held``, see :func:`read_once`), and
    findings for what could not be read (``failures``, also among ``unreadable``: arguments
    that could not be read at all and files the load restrictor refused, which make the run
    fail with exit 2 after the other inputs are validated)."""

    __slots__ = ("empty", "failures", "held", "names", "paths", "unreadable")

    def __init__(
        self,
        paths: tuple[str, ...],
        names: tuple[str, ...],
        held: Mapping[str, str] | None = None,
        unreadable: tuple[Finding, ...] = (),
        failures: tuple[Finding, ...] = (),
        empty: tuple[str, ...] = (),  # arguments that stand for nothing (see collect_inputs)
    ) -> None:
        self.paths: Final = paths
        self.names: Final = names
        self.held: Final[Mapping[str, str]] = {} if held is None else held
        self.unreadable: Final = unreadable
        self.failures: Final = failures
        self.empty: Final = empty

    def read(self, path: str) -> str:
        """The text of ``path``: as read once if it cannot be read again, else read now."""
        held = self.held.get(path)
        return held if held is not None else read_source(path)

    def holding(self, texts: Mapping[str, str]) -> Inputs:
        """The same inputs with ``texts`` held besides (see :class:`SharedReads`)."""
        held = {**self.held, **texts}
        return Inputs(self.paths, self.names, held, self.unreadable, self.failures, self.empty)


@final
class SharedReads:
    """Reads of ``inputs`` that keep each text, up to ``budget`` characters in all, so that a
    second reader of the run gets them from memory: ``validate --kubeconform`` reads every
    file for the kinds it names and again for its embedded resources, and capzgen's own
    validation a third time (8 ms each for the 3.4 MB fleet, on the one core the run's start
    has). What is kept is also what capzgen validates (:meth:`Inputs.holding`): both see one
    text of each file. Larger inputs are read each time, as before, in bounded memory."""

    __slots__ = ("budget", "inputs", "kept", "size")

    def __init__(self, inputs: Inputs, budget: int) -> None:
        self.inputs: Final = inputs
        self.budget: Final = budget
        self.kept: Final[dict[str, str]] = {}
        self.size = 0

    def read(self, path: str) -> str:
        """The text of ``path``, kept while the budget lasts (raises what reading raises)."""
        text = self.kept.get(path)
        if text is None:
            text = self.inputs.read(path)
            if self.size + len(text) <= self.budget:
                self.kept[path] = text
                self.size += len(text)
        return text

    def held(self) -> Inputs:
        """The inputs, with the texts kept held."""
        return self.inputs.holding(self.kept)


def read_once(path: str) -> bool:
    """Whether ``path`` can be read only once, so its text is read before anything else and
    held for the whole run: standard input, and any argument that is not a regular file (a pipe
    from ``<(...)``, a FIFO, ``/dev/stdin``, a device). The run reads an input up to three
    times (the result cache's key, pass 1, pass 2 or a worker process); a second read of a pipe
    finds it empty or blocks for ever, and an input that reads empty the second time validated
    as nothing: a wrong "valid"."""
    if path == STDIN:
        return True
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:  # unreadable: reading it (once) reports why
        return True


def collect_inputs(paths: Sequence[str], rules: InputRules = DEFAULT_RULES) -> Inputs:
    """Every file ``paths`` stand for (see :func:`expand_paths`), with standard input read if
    ``-`` is among them. An argument that cannot be read at all (missing, a folder tree too deep)
    is a failure finding and the others are still collected; more than ``rules.max_files`` files
    in all is a :class:`~generator.validate.kustomization.TooManyFiles` error."""
    failures: list[Finding] = []
    counts: list[int] = []
    found, unreadable = expand_paths(paths, rules, failures=failures, counts=counts)
    held: dict[str, str] = {}
    kept: list[tuple[str, str]] = []
    for path, name in found:
        if path not in held and read_once(path):
            try:
                held[path] = read_source(path)
            except (YamlError, InputOutputError) as error:
                unreadable.append(read_error_finding(error, STDIN_NAME if path == STDIN else name))
                continue
        kept.append((path, name))
    return Inputs(
        tuple(p for p, _ in kept),
        tuple(n for _, n in kept),
        held,
        (*unreadable, *failures),
        tuple(failures),
        tuple(_empty(paths, counts, held)),
    )


def _empty(paths: Sequence[str], counts: Sequence[int], held: Mapping[str, str]) -> list[str]:
    """The arguments that stand for no document at all: a folder (or kustomization) without a
    file to validate, an empty file, blank standard input. A wrong path in a pipeline looks
    exactly like this, so the run says so instead of passing (``--allow-empty`` accepts it)."""
    empty = []
    for path, count in zip(paths, counts, strict=True):
        if count == 0:
            empty.append(path)
        elif count == 1 and not _has_text(path, held):
            empty.append(STDIN_NAME if path == STDIN else path)
    return empty


def _has_text(path: str, held: Mapping[str, str]) -> bool:
    """Whether a file argument holds anything but white space (a file the run cannot stat is
    the reader's to report)."""
    if path in held:
        return bool(held[path].strip())
    try:
        return os.stat(path).st_size > 0 or not os.path.isfile(path)
    except OSError:
        return True


def expand_paths(
    paths: Sequence[str],
    rules: InputRules = DEFAULT_RULES,
    *,
    failures: list[Finding] | None = None,
    counts: list[int] | None = None,
) -> tuple[list[tuple[str, str]], list[Finding]]:
    """(path, display name) of every file to read, in order, and findings for the entries of
    folders that are not regular files (see :func:`generator.validate.check.check_paths`).

    With a ``failures`` list, an argument that cannot be read at all becomes a finding there
    (and files the load restrictor refused too); without it, such an argument raises its
    InputOutputError and refused files are among the returned findings. With a ``counts``
    list, the number of files each argument stands for is appended to it (-1 for one that could
    not be read).
    """
    inputs: list[tuple[str, str]] = []
    unreadable: list[Finding] = []
    for path in paths:
        before = len(inputs) + len(unreadable)
        if counts is not None:
            counts.append(-1)
        try:
            names, from_folder, refused = _expand(
                path, rules, rules.max_files - len(inputs), unreadable
            )
        except TooManyFiles:
            raise
        except InputOutputError as error:
            if failures is None:
                raise
            failures.append(_error_finding(error, path))
            continue
        (unreadable if failures is None else failures).extend(refused)
        for name in names:
            label = STDIN_NAME if name == STDIN else name
            problem = _not_a_regular_file(name) if from_folder else None
            if problem is not None:
                unreadable.append(unreadable_finding(label, problem))
            else:
                inputs.append((name, label))
        if counts is not None:
            counts[-1] = len(inputs) + len(unreadable) + len(refused) - before
    return inputs, unreadable


def _expand(
    path: str, rules: InputRules, budget: int, findings: list[Finding]
) -> tuple[list[str], bool, list[Finding]]:
    """The files one argument stands for, whether they were found inside a folder, and the files
    the load restrictor refused; problems met while reading a kustomization file are added to
    ``findings``. At most ``budget`` files (more: TooManyFiles)."""
    if path == STDIN:
        files = [STDIN]
    elif os.path.isdir(path) or kustomization.is_kustomization_file(path):
        inputs = kustomization.collect_inputs(path, rules, max_files=budget)
        findings.extend(inputs.findings)
        return inputs.files, True, inputs.refused
    elif rules.excluded(path):
        files = []  # named, but excluded: not read (the argument then stands for nothing)
    else:
        files = iter_files([path])
    if len(files) > budget:
        raise too_many_files(path, rules.max_files)
    return files, False, []


def _error_finding(error: InputOutputError, path: str) -> Finding:
    """An argument that could not be read, as an error finding on the place the error names."""
    where = error.location.file if error.location and error.location.file else path
    return unreadable_finding(display_name(where), error.message)


def _not_a_regular_file(name: str) -> str | None:
    """Why a file found in a folder cannot be read as a manifest, or None if it can be tried."""
    try:
        mode = os.stat(name).st_mode
    except FileNotFoundError:
        return "cannot read: dangling symbolic link" if os.path.islink(name) else None
    except OSError as error:
        return f"cannot read: {error.strerror or error}"
    if stat.S_ISREG(mode):
        return None
    return "not a regular file (a FIFO, socket or device); not read"


def yaml_error_finding(error: YamlError, source: str) -> Finding:
    """A YAML or read error as an error finding on ``source``, with document, line and column if
    known: the parser knows the column, and a syntax error is found by it, not by its line alone."""
    loc = error.location
    return Finding(
        severity=Severity.ERROR,
        rule="yaml",
        message=error.message,
        subject=Subject(file=source, document=loc.document if loc else None),
        line=loc.line if loc else None,
        column=loc.column if loc else None,
    )


def read_error_finding(error: YamlError | InputOutputError, label: str) -> Finding:
    """A file that could not be read or parsed, as the one finding it gets (its place, if known)."""
    if isinstance(error, YamlError):
        return yaml_error_finding(error, label)
    return unreadable_finding(label, error.message)


def unreadable_finding(label: str, message: str, severity: Severity = Severity.ERROR) -> Finding:
    """A file that could not be read (or, with a lower ``severity``, was read only in part or
    not at all on purpose), as a finding on that file."""
    return Finding(
        severity=severity,
        rule="yaml",
        message=message,
        subject=Subject(file=label),
    )
