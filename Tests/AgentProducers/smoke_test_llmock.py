"""Smoke test of the LLMock producer, without Swift: starts llmock_server.py as the tests do (reading
`LISTENING <port>`), runs every scenario over raw HTTP/1.1 sockets (so a dropped connection, a clean but
early end and a stall can be told apart), checks the chunk shapes, finish reasons, faults and verdicts, and
stops it by closing its stdin (and a second one by SIGTERM, mid-stall). Exits 1 on any failure. Run it with
the environment's python (make-venv.sh prints it):

  .build/agent-venv/bin/python Tests/AgentProducers/smoke_test_llmock.py [--write-captures]

--write-captures also saves each raw response body as captures/openai-<name>.sse (the 429 as
openai-fault-429.txt: status line, headers and body exactly as received), the request body beside it as
openai-<name>.request.json and, for faults, the behaviour queued first as openai-<name>.scenario.json.
IDs, `created`/`created_at` and the 429's `date` header differ run to run.
"""

import argparse
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CAPTURES = os.path.join(HERE, "captures")

FAILURES = []
CHECKS = [0]
ARGS = None


def check(condition, what):
    CHECKS[0] += 1
    if not condition:
        FAILURES.append(what)
        print("FAIL  " + what)
    return condition


class Server:
    """The producer as the Swift tests start it: its stdin is a pipe we hold; closing it stops the server."""

    def __init__(self, *extra):
        self.process = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "llmock_server.py"), "--port", "0", *extra],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        lines = queue.Queue()
        threading.Thread(target=lambda: lines.put(self.process.stdout.readline()), daemon=True).start()
        try:
            line = lines.get(timeout=30).decode()
        except queue.Empty:
            line = ""
        if not line.startswith("LISTENING "):
            self.stop()
            raise SystemExit("llmock_server.py did not announce a port (got %r)" % line)
        self.port = int(line.split()[1])

    def stop(self):
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            check(False, "the server did not stop when its stdin closed")
            self.process.kill()
            self.process.wait(timeout=10)


class Reply:
    def __init__(self):
        self.raw = b""            # every byte received
        self.status = None
        self.headers = {}
        self.body = b""           # the body after chunked decoding (what curl -sN prints)
        self.complete = False     # the body ended as HTTP says it should (the 0-size chunk, or Content-Length)
        self.timed_out = False    # the read timeout fired
        self.t_head = None        # seconds until the status line and headers were in
        self.t_body = None        # seconds until the first body byte
        self.elapsed = None


def exchange(port, method, path, body=None, read_timeout=10.0, headers=None, give_up_after=None):
    """One request on its own connection (Connection: close); reads until EOF, reset, the read timeout (between
    two reads) or `give_up_after` seconds in all (then it closes the connection, as a client that stops)."""
    data = b"" if body is None else json.dumps(body).encode()
    head = "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\nAccept: */*\r\n" % (method, path, port)
    head += "".join("%s: %s\r\n" % item for item in (headers or {}).items())
    if body is not None:
        head += "Content-Type: application/json\r\nContent-Length: %d\r\n" % len(data)
    reply = Reply()
    started = time.monotonic()
    sock = socket.create_connection(("127.0.0.1", port), timeout=read_timeout)
    try:
        sock.sendall(head.encode() + b"\r\n" + data)
        while True:
            try:
                piece = sock.recv(65536)
            except socket.timeout:
                reply.timed_out = True
                break
            except ConnectionResetError:
                break
            if not piece:
                break
            reply.raw += piece
            if give_up_after is not None and time.monotonic() - started > give_up_after:
                reply.timed_out = True
                break
            split = reply.raw.find(b"\r\n\r\n")
            if split >= 0 and reply.t_head is None:
                reply.t_head = time.monotonic() - started
            if split >= 0 and reply.t_body is None and len(reply.raw) > split + 4:
                reply.t_body = time.monotonic() - started
    finally:
        sock.close()
    reply.elapsed = time.monotonic() - started
    head_raw, _, rest = reply.raw.partition(b"\r\n\r\n")
    lines = head_raw.decode("latin-1").split("\r\n")
    if lines and lines[0].startswith("HTTP/1.1 "):
        reply.status = int(lines[0].split()[1])
    for line in lines[1:]:
        name, _, value = line.partition(":")
        reply.headers[name.strip().lower()] = value.strip()
    if reply.headers.get("transfer-encoding") == "chunked":
        reply.body, reply.complete = dechunk(rest)
    else:
        reply.body = rest
        reply.complete = "content-length" in reply.headers and len(rest) == int(reply.headers["content-length"])
    return reply


def dechunk(data):
    """The decoded body, and whether the terminating 0-size chunk arrived."""
    out, at = b"", 0
    while True:
        end = data.find(b"\r\n", at)
        if end < 0:
            return out, False
        size = int(data[at:end].split(b";")[0] or b"0", 16)
        if size == 0:
            return out, True
        out += data[end + 2:end + 2 + size]
        if len(data) < end + 2 + size + 2:
            return out, False
        at = end + 2 + size + 2


