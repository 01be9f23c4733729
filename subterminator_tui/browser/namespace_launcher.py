"""Starts the run's Chromium in a network namespace of its own; run as a script, stdlib only.

Chromium has no way to authenticate a DevTools client: whoever reaches its
port drives the person's signed-in browser. Playwright MCP starts the browser
through this launcher (``--executable-path``). The launcher moves itself into a
fresh network namespace (as root a plain one; otherwise an unprivileged user
namespace that maps the person's own uid), brings that namespace's loopback up
and replaces itself with Chromium (``exec``: the pid, the process group and
Playwright's pipe on fds 3 and 4 stay Playwright's). The DevTools port then
lives on a loopback no other process on the machine shares: no port scan of
127.0.0.1 finds it, whoever runs it.

One forwarder process, forked before the ``exec``, joins the namespace to the
outside through two Unix sockets in a directory only the person may enter
(file permissions are the access control, and a Unix socket bound to a path is
reachable across network namespaces):

- ``devtools.sock``: SubTerminator's own DevTools client, relayed to the port;
- the egress proxy: Chromium's ``--proxy-server`` keeps its ``127.0.0.1:PORT``,
  which inside the namespace is the forwarder, relaying to ``proxy.sock``
  (SubTerminator's side carries it on to the egress filter).

Nothing else leaves the namespace: it has no interface but its loopback, so a
page reaches only what the egress filter allows. The forwarder dies with the
browser (the kernel's parent-death signal), and shares its process group and
its command line (the profile flag) so every existing cleanup finds it too.

``--check`` only tries the namespace and exits 0 when it can be made.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import fcntl
import os
import signal
import socket
import struct
import sys

DEVTOOLS_SOCKET = "devtools.sock"
PROXY_SOCKET = "proxy.sock"

_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000
_PR_SET_PDEATHSIG = 1
_SIOCGIFFLAGS = 0x8913
_SIOCSIFFLAGS = 0x8914
_IFF_UP = 0x1
_IFREQ = "16sH22x"
_CHUNK = 1 << 16


class NamespaceError(OSError):
    """The kernel refused a network namespace here."""


def _unshare(flags: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(flags) != 0:
        error = ctypes.get_errno()
        raise NamespaceError(error, os.strerror(error))


def enter_private_network() -> None:
    """Move this (single-threaded) process into a new network namespace, loopback up."""
    uid, gid = os.geteuid(), os.getegid()
    try:
        if uid != 0:
            raise NamespaceError("not root")
        _unshare(_CLONE_NEWNET)
    except NamespaceError:
        # Unprivileged (or root without CAP_SYS_ADMIN): a user namespace of our own
        # owns the network namespace; the person's uid maps to itself, so the browser
        # is not root inside it and keeps its sandbox.
        _unshare(_CLONE_NEWUSER | _CLONE_NEWNET)
        with open("/proc/self/setgroups", "w", encoding="ascii") as setgroups:
            setgroups.write("deny")
        with open("/proc/self/uid_map", "w", encoding="ascii") as uid_map:
            uid_map.write(f"{uid} {uid} 1")
        with open("/proc/self/gid_map", "w", encoding="ascii") as gid_map:
            gid_map.write(f"{gid} {gid} 1")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        request = struct.pack(_IFREQ, b"lo", 0)
        flags = struct.unpack(_IFREQ, fcntl.ioctl(probe, _SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(probe, _SIOCSIFFLAGS, struct.pack(_IFREQ, b"lo", flags | _IFF_UP))


def loopback_proxy_port(browser_args: list[str]) -> int | None:
    """The port of a ``--proxy-server`` on 127.0.0.1 (or localhost), if Chromium has one."""
    for arg in browser_args:
        if arg.startswith("--proxy-server="):
            address = arg.split("=", 1)[1].split("://", 1)[-1].rstrip("/")
            host, _, port = address.rpartition(":")
            if host in ("127.0.0.1", "localhost") and port.isdigit():
                return int(port)
    return None


def profile_dir(browser_args: list[str]) -> str | None:
    """The profile directory Playwright gave Chromium."""
    for arg in browser_args:
        if arg.startswith("--user-data-dir="):
            return arg.split("=", 1)[1]
    return None


def _devtools_port(profile: str | None) -> int:
    # Chromium chose the port (port 0, as outside a namespace) and wrote it to the
    # profile; SubTerminator connects only after it has read that file itself.
    if profile is None:
        raise OSError("the browser has no profile to name its DevTools port")
    with open(os.path.join(profile, "DevToolsActivePort"), encoding="utf-8") as active:
        first = active.readline().strip()
    if not first.isdigit():
        raise OSError("the browser has not written its DevTools port yet")
    return int(first)


# --- the forwarder -------------------------------------------------------------------


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while chunk := await reader.read(_CHUNK):
            writer.write(chunk)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except OSError:
        writer.close()


async def _join(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    open_far_side: object,
) -> None:
    try:
        far_reader, far_writer = await open_far_side()  # type: ignore[operator]
    except OSError:
        writer.close()
        return
    try:
        await asyncio.gather(_pipe(reader, far_writer), _pipe(far_reader, writer))
    finally:
        far_writer.close()
        writer.close()


async def _forward(
    devtools: socket.socket, proxy: socket.socket | None, sockets_dir: str, profile: str | None
) -> None:
    def to_devtools() -> object:
        return asyncio.open_connection("127.0.0.1", _devtools_port(profile))

    def to_proxy() -> object:
        return asyncio.open_unix_connection(os.path.join(sockets_dir, PROXY_SOCKET))

    servers = [
        await asyncio.start_unix_server(
            lambda r, w: _join(r, w, to_devtools), sock=devtools, limit=_CHUNK
        )
    ]
    if proxy is not None:
        servers.append(
            await asyncio.start_server(lambda r, w: _join(r, w, to_proxy), sock=proxy, limit=_CHUNK)
        )
    await asyncio.gather(*(server.serve_forever() for server in servers))


def _become_forwarder(
    browser_pid: int,
    devtools: socket.socket,
    proxy: socket.socket | None,
    sockets_dir: str,
    profile: str | None,
) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != browser_pid:
        os._exit(0)  # the browser is already gone
    keep = {2, devtools.fileno()} | ({proxy.fileno()} if proxy is not None else set())
    # Playwright's pipe (3, 4) and stdout belong to the browser alone.
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd > 2 and fd not in keep:
            with contextlib.suppress(OSError):
                os.close(fd)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl+C is the browser's to handle
    try:
        asyncio.run(_forward(devtools, proxy, sockets_dir, profile))
    finally:
        os._exit(0)


def launch(browser: str, sockets_dir: str, browser_args: list[str]) -> None:
    """Enter the namespace, fork the forwarder, then become Chromium (never returns)."""
    enter_private_network()
    proxy_port = loopback_proxy_port(browser_args)
    proxy: socket.socket | None = None
    if proxy_port is not None:
        proxy = socket.create_server(("127.0.0.1", proxy_port), backlog=128)
    devtools_path = os.path.join(sockets_dir, DEVTOOLS_SOCKET)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(devtools_path)
    devtools = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_mask = os.umask(0o177)
    try:
        devtools.bind(devtools_path)
    finally:
        os.umask(old_mask)
    devtools.listen(16)
    browser_pid = os.getpid()
    if os.fork() == 0:
        _become_forwarder(browser_pid, devtools, proxy, sockets_dir, profile_dir(browser_args))
    # Python's sockets are close-on-exec: Chromium keeps none of the forwarder's.
    os.execv(browser, [browser, *browser_args])


def _check() -> int:
    pid = os.fork()
    if pid == 0:
        try:
            enter_private_network()
        except OSError:
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    return 0 if os.waitstatus_to_exitcode(status) == 0 else 1


def main(argv: list[str]) -> int:
    """``--check``, or ``--browser PATH --sockets DIR -- CHROMIUM ARGS...``."""
    if argv[:1] == ["--check"]:
        return _check()
    try:
        split = argv.index("--")
        options = dict(zip(argv[:split:2], argv[1:split:2], strict=True))
        browser, sockets_dir = options["--browser"], options["--sockets"]
    except (ValueError, KeyError):
        print("usage: namespace_launcher --browser PATH --sockets DIR -- ARGS", file=sys.stderr)
        return 2
    try:
        launch(browser, sockets_dir, argv[split + 1 :])
    except OSError as error:
        # Fail closed: a browser with an open DevTools port is never the fallback here.
        print(
            f"subterminator: cannot start the browser in its own network: {error}", file=sys.stderr
        )
        return 1
    return 0  # not reached: launch() execs the browser


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
