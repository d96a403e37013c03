"""ASO's own admission checks, run on every ASO resource: standalone documents and the resources
CAPZ objects embed alike (:attr:`ManifestSet.resources` holds both).

ASO's webhooks check these on create and update of every ASO object. A standalone object is
refused by ``kubectl apply``; an embedded one is refused only when CAPZ applies it, so the error
shows up late, as a condition on the CAPZ object, and the cluster waits. Each rule cites the ASO
v2 code it mirrors (``v2/pkg/genruntime`` and the generated ``createValidations`` of every
resource type), or, for the two checks ASO leaves to Azure, the Azure error it prevents.

Values follow Go's zero-value semantics, as ASO reads them: an empty string is the same as an
absent field. Go-template and ``${VAR}`` text counts as set but is never compared.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import final

from generator.checks.rules.base import Rule
from generator.findings import Finding, Gate, JsonPath, Severity
from generator.jsontypes import Json, JsonObject
from generator.model import kinds
from generator.model.manifests import AsoResource, ManifestSet
from generator.model.values import as_dict, as_list, as_str, is_templated, known_str

_REFERENCE_FIELDS = ("name", "group", "kind")


def _fields(ref: JsonObject, keys: list[str]) -> str:
    """``name 'x', group 'y'`` for messages."""
    return ", ".join(f"{key} {ref[key]!r}" for key in keys)


def _is_set(value: Json) -> bool:
    """Set as ASO (Go) sees it: present and not the empty string."""
    return value is not None and value != ""


def arm_resource_type(arm_id: str) -> str | None:
    """The ARM resource type an ARM ID names (``Microsoft.Network/virtualNetworks/subnets`` for a
    subnet, ``Microsoft.Resources/resourceGroups`` for a resource group), as Azure's ARM ID parser
    reads it; None when the text is no ARM ID (the schema's pattern reports that) or the type
    part is not known yet (a template)."""
    if not arm_id.startswith("/"):
        return None
    parts = arm_id.strip("/").split("/")
    lower = [part.lower() for part in parts]
    if "providers" in lower:
        start = len(lower) - lower[::-1].index("providers")
        rest = parts[start:]  # namespace, then type/name pairs
        if len(rest) < 3 or len(rest) % 2 == 0:
            return None
        found = "/".join((rest[0], *rest[1::2]))
    elif len(parts) == 2 and lower[0] == "subscriptions":
        found = "Microsoft.Resources/subscriptions"
    elif len(parts) == 4 and lower[0] == "subscriptions" and lower[2] == "resourcegroups":
        found = kinds.ARM_TYPES[kinds.RESOURCE_GROUP]
    else:
        return None
    return None if is_templated(found) else found


# --- ASO-OWNER ---------------------------------------------------------------------------------


def _owner_form_problem(res: AsoResource, owner: JsonObject) -> tuple[JsonPath, str] | None:
    """genruntime ``ResourceReference.Validate`` on the owner (``ValidateOwner``)."""
    arm_id = owner.get("armId")
    if res.group_kind in kinds.ARBITRARY_OWNER_KINDS:
        named = [key for key in _REFERENCE_FIELDS if _is_set(owner.get(key))]
        if _is_set(arm_id) and named:
            return ("armId",), (
                f"{arm_id} is set together with {_fields(owner, named)}: an owner is either an "
                "Azure resource (armId) or a Kubernetes resource (group, kind and name), not both"
            )
        if not _is_set(arm_id) and not named:
            return (), "names no owner: set armId, or group, kind and name"
        missing = [key for key in _REFERENCE_FIELDS if key not in named]
        if not _is_set(arm_id) and missing:
            return (
                (),
                f"has no {' and '.join(missing)}: an owner in Kubernetes needs group, kind and name",
            )
        return None
    if _is_set(arm_id) and _is_set(owner.get("name")):
        return ("armId",), (
            f"{arm_id} is set together with {_fields(owner, ['name'])}: an owner is either a "
            "resource of this namespace (name) or an existing Azure resource (armId), not both"
        )
    if not _is_set(arm_id) and not _is_set(owner.get("name")):
        return (), "names no owner: set name (a resource of this namespace) or armId"
    return None


def _owner_arm_problem(res: AsoResource, arm_id: str) -> str | None:
    """genruntime ``VerifyResourceOwnerARMID``: the owner's ARM type is the parent type of the
    resource's own (a resource group for top-level resources)."""
    owner_kind = kinds.OWNER_KINDS.get(res.group_kind)
    expected = kinds.ARM_TYPES.get(owner_kind) if owner_kind is not None else None
    found = arm_resource_type(arm_id)
    if owner_kind is None or expected is None or found is None or found.lower() == expected.lower():
        return None
    return (
        f"{arm_id} is the ID of a {found}; the owner of a {res.kind} is a {owner_kind[1]} "
        f"({expected})"
    )


OWNER = Rule(
    "ASO-OWNER",
    "spec.owner names one owner: name or armId, not both (extension resources: group, kind and "
    "name, or armId); an owner armId is of the owner's ARM type, a resource group for top-level "
    "resources (O1, O5, R6, R10; ASO genruntime ValidateOwner, VerifyResourceOwnerARMID)",
    Severity.ERROR,
    Gate.ADMISSION,
)


@OWNER.checks
def _check_owner(ms: ManifestSet) -> Iterator[Finding]:
    for res in ms.resources:
        owner = as_dict((res.spec or {}).get("owner"))
        if owner is None:
            continue  # required by the schema (O1); ResourceGroup has none
        base: JsonPath = ("spec", "owner")
        problem = _owner_form_problem(res, owner)
        if problem is not None:
            rel, message = problem
            yield OWNER.at(res, (*base, *rel), message)
            continue
        arm_id = as_str(owner.get("armId"))  # placeholders in names leave the type readable
        found = _owner_arm_problem(res, arm_id) if arm_id else None
        if found is not None:
            yield OWNER.at(res, (*base, "armId"), found)


# --- ASO-REFERENCE -----------------------------------------------------------------------------


@final
class _Scan:
    """What ASO-REFERENCE checks in one resource's spec, found in one walk over it.

    * ``references``: every resource reference: the mappings at keys ``reference`` and
      ``*Reference`` and the mapping items of lists at ``*References`` (how ASO names every
      ``genruntime.ResourceReference`` it generates from an ARM ID property); nothing inside a
      reference is taken for another one;
    * ``pairs``: (path of ``<x>FromConfig``, ``<x>``) for each value given both directly and from
      a ConfigMap: the ``optionalConfigMapPair`` properties ASO generates (``principalId`` and
      ``principalIdFromConfig``, ``issuer`` and ``issuerFromConfig`` ...), at any depth.

    Both come in document order. The path so far is one list, extended and shortened on the way,
    and copied into a tuple only where something is found.
    """

    def __init__(self, trail: list[str | int]) -> None:
        self.references: list[tuple[JsonPath, JsonObject]] = []
        self.pairs: list[tuple[JsonPath, str]] = []
        self.trail = trail

    def walk(self, value: Json, references: bool) -> None:
        """Everything below ``value``; ``references`` is False inside a reference."""
        if isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, (dict, list)):
                    self.trail.append(index)
                    self.walk(item, references)
                    self.trail.pop()
        elif isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str):
                    self._member(value, key, item, references)

    def _member(self, parent: JsonObject, key: str, item: Json, references: bool) -> None:
        plain = key.removesuffix("FromConfig")
        if plain != key and plain and item is not None and parent.get(plain) is not None:
            self.pairs.append(((*self.trail, key), plain))
        if references and (key == "reference" or key.endswith("Reference")):
            if isinstance(item, dict):
                self.references.append(((*self.trail, key), item))
                references = False
        elif references and key.endswith("References") and isinstance(item, list):
            self.references.extend(
                ((*self.trail, key, index), entry)
                for index, entry in enumerate(item)
                if isinstance(entry, dict)
            )
            references = False
        if isinstance(item, (dict, list)):
            self.trail.append(key)
            self.walk(item, references)
            self.trail.pop()


