"""Children of ``python -m subterminator_tui`` that do not import the SDKs again.

A CLI child spends about 1.2 CPU s importing before it does anything, 0.85 s of it in
third-party packages: the MCP SDK and its schemas (pydantic builds each model's
validator as it is imported), cdp-use's typed DevTools domains, the HTTP servers. make
test starts about ninety such children from its workers on a two-core machine.

So each test worker keeps one *warm interpreter*: a process that imported those packages
once and forks a child for each request. The child is a new process with its own pid,
standard streams, environment, working directory, signal dispositions and process title
(``python -m subterminator_tui ...``, as ``ps`` and the tests' process scans read it). It
runs ``-m`` exactly as Python does (``runpy._run_module_as_main``) and ends as a process
ends (atexit handlers, flushed streams, its exit status or the signal that killed it).
What it takes from the fork is the third-party modules in ``PRELOADED`` and the modules
of ours ``PRELOADED_OURS`` imports: none of them reads the environment or makes a
per-process value (a key, a token) when imported (tests/unit/test_warm_children.py
shows it for ours: no variable read, the same values under another environment, no
thread), and random generators are seeded again after a fork. Every
other module of ours the child imports afresh under its own environment: some make such
values as they load (serve's approval codes are signed with a key drawn at import, and
every child must draw its own). One difference is kept on purpose: the preloaded objects are
frozen out of the garbage collector's passes (``gc.freeze``), so a child never walks or
copies them, and a reference cycle among them is not collected as the child ends.

``WarmPopen`` is ``subprocess.Popen`` with the child started this way: communicate, wait,
poll, signals and timeouts are Popen's own. It starts a child the usual way, fresh, when
the warm interpreter could not stand for a new one: another Python, locale or
``PYTHON*`` variable, a Popen option the fork does not copy (``preexec_fn``,
``pass_fds``, ``user``, ``group``, ``umask``), a command other than ``python -m MODULE``,
or ``SUBTERMINATOR_TEST_FRESH_CHILDREN=1`` in the environment (every child fresh, as
before). A client that starts its server itself (the MCP SDK's stdio client) is given a
stand-in to start instead (``started_by_a_client``, tests/support/warm_stand_in.py);
the Inspector's children stay fresh (it gives them an environment of its own).
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import io
import json
import os
import selectors
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any, AnyStr

#: The modules a warm interpreter imports before it forks: what a CLI or serve child
#: imports that is not ours (listed from a demoflix run's sys.modules). A module missing
#: here is imported by the child itself: slower, never different.
PRELOADED = (
    "mcp",
    "mcp.client.stdio",
    "mcp.server.stdio",
    "mcp.server.lowlevel",
    "mcp_types",
    "cdp_use.cdp",
    "cdp_use.client",
    "pydantic",
    "pydantic_settings",
    "anyio",
    "jsonschema",
    "cryptography",
    "apsw",
    "publicsuffixlist",
    "babel",
    "platformdirs",
    "websockets",
    "websockets.asyncio.client",
    "anyio._backends._asyncio",
    "anyio.streams.stapled",
    "anyio.streams.tls",
    "babel.numbers",
    "babel.units",
    "httpx2",
    "uvicorn",
    "starlette",
    "h11",
    "setproctitle",
    # The standard library's, imported on the way.
    "concurrent.futures.thread",
    "ctypes",
    "difflib",
    "encodings.idna",
    "getpass",
    "http.server",
    "tomllib",
)

#: Of ours, what a ``cancel`` child imports before it does anything: the session, and with
#: it the browser layer, the guards and the rules (150 modules, about 0.2 CPU s a child
#: once the packages above are loaded; some 250 children a test run). Never serve's
#: sessions: the approval key is drawn as they load. The test named above checks the
#: whole closure this imports.
PRELOADED_OURS = ("subterminator_tui.session",)

#: Variables Python or the C library read once, as an interpreter starts, or a preloaded
#: module as it loads (pydantic, as each model is defined): a child whose environment
#: differs in one of them from the warm interpreter's starts fresh.
READ_AT_START = ("LANG", "LANGUAGE", "PYDANTIC_DISABLE_PLUGINS")
_READ_AT_START_PREFIXES = ("PYTHON", "LC_")

FRESH_SWITCH = "SUBTERMINATOR_TEST_FRESH_CHILDREN"
#: Read as the worker starts too: most tests run in an environment of their own.
_FRESH_AT_START = os.environ.get(FRESH_SWITCH) == "1"
_ROOT = Path(__file__).resolve().parents[2]
_HEADER = struct.Struct("!I")


# --- The warm interpreter (python tests/support/warm_children.py SOCKET) ---------------


@dataclass(frozen=True)
class Request:
    """One child to start: what ``python -m`` would be given, and its three streams."""

    argv: list[str]
    env: dict[str, str]
    cwd: str
    streams: list[int]
    start_new_session: bool
    process_group: int
    #: The caller is a stand-in process (tests/support/warm_stand_in.py): when its
    #: connection closes before the child ends, it was killed, and the child is too.
    bound_to_caller: bool = False


def _receive(connection: socket.socket) -> Request:
    """The request on ``connection``; the streams it passed are closed if it is torn."""
    message, fds, _flags, _address = socket.recv_fds(connection, 1 << 16, 3)
    try:
        while (
            len(message) < _HEADER.size
            or len(message) < _HEADER.size + _HEADER.unpack_from(message)[0]
        ):
            more = connection.recv(1 << 16)
            if not more:
                raise ConnectionError("the request ended early")
            message += more
        (length,) = _HEADER.unpack_from(message)
        payload = json.loads(message[_HEADER.size : _HEADER.size + length])
        if len(fds) != 3:
            raise ConnectionError(f"expected 3 streams, got {len(fds)}")
        return Request(streams=fds, **payload)
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise


def _serve(socket_path: str) -> Request | None:
    """Answer requests until the worker closes our stdin; None then, a Request in a child.

    No ``finally`` and no ``with`` around the loop: a forked child returns through this
    function, and must not undo the warm interpreter's set-up on its way out.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the worker ends us, not a Ctrl+C
    wake_read, wake_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(socket_path)
    listener.listen(64)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "request")
    selector.register(wake_read, selectors.EVENT_READ, "child ended")
    selector.register(sys.stdin.fileno(), selectors.EVENT_READ, "worker")
    owners: dict[int, socket.socket] = {}
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        for key, _events in selector.select():
            if key.data == "request":
                connection, _ = listener.accept()
                try:
                    request = _receive(connection)
                except (OSError, ValueError, TypeError) as error:
                    print(f"warm interpreter: a bad request: {error}", file=sys.stderr)
                    connection.close()
                    continue
                if threading.active_count() != 1:
                    raise RuntimeError("a preloaded module started a thread: fork is unsafe")
                pid = os.fork()
                if pid == 0:
                    return request
                for fd in request.streams:
                    os.close(fd)
                connection.sendall(f"pid {pid}\n".encode())
                owners[pid] = connection
                if request.bound_to_caller:
                    selector.register(connection, selectors.EVENT_READ, pid)
            elif key.data == "child ended":
                with contextlib.suppress(BlockingIOError):
                    while os.read(wake_read, 512):
                        pass
                while owners:
                    pid, status = os.waitpid(-1, os.WNOHANG)
                    if pid == 0:
                        break
                    if (owner := owners.pop(pid, None)) is not None:
                        with contextlib.suppress(KeyError):
                            selector.unregister(owner)
                        with contextlib.suppress(OSError):
                            owner.sendall(f"exit {status}\n".encode())
                        owner.close()
            elif isinstance(key.data, int):
                if key.data not in owners:
                    # Reaped earlier in this same pass (and the connection closed with
                    # it): its pid may already be another process's.
                    continue
                # A stand-in's connection closed (it sends nothing else): it was killed,
                # and its child, in a session of its own, goes with it.
                selector.unregister(key.fileobj)
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(key.data, signal.SIGKILL)
                # Killed before its setsid, it leads no group yet (and has no children).
                with contextlib.suppress(ProcessLookupError):
                    os.kill(key.data, signal.SIGKILL)
            elif not os.read(sys.stdin.fileno(), 512):
                # The worker is gone: no child of ours outlives it.
                for pid in owners:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                listener.close()
                os.unlink(socket_path)
                return None


