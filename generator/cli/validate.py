"""``capzgen validate``: check manifests, including the ASO resources embedded in CAPZ objects."""

from __future__ import annotations

import functools
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from generator.checks.formats import REPORT_FORMATS, render_report
from generator.cli.completion import complete_paths
from generator.cli.environment import current_settings, current_zygote, ends_process, environ
from generator.cli.options import (
    KubeconformChoice,
    check_options,
    check_rule_ids,
    ignore_missing_schemas_option,
    jobs_option,
    kubeconform_options,
    schema_dir_option,
)
from generator.cli.progress import document_progress
from generator.cli.repo_config import validate_layers
from generator.cli.report_options import fail_on_option
from generator.errors import CapzgenError, ExitCode, InputOutputError, Location, UsageError
from generator.findings import Finding, fails
from generator.settings import Settings

if TYPE_CHECKING:
    from generator.checks.context import CheckOptions, ValidationOptions
    from generator.kubeconform.process import KubeconformOptions
    from generator.schemastore.store import SchemaStore
    from generator.validate.check import CheckReport
    from generator.validate.globs import InputGlobs
    from generator.validate.inputs import Inputs
    from generator.validate.kustomization import InputRules
    from generator.validate.stream import RunSettings


@click.command("validate")
@click.argument("paths", nargs=-1, metavar="PATH... | -", shell_complete=complete_paths)
@schema_dir_option
@ignore_missing_schemas_option
@click.option(
    "--disable-rule",
    "disabled_rules",
    multiple=True,
    metavar="ID",
    help="Disable a rule (repeatable).",
)
@click.option(
    "--output",
    "output",
    type=click.Choice(REPORT_FORMATS),
    default="text",
    show_default=True,
    help="text for people, json for scripts, sarif for code scanning, junit for a CI test "
    "report, github for annotations (GitHub Actions workflow commands); see docs/validation.md.",
)
@click.option(
    "--sarif-root",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="With --output sarif: the folder file names are made relative to (the repository "
    "root; default: the working directory).",
)
@fail_on_option
@click.option("--list-rules", is_flag=True, help="List the semantic rules and exit.")
@click.option(
    "--no-cel", is_flag=True, help="Do not evaluate the CRDs' CEL rules (x-kubernetes-validations)."
)
@jobs_option("Validate")
@click.option(
    "--no-cache",
    is_flag=True,
    help="Validate every cluster again (and send kubeconform every file): do not reuse or "
    "remember results of earlier runs.",
)
@click.option(
    "--load-restrictor",
    type=click.Choice(["LoadRestrictionsRootOnly", "LoadRestrictionsNone"]),
    default="LoadRestrictionsRootOnly",
    show_default=True,
    help="Which files a folder may lead to, as kustomize's flag says: LoadRestrictionsRootOnly "
    "refuses (exit 2) symbolic links and kustomization entries that lead outside the folder "
    "named; LoadRestrictionsNone follows them.",
)
@click.option(
    "--allow-empty",
    is_flag=True,
    help="Accept an input that holds no document (an empty file or folder); without it, that "
    "is an error (exit 2): a wrong path in a pipeline must not pass.",
)
@click.option(
    "--against",
    metavar="REV|OLD_PATH",
    default=None,
    help="Check the files as an update of an earlier version: a git revision of the repository "
    "holding each PATH (HEAD~1, main, a tag), or an OLD_PATH file or folder (an existing path "
    "wins; write main^0 for the branch). Matched objects get CAPZ's, ASO's and CAPI's update "
    "rules and the CRDs' transition rules; objects gone get the delete rules; unchanged invalid "
    "values are ratcheted (info). See docs/validation.md.",
)
@kubeconform_options
@validate_layers
def validate_command(
    paths: tuple[str, ...],
    schema_dirs: tuple[Path, ...],
    ignore_missing_schemas: bool,
    disabled_rules: tuple[str, ...],
    output: str,
    sarif_root: Path | None,
    fail_on: str,
    list_rules: bool,
    no_cel: bool,
    jobs: int | None,
    no_cache: bool,
    kubeconform: KubeconformChoice,
    load_restrictor: str,
    allow_empty: bool,
    against: str | None,
    input_globs: InputGlobs,
) -> int:
    """Validate YAML/JSON manifests (files, folders searched recursively, or - for stdin).

    A folder holding a kustomization.yaml is read through it: the files its resources list (and
    the folders they name, through their own kustomization.yaml) are validated, nothing else;
    remote entries are not fetched and entries outside the named folder are not read (each is a
    finding).

    Every document and embedded ASO resource is checked as the management cluster's admission
    chain would (defaults, schema, CEL, CAPZ's webhooks), and each cluster against CAPZ's rules.
    Exit status: 0 valid, 1 findings with severity error (or warning, with --fail-on warning),
    2 usage or I/O problems (with --output json, stdout is JSON on every exit status). With
    --kubeconform, kubeconform's findings count like capzgen's; a kubeconform that is missing,
    fails or times out is reported in one warning line and does not change the exit status.

    Clusters validated without any finding are remembered in the cache folder (by their text,
    capzgen's version, the schemas and the options) and not checked again while all of that is
    unchanged; anything with a finding is always checked again. With --kubeconform, files
    kubeconform found nothing wrong with are likewise not sent to it again while they, the
    kubeconform binary and the schemas are unchanged. --no-cache turns all of this off.
    """
    if list_rules:
        return _list_rules()
    settings = current_settings()
    checks = check_options(
        settings,
        disabled_rules=disabled_rules,
        cel=not no_cel,
        ignore_missing_schemas=ignore_missing_schemas,
        kubeconform=kubeconform,
        fail_on=fail_on,
    )
    try:
        cache = None if no_cache else settings.cache_dir("results")
        key, key_file = settings.cache_key, settings.cache_key_file
        run = _Run(jobs, cache, key, key_file, load_restrictor, allow_empty, input_globs)
        run = replace(run, sarif_root=sarif_root, against=against)
        return _validate(paths, schema_dirs, checks, output, settings, run)
    except CapzgenError as error:
        if output == "json":  # scripts parse stdout: it is JSON on every exit status
            _echo_error_json(error)
        raise


