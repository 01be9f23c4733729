"""The run's DevTools endpoint reachable by SubTerminator alone: a Unix socket, not a port.

Chromium's DevTools port has no authentication: any local process, of any
user, that finds it (a scan of 127.0.0.1 is enough) drives the person's
signed-in browser. When the kernel allows a network namespace (as root, or an
unprivileged user namespace), the browser is started inside one of its own
(namespace_launcher.py): its port then lives on a loopback nothing else on the
machine shares, and SubTerminator reaches it through ``devtools.sock`` in a
directory made by ``mkdtemp`` (mode 0700, the person's): the file system's
permissions decide who may connect. The browser reaches the egress filter the
same way: its proxy address inside the namespace is a forwarder to
``proxy.sock``, relayed here to the filter's loopback port.

Where no namespace can be made (a kernel or container that refuses both), the
browser keeps today's port on 127.0.0.1, and ``subterminator doctor`` warns.
Playwright MCP keeps its own pipe either way.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import websockets
from cdp_use.client import CDPClient

from subterminator_tui.browser import namespace_launcher

#: Written in the profile beside DevToolsActivePort (0600): where the browser's socket is.
SOCKET_FILE = "DevToolsSocket"
#: The endpoint form of a WebSocket over a Unix socket: ``ws+unix://<socket>:<path>``.
UNIX_SCHEME = "ws+unix://"
_CHUNK = 1 << 16


@functools.cache
def namespaces_available() -> bool:
    """Whether this machine lets the browser run in a network namespace of its own."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        check = subprocess.run(
            [sys.executable, "-I", namespace_launcher.__file__, "--check"],
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return check.returncode == 0


def devtools_report() -> tuple[bool, str]:
    """For ``subterminator doctor``: whether the browser's DevTools are private here, and how."""
    if namespaces_available():
        return True, (
            "private: the browser runs in a network namespace of its own; only this user "
            "can open its DevTools socket"
        )
    return False, (
        "on 127.0.0.1: this system allows no network namespace (neither as root nor an "
        "unprivileged user namespace), so any local process that finds the browser's port "
        "can drive it; allow user namespaces (sysctl user.max_user_namespaces, "
        "kernel.unprivileged_userns_clone) to close it"
    )


def display_over_tcp() -> bool:
    """Whether ``DISPLAY`` names an X server over TCP (``ssh -X``), out of a namespace's reach."""
    host = os.environ.get("DISPLAY", "").rpartition(":")[0]
    return host not in ("", "unix") and not host.startswith("/")


def private_devtools_possible(proxy_server: str | None, *, headless: bool = True) -> bool:
    """Whether a browser with this proxy can run in its own network namespace.

    The namespace has no way out but the proxy, so a browser without a loopback
    proxy (nothing filters it) keeps the machine's network and today's port; so
    does a window on an X server reached over TCP.
    """
    if proxy_server is None or (not headless and display_over_tcp()):
        return False
    parts = urlsplit(proxy_server)
    return parts.hostname in ("127.0.0.1", "localhost") and namespaces_available()


def unix_endpoint(socket_path: Path, tcp_endpoint: str) -> str:
    """The Unix-socket form of a ``ws://127.0.0.1:PORT/devtools/...`` endpoint."""
    return f"{UNIX_SCHEME}{socket_path}:{urlsplit(tcp_endpoint).path}"


class UnixSocketCDPClient(CDPClient):
    """A cdp-use client whose WebSocket runs over a Unix socket."""

    def __init__(self, socket_path: str, path: str, **options: Any) -> None:
        super().__init__(f"ws://localhost{path}", **options)
        self.socket_path = socket_path

    async def start(self) -> None:
        """Connect over the socket and start reading, as the TCP client does."""
        if self.ws is not None:
            raise RuntimeError("Client is already started")
        # Chromium accepts a DevTools WebSocket only for a loopback Host and no web Origin.
        self.ws = await websockets.unix_connect(
            self.socket_path, self.url, max_size=self.max_ws_frame_size
        )
        reader = self._handle_messages()  # type: ignore[no-untyped-call]
        self._message_handler_task = asyncio.create_task(reader)  # type: ignore[assignment]