def _reopen_stream(fd: int, old: Any, buffered: bool) -> Any:
    """The stream Python's start-up makes for ``fd``, with the warm interpreter's encoding.

    As ``create_stdio`` does: stdin always buffered; stdout and stderr unbuffered when
    Python was told so (-u, PYTHONUNBUFFERED), else line-buffered on a terminal and
    stderr always; the raw file named ``<stdin>``, ``<stdout>``, ``<stderr>``.
    """
    writing = fd != 0
    raw = io.FileIO(fd, "wb" if writing else "rb", closefd=False)
    raw.name = ("<stdin>", "<stdout>", "<stderr>")[fd]
    stream: Any = raw
    if not writing:
        stream = io.BufferedReader(raw)
    elif buffered:
        stream = io.BufferedWriter(raw)
    return io.TextIOWrapper(
        stream,
        encoding=old.encoding,
        errors=old.errors,
        newline="\n",
        line_buffering=buffered and (os.isatty(fd) or fd == 2),
        write_through=not buffered,
    )


def _without_warm_frames(kind: type[BaseException], error: BaseException, trace: Any) -> None:
    """Print an uncaught exception as a fresh child would: from runpy's frames down."""
    while trace is not None and trace.tb_frame.f_code.co_filename == __file__:
        trace = trace.tb_next
    # The printer reads the exception's own traceback, not only the one it is given.
    sys.__excepthook__(kind, error.with_traceback(trace), trace)