def frames(body):
    """SSE events as (event name or None, data string), LF framing."""
    out = []
    for block in body.decode("utf-8", errors="replace").split("\n\n"):
        if not block.strip():
            continue
        name, data = None, []
        for line in block.split("\n"):
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].lstrip(" "))
        out.append((name, "\n".join(data)))
    return out


def json_or_none(text):
    try:
        return json.loads(text)
    except ValueError:
        return None


def save(name, reply, request=None, scenario=None, raw=False):
    if not ARGS.write_captures:
        return
    os.makedirs(CAPTURES, exist_ok=True)
    with open(os.path.join(CAPTURES, name + (".txt" if raw else ".sse")), "wb") as file:
        file.write(reply.raw if raw else reply.body)
    for suffix, value in ((".request.json", request), (".scenario.json", scenario)):
        if value is not None:
            with open(os.path.join(CAPTURES, name + suffix), "w") as file:
                json.dump(value, file, indent=2)
                file.write("\n")


# Helpers on top of LLMock's control API -------------------------------------------------------------------

def control(port, method, path, body=None):
    reply = exchange(port, method, path, body)
    return reply.status, json_or_none(reply.body.decode() or "null")


def queue_behaviors(port, *behaviors):
    status, answer = control(port, "POST", "/_llmock/scenario", {"behaviors": list(behaviors)})
    check(status == 201 and answer and answer.get("queued") == len(behaviors),
          "scenario %s: %s %s" % (behaviors, status, answer))


def verdict_for(port, model):
    status, answer = control(port, "GET", "/_llmock/scoped/verdict?model=" + model)
    check(status == 200 and isinstance(answer, dict), "scoped verdict for %s: %s" % (model, status))
    return answer or {}


def codes(verdict):
    return sorted(f["code"] for f in verdict.get("findings", []))


# Chat Completions --------------------------------------------------------------------------------------------

CHAT = "/v1/chat/completions"
RESPONSES = "/v1/responses"
WEATHER_PARAMS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
CHAT_TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "The weather in a city",
                                                "parameters": WEATHER_PARAMS}}]
RESPONSES_TOOLS = [{"type": "function", "name": "get_weather", "description": "The weather in a city",
                    "parameters": WEATHER_PARAMS}]
QUESTION = "What is the weather in Paris?"
TOOL_RESULT = "sunny, 21 C"


def chat_body(model, text="Say hi", **extra):
    body = {"model": model, "stream": True, "messages": [{"role": "user", "content": text}]}
    body.update(extra)
    return body


def chat_chunks(label, reply, done=True):
    """The parsed chunks of a chat stream, after checking the framing every chunk shares."""
    check(reply.status == 200, "%s: status %s" % (label, reply.status))
    check(reply.headers.get("content-type", "").startswith("text/event-stream"),
          "%s: content-type %s" % (label, reply.headers.get("content-type")))
    got = frames(reply.body)
    check(all(name is None for name, _ in got), "%s: chat frames carry no event: line" % label)
    if done:
        check(got and got[-1][1] == "[DONE]", "%s: ends with data: [DONE]" % label)
        check(reply.complete, "%s: the body did not end cleanly" % label)
    chunks = [json_or_none(data) for _, data in got if data != "[DONE]"]
    for chunk in chunks:
        if chunk is None:
            continue
        check(chunk.get("object") == "chat.completion.chunk" and chunk.get("id", "").startswith("chatcmpl-")
              and isinstance(chunk.get("created"), int) and "system_fingerprint" in chunk,
              "%s: chunk shape %s" % (label, chunk))
    ids = {chunk["id"] for chunk in chunks if chunk}
    check(len(ids) <= 1, "%s: one id for every chunk, got %s" % (label, ids))
    return chunks


def chat_text(chunks):
    return "".join((c["choices"][0]["delta"].get("content") or "") for c in chunks if c and c["choices"])


def finish_reasons(chunks):
    return [c["choices"][0]["finish_reason"] for c in chunks if c and c["choices"]]


def chat_tool_calls(chunks):
    calls = {}
    for chunk in chunks:
        if not chunk or not chunk["choices"]:
            continue
        for part in chunk["choices"][0]["delta"].get("tool_calls") or []:
            call = calls.setdefault(part["index"], {"id": None, "name": None, "arguments": ""})
            if "id" in part:
                check(call["id"] is None, "a tool call's id came twice")
                call["id"] = part["id"]
                check(part.get("type") == "function", "tool call type %s" % part.get("type"))
            function = part.get("function") or {}
            if "name" in function:
                call["name"] = function["name"]
            call["arguments"] += function.get("arguments") or ""
    return [calls[i] for i in sorted(calls)]


