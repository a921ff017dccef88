#!/usr/bin/env python3
"""Smoke test for reference_server.py (standard library only).

    python3 smoke_test.py [-v]

Starts the server as a subprocess, exercises every endpoint and every control knob with http.client,
and exits non-zero on the first failure. Takes a few seconds.
"""

import http.client
import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "reference_server.py")
VERBOSE = "-v" in sys.argv


class Failure(AssertionError):
    pass


# A keyword argument's "not given", where None is a value the test sends (an explicit JSON null).
ABSENT = object()

def check(condition, message, *details):
    if not condition:
        raise Failure(message + ("".join("\n    " + repr(d)[:2000] for d in details)))


# ---------------------------------------------------------------------------------------------------
# Harness
# ---------------------------------------------------------------------------------------------------


class ServerProcess:
    def __init__(self, *args):
        self.process = subprocess.Popen(
            [sys.executable, SERVER, "--port", "0"] + list(args),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = self.process.stdout.readline().decode()
        check(line.startswith("LISTENING "), "expected LISTENING <port>", line,
              self.process.stderr.read().decode() if not line else "")
        self.port = int(line.split()[1])

    def stop_by_closing_stdin(self):
        self.process.stdin.close()
        return self.process.wait(timeout=5)

    def stop_by_signal(self, sig):
        self.process.send_signal(sig)
        return self.process.wait(timeout=5)

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


class Client:
    def __init__(self, port, token="secret"):
        self.port = port
        self.token = token

    def connection(self, timeout=10):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def headers(self, token=None, key=None, extra=None):
        headers = {"Content-Type": "application/json"}
        token = self.token if token is None else token
        if token:
            headers["Authorization"] = "Bearer " + token
        if key:
            headers["Idempotency-Key"] = key
        headers.update(extra or {})
        return headers

    def request(self, method, path, body=None, token=None, key=None, raw=None, extra=None, conn=None):
        """Returns (status, headers, parsed JSON or None)."""
        own = conn is None
        conn = conn or self.connection()
        try:
            payload = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
            conn.request(method, path, body=payload, headers=self.headers(token, key, extra))
            response = conn.getresponse()
            data = response.read()
            parsed = json.loads(data) if data else None
            return response.status, response.headers, parsed
        finally:
            if own:
                conn.close()

    def api(self, method, path, body=None, **kw):
        return self.request(method, "/v1" + path, body, **kw)

    def control(self, name, body=None):
        status, _, parsed = self.request("POST", "/control/" + name, body if body is not None else {}, token="")
        check(status == 200, "control %s failed" % name, status, parsed)
        return parsed

    def faults(self, **faults):
        return self.control("faults", faults)

    def state(self):
        status, _, parsed = self.request("GET", "/control/state", token="")
        check(status == 200, "state failed", status)
        return parsed

    def stream(self, method, path, body=None, token=None, key=None, extra=None, timeout=10):
        conn = self.connection(timeout)
        payload = json.dumps(body).encode() if body is not None else None
        conn.request(method, "/v1" + path, body=payload, headers=self.headers(token, key, extra))
        response = conn.getresponse()
        return EventReader(conn, response)

    def send(self, text, client_id, conversation_id=None, query="", parent_id=ABSENT, **kw):
        body = {"conversation_id": conversation_id, "client_id": client_id, "text": text}
        if parent_id is not ABSENT:
            body["parent_id"] = parent_id
        return self.stream("POST", "/messages" + query, body, key=client_id, **kw)

    def events(self, last_event_id=None, query="", timeout=10):
        extra = {"Accept": "text/event-stream"}
        if last_event_id is not None:
            extra["Last-Event-ID"] = str(last_event_id)
        reader = self.stream("GET", "/events" + query, extra=extra, timeout=timeout)
        check(reader.response.status == 200, "realtime stream refused", reader.response.status)
        return reader


class EventReader:
    """Parses an SSE response into blocks: {"event", "data", "id", "retry", "comments"}."""

    def __init__(self, conn, response):
        self.conn = conn
        self.response = response
        self.buffer = b""
        self.ended = False  # the stream ended cleanly (terminating chunk)
        self.aborted = False  # the connection dropped mid-stream

    def _readline(self):
        """One line, or b"" at the end. read1() (unlike readline()) raises IncompleteRead when a chunked
        body is cut, which is how a clean end and a dropped connection are told apart."""
        while b"\n" not in self.buffer:
            try:
                piece = self.response.read1(65536)
            except (http.client.IncompleteRead, ConnectionError):
                self.aborted = True
                return b""
            if not piece:
                self.ended = True
                return b""
            self.buffer += piece
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line + b"\n"

    def next(self):
        """The next block, or None at the end of the stream (see `ended` / `aborted`)."""
        block = {"event": None, "data": None, "id": None, "retry": None, "comments": []}
        seen = False
        while True:
            line = self._readline()
            if not line:
                return None
            line = line.decode("utf-8").rstrip("\r\n")
            if line == "":
                if seen:
                    return block
                continue
            seen = True
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "":
                block["comments"].append(value)
            elif field == "data":
                block["data"] = value if block["data"] is None else block["data"] + "\n" + value
            elif field in ("event", "id", "retry"):
                block[field] = value

    def next_event(self, within=8):
        """The next block with data (skipping comment-only blocks), or None at the end."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            block = self.next()
            if block is None or block["data"] is not None:
                return block
        raise Failure("no event within %s s" % within)

    def until(self, predicate, limit=500, within=8):
        """Blocks up to and including the first that matches; fails if the stream ends first."""
        seen = []
        deadline = time.monotonic() + within
        for _ in range(limit):
            check(time.monotonic() < deadline, "expected block not within %s s" % within, seen[-5:])
            block = self.next()
            check(block is not None, "stream ended before the expected block", seen[-5:])
            seen.append(block)
            if predicate(block):
                return seen
        raise Failure("expected block never came")

    def rest(self):
        blocks = []
        while True:
            block = self.next()
            if block is None:
                return blocks
            blocks.append(block)

    def close(self):
        self.conn.close()


def data(block):
    return json.loads(block["data"])


def typed_reply(reader):
    """Reads a whole style-B reply: (start, text, finish, blocks)."""
    blocks = [b for b in reader.rest() if b["data"] is not None]
    check(reader.ended, "typed reply stream did not end cleanly", blocks[-3:])
    check(blocks and blocks[0]["event"] == "start", "first event must be start", blocks[:2])
    check(blocks[-1]["event"] == "finish", "last event must be finish", blocks[-2:])
    text = "".join(data(b)["delta"] for b in blocks if b["event"] == "text-delta")
    return data(blocks[0]), text, data(blocks[-1]), blocks


def expect_error(result, status, code):
    got_status, headers, body = result
    check(got_status == status, "expected HTTP %d" % status, got_status, body)
    check(isinstance(body, dict) and body.get("error", {}).get("code") == code,
          "expected error code %s" % code, body)
    check(isinstance(body["error"].get("message"), str), "error message must be a string", body)
    return headers, body


def messages_of(client, conversation_id):
    return client.state()["conversations"][conversation_id]["messages"]


def line_of(client, conversation_id, query=""):
    """The IDs a history call returns (everything, or what `query` asks for)."""
    status, _, page = client.api("GET", "/conversations/%s/messages%s" % (conversation_id, query))
    check(status == 200, "history failed", status, page)
    return [m["id"] for m in page["messages"]]


def announced(rt, count):
    """The next `count` realtime events as (type, message ID)."""
    events = [rt.next_event() for _ in range(count)]
    return [(e["event"], data(e).get("message_id") or data(e)["message"]["id"]) for e in events]


# ---------------------------------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------------------------------


def test_auth_and_errors(c):
    headers, _ = expect_error(c.api("GET", "/conversations", token=""), 401, "UNAUTHORIZED")
    check(headers.get("WWW-Authenticate", "").startswith("Bearer"), "401 should carry WWW-Authenticate")
    expect_error(c.api("GET", "/conversations", token="wrong"), 401, "UNAUTHORIZED")
    check(c.api("GET", "/conversations")[0] == 200, "right token must work")
    expect_error(c.api("GET", "/nope"), 404, "NOT_FOUND")
    expect_error(c.request("GET", "/elsewhere", token=""), 404, "NOT_FOUND")
    expect_error(c.api("POST", "/conversations", {}), 405, "METHOD_NOT_ALLOWED")
    expect_error(c.api("POST", "/tickets", raw=b"{not json"), 400, "INVALID_REQUEST")
    expect_error(c.api("POST", "/tickets", raw=b"[1, 2]"), 400, "INVALID_REQUEST")
    expect_error(c.api("POST", "/tickets", raw=b""), 400, "INVALID_REQUEST")
    expect_error(c.api("POST", "/messages", {"client_id": "c", "text": 5}), 400, "INVALID_REQUEST")
    # Keep-alive: several requests (JSON, 204, 401, 400) over one connection.
    conn = c.connection()
    conv = c.control("conversations", {"title": "k", "messages": 2})["conversation_id"]
    check(c.api("GET", "/conversations", conn=conn)[0] == 200, "keep-alive 1")
    check(c.api("POST", "/conversations/%s/typing" % conv, {"typing": True}, conn=conn)[0] == 204, "keep-alive 2")
    check(c.api("GET", "/conversations", token="bad", conn=conn)[0] == 401, "keep-alive 3")
    check(c.api("POST", "/tickets", raw=b"{", conn=conn)[0] == 400, "keep-alive 4")
    check(c.api("GET", "/conversations/%s/messages" % conv, conn=conn)[0] == 200, "keep-alive 5")
    conn.close()
    state = c.state()
    check(state["requests"] == 14, "requests counts every /v1 request", state["requests"])
    check([e["status"] for e in state["log"]][:3] == [401, 401, 200], "log keeps statuses", state["log"][:3])


def test_send_typed_and_realtime(c):
    rt = c.events()
    first = rt.next()
    check(first["retry"] == "1000", "realtime starts with retry: 1000", first)

    start, text, finish, blocks = typed_reply(c.send("hello world", "c-1"))
    user = start["user_message"]
    check(start["conversation_id"] == "conv-1" and start["message_id"] == "m-2", "start ids", start)
    check(start["agent"] == {"id": "fin", "name": "Fin"}, "start agent", start)
    check(user["id"] == "m-1" and user["client_id"] == "c-1" and user["role"] == "user"
          and user["text"] == "hello world", "user_message", user)
    check(user["created_at"].endswith("Z") and len(user["created_at"]) == 24, "ISO ms UTC time", user)
    check(text.startswith("You said: hello world. ") and len(text.split()) > 30, "answer text", text)
    check(sum(1 for b in blocks if b["event"] == "text-delta") == len(text.split()), "one frame per word")
    message = finish["message"]
    check(message["id"] == "m-2" and message["text"] == text and message["role"] == "assistant",
          "finish message", finish)
    check(finish["user_message_id"] == "m-1" and finish["finish_reason"] == "stop", "finish fields", finish)
    check(finish["usage"] == {"input_tokens": 2, "output_tokens": len(text.split())}, "usage", finish)

    created = [data(b) for b in (rt.next_event(), rt.next_event())]
    check([b["message"]["id"] for b in created] == ["m-1", "m-2"], "both messages broadcast", created)
    check(created[0]["message"]["client_id"] == "c-1" and created[0]["conversation_id"] == "conv-1",
          "broadcast carries client_id and conversation_id", created[0])

    # A repeated send (same client ID) creates nothing and streams the stored reply again.
    before = c.state()
    start2, text2, finish2, _ = typed_reply(c.send("hello world", "c-1"))
    after = c.state()
    check(start2["message_id"] == "m-2" and start2["user_message"]["id"] == "m-1", "same IDs again", start2)
    check(text2 == text and finish2["message"] == message, "same reply again", finish2)
    check(len(after["conversations"]["conv-1"]["messages"]) == 2, "no duplicate on the server")
    check(after["last_event_id"] == before["last_event_id"], "a repeated send broadcasts nothing")
    check(after["sends"] == 2 and after["idempotency_keys"] == ["c-1"], "send counters", after["sends"])

    # Into the existing conversation.
    start3, _, finish3, _ = typed_reply(c.send("second", "c-2", "conv-1"))
    check(start3["conversation_id"] == "conv-1" and finish3["message"]["id"] == "m-4", "second send", finish3)
    check(len(messages_of(c, "conv-1")) == 4, "four messages now")
    ids = [data(rt.next_event())["message"]["id"] for _ in range(2)]
    check(ids == ["m-3", "m-4"], "second exchange broadcast", ids)
    rt.close()

    expect_error(c.api("POST", "/messages", {"conversation_id": "conv-9", "client_id": "c-x", "text": "hi"}),
                 404, "CONVERSATION_NOT_FOUND")
    expect_error(c.api("POST", "/messages", {"conversation_id": None, "client_id": "c-y", "text": "  "}),
                 400, "EMPTY_MESSAGE")
    expect_error(c.api("POST", "/messages", {"conversation_id": None, "client_id": "c-z", "text": "x" * 10001}),
                 413, "MESSAGE_TOO_LONG")
    expect_error(c.api("POST", "/messages?style=weird", {"conversation_id": None, "client_id": "c-w", "text": "x"}),
                 400, "INVALID_REQUEST")
    check(len(c.state()["conversations"]) == 1, "refused sends store nothing")


def frames_reply(reader):
    blocks = reader.rest()
    check(reader.ended, "frames reply did not end cleanly")
    frames = [data(b) for b in blocks if b["data"] is not None]
    check(all(b["event"] is None for b in blocks), "style A has no event: fields")
    return blocks, frames


def test_frames_style(c):
    blocks, frames = frames_reply(c.send("hi there", "c-f", query="?style=frames"))
    first, last = frames[0], frames[-1]
    check(first["conversation_id"] == "conv-1" and first["user_message"]["client_id"] == "c-f"
          and first["message_id"] == "m-2", "first frame", first)
    check(any(b["comments"] for b in blocks), "a comment heartbeat")
    check(sum(1 for f in frames if f.get("type") == "heartbeat") >= 2, "heartbeat frames", frames)
    content = "".join(f["content"] for f in frames if "content" in f)
    check(last["status"] == "DONE" and last["user_message_id"] == "m-1" and last["message_id"] == "m-2"
          and last["created_at"].endswith("Z"), "DONE frame", last)
    check(content == messages_of(c, "conv-1")[1]["text"], "content is the stored text")

    c.faults(style="frames")
    _, frames = frames_reply(c.send("again", "c-g", "conv-1"))
    check(frames[-1].get("status") == "DONE", "control style frames")
    start, _, _, _ = typed_reply(c.send("typed", "c-h", "conv-1", query="?style=typed"))
    check(start["message_id"] == "m-6", "?style=typed overrides control", start)
    c.faults(style="typed")
    typed_reply(c.send("typed again", "c-i", "conv-1"))


def test_tool_call(c):
    reader = c.send("where is order 1042", "c-t")
    seen = reader.until(lambda b: b["event"] == "tool-call")
    call = data(seen[-1])
    lead = "".join(data(b)["delta"] for b in seen if b["event"] == "text-delta")
    check(lead == "Let me look up order 1042. ", "text before the tool call", lead)
    check(call["execution"] == "client" and call["tool_name"] == "lookupOrder"
          and call["input"] == {"order": "1042"} and call["tool_call_id"] == "t-1", "tool-call", call)
    time.sleep(0.05)
    check(c.api("POST", "/conversations/conv-1/tool-results",
                {"tool_call_id": "t-1", "result": {"status": "shipped"}}, key="r-1")[0] == 204, "tool result")
    check(c.api("POST", "/conversations/conv-1/tool-results",
                {"tool_call_id": "t-1", "result": {"status": "lost"}}, key="r-2")[0] == 204, "again: first wins")
    blocks = [b for b in reader.rest() if b["data"] is not None]
    check(reader.ended, "tool reply ended")
    check(blocks[0]["event"] == "tool-result" and data(blocks[0]) == {"tool_call_id": "t-1",
                                                                      "result": {"status": "shipped"}},
          "tool-result event", blocks[0])
    finish = data(blocks[-1])
    check(blocks[-1]["event"] == "finish" and '{"status": "shipped"}' in finish["message"]["text"]
          and finish["message"]["text"].startswith(lead), "answer includes the result", finish)
    state = c.state()
    check(state["tool_results"]["t-1"]["result"] == {"status": "shipped"}, "tool result stored")
    check(state["tool_calls"]["t-1"]["input"] == {"order": "1042"}, "tool call recorded")

    expect_error(c.api("POST", "/conversations/conv-1/tool-results", {"tool_call_id": "t-77", "result": 1}),
                 422, "UNKNOWN_TOOL_CALL")
    expect_error(c.api("POST", "/conversations/conv-1/tool-results",
                       {"tool_call_id": "t-1", "result": 1, "error": {"code": "X", "message": "y"}}),
                 400, "INVALID_REQUEST")
    expect_error(c.api("POST", "/conversations/conv-1/tool-results", {"tool_call_id": "t-1", "result": "x" * 20001}),
                 413, "TOOL_RESULT_TOO_LARGE")
    expect_error(c.api("POST", "/conversations/conv-7/tool-results", {"tool_call_id": "t-1", "result": 1}),
                 404, "CONVERSATION_NOT_FOUND")

    # An error result.
    reader = c.send("order 5 please", "c-e", "conv-1")
    call = data(reader.until(lambda b: b["event"] == "tool-call")[-1])
    c.api("POST", "/conversations/conv-1/tool-results",
          {"tool_call_id": call["tool_call_id"], "error": {"code": "TOOL_FAILED", "message": "boom"}})
    blocks = [b for b in reader.rest() if b["data"] is not None]
    finish = data(blocks[-1])
    check(reader.ended and blocks[-1]["event"] == "finish", "finished after an error result", blocks[-1])
    check(data(blocks[0])["error"]["code"] == "TOOL_FAILED", "tool-result error", blocks[0])
    check("TOOL_FAILED" in finish["message"]["text"], "answer mentions the failure")

    # No result in time.
    c.faults(tool_timeout_s=0.3)
    _, _, finish, blocks = typed_reply(c.send("order 6", "c-o", "conv-1"))
    results = [data(b) for b in blocks if b["event"] == "tool-result"]
    check(results and results[0]["error"]["code"] == "TIMEOUT", "tool timeout", results)

    # The frames style has no tool events.
    _, frames = frames_reply(c.send("order 8", "c-p", "conv-1", query="?style=frames"))
    check(frames[-1]["status"] == "DONE", "frames style answers order questions with text only")


def test_sources(c):
    # Typed: a question about returns is answered with its text, then a `source` event per source, then finish.
    rt = c.events()
    start, text, finish, blocks = typed_reply(c.send("How do returns work?", "c-s"))
    events = [b["event"] for b in blocks]
    sources = [data(b) for b in blocks if b["event"] == "source"]
    check(events[-4:] == ["source", "source", "source", "finish"]
          and events.index("source") > max(i for i, e in enumerate(events) if e == "text-delta"),
          "sources after the text, before finish", events[-6:])
    check([s.get("id") for s in sources] == ["src-1", "src-2", None], "source IDs in order", sources)
    check(sources[0] == {"id": "src-1", "document_id": "doc-9", "title": "Returns policy",
                         "internal_url": "https://admin.example.com/articles/9/edit",
                         "external_url": "https://help.example.com/articles/9-returns-policy"}, "every field", sources)
    check(sources[1]["document_id"] == "doc-9" and "internal_url" not in sources[1], "second passage", sources)
    check(sources[2] == {"title": "Printing a return label"}, "a title alone", sources)
    check(all(b["id"] for b in blocks), "source frames have IDs, as every data frame", blocks[-4:])
    message = finish["message"]
    check(message["sources"] == sources and message["text"] == text, "the finish message lists them", message)

    # Kept: history, catch-up and the broadcast carry the same sources; a repeated send streams them again.
    stored = messages_of(c, "conv-1")[1]
    check(stored["sources"] == sources, "stored with the answer", stored)
    _, _, page = c.api("GET", "/conversations/conv-1/messages?limit=10")
    check(page["messages"][1]["sources"] == sources and "sources" not in page["messages"][0], "history page", page)
    _, _, caught = c.api("GET", "/conversations/conv-1/messages?after=m-1")
    check(caught["messages"][0]["sources"] == sources, "catch-up", caught)
    created = [data(rt.next_event()) for _ in range(2)]
    check(created[1]["message"]["sources"] == sources, "message.created carries them", created[1])
    rt.close()
    _, _, again, blocks = typed_reply(c.send("How do returns work?", "c-s"))
    check([data(b) for b in blocks if b["event"] == "source"] == sources and again["message"] == message,
          "a repeated send cites the same", again)

    # Frames: one data frame with all the sources, before DONE. Other questions cite nothing.
    _, frames = frames_reply(c.send("A refund, please", "c-sf", "conv-1", query="?style=frames"))
    cited = [f for f in frames if "sources" in f]
    check(len(cited) == 1 and cited[0]["sources"] == sources and frames[-1]["status"] == "DONE"
          and frames.index(cited[0]) == len(frames) - 2, "frames style cites in one frame", frames[-3:])
    check(messages_of(c, "conv-1")[-1]["sources"] == sources, "frames answer stored with them")
    _, _, plain, blocks = typed_reply(c.send("hello", "c-p", "conv-1"))
    check("sources" not in plain["message"] and all(b["event"] != "source" for b in blocks), "no sources")

    # The control API stores sources as given, so tests can send ones a client must refuse.
    bad = [{"title": "x", "external_url": "javascript:alert(1)"}]
    sent = c.control("agent_message", {"conversation_id": "conv-1", "text": "see", "sources": bad})
    check(sent["message"]["sources"] == bad, "stored as given", sent)
    status, _, body = c.request("POST", "/control/agent_message",
                                {"conversation_id": "conv-1", "text": "see", "sources": "x"}, token="")
    check(status == 400, "sources must be a list", status, body)


def test_history(c):
    seeded = c.control("conversations", {"title": "Paging", "messages": 25})
    cid, ids = seeded["conversation_id"], seeded["message_ids"]
    check(len(ids) == 25 and len(c.state()["events"]) == 0, "seeded, not broadcast", seeded)
    path = "/conversations/%s/messages" % cid
    status, _, page1 = c.api("GET", path + "?limit=10")
    check(status == 200 and [m["id"] for m in page1["messages"]] == ids[15:], "newest page, oldest first", page1)
    check(page1["has_more"] and page1["next_cursor"] and page1["title"] == "Paging"
          and page1["status"] == "ongoing" and page1["total_count"] == 25, "page fields", page1)
    roles = [m["role"] for m in messages_of(c, cid)]
    check(roles[:4] == ["user", "assistant", "user", "assistant"], "alternating roles", roles)
    _, _, page2 = c.api("GET", path + "?limit=10&before=" + page1["next_cursor"])
    check([m["id"] for m in page2["messages"]] == ids[5:15] and page2["has_more"], "second page", page2)
    _, _, page3 = c.api("GET", path + "?limit=10&before=" + page2["next_cursor"])
    check([m["id"] for m in page3["messages"]] == ids[:5], "last page", page3)
    check(page3["has_more"] is False and page3["next_cursor"] is None, "last page ends", page3)
    times = [m["created_at"] for m in page3["messages"] + page2["messages"] + page1["messages"]]
    check(times == sorted(times) and len(set(times)) == 25, "times ascend", times)

    _, _, catch_up = c.api("GET", path + "?after=" + ids[20])
    check([m["id"] for m in catch_up["messages"]] == ids[21:] and catch_up["has_more"] is False, "catch-up")
    _, _, limited = c.api("GET", path + "?after=%s&limit=2" % ids[20])
    check([m["id"] for m in limited["messages"]] == ids[21:23] and limited["has_more"], "catch-up page", limited)
    _, _, everything = c.api("GET", path)
    check(len(everything["messages"]) == 25 and everything["has_more"] is False, "all without after")

    expect_error(c.api("GET", path + "?limit=0"), 400, "INVALID_PAGE_SIZE")
    expect_error(c.api("GET", path + "?limit=101"), 400, "INVALID_PAGE_SIZE")
    expect_error(c.api("GET", path + "?limit=x"), 400, "INVALID_PAGE_SIZE")
    expect_error(c.api("GET", path + "?before=m-3&after=m-1"), 400, "INVALID_REQUEST")
    expect_error(c.api("GET", path + "?before=zzz"), 400, "INVALID_REQUEST")
    expect_error(c.api("GET", "/conversations/conv-99/messages"), 404, "CONVERSATION_NOT_FOUND")


def test_list(c):
    a = c.control("conversations", {"title": "A", "messages": 2})["conversation_id"]
    time.sleep(0.01)
    b = c.control("conversations", {"title": "B", "messages": 0})["conversation_id"]
    time.sleep(0.01)
    typed_reply(c.send("newest", "c-n"))  # conv-3
    status, _, page = c.api("GET", "/conversations?limit=2")
    rows = page["conversations"]
    check(status == 200 and [r["id"] for r in rows] == ["conv-3", b] and page["has_more"], "most recent first", page)
    check(set(rows[0]) == {"id", "title", "status", "last_activity_at", "unread_count", "last_message_preview",
                           "pinned_at", "archived", "unread", "title_set_by_user"}, "row fields", rows[0])
    check(rows[0]["pinned_at"] is None and rows[0]["archived"] is False and rows[0]["unread"] is False
          and rows[0]["title_set_by_user"] is False, "nothing the user manages set yet", rows[0])
    check(rows[0]["unread_count"] == 1 and rows[1]["last_message_preview"] is None, "unread and preview", rows)
    _, _, page2 = c.api("GET", "/conversations?limit=2&after=" + page["next_cursor"])
    check([r["id"] for r in page2["conversations"]] == [a] and page2["has_more"] is False
          and page2["next_cursor"] is None, "second list page", page2)
    c.control("agent_message", {"conversation_id": a, "text": "bump"})
    _, _, page = c.api("GET", "/conversations")
    check(page["conversations"][0]["id"] == a and page["conversations"][0]["last_message_preview"] == "bump",
          "activity moves a conversation to the top", page)
    expect_error(c.api("GET", "/conversations?limit=500"), 400, "INVALID_PAGE_SIZE")
    expect_error(c.api("GET", "/conversations?after=conv-404"), 400, "INVALID_REQUEST")


def row_of(c, conversation_id):
    """The conversation's row in the list; None when the list leaves it out."""
    _, _, page = c.api("GET", "/conversations?limit=100")
    return next((r for r in page["conversations"] if r["id"] == conversation_id), None)


def test_manage_list(c):
    a = c.control("conversations", {"title": "A", "messages": 2})["conversation_id"]
    b = c.control("conversations", {"title": "B", "messages": 2})["conversation_id"]
    path = "/conversations/" + a
    rt = c.events()
    rt.next()

    check(c.api("PATCH", path, {"title": "  Trip to Lisbon  "})[0] == 204, "rename")
    row = row_of(c, a)
    check(row["title"] == "Trip to Lisbon" and row["title_set_by_user"] is True, "a renamed row, trimmed", row)
    told = rt.next_event()
    check(told["event"] == "conversation.updated" and data(told) == {"conversation_id": a, "title": "Trip to Lisbon"},
          "a rename is broadcast", told)

    pinned_at = "2026-12-01T03:00:00.125Z"
    check(c.api("PATCH", path, {"pinned": True, "pinned_at": pinned_at})[0] == 204, "pin")
    check(row_of(c, a)["pinned_at"] == pinned_at, "the pin keeps the device's time", row_of(c, a))
    check(data(rt.next_event()) == {"conversation_id": a, "pinned": True, "pinned_at": pinned_at}, "pin broadcast")
    check(c.api("PATCH", path, {"pinned": True, "pinned_at": "2026-12-01T03:00:00+00:00"})[0] == 204, "pin again")
    check(row_of(c, a)["pinned_at"] == "2026-12-01T03:00:00.000Z", "pinned_at in the server's format")
    rt.next_event()
    check(c.api("PATCH", path, {"pinned": True})[0] == 204, "pin without a time")
    server_time = row_of(c, a)["pinned_at"]
    check(isinstance(server_time, str) and server_time > pinned_at, "a pin without a time is dated now", server_time)
    rt.next_event()
    check(c.api("PATCH", path, {"pinned": False})[0] == 204, "unpin")
    check(row_of(c, a)["pinned_at"] is None, "unpinned")
    check(data(rt.next_event()) == {"conversation_id": a, "pinned": False}, "unpin broadcast")
    for key in ("archived", "unread"):
        check(c.api("PATCH", path, {key: True})[0] == 204, key)
        check(row_of(c, a)[key] is True, key + " kept", row_of(c, a))
        check(data(rt.next_event()) == {"conversation_id": a, key: True}, key + " broadcast")
    check(c.api("PATCH", path, {"unread": False, "archived": False})[0] == 204, "two fields at once")
    check(data(rt.next_event()) == {"conversation_id": a, "archived": False, "unread": False}, "both broadcast")

    for body in ({"colour": "red"}, {"archived": "yes"}, {"pinned": 1}, {"unread": None}, {"title": 5}, {},
                 {"pinned_at": pinned_at}, {"pinned": False, "pinned_at": pinned_at},
                 {"pinned": True, "pinned_at": "yesterday"}, {"title": "Fine", "colour": "red"}):
        expect_error(c.api("PATCH", path, body), 400, "INVALID_REQUEST")
    expect_error(c.api("PATCH", path, raw=b"[1]"), 400, "INVALID_REQUEST")
    for title in ("", "   ", "x" * 201, "!forbidden"):
        expect_error(c.api("PATCH", path, {"title": title}), 400, "INVALID_TITLE")
    check(c.api("PATCH", path, {"title": "y" * 200})[0] == 204, "200 characters are fine")
    check(data(rt.next_event())["title"] == "y" * 200, "only the accepted change was broadcast")
    expect_error(c.api("PATCH", "/conversations/conv-404", {"archived": True}), 404, "CONVERSATION_NOT_FOUND")
    expect_error(c.api("GET", path), 405, "METHOD_NOT_ALLOWED")

    check(c.api("DELETE", path)[0] == 204, "delete")
    gone = rt.next_event()
    check(gone["event"] == "conversation.deleted" and data(gone) == {"conversation_id": a}, "deletion broadcast", gone)
    check(row_of(c, a) is None and row_of(c, b) is not None, "the list leaves the deleted one out")
    check(a not in c.state()["conversations"], "its messages went with it")
    expect_error(c.api("GET", path + "/messages?limit=10"), 404, "CONVERSATION_NOT_FOUND")
    expect_error(c.api("DELETE", path), 404, "CONVERSATION_NOT_FOUND")
    expect_error(c.api("PATCH", path, {"archived": True}), 404, "CONVERSATION_NOT_FOUND")
    expect_error(c.api("POST", path + "/read", {"up_to": "m-1"}), 404, "CONVERSATION_NOT_FOUND")
    expect_error(c.api("DELETE", path, token="bad"), 401, "UNAUTHORIZED")
    rt.close()


def test_rating_feedback_read_typing(c):
    cid = c.control("conversations", {"messages": 4})["conversation_id"]  # m-1 user ... m-4 assistant
    base = "/conversations/%s" % cid
    check(c.api("POST", base + "/messages/m-2/rating", {"rating": "up"}, key="k1")[0] == 204, "rating")
    check(c.api("POST", base + "/messages/m-2/rating", {"rating": "up"}, key="k1")[0] == 204, "same key")
    check(c.api("POST", base + "/messages/m-4/rating", {"rating": "down"})[0] == 204, "rating 2")
    check(c.api("POST", base + "/messages/m-4/rating", {"rating": "none"})[0] == 204, "rating none")
    expect_error(c.api("POST", base + "/messages/m-99/rating", {"rating": "up"}), 422, "UNKNOWN_MESSAGE")
    expect_error(c.api("POST", base + "/messages/m-2/rating", {"rating": "meh"}), 400, "INVALID_REQUEST")
    expect_error(c.api("POST", "/conversations/conv-99/messages/m-2/rating", {"rating": "up"}),
                 404, "CONVERSATION_NOT_FOUND")

    check(c.api("POST", base + "/feedback", {"rating": "down", "comment": "slow"})[0] == 204, "feedback")
    expect_error(c.api("POST", base + "/feedback", {"rating": "none"}), 400, "INVALID_REQUEST")

    check(c.api("POST", base + "/read", {"up_to": "m-2"})[0] == 204, "read")
    _, _, page = c.api("GET", base + "/messages?limit=2")
    check(page["read_up_to"] == "m-2" and page["unread_count"] == 1, "read state on the history page", page)
    check(c.api("POST", base + "/read", {"up_to": "m-1"})[0] == 204, "older read")
    expect_error(c.api("POST", base + "/read", {"up_to": "m-42"}), 422, "UNKNOWN_MESSAGE")

    check(c.api("POST", base + "/typing", {"typing": True})[0] == 204, "typing")
    expect_error(c.api("POST", base + "/typing", {"typing": "yes"}), 400, "INVALID_REQUEST")

    conv = c.state()["conversations"][cid]
    check(conv["ratings"] == {"m-2": "up", "m-4": "none"}, "ratings stored", conv["ratings"])
    check(conv["feedback"]["rating"] == "down" and conv["feedback"]["comment"] == "slow", "feedback", conv)
    check(conv["read_up_to"] == "m-2", "read cursor only moves forward", conv["read_up_to"])
    check(conv["typing"] is True, "typing stored")


def test_tickets(c):
    status, _, ticket = c.api("POST", "/tickets", {"conversation_id": None, "subject": "Help", "body": "Please"},
                              key="tk-1")
    check(status == 200 and ticket["ticket_id"] == "T-1" and ticket["url"].endswith("/T-1"), "ticket", ticket)
    _, _, again = c.api("POST", "/tickets", {"conversation_id": None, "subject": "Help", "body": "Please"},
                        key="tk-1")
    check(again == ticket, "same key, same answer", again)
    cid = c.control("conversations", {"messages": 1})["conversation_id"]
    _, _, second = c.api("POST", "/tickets", {"conversation_id": cid, "subject": "S", "body": "B"}, key="tk-2")
    check(second["ticket_id"] == "T-2", "second ticket", second)
    tickets = c.state()["tickets"]
    check(len(tickets) == 2 and tickets[1]["conversation_id"] == cid, "two tickets stored", tickets)
    expect_error(c.api("POST", "/tickets", {"subject": "", "body": "x"}), 400, "EMPTY_MESSAGE")
    expect_error(c.api("POST", "/tickets", {"conversation_id": "conv-9", "subject": "s", "body": "b"}),
                 404, "CONVERSATION_NOT_FOUND")


def op(op_id, sequence, kind, conversation_id="conv-1", **fields):
    value = {"id": op_id, "sequence": sequence, "conversation_id": conversation_id,
             "enqueued_at": "2026-12-01T03:00:00.000Z", "kind": kind}
    value.update(fields)
    return value


def test_outbox(c):
    c.control("conversations", {"messages": 2})  # conv-1: m-1 user, m-2 assistant
    ended = c.control("conversations", {"messages": 1, "status": "ended"})["conversation_id"]
    rt = c.events()
    batch = {"batch_id": "b-1", "epoch": 0, "first_sequence": 1, "operations": [
        # Listed out of order on purpose: the server applies them in sequence order.
        op("send-c-10", 2, "send", client_id="c-10", text="second offline", created_at="2026-12-01T03:00:00.000Z"),
        op("send-c-9", 1, "send", client_id="c-9", text="written offline", created_at="2026-12-01T03:00:00.000Z"),
        op("rate-1", 3, "rate_answer", message_id="m-2", rating="down"),
        op("feedback-1", 4, "rate_conversation", rating="up", comment=None),
        op("read-1", 5, "mark_read", up_to="m-2"),
        op("send-lost", 6, "send", "conv-404", client_id="c-11", text="nowhere"),
        op("rate-bad", 7, "rate_answer", message_id="m-999", rating="up"),
        op("weird", 8, "bogus"),
        op("send-big", 9, "send", client_id="c-12", text="x" * 10001),
        op("send-ended", 10, "send", ended, client_id="c-13", text="too late"),
        op("send-new", 11, "send", None, client_id="c-14", text="new conversation offline"),
    ]}
    status, _, answer = c.api("POST", "/outbox", batch, key="b-1")
    check(status == 200 and answer["duplicate"] is False, "batch accepted", answer)
    reasons = {r["operation_id"]: r["reason"] for r in answer["rejections"]}
    check(reasons == {"send-lost": "CONVERSATION_NOT_FOUND", "rate-bad": "UNKNOWN_MESSAGE",
                      "weird": "INVALID_OPERATION", "send-big": "TOO_LARGE",
                      "send-ended": "CONVERSATION_NOT_ONGOING"}, "rejections", answer)
    check(all(r["message"] for r in answer["rejections"]), "rejections explain themselves")
    state = c.state()
    conv = state["conversations"]["conv-1"]
    check([(m["id"], m.get("client_id")) for m in conv["messages"][2:]] == [("m-4", "c-9"), ("m-5", "c-10")],
          "sends applied in sequence order", conv["messages"])
    check(conv["ratings"] == {"m-2": "down"} and conv["feedback"]["rating"] == "up"
          and conv["read_up_to"] == "m-2", "rating, feedback, read applied", conv)
    check(state["conversations"]["conv-3"]["messages"][0]["client_id"] == "c-14", "send without conversation")
    check(state["batches"] == ["b-1"] and state["batch_requests"] == 1, "batch recorded", state["batches"])
    created = [data(rt.next_event()) for _ in range(3)]
    check([(e["conversation_id"], e["message"]["client_id"]) for e in created]
          == [("conv-1", "c-9"), ("conv-1", "c-10"), ("conv-3", "c-14")], "message.created with client_id", created)

    status, _, again = c.api("POST", "/outbox", batch, key="b-1")
    check(status == 200 and again == {"duplicate": True, "rejections": []}, "duplicate batch", again)
    state2 = c.state()
    check(state2["conversations"] == state["conversations"] and state2["last_event_id"] == state["last_event_id"],
          "a duplicate applies nothing")
    check(state2["batch_requests"] == 2 and state2["batches"] == ["b-1"], "batch counters", state2["batch_requests"])

    # A send the server already has (live or queued) is accepted without a second message.
    typed_reply(c.send("live one", "c-live", "conv-1"))
    count = len(messages_of(c, "conv-1"))
    status, _, answer = c.api("POST", "/outbox", {"batch_id": "b-2", "epoch": 0, "first_sequence": 12, "operations": [
        op("send-c-live", 12, "send", client_id="c-live", text="live one"),
        op("send-c-9", 13, "send", client_id="c-9", text="written offline")]})
    check(answer == {"duplicate": False, "rejections": []} and len(messages_of(c, "conv-1")) == count,
          "idempotent sends in a batch", answer)
    expect_error(c.api("POST", "/outbox", {"batch_id": "b-3", "operations": "nope"}), 400, "INVALID_REQUEST")
    rt.close()


def test_lose_batch_response(c):
    c.control("conversations", {"messages": 2})
    c.faults(lose_next_batch_response=True)
    batch = {"batch_id": "b-lost", "epoch": 0, "first_sequence": 1,
             "operations": [op("send-c-l", 1, "send", client_id="c-l", text="lost answer")]}
    try:
        c.api("POST", "/outbox", batch, key="b-lost")
        raise Failure("expected the connection to drop without a response")
    except (http.client.RemoteDisconnected, ConnectionError, http.client.BadStatusLine):
        pass
    state = c.state()
    check(state["batches"] == ["b-lost"] and len(state["conversations"]["conv-1"]["messages"]) == 3,
          "the lost batch was applied", state["batches"])
    check(state["faults"]["lose_next_batch_response"] is False, "one-shot")
    status, _, answer = c.api("POST", "/outbox", batch, key="b-lost")
    check(status == 200 and answer["duplicate"] is True, "the retry is a duplicate", answer)
    check(len(messages_of(c, "conv-1")) == 3, "still one message")


def test_rate_limit(c):
    c.faults(rate_limit_next={"count": 2, "retry_after": 2})
    headers, _ = expect_error(c.api("GET", "/conversations"), 429, "RATE_LIMITED")
    check(headers.get("Retry-After") == "2", "Retry-After header", dict(headers))
    rt = c.events()  # the realtime stream is never rate limited
    check(rt.next()["retry"] == "1000", "realtime opened while limited")
    rt.close()
    # A rate-limited answer does not stick to an Idempotency-Key.
    expect_error(c.api("POST", "/tickets", {"subject": "s", "body": "b"}, key="tk-r"), 429, "RATE_LIMITED")
    status, _, ticket = c.api("POST", "/tickets", {"subject": "s", "body": "b"}, key="tk-r")
    check(status == 200 and ticket["ticket_id"] == "T-1", "third request passes", ticket)
    c.faults(rate_limit_next={"count": 1, "retry_after": 0.5})
    headers, _ = expect_error(c.api("GET", "/conversations"), 429, "RATE_LIMITED")
    check(headers.get("Retry-After") == "0.5", "fractional Retry-After", dict(headers))


def test_token_expiry(c):
    c.faults(expire_token_after_requests=2)
    check(c.api("GET", "/conversations")[0] == 200, "1st")
    check(c.api("GET", "/conversations")[0] == 200, "2nd")
    _, body = expect_error(c.api("GET", "/conversations"), 401, "UNAUTHORIZED")
    check("expired" in body["error"]["message"], "says expired", body)
    expect_error(c.api("GET", "/conversations"), 401, "UNAUTHORIZED")
    c.faults(accepted_token="t2")
    check(c.api("GET", "/conversations", token="t2")[0] == 200, "new token works")
    expect_error(c.api("GET", "/conversations"), 401, "UNAUTHORIZED")
    rt = Client(c.port, "t2").events()
    check(rt.next()["retry"] == "1000", "realtime with the new token")
    rt.close()


def test_drop_reply(c):
    c.faults(drop_reply_after_frames=3)
    reader = c.send("cut me off", "c-d")
    blocks = [b for b in reader.rest() if b["data"] is not None]
    check(reader.aborted and not reader.ended, "the stream was cut")
    check([b["event"] for b in blocks] == ["start", "text-delta", "text-delta", "text-delta"], "3 text frames",
          [b["event"] for b in blocks])
    announced = data(blocks[0])["message_id"]
    check([m["role"] for m in messages_of(c, "conv-1")] == ["user"], "a cut reply is not stored")
    check(c.state()["faults"]["drop_reply_after_frames"] is None, "one-shot")
    start, text, finish, _ = typed_reply(c.send("cut me off", "c-d"))
    check(start["message_id"] == announced and finish["message"]["id"] == announced, "retry keeps the ID")
    check([m["role"] for m in messages_of(c, "conv-1")] == ["user", "assistant"], "stored once, on the retry")

    c.faults(drop_reply_after_frames=2)
    reader = c.send("frames cut", "c-d2", query="?style=frames")
    frames = [data(b) for b in reader.rest() if b["data"] is not None]
    check(reader.aborted and sum(1 for f in frames if "content" in f) == 2
          and not any("status" in f for f in frames), "frames style cut too", frames)


def resume(c, conversation_id, message_id, last_event_id=None):
    extra = {"Accept": "text/event-stream"}
    if last_event_id is not None:
        extra["Last-Event-ID"] = last_event_id
    return c.stream("GET", "/conversations/%s/replies/%s/stream" % (conversation_id, message_id), extra=extra)


def test_resume(c):
    # A detached reply goes on: resuming after the last ID the client saw gives exactly the rest.
    whole_start, whole, _, whole_blocks = typed_reply(c.send("resume me", "c-r0"))
    check(all(b["id"] == "%s.%d" % (whole_start["message_id"], i + 1) for i, b in enumerate(whole_blocks)),
          "every data frame has the ID <message_id>.<n>", [b["id"] for b in whole_blocks[:3]])
    c.faults(detach_reply_after_frames=3)
    reader = c.send("resume me", "c-r1", "conv-1")
    blocks = [b for b in reader.rest() if b["data"] is not None]
    check(reader.aborted and [b["event"] for b in blocks] == ["start"] + ["text-delta"] * 3, "detached", blocks)
    message_id = data(blocks[0])["message_id"]
    seen = "".join(data(b)["delta"] for b in blocks[1:])
    rest = resume(c, "conv-1", message_id, blocks[-1]["id"])
    check(rest.response.status == 200, "resume answers 200", rest.response.status)
    after = [b for b in rest.rest() if b["data"] is not None]
    check(rest.ended and after[-1]["event"] == "finish", "resume runs to the finish", after[-2:])
    check(seen + "".join(data(b)["delta"] for b in after if b["event"] == "text-delta") == whole,
          "no frame lost or doubled")
    check(int(after[0]["id"].split(".")[1]) == 5, "the first frame after the cursor", after[0]["id"])
    roles = [m["role"] for m in messages_of(c, "conv-1")]
    check(roles == ["user", "assistant", "user", "assistant"], "the detached reply was stored once", roles)
    replay = [b for b in resume(c, "conv-1", message_id).rest() if b["data"] is not None]
    check([b["id"] for b in replay] == [b["id"] for b in blocks + after], "no Last-Event-ID replays all")

    # Nothing to resume: an unknown ID, an abandoned reply, an unknown reply; an unknown conversation is 404.
    check(resume(c, "conv-1", message_id, "m-0.9").response.status == 204, "unknown Last-Event-ID: 204")
    c.faults(drop_reply_after_frames=2)
    cut = [b for b in c.send("cut", "c-r2", "conv-1").rest() if b["data"] is not None]
    check(resume(c, "conv-1", data(cut[0])["message_id"], cut[-1]["id"]).response.status == 204, "abandoned: 204")
    check(resume(c, "conv-1", "m-999").response.status == 204, "unknown reply: 204")
    check(resume(c, "conv-404", message_id).response.status == 404, "unknown conversation: 404")

    # A resume can drop too (one-shot), and the next one goes on from its last frame.
    c.faults(detach_reply_after_frames=0, drop_resume_after_frames=2, delay_ms=5)
    first = [b for b in c.send("twice", "c-r3", "conv-1", query="?style=frames").rest() if b["data"] is not None]
    message_id = data(first[0])["message_id"]
    second_reader = resume(c, "conv-1", message_id, first[-1]["id"])
    second = [b for b in second_reader.rest() if b["data"] is not None]
    check(second_reader.aborted and len(second) == 2, "the resume dropped after 2 frames", second)
    third = [b for b in resume(c, "conv-1", message_id, second[-1]["id"]).rest() if b["data"] is not None]
    check(data(third[-1]).get("status") == "DONE", "the frames style resumes to DONE", third[-1])
    ids = [b["id"] for b in first + second + third]
    check(ids == ["%s.%d" % (message_id, i + 1) for i in range(len(ids))], "IDs run on without a gap", ids)


def test_malformed_frame(c):
    c.faults(malformed_next_reply_frame=True)
    reader = c.send("break a frame", "c-m")
    blocks = [b for b in reader.rest() if b["data"] is not None]
    bad = []
    for b in blocks:
        try:
            json.loads(b["data"])
        except ValueError:
            bad.append(b)
    check(reader.ended and len(bad) == 1 and bad[0]["event"] == "text-delta", "one malformed frame", bad)
    index = blocks.index(bad[0])
    check(3 < index < len(blocks) - 3 and blocks[-1]["event"] == "finish", "in the middle; the stream goes on")
    typed_reply(c.send("clean", "c-m2", "conv-1"))  # one-shot: typed_reply would fail on a bad frame below
    c.faults(malformed_next_reply_frame=True)
    frames = [b["data"] for b in c.send("break frames", "c-m3", query="?style=frames").rest() if b["data"]]
    check(sum(1 for f in frames if not f.startswith("{") or not f.endswith("}")) == 1, "frames style too", frames)


def test_delay(c):
    c.faults(delay_ms=30)
    began = time.monotonic()
    _, text, _, _ = typed_reply(c.send("slow", "c-s"))
    elapsed = time.monotonic() - began
    check(elapsed >= len(text.split()) * 0.03 * 0.9, "delay between frames", elapsed)
    c.faults(delay_ms=1)
    began = time.monotonic()
    typed_reply(c.send("fast", "c-s2", "conv-1"))
    check(time.monotonic() - began < elapsed / 2, "delay can be lowered again")


def test_realtime(c):
    cid = c.control("conversations", {"messages": 1})["conversation_id"]
    other = c.control("conversations", {"messages": 1})["conversation_id"]
    rt = c.events()
    rt.next()
    for text in ("one", "two", "three"):
        c.control("agent_message", {"conversation_id": cid, "text": text})
    events = [rt.next_event() for _ in range(3)]
    check([e["id"] for e in events] == ["1", "2", "3"], "event IDs 1, 2, 3", events)
    check(all(e["event"] == "message.created" and data(e)["message"]["role"] == "assistant" for e in events),
          "agent messages broadcast", events)
    check(len(messages_of(c, cid)) == 4, "agent messages stored")

    c.faults(drop_realtime=True)
    check(rt.next() is None and rt.aborted, "drop_realtime closes the stream abruptly")
    # The client sees the abort before the server's handler has left its loop and unregistered: poll (8 s
    # guards a hang only).
    deadline = time.monotonic() + 8
    while c.state()["realtime_connections"] != 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    check(c.state()["realtime_connections"] == 0, "no stream left open")
    c.control("agent_message", {"conversation_id": cid, "text": "four"})  # missed while disconnected

    rt = c.events(last_event_id=1)
    check(rt.next()["retry"] == "1000", "retry first")
    replayed = [rt.next_event() for _ in range(3)]
    check([e["id"] for e in replayed] == ["2", "3", "4"], "replay after Last-Event-ID", replayed)
    injected = c.control("events", {"conversation_id": cid, "type": "typing.started",
                                    "data": {"participant_id": "agent-fin"}})
    live = rt.next_event()
    check(live["id"] == str(injected["event_id"]) == "5" and live["event"] == "typing.started"
          and data(live) == {"conversation_id": cid, "participant_id": "agent-fin"}, "injected event", live)
    c.control("events", {"conversation_id": cid, "type": "message.created", "raw_data": "{not json"})
    raw = rt.next_event()
    check(raw["id"] == "6" and raw["data"] == "{not json", "raw (malformed) event", raw)
    status = c.control("conversation_status", {"conversation_id": other, "status": "taken_over"})
    change = rt.next_event()
    check(change["event"] == "conversation.status" and data(change) == {"conversation_id": other,
                                                                        "status": "taken_over"}
          and change["id"] == str(status["event_id"]), "status event", change)

    c.faults(keepalive_s=0.2)
    block = rt.next()
    check(block["comments"] == ["keepalive"] and block["data"] is None, "keepalive comment", block)
    c.faults(keepalive_s=5)
    rt.close()

    everything = c.events(last_event_id=0)
    everything.next()
    check([everything.next_event()["id"] for _ in range(7)] == [str(i) for i in range(1, 8)], "replay from 0")
    everything.close()
    stale = c.events(last_event_id=999)  # from before a reset: everything
    stale.next()
    check(stale.next_event()["id"] == "1", "an unknown future ID replays everything")
    stale.close()
    filtered = c.events(last_event_id=0, query="?conversation_id=" + other)
    filtered.next()
    check(filtered.next_event()["id"] == "7", "conversation filter")
    filtered.close()
    expect_error(c.api("GET", "/events", extra={"Last-Event-ID": "abc"}), 400, "INVALID_REQUEST")
    expect_error(c.api("GET", "/events", token="bad"), 401, "UNAUTHORIZED")


def test_second_client_sees_replies(c):
    c.faults(realtime_reply_events=True)
    rt = c.events()
    rt.next()
    _, text, finish, _ = typed_reply(c.send("watch me", "c-w"))
    blocks = rt.until(lambda b: b["event"] == "reply.finished")
    names = [b["event"] for b in blocks]
    check(names[:2] == ["message.created", "reply.started"], "user message then reply.started", names)
    deltas = "".join(data(b)["delta"] for b in blocks if b["event"] == "reply.delta")
    check(deltas == text and data(blocks[-1])["message"] == finish["message"], "reply over realtime", names)
    last = rt.next_event()
    check(last["event"] == "message.created" and data(last)["message"] == finish["message"],
          "message.created for the answer after reply.finished", last)
    c.faults(realtime_reply_events=False, outbox_replies=True)
    c.api("POST", "/outbox", {"batch_id": "b-r", "epoch": 0, "first_sequence": 1, "operations": [
        op("send-c-or", 1, "send", client_id="c-or", text="offline question")]})
    created = [data(rt.next_event())["message"] for _ in range(2)]
    check([m["role"] for m in created] == ["user", "assistant"]
          and created[1]["text"].startswith("You said: offline question."), "outbox_replies", created)
    # A live send of that client ID now streams the stored answer.
    start, _, finish, _ = typed_reply(c.send("offline question", "c-or", "conv-1"))
    check(finish["message"]["id"] == created[1]["id"], "the queued message's answer", finish)
    rt.close()


def test_regenerate(c):
    _, _, finish, _ = typed_reply(c.send("first question", "c-q"))
    old = finish["message"]["id"]  # m-2, answering m-1
    rt = c.events()
    rt.next()
    reader = c.stream("POST", "/conversations/conv-1/regenerate", {"reply_to": "m-1", "answer": old}, key="rg-1")
    start, text, finish, _ = typed_reply(reader)
    new = finish["message"]["id"]
    check("user_message" not in start and start["message_id"] == new and new != old, "regenerate start", start)
    check(text.startswith("Another answer (1) to: first question.") and finish["user_message_id"] == "m-1",
          "regenerated text", finish)
    check([m["id"] for m in messages_of(c, "conv-1")] == ["m-1", new], "the old answer is replaced")
    events = announced(rt, 2)
    check(events == [("message.deleted", old), ("message.created", new)], "deleted then created", events)
    conversation = c.state()["conversations"]["conv-1"]
    check([m["id"] for m in conversation["all_messages"]] == ["m-1", old, new]
          and conversation["parents"] == {"m-1": None, old: "m-1", new: "m-1"}, "the old answer is a branch",
          conversation)
    again = typed_reply(c.stream("POST", "/conversations/conv-1/regenerate",
                                 {"reply_to": "m-1", "answer": old}, key="rg-1"))
    check(again[2]["message"] == finish["message"] and len(messages_of(c, "conv-1")) == 2, "same key, same answer")
    _, text2, _, _ = typed_reply(c.stream("POST", "/conversations/conv-1/regenerate?style=typed",
                                          {"reply_to": "m-1", "answer": new}, key="rg-2"))
    check(text2.startswith("Another answer (2) to:"), "second regeneration differs", text2)
    _, frames = frames_reply(c.stream("POST", "/conversations/conv-1/regenerate?style=frames",
                                      {"reply_to": "m-1", "answer": None}, key="rg-3"))
    check(frames[-1]["status"] == "DONE" and frames[-1]["user_message_id"] == "m-1", "regenerate, style A")
    expect_error(c.api("POST", "/conversations/conv-1/regenerate", {"reply_to": "m-404", "answer": None}),
                 422, "UNKNOWN_MESSAGE")
    expect_error(c.api("POST", "/conversations/conv-1/regenerate", {"reply_to": "m-1", "answer": "m-404"}),
                 422, "UNKNOWN_MESSAGE")
    expect_error(c.api("POST", "/conversations/conv-9/regenerate", {"reply_to": "m-1", "answer": None}),
                 404, "CONVERSATION_NOT_FOUND")
    c.control("conversation_status", {"conversation_id": "conv-1", "status": "taken_over"})
    expect_error(c.api("POST", "/conversations/conv-1/regenerate", {"reply_to": "m-1", "answer": None}),
                 409, "CONVERSATION_NOT_ONGOING")
    rt.close()


def test_branches(c):
    """A send with parent_id follows that message: the line (history, catch-up) becomes the path to it, and
    what leaves or comes back onto the line is announced."""
    rt = c.events()
    rt.next()
    typed_reply(c.send("first question", "c-1"))  # m-1, answered m-2
    typed_reply(c.send("second question", "c-2", "conv-1"))  # m-3, answered m-4
    check(announced(rt, 4) == [("message.created", "m-%d" % n) for n in (1, 2, 3, 4)], "two exchanges")

    # An edit of the second question follows the first answer: the line is the edited one.
    start, _, finish, _ = typed_reply(c.send("second question, edited", "c-3", "conv-1", parent_id="m-2"))
    check(start["user_message"]["id"] == "m-5" and finish["message"]["id"] == "m-6", "edit answered", finish)
    check(line_of(c, "conv-1") == ["m-1", "m-2", "m-5", "m-6"], "history is the edited line")
    check(line_of(c, "conv-1", "?limit=3") == ["m-2", "m-5", "m-6"], "a page of the edited line")
    check(line_of(c, "conv-1", "?after=m-2") == ["m-5", "m-6"], "catch-up on the edited line")
    events = announced(rt, 4)
    check(events == [("message.deleted", "m-3"), ("message.deleted", "m-4"), ("message.created", "m-5"),
                     ("message.created", "m-6")], "the old question and answer leave the line", events)
    state = c.state()
    conversation = state["conversations"]["conv-1"]
    check(len(conversation["all_messages"]) == 6 and conversation["parents"]["m-5"] == "m-2"
          and conversation["parents"]["m-6"] == "m-5", "the old branch is kept", conversation)
    check([e.get("parent_id") for e in state["log"] if e["path"] == "/v1/messages"] == [None, None, "m-2"],
          "the log records parent_id", state["log"])
    _, _, page = c.api("GET", "/conversations/conv-1/messages?limit=10")
    check(page["total_count"] == 4, "total_count counts the line", page)

    # A send after the old answer brings its branch back and takes the edited one off the line.
    typed_reply(c.send("and then?", "c-4", "conv-1", parent_id="m-4"))  # m-7, answered m-8
    check(line_of(c, "conv-1") == ["m-1", "m-2", "m-3", "m-4", "m-7", "m-8"], "history is the old branch again")
    events = announced(rt, 6)
    check(events == [("message.deleted", "m-5"), ("message.deleted", "m-6"), ("message.created", "m-3"),
                     ("message.created", "m-4"), ("message.created", "m-7"), ("message.created", "m-8")],
          "leaving then returning then new", events)

    # Without parent_id (or with the newest), a send follows the newest message, announcing nothing else.
    typed_reply(c.send("newest", "c-5", "conv-1"))  # m-9, m-10
    typed_reply(c.send("newest again", "c-6", "conv-1", parent_id="m-10"))  # m-11, m-12
    check(line_of(c, "conv-1")[-4:] == ["m-9", "m-10", "m-11", "m-12"], "appended to the newest")
    check(announced(rt, 4) == [("message.created", "m-%d" % n) for n in (9, 10, 11, 12)], "no line change")

    # An explicit null comes first: an edit of the first question starts the line again.
    typed_reply(c.send("first question, edited", "c-7", "conv-1", parent_id=None))  # m-13, m-14
    check(line_of(c, "conv-1") == ["m-13", "m-14"], "history starts at the edit of the first question")
    events = announced(rt, 12)
    check(events == [("message.deleted", "m-%d" % n) for n in (1, 2, 3, 4, 7, 8, 9, 10, 11, 12)]
          + [("message.created", "m-13"), ("message.created", "m-14")],
          "the whole old line leaves, then the edit and its answer", events)
    check(c.state()["conversations"]["conv-1"]["parents"]["m-13"] is None, "the edit has no parent")
    rt.close()

    # A parent the conversation does not have: 404 UNKNOWN_MESSAGE, nothing stored.
    c.control("conversations", {"messages": 2})  # conv-2: m-15, m-16
    before = c.state()
    for conversation_id, parent in (("conv-1", "m-404"), ("conv-1", "m-15"), (None, "m-1")):
        expect_error(c.api("POST", "/messages", {"conversation_id": conversation_id, "client_id": "c-x",
                                                 "text": "hi", "parent_id": parent}), 404, "UNKNOWN_MESSAGE")
    expect_error(c.api("POST", "/messages", {"conversation_id": "conv-1", "client_id": "c-x", "text": "hi",
                                             "parent_id": 2}), 400, "INVALID_REQUEST")
    after = c.state()
    check(after["conversations"] == before["conversations"] and after["events"] == before["events"],
          "refused sends store nothing", after["conversations"].keys())


def test_outbox_branches(c):
    """An outbox send with parent_id follows that message, as a live send does; an unknown one is refused."""
    seeded = c.control("conversations", {"messages": 4})  # conv-1: m-1 … m-4, a line
    check(seeded["message_ids"] == ["m-1", "m-2", "m-3", "m-4"], "seeded", seeded)
    rt = c.events()
    rt.next()
    status, _, answer = c.api("POST", "/outbox", {"batch_id": "b-1", "epoch": 0, "first_sequence": 1, "operations": [
        op("send-c-9", 1, "send", client_id="c-9", parent_id="m-2", text="an edit, written offline"),
        op("send-c-10", 2, "send", client_id="c-10", text="after the edit"),
        op("send-lost", 3, "send", client_id="c-11", parent_id="m-404", text="after nothing"),
        op("send-odd", 4, "send", client_id="c-12", parent_id=7, text="after a number"),
        op("send-new", 5, "send", None, client_id="c-13", parent_id="m-1", text="new, after m-1"),
    ]}, key="b-1")
    reasons = {r["operation_id"]: r["reason"] for r in answer["rejections"]}
    check(status == 200 and reasons == {"send-lost": "UNKNOWN_MESSAGE", "send-odd": "INVALID_OPERATION",
                                        "send-new": "UNKNOWN_MESSAGE"}, "rejections", answer)
    check(line_of(c, "conv-1") == ["m-1", "m-2", "m-5", "m-6"], "the line follows the queued edit")
    events = announced(rt, 4)
    check(events == [("message.deleted", "m-3"), ("message.deleted", "m-4"), ("message.created", "m-5"),
                     ("message.created", "m-6")], "the batch's line change is announced", events)
    check(sorted(c.state()["conversations"]) == ["conv-1"], "no conversation for a refused send")
    rt.close()


def test_status(c):
    typed_reply(c.send("hello", "c-1"))
    c.control("conversation_status", {"conversation_id": "conv-1", "status": "taken_over"})
    start, _, finish, _ = typed_reply(c.send("human please", "c-2", "conv-1"))
    check(finish["message"]["role"] == "human_agent" and start["agent"]["name"] == "Sam", "a human answers", finish)
    _, _, page = c.api("GET", "/conversations/conv-1/messages?limit=5")
    check(page["status"] == "taken_over", "status on the page", page)
    c.control("conversation_status", {"conversation_id": "conv-1", "status": "ended"})
    expect_error(c.api("POST", "/messages", {"conversation_id": "conv-1", "client_id": "c-3", "text": "hi"}),
                 409, "CONVERSATION_NOT_ONGOING")
    c.control("conversation_status", {"conversation_id": "conv-1", "status": "unavailable"})
    expect_error(c.api("POST", "/messages", {"conversation_id": "conv-1", "client_id": "c-3", "text": "hi"}),
                 503, "CHAT_UNAVAILABLE")
    c.control("conversation_status", {"conversation_id": "conv-1", "status": "not_found"})
    expect_error(c.api("GET", "/conversations/conv-1/messages"), 404, "CONVERSATION_NOT_FOUND")
    check(len(messages_of(c, "conv-1")) == 4, "refused sends store nothing")


def test_control_validation_and_reset(c):
    for body in ({"no_such_fault": 1}, {"delay_ms": -1}, {"style": "xml"}, {"rate_limit_next": 3},
                 {"drop_realtime": "yes"}, {"accepted_token": ""}):
        status, _, answer = c.request("POST", "/control/faults", body, token="")
        check(status == 400 and answer["error"]["code"] == "INVALID_REQUEST", "bad fault refused", body, answer)
    status, _, _ = c.request("POST", "/control/agent_message", {"conversation_id": "conv-9", "text": "x"}, token="")
    check(status == 404, "agent_message to an unknown conversation")
    status, _, _ = c.request("POST", "/control/nothing", {}, token="")
    check(status == 404, "unknown control call")

    typed_reply(c.send("something", "c-1"))
    c.faults(delay_ms=5, style="frames", accepted_token="t9", drop_reply_after_frames=4, keepalive_s=1)
    rt = Client(c.port, "t9").events()
    rt.next()
    c.control("reset")
    check(rt.next() is None and rt.aborted, "reset closes realtime streams")
    state = c.state()
    check(state["conversations"] == {} and state["events"] == [] and state["last_event_id"] == 0
          and state["requests"] == 0 and state["sends"] == 0 and state["batches"] == [] and state["log"] == [],
          "reset forgets everything", state)
    faults = state["faults"]
    check(faults["delay_ms"] == 1 and faults["style"] == "typed" and faults["accepted_token"] == "secret"
          and faults["drop_reply_after_frames"] is None and faults["keepalive_s"] == 5, "faults back to defaults",
          faults)
    start, _, _, _ = typed_reply(c.send("fresh", "c-1"))
    check(start["conversation_id"] == "conv-1" and start["message_id"] == "m-2", "counters restart", start)


def test_process_lifecycle():
    """CLI flags, SIGTERM, SIGINT, stdin EOF; nothing on stdout after LISTENING, nothing on stderr."""
    server = ServerProcess("--style", "frames", "--token", "abc", "--delay-ms", "0", "--keepalive-s", "0.2")
    try:
        c = Client(server.port, "abc")
        _, frames = frames_reply(c.send("via flags", "c-1"))
        check(frames[-1]["status"] == "DONE", "--style frames and --token")
        rt = c.events()
        rt.next()
        check(rt.next()["comments"] == ["keepalive"], "--keepalive-s")
        check(server.stop_by_signal(signal.SIGTERM) == 0, "SIGTERM exits 0")
        rt.close()
        check(server.process.stdout.read() == b"" and server.process.stderr.read() == b"", "quiet output")
    finally:
        server.kill()
    server = ServerProcess()
    try:
        check(server.stop_by_signal(signal.SIGINT) == 0, "SIGINT exits 0")
    finally:
        server.kill()


TESTS = [
    test_auth_and_errors, test_send_typed_and_realtime, test_frames_style, test_tool_call, test_sources, test_history,
    test_list, test_manage_list, test_rating_feedback_read_typing, test_tickets, test_outbox, test_lose_batch_response,
    test_rate_limit, test_token_expiry, test_drop_reply, test_resume, test_malformed_frame, test_delay, test_realtime,
    test_second_client_sees_replies, test_regenerate, test_branches, test_outbox_branches, test_status,
    test_control_validation_and_reset,
]


def main():
    began = time.monotonic()
    server = ServerProcess("--delay-ms", "1")
    failures = 0
    try:
        client = Client(server.port)
        for test in TESTS:
            client.control("reset")
            t0 = time.monotonic()
            try:
                test(client)
                print("ok   %-40s %.2fs" % (test.__name__, time.monotonic() - t0), flush=True)
            except Exception as error:  # report and go on, so one run shows every failure
                failures += 1
                print("FAIL %s: %s: %s" % (test.__name__, type(error).__name__, error), flush=True)
                if VERBOSE:
                    import traceback
                    traceback.print_exc()
        code = server.stop_by_closing_stdin()
        check(code == 0, "stdin EOF exits 0", code)
        rest = server.process.stdout.read()
        check(rest == b"", "nothing on stdout after LISTENING", rest)
        err = server.process.stderr.read()
        check(err == b"", "nothing on stderr without --verbose", err[-2000:])
        print("ok   %-40s" % "stdin EOF shutdown, quiet output")
        test_process_lifecycle()
        print("ok   %-40s" % "test_process_lifecycle")
    except Exception as error:
        failures += 1
        print("FAIL harness: %s: %s" % (type(error).__name__, error))
    finally:
        server.kill()
    print("%s in %.1fs" % ("PASSED" if not failures else "%d FAILED" % failures, time.monotonic() - began))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
