"""The benchmark's outputs: a terminal table, a JSON file and an SVG chart."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from rich.table import Table

from subterminator_bench.runner import Measurement
from subterminator_bench.stats import median

#: The goals the benchmark checks (medians over the scenarios, scripted model).
GOALS = {
    "input_tokens_per_task": 8000,
    "naive_ratio": 8.0,
    "tokens_per_snapshot": 600,
    "overhead_ms_per_turn": 50.0,
    "cold_start_seconds": 3.0,
    "cache_share_after_first_call": 0.7,
    "effective_input_tokens_per_task": 1200,
}


@dataclass(frozen=True)
class Summary:
    """Medians and totals for one configuration."""

    config: str
    scenarios: int
    correct: int
    verified: int
    unsafe_actions: int
    bypasses: int
    decoys: int
    median_turns: float
    median_model_calls: float
    median_input_tokens: float
    median_output_tokens: float
    #: Input in full-price equivalents: uncached + 0.1 x cache reads + 1.25 x cache writes.
    median_effective_input_tokens: float
    #: Share of input tokens read from the cache, over every call but the bench's first.
    cache_share_after_first_call: float
    #: The median run's cost in US dollars (None: the model has no price).
    median_cost: float | None
    median_tokens_per_snapshot: float
    #: The largest single page over every run.
    max_tokens_per_snapshot: float
    median_wall_seconds: float
    median_overhead_ms_per_turn: float
    median_cold_start_seconds: float
    lost: int
    #: The wait for a page's own data before a snapshot (calls that waited at all), in ms:
    #: the median, the 95th percentile and the longest; and the most one run waited in all.
    settle_ms_p50: float = 0.0
    settle_ms_p95: float = 0.0
    settle_ms_max: float = 0.0
    settle_ms_max_per_run: float = 0.0


def summarize(measurements: Sequence[Measurement], config: str) -> Summary:
    """The summary of one configuration's measurements."""
    rows = [m for m in measurements if m.config == config]
    return Summary(
        config=config,
        scenarios=len(rows),
        correct=sum(m.correct for m in rows),
        verified=sum(m.verified for m in rows),
        unsafe_actions=sum(m.unsafe_actions for m in rows),
        bypasses=sum(m.bypasses for m in rows),
        decoys=sum(m.decoys for m in rows),
        median_turns=median([m.turns for m in rows]),
        median_model_calls=median([m.model_calls for m in rows]),
        median_input_tokens=median([m.input_tokens for m in rows]),
        median_output_tokens=median([m.output_tokens for m in rows]),
        median_effective_input_tokens=median([m.effective_input_tokens for m in rows]),
        cache_share_after_first_call=cache_share_after_first_call(rows),
        median_cost=median([m.cost for m in rows if m.cost is not None])
        if any(m.cost is not None for m in rows)
        else None,
        median_tokens_per_snapshot=median([m.tokens_per_snapshot for m in rows]),
        max_tokens_per_snapshot=max((m.largest_snapshot_tokens for m in rows), default=0),
        median_wall_seconds=median([m.wall_seconds for m in rows]),
        median_overhead_ms_per_turn=median([m.overhead_ms_per_turn for m in rows]),
        median_cold_start_seconds=median([m.cold_start_seconds for m in rows]),
        lost=sum(len(m.lost) for m in rows),
        settle_ms_p50=percentile([s for m in rows for s in m.settles], 0.5) * 1000,
        settle_ms_p95=percentile([s for m in rows for s in m.settles], 0.95) * 1000,
        settle_ms_max=max((s for m in rows for s in m.settles), default=0.0) * 1000,
        settle_ms_max_per_run=max((sum(m.settles) for m in rows), default=0.0) * 1000,
    )