def chat_scenarios(port):
    body = chat_body("smoke-text")
    reply = exchange(port, "POST", CHAT, body)
    save("openai-chat-text", reply, body)
    chunks = chat_chunks("chat text", reply)
    check(chunks and chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""},
          "chat text: first delta %s" % (chunks[0]["choices"][0]["delta"] if chunks else None))
    check(chat_text(chunks) == "Hello! You said: Say hi", "chat text: %r" % chat_text(chunks))
    check(finish_reasons(chunks) == [None] * (len(chunks) - 1) + ["stop"], "chat text: finish reasons")
    check(all("usage" not in c for c in chunks), "chat text: no usage without include_usage")
    check(chat_text(chat_chunks("chat text again", exchange(port, "POST", CHAT, body))) == chat_text(chunks),
          "chat text: the same prompt gets the same text")

    body = chat_body("smoke-usage", stream_options={"include_usage": True})
    reply = exchange(port, "POST", CHAT, body)
    save("openai-chat-usage", reply, body)
    chunks = chat_chunks("chat usage", reply)
    last = chunks[-1] if chunks else {}
    check(last.get("choices") == [] and set(last.get("usage") or {}) == {"prompt_tokens", "completion_tokens",
                                                                         "total_tokens"},
          "chat usage: last chunk %s" % last)
    check(all(c.get("usage", "missing") is None for c in chunks[:-1]), "chat usage: usage null before the last")
    check(finish_reasons(chunks)[-1:] == ["stop"], "chat usage: finish stop before the usage chunk")

    # tool_mode auto: an offered tool is called (arguments from its schema), then its result gets text.
    body = chat_body("smoke-tools", QUESTION, tools=CHAT_TOOLS, tool_choice="auto")
    reply = exchange(port, "POST", CHAT, body)
    save("openai-chat-tools", reply, body)
    chunks = chat_chunks("chat tools", reply)
    check(chunks and chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": None},
          "chat tools: first delta")
    calls = chat_tool_calls(chunks)
    check(len(calls) == 1 and calls[0]["name"] == "get_weather" and (calls[0]["id"] or "").startswith("call_")
          and json_or_none(calls[0]["arguments"]) == {"city": "mock-city"}, "chat tools: calls %s" % calls)
    check(finish_reasons(chunks)[-1:] == ["tool_calls"], "chat tools: finish tool_calls")
    check(chat_text(chunks) == "", "chat tools: no text")
    call = calls[0] if calls else {"id": "call_x", "name": "get_weather", "arguments": "{}"}
    body = {"model": "smoke-tools", "stream": True, "tools": CHAT_TOOLS, "tool_choice": "auto", "messages": [
        {"role": "user", "content": QUESTION},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": call["id"], "type": "function", "function": {"name": call["name"], "arguments": call["arguments"]}}]},
        {"role": "tool", "tool_call_id": call["id"], "content": TOOL_RESULT}]}
    reply = exchange(port, "POST", CHAT, body)
    save("openai-chat-tools-continue", reply, body)
    chunks = chat_chunks("chat tools continue", reply)
    check(chat_text(chunks) == "Hello! You said: %s %s" % (QUESTION, TOOL_RESULT),
          "chat tools continue: %r" % chat_text(chunks))
    check(finish_reasons(chunks)[-1:] == ["stop"] and not chat_tool_calls(chunks), "chat tools continue: finish")

    # Scripted replies: text, tool calls (no tools offered), a finish reason.
    queue_behaviors(port, {"type": "reply", "text": "Scripted answer.", "match": {"model": "smoke-reply"}})
    chunks = chat_chunks("reply text", exchange(port, "POST", CHAT, chat_body("smoke-reply")))
    check(chat_text(chunks) == "Scripted answer.", "reply text: %r" % chat_text(chunks))
    chunks = chat_chunks("reply spent", exchange(port, "POST", CHAT, chat_body("smoke-reply")))
    check(chat_text(chunks) == "Hello! You said: Say hi", "a reply behaviour is one-shot by default")
    queue_behaviors(port, {"type": "reply", "match": {"model": "smoke-reply-tools"}, "tool_calls": [
        {"name": "lookup", "arguments": {"q": "swift"}}, {"name": "open_url", "arguments": {"url": "https://x"}}]})
    chunks = chat_chunks("reply tool_calls", exchange(port, "POST", CHAT, chat_body("smoke-reply-tools")))
    calls = chat_tool_calls(chunks)
    check([(c["name"], json_or_none(c["arguments"])) for c in calls]
          == [("lookup", {"q": "swift"}), ("open_url", {"url": "https://x"})], "reply tool_calls: %s" % calls)
    check(finish_reasons(chunks)[-1:] == ["tool_calls"], "reply tool_calls: finish")
    queue_behaviors(port, {"type": "reply", "text": "Cut", "finish_reason": "length",
                           "match": {"model": "smoke-length"}})
    chunks = chat_chunks("reply length", exchange(port, "POST", CHAT, chat_body("smoke-length")))
    check(finish_reasons(chunks)[-1:] == ["length"], "reply finish_reason length")

    # Tool faults: arguments cut in half, or a tool never offered.
    queue_behaviors(port, {"type": "tool_fault", "kind": "malformed_arguments", "match": {"model": "smoke-tf1"}})
    calls = chat_tool_calls(chat_chunks("tool_fault malformed", exchange(
        port, "POST", CHAT, chat_body("smoke-tf1", QUESTION, tools=CHAT_TOOLS))))
    check(len(calls) == 1 and calls[0]["name"] == "get_weather" and json_or_none(calls[0]["arguments"]) is None,
          "tool_fault malformed_arguments: %s" % calls)
    queue_behaviors(port, {"type": "tool_fault", "kind": "unknown_tool", "match": {"model": "smoke-tf2"}})
    calls = chat_tool_calls(chat_chunks("tool_fault unknown", exchange(
        port, "POST", CHAT, chat_body("smoke-tf2", QUESTION, tools=CHAT_TOOLS))))
    check(len(calls) == 1 and calls[0]["name"] == "llmock_unknown_tool", "tool_fault unknown_tool: %s" % calls)


