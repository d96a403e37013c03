"""What one ``capzgen validate`` reads, collected once: the files its arguments stand for (folders
expanded, kustomizations walked), standard input read, and findings for what cannot be read.

The run (:mod:`generator.validate.stream`) and kubeconform beside it
(:mod:`generator.validate.beside`) are handed the same value, so paths are expanded and standard
input is read exactly once.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass

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


@dataclass(frozen=True, slots=True)
class Inputs:
    """The files to read, in order (``-`` is standard input, already read into ``stdin_text``),
    the names findings give them, and findings for what could not be read (``failures``, also
    among ``unreadable``: arguments that could not be read at all and files the load restrictor
    refused, which make the run fail with exit 2 after the other inputs are validated)."""

    paths: tuple[str, ...]
    names: tuple[str, ...]
    stdin_text: str | None = None
    unreadable: tuple[Finding, ...] = ()
    failures: tuple[Finding, ...] = ()

    def read(self, path: str) -> str:
        """The text of ``path``: standard input as read once, a file read now."""
        return (self.stdin_text or "") if path == STDIN else read_source(path)


def collect_inputs(paths: Sequence[str], rules: InputRules = DEFAULT_RULES) -> Inputs:
    """Every file ``paths`` stand for (see :func:`expand_paths`), with standard input read if
    ``-`` is among them. An argument that cannot be read at all (missing, a folder tree too deep)
    is a failure finding and the others are still collected; more than ``rules.max_files`` files
    in all is a :class:`~generator.validate.kustomization.TooManyFiles` error."""
    failures: list[Finding] = []
    found, unreadable = expand_paths(paths, rules, failures=failures)
    stdin_text = None
    if any(path == STDIN for path, _ in found):
        try:
            stdin_text = read_source(STDIN)
        except (YamlError, InputOutputError) as error:
            found = [(p, n) for p, n in found if p != STDIN]
            unreadable.append(read_error_finding(error, STDIN_NAME))
    return Inputs(
        tuple(p for p, _ in found),
        tuple(n for _, n in found),
        stdin_text,
        (*unreadable, *failures),
        tuple(failures),
    )


def expand_paths(
    paths: Sequence[str],
    rules: InputRules = DEFAULT_RULES,
    *,
    failures: list[Finding] | None = None,
) -> tuple[list[tuple[str, str]], list[Finding]]:
    """(path, display name) of every file to read, in order, and findings for the entries of
    folders that are not regular files (see :func:`generator.validate.check.check_paths`).

    With a ``failures`` list, an argument that cannot be read at all becomes a finding there
    (and files the load restrictor refused too); without it, such an argument raises its
    InputOutputError and refused files are among the returned findings.
    """
    inputs: list[tuple[str, str]] = []
    unreadable: list[Finding] = []
    for path in paths:
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
    """A YAML or read error as an error finding on ``source``, with document and line if known."""
    loc = error.location
    return Finding(
        severity=Severity.ERROR,
        rule="yaml",
        message=error.message,
        subject=Subject(file=source, document=loc.document if loc else None),
        line=loc.line if loc else None,
    )


def read_error_finding(error: YamlError | InputOutputError, label: str) -> Finding:
    """A file that could not be read or parsed, as the one finding it gets (its place, if known)."""
    if isinstance(error, YamlError):
        return yaml_error_finding(error, label)
    return unreadable_finding(label, error.message)


def unreadable_finding(label: str, message: str) -> Finding:
    """A file that could not be read, as an error finding on that file."""
    return Finding(
        severity=Severity.ERROR,
        rule="yaml",
        message=message,
        subject=Subject(file=label),
    )
