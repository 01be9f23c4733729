"""A child forked from the warm interpreter starts as a fresh ``python -m`` child would.

Each test runs the same probe module both ways (``subprocess.Popen`` and ``WarmPopen``)
and compares what the two children saw and did, so a difference the fork brings shows as
a failing comparison, not as a CLI test that passes for the wrong reason.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from subterminator_tui.browser.processes import process_table
from tests.support import warm_children, warm_stand_in
from tests.support.warm_children import FRESH_SWITCH, WarmPopen

#: The probe: what a process sees as it starts, then one thing to do (argv[1]).
PROBE = """
import atexit, json, os, signal, sys, threading, time

def seen():
    streams = [sys.stdin, sys.stdout, sys.stderr]
    with open("/proc/self/cmdline", "rb") as cmdline, open("/proc/self/comm") as comm:
        title = cmdline.read().replace(b"\\0", b" ").decode().strip()
        name = comm.read().strip()
    mask = os.umask(0)
    os.umask(mask)
    return {
        "argv": sys.argv,
        "cwd": os.getcwd(),
        "path0": sys.path[0],
        "env": dict(os.environ),
        "signals": {
            number.name: repr(signal.getsignal(number))
            for number in signal.valid_signals()
            if isinstance(number, signal.Signals)
            and number not in (signal.SIGKILL, signal.SIGSTOP)
        },
        "blocked": sorted(int(number) for number in signal.pthread_sigmask(signal.SIG_BLOCK, [])),
        "streams": [
            [s.fileno(), s.name, s.encoding, s.errors, s.line_buffering, s.write_through,
             type(s.buffer).__name__, s is getattr(sys, f"__{n}__")]
            for s, n in zip(streams, ("stdin", "stdout", "stderr"))
        ],
        "fds": sorted(os.listdir("/proc/self/fd")),
        "title": title,
        "name": name,
        "ours": sorted(m for m in sys.modules if m.startswith(("subterminator_tui", "tests"))),
        "main": sorted(k for k in vars(sys.modules["__main__"]) if not k.startswith("__")),
        "parents_group": os.getpgid(0) == os.getpgid(os.getppid()),
        "session": os.getsid(0),
        "umask": mask,
        "threads": threading.active_count(),
        "tzname": list(time.tzname),
        "pycache": sys.pycache_prefix,
        "flags": str(sys.flags),
    }

what = sys.argv[1]
if what == "report":
    print(json.dumps(seen()))
elif what == "exit":
    sys.exit(int(sys.argv[2]))
elif what == "raise":
    raise ValueError("raised on purpose")
elif what == "echo":
    data = sys.stdin.read()
    print(len(data), data.upper(), end="")
elif what == "wait":
    print("waiting", flush=True)
    sys.stdin.read()
elif what == "hang":
    print("waiting", flush=True)
    signal.pause()
elif what == "atexit":
    atexit.register(lambda: sys.stdout.write(" and atexit ran"))
    sys.stdout.write("buffered, never flushed")
"""


#: Whether this worker forks its children: not when it started with every child fresh.
needs_warm = pytest.mark.skipif(
    warm_children.every_child_fresh(),
    reason=f"{FRESH_SWITCH}=1: every child starts fresh, there is no warm one to compare",
)


@pytest.fixture
def probe(tmp_path: Path) -> Path:
    """A folder holding the probe module, the children's working directory."""
    (tmp_path / "child_probe.py").write_text(PROBE, encoding="utf-8")
    return tmp_path


def start(kind: type[Any], probe: Path, *args: str, **options: Any) -> Any:
    """The probe started by ``kind``, its three streams piped."""
    return kind(
        [sys.executable, "-m", "child_probe", *args],
        cwd=probe,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **options,
    )


def report(kind: type[Any], probe: Path, **options: Any) -> dict[str, Any]:
    child = start(kind, probe, "report", **options)
    stdout, stderr = child.communicate(timeout=60)
    assert child.returncode == 0, stderr
    seen: dict[str, Any] = json.loads(stdout)
    return seen