def chat_faults(port):
    # 429 with Retry-After (whole seconds, rounded up) and retry-after-ms; JSON error body, no stream.
    behavior = {"type": "fail", "status": 429, "retry_after": 1.5, "match": {"model": "smoke-429"}}
    queue_behaviors(port, behavior)
    body = chat_body("smoke-429")
    reply = exchange(port, "POST", CHAT, body)
    save("openai-fault-429", reply, body, behavior, raw=True)
    error = json_or_none(reply.body.decode())
    check(reply.status == 429 and reply.headers.get("retry-after") == "2"
          and reply.headers.get("retry-after-ms") == "1500"
          and reply.headers.get("content-type") == "application/json", "429: %s %s" % (reply.status, reply.headers))
    check(error == {"error": {"message": "Rate limit exceeded.", "type": "rate_limit_error", "param": None,
                              "code": "rate_limit_exceeded"}}, "429: body %s" % error)
    check(exchange(port, "POST", CHAT, chat_body("smoke-429", "again")).status == 200, "fail is one-shot")
    queue_behaviors(port, {"type": "fail", "status": 500, "match": {"model": "smoke-500"}})
    reply = exchange(port, "POST", CHAT, chat_body("smoke-500"))
    check(reply.status == 500 and "retry-after" not in reply.headers, "500: no Retry-After by default")
    queue_behaviors(port, {"type": "fail", "status": 503, "match": {"model": "smoke-503"}})
    reply = exchange(port, "POST", CHAT, chat_body("smoke-503"))
    check(reply.status == 503 and reply.headers.get("retry-after") == "1", "503: Retry-After 1 by default")
    # The per-request header: an error for this request only, consuming no queued behaviour.
    queue_behaviors(port, {"type": "reply", "text": "kept", "match": {"model": "smoke-forced"}})
    reply = exchange(port, "POST", CHAT, chat_body("smoke-forced"), headers={"x-llmock-force-status": "429"})
    check(reply.status == 429 and reply.headers.get("retry-after") == "1", "x-llmock-force-status: %s" % reply.status)
    chunks = chat_chunks("after forced", exchange(port, "POST", CHAT, chat_body("smoke-forced")))
    check(chat_text(chunks) == "kept", "a forced status leaves the queue alone")

    # disconnect: the chunks before after_chunks, then the connection drops (no 0-size chunk).
    behavior = {"type": "stream_fault", "kind": "disconnect", "after_chunks": 2, "match": {"model": "smoke-disc"}}
    queue_behaviors(port, behavior)
    body = chat_body("smoke-disc")
    reply = exchange(port, "POST", CHAT, body)
    save("openai-fault-disconnect", reply, body, behavior)
    chunks = chat_chunks("disconnect", reply, done=False)
    check(reply.status == 200 and len(chunks) == 2 and not reply.complete and not reply.timed_out,
          "disconnect: %d chunks, complete=%s" % (len(chunks), reply.complete))
    check(finish_reasons(chunks) == [None, None], "disconnect: no finish reason")

    # truncate: a clean end of the body after after_chunks chunks, without finish reason or [DONE].
    behavior = {"type": "stream_fault", "kind": "truncate", "after_chunks": 3, "match": {"model": "smoke-trunc"}}
    queue_behaviors(port, behavior)
    body = chat_body("smoke-trunc")
    reply = exchange(port, "POST", CHAT, body)
    save("openai-fault-truncate", reply, body, behavior)
    chunks = chat_chunks("truncate", reply, done=False)
    check(len(chunks) == 3 and reply.complete and b"[DONE]" not in reply.body
          and finish_reasons(chunks) == [None] * 3, "truncate: %d chunks, complete=%s" % (len(chunks), reply.complete))

    # malformed: chunk number after_chunks has its JSON cut in half; the stream then goes on to [DONE].
    behavior = {"type": "stream_fault", "kind": "malformed", "after_chunks": 1, "match": {"model": "smoke-malf"}}
    queue_behaviors(port, behavior)
    body = chat_body("smoke-malf")
    reply = exchange(port, "POST", CHAT, body)
    save("openai-fault-malformed", reply, body, behavior)
    chunks = chat_chunks("malformed", reply)
    check(len(chunks) > 2 and chunks[1] is None and all(c is not None for c in chunks[:1] + chunks[2:]),
          "malformed: only chunk 1 is broken")
    check(finish_reasons(chunks)[-1:] == ["stop"], "malformed: the stream still finishes")

    # stall: after_chunks chunks, then nothing for stall_seconds (default 30): a short read timeout fires.
    queue_behaviors(port, {"type": "stream_fault", "kind": "stall", "after_chunks": 1, "stall_seconds": 5,
                           "match": {"model": "smoke-stall"}})
    reply = exchange(port, "POST", CHAT, chat_body("smoke-stall"), read_timeout=0.75)
    # Whether the read timed out, not how fast: the elapsed time is printed, never checked (a loaded machine).
    check(reply.status == 200 and reply.timed_out and len(frames(reply.body)) == 1,
          "stall: timed_out=%s after %.2fs with %d chunk(s)" % (reply.timed_out, reply.elapsed,
                                                               len(frames(reply.body))))

    # delay holds the whole answer; slow_first_token sends the headers, then waits before the first chunk.
    queue_behaviors(port, {"type": "delay", "seconds": 0.5, "match": {"model": "smoke-delay"}})
    reply = exchange(port, "POST", CHAT, chat_body("smoke-delay"))
    check(reply.status == 200 and reply.t_head >= 0.5 and reply.complete, "delay: headers after %.2fs" % reply.t_head)
    queue_behaviors(port, {"type": "slow_first_token", "seconds": 0.5, "match": {"model": "smoke-slow"}})
    reply = exchange(port, "POST", CHAT, chat_body("smoke-slow"))
    check(reply.status == 200 and reply.t_head < 0.4 and reply.t_body >= 0.5 and reply.complete,
          "slow_first_token: headers %.2fs, first chunk %.2fs" % (reply.t_head, reply.t_body or -1))

    # A reply and a stream fault land on the same request (categories are independent).
    queue_behaviors(port, {"type": "reply", "tool_calls": [{"name": "lookup", "arguments": {"q": "a long query"}}],
                           "match": {"model": "smoke-both"}},
                    {"type": "stream_fault", "kind": "disconnect", "after_chunks": 3, "match": {"model": "smoke-both"}})
    chunks = chat_chunks("reply+disconnect", exchange(port, "POST", CHAT, chat_body("smoke-both")), done=False)
    calls = chat_tool_calls(chunks)
    check(len(chunks) == 3 and calls and calls[0]["name"] == "lookup" and json_or_none(calls[0]["arguments"]) is None,
          "reply+disconnect: a tool call cut mid-arguments %s" % calls)


