#!/usr/bin/env python3
"""A deliberately misbehaving server for the protocol of Docs/HTTP-PROTOCOL.md (Python 3 standard library only).

    python3 misbehaving_server.py --port 0 [--host 127.0.0.1] [--other-port 0] [--max-case-s 60]
                                  [--drip-interval-s 0.5] [--no-stdin-watch] [--verbose]

It misbehaves the way real servers, proxies and captive portals do, so that `HTTPChatBackend` can be tested
against it. A client's base URL is `http://127.0.0.1:<port>/case/<name>/v1`; case `<name>` decides what goes
wrong with each request, and whatever a case does not override is answered well enough (see `DEFAULTS`).

Like the reference server it prints exactly one line, `LISTENING <port>`, and then serves until SIGTERM/SIGINT
or until its stdin reaches EOF. A second listener, the "other origin" (port in `GET /control/info`), logs every
connection it accepts: the redirect cases point at it. See README.md for every case and the control API.

Layout: `RequestLog` (what came in, behind one lock); `BaseHandler` (raw response plumbing: heads, bodies,
chunks, bounded writes and waits, resets); reply-frame builders; `DEFAULTS` (well-behaved answers per kind
of request); the case handlers, one small function each; the `CASES` table; `MainHandler` (routing and the
control API); `OtherOriginHandler`; the process.

Every case is bounded: it stops after `--max-case-s` seconds (60), after its byte budget, or as soon as the
client goes away (a failed write, or a FIN/RST noticed while waiting), whichever comes first.
"""

import argparse
import http
import json
import os
import select
import socket
import socketserver
import struct
import sys
import threading
import time
import traceback
import zlib
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ServerSupport"))
from local_server import add_common_arguments, serve_until_stopped  # noqa: E402

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB

MAX_REQUEST_BODY = 5 * MiB
IDLE_CONNECTION_S = 120  # a keep-alive connection with no next request is closed after this
LOG_LIMIT = 20_000  # entries kept per log (the oldest are dropped; `dropped` counts them)
LOGGED_VALUE_LIMIT = 8 * KiB  # longer header values are cut in the log (the length is kept)
LOGGED_BODY_LIMIT = 4 * KiB

AGENT = {"id": "fin", "name": "Fin"}
JSON_TYPE = "application/json; charset=utf-8"
SSE_TYPE = "text/event-stream; charset=utf-8"
HTML_TYPE = "text/html; charset=utf-8"

# Kinds of request (see `classify`). "json" in a case's table means every JSON call; "any" means everything.
JSON_KINDS = ("history", "catchup", "list", "ticket", "outbox", "action")
PAGE_KINDS = ("history", "catchup")

RATE_LIMITED_BODY = {"error": {"code": "RATE_LIMITED", "message": "slow down"}}
SUSPENDED_BODY = {"error": {"code": "ACCOUNT_SUSPENDED", "message": "This account is suspended."}}
TWO_MESSAGES = [
    {"id": "m-1", "client_id": "c-1", "role": "user", "text": "Where is my order?",
     "created_at": "2026-12-01T03:00:00.125Z", "author": "u-1"},
    {"id": "m-2", "role": "assistant", "text": "It ships Monday.", "created_at": "2026-12-01T03:00:01.125Z",
     "agent": AGENT, "finish_reason": "stop"},
]
DEFAULT_DELTAS = ["Hello ", "from the ", "misbehaving server."]
PORTAL_PAGE = (
    b"<!DOCTYPE html>\n<html><head><title>Sign in to Hotel WiFi</title></head>\n"
    b"<body><h1>Welcome to Hotel WiFi</h1><p>Please accept the terms to continue.</p>\n"
    b"<form method=\"post\" action=\"/login\"><input name=\"room\" placeholder=\"Room number\">"
    b"<button>Connect</button></form></body></html>\n"
)


# ---------------------------------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------------------------------


