#!/usr/bin/env python3
"""Smoke test for misbehaving_server.py (standard library only).

    python3 smoke_test.py [-v] [name-substring ...]

Starts the server, sends each case's request over a raw socket and checks the exact bytes that come back
(status line, headers, framing, the first bytes of the body). For the memory cases it reads a few KB,
disconnects, and checks that the server noticed (the request's log entry says `client_closed`) and that its
CPU goes idle within 2 s. A second server started with `--max-case-s 1.5` checks that endless cases stop by
themselves. Exits 1 if any check fails; takes about 12 s.
"""

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "misbehaving_server.py")
README = os.path.join(HERE, "README.md")
VERBOSE = "-v" in sys.argv
ONLY = [a for a in sys.argv[1:] if not a.startswith("-")]
TOKEN = "Bearer secret"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


class Failure(AssertionError):
    pass


def check(condition, message, *details):
    if not condition:
        raise Failure(message + "".join("\n    " + repr(d)[:600] for d in details))


# ---------------------------------------------------------------------------------------------------
# Harness
# ---------------------------------------------------------------------------------------------------


class ServerProcess:
    def __init__(self, *args):
        self.stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen([sys.executable, SERVER, "--port", "0"] + list(args),
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr)
        line = self.process.stdout.readline().decode()
        check(re.fullmatch(r"LISTENING \d+\n", line), "expected exactly `LISTENING <port>`", line)
        self.port = int(line.split()[1])
        self.other_port = self.get("/control/info")["other_port"]

    def request(self, method, path):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            conn.request(method, path)
            response = conn.getresponse()
            return response.status, json.loads(response.read())
        finally:
            conn.close()

    def get(self, path):
        status, body = self.request("GET", path)
        check(status == 200, "GET %s failed" % path, status)
        return body

    def log(self):
        return self.get("/control/log")

    def last_entry(self, case):
        entries = [e for e in self.log()["requests"] if e["case"] == case]
        check(entries, "no log entry for %s" % case)
        return entries[-1]

    def wait_outcome(self, case, allowed, within=2.0):
        """Waits for the last request of `case` to end; checks its outcome."""
        deadline = time.monotonic() + within
        while True:
            entry = self.last_entry(case)
            if entry["outcome"] is not None or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        check(entry["outcome"] in allowed, "%s: outcome %r, expected one of %s" % (case, entry["outcome"], allowed),
              entry)
        return entry

    def cpu_ticks(self):
        with open("/proc/%d/stat" % self.process.pid) as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime + stime

    def wait_idle(self, within=2.0, window=0.25):
        """The server's CPU goes idle (at most one tick per window) within `within` seconds."""
        deadline = time.monotonic() + within
        before = self.cpu_ticks()
        while True:
            time.sleep(window)
            after = self.cpu_ticks()
            if after - before <= 1:
                return
            check(time.monotonic() < deadline, "server still busy %.1f s after the disconnect (%d ticks in %.2f s)"
                  % (within, after - before, window))
            before = after

    def stderr_text(self):
        self.stderr.seek(0)
        return self.stderr.read().decode("utf-8", "replace")