def _list_rules() -> int:
    # lazy: the rule list loads every rule; a run leaves that to its workers (after the fork)
    from generator.checks.rule_table import describe_rules

    click.echo(describe_rules(), nl=False)
    return int(ExitCode.OK)


def _echo_error_json(error: CapzgenError) -> None:
    # lazy: the report module loads every rule (for their descriptions)
    from generator.checks.report import render_error_json

    click.echo(render_error_json(error), nl=False)


@dataclass(frozen=True)
class _Run:
    """How the streaming validation runs: on how many processes, with which result cache."""

    jobs: int | None
    results_dir: Path | None
    cache_key: str | None  # $CAPZGEN_CACHE_KEY
    cache_key_file: Path | None
    load_restrictor: str  # a LoadRestrictor value
    allow_empty: bool = False  # an input without a document is fine
    globs: InputGlobs | None = None  # --exclude and .capzgen.yaml's include/exclude
    sarif_root: Path | None = None  # what SARIF file names are relative to (None: the cwd)
    against: str | None = None  # --against REV|OLD_PATH: validate as an update of that version


def _validate(
    paths: tuple[str, ...],
    schema_dirs: tuple[Path, ...],
    checks: CheckOptions,
    output: str,
    settings: Settings,
    run: _Run,
) -> int:
    if not paths:
        msg = "no input: give one or more files or folders, or - for stdin"
        raise UsageError(msg)
    options = checks.validation
    check_rule_ids(options.disabled_rules)
    # lazy: --list-rules needs neither the loader nor the schema store (~40 ms of start-up)
    from generator.schemastore.store import SchemaStore

    store = SchemaStore.from_search_path(list(schema_dirs), settings)
    second_opinion = checks.kubeconform
    # lazy: as above, the input walk and the streaming validator are for runs that validate
    from generator.validate.inputs import collect_inputs

    on = _run_settings(run)
    inputs = collect_inputs(paths, _input_rules(run))
    failures: list[CapzgenError] = [_failure_error(finding) for finding in inputs.failures]
    if failures and not inputs.paths:
        raise failures[0]  # nothing could be read at all
    if run.against is not None:
        report = _checked_against(paths, inputs, store, options, second_opinion, run, settings)
    else:
        with document_progress(sys.stderr, environ()) as progress:
            report = _checked(
                inputs, store, options, second_opinion, replace(on, progress=progress)
            )
    if not run.allow_empty:
        failures.extend(_empty_errors(inputs.empty, paths, report.document_count, report.findings))
    report.findings = template_hints(report.findings)
    _print_report(output, report.findings, report.document_count, failures, run.sarif_root)
    for error in failures:  # every other input was validated and reported; the run still fails
        click.echo(f"Error: {error}", err=True)
    hints = dict.fromkeys(error.hint for error in failures if error.hint)
    for hint in hints:
        click.echo(f"Hint: {hint}", err=True)
    if failures:
        return int(ExitCode.USAGE)
    return int(ExitCode.INVALID if fails(report.findings, checks.fail_on) else ExitCode.OK)


def _print_report(
    output: str,
    findings: Sequence[Finding],
    documents: int,
    failures: Sequence[CapzgenError],
    root: Path | None,
) -> None:
    """The report on stdout in the ``--output`` format; a JSON one also carries the errors of
    inputs that could not be read, as scripts parse stdout alone."""
    if output == "json":
        # lazy: the report module loads every rule (for their descriptions)
        from generator.checks.report import render_error_json, render_json

        text = render_json(findings, documents)
        if failures:  # the report of every input read, and the error (as render_error_json)
            payload = json.loads(text)
            payload["error"] = json.loads(render_error_json(failures[0]))["error"]
            payload["error"]["details"] = [str(error) for error in failures[1:]]
            text = json.dumps(payload, indent=2, sort_keys=True) + "\n"
        click.echo(text, nl=False)
    else:
        text = render_report(output, findings, documents, root=root)
        click.echo(text, nl=False)