# Responses API -------------------------------------------------------------------------------------------------

def responses_events(label, reply, terminal=True):
    check(reply.status == 200, "%s: status %s" % (label, reply.status))
    check(reply.headers.get("content-type", "").startswith("text/event-stream"), "%s: content-type" % label)
    events = []
    for name, data in frames(reply.body):
        event = json_or_none(data)
        if event is not None:
            check(name == event.get("type"), "%s: event: %s vs type %s" % (label, name, event.get("type")))
        events.append(event)
    numbers = [e.get("sequence_number") for e in events if e]
    check(numbers == list(range(len(numbers))), "%s: sequence_number 0..n-1, got %s" % (label, numbers))
    check(b"[DONE]" not in reply.body, "%s: no [DONE] in the Responses format" % label)
    if terminal:
        check(reply.complete and events and events[-1]["type"] == "response.completed",
              "%s: ends with response.completed" % label)
    return events


def types_of(events):
    return [e["type"] if e else None for e in events]


def responses_scenarios(port):
    body = {"model": "smoke-resp-text", "stream": True, "input": "Say hi"}
    reply = exchange(port, "POST", RESPONSES, body)
    save("openai-responses-text", reply, body)
    events = responses_events("responses text", reply)
    deltas = [e["delta"] for e in events if e["type"] == "response.output_text.delta"]
    check(types_of(events) == ["response.created", "response.in_progress", "response.output_item.added",
                               "response.content_part.added"] + ["response.output_text.delta"] * len(deltas)
          + ["response.output_text.done", "response.content_part.done", "response.output_item.done",
             "response.completed"], "responses text: order %s" % types_of(events))
    check("".join(deltas) == "Hello! You said: Say hi", "responses text: %r" % "".join(deltas))
    if len(events) > 3:
        item = events[2]["item"]
        check(item["type"] == "message" and item["status"] == "in_progress" and item["content"] == [],
              "responses text: item added %s" % item)
        final = events[-1]["response"]
        check(events[0]["response"]["status"] == "in_progress" and final["status"] == "completed"
              and final["output"][0]["content"][0]["text"] == "Hello! You said: Say hi"
              and set(final["usage"]) >= {"input_tokens", "output_tokens", "total_tokens"},
              "responses text: response.completed %s" % final)
        check(all(e.get("item_id") == item["id"] for e in events[3:-2]), "responses text: item_id")

    body = {"model": "smoke-resp-tools", "stream": True, "tools": RESPONSES_TOOLS,
            "input": [{"role": "user", "content": QUESTION}]}
    reply = exchange(port, "POST", RESPONSES, body)
    save("openai-responses-tools", reply, body)
    events = responses_events("responses tools", reply)
    deltas = [e["delta"] for e in events if e["type"] == "response.function_call_arguments.delta"]
    check(types_of(events) == ["response.created", "response.in_progress", "response.output_item.added"]
          + ["response.function_call_arguments.delta"] * len(deltas)
          + ["response.function_call_arguments.done", "response.output_item.done", "response.completed"],
          "responses tools: order %s" % types_of(events))
    item = events[-2]["item"] if len(events) > 2 else {}
    check(item.get("type") == "function_call" and item.get("name") == "get_weather"
          and item.get("call_id", "").startswith("call_") and item.get("id", "").startswith("fc_")
          and json_or_none("".join(deltas)) == {"city": "mock-city"} and item.get("arguments") == "".join(deltas),
          "responses tools: item %s" % item)
    body = {"model": "smoke-resp-tools", "stream": True, "tools": RESPONSES_TOOLS, "input": [
        {"role": "user", "content": QUESTION},
        {"type": "function_call", "call_id": item.get("call_id"), "name": "get_weather",
         "arguments": item.get("arguments")},
        {"type": "function_call_output", "call_id": item.get("call_id"), "output": TOOL_RESULT}]}
    reply = exchange(port, "POST", RESPONSES, body)
    save("openai-responses-tools-continue", reply, body)
    events = responses_events("responses tools continue", reply)
    text = "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")
    check(text == "Hello! You said: %s %s" % (QUESTION, TOOL_RESULT), "responses tools continue: %r" % text)

    # Stream faults are applied on the transport, so they hit the Responses format alike.
    queue_behaviors(port, {"type": "stream_fault", "kind": "disconnect", "after_chunks": 3,
                           "match": {"model": "smoke-resp-disc"}})
    reply = exchange(port, "POST", RESPONSES, {"model": "smoke-resp-disc", "stream": True, "input": "Say hi"})
    events = responses_events("responses disconnect", reply, terminal=False)
    check(len(events) == 3 and not reply.complete, "responses disconnect: %d events" % len(events))
    queue_behaviors(port, {"type": "stream_fault", "kind": "truncate", "after_chunks": 5,
                           "match": {"model": "smoke-resp-trunc"}})
    reply = exchange(port, "POST", RESPONSES, {"model": "smoke-resp-trunc", "stream": True, "input": "Say hi"})
    events = responses_events("responses truncate", reply, terminal=False)
    check(len(events) == 5 and reply.complete, "responses truncate: %d events, clean end" % len(events))
    queue_behaviors(port, {"type": "stream_fault", "kind": "malformed", "after_chunks": 4,
                           "match": {"model": "smoke-resp-malf"}})
    reply = exchange(port, "POST", RESPONSES, {"model": "smoke-resp-malf", "stream": True, "input": "Say hi"})
    got = frames(reply.body)
    check(len(got) > 5 and got[4][0] == "response.output_text.delta" and json_or_none(got[4][1]) is None
          and reply.complete, "responses malformed: frame 4 keeps its event: line, broken data")
    queue_behaviors(port, {"type": "fail", "status": 429, "retry_after": 1, "match": {"model": "smoke-resp-429"}})
    reply = exchange(port, "POST", RESPONSES, {"model": "smoke-resp-429", "stream": True, "input": "Say hi"})
    check(reply.status == 429 and reply.headers.get("retry-after") == "1"
          and reply.headers.get("content-type") == "application/json", "responses 429: a JSON error, no stream")
    # A scripted finish_reason "length" still ends with a response.completed *event*, status "incomplete".
    queue_behaviors(port, {"type": "reply", "text": "Cut", "finish_reason": "length",
                           "match": {"model": "smoke-resp-len"}})
    events = responses_events("responses length", exchange(
        port, "POST", RESPONSES, {"model": "smoke-resp-len", "stream": True, "input": "x"}))
    final = events[-1]["response"] if events else {}
    check(final.get("status") == "incomplete" and final.get("incomplete_details") == {"reason": "max_output_tokens"},
          "responses length: %s" % final.get("status"))

    # No stored responses, no resume: GET /v1/responses/{id} is a 404.
    reply = exchange(port, "GET", "/v1/responses/resp_x?stream=true&starting_after=3")
    check(reply.status == 404, "GET /v1/responses/{id}: %s" % reply.status)