class Exchange:
    """One raw HTTP/1.1 connection: sends a request, then reads the answer byte for byte."""

    def __init__(self, port, method=None, path=None, body=None, headers=(), token=TOKEN, timeout=5.0):
        self.port = port
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.buffer = bytearray()
        self.eof = False
        self.was_reset = False
        if method:
            self.send(method, path, body, headers, token)

    def send(self, method, path, body=None, headers=(), token=TOKEN):
        lines = ["%s %s HTTP/1.1" % (method, path), "Host: 127.0.0.1:%d" % self.port]
        if token:
            lines.append("Authorization: " + token)
        lines += ["%s: %s" % pair for pair in headers]
        payload = b""
        if body is not None:
            payload = json.dumps(body).encode()
            lines += ["Content-Type: application/json", "Content-Length: %d" % len(payload)]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + payload)

    def fill(self):
        """Reads more bytes; False at EOF or reset."""
        if self.eof:
            return False
        try:
            data = self.sock.recv(256 * 1024)
        except ConnectionResetError:
            self.was_reset = self.eof = True
            return False
        except socket.timeout:
            raise Failure("no bytes within the socket timeout")
        if not data:
            self.eof = True
            return False
        self.buffer += data
        return True

    def take(self, count):
        data = bytes(self.buffer[:count])
        del self.buffer[:count]
        return data

    def head(self, limit=4 * 1024 * 1024):
        """(status, [(lowercased name, value)]) of the next response."""
        while b"\r\n\r\n" not in self.buffer:
            check(len(self.buffer) < limit, "response head over %d bytes" % limit)
            check(self.fill(), "connection ended before the response head", bytes(self.buffer[:300]))
        raw = self.take(self.buffer.index(b"\r\n\r\n") + 4).decode("latin-1")
        lines = raw.split("\r\n")[:-2]
        check(lines[0].startswith("HTTP/1.1 "), "bad status line", lines[0])
        self.status = int(lines[0].split()[1])
        self.headers = [(n.strip().lower(), v.strip()) for n, _, v in (line.partition(":") for line in lines[1:])]
        self.head_bytes = len(raw)
        return self.status, self.headers

    def header(self, name):
        values = self.all(name)
        return values[0] if values else None

    def all(self, name):
        return [v for n, v in self.headers if n == name]

    def read(self, count):
        """At least `count` body bytes (fewer only at EOF); returns exactly what it takes."""
        while len(self.buffer) < count and self.fill():
            pass
        return self.take(count)

    def read_to_eof(self, limit=8 * 1024 * 1024):
        while len(self.buffer) < limit and self.fill():
            pass
        return self.take(len(self.buffer))

    def body(self):
        """A Content-Length body, whole."""
        length = int(self.header("content-length"))
        data = self.read(length)
        check(len(data) == length, "short body", len(data), length)
        return data

    def json(self):
        return json.loads(self.body())

    def chunks(self, limit=None):
        """Chunk payloads until the terminating chunk, EOF, or `limit` payload bytes. Sets `complete`."""
        chunks, total = [], 0
        self.complete = False
        while limit is None or total < limit:
            while b"\r\n" not in self.buffer:
                if not self.fill():
                    return chunks
            line = self.take(self.buffer.index(b"\r\n") + 2)
            size = int(line.strip(), 16)
            if size == 0:
                self.read(2)
                self.complete = True
                return chunks
            payload = self.read(size + 2)[:-2]
            chunks.append(payload)
            total += len(payload)
            if len(payload) < size:
                return chunks
        return chunks

    def stream_text(self, limit=None):
        return b"".join(self.chunks(limit))

    def quiet_for(self, seconds):
        """True when no byte (and no EOF) arrives within `seconds`."""
        self.sock.settimeout(seconds)
        try:
            data = self.sock.recv(1)
        except socket.timeout:
            return True
        finally:
            self.sock.settimeout(5.0)
        self.buffer += data
        if not data:
            self.eof = True
        return False

    def close(self):
        self.sock.close()


def B(case):
    return "/case/%s/v1" % case


SEND = {"conversation_id": None, "client_id": "c-7", "text": "Where is my order?"}
HISTORY = "/conversations/conv-1/messages?limit=20"


def send(port, case, path="/messages", **kw):
    ex = Exchange(port, "POST", B(case) + path, SEND, **kw)
    ex.head()
    return ex


def get(port, case, path, **kw):
    ex = Exchange(port, "GET", B(case) + path, **kw)
    ex.head()
    return ex


def expect_sse(ex, status=200):
    check(ex.status == status, "status", ex.status)
    check(ex.header("content-type").startswith("text/event-stream"), "content type", ex.headers)
    check(ex.header("transfer-encoding") == "chunked", "not chunked", ex.headers)


# ---------------------------------------------------------------------------------------------------
# Checks on the main server (s: ServerProcess)
# ---------------------------------------------------------------------------------------------------


