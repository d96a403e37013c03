"""``--from URL``: a template downloaded the way clusterctl reads one, bounded and cached.

URL handling follows clusterctl (reference §1.4), with capzgen's choices where it differs:

* ``https://github.com/OWNER/REPO/blob/REF/PATH`` is read from ``raw.githubusercontent.com``
  (clusterctl uses the contents API; the bytes are the same, and no API rate limit applies);
  ``https://github.com/OWNER/REPO/releases/download/TAG/ASSET`` is downloaded as it is. Other
  github.com paths are refused. No token is sent (clusterctl sends ``GITHUB_TOKEN``; a redirect
  could carry it to another host): private repositories need a local copy.
* any other ``https://`` URL is a plain GET that must answer 200.
* ``http://`` is refused, except to this machine's loopback address (``127.0.0.0/8``, ``::1``,
  ``localhost``): plain HTTP over the network could be altered on the way. The same holds for
  every redirect.
* a download is bounded by size (:data:`~generator.yamlio.limits.MAX_BYTES`, checked while
  reading) and time: ``timeout`` is a total deadline over connecting, the headers and the body
  (redirects included), every read of the socket waiting at most the time left, so a server
  that sends one byte a second cannot stretch it; and it must be UTF-8 text like any input.

With a cache folder, each URL's last download is kept with its ``ETag``; the next run asks the
server with ``If-None-Match`` and reuses the copy on ``304 Not Modified``. When the server cannot
be reached, a cached copy is used and the result says so (a note the CLI prints as a warning).
The opener is a parameter so that tests (and library users) decide how requests are made.
"""

from __future__ import annotations

import functools
import hashlib
import http.client
import io
import ipaddress
import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol

from generator.errors import InputOutputError, Location, UsageError
from generator.output.fsio import write_atomically
from generator.yamlio.limits import MAX_BYTES
from generator.yamlio.source import decode_source

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

DEFAULT_TIMEOUT = 30.0
_CHUNK = 1 << 16
_GITHUB_FORMS = (
    "https://github.com/OWNER/REPO/blob/REF/PATH or "
    "https://github.com/OWNER/REPO/releases/download/TAG/ASSET"
)


class Response(Protocol):
    """What a download needs of an HTTP response (``http.client.HTTPResponse`` has it)."""

    @property
    def status(self) -> int:
        """The HTTP status code."""

    @property
    def headers(self) -> Mapping[str, str]:
        """The response headers (``get`` is what is used)."""

    def read(self, size: int = -1, /) -> bytes:
        """Up to ``size`` bytes of the body."""

    def close(self) -> None:
        """Release the connection."""


Opener = Callable[[urllib.request.Request, float], Response]


def _is_loopback(host: str | None) -> bool:
    if not host:
        return False
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_url(url: str) -> None:
    """Refuse what capzgen does not download: schemes other than https, and plain http except to
    the loopback address."""
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "https" or (scheme == "http" and _is_loopback(parts.hostname)):
        return
    msg = (
        f'unable to read content from "{url}": only https:// URLs (and http:// to this '
        "machine's loopback address), local files, file:// URLs and '-' are supported"
    )
    raise UsageError(msg)


def download_url(url: str) -> str:
    """The URL actually requested for ``url``: GitHub blob pages become raw downloads."""
    check_url(url)
    parts = urllib.parse.urlsplit(url)
    if parts.scheme.lower() != "https" or (parts.hostname or "").lower() != "github.com":
        return url
    segments = [urllib.parse.unquote(s) for s in parts.path.strip("/").split("/")]
    if len(segments) >= 5 and segments[2] == "blob" and all(segments):
        owner, repo, _, ref, *path = segments
        quoted = "/".join(urllib.parse.quote(p) for p in [owner, repo, ref, *path])
        return f"https://raw.githubusercontent.com/{quoted}"
    if len(segments) == 6 and segments[2:4] == ["releases", "download"] and all(segments):
        return url
    msg = f'invalid GitHub URL "{url}": expected {_GITHUB_FORMS}'
    raise UsageError(msg)