def _reference_problem(ref: JsonObject) -> tuple[JsonPath, str] | None:
    """genruntime ``ResourceReference.Validate``; a ``WellKnownResourceReference`` (ASO v2.16+,
    e.g. RoleAssignment ``roleDefinitionReference``) may instead name a built-in Azure resource by
    ``wellKnownName`` alone."""
    if _is_set(ref.get("wellKnownName")):
        others = [key for key in ("armId", *_REFERENCE_FIELDS) if _is_set(ref.get(key))]
        if others:
            return ("wellKnownName",), (
                f"is set together with {_fields(ref, others)}: a reference names a well-known "
                "resource, an Azure resource (armId) or a Kubernetes resource, only one of them"
            )
        return None
    arm_id = ref.get("armId")
    named = [key for key in _REFERENCE_FIELDS if _is_set(ref.get(key))]
    if not _is_set(arm_id) and not named:
        return (), "names nothing: set armId (an existing Azure resource) or group, kind and name"
    if _is_set(arm_id) and named:
        return ("armId",), (
            f"{arm_id} is set together with {_fields(ref, named)}: a reference is either an "
            "Azure resource (armId) or a Kubernetes resource (group, kind and name), not both"
        )
    missing = [key for key in _REFERENCE_FIELDS if key not in named]
    if not _is_set(arm_id) and missing:
        return (), (
            f"has no {' and '.join(missing)}: a reference to a Kubernetes resource needs group, "
            "kind and name"
        )
    return None


