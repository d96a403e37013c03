"""``capzgen validate --kubeconform``: kubeconform runs in the background while capzgen validates.

kubeconform is started on the input files themselves and on a stream of their embedded ASO
resources (:mod:`generator.kubeconform.files`); capzgen's own validation runs meanwhile exactly as
without ``--kubeconform`` (:func:`generator.validate.stream.stream_inputs`: every core, the result
cache). kubeconform's findings are merged at the end, with their lines. The inputs are collected
once (:mod:`generator.validate.inputs`: folders expanded, standard input read) and handed to
both. Files kubeconform found clean before are not sent to it again while the result cache is on
(:mod:`generator.validate.cache.verdicts`). What goes wrong with kubeconform itself is a note,
never an error.
"""

from __future__ import annotations

from generator.checks import ValidationOptions
from generator.findings import sort_findings
from generator.kubeconform.files import InputFile, start_on_files
from generator.kubeconform.process import KubeconformOptions
from generator.schemastore.types import SchemaLookup
from generator.validate.cache.verdicts import Verdicts
from generator.validate.check import CheckReport, second_opinion, with_lines
from generator.validate.inputs import Inputs, SharedReads
from generator.validate.stream import SERIAL, RunSettings, stream_inputs


def check_beside_kubeconform(
    inputs: Inputs,
    store: SchemaLookup | None,
    options: ValidationOptions,
    kubeconform: KubeconformOptions,
    settings: RunSettings = SERIAL,
) -> CheckReport:
    """Validate ``inputs`` (collected once: :func:`generator.validate.inputs.collect_inputs`) as
    :func:`generator.validate.stream.stream_inputs` does, with kubeconform's findings merged."""
    files = [InputFile(name, path) for path, name in zip(inputs.paths, inputs.names, strict=True)]
    verdicts = Verdicts.open(settings.results_dir, settings.cache_secret, store)
    # small inputs are read once for kubeconform's stages and capzgen's own run
    reads = SharedReads(inputs, settings.tuning.keep_parsed_below)
    with start_on_files(files, store, kubeconform, reads.read, verdicts) as running:
        report = stream_inputs(reads.held(), store, options, settings)
        extra = second_opinion(report, running.finish(), options)
    report.findings = sort_findings([*report.findings, *with_lines(extra, running.texts)])
    return report
