"""Another local process hunting for a browser to drive: run as a script, in its own process.

It does what any local user can: reads the listening TCP sockets from
``/proc/net/tcp`` and ``/proc/net/tcp6``, asks every loopback (or wildcard) one
for ``/json/version``, and over each DevTools WebSocket it finds asks for the
browser's open pages (``Target.getTargets``): reading them is driving the browser.
Prints JSON: how many ports it tried, every DevTools endpoint it found, every
page URL it read. ``--socket PATH`` instead asks one Unix socket for
``/json/version`` and exits 3 when the file system refuses the connection.
"""

from __future__ import annotations

import json
import socket
import sys
from concurrent.futures import ThreadPoolExecutor

_LOOPBACK_V4 = {"0100007F", "00000000"}
_LOOPBACK_V6 = {"00000000000000000000000001000000", "00000000000000000000000000000000"}
_ASK = "GET /json/version HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"


def listening() -> list[tuple[str, int]]:
    """Every listening TCP socket on a loopback or wildcard address, as (host, port)."""
    found: set[tuple[str, int]] = set()
    for table, host, addresses in (
        ("/proc/net/tcp", "127.0.0.1", _LOOPBACK_V4),
        ("/proc/net/tcp6", "::1", _LOOPBACK_V6),
    ):
        try:
            with open(table, encoding="ascii") as rows:
                lines = rows.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            address, port = fields[1].split(":")
            if fields[3] == "0A" and address in addresses:
                found.add((host, int(port, 16)))
    return sorted(found)


def _read_all(connection: socket.socket) -> bytes:
    # Chromium's DevTools server keeps the connection open: read up to Content-Length.
    answer = b""
    while len(answer) < 1 << 16:
        chunk = connection.recv(4096)
        if not chunk:
            break
        answer += chunk
        head, found, body = answer.partition(b"\r\n\r\n")
        for line in head.split(b"\r\n") if found else []:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length" and len(body) >= int(value):
                return answer
    return answer


def version_at(host: str, port: int) -> dict[str, str] | None:
    """The DevTools ``/json/version`` a port answers, or None."""
    try:
        with socket.create_connection((host, port), timeout=2) as connection:
            # Chromium names its WebSocket after the Host asked for: the port must be in it.
            name = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
            connection.sendall(_ASK.format(host=name).encode())
            answer = _read_all(connection)
    except OSError:
        return None
    _, _, body = answer.partition(b"\r\n\r\n")
    try:
        version = json.loads(body)
    except ValueError:
        return None
    if isinstance(version, dict) and "webSocketDebuggerUrl" in version:
        return version
    return None


def pages_through(url: str) -> list[str]:
    """The page URLs a DevTools WebSocket gives away."""
    from websockets.sync.client import connect

    with connect(url, open_timeout=5, close_timeout=1) as driver:
        driver.send(json.dumps({"id": 1, "method": "Target.getTargets"}))
        while True:
            message = json.loads(driver.recv(timeout=5))
            if message.get("id") == 1:
                infos = message["result"]["targetInfos"]
                return [info["url"] for info in infos if info["type"] == "page"]


def hunt() -> dict[str, object]:
    """Try every listening loopback port; drive every browser found."""
    ports = listening()
    with ThreadPoolExecutor(max_workers=32) as pool:
        versions = list(pool.map(lambda hp: version_at(*hp), ports))
    endpoints = [v["webSocketDebuggerUrl"] for v in versions if v is not None]
    pages: list[str] = []
    for endpoint in endpoints:
        try:
            pages += pages_through(endpoint)
        except Exception as error:  # another browser busy or closing: not ours to judge
            pages.append(f"error: {error}")
    return {"tried": len(ports), "endpoints": endpoints, "pages": pages}


def ask_socket(path: str) -> int:
    """Ask a Unix socket for ``/json/version``: 0 answered, 3 refused by permissions."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(5)
            connection.connect(path)
            connection.sendall(_ASK.format(host="localhost").encode())
            answer = _read_all(connection)
    except PermissionError:
        return 3
    print(answer.decode("utf-8", "replace"))
    return 0 if b"webSocketDebuggerUrl" in answer else 1


if __name__ == "__main__":
    if sys.argv[1:2] == ["--socket"]:
        sys.exit(ask_socket(sys.argv[2]))
    print(json.dumps(hunt()))