def devtools_client(endpoint: str) -> CDPClient:
    """A cdp-use client for ``endpoint``: ``ws://`` over TCP, ``ws+unix://`` over a socket."""
    if not endpoint.startswith(UNIX_SCHEME):
        return CDPClient(endpoint)
    socket_path, _, path = endpoint.removeprefix(UNIX_SCHEME).rpartition(":")
    return UnixSocketCDPClient(socket_path, path)


def forget_socket(profile_dir: Path) -> None:
    """Remove a previous browser's note of its socket, so a stale one is never used."""
    (profile_dir / SOCKET_FILE).unlink(missing_ok=True)


class PrivateDevTools:
    """One run's socket directory, the launcher script, and the proxy's relay into it."""

    def __init__(self, profile_dir: Path, launcher: Path, browser: Path, proxy_server: str) -> None:
        self.profile_dir = profile_dir
        self.launcher = launcher
        self.browser = browser
        proxy = urlsplit(proxy_server)
        assert proxy.hostname is not None and proxy.port is not None
        self._proxy = (proxy.hostname, proxy.port)
        self.directory: Path | None = None
        self._relay: asyncio.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()

    @property
    def socket_path(self) -> Path:
        """The browser's DevTools socket (made by the launcher's forwarder)."""
        assert self.directory is not None
        return self.directory / namespace_launcher.DEVTOOLS_SOCKET

    def unix_endpoint(self, tcp_endpoint: str) -> str:
        """The endpoint Chromium named (its port inside the namespace), over the socket."""
        return unix_endpoint(self.socket_path, tcp_endpoint)

    async def start(self) -> None:
        """Before Playwright launches the browser: the directory, the script, the relay."""
        if self.directory is None:
            # mkdtemp: a fresh name nobody could have prepared, mode 0700. Short, under the
            # temporary directory: a Unix socket's path is limited to about 100 bytes.
            self.directory = Path(tempfile.mkdtemp(prefix="subterminator-devtools-"))
        proxy_socket = self.directory / namespace_launcher.PROXY_SOCKET
        proxy_socket.unlink(missing_ok=True)
        self._relay = await asyncio.start_unix_server(self._carry, proxy_socket, limit=_CHUNK)
        proxy_socket.chmod(0o600)
        self._write_launcher()
        marker = self.profile_dir / SOCKET_FILE
        marker.unlink(missing_ok=True)
        marker.touch(mode=0o600)
        marker.write_text(str(self.socket_path), encoding="utf-8")

    def _write_launcher(self) -> None:
        assert self.directory is not None
        command = [
            sys.executable,
            "-I",
            namespace_launcher.__file__,
            "--browser",
            str(self.browser),
            "--sockets",
            str(self.directory),
        ]
        script = f'#!/bin/sh\nexec {shlex.join(command)} -- "$@"\n'
        self.launcher.write_text(script, encoding="utf-8")
        self.launcher.chmod(0o700)

    async def _carry(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            far_reader, far_writer = await asyncio.open_connection(*self._proxy, limit=_CHUNK)
        except OSError:
            writer.close()
            self._connections.discard(task)
            return
        try:
            await asyncio.gather(_pipe(reader, far_writer), _pipe(far_reader, writer))
        except asyncio.CancelledError:
            pass  # stop() ends open connections so
        finally:
            self._connections.discard(task)
            far_writer.close()
            writer.close()

    async def stop(self) -> None:
        """Stop relaying (the browser is gone or going); the directory stays for a restart."""
        relay, self._relay = self._relay, None
        if relay is None:
            return
        relay.close()
        for task in list(self._connections):
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)
        with contextlib.suppress(Exception):
            await relay.wait_closed()

    def remove(self) -> None:
        """Remove the socket directory and the profile's note of it (the run is over)."""
        (self.profile_dir / SOCKET_FILE).unlink(missing_ok=True)
        directory, self.directory = self.directory, None
        if directory is not None:
            shutil.rmtree(directory, ignore_errors=True)


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while chunk := await reader.read(_CHUNK):
            writer.write(chunk)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except OSError:
        writer.close()