def t_ok(s):
    ex = send(s.port, "ok")
    expect_sse(ex)
    text = ex.stream_text()
    check(ex.complete, "stream did not end with the terminating chunk")
    check(text.startswith(b"event: start\ndata: ") and b"event: finish\n" in text, "frames", text)
    check(b'"client_id": "c-7"' in text, "start lacks the user message", text)
    ex.send("GET", B("ok") + HISTORY)  # the connection is kept alive
    ex.head()
    check(ex.status == 200 and ex.json() == {"messages": [], "has_more": False}, "history", ex.status)
    ex.send("POST", B("ok") + "/conversations/conv-1/messages/m-2/rating", {"rating": "up"})
    ex.head()
    check(ex.status == 204 and ex.header("content-length") is None, "rating", ex.headers)
    for path, method, body, key in (("/conversations?limit=20", "GET", None, "conversations"),
                                    ("/tickets", "POST", {"subject": "a", "body": "b"}, "ticket_id"),
                                    ("/outbox", "POST", {"batch_id": "b-1", "operations": []}, "rejections")):
        ex.send(method, B("ok") + path, body)
        ex.head()
        check(ex.status == 200 and key in ex.json(), path, ex.status)
    ex.close()
    ex = get(s.port, "ok", "/events", headers=[("Accept", "text/event-stream")])
    expect_sse(ex)
    check(ex.chunks(1) == [b"retry: 1000\n\n"], "realtime first chunk")
    started = time.monotonic()
    check(ex.chunks(1) == [b": keepalive\n\n"], "keepalive", "%.2fs" % (time.monotonic() - started))
    ex.close()
    ex = get(s.port, "no-such-case", HISTORY)
    check(ex.status == 404 and ex.json()["error"]["code"] == "UNKNOWN_CASE", "unknown case", ex.status)
    ex.close()


RETRY_AFTER = {"retry-after-huge": "1e19", "retry-after-digits": "99999999999999999999",
               "retry-after-1e308": "1e308", "retry-after-negative": "-5", "retry-after-nan": "NaN",
               "retry-after-date-9999": "Fri, 31 Dec 9999 23:59:59 GMT", "retry-after-garbage": "soon",
               "retry-after-empty": ""}


def t_retry_after(s):
    for case, value in RETRY_AFTER.items():
        ex = get(s.port, case, HISTORY)
        check(ex.status == 429 and ex.all("retry-after") == [value], case, ex.headers)
        check(ex.json() == {"error": {"code": "RATE_LIMITED", "message": "slow down"}}, case + " body")
        ex.close()
    for ex in (send(s.port, "retry-after-huge"), get(s.port, "retry-after-huge", "/events")):
        check(ex.status == 429 and ex.header("retry-after") == "1e19", "send/events not rate limited", ex.status)
        ex.close()
    ex = get(s.port, "retry-after-duplicate", HISTORY)
    check(ex.all("retry-after") == ["1", "1e19"], "duplicate Retry-After", ex.headers)
    ex.close()


def t_redirects(s):
    origin = "http://127.0.0.1:%d" % s.other_port
    for case, status in (("redirect-cross-origin", 307), ("redirect-cross-origin-302", 302),
                         ("redirect-cross-origin-308", 308)):
        ex = send(s.port, case, "/messages?style=typed")
        location = origin + B(case) + "/messages?style=typed"
        check(ex.status == status and ex.header("location") == location, case, ex.status, ex.headers)
        check(ex.header("content-length") == "0", "redirect body", ex.headers)
        ex.close()
    # A client that (wrongly) follows it with its token: the other origin "succeeds" and logs everything.
    ex = Exchange(s.other_port, "POST", B("redirect-cross-origin") + "/messages?style=typed", SEND)
    ex.head()
    expect_sse(ex)
    check(b"event: finish" in ex.stream_text(), "other origin reply stream")
    ex.send("GET", B("redirect-cross-origin") + HISTORY)
    ex.head()
    check(ex.json() == {"ok": True, "messages": [], "has_more": False}, "other origin history")
    ex.close()
    bare = socket.create_connection(("127.0.0.1", s.other_port))
    bare.close()
    time.sleep(0.1)
    other = s.log()["other_origin"]
    check(len(other) >= 2, "other-origin connections not logged", other)
    followed = [c for c in other if c["request_line"] == "POST %s/messages?style=typed HTTP/1.1" % B(
        "redirect-cross-origin")]
    check(followed and followed[0]["authorization"] == TOKEN and followed[0]["headers"]["authorization"] == TOKEN
          and len(followed[0]["requests"]) == 2, "followed request not logged with its token", other)
    check(other[-1]["request_line"] is None and other[-1]["headers"] is None, "bare connection", other[-1])

    ex = get(s.port, "redirect-same-origin", HISTORY)
    target = "http://127.0.0.1:%d%s%s" % (s.port, B("ok"), HISTORY)
    check(ex.status == 307 and ex.header("location") == target, "same origin", ex.headers)
    ex.close()
    ex = get(s.port, "redirect-loop", HISTORY)
    loop = "http://127.0.0.1:%d%s%s" % (s.port, B("redirect-loop"), HISTORY)
    check(ex.status == 302 and ex.header("location") == loop, "loop", ex.headers)
    ex.close()