# Scenario queue, isolation, verdicts -----------------------------------------------------------------------------

def queue_rules(port):
    # times: null is permanent until cleared; a scoped clear only drops that model's behaviours.
    queue_behaviors(port, {"type": "fail", "status": 503, "times": None, "match": {"model": "smoke-perm"}},
                    {"type": "fail", "status": 502, "times": 2, "match": {"model": "smoke-other"}})
    statuses = [exchange(port, "POST", CHAT, chat_body("smoke-perm", str(i))).status for i in range(3)]
    check(statuses == [503, 503, 503], "times null: %s" % statuses)
    check(exchange(port, "POST", CHAT, chat_body("smoke-free")).status == 200,
          "a behaviour matched to another model leaves this one alone")
    status, answer = control(port, "DELETE", "/_llmock/scoped/scenario?model=smoke-perm")
    check(status == 200 and answer == {"dropped": 1, "pending": 1}, "scoped clear: %s" % answer)
    check(exchange(port, "POST", CHAT, chat_body("smoke-perm", "3")).status == 200, "cleared")
    status, answer = control(port, "GET", "/_llmock/scenario")
    pending = (answer or {}).get("pending", [])
    check(pending == [{"status": 502, "retry_after": None, "message": None, "code": None, "times": 2,
                       "match": {"model": "smoke-other"}, "type": "fail"}], "GET /_llmock/scenario: %s" % pending)
    status, answer = control(port, "DELETE", "/_llmock/scenario")
    check(status == 200 and answer == {"pending": 0}, "DELETE /_llmock/scenario: %s" % answer)
    status, answer = control(port, "POST", "/_llmock/scenario", {"behaviors": [{"type": "nope"}]})
    check(status == 400, "an unknown behaviour type is a 400")
    # The default match of a stream fault is {"stream": true}: a non-streaming request leaves it queued.
    queue_behaviors(port, {"type": "stream_fault", "kind": "truncate", "after_chunks": 1})
    reply = exchange(port, "POST", CHAT, {"model": "smoke-nostream", "messages": [{"role": "user", "content": "hi"}]})
    check(reply.status == 200 and json_or_none(reply.body.decode())["choices"][0]["finish_reason"] == "stop",
          "non-streaming answer")
    status, answer = control(port, "GET", "/_llmock/scenario")
    check(len((answer or {}).get("pending", [])) == 1, "the stream fault waits for a streaming request")
    control(port, "DELETE", "/_llmock/scenario")


