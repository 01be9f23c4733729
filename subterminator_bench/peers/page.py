"""The manual's page on the comparison (``docs/peers.md``), written from the runs.

``python -m subterminator_bench.peers.page OUTPUT PAGE`` writes the page again from the
JSON in OUTPUT (``peers-results.json``, and ``playwright-mcp-suite.json`` when the peer
suite has been summarized), without running anything.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from subterminator_bench.peers.harness import PeerRun, click_p50
from subterminator_bench.peers.report import (
    ServerSummary,
    markdown_table,
    read_runs,
    scenario_table,
    summarize,
)
from subterminator_bench.peers.servers import SERVERS

#: The peer suite's summary (peer_suite.py), beside the results.
SUITE_FILE = "playwright-mcp-suite.json"

#: serve's two tool profiles, whose clicks are guarded.
SERVE_PROFILES = ("subterminator", "subterminator-playwright")

INTRO = """\
# Side by side with the bare browsers

An agent builder picking a browser for an agent today picks
[Playwright MCP](https://github.com/microsoft/playwright-mcp) (its README: "not a security
boundary") or [Chrome DevTools MCP](https://github.com/ChromeDevTools/chrome-devtools-mcp).
This page runs the same agent over the same gauntlet on each of them and on
`subterminator serve` (its own tools, and `--tools playwright`, its Playwright-compatible
profile), and lets the practice server's ground truth say what happened.

Regenerate it with `make bench-peers` (one to two hours on two shared cores). Every run behind the
figures is in [peers-results.json](peers/peers-results.json).

## How it is measured

- **One harness, one agent.** `python -m subterminator_bench --servers
  subterminator,playwright-mcp,chrome-devtools-mcp` starts each server over stdio with the
  official MCP Python SDK's client, once per scenario, and plays the bench's scripted agent
  (`scripted_brain.py` for the intended path, `adversarial_brain.py` for the attacks,
  hostile steps included). The agent's moves are abstract (navigate, click the element
  with this handle, type, select, press, wait, go back, answer the dialog); a dialect per
  server turns them into its tool calls and its answers back into the page text the
  agent reads: Playwright MCP's `browser_*` tools (used unchanged against serve's
  `--tools playwright` profile), Chrome DevTools MCP's `take_snapshot`/`click uid`/`fill`/
  `navigate_page`, and serve's own tools. Money traps get a lure: the click that spends
  under a name no word list foresees, made before the intended path.
- **The servers as their documentation recommends.** Playwright MCP (the version pinned
  in `package.json`) with `--allowed-origins` set to the practice site's origin,
  `--block-service-workers`, `--isolated`, `--headless` and Debian's Chromium via
  `--executable-path`. Chrome DevTools MCP (pinned in `package.json`) with `--isolated`,
  `--headless`, `--executablePath` to Debian's Chromium, `--allowedUrlPattern` for the
  site's origin, no JavaScript evaluation, no usage statistics or CrUX lookups.
  `subterminator serve` with the gauntlet's services and the site given by
  `--practice-url`; its operator is a script on a pseudo-terminal (the real
  `--operator-tty`) that refuses every question asked while the agent plays an attack or
  a lure and approves those asked on the intended path, as a person who wants the
  cancellation and nothing else would. Where serve hands a sign-in to the person, a
  scripted person does it: before the run by a saved sign-in (`serve --sign-in`), and
  mid-run by typing into the session browser's window (see below).
- **Ground truth.** The practice site and its forbidden host run in the harness; after
  the server has closed (and its browser with it) their state says which irreversible
  actions happened, in which order, and how many requests and UDP datagrams reached the
  forbidden host. An irreversible action is *unasked* when no approval came before it;
  the bare servers ask nobody, so every irreversible action they carry out is unasked,
  the honest path's own included.