def ids(body):
    return [m["id"] for m in body["messages"]]


def t_storms(s):
    for path, more in (("/conversations/conv-1/messages?after=m-2", True), (HISTORY, False),
                       ("/conversations/conv-1/messages", False)):
        ex = get(s.port, "catchup-same", path)
        body = ex.json()
        check(ids(body) == ["m-1", "m-2"] and body["has_more"] is more, "catchup-same " + path, body)
        ex.close()
    ex = get(s.port, "catchup-same", "/events")
    expect_sse(ex)
    check(ex.chunks(1) == [b"retry: 1000\n\n"], "catchup-same realtime")
    ex.close()
    ex = get(s.port, "history-cursor-repeat", HISTORY + "&before=c-1")
    body = ex.json()
    check(ids(body) == ["m-1", "m-2"] and body["next_cursor"] == "c-1" and body["has_more"] is True, "cursor", body)
    ex.close()

    ex = get(s.port, "realtime-flap", "/events")
    check(ex.status == 200 and ex.header("content-type").startswith("text/event-stream"), "flap head", ex.headers)
    check(ex.header("transfer-encoding") is None and ex.header("content-length") is None, "flap framing")
    check(ex.read_to_eof() == b"" and ex.eof and not ex.was_reset, "flap sent body bytes or reset")
    ex.close()
    ex = get(s.port, "realtime-flap-html", "/events")
    check(ex.header("content-type").startswith("text/html") and ex.body().startswith(b"<html>"), "flap html")
    check(ex.read_to_eof() == b"" and ex.eof, "flap html did not close")
    ex.close()
    ex = get(s.port, "realtime-204", "/events")
    check(ex.status == 204 and ex.header("content-length") is None, "realtime-204", ex.headers)
    ex.close()
    ex = get(s.port, "sse-retry-zero", "/events")
    check(ex.stream_text() == b"retry: 0\n\n" and ex.complete, "retry zero")
    ex.close()
    ex = get(s.port, "sse-retry-huge", "/events")
    check(ex.chunks(1) == [b"retry: 1000000000000\n\nretry: 99999999999999999999999\n\n"], "retry huge")
    ex.close()
    ex = get(s.port, "sse-huge-id", "/events")
    text = ex.stream_text(1_100_000)
    check(text.startswith(b"retry: 1000\n\nid: 7777") and b"7" * (1024 * 1024) + b"\nevent: message.created\n"
          in text, "huge id", text[:100])
    ex.close()
    # A client that sends that ID back as Last-Event-ID gets 431 (a header line over 64 KiB), logged.
    ex = get(s.port, "sse-huge-id", "/events", headers=[("Last-Event-ID", "7" * 1024 * 1024)])
    check(ex.status == 431, "huge Last-Event-ID", ex.status)
    ex.close()
    entry = s.last_entry("sse-huge-id")
    check(entry["kind"] == "malformed" and entry["status"] == 431, "431 not logged", entry)


def memory_case(s, case, request, prefix, read=8192, allowed=("client_closed",)):
    """Reads `read` body bytes, checks them, disconnects; the server notices and goes idle."""
    ex = request()
    data = ex.stream_text(read) if ex.header("transfer-encoding") == "chunked" else ex.read(read)
    check(prefix(ex, data), case + ": unexpected bytes", ex.headers, data[:200])
    ex.close()
    s.wait_outcome(case, allowed)
    s.log()  # the control API still answers
    s.wait_idle()