def verdicts(port):
    # The whole-server verdict, its exact keys.
    status, whole = control(port, "GET", "/_llmock/verdict")
    check(status == 200 and set(whole or {}) == {"passed", "calls", "attempts", "faults_injected", "errors",
                                                 "warnings", "findings"}, "verdict keys %s" % sorted(whole or {}))
    findings = (whole or {}).get("findings", [])
    check(findings and all(set(f) == {"severity", "code", "title", "advice", "call", "requests", "path"}
                           for f in findings), "finding keys")
    check(exchange(port, "GET", "/_llmock/verdict?format=text").body.startswith(b"LLMock resilience verdict:"),
          "verdict text")

    # What the faults above left, per model (each client call was made once, never retried).
    expect = {"smoke-text": [], "smoke-429": ["gave_up"], "smoke-500": ["gave_up"], "smoke-disc": ["gave_up"],
              "smoke-trunc": ["truncated_stream_accepted"], "smoke-malf": ["malformed_chunk_ignored"],
              "smoke-stall": [], "smoke-resp-trunc": ["truncated_stream_accepted"]}
    for model, wanted in expect.items():
        got = verdict_for(port, model)
        check(codes(got) == wanted, "verdict %s: %s, want %s" % (model, codes(got), wanted))
    trunc = verdict_for(port, "smoke-trunc")
    check(trunc.get("passed") is False and trunc.get("errors") == 1 and trunc.get("faults_injected") == 1,
          "verdict smoke-trunc: %s" % trunc)
    status, records = control(port, "GET", "/_llmock/scoped/requests?model=smoke-stall")
    record = ((records or {}).get("requests") or [{}])[0]
    check(record.get("fault") == "stream:stall@1" and record.get("completed") is False
          and 0.5 < (record.get("stall_waited") or 0) < 2, "stall record %s" % record)

    # Retries: the same body again is the same call. Too early after a 429 = retry_after_ignored; after the wait,
    # nothing; a retried truncation clears truncated_stream_accepted; retrying a 400 = retried_non_retryable.
    queue_behaviors(port, {"type": "fail", "status": 429, "retry_after": 0.4, "match": {"model": "smoke-r1"}})
    body = chat_body("smoke-r1")
    statuses = [exchange(port, "POST", CHAT, body).status, exchange(port, "POST", CHAT, body).status]
    check(statuses == [429, 200] and codes(verdict_for(port, "smoke-r1")) == ["retry_after_ignored"],
          "early retry: %s %s" % (statuses, codes(verdict_for(port, "smoke-r1"))))
    queue_behaviors(port, {"type": "fail", "status": 429, "retry_after": 0.4, "match": {"model": "smoke-r2"}})
    body = chat_body("smoke-r2")
    exchange(port, "POST", CHAT, body)
    time.sleep(0.45)
    exchange(port, "POST", CHAT, body)
    got = verdict_for(port, "smoke-r2")
    check(codes(got) == [] and got.get("passed") is True and got.get("calls") == 1 and got.get("attempts") == 2,
          "patient retry: %s" % got)
    queue_behaviors(port, {"type": "stream_fault", "kind": "truncate", "after_chunks": 2, "match": {"model": "smoke-r3"}})
    body = chat_body("smoke-r3")
    exchange(port, "POST", CHAT, body)
    exchange(port, "POST", CHAT, body)
    check(codes(verdict_for(port, "smoke-r3")) == [], "retried truncation: %s" % codes(verdict_for(port, "smoke-r3")))
    queue_behaviors(port, {"type": "stream_fault", "kind": "malformed", "after_chunks": 1,
                           "match": {"model": "smoke-r8"}})
    body = chat_body("smoke-r8")
    exchange(port, "POST", CHAT, body)
    exchange(port, "POST", CHAT, body)
    got = verdict_for(port, "smoke-r8")
    check(codes(got) == ["malformed_chunk_ignored"] and got.get("calls") == 2,
          "a malformed stream read to the end, then resent: still %s" % got)
    queue_behaviors(port, {"type": "fail", "status": 400, "match": {"model": "smoke-r4"}})
    body = chat_body("smoke-r4")
    exchange(port, "POST", CHAT, body)
    exchange(port, "POST", CHAT, body)
    check(codes(verdict_for(port, "smoke-r4")) == ["retried_non_retryable"], "retried 400")
    queue_behaviors(port, {"type": "fail", "status": 503, "retry_after": None, "times": 3,
                           "match": {"model": "smoke-r5"}})
    body = chat_body("smoke-r5")
    for _ in range(4):
        exchange(port, "POST", CHAT, body)
    # A 503 without retry_after still sends Retry-After: 1, so the journal sees a wait asked for: no no_backoff.
    check(codes(verdict_for(port, "smoke-r5")) == ["retry_after_ignored"] * 3, "503 x3: %s"
          % codes(verdict_for(port, "smoke-r5")))
    queue_behaviors(port, {"type": "fail", "status": 500, "times": 3, "match": {"model": "smoke-r6"}})
    body = chat_body("smoke-r6")
    for _ in range(4):
        exchange(port, "POST", CHAT, body)
    check(codes(verdict_for(port, "smoke-r6")) == ["no_backoff"], "500 x3 without waiting: %s"
          % codes(verdict_for(port, "smoke-r6")))
    queue_behaviors(port, {"type": "stream_fault", "kind": "stall", "after_chunks": 1, "stall_seconds": 1.1,
                           "match": {"model": "smoke-r7"}})
    reply = exchange(port, "POST", CHAT, chat_body("smoke-r7"))
    check(reply.complete and codes(verdict_for(port, "smoke-r7")) == ["no_read_timeout"],
          "sat through a stall: %s" % codes(verdict_for(port, "smoke-r7")))

    # Reset forgets requests and behaviours (for every model).
    queue_behaviors(port, {"type": "delay", "seconds": 1})
    status, answer = control(port, "POST", "/_llmock/reset")
    check(status == 200 and answer == {"reset": True}, "reset")
    status, records = control(port, "GET", "/_llmock/requests")
    status2, pending = control(port, "GET", "/_llmock/scenario")
    check(records == {"count": 0, "requests": []} and pending == {"pending": []}, "after reset: %s %s"
          % (records, pending))


