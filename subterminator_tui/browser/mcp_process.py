"""The Playwright MCP process behind the gateway: started, watched, spoken to, stopped.

The gateway (gateway.py) holds one and sends every call through
:meth:`PlaywrightMCPProcess.dispatch`. The MCP client lives in a task of its own
(the *session owner*): the SDK's stdio transport opens cancel scopes and a task
group that must be closed by the task that opened them, and callers (the loop, the
Textual worker) need to time out or be cancelled without tearing those scopes.
Callers talk to the owner through a queue.

A watchdog notices when Node dies (a crash, or a SIGKILL) and immediately
kills the Chromium it leaves behind, which Playwright started in a process
group of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPDeprecationWarning

from subterminator_tui import __version__
from subterminator_tui.browser.answers import ANSI, error_message, root_cause
from subterminator_tui.browser.devtools_session import (
    DevToolsSession,
    endpoint_port,
    forget_endpoint,
    wait_for_endpoint,
)
from subterminator_tui.browser.hardening import keep_preferences, write_browser_config
from subterminator_tui.browser.interception import RequestWatch
from subterminator_tui.browser.launch import LaunchPlan
from subterminator_tui.browser.playwright_worlds import PlaywrightWorlds
from subterminator_tui.browser.private_devtools import PrivateDevTools, forget_socket
from subterminator_tui.browser.processes import kill_browser_processes, pid_alive, process_table
from subterminator_tui.browser.tools import REQUIRED_TOOLS
from subterminator_tui.browser.typed_values import TypingWatch
from subterminator_tui.errors import MCPConnectionError, OutcomeUnknownError

logger = logging.getLogger(__name__)

_WATCHDOG_INTERVAL = 0.2
#: The request name of an MCP ping (no tool has it: tool names have no spaces).
_PING = "mcp ping"


@dataclass
class _Request:
    name: str
    arguments: dict[str, Any]
    reply: asyncio.Future[types.CallToolResult]


def _take_error(reply: asyncio.Future[types.CallToolResult]) -> None:
    """Mark an abandoned answer's error as seen (the call's caller already had its own)."""
    if not reply.cancelled():
        reply.exception()


def _leave(reply: asyncio.Future[types.CallToolResult]) -> None:
    """A caller gone (timed out, cancelled) leaves its answer to come: its error, a dead
    server's, is taken when it comes, not printed on the terminal ("Future exception was
    never retrieved") when the answer is collected."""
    if not reply.done():
        reply.add_done_callback(_take_error)


class ServerStopped(Exception):
    """The Playwright MCP process is gone; the gateway may restart it."""