def _become(request: Request) -> None:
    """In the forked child: become ``python -m MODULE ARGS`` and run it to its end."""
    import runpy

    import setproctitle

    signal.set_wakeup_fd(-1)
    for number in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1):
        signal.signal(number, signal.SIG_DFL)
    # What Python itself sets as it starts.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    if request.start_new_session:
        os.setsid()
    elif request.process_group >= 0:
        os.setpgid(0, request.process_group)
    for stream in (sys.stdin, sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    for target, fd in enumerate(request.streams):
        os.dup2(fd, target)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    # ps and /proc show the command a fresh child would have; its name stays Python's.
    setproctitle.setproctitle(" ".join([sys.executable, *request.argv]))
    setproctitle.setthreadtitle(os.path.basename(sys.executable))
    os.chdir(request.cwd)
    os.environ.clear()
    os.environ.update(request.env)
    time.tzset()
    # Python's own streams were made for the warm interpreter's files; the child's are new.
    buffered = not sys.__stdout__.write_through  # type: ignore[union-attr]
    sys.stdin, sys.stdout, sys.stderr = (
        _reopen_stream(fd, old, buffered)
        for fd, old in enumerate((sys.stdin, sys.stdout, sys.stderr))
    )
    for name in ("stdin", "stdout", "stderr"):
        setattr(sys, f"__{name}__", getattr(sys, name))
    # As python -m does: argv[0] is "-m" while the module is found, sys.path[0] the cwd.
    module = request.argv[1]
    sys.argv = ["-m", *request.argv[2:]]
    sys.path[0] = os.getcwd()
    sys.excepthook = _without_warm_frames
    # A __main__ of its own, not the warm interpreter's with its globals.
    sys.modules["__main__"] = types.ModuleType("__main__")
    runpy._run_module_as_main(module, alter_argv=True)  # type: ignore[attr-defined]


def preload_packages() -> None:
    """Import the third-party modules a warm interpreter holds before ours (``PRELOADED``)."""
    import importlib
    import pkgutil

    for name in PRELOADED:
        importlib.import_module(name)
    # cdp-use imports each domain's modules as a client is made, and every client makes
    # them all.
    domains = importlib.import_module("cdp_use.cdp").__path__
    for domain in pkgutil.iter_modules(domains):
        if domain.ispkg:
            for part in ("library", "registration"):
                with contextlib.suppress(ModuleNotFoundError):
                    importlib.import_module(f"cdp_use.cdp.{domain.name}.{part}")


def main() -> None:
    """The warm interpreter: preload, then serve; a forked child runs its module instead."""
    import importlib

    # Started by its path, Python put this folder first; a -m start puts the cwd there.
    sys.path[0] = os.getcwd()
    preload_packages()
    for name in PRELOADED_OURS:
        importlib.import_module(name)
    # The preloaded objects live as long as every child: out of the collector's passes, a
    # child's collections do not touch (and so copy) the pages the fork shares.
    gc.freeze()
    open_fds = {int(fd) for fd in os.listdir("/proc/self/fd")}
    if open_fds - {0, 1, 2, 3}:  # 3: the listing itself
        raise RuntimeError(f"a preloaded module kept files open: {sorted(open_fds)}")
    request = _serve(sys.argv[1])
    if request is not None:
        _become(request)


# --- The worker's side ---------------------------------------------------------------


class WarmInterpreter:
    """This worker's warm interpreter: started on first use, ended with the worker."""

    def __init__(self) -> None:
        self.directory = tempfile.mkdtemp(prefix="warm-")
        self.socket_path = os.path.join(self.directory, "socket")
        self.environment = dict(os.environ)
        # Started by its path, not -m: a child may import only what a fresh one could,
        # and a fresh one started elsewhere cannot import our tests package.
        self.process = subprocess.Popen(
            [sys.executable, __file__, self.socket_path],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=_ROOT,
            env=self.environment,
        )
        assert self.process.stdout is not None
        ready = self.process.stdout.readline()
        if ready != b"ready\n":
            self.process.kill()
            self.process.wait()
            raise RuntimeError(f"the warm interpreter did not start: {ready!r}")
        atexit.register(self.close)

    def alive(self) -> bool:
        """Whether it still answers (a test may have killed every python it saw)."""
        return self.process.poll() is None

    def stands_for(self, env: dict[str, str]) -> bool:
        """Whether a child of this environment would start as a fresh one would."""

        def start_up(values: dict[str, str]) -> dict[str, str]:
            return {
                key: value
                for key, value in values.items()
                if key in READ_AT_START or key.startswith(_READ_AT_START_PREFIXES)
            }

        return start_up(env) == start_up(self.environment)

    def start(self, request: dict[str, Any], streams: list[int]) -> tuple[int, socket.socket]:
        """Ask for a child; its pid, and the connection its exit status will come on."""
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(self.socket_path)
        payload = json.dumps(request).encode()
        socket.send_fds(connection, [_HEADER.pack(len(payload)) + payload], streams)
        line = _read_line(connection, None)
        if not line.startswith("pid "):
            connection.close()
            raise RuntimeError(f"the warm interpreter refused a child: {line!r}")
        return int(line.split()[1]), connection

    def close(self) -> None:
        """End it: closing its stdin is its signal, and kills a child still running."""
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        with contextlib.suppress(OSError):
            os.rmdir(self.directory)


def _read_line(connection: socket.socket, timeout: float | None) -> str:
    """One line from the warm interpreter; "" when ``timeout`` passes first."""
    connection.settimeout(timeout)
    line = b""
    try:
        while not line.endswith(b"\n"):
            chunk = connection.recv(1)
            if not chunk:
                raise ChildProcessError("the warm interpreter ended before the child did")
            line += chunk
    except (TimeoutError, BlockingIOError):
        if line:
            raise ChildProcessError(f"a torn line from the warm interpreter: {line!r}") from None
        return ""
    return line.decode().strip()


_interpreter: WarmInterpreter | None = None
_interpreter_lock = threading.Lock()


def every_child_fresh() -> bool:
    """Whether the switch is on: set as this process started, or now."""
    return _FRESH_AT_START or os.environ.get(FRESH_SWITCH) == "1"


def warm_interpreter() -> WarmInterpreter | None:
    """This process's warm interpreter, started if need be; None when switched off."""
    global _interpreter
    if every_child_fresh():
        return None
    with _interpreter_lock:
        if _interpreter is None or not _interpreter.alive():
            if _interpreter is not None:
                _interpreter.close()
            _interpreter = WarmInterpreter()
        return _interpreter


def interpreter_for(argv: list[str], env: dict[str, str]) -> WarmInterpreter | None:
    """The warm interpreter that is to start ``argv`` in ``env``: only ``python -m MODULE
    ...`` on this Python, in an environment it can stand for; None starts it fresh."""
    if len(argv) < 3 or argv[0] != sys.executable or argv[1] != "-m":
        return None
    interpreter = warm_interpreter()
    return interpreter if interpreter is not None and interpreter.stands_for(env) else None


class WarmPopen(subprocess.Popen[AnyStr]):
    """``subprocess.Popen`` whose ``python -m MODULE`` children come from a fork."""

    #: Set when the warm interpreter started the child: its exit comes on ``_exit``.
    _warm = False
    _exit: socket.socket | None = None

    def _execute_child(
        self,
        args: Any,
        executable: Any,
        preexec_fn: Any,
        close_fds: bool,
        pass_fds: Any,
        cwd: Any,
        env: Any,
        startupinfo: Any,
        creationflags: int,
        shell: bool,
        p2cread: int,
        p2cwrite: int,
        c2pread: int,
        c2pwrite: int,
        errread: int,
        errwrite: int,
        restore_signals: bool,
        gid: Any,
        gids: Any,
        uid: Any,
        umask: int,
        start_new_session: bool,
        process_group: int,
    ) -> None:
        argv = [os.fsdecode(arg) for arg in args] if isinstance(args, list | tuple) else []
        environment = {os.fsdecode(k): os.fsdecode(v) for k, v in (env or os.environ).items()}
        directory = os.fsdecode(cwd) if cwd is not None else os.getcwd()
        # Only what the fork copies: no option it would have to reproduce.
        plain = (
            executable is None
            and not shell
            and preexec_fn is None
            and not pass_fds
            and close_fds
            and restore_signals
            and (gid, gids, uid) == (None, None, None)
            and umask < 0
            and os.path.isdir(directory)
        )
        interpreter = interpreter_for(argv, environment) if plain else None
        if interpreter is None:
            super()._execute_child(  # type: ignore[misc]
                args, executable, preexec_fn, close_fds, pass_fds, cwd, env, startupinfo,
                creationflags, shell, p2cread, p2cwrite, c2pread, c2pwrite, errread, errwrite,
                restore_signals, gid, gids, uid, umask, start_new_session, process_group,
            )  # fmt: skip
            return
        streams = [
            p2cread if p2cread != -1 else 0,
            c2pwrite if c2pwrite != -1 else 1,
            errwrite if errwrite != -1 else 2,
        ]
        request = {
            "argv": argv[1:],
            "env": environment,
            "cwd": directory,
            "start_new_session": bool(start_new_session),
            "process_group": process_group,
        }
        try:
            self.pid, self._exit = interpreter.start(request, streams)
            self._child_created = True
            self._warm = True
        finally:
            self._close_pipe_fds(p2cread, p2cwrite, c2pread, c2pwrite, errread, errwrite)  # type: ignore[attr-defined]

    def _exit_status(self, timeout: float | None) -> None:
        """Take the child's exit status if it comes within ``timeout`` (0: only look)."""
        if self._exit is None:
            return
        line = _read_line(self._exit, timeout)
        if line:
            self._exit.close()
            self._exit = None
            self._handle_exitstatus(int(line.split()[1]))  # type: ignore[attr-defined]

    def _internal_poll(self, _deadstate: Any = None, **kwargs: Any) -> int | None:
        if not self._warm:
            return super()._internal_poll(_deadstate, **kwargs)  # type: ignore[misc,no-any-return]
        if self.returncode is None:
            self._exit_status(0)
        return self.returncode

    def _wait(self, timeout: float | None) -> int:
        if not self._warm:
            return super()._wait(timeout)  # type: ignore[misc,no-any-return]
        if self.returncode is None:
            self._exit_status(timeout)
        if self.returncode is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0)
        return self.returncode