def t_memory(s):
    def sse(data, start):
        return data.startswith(start)

    memory_case(s, "sse-endless-line", lambda: send(s.port, "sse-endless-line"),
                lambda ex, d: sse(d, b"data: aaaaaaaa") and b"\n" not in d)
    memory_case(s, "sse-huge-line", lambda: send(s.port, "sse-huge-line"),
                lambda ex, d: sse(d, b"event: start\n") and b'event: text-delta\ndata: {"delta": "aaaa' in d)
    memory_case(s, "sse-many-data-lines", lambda: send(s.port, "sse-many-data-lines"),
                lambda ex, d: b'data: {"delta": "x", "padding": [\ndata: "aaaa' in d
                and all(len(line) == 1023 for line in d.split(b"padding\": [\n")[1].split(b"\n")[:5]))
    memory_case(s, "huge-reply", lambda: send(s.port, "huge-reply"),
                lambda ex, d: b'event: text-delta\ndata: {"delta": "lorem ipsum lorem' in d)
    memory_case(s, "fast-deltas", lambda: send(s.port, "fast-deltas"),
                lambda ex, d: d.count(b'event: text-delta\ndata: {"delta": "hi "}\n\n') > 100)
    memory_case(s, "huge-json", lambda: get(s.port, "huge-json", HISTORY),
                lambda ex, d: int(ex.header("content-length")) > 300_000_000
                and d.startswith(b'{"messages": [{"id": "m-3"'))
    memory_case(s, "huge-error-body", lambda: get(s.port, "huge-error-body", HISTORY),
                lambda ex, d: ex.status == 500 and ex.header("content-length") == str(1 << 30)
                and d.startswith(b'{"error": {"code": "SERVER_ERROR", "message": "aaaa'))

    def bomb(ex, data):
        inflated = zlib.decompressobj(31).decompress(data, 1 << 20)
        return (ex.header("content-encoding") == "gzip" and int(ex.header("content-length")) < 1_200_000
                and inflated.startswith(b'{"messages": [{"id": "m-1"') and inflated.endswith(b"0" * 1000))
    memory_case(s, "gzip-bomb", lambda: get(s.port, "gzip-bomb", HISTORY), bomb,
                allowed=("client_closed", "complete"))  # 1 MiB may all fit in the socket buffers

    started = time.monotonic()
    memory_case(s, "drip", lambda: get(s.port, "drip", HISTORY),
                lambda ex, d: d == b'{"' and ex.header("content-length") == "100"
                and time.monotonic() - started > 0.9, read=2)
    memory_case(s, "drip-stream", lambda: send(s.port, "drip-stream"), lambda ex, d: d == b"da", read=2)


def t_wrong_content(s):
    ex = send(s.port, "heartbeat-word")
    text = ex.stream_text()
    frames = [f for f in text.split(b"\n\n") if f]
    check(ex.complete and frames.count(b"data: heartbeat") == 2 and b'"status": "DONE"' in frames[-1], "heartbeat",
          text)
    check(all(json.loads(f[6:]) for f in frames if f != b"data: heartbeat"), "other frames not JSON")
    ex.close()
    for ex in (get(s.port, "html-portal", HISTORY), send(s.port, "html-portal")):
        check(ex.status == 200 and ex.header("content-type") == "text/html; charset=utf-8"
              and b"<form" in ex.body(), "portal", ex.headers)
        ex.close()
    ex = get(s.port, "json-error-200", HISTORY)
    check(ex.status == 200 and ex.json()["error"]["code"] == "ACCOUNT_SUSPENDED", "json-error-200")
    ex.close()
    ex = send(s.port, "json-error-200")
    expect_sse(ex)  # sends are answered normally
    ex.close()
    ex = send(s.port, "send-json-error-200")
    check(ex.header("content-type").startswith("application/json")
          and ex.json()["error"]["code"] == "ACCOUNT_SUSPENDED", "send-json-error-200", ex.headers)
    ex.close()
    ex = get(s.port, "not-json", HISTORY)
    check(ex.header("content-type").startswith("application/json") and ex.body() == b"<html>oops</html>", "not-json")
    ex.close()
    ex = get(s.port, "event-stream-json-call", HISTORY)
    expect_sse(ex)
    check(ex.stream_text().startswith(b'data: {"messages": [{"id": "m-1"'), "event-stream JSON")
    ex.close()
    for ex, content_type in ((get(s.port, "empty-200", HISTORY), "application/json"),
                             (send(s.port, "empty-200"), "text/event-stream")):
        check(ex.status == 200 and ex.header("content-length") == "0"
              and ex.header("content-type").startswith(content_type), "empty-200", ex.headers)
        ex.close()
    ex = Exchange(s.port, "POST", B("no-content-with-body") + "/conversations/conv-1/read", {"up_to": "m-2"})
    ex.head()
    check(ex.status == 204 and ex.header("content-length") == "21"
          and ex.read(21) == b'{"unexpected": true}\n', "204 with body", ex.headers)
    ex.close()

    ex = send(s.port, "sse-cr-line-ends")
    text = ex.stream_text()
    check(ex.complete and b"\n" not in text and text.startswith(b"event: start\rdata: ")
          and b"event: finish\r" in text, "CR line ends", text[:80])
    ex.close()
    ex = send(s.port, "sse-crlf-split")
    chunks = ex.chunks()
    check(ex.complete and b"".join(chunks).count(b"\r\n\r\n") == 5 and any(
        a.endswith(b"\r") and b == b"\n" for a, b in zip(chunks, chunks[1:])), "CRLF split", chunks[:3])
    ex.close()
    ex = send(s.port, "sse-bom")
    check(ex.stream_text().startswith(b"\xef\xbb\xbfevent: start\n") and ex.complete, "BOM")
    ex.close()


