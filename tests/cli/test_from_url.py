"""`--from URL`: downloads (bounded, cached by ETag) from a server the test starts on 127.0.0.1,
GitHub URL handling through an injected opener, and the URLs capzgen refuses."""

from __future__ import annotations

import hashlib
import http.server
import io
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from generator.clusterctl.remote import FetchOptions, Response, download_url, fetch_template
from generator.errors import InputOutputError, UsageError

TEMPLATE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: ${CLUSTER_NAME}
data:
  region: ${AZURE_LOCATION:=westeurope}
"""


@dataclass
class Site:
    """What the test server serves and what it was asked."""

    files: dict[str, bytes] = field(default_factory=dict)
    redirects: dict[str, str] = field(default_factory=dict)
    stall: set[str] = field(default_factory=set)
    requests: list[tuple[str, str | None]] = field(default_factory=list)  # path, If-None-Match
    base: str = ""
    server: http.server.ThreadingHTTPServer | None = None

    def stop(self) -> None:
        """Stop answering: the port refuses connections from now on."""
        assert self.server is not None
        self.server.shutdown()
        self.server.server_close()


def _handler(site: Site) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            site.requests.append((self.path, self.headers.get("If-None-Match")))
            if self.path in site.redirects:
                self.send_response(302)
                self.send_header("Location", site.redirects[self.path])
                self.end_headers()
                return
            body = site.files.get(self.path)
            if body is None:
                self.send_error(404)
                return
            etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
            if self.headers.get("If-None-Match") == etag:
                self.send_response(304)
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("ETag", etag)
            self.end_headers()
            if self.path in site.stall:
                self.wfile.write(body[:10])
                self.wfile.flush()
                threading.Event().wait(3)  # longer than the test's --from-timeout
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@pytest.fixture
def site() -> Iterator[Site]:
    """An HTTP server on 127.0.0.1 (an ephemeral port), stopped after the test."""
    state = Site(files={"/t.yaml": TEMPLATE.encode()})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    state.base = f"http://127.0.0.1:{server.server_address[1]}"
    state.server = server
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def test_generate_yaml_and_cluster_read_a_url(run_cli: Any, site: Site) -> None:
    url = f"{site.base}/t.yaml"
    result = run_cli(["generate", "yaml", "--from", url], env={"CLUSTER_NAME": "c1"})
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (
        "apiVersion: v1\ndata:\n  region: westeurope\nkind: ConfigMap\nmetadata:\n  name: c1\n"
    )
    result = run_cli(["generate", "cluster", "c2", "--from", url])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.endswith("metadata:\n  name: c2\n")


def test_list_variables_of_a_url(run_cli: Any, site: Site) -> None:
    result = run_cli(["generate", "yaml", "--from", f"{site.base}/t.yaml", "--list-variables"])
    assert result.stdout == "Variables:\n  - AZURE_LOCATION\n  - CLUSTER_NAME\n"


def test_a_second_download_asks_with_the_etag_and_uses_the_cache(
    run_cli: Any, site: Site, tmp_path: Path
) -> None:
    env = {"CAPZGEN_CACHE_DIR": str(tmp_path / "cache"), "CLUSTER_NAME": "c1"}
    url = f"{site.base}/t.yaml"
    first = run_cli(["generate", "yaml", "--from", url], env=env)
    second = run_cli(["generate", "yaml", "--from", url], env=env)
    assert first.exit_code == second.exit_code == 0
    assert first.stdout == second.stdout
    etag = '"' + hashlib.sha256(TEMPLATE.encode()).hexdigest()[:16] + '"'
    assert site.requests == [("/t.yaml", None), ("/t.yaml", etag)]
    assert len(list((tmp_path / "cache" / "templates").glob("*.body"))) == 1


def test_an_unreachable_server_falls_back_to_the_cached_copy(
    run_cli: Any, site: Site, tmp_path: Path
) -> None:
    env = {"CAPZGEN_CACHE_DIR": str(tmp_path / "cache"), "CLUSTER_NAME": "c1"}
    url = f"{site.base}/t.yaml"
    assert run_cli(["generate", "yaml", "--from", url], env=env).exit_code == 0
    offline = FetchOptions(cache_dir=tmp_path / "cache" / "templates", opener=_refuse)
    fetched = fetch_template(url, offline)
    assert fetched.text == TEMPLATE
    assert fetched.note == (
        f"cannot reach {url} (connection refused); using the copy cached from an earlier download"
    )
    # Without a cache the same failure is an error naming the URL.
    with pytest.raises(InputOutputError) as caught:
        fetch_template(url, FetchOptions(opener=_refuse))
    assert str(caught.value) == f"{url}: cannot download template: connection refused"


def test_a_damaged_cache_entry_is_downloaded_again(site: Site, tmp_path: Path) -> None:
    url = f"{site.base}/t.yaml"
    options = FetchOptions(cache_dir=tmp_path)
    fetch_template(url, options)
    (body,) = tmp_path.glob("*.body")
    body.write_bytes(b"tampered")
    assert fetch_template(url, options).text == TEMPLATE
    assert [etag for _, etag in site.requests] == [None, None]


def test_the_cli_prints_the_fallback_as_a_warning(run_cli: Any, site: Site, tmp_path: Path) -> None:
    env = {"CAPZGEN_CACHE_DIR": str(tmp_path / "cache"), "CLUSTER_NAME": "c1"}
    url = f"{site.base}/t.yaml"
    online = run_cli(["generate", "yaml", "--from", url], env=env)
    site.stop()
    offline = run_cli(["generate", "yaml", "--from", url], env=env)
    assert offline.exit_code == 0, offline.stderr
    assert offline.stdout == online.stdout
    assert offline.stderr.startswith(f"warning: cannot reach {url} (")
    assert offline.stderr.endswith("); using the copy cached from an earlier download\n")


def test_a_redirect_to_another_scheme_is_refused(run_cli: Any, site: Site) -> None:
    site.redirects["/t.yaml"] = "ftp://127.0.0.1/elsewhere"
    result = run_cli(["generate", "yaml", "--from", f"{site.base}/t.yaml"])
    assert result.exit_code == 2
    assert result.stderr.startswith('Error: unable to read content from "ftp://127.0.0.1/')


def test_http_errors_name_the_status(run_cli: Any, site: Site) -> None:
    url = f"{site.base}/missing.yaml"
    result = run_cli(["generate", "yaml", "--from", url])
    assert result.exit_code == 2
    assert result.stderr == (
        f"Error: {url}: cannot download template: failed to get file, got 404\n"
        "Hint: check the URL and the network, or download the file and pass its path to --from\n"
    )


def test_a_download_is_bounded_in_size(site: Site) -> None:
    site.files["/big.yaml"] = b"a: b\n" * 100
    with pytest.raises(InputOutputError) as caught:
        fetch_template(f"{site.base}/big.yaml", FetchOptions(max_bytes=64))
    assert caught.value.message == "template is larger than 64 bytes"


def test_a_stalled_download_times_out(run_cli: Any, site: Site) -> None:
    site.files["/slow.yaml"] = TEMPLATE.encode() * 100
    site.stall.add("/slow.yaml")
    url = f"{site.base}/slow.yaml"
    result = run_cli(["generate", "yaml", "--from", url, "--from-timeout", "0.3"])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"Error: {url}: cannot download template: ")
    assert "timed out" in result.stderr


def test_binary_content_is_refused_like_a_file(site: Site) -> None:
    site.files["/bin.yaml"] = b"a: \x00\x01"
    with pytest.raises(Exception, match=r"not a text file: control character 0x00"):
        fetch_template(f"{site.base}/bin.yaml", FetchOptions())


def test_a_redirect_to_plain_http_elsewhere_is_refused(run_cli: Any, site: Site) -> None:
    site.redirects["/moved.yaml"] = "http://example.com/t.yaml"
    result = run_cli(["generate", "yaml", "--from", f"{site.base}/moved.yaml"])
    assert result.exit_code == 2
    assert result.stderr == (
        'Error: unable to read content from "http://example.com/t.yaml": only https:// URLs '
        "(and http:// to this machine's loopback address), local files, file:// URLs and '-' "
        "are supported\n"
    )
    site.redirects["/moved.yaml"] = "/t.yaml"  # a redirect on the loopback server is followed
    result = run_cli(
        ["generate", "yaml", "--from", f"{site.base}/moved.yaml"], env={"CLUSTER_NAME": "c1"}
    )
    assert result.exit_code == 0, result.stderr


@pytest.mark.parametrize(
    "url", ["http://example.com/t.yaml", "ftp://example.com/t.yaml", "s3://bucket/t.yaml"]
)
def test_schemes_other_than_https_are_refused(run_cli: Any, url: str) -> None:
    result = run_cli(["generate", "cluster", "c1", "--from", url])
    assert result.exit_code == 2
    assert result.stderr.startswith(f'Error: unable to read content from "{url}": only https://')


# --- GitHub URLs, through an injected opener (no network) ----------------------------------------


class _Answer(io.BytesIO):
    def __init__(self, body: bytes, status: int = 200) -> None:
        super().__init__(body)
        self.status = status
        self.headers: dict[str, str] = {}
        self.reads = 0

    def read(self, size: int | None = -1, /) -> bytes:
        self.reads += 1
        return super().read(size)


def _refuse(request: urllib.request.Request, timeout: float) -> Response:
    msg = "connection refused"
    raise urllib.error.URLError(msg)


def test_github_blob_urls_are_read_raw() -> None:
    seen: list[str] = []

    def opener(request: urllib.request.Request, timeout: float) -> Response:
        seen.append(request.full_url)
        return _Answer(TEMPLATE.encode())

    url = (
        "https://github.com/kubernetes-sigs/cluster-api-provider-azure/blob/v1.26.0/"
        "templates/cluster-template-aks-aso.yaml"
    )
    fetched = fetch_template(url, FetchOptions(opener=opener))
    assert fetched.text == TEMPLATE
    assert fetched.source == url
    assert seen == [
        "https://raw.githubusercontent.com/kubernetes-sigs/cluster-api-provider-azure/v1.26.0/"
        "templates/cluster-template-aks-aso.yaml"
    ]


def test_github_release_assets_are_downloaded_as_they_are() -> None:
    url = (
        "https://github.com/kubernetes-sigs/cluster-api-provider-azure/releases/download/"
        "v1.26.0/cluster-template-aks-aso.yaml"
    )
    assert download_url(url) == url
    assert download_url("https://example.com/x.yaml") == "https://example.com/x.yaml"


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/kubernetes-sigs/cluster-api-provider-azure",
        "https://github.com/o/r/tree/main/templates/x.yaml",
        "https://github.com/o/r/releases/download/v1/",
    ],
)
def test_other_github_pages_are_refused(url: str) -> None:
    with pytest.raises(UsageError) as caught:
        download_url(url)
    assert caught.value.message == (
        f'invalid GitHub URL "{url}": expected https://github.com/OWNER/REPO/blob/REF/PATH or '
        "https://github.com/OWNER/REPO/releases/download/TAG/ASSET"
    )


def test_a_status_other_than_200_is_an_error() -> None:
    def opener(request: urllib.request.Request, timeout: float) -> Response:
        return _Answer(b"", status=204)

    with pytest.raises(InputOutputError) as caught:
        fetch_template("https://example.com/t.yaml", FetchOptions(opener=opener))
    assert caught.value.message == "cannot download template: failed to get file, got 204"


def test_a_custom_opener_may_answer_not_modified_directly(tmp_path: Path) -> None:
    answers = [_Answer(TEMPLATE.encode()), _Answer(b"", status=304)]
    answers[0].headers["ETag"] = '"v1"'
    sent: list[str | None] = []

    def opener(request: urllib.request.Request, timeout: float) -> Response:
        sent.append(request.get_header("If-none-match"))
        return answers.pop(0)

    options = FetchOptions(cache_dir=tmp_path, opener=opener)
    assert fetch_template("https://example.com/t.yaml", options).text == TEMPLATE
    assert fetch_template("https://example.com/t.yaml", options).text == TEMPLATE
    assert sent == [None, '"v1"']


def test_a_declared_length_over_the_bound_is_refused_before_reading() -> None:
    answer = _Answer(b"never read")
    answer.headers["Content-Length"] = "1000"

    def opener(request: urllib.request.Request, timeout: float) -> Response:
        return answer

    with pytest.raises(InputOutputError) as caught:
        fetch_template("https://example.com/t.yaml", FetchOptions(max_bytes=100, opener=opener))
    assert caught.value.message == "template is larger than 100 bytes"
    assert answer.reads == 0
    assert answer.closed
