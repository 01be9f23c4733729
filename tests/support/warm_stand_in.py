"""A stand-in for a warm child that a client starts itself, as a process of its own.

The MCP SDK's stdio client starts its server through asyncio, which only waits for its
own children: a warm child (tests/support/warm_children.py) cannot be its child. So the
client starts this script instead (``python -I -S warm_stand_in.py SOCKET``, with the
server's ``python -m`` arguments in ``ARGV_VARIABLE``). It hands its three standard
streams, environment and working directory to the warm interpreter, which forks the real
child in a session of its own, exactly as for ``WarmPopen``; then it stands in for it:

- what the client sends it (SIGTERM, SIGINT, SIGHUP: the SDK ends its server's process
  group with SIGTERM) it passes on to the child's session;
- when the child ends, it ends the same way: the same exit status, or killed by the same
  signal;
- if it is killed itself (the SDK's SIGKILL after the grace period), the warm interpreter
  sees its connection close and kills the child's session: nothing outlives it.

It keeps no copy of the streams: the client reads the end of the server's output when
the child's ends. Started with ``-I -S`` and the standard library only, it costs about
two hundredths of a CPU second, where a fresh serve child's imports cost about one.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import sys

#: The variable carrying the child's ``python -m`` arguments (JSON): kept out of this
#: script's command line, which the tests' process scans should not take for a server's.
ARGV_VARIABLE = "SUBTERMINATOR_TEST_WARM_ARGV"

#: The warm interpreter's framing (``warm_children._HEADER`` and its "pid N" / "exit N"
#: lines), written again here: started with ``-I`` this script cannot import that module,
#: and importing what that module imports would cost the start it exists to save.
_HEADER = struct.Struct("!I")


def _line(connection: socket.socket) -> str:
    """One line from the warm interpreter; "" if it ended first."""
    line = b""
    while not line.endswith(b"\n"):
        chunk = connection.recv(1)
        if not chunk:
            return ""
        line += chunk
    return line.decode().strip()


def main(socket_path: str) -> int:
    """Start the child through the warm interpreter and end as it ends."""
    # Listening before the child starts: it may be up, and its client sending it a signal,
    # before its pid reaches us. A signal here first would end this process alone (its
    # output sent nowhere), and the warm interpreter would then kill the child unasked.
    child = 0
    early: list[int] = []

    def pass_on(number: int, _frame: object) -> None:
        if not child:
            early.append(number)
            return
        try:
            os.killpg(child, number)
        except ProcessLookupError:
            # Not yet the leader of its own session (it calls setsid first thing).
            os.kill(child, number)

    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, pass_on)
    argv = json.loads(os.environ.pop(ARGV_VARIABLE))
    request = {
        "argv": argv,
        "env": dict(os.environ),
        "cwd": os.getcwd(),
        "start_new_session": True,
        "process_group": -1,
        "bound_to_caller": True,
    }
    payload = json.dumps(request).encode()
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(socket_path)
    socket.send_fds(connection, [_HEADER.pack(len(payload)) + payload], [0, 1, 2])
    # The streams are the child's now: a copy kept here would hold the client's pipes open.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    started = _line(connection)
    if not started.startswith("pid "):
        return 1
    child = int(started.split()[1])
    for number in early:
        pass_on(number, None)
    ended = _line(connection)
    if not ended.startswith("exit "):
        return 1
    status = int(ended.split()[1])
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
