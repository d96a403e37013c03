"""SSH public keys of the AKS nodes: they must parse as OpenSSH authorized keys.

CAPZ's AzureManagedControlPlane webhook (``validateAzureManagedControlPlaneSSHKey``, which calls
``ValidateSSHKey`` in ``internal/webhooks/azuremachine_validation.go``) rejects a legacy
``spec.sshPublicKey`` that is not base64 or whose decoded text is not an authorized key. The ASO
ManagedCluster takes the key text itself in ``linuxProfile.ssh.publicKeys[].keyData``, and AKS
rejects a key it cannot parse just the same, only later. The check here is structural (key type,
base64 blob that names the same type): enough to catch text, truncation and wrong encoding
without a cryptography library.
"""

from __future__ import annotations

import base64
import binascii
import struct
from collections.abc import Iterator

from generator.checks.fields import Owner
from generator.checks.rules.base import LEGACY_CONTROL_PLANES, Rule
from generator.checks.rules.managedcluster import managed_clusters
from generator.findings import Finding, Gate, JsonPath, Severity
from generator.jsontypes import dig
from generator.model import kinds
from generator.model.manifests import ManifestSet
from generator.model.values import as_dict, as_list, known_str

_KEY_TYPES = (
    "ssh-rsa",
    "ssh-dss",
    "ssh-ed25519",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "sk-ssh-ed25519@openssh.com",
    "sk-ecdsa-sha2-nistp256@openssh.com",
)


def _decode(text: str) -> bytes | None:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


def authorized_key_problem(text: str) -> str | None:
    """Why ``text`` is not an OpenSSH authorized key line (``type base64 [comment]``), or None.

    Options before the key type (``from="..." ssh-rsa ...``) are allowed, as OpenSSH allows them.
    """
    fields = text.split()
    for position, word in enumerate(fields[:-1]):
        if word in _KEY_TYPES:
            blob = _decode(fields[position + 1])
            if blob is None:
                return f"the {word} key data is not base64"
            if len(blob) < 4:
                return f"the {word} key data is too short to hold a key"
            (length,) = struct.unpack(">I", blob[:4])
            if blob[4 : 4 + length].decode("latin-1") != word:
                return f"the key data does not hold a {word} key"
            return None
    return f"is not an SSH public key ('<type> <base64 data> [comment]', type one of {', '.join(_KEY_TYPES[:4])}, ...)"


def _legacy_keys(ms: ManifestSet) -> Iterator[tuple[Owner, JsonPath, str, bool]]:
    for obj in ms.objects_of(kinds.LEGACY_CONTROL_PLANE):
        value = known_str(dig(obj.spec, "sshPublicKey"))
        if value:
            yield obj, ("spec", "sshPublicKey"), value, True


def _aso_keys(ms: ManifestSet) -> Iterator[tuple[Owner, JsonPath, str, bool]]:
    for res, spec in managed_clusters(ms):
        for index, item in enumerate(as_list(dig(spec, "linuxProfile", "ssh", "publicKeys")) or []):
            value = known_str((as_dict(item) or {}).get("keyData"))
            if value:
                path = ("spec", "linuxProfile", "ssh", "publicKeys", index, "keyData")
                yield res, path, value, False


SSH_KEY = Rule(
    "CAPZ-MC-SSH-KEY",
    "The nodes' SSH public key is an OpenSSH authorized key: legacy spec.sshPublicKey base64-encoded, "
    "ManagedCluster linuxProfile.ssh.publicKeys[].keyData as text (§5.3, K22; CAPZ ValidateSSHKey)",
    Severity.ERROR,
    Gate.PROVISIONING,
    why="AKS refuses the SSH key",
    webhook_kinds=LEGACY_CONTROL_PLANES,
)


@SSH_KEY.checks
def _check(ms: ManifestSet) -> Iterator[Finding]:
    for where, path, value, encoded in (*_legacy_keys(ms), *_aso_keys(ms)):
        text = value
        if encoded:
            decoded = _decode(value)
            if decoded is None:
                yield SSH_KEY.at(
                    where,
                    path,
                    "is not base64: CAPZ takes the authorized key line base64-encoded",
                    hint="base64 -w0 ~/.ssh/id_rsa.pub",
                )
                continue
            text = decoded.decode("utf-8", "replace")
        problem = authorized_key_problem(text)
        if problem is not None:
            yield SSH_KEY.at(where, path, problem)
