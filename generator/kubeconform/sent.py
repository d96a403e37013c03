"""What capzgen sends kubeconform of a document: the object itself and the ASO resources CAPZ
objects embed (``spec.resources``, which the CAPZ CRDs leave unchecked), each with the subject
and JSON path its findings belong to. One selection for every path that sends objects
(:mod:`generator.kubeconform.process`'s stream, ``validate --kubeconform``'s embedded stream,
and the files parsed again to place kubeconform's report)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from generator.documents import Document
from generator.findings import JsonPath, Subject
from generator.jsontypes import JsonObject
from generator.kubeconform.report import Sent
from generator.model import kinds
from generator.model.manifests import embedded_items
from generator.names import valid_api_version
from generator.schemastore.types import GroupVersionKind


def sent_objects(documents: Sequence[Document]) -> Iterator[Sent]:
    """Every mapping document and every ASO resource embedded in one, as sent to kubeconform."""
    for document in documents:
        obj = document.obj
        if not isinstance(obj, dict):
            continue
        subject = _subject(document, obj)
        in_template = subject.kind in kinds.TEMPLATE_KINDS
        gvk = sendable_gvk(obj)
        if gvk is not None:
            yield Sent(subject, (), obj, gvk, in_template)
        yield from _embedded(subject, obj, in_template)


def _subject(document: Document, obj: JsonObject) -> Subject:
    kind = obj.get("kind")
    meta = obj.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    return Subject(
        file=document.source,
        document=document.index,
        kind=kind if isinstance(kind, str) and kind else None,
        name=name if isinstance(name, str) else None,
    )


def _embedded(subject: Subject, obj: JsonObject, in_template: bool) -> Iterator[Sent]:
    for path, item, api_version, kind in embedded_objects(obj, subject.kind):
        gvk = GroupVersionKind.from_api_version(api_version, kind)
        yield Sent(subject.embedded(path, item), path, item, gvk, in_template)


def embedded_objects(
    obj: JsonObject, kind: str | None
) -> Iterator[tuple[JsonPath, JsonObject, str, str]]:
    """The ASO resources embedded in ``obj`` (a document of ``kind``) that are sent, each with
    its path in the document, apiVersion and kind: what :func:`sent_objects` sends of them,
    without the subject and GVK values made for each (the embedded stream of a fleet writes thousands,
    and makes those only for the few kubeconform reports on)."""
    prefix, items = embedded_items(obj, kind)
    for index, item in enumerate(items or ()):
        if isinstance(item, dict):
            named = sendable(item)
            if named is not None:
                yield (*prefix, index), item, named[0], named[1]


def sendable(obj: JsonObject) -> tuple[str, str] | None:
    """``obj``'s apiVersion and kind, unless it has no usable pair: such objects are left out
    (the structure check reports them)."""
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str) or not kind:
        return None
    if not valid_api_version(api_version):
        return None
    return api_version, kind


def sendable_gvk(obj: JsonObject) -> GroupVersionKind | None:
    """The GVK of ``obj`` as sent (:func:`sendable`), or None."""
    named = sendable(obj)
    return None if named is None else GroupVersionKind.from_api_version(*named)


def embedded_in(document: Document) -> Iterator[tuple[JsonPath, JsonObject, str, str]]:
    """:func:`embedded_objects` of a document (nothing for one that is not a mapping)."""
    obj = document.obj
    if isinstance(obj, dict):
        kind = obj.get("kind")
        yield from embedded_objects(obj, kind if isinstance(kind, str) else None)