def sigterm_mid_stall():
    """A second server, stopped by SIGTERM while a stalled stream is in flight: it must not wait the stall out."""
    server = Server("--no-stdin-watch")
    queue_behaviors(server.port, {"type": "stream_fault", "kind": "stall", "after_chunks": 1})
    threading.Thread(target=lambda: exchange(server.port, "POST", CHAT, chat_body("smoke-term"), read_timeout=20),
                     daemon=True).start()
    time.sleep(0.5)
    started = time.monotonic()
    server.process.send_signal(signal.SIGTERM)
    try:
        code = server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        code = None
        server.process.kill()
    # It exited on the signal, within wait()'s 10 s, rather than being killed; how fast is printed, not checked.
    check(code in (-signal.SIGTERM, 0),
          "SIGTERM mid-stall: exit %s after %.1fs" % (code, time.monotonic() - started))


def paced():
    """--chunk-delay-ms: a client that stops reading at a malformed chunk closes before LLMock has sent the
    last one, so that attempt is not `completed` (it failed) and the same body sent again is its retry, which
    clears malformed_chunk_ignored. Unpaced, LLMock has written the whole stream before the client reads the
    broken chunk: the attempt completed, a resend is a new call, and the warning stays (see verdicts())."""
    server = Server("--chunk-delay-ms", "200")
    try:
        reply = exchange(server.port, "POST", CHAT, chat_body("smoke-paced"))
        check(reply.complete and reply.elapsed >= 1.2, "--chunk-delay-ms 200: %.2fs" % reply.elapsed)
        queue_behaviors(server.port, {"type": "stream_fault", "kind": "malformed", "after_chunks": 1})
        body = chat_body("smoke-paced-malf")
        reply = exchange(server.port, "POST", CHAT, body, give_up_after=0.1)
        got = frames(reply.body)
        check(reply.timed_out and len(got) == 2 and json_or_none(got[1][1]) is None, "paced malformed: %d" % len(got))
        time.sleep(0.1)
        got = verdict_for(server.port, "smoke-paced-malf")
        check(codes(got) == ["malformed_chunk_ignored"], "stopped reading, no retry: %s" % codes(got))
        check(exchange(server.port, "POST", CHAT, body).complete, "paced retry")
        got = verdict_for(server.port, "smoke-paced-malf")
        check(codes(got) == [] and got.get("calls") == 1 and got.get("attempts") == 2,
              "stopped reading, then retried: %s" % got)
    finally:
        server.stop()


def main():
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write-captures", action="store_true", help="save every raw response under captures/")
    ARGS = parser.parse_args()
    started = time.monotonic()
    server = Server()
    try:
        status, health = control(server.port, "GET", "/health")
        check(status == 200 and health == {"status": "ok", "version": "0.2.2"}, "health: %s" % health)
        control(server.port, "POST", "/_llmock/reset")
        chat_scenarios(server.port)
        chat_faults(server.port)
        responses_scenarios(server.port)
        queue_rules(server.port)
        verdicts(server.port)
    finally:
        server.stop()
    check(server.process.returncode == 0, "stdin EOF: exit %s" % server.process.returncode)
    sigterm_mid_stall()
    paced()
    print("%s: %d checks in %.1fs%s" % ("FAILED (%d)" % len(FAILURES) if FAILURES else "OK", CHECKS[0],
                                        time.monotonic() - started, ", captures written" if ARGS.write_captures else ""))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