def parent_of_running(kind: type[Any], probe: Path, **options: Any) -> int:
    """The parent pid of a probe started by ``kind``, read while it waits."""
    child = start(kind, probe, "wait", **options)
    try:
        assert child.stdout.readline() == b"waiting\n"
        return next(row.ppid for row in process_table() if row.pid == child.pid)
    finally:
        child.communicate(b"", timeout=60)


@needs_warm
def test_a_warm_child_sees_what_a_fresh_child_sees(probe: Path) -> None:
    """argv, cwd, sys.path, environment, signals, streams, open files, process title,
    modules, session, umask, threads, time zone, flags: all as a fresh child's."""
    env = {**os.environ, "ONLY_FOR_THIS_CHILD": "yes", "TZ": "America/Denver"}
    fresh = report(subprocess.Popen, probe, env=env)
    warm = report(WarmPopen, probe, env=env)
    # Of ours, the warm child holds what PRELOADED_OURS imports, and nothing else: the
    # test below shows those load the same whatever the environment.
    assert warm.pop("ours") == preloaded_ours() != []
    assert fresh.pop("ours") == []
    assert warm == fresh
    assert fresh["env"]["ONLY_FOR_THIS_CHILD"] == "yes" and fresh["tzname"][0] == "MST"
    assert fresh["parents_group"]
    assert fresh["path0"] == str(probe) and fresh["argv"][1:] == ["report"]
    assert "-m child_probe report" in fresh["title"] and fresh["name"] == "python"


#: Imports ``argv[2:]`` in a new interpreter after the packages a warm interpreter loads
#: first (``preload_packages``), and reports what that did: the variables read
#: (``os.environ`` watched), the modules of ours it brought, the threads it left, and a
#: digest of those modules' plain values (text, numbers, patterns, in tuples, sets and
#: dicts: what a value drawn or read at import would be).
_IMPORT_PROBE = """
import collections.abc, hashlib, importlib, json, os, re, sys, threading
sys.path.insert(0, sys.argv[1])
from tests.support.warm_children import preload_packages
preload_packages()
read = []
real = os.environ

class Watched(collections.abc.MutableMapping):
    def __getitem__(self, key):
        read.append(key)
        return real[key]
    def __setitem__(self, key, value):
        read.append(key)
        real[key] = value
    def __delitem__(self, key):
        read.append(key)
        del real[key]
    def __iter__(self):
        read.append("*")
        return iter(real)
    def __len__(self):
        read.append("*")
        return len(real)

def plain(value, depth=0):
    if isinstance(value, (str, bytes, int, float, bool, type(None))):
        return repr(value)
    if isinstance(value, re.Pattern):
        return ["pattern", repr(value.pattern), value.flags]
    if depth < 6 and isinstance(value, (tuple, list)):
        return [plain(item, depth + 1) for item in value]
    if depth < 6 and isinstance(value, (set, frozenset)):
        return sorted(json.dumps(plain(item, depth + 1)) for item in value)
    if depth < 6 and isinstance(value, dict):
        pairs = ([plain(k, depth + 1), plain(v, depth + 1)] for k, v in value.items())
        return sorted(json.dumps(pair) for pair in pairs)
    return type(value).__qualname__

threads = threading.active_count()
before = set(sys.modules)
os.environ = Watched()
for name in sys.argv[2:]:
    importlib.import_module(name)
os.environ = real
ours = sorted(m for m in set(sys.modules) - before if m.startswith("subterminator_tui"))
values = {
    name: {key: plain(value) for key, value in vars(sys.modules[name]).items()
           if not key.startswith("__")}
    for name in ours
}
digest = hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest()
left = threading.active_count() - threads
print(json.dumps({"read": sorted(set(read)), "ours": ours, "threads": left, "digest": digest}))
"""