REFERENCE = Rule(
    "ASO-REFERENCE",
    "Resource references (*Reference, reference, *References[]) give armId or group, kind and "
    "name, not both and not neither; a value and its *FromConfig twin are not both set (O5, "
    "R13; ASO genruntime ResourceReference.Validate, configmaps.ValidateOptionalReferences)",
    Severity.ERROR,
    Gate.ADMISSION,
)


@REFERENCE.checks
def _check_reference(ms: ManifestSet) -> Iterator[Finding]:
    for res in ms.resources:
        spec = res.spec
        if spec is None:
            continue
        body = {key: value for key, value in spec.items() if key != "owner"}  # ASO-OWNER's
        scan = _Scan(["spec"])
        scan.walk(body, references=True)
        for path, ref in scan.references:
            problem = _reference_problem(ref)
            if problem is not None:
                rel, message = problem
                yield REFERENCE.at(res, (*path, *rel), message)
        fic = res.group_kind == kinds.FEDERATED_IDENTITY_CREDENTIAL
        for path, plain in scan.pairs:
            if fic and path == ("spec", "issuerFromConfig"):
                continue  # ASO-FIC-ISSUER's
            yield REFERENCE.at(
                res,
                path,
                f"is set together with {plain}: give the value directly or read it from a "
                "ConfigMap, not both",
            )


# --- ASO-SECRET-DESTINATION --------------------------------------------------------------------

_DESTINATIONS = (
    ("secrets", "secretExpressions", "Secret"),
    ("configMaps", "configMapExpressions", "ConfigMap"),
)


def _destinations(
    operator: JsonObject, named: str, expressions: str
) -> Iterator[tuple[JsonPath, tuple[str, str]]]:
    """(path, (name, key)) of each destination, the named ones first, as ASO collects them. An
    expression without a key writes a whole map, which ASO cannot check before it runs."""
    places: list[tuple[JsonPath, Json]] = [
        ((named, field), dest) for field, dest in (as_dict(operator.get(named)) or {}).items()
    ]
    places += (
        ((expressions, index), dest)
        for index, dest in enumerate(as_list(operator.get(expressions)) or ())
    )
    for rel, dest in places:
        entry = as_dict(dest) or {}
        name, key = entry.get("name"), entry.get("key")
        if isinstance(name, str) and isinstance(key, str) and key:
            yield rel, (name, key)


SECRET_DESTINATION = Rule(
    "ASO-SECRET-DESTINATION",
    "No two operatorSpec secrets (or configMaps, or keyed expressions) of one resource write to "
    "the same name and key (C9, §4.6; ASO genruntime secrets/configmaps ValidateDestinations)",
    Severity.ERROR,
    Gate.ADMISSION,
)


