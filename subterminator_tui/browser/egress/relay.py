"""Copying bytes both ways between the browser and the one address the policy checked."""

from __future__ import annotations

import asyncio
import contextlib

_CHUNK = 64 * 1024


async def relay(
    client: tuple[asyncio.StreamReader, asyncio.StreamWriter],
    site: tuple[asyncio.StreamReader, asyncio.StreamWriter],
    *,
    idle_timeout: float,
) -> None:
    """Relay until the site is done (or either side fails or idles out).

    The browser may half-close after sending a request; the site's answer
    still comes back. When the site closes, the exchange is over.
    """
    upstream = asyncio.create_task(_pump(client[0], site[1], idle_timeout))
    downstream = asyncio.create_task(_pump(site[0], client[1], idle_timeout))
    try:
        done, _ = await asyncio.wait({upstream, downstream}, return_when=asyncio.FIRST_COMPLETED)
        if downstream not in done and upstream.exception() is None:
            await downstream
    finally:
        for task in (upstream, downstream):
            task.cancel()
        await asyncio.gather(upstream, downstream, return_exceptions=True)


async def _pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter, idle: float) -> None:
    try:
        while data := await asyncio.wait_for(source.read(_CHUNK), idle):
            sink.write(data)
            await sink.drain()
    finally:
        if sink.can_write_eof() and not sink.is_closing():
            with contextlib.suppress(OSError, RuntimeError):
                sink.write_eof()