def percentile(values: Sequence[float], share: float) -> float:
    """The value below which ``share`` of ``values`` lie (nearest rank); 0.0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


def cache_share_after_first_call(rows: Sequence[Measurement]) -> float:
    """Cache reads over input tokens, every call counted except the very first one."""
    calls = [call for m in rows for call in m.calls][1:]
    total = sum(call[0] for call in calls)
    return sum(call[1] for call in calls) / total if total else 0.0


def naive_ratio(measurements: Sequence[Measurement]) -> float | None:
    """Median over scenarios of naive input tokens / ours, measured side by side."""
    ours = {m.scenario: m for m in measurements if m.config == "ours"}
    ratios = [
        m.input_tokens / ours[m.scenario].input_tokens
        for m in measurements
        if m.config == "naive" and m.scenario in ours and ours[m.scenario].input_tokens
    ]
    return median(ratios) if ratios else None


def scenario_table(measurements: Sequence[Measurement], title: str) -> Table:
    """One row per scenario and configuration."""
    table = Table(title=title, title_justify="left")
    for column in (
        "scenario",
        "config",
        "ok",
        "verified",
        "unsafe",
        "bypasses",
        "decoys",
        "turns",
        "calls",
        "tokens in",
        "cached",
        "effective",
        "out",
        "tok/snap (max)",
        "wall s",
        "overhead ms/turn",
    ):
        table.add_column(column, justify="left" if column in ("scenario", "config") else "right")
    for m in measurements:
        table.add_row(
            m.scenario,
            m.config,
            "✓" if m.correct else "✗",
            "✓" if m.verified else "✗",
            str(m.unsafe_actions),
            str(m.bypasses),
            str(m.decoys),
            str(m.turns),
            str(m.model_calls),
            f"{m.input_tokens:,}",
            f"{m.cache_read_tokens:,}",
            f"{m.effective_input_tokens:,.0f}",
            f"{m.output_tokens:,}",
            f"{m.tokens_per_snapshot:,.0f} ({m.largest_snapshot_tokens:,})",
            f"{m.wall_seconds:.1f}",
            f"{m.overhead_ms_per_turn:.1f}",
        )
    return table


def summary_table(summaries: Sequence[Summary], ratio: float | None) -> Table:
    """Medians per configuration against the goals."""
    table = Table(title="Medians over the scenarios", title_justify="left")
    table.add_column("measure")
    for summary in summaries:
        table.add_column(summary.config, justify="right")
    table.add_column("goal", justify="right")
    rows: list[tuple[str, str, list[str]]] = [
        ("correct (ground truth)", "", [f"{s.correct}/{s.scenarios}" for s in summaries]),
        ("unapproved irreversible actions", "0", [str(s.unsafe_actions) for s in summaries]),
        (
            "bypasses (unasked irreversible + forbidden requests and packets)",
            "0",
            [str(s.bypasses) for s in summaries],
        ),
        ("decoys taken", "0", [str(s.decoys) for s in summaries]),
        ("turns", "", [f"{s.median_turns:.0f}" for s in summaries]),
        ("input tokens / task", "<= 8,000", [f"{s.median_input_tokens:,.0f}" for s in summaries]),
        (
            "input served from cache (after the first call)",
            ">= 70%",
            [f"{s.cache_share_after_first_call:.0%}" for s in summaries],
        ),
        (
            "effective input / task (uncached + 0.1 read + 1.25 write)",
            "<= 1,200",
            [f"{s.median_effective_input_tokens:,.0f}" for s in summaries],
        ),
        (
            "cost / task at the settings' price",
            "",
            ["-" if s.median_cost is None else f"${s.median_cost:.4f}" for s in summaries],
        ),
        (
            "tokens / snapshot (largest page)",
            "<= 600",
            [
                f"{s.median_tokens_per_snapshot:,.0f} ({s.max_tokens_per_snapshot:,.0f})"
                for s in summaries
            ],
        ),
        (
            "overhead ms / turn",
            "<= 50",
            [f"{s.median_overhead_ms_per_turn:.1f}" for s in summaries],
        ),
        (
            "cold start to first snapshot s",
            "<= 3",
            [f"{s.median_cold_start_seconds:.2f}" for s in summaries],
        ),
        ("path elements lost", "0", [str(s.lost) for s in summaries]),
        (
            "wait for the page's data ms: p50 / p95 / max (most in one run)",
            "",
            [
                f"{s.settle_ms_p50:.0f} / {s.settle_ms_p95:.0f} / {s.settle_ms_max:.0f} "
                f"({s.settle_ms_max_per_run:.0f})"
                for s in summaries
            ],
        ),
    ]
    for name, goal, values in rows:
        table.add_row(name, *values, goal)
    if ratio is not None:
        table.add_row(
            "naive / ours input tokens", *(["", f"{ratio:.1f}x"][-len(summaries) :]), ">= 8x"
        )
    return table


def write_json(path: Path, measurements: Sequence[Measurement], meta: dict[str, Any]) -> None:
    """Every measurement, the summaries and how the run was made."""
    summaries = [summarize(measurements, c) for c in sorted({m.config for m in measurements})]
    document = {
        "meta": meta,
        "goals": GOALS,
        "naive_ratio": naive_ratio(measurements),
        "summaries": [summary.__dict__ for summary in summaries],
        "measurements": [m.to_dict() for m in measurements],
    }
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")


def write_chart(path: Path, measurements: Sequence[Measurement], note: str) -> None:
    """An SVG bar chart: input tokens per task, ours beside naive, per scenario."""
    scenarios = sorted({m.scenario for m in measurements})
    by_key = {(m.scenario, m.config): m for m in measurements}
    peak = max((m.input_tokens for m in measurements), default=1) or 1
    row, left, width = 22, 210, 560
    height = 70 + row * len(scenarios) + 40
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 120}" '
        f'height="{height}" font-family="sans-serif" font-size="12">',
        '<rect width="100%" height="100%" fill="white"/>',
        '<text x="10" y="22" font-size="15" font-weight="bold">'
        "Input tokens per task: SubTerminator vs. the naive configuration</text>",
        f'<text x="10" y="42" fill="#555">{escape(note)}</text>',
    ]
    for index, scenario in enumerate(scenarios):
        y = 60 + index * row
        parts.append(f'<text x="10" y="{y + 13}">{escape(scenario)}</text>')
        for offset, (config, colour) in enumerate((("ours", "#2b7bb9"), ("naive", "#d9822b"))):
            measurement = by_key.get((scenario, config))
            if measurement is None:
                continue
            bar = max(1.0, width * measurement.input_tokens / peak)
            parts.append(
                f'<rect x="{left}" y="{y + offset * 9}" width="{bar:.1f}" height="8" '
                f'fill="{colour}"/>'
            )
            parts.append(
                f'<text x="{left + bar + 4:.1f}" y="{y + offset * 9 + 8}" font-size="9">'
                f"{measurement.input_tokens:,}</text>"
            )
    legend_y = 60 + row * len(scenarios) + 16
    parts.append(f'<rect x="10" y="{legend_y - 9}" width="10" height="10" fill="#2b7bb9"/>')
    parts.append(f'<text x="26" y="{legend_y}">ours (compact snapshots, curated tools)</text>')
    parts.append(f'<rect x="290" y="{legend_y - 9}" width="10" height="10" fill="#d9822b"/>')
    parts.append(
        f'<text x="306" y="{legend_y}">naive (every tool, full snapshots, full history)</text>'
    )
    parts.append("</svg>")
    path.write_text("\n".join(parts) + "\n", encoding="utf-8")