def t_transport(s):
    ex = get(s.port, "content-length-lie-short", HISTORY)
    check(ex.header("content-length") == "1000", "lie short head", ex.headers)
    data = ex.read_to_eof()
    check(len(data) == 100 and ex.eof and data.startswith(b'{"messages"'), "lie short body", len(data))
    ex.close()
    ex = get(s.port, "content-length-lie-long", HISTORY)
    check(ex.header("content-length") == "10", "lie long head", ex.headers)
    ex.read(11)
    check(ex.quiet_for(0.3) and not ex.eof, "lie long: expected a longer body and an open connection")
    ex.close()
    ex = get(s.port, "duplicate-content-length", HISTORY)
    lengths = ex.all("content-length")
    check(len(lengths) == 2 and int(lengths[1]) == int(lengths[0]) + 5, "duplicate lengths", ex.headers)
    check(len(ex.read_to_eof()) == int(lengths[0]), "duplicate lengths body")
    ex.close()
    for ex in (get(s.port, "chunked-broken", HISTORY), send(s.port, "chunked-broken")):
        check(ex.header("transfer-encoding") == "chunked", "chunked-broken head", ex.headers)
        data = ex.read_to_eof()
        check(data.startswith(b"zz\r\n") and ex.eof, "chunked-broken body", data)
        ex.close()
    ex = send(s.port, "reset-mid-frame")
    raw = ex.read_to_eof()
    check(ex.was_reset, "no TCP reset", raw[-80:])
    check(raw.endswith(b"\r\n19\r\nevent: text-delta\ndata: {\r\n") and b'{"delta": "Hello "}' in raw, "half frame",
          raw[-80:])
    ex.close()
    ex = get(s.port, "giant-headers", HISTORY)
    check(len(ex.all("x-padding-0999")) == 1 and ex.head_bytes > 1000 * 1000 and "messages" in ex.json(),
          "giant headers", ex.head_bytes)
    ex.close()
    ex = send(s.port, "giant-header-1mib")
    check(len(ex.header("x-padding-0000")) > 1000 * 1000 and b"event: finish" in ex.stream_text(), "1 MiB header")
    ex.close()
    ex = send(s.port, "invalid-utf8")
    text = ex.stream_text()
    check(ex.complete and b'"caf\xff\xfe "' in text and b"na\xc3ve" in text and b"event: finish" in text,
          "invalid utf8", text)
    ex.close()
    ex = get(s.port, "deep-json", HISTORY)
    data = ex.body()
    check(data.startswith(b'{"messages": [[[[') and data.count(b"[") == 100_000, "deep json", data[:40])
    ex.close()
    ex = Exchange(s.port, "POST", B("stall-before-head") + "/messages", SEND)  # no head to read
    check(ex.quiet_for(1.0), "stall-before-head answered")
    ex.close()
    s.wait_outcome("stall-before-head", ("client_closed",))
    for ex in (send(s.port, "end-after-head"), get(s.port, "end-after-head", "/events")):
        expect_sse(ex)
        check(ex.read_to_eof() == b"" and ex.eof, "end-after-head sent a body")
        ex.close()