class PlaywrightMCPProcess:
    """One Playwright MCP server over stdio, with the browser it starts.

    ``last_page`` gives the last page seen (the gateway keeps it): a call that times out
    carries it in its error.
    """

    def __init__(
        self,
        plan: LaunchPlan,
        *,
        connect_timeout: float,
        call_timeout: float,
        last_page: Callable[[], object | None] = lambda: None,
    ) -> None:
        self.plan = plan
        self.last_page = last_page
        #: Our own DevTools session and its clients: every request of the browser paused
        #: and judged, what is typed into its pages learned, Playwright's worlds read.
        self.devtools = DevToolsSession()
        self.requests = RequestWatch(self.devtools)
        self.typing = TypingWatch(self.devtools)
        self.worlds = PlaywrightWorlds(self.devtools)
        #: The DevTools ports no page may reach (the run's egress filter refuses them).
        self.devtools_ports: set[int] = set()
        self.connect_timeout = connect_timeout
        self.call_timeout = call_timeout
        self.server_tools: dict[str, types.Tool] = {}
        #: Time spent waiting for Playwright MCP's answers: the browser's share of a turn.
        self.mcp_seconds = 0.0
        self.node_pid: int | None = None
        self._owner: asyncio.Task[None] | None = None
        self._watchdog: asyncio.Task[None] | None = None
        self._requests: asyncio.Queue[_Request | None] = asyncio.Queue()
        self._server_died = False
        self._closing = False
        self._errlog: TextIO | None = None
        # --- private DevTools: the browser's port behind a socket only we may open ---
        self.private: PrivateDevTools | None = None
        if plan.private_devtools and plan.browser is not None and plan.proxy_server:
            launcher = plan.browser_launcher
            self.private = PrivateDevTools(
                plan.profile_dir, launcher, plan.browser, plan.proxy_server
            )
        # --- end private DevTools ---

    async def start_server(self) -> None:
        """Start the server and handshake; MCPConnectionError, with diagnostics, when it cannot."""
        self._server_died = False
        self._requests = asyncio.Queue()
        if self.plan.remote is None:
            write_browser_config(
                self.plan.browser_config, hardened=self.plan.hardened, headless=self.plan.headless
            )
            if self.plan.hardened:
                keep_preferences(self.plan.profile_dir)
            forget_endpoint(self.plan.profile_dir)
            forget_socket(self.plan.profile_dir)
            if self.private is not None:
                await self.private.start()
        self._errlog = self.plan.server_log.open("a", encoding="utf-8")
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[types.ListToolsResult] = loop.create_future()
        self._owner = asyncio.create_task(self._own_session(ready), name="playwright-mcp")
        try:
            listing = await asyncio.wait_for(asyncio.shield(ready), self.connect_timeout)
        except TimeoutError:
            await self.stop_server()
            raise MCPConnectionError(
                f"Playwright MCP did not answer within {self.connect_timeout:.0f} s. "
                + self.diagnostics()
            ) from None
        except (Exception, asyncio.CancelledError) as error:
            await self.stop_server()
            if isinstance(error, asyncio.CancelledError):
                raise
            raise MCPConnectionError(
                f"Failed to connect to Playwright MCP ({root_cause(error)}). " + self.diagnostics()
            ) from error
        self.server_tools = {tool.name: tool for tool in listing.tools}
        missing = REQUIRED_TOOLS - self.server_tools.keys()
        if missing:
            await self.stop_server()
            raise MCPConnectionError(
                f"Playwright MCP {self.plan.package.version} lacks {', '.join(sorted(missing))}; "
                "reinstall the pinned version with: make setup"
            )
        self.node_pid = self._find_node_pid()
        self._watchdog = asyncio.create_task(self._watch_node(), name="playwright-mcp-watchdog")

    async def watch_requests(self) -> None:
        """Before the first page loads: start the browser and attach our DevTools session.

        Called by the first call that may load a page, not at start: a browser that hangs
        while starting then hangs in a call the person can interrupt, as it always did.
        """
        if self.plan.remote is not None or self.devtools.attached:
            return
        # The process's own call (not the guarded page's): it only makes Playwright launch.
        await self.dispatch("browser_tabs", {"action": "list"})
        endpoint = await wait_for_endpoint(self.plan.profile_dir, self.connect_timeout)
        if endpoint is None:
            await self.stop_server()
            raise MCPConnectionError(
                "The browser started without its DevTools endpoint, so its requests cannot be "
                "watched. " + self.diagnostics()
            )
        if self.private is not None:
            endpoint = self.private.unix_endpoint(endpoint)
        else:
            self.devtools_ports.add(endpoint_port(endpoint))
        try:
            await self.devtools.attach(endpoint)
        except Exception as error:
            await self.stop_server()
            raise MCPConnectionError(
                f"Could not attach to the browser's DevTools endpoint ({error}). "
                + self.diagnostics()
            ) from None

    async def _own_session(self, ready: asyncio.Future[types.ListToolsResult]) -> None:
        params = StdioServerParameters(
            command=str(self.plan.node.executable),
            args=self.plan.arguments(),
            env=self.plan.environment(),
            cwd=self.plan.run_dir,
        )
        assert self._errlog is not None
        client = Client(
            stdio_client(params, errlog=self._errlog),
            mode="legacy",
            client_info=types.Implementation(name="subterminator", version=__version__),
        )
        pending: _Request | None = None
        try:
            async with client:
                listing = await client.list_tools()
                if not ready.done():
                    ready.set_result(listing)
                while True:
                    pending = await self._requests.get()
                    if pending is None:
                        return
                    if pending.name == _PING:
                        # Playwright MCP speaks the legacy protocol (mode="legacy"), where
                        # ping is defined; the SDK warns that later protocol versions drop it.
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore", MCPDeprecationWarning)
                            await client.send_ping()
                        result = types.CallToolResult(content=[])
                    else:
                        result = await client.call_tool(pending.name, pending.arguments)
                    if not pending.reply.done():
                        pending.reply.set_result(result)
                    pending = None
        except Exception as error:
            if not ready.done():
                ready.set_exception(error)
            if pending is not None and not pending.reply.done():
                pending.reply.set_exception(ServerStopped(str(error)))
        finally:
            self._fail_queued(ServerStopped("Playwright MCP stopped"))

    def _fail_queued(self, error: Exception) -> None:
        while not self._requests.empty():
            request = self._requests.get_nowait()
            if request is not None and not request.reply.done():
                request.reply.set_exception(error)

    def _find_node_pid(self) -> int | None:
        marker = str(self.plan.output_dir)
        for proc in process_table():
            if proc.alive and marker in proc.cmdline and str(self.plan.package.cli) in proc.cmdline:
                return proc.pid
        return None

    async def _watch_node(self) -> None:
        # Polling: Node is the SDK's child, so there is no handle of ours to await.
        while not self._closing:
            await asyncio.sleep(_WATCHDOG_INTERVAL)
            if self.node_pid is not None and not pid_alive(self.node_pid) and not self._closing:
                logger.warning("Playwright MCP (pid %s) died; stopping its browser", self.node_pid)
                self._server_died = True
                await asyncio.to_thread(kill_browser_processes, self.plan.profile_dir, patience=2.0)
                return

    async def stop_server(self) -> None:
        """Stop Node (SIGTERM first, so Chromium writes its cookies) and every browser left."""
        await self.devtools.close()
        watchdog, self._watchdog = self._watchdog, None
        if watchdog is not None and watchdog is not asyncio.current_task():
            watchdog.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watchdog
        # SIGTERM to Node first: Playwright then closes the browser cleanly and
        # Chromium writes its cookies, so the person stays signed in. Closing
        # stdin first (the SDK's way) makes Playwright kill the browser abruptly.
        if self.node_pid is not None and pid_alive(self.node_pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.node_pid, signal.SIGTERM)
            await asyncio.to_thread(kill_browser_processes, self.plan.profile_dir, patience=2.0)
        owner, self._owner = self._owner, None
        if owner is not None:
            self._requests.put_nowait(None)
            # The SDK's shutdown (close stdin, wait, then kill the tree) is shielded and bounded.
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(owner, timeout=6.0)
        # Whatever is left: a browser still closing after Node died gets a moment
        # to write its cookies before it is stopped.
        await asyncio.to_thread(
            kill_browser_processes, self.plan.profile_dir, patience=1.0, grace=1.5
        )
        if self.private is not None:
            await self.private.stop()
        if self._errlog is not None:
            self._errlog.close()
            self._errlog = None

    async def close(self) -> None:
        """Stop the server and make sure no browser process outlives it, even when cancelled."""
        if self._closing:
            return
        self._closing = True
        task = asyncio.ensure_future(self.stop_server())
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            await task
            raise
        finally:
            if self.private is not None:
                self.private.remove()

    @property
    def alive(self) -> bool:
        """True while the server is running and answering."""
        return self._owner is not None and not self._owner.done() and not self._server_died

    async def ping(self, within: float) -> bool:
        """Whether the server answers an MCP ping within ``within`` s (after calls already queued).

        A health check: a failed ping does not mark the server dead, whoever pings decides.
        """
        if self._closing or self._owner is None or not self.alive:
            return False
        reply: asyncio.Future[types.CallToolResult] = asyncio.get_running_loop().create_future()
        self._requests.put_nowait(_Request(_PING, {}, reply))
        try:
            await asyncio.wait_for(asyncio.shield(reply), within)
        except Exception:  # a timeout, the server gone, a refusal: all unanswered
            return False
        finally:
            _leave(reply)
        return True

    @property
    def died(self) -> bool:
        """Whether the server died (or hung) since it started: the next call restarts it."""
        return self._server_died or (self._owner is not None and self._owner.done())

    def diagnostics(self) -> str:
        """What to check, where the server log is, and its last lines."""
        tail = ""
        with contextlib.suppress(OSError):
            lines = self.plan.server_log.read_text(encoding="utf-8", errors="replace").splitlines()
            tail = " | ".join(line.strip() for line in lines[-5:] if line.strip())
        hint = (
            f"Ensure Node.js and the pinned Playwright MCP are installed (make setup) and that "
            f"{self.plan.browser_description} starts. Server log: {self.plan.server_log}"
        )
        return hint + (f". Last output: {tail}" if tail else "")

    def explain_error(self, text: str) -> str:
        """A tool's error in a line or two; the browser's launch log goes to the server log."""
        message = error_message(text)
        if "Browser logs:" not in message:
            return message
        head = message.split("Browser logs:", 1)[0].strip()
        if self._errlog is not None:
            self._errlog.write(ANSI.sub("", message) + "\n")
            self._errlog.flush()
        return (
            f"{head}. The browser {self.plan.browser_description} did not start or closed at "
            f"once: check SUBTERMINATOR_BROWSER and run `subterminator doctor`. Browser log: "
            f"{self.plan.server_log}"
        )

    async def dispatch(self, name: str, args: dict[str, Any]) -> types.CallToolResult:
        """Send one tool call as it is (no allowlist: the gateway's job) and await its answer.

        ServerStopped when the server died under it; OutcomeUnknownError when it hung.
        """
        if self._closing or self._owner is None:
            raise MCPConnectionError("The browser gateway is closed.")
        reply: asyncio.Future[types.CallToolResult] = asyncio.get_running_loop().create_future()
        self._requests.put_nowait(_Request(name, args, reply))
        started = time.perf_counter()
        try:
            return await asyncio.wait_for(asyncio.shield(reply), self.call_timeout)
        except TimeoutError:
            # A hung server: the next call starts a new one. What this call did is unknown.
            self._server_died = True
            raise OutcomeUnknownError(
                f"{name} did not finish within {self.call_timeout:.0f} s; the browser was "
                "restarted and what the call did is not known",
                snapshot=self.last_page(),
            ) from None
        finally:
            _leave(reply)
            seconds = time.perf_counter() - started
            self.mcp_seconds += seconds
            logger.debug("%s took %.3f s", name, seconds)
