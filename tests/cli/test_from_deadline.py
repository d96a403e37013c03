"""``--from-timeout`` is a total deadline over connect, headers and body: a server the test starts on
127.0.0.1 (a thread) that sends one byte at a time never holds ``generate cluster --from`` past it.

No verdict depends on speed: the tests assert the error (exit 2, naming the URL and the timeout),
that nothing was written, and that the server saw the connection closed before it had sent
everything (the generous waits are only safety nets).
"""

from __future__ import annotations

import select
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

TEMPLATE = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${CLUSTER_NAME}\n"
HEADERS = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
    + f"Content-Length: {len(TEMPLATE)}\r\nConnection: close\r\n\r\n".encode()
)
SAFETY_NET = 120.0  # seconds a stalled client may take before the server gives up on it


@dataclass
class Dribble:
    """A server that answers every request one byte per ``pause`` seconds, after sending
    ``fast`` bytes at once; it records whether the client closed the connection."""

    fast: int
    pause: float = 0.25
    sent: int = 0
    closed: threading.Event = field(default_factory=threading.Event)
    port: int = 0

    def serve(self, listener: socket.socket) -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)  # the request
            answer = HEADERS + TEMPLATE
            conn.sendall(answer[: self.fast])
            self.sent = self.fast
            waited = 0.0
            while self.sent < len(answer) and waited < SAFETY_NET:
                ready, _, _ = select.select([conn], [], [], self.pause)
                waited += self.pause
                if ready and not conn.recv(1):
                    self.closed.set()  # the client hung up
                    return
                try:
                    conn.sendall(answer[self.sent : self.sent + 1])
                except OSError:
                    self.closed.set()
                    return
                self.sent += 1


@pytest.fixture
def dribble(request: pytest.FixtureRequest) -> Iterator[Dribble]:
    server = Dribble(fast=request.param)
    listener = socket.create_server(("127.0.0.1", 0))
    server.port = listener.getsockname()[1]
    thread = threading.Thread(target=server.serve, args=(listener,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        thread.join(SAFETY_NET + 10)
        listener.close()


@pytest.mark.parametrize(
    "dribble",
    [pytest.param(0, id="headers"), pytest.param(len(HEADERS), id="body")],
    indirect=True,
)
def test_a_slow_server_cannot_hold_the_download_past_the_timeout(
    run_cli: Any, dribble: Dribble, tmp_path: Path
) -> None:
    url = f"http://127.0.0.1:{dribble.port}/template.yaml"
    out = tmp_path / "out.yaml"
    result = run_cli(
        [
            "generate",
            "cluster",
            "demo",
            "--from",
            url,
            "--from-timeout",
            "1",
            "--write-to",
            str(out),
        ],
        env={"CAPZGEN_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert result.exit_code == 2, result.stderr
    assert url in result.stderr
    assert "timed out after 1 s" in result.stderr
    assert result.stdout == ""
    assert not out.exists()
    assert dribble.closed.wait(SAFETY_NET), "the client never closed the connection"
    assert dribble.sent < len(HEADERS) + len(TEMPLATE)  # it stopped before the whole answer