def imported(modules: tuple[str, ...], env: dict[str, str]) -> dict[str, Any]:
    """What importing ``modules`` (after the preloaded packages) did in a new interpreter."""
    root = str(Path(__file__).resolve().parents[2])
    completed = subprocess.run(
        [sys.executable, "-c", _IMPORT_PROBE, root, *modules],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    seen: dict[str, Any] = json.loads(completed.stdout.strip().splitlines()[-1])
    return seen


@functools.cache
def preloaded_ours() -> list[str]:
    """The modules of ours a warm interpreter holds: what ``PRELOADED_OURS`` imports (the
    same in any environment, as the test below shows: one new interpreter a worker)."""
    return list(imported(warm_children.PRELOADED_OURS, dict(os.environ))["ours"])


def two_environments(tmp_path: Path) -> list[dict[str, str]]:
    """Two environments as unlike as a test's and a worker's: home, folders, time zone,
    our settings; the same string hashing (a fork keeps the warm interpreter's anyway)."""
    return [
        {
            **os.environ,
            "HOME": str(tmp_path / name),
            "XDG_CONFIG_HOME": str(tmp_path / name / "config"),
            "XDG_STATE_HOME": str(tmp_path / name / "state"),
            "XDG_DATA_HOME": str(tmp_path / name / "data"),
            "XDG_CACHE_HOME": str(tmp_path / name / "cache"),
            "TZ": zone,
            "SUBTERMINATOR_CALL_TIMEOUT": timeout,
            "SUBTERMINATOR_HEADLESS": headless,
            "PYTHONHASHSEED": "0",
        }
        for name, zone, timeout, headless in (
            ("one", "UTC", "30", "true"),
            ("two", "Asia/Tokyo", "7", "false"),
        )
    ]


def test_the_modules_of_ours_a_warm_child_takes_load_the_same_anywhere(tmp_path: Path) -> None:
    """What ``PRELOADED_OURS`` imports reads no variable but the ones a warm interpreter
    cannot stand for (a child differing in one starts fresh), starts no thread, and holds
    the same values under two unlike environments: a forked child holds what it would
    have loaded itself."""
    one, two = (imported(warm_children.PRELOADED_OURS, env) for env in two_environments(tmp_path))
    assert one["ours"] and one["ours"] == two["ours"]
    assert "subterminator_tui.serve.oversight.approvals" not in one["ours"]
    assert set(one["read"]) <= set(warm_children.READ_AT_START), one["read"]
    assert one["threads"] == two["threads"] == 0
    assert one["digest"] == two["digest"]


def test_a_module_that_draws_a_value_as_it_loads_is_told_apart(tmp_path: Path) -> None:
    """Proof the check above can fail: serve's approvals draw their key at import, and two
    interpreters in the same environment hold different values."""
    module = ("subterminator_tui.serve.oversight.approvals",)
    env = two_environments(tmp_path)[0]
    assert imported(module, env)["digest"] != imported(module, env)["digest"]


@needs_warm
def test_the_warm_child_is_forked_and_the_fresh_one_is_ours(probe: Path) -> None:
    """Proof that the comparisons above compare two kinds: only one is our own child."""
    assert parent_of_running(subprocess.Popen, probe) == os.getpid()
    interpreter = warm_children.warm_interpreter()
    assert interpreter is not None
    assert parent_of_running(WarmPopen, probe) == interpreter.process.pid


@needs_warm
@pytest.mark.parametrize(
    ("args", "stdin", "code", "output"),
    [
        (("exit", "3"), b"", 3, b""),
        (("exit", "0"), b"", 0, b""),
        (("raise",), b"", 1, b""),
        (("echo",), b"some input", 0, b"10 SOME INPUT"),
        (("atexit",), b"", 0, b"buffered, never flushed and atexit ran"),
    ],
)
@pytest.mark.parametrize("by_a_client", [False, True], ids=["popen", "client"])
def test_exit_status_output_and_input_are_a_fresh_childs(
    probe: Path, args: tuple[str, ...], stdin: bytes, code: int, output: bytes, by_a_client: bool
) -> None:
    """Exit codes, a traceback, input to end of file, output never flushed by hand; as
    Popen starts the child, and as a client starts it (through the stand-in: it passes
    the streams on and ends with the child's status)."""
    results = []
    kinds = (
        (fresh_in_own_session, through_stand_in)
        if by_a_client
        else (partial(start, subprocess.Popen), partial(start, WarmPopen))
    )
    for kind in kinds:
        child = kind(probe, *args)
        stdout, stderr = child.communicate(stdin, timeout=60)
        results.append((child.returncode, stdout, stderr))
    assert results[1] == results[0]
    assert results[0][:2] == (code, output)
    assert (b"ValueError: raised on purpose" in results[0][2]) == (args[0] == "raise")


@needs_warm
@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_a_signal_ends_a_warm_child_as_it_ends_a_fresh_one(probe: Path, number: int) -> None:
    """Ctrl+C is a KeyboardInterrupt, SIGTERM and SIGKILL kill; wait and poll see it."""
    results = []
    for kind in (subprocess.Popen, WarmPopen):
        child = start(kind, probe, "wait")
        assert child.stdout.readline() == b"waiting\n"
        assert child.poll() is None
        child.send_signal(number)
        code = child.wait(timeout=60)
        _, stderr = child.communicate(timeout=60)
        results.append((code, child.poll(), b"KeyboardInterrupt" in stderr))
    assert results[1] == results[0]
    assert results[0] == (-number, -number, number == signal.SIGINT)


@needs_warm
def test_a_timeout_is_raised_and_the_child_can_still_be_ended(probe: Path) -> None:
    """communicate(timeout=) raises TimeoutExpired, as subprocess.run relies on."""
    child = start(WarmPopen, probe, "hang")
    assert child.stdout.readline() == b"waiting\n"
    with pytest.raises(subprocess.TimeoutExpired):
        child.communicate(timeout=0.2)
    child.kill()
    child.communicate(timeout=60)
    assert child.returncode == -signal.SIGKILL


@needs_warm
def test_run_is_subprocess_runs_with_a_warm_child(probe: Path) -> None:
    """warm_children.run: input, captured text output, check, the exit code."""
    command = [sys.executable, "-m", "child_probe"]
    done = warm_children.run(
        [*command, "echo"], input="abc", capture_output=True, text=True, cwd=probe
    )
    assert (done.returncode, done.stdout) == (0, "3 ABC")
    with pytest.raises(subprocess.CalledProcessError):
        warm_children.run([*command, "exit", "4"], cwd=probe, check=True)
    with pytest.raises(subprocess.TimeoutExpired):
        warm_children.run([*command, "hang"], cwd=probe, timeout=0.2)


@pytest.mark.parametrize(
    "change",
    [{"PYTHONHASHSEED": "7"}, {"LC_ALL": "C"}, {FRESH_SWITCH: "1"}],
    ids=["a PYTHON variable", "a locale", "the switch"],
)
def test_what_a_warm_interpreter_cannot_stand_for_starts_fresh(
    probe: Path, change: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A variable Python reads only as it starts, or the switch: a fresh child."""
    if FRESH_SWITCH in change:
        monkeypatch.setenv(FRESH_SWITCH, "1")
    env = {**os.environ, **change}
    assert parent_of_running(WarmPopen, probe, env=env) == os.getpid()


def test_the_switch_set_as_the_worker_starts_holds_in_a_tests_own_environment(
    probe: Path,
) -> None:
    """The switch counts when the worker started with it, though a test's isolated
    environment no longer has it (the fixtures build one without it)."""
    script = (
        "import os, subprocess, sys\n"
        "from subterminator_tui.browser.processes import process_table\n"
        "from tests.support.warm_children import FRESH_SWITCH, WarmPopen\n"
        "del os.environ[FRESH_SWITCH]\n"
        "child = WarmPopen([sys.executable, '-m', 'child_probe', 'wait'],"
        f" cwd={str(probe)!r}, stdin=subprocess.PIPE, stdout=subprocess.PIPE)\n"
        "assert child.stdout.readline() == b'waiting\\n'\n"
        "parent = next(row.ppid for row in process_table() if row.pid == child.pid)\n"
        "child.communicate(b'')\n"
        "print(parent == os.getpid())\n"
    )
    for switched, fresh in (("1", "True"), ("0", "False")):
        done = subprocess.run(
            [sys.executable, "-c", script],
            cwd=Path(__file__).resolve().parents[2],
            env={**os.environ, FRESH_SWITCH: switched},
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        assert done.stdout.strip() == fresh, done.stderr


@needs_warm
def test_the_warm_interpreter_and_its_children_end_with_the_worker(tmp_path: Path) -> None:
    """A worker killed outright leaves no warm interpreter and no child of it behind."""
    (tmp_path / "child_probe.py").write_text(PROBE, encoding="utf-8")
    worker = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import subprocess, sys\n"
            "from tests.support.warm_children import WarmPopen, warm_interpreter\n"
            "child = WarmPopen([sys.executable, '-m', 'child_probe', 'wait'],"
            f" cwd={str(tmp_path)!r}, stdin=subprocess.PIPE, stdout=subprocess.PIPE)\n"
            "assert child.stdout.readline() == b'waiting\\n'\n"
            "print(warm_interpreter().process.pid, child.pid, flush=True)\n"
            "sys.stdin.read()\n",
        ],
        cwd=Path(__file__).resolve().parents[2],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert worker.stdout is not None
    pids = [int(pid) for pid in worker.stdout.readline().split()]
    # A pidfd reads as ready when its process ends: an event, for processes not ours.
    ends = [os.pidfd_open(pid) for pid in pids]
    try:
        assert select.select(ends, [], [], 0)[0] == []
        worker.kill()
        worker.wait()
        for end in ends:
            assert select.select([end], [], [], 30)[0] == [end]
    finally:
        for end in ends:
            os.close(end)


# --- Children a client starts itself: through the stand-in --------------------------


def through_stand_in(probe: Path, *args: str) -> subprocess.Popen[bytes]:
    """The probe started as the MCP SDK's stdio client starts a server: a session of its
    own, with the command ``started_by_a_client`` gives (the stand-in, here)."""
    command, arguments, env = warm_children.started_by_a_client(
        [sys.executable, "-m", "child_probe", *args], dict(os.environ)
    )
    assert arguments[:3] == ["-I", "-S", str(warm_children.STAND_IN)], "not the stand-in"
    return subprocess.Popen(
        [command, *arguments],
        cwd=probe,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def fresh_in_own_session(probe: Path, *args: str) -> subprocess.Popen[bytes]:
    """The probe started fresh the same way: what the stand-in's child must match.

    With the same explicit environment, as the SDK gives its servers one: a child left to
    inherit would also see what a library set behind ``os.environ``'s back (readline, once
    imported, puts the terminal's ``COLUMNS`` and ``LINES`` there), which no client passes on.
    """
    return start(subprocess.Popen, probe, *args, start_new_session=True, env=dict(os.environ))


def child_of(stand_in: subprocess.Popen[bytes]) -> int:
    """The pid of the stand-in's child: the process whose title is the probe's."""
    interpreter = warm_children.warm_interpreter()
    assert interpreter is not None
    (child,) = (
        row.pid
        for row in process_table()
        if row.ppid == interpreter.process.pid and "-m child_probe" in row.cmdline
    )
    return child


@needs_warm
def test_a_child_through_the_stand_in_sees_what_a_fresh_child_sees(probe: Path) -> None:
    """The same comparison as above, for a child started by a client in its own session;
    the stand-in's own variable is not the child's."""
    results = []
    for kind in (fresh_in_own_session, through_stand_in):
        child = kind(probe, "report")
        stdout, stderr = child.communicate(timeout=60)
        assert child.returncode == 0, stderr
        seen = json.loads(stdout)
        # Both lead a session of their own: its id is their own pid, different each time.
        assert seen.pop("session") != os.getsid(0)
        results.append(seen)
    assert results[1].pop("ours") == preloaded_ours() and results[0].pop("ours") == []
    assert results[1] == results[0]
    assert warm_stand_in.ARGV_VARIABLE not in results[1]["env"]
    assert not results[0]["parents_group"]


@needs_warm
@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_to_the_stand_ins_group_ends_the_child_as_it_ends_a_fresh_one(
    probe: Path, number: int
) -> None:
    """The SDK ends its server with SIGTERM to the server's process group: the child gets
    it, and the stand-in ends as the child did (killed by it; a KeyboardInterrupt first)."""
    results = []
    for kind in (fresh_in_own_session, through_stand_in):
        # Waiting on the signal alone: a child waiting on its input could see the end of
        # it (communicate closes it) before the signal the stand-in passes on, and end 0.
        child = kind(probe, "hang")
        assert child.stdout is not None and child.stdout.readline() == b"waiting\n"
        os.killpg(child.pid, number)
        _, stderr = child.communicate(timeout=60)
        results.append((child.returncode, b"KeyboardInterrupt" in stderr))
    assert results[1] == results[0]
    assert results[0] == (-number, number == signal.SIGINT)


def test_a_signal_before_the_stand_in_knows_its_child_reaches_the_child() -> None:
    """A client may signal its server as soon as the server is up, before the warm
    interpreter's "pid" line has reached the stand-in (the race a run of the signal test
    above lost): the signal waits for the pid, then reaches the child's session.

    The warm interpreter's side is played here, so the pid line comes only after the
    signal was sent; a stand-in not yet listening was killed by it outright, and the
    child never heard of it."""
    with (
        tempfile.TemporaryDirectory(dir="/tmp") as place,  # a socket path's 108 bytes
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener,
    ):
        listener.bind(os.path.join(place, "warm"))
        listener.listen(1)
        listener.settimeout(30)
        env = dict(os.environ, **{warm_stand_in.ARGV_VARIABLE: json.dumps(["-m", "server"])})
        stand_in = subprocess.Popen(
            [sys.executable, "-I", "-S", str(warm_children.STAND_IN), listener.getsockname()],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        child = None
        try:
            connection, _ = listener.accept()
            with connection:
                _, streams, _, _ = socket.recv_fds(connection, 65536, 3)
                for stream in streams:
                    os.close(stream)
                child = subprocess.Popen(["sleep", "60"], start_new_session=True)
                stand_in.send_signal(signal.SIGTERM)
                connection.sendall(f"pid {child.pid}\n".encode())
                with contextlib.suppress(subprocess.TimeoutExpired):
                    child.wait(timeout=30)
                assert child.returncode == -signal.SIGTERM, "the signal never reached the child"
                connection.sendall(f"exit {signal.SIGTERM}\n".encode())  # a wait status
                assert stand_in.wait(timeout=30) == -signal.SIGTERM
        finally:
            for process in (child, stand_in):
                if process is not None:
                    process.kill()
                    process.wait()


@needs_warm
def test_a_stand_in_killed_outright_takes_its_child_with_it(probe: Path) -> None:
    """The SDK's last resort is SIGKILL to the group: the stand-in cannot pass that on.
    The child is in a session of its own, out of the group's reach (the attack), and
    ends all the same: the warm interpreter sees the stand-in's connection close."""
    stand_in = through_stand_in(probe, "hang")  # never ends by itself
    assert stand_in.stdout is not None and stand_in.stdout.readline() == b"waiting\n"
    child = child_of(stand_in)
    assert os.getpgid(child) != os.getpgid(stand_in.pid), "a group kill would reach it"
    end = os.pidfd_open(child)
    try:
        assert select.select([end], [], [], 0)[0] == []
        os.killpg(stand_in.pid, signal.SIGKILL)
        assert stand_in.wait(timeout=60) == -signal.SIGKILL
        assert select.select([end], [], [], 30)[0] == [end], "the child outlived its stand-in"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, signal.SIGKILL)
        os.close(end)
        stand_in.communicate(timeout=60)