class _CheckedRedirects(urllib.request.HTTPRedirectHandler):
    """Follow redirects only to URLs :func:`check_url` accepts."""

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: http.client.HTTPMessage,
        newurl: str,
    ) -> urllib.request.Request | None:
        """The next request, after checking where it goes."""
        check_url(newurl)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


class Deadline:
    """A point in time (``time.monotonic``) that a whole download must end by."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds

    def remaining(self) -> float:
        """Seconds left; a ``TimeoutError`` once none are."""
        left = self.at - time.monotonic()
        if left <= 0:
            msg = f"timed out after {self.seconds:g} s"
            raise TimeoutError(msg)
        return left


class _DeadlineReader(io.RawIOBase):
    """The socket's reader, with the socket's timeout set to the time left before every read:
    a server that sends one byte a second cannot stretch the headers or the body past the
    deadline (a plain socket timeout bounds each read, not their sum)."""

    def __init__(self, raw: io.BufferedReader, sock: socket.socket, deadline: Deadline) -> None:
        super().__init__()
        self._raw = raw
        self._sock = sock
        self._deadline = deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer, /) -> int | None:
        self._sock.settimeout(self._deadline.remaining())
        return self._raw.readinto1(buffer)  # one read of the socket at most

    def close(self) -> None:
        self._raw.close()
        super().close()


class _DeadlineResponse(http.client.HTTPResponse):
    """An ``HTTPResponse`` whose status line, headers and body are read within the deadline."""

    def __init__(self, sock: socket.socket, *args: Any, deadline: Deadline, **kwargs: Any) -> None:
        super().__init__(sock, *args, **kwargs)
        self.fp = io.BufferedReader(_DeadlineReader(self.fp, sock, deadline))


def _connection(
    base: type[http.client.HTTPConnection], deadline: Deadline
) -> Callable[..., http.client.HTTPConnection]:
    """``base`` connections that connect within the time left and read within the deadline."""

    def make(host: str, **kwargs: Any) -> http.client.HTTPConnection:
        kwargs["timeout"] = deadline.remaining()  # connect (and TLS handshake) within the time left
        connection = base(host, **kwargs)
        connection.response_class = functools.partial(  # type: ignore[assignment]
            _DeadlineResponse, deadline=deadline
        )
        return connection

    return make


class _DeadlineHTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, deadline: Deadline) -> None:
        super().__init__()
        self._deadline = deadline

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_connection(http.client.HTTPConnection, self._deadline), req)


class _DeadlineHTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, deadline: Deadline) -> None:
        super().__init__()
        self._deadline = deadline

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(
            _connection(http.client.HTTPSConnection, self._deadline),
            req,
            context=self._context,  # type: ignore[attr-defined]
        )


def urllib_opener(request: urllib.request.Request, timeout: float) -> Response:
    """The default opener: urllib, with checked redirects (HTTP errors raise ``HTTPError``) and
    ``timeout`` as a total deadline over every connection, the headers and the body (redirects
    included): each read waits at most the time left."""
    deadline = Deadline(timeout)
    opener = urllib.request.build_opener(
        _CheckedRedirects(), _DeadlineHTTPHandler(deadline), _DeadlineHTTPSHandler(deadline)
    )
    response: Response = opener.open(request, timeout=timeout)
    return response


@dataclass(frozen=True)
class FetchOptions:
    """How to download: overall timeout (seconds), size bound, cache folder (None: no cache) and
    the opener that makes the request."""

    timeout: float = DEFAULT_TIMEOUT
    max_bytes: int = MAX_BYTES
    cache_dir: Path | None = None
    opener: Opener = urllib_opener


@dataclass(frozen=True)
class Fetched:
    """A downloaded template: its text, the name findings and errors use, and a note for the user
    (a cached copy used because the server could not be reached)."""

    text: str
    source: str
    note: str | None = None


@dataclass(frozen=True)
class _Cached:
    body: bytes
    etag: str | None


def _cache_paths(cache_dir: Path, url: str) -> tuple[Path, Path]:
    key = hashlib.sha256(url.encode("utf-8")).hexdigest()
    return cache_dir / f"{key}.body", cache_dir / f"{key}.json"


def _read_cache(cache_dir: Path | None, url: str) -> _Cached | None:
    """The cached download of ``url`` if it is whole (its digest matches); else None."""
    if cache_dir is None:
        return None
    body_path, meta_path = _cache_paths(cache_dir, url)
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        body = body_path.read_bytes()
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict) or meta.get("url") != url:
        return None
    if meta.get("sha256") != hashlib.sha256(body).hexdigest():
        return None
    etag = meta.get("etag")
    return _Cached(body, etag if isinstance(etag, str) else None)


def _write_cache(cache_dir: Path | None, url: str, body: bytes, etag: str | None) -> None:
    if cache_dir is None:
        return
    body_path, meta_path = _cache_paths(cache_dir, url)
    meta = {"url": url, "etag": etag, "sha256": hashlib.sha256(body).hexdigest()}
    write_atomically(body_path, body, make_parents=True)
    write_atomically(meta_path, json.dumps(meta, indent=1) + "\n")


def _read_body(response: Response, url: str, options: FetchOptions, deadline: float) -> bytes:
    """The response body, failing past ``max_bytes`` or the deadline (checked while reading)."""
    length = response.headers.get("Content-Length")
    if length is not None and length.isdigit() and int(length) > options.max_bytes:
        raise _too_large(url, options.max_bytes)
    chunks: list[bytes] = []
    total = 0
    while chunk := response.read(_CHUNK):
        total += len(chunk)
        if total > options.max_bytes:
            raise _too_large(url, options.max_bytes)
        if time.monotonic() > deadline:
            raise _failed(url, f"timed out after {options.timeout:g} s")
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large(url: str, limit: int) -> InputOutputError:
    size = f"{limit / (1 << 20):g} MiB" if limit >= 1 << 20 else f"{limit} bytes"
    msg = f"template is larger than {size}"
    return InputOutputError(msg, location=Location(file=url))


def _failed(url: str, reason: str) -> InputOutputError:
    msg = f"cannot download template: {reason}"
    return InputOutputError(
        msg,
        location=Location(file=url),
        hint="check the URL and the network, or download the file and pass its path to --from",
    )


def _request(url: str, options: FetchOptions, cached: _Cached | None) -> bytes | None:
    """The body of a 200 answer, or None for ``304 Not Modified``; raises on anything else."""
    request = urllib.request.Request(url, headers={"User-Agent": "capzgen"})
    if cached is not None and cached.etag is not None:
        request.add_header("If-None-Match", cached.etag)
    deadline = time.monotonic() + options.timeout
    try:
        response = options.opener(request, options.timeout)
    except urllib.error.HTTPError as error:
        if error.code == 304 and cached is not None:
            return None
        raise _failed(url, f"failed to get file, got {error.code}") from None
    try:
        if response.status == 304 and cached is not None:
            return None
        if response.status != 200:
            raise _failed(url, f"failed to get file, got {response.status}")
        body = _read_body(response, url, options, deadline)
    finally:
        response.close()
    _write_cache(options.cache_dir, url, body, response.headers.get("ETag"))
    return body


def fetch_template(location: str, options: FetchOptions) -> Fetched:
    """Download the template at ``location`` (an http(s) URL) as described in the module doc."""
    url = download_url(location)
    cached = _read_cache(options.cache_dir, url)
    note = None
    try:
        body = _request(url, options, cached)
    except (OSError, http.client.HTTPException) as error:  # URLError, timeouts, resets
        cause = getattr(error, "reason", None) or error
        timed_out = isinstance(cause, TimeoutError)
        reason = f"timed out after {options.timeout:g} s" if timed_out else str(cause)
        if cached is None:
            raise _failed(url, reason) from None
        body = None
        note = f"cannot reach {url} ({reason}); using the copy cached from an earlier download"
    if body is None:
        assert cached is not None
        body = cached.body
    return Fetched(decode_source(body, location), location, note)