@SECRET_DESTINATION.checks
def _check_secret_destination(ms: ManifestSet) -> Iterator[Finding]:
    for res in ms.resources:
        operator = as_dict((res.spec or {}).get("operatorSpec"))
        if operator is None:
            continue
        for named, expressions, what in _DESTINATIONS:
            first: dict[tuple[str, str], JsonPath] = {}
            for rel, target in _destinations(operator, named, expressions):
                if target not in first:
                    first[target] = rel
                    continue
                earlier = ".".join(str(part) for part in first[target])
                yield SECRET_DESTINATION.at(
                    res,
                    ("spec", "operatorSpec", *rel),
                    f"writes {what} {target[0]!r} key {target[1]!r}, as operatorSpec.{earlier} "
                    "does: ASO writes one value per destination",
                )


# --- ASO-IDENTITY-USERASSIGNED -----------------------------------------------------------------


IDENTITY = Rule(
    "ASO-IDENTITY-USERASSIGNED",
    "identity.type UserAssigned (or SystemAssigned, UserAssigned) comes with "
    "userAssignedIdentities, and userAssignedIdentities only with such a type (§4.7; Azure "
    "MissingIdentityIds, which ASO does not check before)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="ARM refuses it (MissingIdentityIds); ASO's webhook does not check it",
)


@IDENTITY.checks
def _check_identity(ms: ManifestSet) -> Iterator[Finding]:
    for res in ms.resources:
        identity = as_dict((res.spec or {}).get("identity"))
        identity_type = known_str((identity or {}).get("type"))
        if identity is None or identity_type is None:
            continue
        user_assigned = "UserAssigned" in {part.strip() for part in identity_type.split(",")}
        identities = identity.get("userAssignedIdentities")
        if user_assigned and not identities:
            yield IDENTITY.at(
                res,
                ("spec", "identity", "type"),
                f"{identity_type} needs spec.identity.userAssignedIdentities: Azure refuses a "
                "user-assigned identity type without identities (MissingIdentityIds)",
            )
        elif not user_assigned and identities:
            yield IDENTITY.at(
                res,
                ("spec", "identity", "userAssignedIdentities"),
                f"is only used with a UserAssigned identity type; the type is {identity_type}, "
                "and Azure refuses identities for it",
            )


# --- ASO-FIC-ISSUER ----------------------------------------------------------------------------


FIC_ISSUER = Rule(
    "ASO-FIC-ISSUER",
    "A FederatedIdentityCredential has exactly one of issuer and issuerFromConfig (§4.6; ASO "
    "configmaps.ValidateOptionalReferences, and Azure requires an issuer)",
    Severity.ERROR,
    Gate.ADMISSION,
    why="ARM refuses a federated credential without an issuer",
    split="Provisioning when neither issuer nor issuerFromConfig is set: ASO's webhook admits it, ARM refuses it",
)


@FIC_ISSUER.checks
def _check_fic_issuer(ms: ManifestSet) -> Iterator[Finding]:
    for res in ms.resources_of(kinds.FEDERATED_IDENTITY_CREDENTIAL):
        spec = res.spec
        if spec is None:
            continue
        issuer, from_config = spec.get("issuer"), spec.get("issuerFromConfig")
        if issuer is not None and from_config is not None:
            yield FIC_ISSUER.at(
                res,
                ("spec", "issuerFromConfig"),
                f"is set together with issuer {as_str(issuer) or issuer!r}: give the issuer URL "
                "directly or read it from a ConfigMap, not both",
            )
        elif not _is_set(issuer) and from_config is None:
            yield FIC_ISSUER.at(
                res,
                ("spec",),
                "has neither issuer nor issuerFromConfig: Azure needs the URL of the issuer to trust",
                hint="read the cluster's OIDC issuer URL from the ConfigMap its ManagedCluster "
                "writes (operatorSpec.configMaps.oidcIssuerProfile)",
                # ASO's webhook refuses both; neither it admits, and ARM is the one to refuse
                gate=Gate.PROVISIONING,
            )
