"""The smallest WebSocket a practice page needs: the opening handshake and short text frames.

A practice site accepts a WebSocket to act on the account over it (a cancellation sent
as a frame, which no request interception can pause), so its ground truth counts what a
socket did. Only what a browser sends a practice page is handled: masked text frames of
up to 64 KiB, pings and a close; anything else closes the socket.
"""

from __future__ import annotations

import base64
import hashlib
import struct
from io import BufferedIOBase

# RFC 6455's fixed GUID for the Sec-WebSocket-Accept answer.
_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
_TEXT, _CLOSE, _PING, _PONG = 0x1, 0x8, 0x9, 0xA
_MAX_PAYLOAD = 64 * 1024


def accept_key(client_key: str) -> str:
    """The ``Sec-WebSocket-Accept`` answer to the browser's ``Sec-WebSocket-Key``."""
    return base64.b64encode(hashlib.sha1((client_key + _GUID).encode()).digest()).decode()


def text_frame(text: str) -> bytes:
    """A server's (unmasked) text frame."""
    return _frame(_TEXT, text.encode("utf-8"))


def _frame(opcode: int, payload: bytes) -> bytes:
    head = bytes([0x80 | opcode])
    if len(payload) < 126:
        return head + bytes([len(payload)]) + payload
    return head + bytes([126]) + struct.pack("!H", len(payload)) + payload


def read_text_frames(stream: BufferedIOBase, reply: BufferedIOBase) -> list[str] | None:
    """The next message's text, answering pings on ``reply``; None once the socket closes.

    Returns a one-item list for a text frame and an empty list for a ping, so a caller
    loops until None.
    """
    head = stream.read(2)
    if len(head) < 2:
        return None
    opcode, length = head[0] & 0x0F, head[1] & 0x7F
    if length == 126:
        length = struct.unpack("!H", stream.read(2))[0]
    elif length == 127 or not head[1] & 0x80:
        # Too long for a practice page, or unmasked (a browser always masks): not ours.
        return None
    mask = stream.read(4)
    if length > _MAX_PAYLOAD or len(mask) < 4:
        return None
    payload = bytes(b ^ mask[i % 4] for i, b in enumerate(stream.read(length)))
    if opcode == _TEXT:
        return [payload.decode("utf-8", errors="replace")]
    if opcode == _PING:
        reply.write(_frame(_PONG, payload))
        return []
    if opcode == _CLOSE:
        reply.write(_frame(_CLOSE, payload[:2]))
    return None