# An unresolved clusterctl placeholder, ``${NAME`` (with or without a default after it).
_PLACEHOLDER = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*")


def _checked(
    inputs: Inputs,
    store: SchemaStore,
    options: ValidationOptions,
    second_opinion: KubeconformOptions | None,
    on: RunSettings,
) -> CheckReport:
    """The streaming validation, with kubeconform beside it when asked for."""
    if second_opinion is None:
        # lazy: the streaming validator is for runs that validate
        from generator.validate.stream import stream_inputs

        return stream_inputs(inputs, store, options, on)
    # lazy: kubeconform runs beside capzgen's own validation
    from generator.validate.beside import check_beside_kubeconform

    return check_beside_kubeconform(inputs, store, options, second_opinion, on)


def _checked_against(
    paths: Sequence[str],
    inputs: Inputs,
    store: SchemaStore,
    options: ValidationOptions,
    second_opinion: KubeconformOptions | None,
    run: _Run,
    settings: Settings,
) -> CheckReport:
    """``--against``: the old version read (a revision through git, or OLD_PATH), then the new
    files validated as an update of it, serially (no result cache: findings depend on both)."""
    if second_opinion is not None:
        msg = "--against cannot be combined with --kubeconform"
        raise UsageError(msg, hint="run kubeconform on its own, without --against")
    assert run.against is not None
    # lazy: only --against reads another version
    from generator.validate.against import check_against, old_sources

    old = old_sources(run.against, paths, _input_rules(run), settings.environ)
    return check_against(inputs, old, store, options)


def template_hints(findings: list[Finding]) -> list[Finding]:
    """Error findings that quote an unresolved ``${VAR}`` (in the message or the object's
    name), with a hint to render the file first: such a file is a clusterctl template (CAPZ's
    own cluster-template-*.yaml, say), whose errors are mostly its placeholders, and what the
    user wants validated is what ``generate cluster`` makes of it."""
    hinted = []
    for finding in findings:
        if finding.is_error and not finding.hint and _quotes_placeholder(finding):
            source = finding.subject.file
            shown = "-" if source.startswith("<") else source
            hint = (
                f"{source} looks like a clusterctl template (unresolved ${{VAR}} placeholders); "
                f"validate what it renders to: capzgen generate cluster NAME --from {shown}"
            )
            finding = replace(finding, hint=hint)
        hinted.append(finding)
    return hinted


def _quotes_placeholder(finding: Finding) -> bool:
    subject = finding.subject
    texts = (finding.message, subject.name or "", subject.embedded_name or "")
    return any(_PLACEHOLDER.search(text) for text in texts)


def _input_rules(run: _Run) -> InputRules:
    """What the run may read: the load restrictor and the excluded (or included) paths."""
    # lazy: the input walk is for runs that validate
    from generator.validate.kustomization import InputRules, LoadRestrictor

    restrictor = LoadRestrictor(run.load_restrictor)
    if run.globs is None:
        return InputRules(restrictor)
    return InputRules(restrictor, exclude=run.globs.exclude, include=run.globs.include)


def _run_settings(run: _Run) -> RunSettings:
    """How the run uses the machine: ``-j`` (default: every core) and the authenticated result
    cache (its key file is made only for a run that caches)."""
    # lazy: the streaming validator is for runs that validate
    from generator.validate.stream import RunSettings, default_jobs, fork_pool

    workers = run.jobs if run.jobs is not None else default_jobs()
    zygote = current_zygote()
    pool = fork_pool if zygote is None else functools.partial(fork_pool, zygote=zygote)
    secret = None
    if run.results_dir is not None:
        # lazy: the key file is for runs that cache (HMAC, OpenSSL: see cache.records)
        from generator.validate.cache.secret import cache_secret

        secret = cache_secret(run.cache_key, run.cache_key_file)
    return RunSettings(
        jobs=workers,
        results_dir=run.results_dir,
        cache_secret=secret,
        pool=pool,
        wait_for_workers=not ends_process(),
    )


def _empty_errors(
    empty: Sequence[str], paths: Sequence[str], documents: int, findings: Sequence[Finding]
) -> list[CapzgenError]:
    """An error for each argument that stands for no document, and one for the whole input when
    it yields none and nothing else was reported (a file of comments alone, say)."""
    hint = "check the path; --allow-empty accepts an input without documents"
    errors: list[CapzgenError] = [
        UsageError(f"{path}: no document to validate (an empty file or folder)", hint=hint)
        for path in empty
    ]
    if not errors and documents == 0 and not findings:
        shown = ", ".join(paths)
        errors.append(UsageError(f"no document to validate in {shown}", hint=hint))
    return errors


def _failure_error(finding: Finding) -> InputOutputError:
    """An input that could not be read (or was refused), as the error it stands for (exit 2)."""
    return InputOutputError(finding.message, location=Location(file=finding.subject.file))