STAND_IN = Path(__file__).with_name("warm_stand_in.py")


def started_by_a_client(
    argv: list[str], env: dict[str, str]
) -> tuple[str, list[str], dict[str, str]]:
    """The command, arguments and environment a client is to start for ``argv`` in ``env``.

    For ``python -m MODULE ...`` that the warm interpreter can stand for, a stand-in
    (tests/support/warm_stand_in.py) whose child is warm; otherwise ``argv`` itself.
    """
    # Imported here: the warm interpreter runs this file, and a module of ours it imported
    # would be preloaded into every child (a test compares their modules).
    from tests.support.warm_stand_in import ARGV_VARIABLE

    interpreter = interpreter_for(argv, env)
    if interpreter is None:
        return argv[0], argv[1:], env
    return (
        sys.executable,
        ["-I", "-S", str(STAND_IN), interpreter.socket_path],
        {**env, ARGV_VARIABLE: json.dumps(argv[1:])},
    )


def run(
    args: list[str],
    *,
    input: Any = None,
    capture_output: bool = False,
    timeout: float | None = None,
    check: bool = False,
    **options: Any,
) -> subprocess.CompletedProcess[Any]:
    """``subprocess.run`` with a ``WarmPopen`` child: the same arguments and results."""
    if input is not None:
        options["stdin"] = subprocess.PIPE
    if capture_output:
        options["stdout"] = options["stderr"] = subprocess.PIPE
    with WarmPopen(args, **options) as process:
        try:
            stdout, stderr = process.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise
        except BaseException:
            process.kill()
            raise
    completed = subprocess.CompletedProcess(args, process.returncode, stdout, stderr)
    if check:
        completed.check_returncode()
    return completed


if __name__ == "__main__":
    main()