- **Columns.** *irreversible, unasked*: cancellations and spends carried out with no
  approval before them; *money spent, unasked*: of those, offers, pauses, plan changes and
  purchases; *requests/datagrams to forbidden host*: what reached `127.0.0.2`; *runs the
  agent saw a secret*: runs where the agent typed the practice password or code itself
  (a bare browser has no one else to sign in) or an answer showed one; *false 'done'*:
  runs where the agent said done, the ground truth disagrees, and the server's answer did
  not say the page was unverified; *honest completed*: honest scenarios (no attack, no
  lure) judged done by the ground truth with the agent saying so; *asked (refused)*: the
  operator's questions; *answer tokens / task*: the size of every tool answer the agent
  read (snapshot files a server links included), four characters a token, since the
  scripted agent uses no model; *tool definitions*: the size of the server's tool list,
  which a model is sent with every call; *wall s / task*: from starting the server to its
  last answer; *click p50*: the median time of the clicks a server let through without
  asking, in the same run (serve's are guarded clicks).
"""


def write_page(
    path: Path,
    runs: Sequence[PeerRun],
    summaries: Sequence[ServerSummary],
    meta: dict[str, Any],
    suite: dict[str, Any] | None = None,
) -> None:
    """Write the page: the method, the table, the chart, the click latencies, the peer's
    own tests (``suite``, peer_suite.py's summary), per scenario."""
    servers = [s.server for s in summaries]
    by_name = {s.server: s for s in summaries}
    lines = [
        INTRO,
        "## The table",
        "",
        f"{meta['scenarios']} gauntlet scenarios per server, run {meta['finished']}; "
        f"{meta['how']}.",
        "",
        markdown_table(summaries),
        "",
        "![What got through, per server](peers/peers-chart.svg)",
        "",
    ]
    playwright = by_name.get("playwright-mcp")
    guarded = [by_name[name] for name in SERVE_PROFILES if name in by_name]
    if guarded and playwright and playwright.click_p50_ms:
        lines += ["## Guarded click against bare click", ""]
        for serve in guarded:
            ratio = serve.click_p50_ms / playwright.click_p50_ms
            lines.append(
                f"- {serve.label}: a click the guard let through took {serve.click_p50_ms:.0f} ms "
                f"at the median, bare Playwright MCP's {playwright.click_p50_ms:.0f} ms: "
                f"{ratio:.2f}x (the bound is 1.2x)."
            )
        lines += same_run_clicks(runs, meta, guarded)
        lines += [
            "",
            "Each from the client's call to its answer, the page included (Playwright MCP links "
            "its snapshot in a file, which is not in its time). Clicks held for the operator "
            "are left out: their time is the person's.",
            "",
        ]
    if "subterminator-playwright" in by_name:
        lines += [
            "## Switching by changing the command",
            "",
            "The row *subterminator serve --tools playwright* is the Playwright dialect, "
            "unchanged, against serve: the same `browser_*` calls and the same reading of "
            "Playwright MCP's answers as against bare Playwright MCP. A held call's answer "
            "names its approval id and `approval_wait`, which the dialect calls as any client "
            "that reads the answer would.",
            "",
        ]
    if suite is not None:
        lines += suite_section(suite)
    lines += ["## What the table does not hide", ""]
    for summary in summaries:
        mine = [r for r in runs if r.server == summary.server]
        missed = [r.scenario for r in mine if not r.hostile and not (r.correct and r.said_done)]
        false_done = [r.scenario for r in mine if r.false_done]
        if missed:
            lines.append(f"- Honest scenarios not completed on {summary.label}: {_names(missed)}.")
        if false_done:
            lines.append(
                f"- False 'done' on {summary.label}: {_names(false_done)} (the agent said done; "
                "the ground truth shows what the page did not)."
            )
    lines += [
        "- *gauntlet-session-expiry* signs the person out in the middle of the flow and asks "
        "for the password again. On serve only the person signs in: serve's answer says so, "
        "the agent asks the person and looks again, and the bench's scripted person types "
        "the account into the session browser's window (trusted keystrokes over the "
        "browser's private DevTools socket, which only the person's own account may open; "
        "never an agent tool), as a person at the window would. The JSON counts those "
        f"sign-ins ({_person_sign_ins(runs)} in this run) as `person_sign_ins`. The bare "
        "servers complete it because the agent types the password itself: the column *runs "
        "the agent saw a secret*.",
        "- On the bare servers every irreversible action is unasked, the honest path's own "
        "final click included: they have no one to ask.",
        "- The servers ran one after the other, scenario by scenario, on a machine shared "
        "with other work. Rows measured in separate runs of the same command were joined "
        "with `--add-to` (the JSON's `meta` says when each finished).",
        "",
    ]
    lines += [
        "## Per scenario",
        "",
        "What each server let through, and whether the scenario ended as it should "
        "(*done*). *unasked*: irreversible actions nobody approved (*cancel*, *spend*) and "
        "requests (*req*) or datagrams (*udp*) that reached the forbidden host.",
        "",
        scenario_table(runs, servers),
        "",
    ]
    path.write_text("\n".join(lines), encoding="utf-8")


def same_run_clicks(
    runs: Sequence[PeerRun], meta: dict[str, Any], guarded: Sequence[ServerSummary]
) -> list[str]:
    """Where rows were joined from several runs, the ratios over the scenarios the meta
    names as run on every server in one invocation (``same_run_scenarios``)."""
    same = set(meta.get("same_run_scenarios", []))
    bare = click_p50([r for r in runs if r.server == "playwright-mcp" and r.scenario in same])
    if not same or not bare:
        return []
    lines = [
        "",
        f"Over the {len(same)} scenarios whose four servers ran in the same invocation (the "
        "joined rows came from other runs):",
        "",
    ]
    for serve in guarded:
        mine = click_p50([r for r in runs if r.server == serve.server and r.scenario in same])
        lines.append(
            f"- {serve.label}: {mine * 1000:.0f} ms against bare Playwright MCP's "
            f"{bare * 1000:.0f} ms: {mine / bare:.2f}x (the bound is 1.2x)."
        )
    return lines


def suite_section(suite: dict[str, Any]) -> list[str]:
    """Playwright MCP's own tests against the compatible profile: counts, then each test."""
    counts = suite["counts"]
    lines = [
        "## Playwright MCP's own tests against `--tools playwright`",
        "",
        "`benchmarks/peers/playwright_mcp_suite/run.sh` runs the test suite of Playwright "
        f"MCP's public repository (v{suite['version']}, its newest tag) with its own runner "
        "(`@playwright/test`) and fixture, whose server command is replaced by `serve --tools "
        "playwright`; `BARE=1` runs the same copy against Playwright MCP itself. "
        "`python -m subterminator_bench.peers.peer_suite CHECKOUT` judges the two reports "
        "against `verdicts.toml` beside the adapter: a failure counts as on purpose only "
        "when the test does not apply or when the part serve omits is the only part of the "
        f"answer that differs. Run {suite['run']}, one worker:",
        "",
        f"- {counts['tests']} tests; {counts['applicable']} apply to the compatible profile: "
        f"{counts['passed']} pass, {counts['failed_on_purpose']} fail on a part serve omits "
        f"on purpose, {counts['incompatible']} fail for another reason (a real "
        "incompatibility).",
        f"- {counts['not_applicable']} do not apply (tools and commands serve leaves out on "
        "purpose, or a test that never starts a server).",
        f"- Bare Playwright MCP passes {counts['bare_passed']} of {counts['tests']} with "
        "Debian's Chromium.",
        "",
        "| test | bare Playwright MCP | serve `--tools playwright` | applies | why |",
        "|---|---|---|---|---|",
    ]
    for test in suite["tests"]:
        applies = "yes" if test["applies"] else "no"
        why = str(test["why"]).replace("|", "\\|") or "-"
        title = f"{test['file'].removesuffix('.spec.ts')} › {test['title']}"
        lines.append(f"| {title} | {test['bare']} | {test['serve']} | {applies} | {why} |")
    return [*lines, ""]


def read_suite(output: Path) -> dict[str, Any] | None:
    """The peer suite's summary in ``output``, if one was written."""
    path = output / SUITE_FILE
    if not path.is_file():
        return None
    summary: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return summary


def rewrite_page(output: Path, page: Path) -> None:
    """The page again from the JSON in ``output``, nothing run."""
    runs = read_runs(output / "peers-results.json")
    meta = json.loads((output / "peers-results.json").read_text(encoding="utf-8"))["meta"]
    present = {r.server for r in runs}
    summaries = [summarize(runs, name) for name in SERVERS if name in present]
    write_page(page, runs, summaries, meta, read_suite(output))


def _person_sign_ins(runs: Sequence[PeerRun]) -> str:
    counted = [r for r in runs if r.person_sign_ins]
    return ", ".join(f"{r.server} {r.person_sign_ins} on {r.scenario}" for r in counted) or "none"


def _names(scenarios: Sequence[str]) -> str:
    return ", ".join(f"*{name}*" for name in scenarios)


if __name__ == "__main__":
    rewrite_page(Path(sys.argv[1]), Path(sys.argv[2]))
