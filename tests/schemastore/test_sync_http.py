"""``schemas sync`` over HTTP, against a server the test starts on 127.0.0.1 (no real network).

The server serves a copy of the upstream layout (the vendored test data), so both modes are real
downloads: ``--from http://...`` (a mirror) and the pinned ``url`` of each entry.
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import json
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.schemastore.test_cli import cached_files


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def mirror(tmp_path: Path, shared_dir: Path) -> Iterator[tuple[str, Path]]:
    """(base URL, served folder): a copy of the upstream layout on a loopback HTTP server."""
    root = tmp_path / "mirror"
    shutil.copytree(shared_dir, root)
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", root
    finally:
        server.shutdown()
        server.server_close()


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_sync_from_an_http_mirror(
    run_cli: Any, mirror: tuple[str, Path], isolated_cache: Path
) -> None:
    base, _ = mirror
    result = run_cli(["schemas", "sync", "--from", base + "/"])
    assert result.exit_code == 0, result.stderr
    assert "144 file(s) verified, 155 schema(s) written" in result.stdout
    assert len(cached_files(isolated_cache)) == 155
    rows = json.loads(run_cli(["schemas", "list", "-o", "json", "--all"]).stdout)
    cluster = [
        r for r in rows if r["apiVersion"] == "cluster.x-k8s.io/v1beta2" and r["kind"] == "Cluster"
    ]
    # The synced copy wins over the bundle, and both carry the pin they come from.
    assert [
        (r["source"].startswith(str(isolated_cache)), r["shadowed"], r["pinned"]) for r in cluster
    ] == [
        (True, False, "kubernetes-sigs/cluster-api@v1.13.3"),
        (False, True, "kubernetes-sigs/cluster-api@v1.13.3"),
    ]


def test_digest_mismatch_over_http_writes_nothing(
    run_cli: Any, mirror: tuple[str, Path], isolated_cache: Path
) -> None:
    base, root = mirror
    tampered = root / "crds/capz-v1.26.0/infrastructure.cluster.x-k8s.io_azuremanagedclusters.yaml"
    tampered.write_bytes(tampered.read_bytes().replace(b"description", b"Description", 1))
    result = run_cli(["schemas", "sync", "--from", base])
    assert result.exit_code == 2
    assert "sha256 mismatch" in result.stderr
    assert (
        f"{base}/crds/capz-v1.26.0/infrastructure.cluster.x-k8s.io_azuremanagedclusters.yaml"
        in result.stderr
    )
    assert "nothing was written" in result.stderr
    assert cached_files(isolated_cache) == []


def test_missing_file_on_the_server(
    run_cli: Any, mirror: tuple[str, Path], isolated_cache: Path
) -> None:
    base, root = mirror
    (root / "schemas/network.azure.com/natgateway_v1api20240301.json").unlink()
    result = run_cli(["schemas", "sync", "--from", base])
    assert result.exit_code == 2
    assert "cannot download" in result.stderr and "natgateway_v1api20240301.json" in result.stderr
    assert "HTTP 404" in result.stderr and "not pointing at a complete mirror" not in result.stderr
    assert cached_files(isolated_cache) == []


def test_unreachable_server(run_cli: Any, isolated_cache: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    result = run_cli(["schemas", "sync", "--from", url])
    assert result.exit_code == 2
    assert f"cannot download {url}/" in result.stderr
    assert "Hint: check the network, or sync from a mirror with --from DIR|URL" in result.stderr
    assert cached_files(isolated_cache) == []


def test_pinned_upstream_urls_are_downloaded(
    run_cli: Any, mirror: tuple[str, Path], isolated_cache: Path, tmp_path: Path
) -> None:
    """Without --from every entry's own `url` is fetched; the sha256 is checked all the same."""
    base, root = mirror
    path = "crds/capi-v1.13.3/cluster.x-k8s.io_machinepools.yaml"
    entry = {
        "name": "capi-machinepools",
        "version": "v1.13.3",
        "url": f"{base}/{path}",
        "path": path,
        "sha256": hashlib.sha256((root / path).read_bytes()).hexdigest(),
        "format": "crd-yaml",
    }
    sources = tmp_path / "sources.yaml"
    sources.write_text(yaml.safe_dump({"sources": [entry]}))
    result = run_cli(["schemas", "sync", "--sources", str(sources)])
    assert result.exit_code == 0, result.stderr
    assert [p.name for p in cached_files(isolated_cache)] == [
        "machinepool_v1beta1.json",
        "machinepool_v1beta2.json",
    ]