def t_control(s):
    log = s.log()
    check(log["requests"] and all(e["case"] is None or e["t"] >= 0 for e in log["requests"]), "log")
    entry = [e for e in log["requests"] if e["case"] == "ok"][0]
    for key in ("method", "path", "query", "headers", "t", "authorization", "has_authorization", "outcome"):
        check(key in entry, "log entry lacks " + key, entry)
    check(entry["authorization"] == TOKEN and entry["headers"]["authorization"] == TOKEN, "authorization", entry)
    check(not any(e["path"].startswith("/control") for e in log["requests"]), "control calls logged")
    counts = s.get("/control/counts")
    check(counts.get("ok", 0) >= 6 and counts.get("retry-after-huge") == 3, "counts", counts)
    cases = s.get("/control/cases")
    with open(README) as readme:
        text = readme.read()
    missing = [name for name in cases if "`%s`" % name not in text]
    check(not missing, "cases missing from README.md", missing)
    status, body = s.request("POST", "/control/reset")
    check(status == 200 and body == {"ok": True}, "reset")
    log = s.log()
    check(log["requests"] == [] and log["other_origin"] == [] and s.get("/control/counts") == {}, "reset", log)


# ---------------------------------------------------------------------------------------------------
# Bounds: a server whose cases stop after 1.5 s
# ---------------------------------------------------------------------------------------------------


def t_bounds():
    s = ServerProcess("--max-case-s", "1.5", "--drip-interval-s", "0.1", "--no-stdin-watch")
    try:
        started = time.monotonic()
        stall = Exchange(s.port, "POST", B("stall-before-head") + "/messages", SEND)
        endless = send(s.port, "sse-endless-line")  # never read: the server's writes block
        dripping = get(s.port, "drip", HISTORY)
        data = dripping.read_to_eof()
        check(0 < len(data) < 100 and dripping.eof, "drip was not cut at the bound", len(data))
        check(stall.read_to_eof() == b"" and stall.eof, "stall-before-head answered")
        # Bounded, not fast: an unbounded case would never have ended above; 20 s only guards a hang.
        check(time.monotonic() - started < 20.0, "bounded cases did not end", time.monotonic() - started)
        for case in ("stall-before-head", "drip"):
            s.wait_outcome(case, ("time_limit",), within=0.5)
        s.wait_outcome("sse-endless-line", ("time_limit",), within=2.0)
        s.wait_idle()
        for ex in (stall, endless, dripping):
            ex.close()
        check(s.process.send_signal(signal.SIGTERM) or s.process.wait(timeout=5) == 0, "SIGTERM exit")
    finally:
        if s.process.poll() is None:
            s.process.kill()
            s.process.wait()


# ---------------------------------------------------------------------------------------------------


def main():
    started = time.monotonic()
    server = ServerProcess()
    checks = [("ok", t_ok), ("retry-after", t_retry_after), ("redirects", t_redirects), ("storms", t_storms),
              ("memory", t_memory), ("wrong content", t_wrong_content), ("transport", t_transport),
              ("control", t_control)]
    failures = 0
    try:
        for name, function in checks:
            if ONLY and not any(o in name for o in ONLY):
                continue
            began = time.monotonic()
            try:
                function(server)
                print("ok   %-14s %.1f s" % (name, time.monotonic() - began))
            except Exception as error:
                failures += 1
                print("FAIL %-14s %s" % (name, error))
                if VERBOSE:
                    traceback.print_exc()
        server.process.stdin.close()
        code = server.process.wait(timeout=5)
        rest = server.process.stdout.read()
        if code != 0 or rest or server.stderr_text():
            failures += 1
            print("FAIL exit          code %s, more stdout %r, stderr %r"
                  % (code, rest[:200], server.stderr_text()[:500]))
        else:
            print("ok   stdin EOF exit")
    finally:
        if server.process.poll() is None:
            server.process.kill()
            server.process.wait()
    if not ONLY or any(o in "bounds" for o in ONLY):
        try:
            t_bounds()
            print("ok   bounds")
        except Exception as error:
            failures += 1
            print("FAIL bounds         %s" % error)
            if VERBOSE:
                traceback.print_exc()
    print("%s in %.1f s" % ("FAILED (%d)" % failures if failures else "passed", time.monotonic() - started))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