def iso_now():
    """ISO 8601 UTC with milliseconds, e.g. 2026-12-01T03:00:00.125Z."""
    now = datetime.now(timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (now.microsecond // 1000)


def json_bytes(value):
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


def page(messages, has_more, next_cursor=None):
    """A history / catch-up answer (`next_cursor` only when given)."""
    body = {"messages": messages, "has_more": has_more}
    if next_cursor is not None:
        body["next_cursor"] = next_cursor
    return body


def classify(method, parts, params):
    """The kind of protocol call a request is: send, events, history, catchup, list, ticket, outbox, action,
    or unknown. `parts` is the path after `/v1`, split on `/`."""
    n = len(parts)
    if method == "POST" and (parts == ["messages"] or (n == 3 and parts[0] == "conversations"
                                                       and parts[2] == "regenerate")):
        return "send"
    if method == "GET" and parts == ["events"]:
        return "events"
    if method == "GET" and parts == ["conversations"]:
        return "list"
    if method == "GET" and n == 3 and parts[0] == "conversations" and parts[2] == "messages":
        paging = "limit" in params or "before" in params
        return "catchup" if "after" in params or not paging else "history"
    if method == "POST" and parts == ["tickets"]:
        return "ticket"
    if method == "POST" and parts == ["outbox"]:
        return "outbox"
    if method == "POST" and n >= 3 and parts[0] == "conversations" and (
            parts[-1] in ("feedback", "read", "typing", "tool-results")
            or (n == 5 and parts[2] == "messages" and parts[4] == "rating")):
        return "action"
    return "unknown"


class ClientGone(Exception):
    """The client closed or reset the connection."""


class CaseOver(Exception):
    """A case reached its bound (`time_limit` or `size_limit`); the connection is closed."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


# ---------------------------------------------------------------------------------------------------
# The log
# ---------------------------------------------------------------------------------------------------


class RequestLog:
    """Requests on the main port, connections on the other origin, and per-case counts, behind one lock."""

    def __init__(self):
        self.lock = threading.Lock()
        self.started = time.monotonic()
        self.connection_ids = 0
        self.reset()

    def reset(self):
        with self.lock:
            self.requests = []
            self.other_origin = []
            self.counts = {}
            self.dropped = 0

    def now(self):
        return round(time.monotonic() - self.started, 4)

    def next_connection_id(self):
        with self.lock:
            self.connection_ids += 1
            return self.connection_ids

    def add_request(self, entry):
        with self.lock:
            self.requests.append(entry)
            if len(self.requests) > LOG_LIMIT:
                self.dropped += len(self.requests) - LOG_LIMIT
                del self.requests[:-LOG_LIMIT]
            case = entry.get("case")
            if case is not None:
                self.counts[case] = self.counts.get(case, 0) + 1

    def add_connection(self, entry):
        with self.lock:
            self.other_origin.append(entry)
            del self.other_origin[:-LOG_LIMIT]

    def update(self, entry, **fields):
        with self.lock:
            entry.update(fields)

    def snapshot(self):
        with self.lock:
            return json.loads(json.dumps({"requests": self.requests, "other_origin": self.other_origin,
                                          "dropped": self.dropped}))

    def counts_snapshot(self):
        with self.lock:
            return dict(self.counts)


def logged_headers(message):
    """Request headers as {lowercased name: value} (repeated names joined with ", "; huge values cut)."""
    headers = {}
    for name, value in message.items():
        key = name.lower()
        headers[key] = headers[key] + ", " + value if key in headers else value
    for key, value in headers.items():
        if len(value) > LOGGED_VALUE_LIMIT:
            headers[key] = value[:LOGGED_VALUE_LIMIT] + "...(%d characters)" % len(value)
    return headers


# ---------------------------------------------------------------------------------------------------
# Response plumbing
# ---------------------------------------------------------------------------------------------------


class BaseHandler(BaseHTTPRequestHandler):
    """Raw response writing with bounds. Every write and wait checks the case's deadline and raises
    `ClientGone` or `CaseOver`; `dispatch_case` (or a subclass) turns those into a closed connection."""

    protocol_version = "HTTP/1.1"
    server_version = "MisbehavingChatServer/1.0"
    timeout = IDLE_CONNECTION_S
    log = None  # RequestLog, set by make_servers
    config = None

    # Connection plumbing ---------------------------------------------------------------------------

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.connection_id = self.log.next_connection_id()

    def log_message(self, format, *args):
        if self.config.verbose:
            sys.stderr.write("%s - %s\n" % (self.address_string(), format % args))

    def handle_one_request(self):
        self.connection.settimeout(IDLE_CONNECTION_S)  # streams change it per write; restore it for reading
        self.deadline = time.monotonic() + self.config.max_case_s
        self.paced_since = time.monotonic()
        self.extra_headers = []
        self.chunked = False
        self.status = None
        self.bytes_sent = 0
        self.outcome = None
        try:
            super().handle_one_request()
        except (ClientGone, CaseOver, OSError):
            self.close_connection = True

    def do_GET(self):
        self.dispatch("GET")

    def do_POST(self):
        self.dispatch("POST")

    def do_PUT(self):
        self.dispatch("PUT")

    def do_DELETE(self):
        self.dispatch("DELETE")

    def do_PATCH(self):
        self.dispatch("PATCH")

    def send_error(self, code, message=None, explain=None):
        """Malformed requests (e.g. a header line over 64 KiB: 431) get a JSON error and are logged."""
        self.close_connection = True
        self.log_malformed(code, message)
        try:
            body = json_bytes({"error": {"code": "INVALID_REQUEST", "message": message or "Bad request."}})
            self.send_head(code, [("Content-Type", JSON_TYPE), ("Content-Length", len(body)),
                                  ("Connection", "close")])
            self.write(body)
        except (ClientGone, CaseOver):
            pass

    def log_malformed(self, code, message):
        """Subclasses log requests the HTTP parser refused."""

    def read_body(self):
        """The request body (Content-Length or chunked), at most MAX_REQUEST_BODY bytes; None if too large."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            parts, total = [], 0
            while True:
                line = self.rfile.readline(1024)
                size = int(line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(parts)
                total += size
                if total > MAX_REQUEST_BODY:
                    return None
                parts.append(self.rfile.read(size))
                self.rfile.readline(1024)
        length = int(self.headers.get("Content-Length") or 0)
        if length < 0 or length > MAX_REQUEST_BODY:
            return None
        return self.rfile.read(length) if length else b""

    # Bounded writing and waiting -------------------------------------------------------------------

    def write(self, data):
        """Sends raw bytes; no write may outlast the case's deadline."""
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise CaseOver("time_limit")
        self.connection.settimeout(remaining)
        rate = getattr(self.config, "flood_mib_per_s", 0) or 0
        if rate > 0:
            # No faster than `rate`: a link's speed, not loopback's (see --flood-mib-per-s).
            due = self.paced_since + (self.bytes_sent + len(data)) / (rate * MiB)
            pause = due - time.monotonic()
            if pause > 0:
                time.sleep(min(pause, max(0.0, self.deadline - time.monotonic())))
        try:
            self.connection.sendall(data)
        except socket.timeout:
            raise CaseOver("time_limit")
        except OSError:
            raise ClientGone()
        self.bytes_sent += len(data)

    def send_head(self, status, headers=(), reason=None):
        """Writes a status line and headers exactly as given (plus the case's extra headers)."""
        if reason is None:
            try:
                reason = http.HTTPStatus(status).phrase
            except ValueError:
                reason = "Unknown"
        lines = ["HTTP/1.1 %d %s" % (status, reason), "Server: " + self.server_version]
        lines += ["%s: %s" % (name, value) for name, value in list(headers) + self.extra_headers]
        self.status = status
        self.write(("\r\n".join(lines) + "\r\n\r\n").encode("utf-8"))

    def respond(self, status, body=b"", content_type=JSON_TYPE, headers=()):
        """A complete response with a correct Content-Length (no Content-Type when `content_type` is None)."""
        if isinstance(body, (dict, list)):
            body = json_bytes(body)
        head = [("Content-Type", content_type)] if content_type else []
        head += list(headers)
        if status != 204 and status != 304:  # those must not carry a Content-Length (RFC 9110)
            head.append(("Content-Length", len(body)))
        if self.close_connection:
            head.append(("Connection", "close"))
        self.send_head(status, head)
        if body:
            self.write(body)

    def start_stream(self, content_type=SSE_TYPE, headers=()):
        """200 with a chunked body (close-delimited for an HTTP/1.0 client), like the reference server."""
        head = [("Content-Type", content_type), ("Cache-Control", "no-cache")] + list(headers)
        if self.request_version == "HTTP/1.1":
            self.chunked = True
            head.append(("Transfer-Encoding", "chunked"))
        else:
            self.close_connection = True
            head.append(("Connection", "close"))
        self.send_head(200, head)

    def stream(self, payload):
        """One piece of a streamed body (one chunk when chunked)."""
        if not payload:
            return
        self.write(b"%x\r\n%s\r\n" % (len(payload), payload) if self.chunked else payload)

    def end_stream(self):
        if self.chunked:
            self.write(b"0\r\n\r\n")

    def repeat(self, send, block, total):
        """Sends `block` through `send` until `total` bytes went (the last piece cut to fit)."""
        sent = 0
        while sent < total:
            piece = block if total - sent >= len(block) else block[: total - sent]
            send(piece)
            sent += len(piece)

    def idle(self, seconds):
        """Waits `seconds` (or until the deadline: CaseOver) and raises ClientGone as soon as the client
        closes or resets the connection."""
        end = min(time.monotonic() + seconds, self.deadline)
        poller = select.poll()
        poller.register(self.connection, select.POLLIN | getattr(select, "POLLRDHUP", 0))
        while True:
            remaining = end - time.monotonic()
            if remaining <= 0:
                break
            if not poller.poll(max(1, int(remaining * 1000))):
                continue
            if self.peer_closed():
                raise ClientGone()
            # The client sent more bytes (a pipelined request): nothing more to learn by polling.
            time.sleep(max(0.0, end - time.monotonic()))
            break
        if time.monotonic() >= self.deadline:
            raise CaseOver("time_limit")

    def peer_closed(self):
        try:
            self.connection.settimeout(0)
            return self.connection.recv(1, socket.MSG_PEEK) == b""
        except BlockingIOError:
            return False
        except OSError:
            return True

    def hold_open(self):
        """Waits until the deadline or until the client goes away (never answers)."""
        while True:
            self.idle(self.config.max_case_s)

    def reset_connection(self):
        """Closes the connection with a TCP RST (SO_LINGER 0) instead of a FIN."""
        self.close_connection = True
        self.outcome = "reset"
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.rfile.close()  # drops makefile()'s reference, so close() really closes the descriptor
            self.connection.close()
        except OSError:
            pass

    def close_after(self, outcome="closed"):
        """Ends this exchange with a FIN (whatever the framing said) instead of keeping the connection."""
        self.close_connection = True
        self.outcome = outcome


# ---------------------------------------------------------------------------------------------------
# Reply frames
# ---------------------------------------------------------------------------------------------------


def sse_event(name, data):
    """A style B (typed) frame."""
    return b"event: %s\ndata: %s\n\n" % (name.encode(), json_bytes(data))


def sse_data(data):
    """A style A (data) frame."""
    return b"data: %s\n\n" % json_bytes(data)


def reply_context(h):
    """(conversation_id, user_message or None) for a send or a regeneration."""
    body = h.body_json if isinstance(h.body_json, dict) else {}
    if h.parts and h.parts[0] == "conversations":  # regenerate: no new user message
        return h.parts[1], None
    conversation_id = body.get("conversation_id")
    client_id, text = body.get("client_id"), body.get("text")
    user_message = {"id": "m-1", "client_id": client_id if isinstance(client_id, str) else "c-1",
                    "role": "user", "text": text if isinstance(text, str) else "Hello",
                    "created_at": iso_now(), "author": "u-1"}
    return conversation_id if isinstance(conversation_id, str) else "conv-1", user_message


def start_frame(h):
    conversation_id, user_message = reply_context(h)
    data = {"conversation_id": conversation_id, "message_id": "m-2", "agent": AGENT}
    if user_message is not None:
        data["user_message"] = user_message
    return sse_event("start", data)


def delta_frame(text):
    return sse_event("text-delta", {"delta": text})


def finish_frame(text, output_tokens=None):
    """`text` may be "" for huge replies: the client then keeps the concatenated deltas."""
    message = {"id": "m-2", "role": "assistant", "text": text, "created_at": iso_now(), "agent": AGENT,
               "finish_reason": "stop"}
    usage = {"input_tokens": 3, "output_tokens": len(text.split()) if output_tokens is None else output_tokens}
    return sse_event("finish", {"message": message, "user_message_id": "m-1", "finish_reason": "stop",
                                "usage": usage})


def typed_reply(h, deltas=DEFAULT_DELTAS):
    """The frames of a short, well-formed style B reply."""
    return [start_frame(h)] + [delta_frame(d) for d in deltas] + [finish_frame("".join(deltas))]


def data_frames_reply(h, contents, between=None):
    """The frames of a style A reply; `between` (bytes) goes between content frames."""
    conversation_id, user_message = reply_context(h)
    first = {"conversation_id": conversation_id, "message_id": "m-2"}
    if user_message is not None:
        first["user_message"] = user_message
    frames = [sse_data(first)]
    for index, content in enumerate(contents):
        if between and index > 0:
            frames.append(between)
        frames.append(sse_data({"message_id": "m-2", "content": content}))
    frames.append(sse_data({"message_id": "m-2", "status": "DONE", "created_at": iso_now(),
                            "user_message_id": "m-1"}))
    return frames


def stream_frames(h, frames):
    h.start_stream()
    for frame in frames:
        h.stream(frame)
    h.end_stream()


# ---------------------------------------------------------------------------------------------------
# Well-behaved answers (what a case does not override)
# ---------------------------------------------------------------------------------------------------


def default_send(h):
    """A short typed reply: start, three text-delta frames, finish."""
    stream_frames(h, typed_reply(h))


def healthy_events(h, first=b"retry: 1000\n\n"):
    """A healthy realtime stream: `retry: 1000`, then `: keepalive` every second until the deadline."""
    h.start_stream()
    h.stream(first)
    while True:
        h.idle(1.0)
        h.stream(b": keepalive\n\n")


DEFAULTS = {
    "send": default_send,
    "events": healthy_events,
    "history": lambda h: h.respond(200, page([], False)),
    "catchup": lambda h: h.respond(200, page([], False)),
    "list": lambda h: h.respond(200, {"conversations": [], "next_cursor": None, "has_more": False}),
    "ticket": lambda h: h.respond(200, {"ticket_id": "T-1", "url": None}),
    "outbox": lambda h: h.respond(200, {"duplicate": False, "rejections": []}),
    "action": lambda h: h.respond(204, content_type=None),
    "unknown": lambda h: h.respond(404, {"error": {"code": "NOT_FOUND", "message": "No such endpoint."}}),
}


def respond_default(h):
    DEFAULTS[h.kind](h)


def json_page_for(h):
    """A small valid JSON answer for h's kind (used by the transport cases)."""
    if h.kind in PAGE_KINDS:
        return json_bytes(page(TWO_MESSAGES, False))
    return json_bytes({"conversations": [], "has_more": False, "padding": "x" * 120})


# ---------------------------------------------------------------------------------------------------
# Cases: durations from outside
# ---------------------------------------------------------------------------------------------------


def retry_after(*values):
    def handler(h):
        h.respond(429, RATE_LIMITED_BODY, headers=[("Retry-After", value) for value in values])
    handler.__doc__ = "429 RATE_LIMITED with %s on every request." % " and ".join(
        "`Retry-After: %s`" % value for value in values)
    return handler


# ---------------------------------------------------------------------------------------------------
# Cases: redirects
# ---------------------------------------------------------------------------------------------------


def redirect(status, target):
    """`target(h)` is the Location."""
    def handler(h):
        h.respond(status, content_type=None, headers=[("Location", target(h))])
    return handler


def other_origin_url(h):
    """The same path and query on the other-origin port."""
    return "http://127.0.0.1:%d%s" % (h.server.other_port, h.path)


def same_origin_ok_url(h):
    """The same protocol path and query under case `ok`, on this port."""
    query = "?" + h.query if h.query else ""
    return "http://127.0.0.1:%d/case/ok/v1%s%s" % (h.server.server_address[1], h.api_path, query)


def same_url(h):
    return "http://127.0.0.1:%d%s" % (h.server.server_address[1], h.path)


# ---------------------------------------------------------------------------------------------------
# Cases: request storms
# ---------------------------------------------------------------------------------------------------


def catchup_same(h):
    """Catch-up (`after=`) always answers m-1, m-2 with has_more true; other pages the same, has_more false."""
    h.respond(200, page(TWO_MESSAGES, "after" in h.params))


def history_cursor_repeat(h):
    """Every history page is m-1, m-2 with next_cursor "c-1" and has_more true, whatever `before` says."""
    h.respond(200, page(TWO_MESSAGES, True, "c-1"))


def realtime_flap(h):
    """200 text/event-stream, close-delimited, and the connection closes at once: no body byte."""
    h.close_after()
    h.send_head(200, [("Content-Type", SSE_TYPE), ("Cache-Control", "no-cache"), ("Connection", "close")])


def realtime_flap_html(h):
    """200 text/html with a small page, then the connection closes."""
    h.close_after()
    h.respond(200, b"<html><body>Service temporarily unavailable</body></html>\n", HTML_TYPE)


# ---------------------------------------------------------------------------------------------------
# Cases: memory growth
# ---------------------------------------------------------------------------------------------------


A_BLOCK = b"a" * (64 * KiB)
A_MIB = b"a" * MiB


def sse_endless_line(h):
    """`data: ` then `a` bytes with no line end, in 64 KiB writes, up to 2 GiB."""
    h.start_stream()
    h.stream(b"data: ")
    h.repeat(h.stream, A_BLOCK, 2 * GiB)
    raise CaseOver("size_limit")


def sse_huge_line(h):
    """start, then one `text-delta` whose data line is 100 MiB, then nothing for 5 s, then the stream ends
    (no finish)."""
    h.start_stream()
    h.stream(start_frame(h))
    h.stream(b'event: text-delta\ndata: {"delta": "')
    h.repeat(h.stream, A_MIB, 100 * MiB)
    h.stream(b'"}\n\n')
    h.idle(5.0)
    h.end_stream()


def sse_many_data_lines(h):
    """start, then one `text-delta` event of 100 MiB made of 1 KiB `data:` lines (valid JSON once joined:
    {"delta": "x", "padding": ["aaa…", …, 0]}), then finish with text "x"."""
    line = b'data: "' + b"a" * (KiB - len(b'data: "",\n')) + b'",\n'
    h.start_stream()
    h.stream(start_frame(h))
    h.stream(b'event: text-delta\ndata: {"delta": "x", "padding": [\n')
    h.repeat(h.stream, line * KiB, 100 * MiB)
    h.stream(b"data: 0]}\n\n")
    h.stream(finish_frame("x"))
    h.end_stream()


def huge_reply(h):
    """start, then 16 KiB text-delta frames adding up to 300 MiB of text, then finish (its message text is
    "", so the text is the concatenated deltas)."""
    delta = ("lorem ipsum " * (16 * KiB // 12 + 1))[: 16 * KiB]
    block = delta_frame(delta) * 16  # 256 KiB of text per write
    h.start_stream()
    h.stream(start_frame(h))
    h.repeat(h.stream, block, (300 * MiB // (16 * KiB)) * len(delta_frame(delta)))
    h.stream(finish_frame(""))
    h.end_stream()


def fast_deltas(h):
    """start, then 10 million one-word text-delta frames (10,000 per write), then finish (text "")."""
    block = delta_frame("hi ") * 10_000
    h.start_stream()
    h.stream(start_frame(h))
    for _ in range(1_000):
        h.stream(block)
    h.stream(finish_frame("", output_tokens=10_000_000))
    h.end_stream()


def huge_json(h):
    """A history page of 300 MiB (a JSON array of ~300,000 messages of ~1 KiB), correct Content-Length."""
    message = {"id": "m-3", "role": "assistant", "text": "x" * 900, "created_at": "2026-12-01T03:00:02.125Z"}
    block = b",".join([json_bytes(message)] * 256)
    count = 300 * MiB // len(block)
    prefix, suffix = b'{"messages": [', b'], "has_more": false}'
    h.send_head(200, [("Content-Type", JSON_TYPE),
                      ("Content-Length", len(prefix) + count * len(block) + count - 1 + len(suffix))])
    h.write(prefix + block)
    for _ in range(count - 1):
        h.write(b"," + block)
    h.write(suffix)


def huge_error_body(h):
    """500 application/json with a 1 GiB body ({"error": {"code": "SERVER_ERROR", "message": "aaa…"}}),
    exact Content-Length, streamed in 1 MiB writes."""
    prefix, suffix = b'{"error": {"code": "SERVER_ERROR", "message": "', b'"}}'
    h.send_head(500, [("Content-Type", JSON_TYPE), ("Content-Length", GiB)])
    h.write(prefix)
    h.repeat(h.write, A_MIB, GiB - len(prefix) - len(suffix))
    h.write(suffix)


_bomb_lock = threading.Lock()
_bomb = None


def gzip_bomb_body():
    """~1 MiB of gzip that inflates to a 1 GiB history page (one message whose text is "000…").
    Built once: every 1 MiB block of zeros is deflated after a full flush, so its compressed form is the
    same every time and is repeated instead of recomputed; the CRC is computed over the real content."""
    global _bomb
    with _bomb_lock:
        if _bomb is None:
            prefix = (b'{"messages": [{"id": "m-1", "role": "assistant", '
                      b'"created_at": "2026-12-01T03:00:00.125Z", "text": "')
            suffix = b'"}], "has_more": false}'
            block, count = b"0" * MiB, 1024
            deflate = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
            parts = [deflate.compress(prefix) + deflate.flush(zlib.Z_FULL_FLUSH)]
            compressed_block = deflate.compress(block) + deflate.flush(zlib.Z_FULL_FLUSH)
            again = deflate.compress(block) + deflate.flush(zlib.Z_FULL_FLUSH)
            if again == compressed_block:
                parts.append(compressed_block * count)
            else:  # not expected with zlib; compress every block honestly
                parts += [compressed_block, again]
                parts += [deflate.compress(block) + deflate.flush(zlib.Z_FULL_FLUSH) for _ in range(count - 2)]
            parts.append(deflate.compress(suffix) + deflate.flush(zlib.Z_FINISH))
            crc = zlib.crc32(prefix)
            for _ in range(count):
                crc = zlib.crc32(block, crc)
            crc = zlib.crc32(suffix, crc)
            size = len(prefix) + count * len(block) + len(suffix)
            header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
            _bomb = header + b"".join(parts) + struct.pack("<II", crc, size & 0xFFFFFFFF)
        return _bomb


def gzip_bomb(h):
    """A history page with `Content-Encoding: gzip`: ~1 MiB on the wire, 1 GiB of JSON once inflated."""
    body = gzip_bomb_body()
    h.send_head(200, [("Content-Type", JSON_TYPE), ("Content-Encoding", "gzip"), ("Content-Length", len(body))])
    for offset in range(0, len(body), 64 * KiB):
        h.write(body[offset: offset + 64 * KiB])


DRIP_BODY = json_bytes(page([], False)).ljust(100)  # 100 bytes (trailing spaces are valid JSON)


def drip(h):
    """A history page whose head comes at once, then its 100-byte JSON body one byte per drip interval."""
    h.send_head(200, [("Content-Type", JSON_TYPE), ("Content-Length", len(DRIP_BODY))])
    for index in range(len(DRIP_BODY)):
        h.idle(h.config.drip_interval_s)
        h.write(DRIP_BODY[index: index + 1])


def drip_stream(h):
    """A reply stream: head, then `data: {"delta": "aaa…` one byte (one chunk) per drip interval, never a
    line end, until the deadline."""
    text = b'data: {"delta": "'
    h.start_stream()
    index = 0
    while True:
        h.idle(h.config.drip_interval_s)
        h.stream(text[index: index + 1] if index < len(text) else b"a")
        index += 1


# ---------------------------------------------------------------------------------------------------
# Cases: wrong content
# ---------------------------------------------------------------------------------------------------


def heartbeat_word(h):
    """A style A reply with a bare `data: heartbeat` frame between content frames, then DONE."""
    stream_frames(h, data_frames_reply(h, DEFAULT_DELTAS, between=b"data: heartbeat\n\n"))


def ago_frames(h):
    """A reply as Ago's mobile SDK documents its frames: `content` and `message_id` only, a bare
    `data: heartbeat` between them, and a last frame with `status: DONE`; no frame names the conversation
    until that last one, which carries the thread (`{"id": "th-9", "title": "Order delivery"}`) when the
    send named no conversation."""
    body = h.body_json if isinstance(h.body_json, dict) else {}
    frames = []
    for index, content in enumerate(DEFAULT_DELTAS):
        if index > 0:
            frames.append(b"data: heartbeat\n\n")
        frames.append(sse_data({"content": content, "message_id": "m-2"}))
    done = {"status": "DONE"}
    if not isinstance(body.get("conversation_id"), str):
        done["thread"] = {"id": "th-9", "title": "Order delivery"}
    frames.append(sse_data(done))
    stream_frames(h, frames)


def html_portal(h):
    """200 text/html: a captive portal's login page, for every request."""
    h.respond(200, PORTAL_PAGE, HTML_TYPE)


def json_error_200(h):
    """200 application/json whose body is an error: ACCOUNT_SUSPENDED."""
    h.respond(200, SUSPENDED_BODY)


def not_json(h):
    """200 application/json whose body is `<html>oops</html>`."""
    h.respond(200, b"<html>oops</html>")


def send_json_error_200(h):
    """A send answered 200 application/json `{"error": {"code": "ACCOUNT_SUSPENDED", …}}` instead of a stream."""
    h.respond(200, SUSPENDED_BODY)


def event_stream_json_call(h):
    """A JSON call answered 200 text/event-stream with `data: <the JSON it asked for>` (chunked)."""
    body = json_page_for(h) if h.kind != "action" else b"{}"
    stream_frames(h, [b"data: " + body + b"\n\n"])


def empty_200(h):
    """200 with Content-Length: 0 (application/json for a JSON call, text/event-stream for a send or the
    realtime stream)."""
    h.respond(200, b"", SSE_TYPE if h.kind in ("send", "events") else JSON_TYPE)


def no_content_with_body(h):
    """204 with `Content-Length: 21` and 21 body bytes, connection kept open (the bytes land where the next
    response on it should start)."""
    body = b'{"unexpected": true}\n'
    h.send_head(204, [("Content-Length", len(body))])
    h.write(body)


# ---------------------------------------------------------------------------------------------------
# Cases: realtime and SSE fields
# ---------------------------------------------------------------------------------------------------


def sse_retry_zero(h):
    """The realtime stream says `retry: 0` and ends at once (clean end)."""
    stream_frames(h, [b"retry: 0\n\n"])


def sse_retry_huge(h):
    """A healthy realtime stream whose `retry:` fields say 10^12 and 10^23 (over Int64)."""
    healthy_events(h, b"retry: 1000000000000\n\nretry: 99999999999999999999999\n\n")


def sse_huge_id(h):
    """A realtime `message.created` event with an `id:` of 1 MiB of digits, then keepalives for 1 s, then the
    stream ends (the client reconnects and sends its Last-Event-ID)."""
    data = {"conversation_id": "conv-1", "message": TWO_MESSAGES[1]}
    h.start_stream()
    h.stream(b"retry: 1000\n\n")
    h.stream(b"id: " + b"7" * MiB + b"\nevent: message.created\ndata: " + json_bytes(data) + b"\n\n")
    h.idle(0.5)
    h.stream(b": keepalive\n\n")
    h.idle(0.5)
    h.end_stream()


def realtime_204(h):
    """The realtime stream answered 204 No Content (EventSource's "stop reconnecting")."""
    h.respond(204, content_type=None)


def line_ends(mode):
    """A well-formed typed reply with other line ends: "cr" (every \\n a \\r), "crlf-split" (\\r\\n, each
    frame written in two chunks split between the \\r and the \\n, 50 ms apart), "bom" (a UTF-8 BOM first)."""
    def handler(h):
        frames = typed_reply(h)
        h.start_stream()
        if mode == "bom":
            h.stream(b"\xef\xbb\xbf")
        for frame in frames:
            if mode == "cr":
                h.stream(frame.replace(b"\n", b"\r"))
            elif mode == "crlf-split":
                lines = frame.replace(b"\n", b"\r\n")
                h.stream(lines[:-1])
                h.idle(0.05)
                h.stream(lines[-1:])
            else:
                h.stream(frame)
        h.end_stream()
    handler.__doc__ = line_ends.__doc__.split(": ")[0] + " (%s)." % mode
    return handler


# ---------------------------------------------------------------------------------------------------
# Cases: transport breakage
# ---------------------------------------------------------------------------------------------------


def content_length_lie_short(h):
    """`Content-Length: 1000`, then the first 100 bytes of a JSON page, then the connection closes."""
    h.close_after()
    h.send_head(200, [("Content-Type", JSON_TYPE), ("Content-Length", 1000)])
    h.write(json_page_for(h)[:100])


def content_length_lie_long(h):
    """`Content-Length: 10`, then a whole (longer) JSON page; the connection stays open."""
    h.send_head(200, [("Content-Type", JSON_TYPE), ("Content-Length", 10)])
    h.write(json_page_for(h))


def duplicate_content_length(h):
    """Two different Content-Length headers (the real length and the real length + 5); then close."""
    body = json_page_for(h)
    h.close_after()
    h.send_head(200, [("Content-Type", JSON_TYPE), ("Content-Length", len(body)),
                      ("Content-Length", len(body) + 5)])
    h.write(body)


def chunked_broken(h):
    """`Transfer-Encoding: chunked` whose first chunk-size line is `zz`, then some bytes, then close."""
    content_type = SSE_TYPE if h.kind in ("send", "events") else JSON_TYPE
    h.close_after()
    h.send_head(200, [("Content-Type", content_type), ("Transfer-Encoding", "chunked")])
    h.write(b"zz\r\n" + json_page_for(h)[:40] + b"\r\n")


def reset_mid_frame(h):
    """A reply stream: start, one text-delta, half of the next frame, then a TCP reset."""
    h.start_stream()
    h.stream(start_frame(h) + delta_frame("Hello "))
    frame = delta_frame("and goodbye")
    h.stream(frame[: len(frame) // 2])
    h.idle(0.05)
    h.reset_connection()


def giant_headers(count, size):
    def handler(h):
        filler = "h" * (size - len("X-Padding-0000: "))
        h.extra_headers = [("X-Padding-%04d" % index, filler) for index in range(count)]
        respond_default(h)
    handler.__doc__ = "The normal answer with %d extra header(s) of %d KiB each." % (count, size // KiB)
    return handler


def invalid_utf8(h):
    """A typed reply whose deltas hold raw invalid UTF-8 (`\\xff\\xfe`, a lone `\\xc3`) inside the JSON
    strings, then finish."""
    h.start_stream()
    h.stream(start_frame(h))
    h.stream(b'event: text-delta\ndata: {"delta": "caf\xff\xfe "}\n\n')
    h.stream(b'event: text-delta\ndata: {"delta": "na\xc3ve"}\n\n')
    h.stream(finish_frame(""))
    h.end_stream()


def malformed_after_deltas(h):
    """A typed reply whose `start`, two deltas and a frame that is not JSON go out in one write, then
    nothing more (the stream stays open until the client goes)."""
    h.start_stream()
    h.stream(start_frame(h) + delta_frame("Hello ") + delta_frame("there") + b"event: text-delta\ndata: {oops\n\n")
    h.hold_open()


DEEP_JSON = b'{"messages": ' + b"[" * 100_000 + b"]" * 100_000 + b', "has_more": false}'


def deep_json(h):
    """A history page whose `messages` is an array nested 100,000 levels deep."""
    h.respond(200, DEEP_JSON)


def stall_before_head(h):
    """Reads the request and never answers (until the deadline or until the client goes away)."""
    h.hold_open()


def end_after_head(h):
    """A chunked 200 text/event-stream head, then the connection closes (no chunk, no finish)."""
    h.close_after()
    h.start_stream()


# ---------------------------------------------------------------------------------------------------
# The table: case name -> {kind: handler}. Kinds: send, events, history, catchup, list, ticket, outbox,
# action, unknown; "json" = every JSON call (JSON_KINDS); "any" = every request. Lookup order: the kind,
# then "json" (for a JSON call), then "any", then DEFAULTS.
# ---------------------------------------------------------------------------------------------------


def build_cases():
    def on_pages(handler):
        return {kind: handler for kind in PAGE_KINDS}

    return {
        "ok": {},
        # Durations from outside
        "retry-after-huge": {"any": retry_after("1e19")},
        "retry-after-digits": {"any": retry_after("99999999999999999999")},
        "retry-after-1e308": {"any": retry_after("1e308")},
        "retry-after-negative": {"any": retry_after("-5")},
        "retry-after-nan": {"any": retry_after("NaN")},
        "retry-after-date-9999": {"any": retry_after("Fri, 31 Dec 9999 23:59:59 GMT")},
        "retry-after-garbage": {"any": retry_after("soon")},
        "retry-after-empty": {"any": retry_after("")},
        "retry-after-duplicate": {"any": retry_after("1", "1e19")},
        # Redirects
        "redirect-cross-origin": {"any": redirect(307, other_origin_url)},
        "redirect-cross-origin-302": {"any": redirect(302, other_origin_url)},
        "redirect-cross-origin-308": {"any": redirect(308, other_origin_url)},
        "redirect-same-origin": {"any": redirect(307, same_origin_ok_url)},
        "redirect-loop": {"any": redirect(302, same_url)},
        # Request storms
        "catchup-same": on_pages(catchup_same),
        "history-cursor-repeat": {"history": history_cursor_repeat},
        "realtime-flap": {"events": realtime_flap},
        "realtime-flap-html": {"events": realtime_flap_html},
        "realtime-204": {"events": realtime_204},
        "sse-retry-zero": {"events": sse_retry_zero},
        "sse-retry-huge": {"events": sse_retry_huge},
        "sse-huge-id": {"events": sse_huge_id},
        # Memory growth
        "sse-endless-line": {"send": sse_endless_line},
        "sse-huge-line": {"send": sse_huge_line},
        "sse-many-data-lines": {"send": sse_many_data_lines},
        "huge-reply": {"send": huge_reply},
        "fast-deltas": {"send": fast_deltas},
        "huge-json": on_pages(huge_json),
        "huge-error-body": {"any": huge_error_body},
        "gzip-bomb": on_pages(gzip_bomb),
        "drip": on_pages(drip),
        "drip-stream": {"send": drip_stream},
        # Wrong content
        "heartbeat-word": {"send": heartbeat_word},
        "ago-frames": {"send": ago_frames},
        "html-portal": {"any": html_portal},
        "json-error-200": {"json": json_error_200},
        "send-json-error-200": {"send": send_json_error_200},
        "not-json": {"json": not_json},
        "event-stream-json-call": {"json": event_stream_json_call},
        "empty-200": {"any": empty_200},
        "no-content-with-body": {"action": no_content_with_body},
        "sse-cr-line-ends": {"send": line_ends("cr")},
        "sse-crlf-split": {"send": line_ends("crlf-split")},
        "sse-bom": {"send": line_ends("bom")},
        # Transport breakage
        "content-length-lie-short": {"json": content_length_lie_short},
        "content-length-lie-long": {"json": content_length_lie_long},
        "duplicate-content-length": {"json": duplicate_content_length},
        "chunked-broken": {"any": chunked_broken},
        "reset-mid-frame": {"send": reset_mid_frame},
        "giant-headers": {"any": giant_headers(1000, KiB)},
        "giant-header-1mib": {"any": giant_headers(1, MiB)},
        "invalid-utf8": {"send": invalid_utf8},
        "malformed-after-deltas": {"send": malformed_after_deltas},
        "deep-json": on_pages(deep_json),
        "stall-before-head": {"any": stall_before_head},
        "end-after-head": {"send": end_after_head, "events": end_after_head},
    }


CASES = build_cases()


def handler_for(case, kind):
    for key in (kind, "json" if kind in JSON_KINDS else None, "any"):
        if key in case:
            return case[key]
    return DEFAULTS[kind]


def describe_cases():
    """{name: {kind: first line of the handler's docstring}} for GET /control/cases."""
    described = {}
    for name, table in CASES.items():
        described[name] = {kind: (handler.__doc__ or "").strip().split("\n")[0] for kind, handler in table.items()}
    return described


# ---------------------------------------------------------------------------------------------------
# The main port: /case/<name>/v1/... and /control/...
# ---------------------------------------------------------------------------------------------------


class MainHandler(BaseHandler):

    def dispatch(self, method):
        split = urlsplit(self.path)
        path, self.query = split.path, split.query
        self.params = {k: v[-1] for k, v in parse_qs(self.query, keep_blank_values=True).items()}
        body = self.read_body()
        if body is None:
            self.close_connection = True
            return self.respond(413, {"error": {"code": "TOO_LARGE", "message": "Request body too large."}})
        if path == "/control" or path.startswith("/control/"):
            return self.control(method, path[len("/control/"):].strip("/"))
        self.body_json = None
        try:
            self.body_json = json.loads(body.decode("utf-8")) if body.strip() else None
        except ValueError:
            pass
        self.dispatch_case(method, path, body)

    def parse_case_path(self, path):
        """(case name, path after /v1, its parts) or (name or None, None, []) when it is not a case path."""
        segments = path.split("/")
        if len(segments) < 4 or segments[1] != "case" or segments[3] != "v1":
            name = segments[2] if len(segments) > 2 and segments[1] == "case" else None
            return name, None, []
        rest = "/" + "/".join(segments[4:])
        return segments[2], rest, [unquote(p) for p in segments[4:] if p]

    def dispatch_case(self, method, path, body):
        name, self.api_path, self.parts = self.parse_case_path(path)
        self.kind = classify(method, self.parts, self.params) if self.api_path is not None else "unknown"
        authorization = self.headers.get("Authorization")
        entry = {"method": method, "path": path, "query": self.query, "params": self.params,
                 "headers": logged_headers(self.headers), "t": self.log.now(), "case": name, "kind": self.kind,
                 "authorization": authorization, "has_authorization": authorization is not None,
                 "connection": self.connection_id, "body": body[:LOGGED_BODY_LIMIT].decode("utf-8", "replace"),
                 "body_bytes": len(body), "status": None, "outcome": None, "bytes_sent": 0, "t_end": None}
        self.log.add_request(entry)
        if name not in CASES or self.api_path is None:
            message = "No case %r (see GET /control/cases); paths are /case/<name>/v1/..." % name
            handler = lambda h: h.respond(404, {"error": {"code": "UNKNOWN_CASE", "message": message}})
        else:
            handler = handler_for(CASES[name], self.kind)
        try:
            handler(self)
            outcome = self.outcome or "complete"
        except ClientGone:
            outcome = "client_closed"
        except CaseOver as over:
            outcome = over.reason
        except Exception as error:  # a bug in a case must not take the server down
            if self.config.verbose:
                traceback.print_exc()
            outcome = "server_error: %s" % error
        if outcome != "complete":
            self.close_connection = True
        self.log.update(entry, status=self.status, outcome=outcome, bytes_sent=self.bytes_sent,
                        t_end=self.log.now())
        self.log_message('"%s %s" %s %s, %d bytes', method, self.path[:200], self.status, outcome, self.bytes_sent)

    def log_malformed(self, code, message):
        path = urlsplit(getattr(self, "path", "") or "").path
        name, _, _ = self.parse_case_path(path)
        if name is None:
            return
        self.log.add_request({
            "method": getattr(self, "command", None), "path": path, "query": "", "params": {}, "headers": {},
            "t": self.log.now(), "case": name, "kind": "malformed", "authorization": None,
            "has_authorization": False, "connection": self.connection_id, "body": "", "body_bytes": 0,
            "status": code, "outcome": "refused: %s" % message, "bytes_sent": 0, "t_end": self.log.now()})

    def control(self, method, name):
        log = self.log
        if method == "GET" and name == "log":
            return self.respond(200, log.snapshot())
        if method == "GET" and name == "counts":
            return self.respond(200, log.counts_snapshot())
        if method == "GET" and name == "info":
            return self.respond(200, {"port": self.server.server_address[1], "other_port": self.server.other_port,
                                      "max_case_s": self.config.max_case_s,
                                      "drip_interval_s": self.config.drip_interval_s})
        if method == "GET" and name == "cases":
            return self.respond(200, describe_cases())
        if method == "POST" and name == "reset":
            log.reset()
            return self.respond(200, {"ok": True})
        self.respond(404, {"error": {"code": "NOT_FOUND", "message": "Control calls: GET log, counts, info, "
                                                                     "cases; POST reset."}})


# ---------------------------------------------------------------------------------------------------
# The other origin: logs every connection, answers everything as a success
# ---------------------------------------------------------------------------------------------------


class OtherOriginHandler(BaseHandler):
    server_version = "OtherOrigin/1.0"

    def setup(self):
        super().setup()
        # Logged at accept time, before any request byte is read.
        self.entry = {"t": self.log.now(), "connection": self.connection_id, "request_line": None,
                      "headers": None, "authorization": None, "requests": []}
        self.log.add_connection(self.entry)

    def record(self):
        headers = logged_headers(self.headers) if self.headers is not None else {}
        request = {"t": self.log.now(), "request_line": self.requestline, "headers": headers,
                   "authorization": headers.get("authorization")}
        with self.log.lock:
            if self.entry["request_line"] is None:
                self.entry.update(request_line=request["request_line"], headers=headers,
                                  authorization=request["authorization"])
            self.entry["requests"].append(request)

    def log_malformed(self, code, message):
        self.headers = None
        self.record()

    def dispatch(self, method):
        self.record()
        split = urlsplit(self.path)
        self.query, self.params = split.query, {}
        segments = [unquote(p) for p in split.path.split("/") if p]
        self.parts = segments[segments.index("v1") + 1:] if "v1" in segments else segments
        self.body_json = None
        body = self.read_body()
        try:
            self.body_json = json.loads(body.decode("utf-8")) if body else None
        except (ValueError, AttributeError):
            pass
        kind = classify(method, self.parts, dict(parse_qs(self.query)))
        try:
            if kind == "send":
                return default_send(self)
            answer = {"ok": True}
            if kind in PAGE_KINDS:
                answer.update(page([], False))
            elif kind == "list":
                answer.update(conversations=[], has_more=False)
            self.respond(200, answer)
        except (ClientGone, CaseOver):
            self.close_connection = True


# ---------------------------------------------------------------------------------------------------
# Process
# ---------------------------------------------------------------------------------------------------


class Server(ThreadingHTTPServer):
    # A listen backlog of 5 (the default) overflows when a test opens connections quickly on a loaded
    # machine: a dropped SYN is retried after 1, 3, 7, 15 s, longer than a test's request timeout.
    request_queue_size = 128
    daemon_threads = True
    block_on_close = False  # streams may still run; the process exits with os._exit anyway
    verbose = False
    other_port = None

    def server_bind(self):
        # HTTPServer.server_bind would also look up the host's FQDN, which can wait on DNS: skip that.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]

    def handle_error(self, request, client_address):
        if self.verbose:
            super().handle_error(request, client_address)


def make_servers(config):
    log = RequestLog()
    attrs = {"log": log, "config": config}
    main_server = Server((config.host, config.port), type("Main", (MainHandler,), attrs))
    other_server = Server((config.host, config.other_port), type("Other", (OtherOriginHandler,), attrs))
    main_server.other_port = other_server.server_address[1]
    for server in (main_server, other_server):
        server.verbose = config.verbose
    return main_server, other_server


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description="A misbehaving server for Docs/HTTP-PROTOCOL.md clients.")
    parser.add_argument("--other-port", type=int, default=0, help="port of the other origin (0: a free one)")
    parser.add_argument("--max-case-s", type=float, default=60.0,
                        help="no request is served longer than this (endless cases stop here)")
    parser.add_argument("--drip-interval-s", type=float, default=0.5, help="pause between bytes in drip cases")
    parser.add_argument("--flood-mib-per-s", type=float, default=0,
                        help="send no faster than this many MiB/s (0: as fast as the socket takes them). Over "
                             "loopback FoundationNetworking reads gigabytes a second and keeps delivering for up "
                             "to a second after a cancel, queued for its delegate: a link's rate keeps that "
                             "backlog to what a real network could bring")
    add_common_arguments(parser)
    return parser.parse_args(argv)


def main(argv=None):
    config = parse_args(argv)
    main_server, other_server = make_servers(config)
    # No shutdown() before closing: it waits for serve_forever's poll, and the process exits right away.
    serve_until_stopped(
        [main_server, other_server], main_server.server_address[1], watch_stdin=not config.no_stdin_watch)


if __name__ == "__main__":
    main()
