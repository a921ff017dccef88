"""Smoke test of the producers, without Swift: starts each server (reading `LISTENING <port>`), runs every
scenario once over urllib, checks the status and the event (AG-UI) or chunk (AI SDK UI message stream) types
in order, and stops them. Exits 1 on any failure. Run it with the environment's python (make-venv.sh prints it):

  .build/agent-venv/bin/python Tests/AgentProducers/smoke_test.py [--write-captures]

Servers: pydantic_agent_server.py (AG-UI at /agent, Vercel AI at /vercel/v5/chat and /vercel/v6/chat),
scripted_server.py (AG-UI edge cases) and aisdk_scripted_server.py (AI SDK edge cases and the resume endpoint).

--write-captures also saves each raw response as captures/<server>-<scenario>.sse (pydantic-, scripted-,
vercel-v5-, vercel-v6-, aisdk-) and, except for scripted-, the request body beside it as .request.json
(timestamps and generated IDs differ run to run).
"""

import argparse
import json
import os
import queue
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from http.client import IncompleteRead

HERE = os.path.dirname(os.path.abspath(__file__))
CAPTURES = os.path.join(HERE, "captures")

RS, RF, RE = "RUN_STARTED", "RUN_FINISHED", "RUN_ERROR"
TMS, TMC, TME = "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END"
TCS, TCA, TCE, TCR = "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT"
RSTART, REND = "REASONING_START", "REASONING_END"
RMS, RMC, RME = "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_END"
REV = "REASONING_ENCRYPTED_VALUE"

FAILURES = []


def check(condition, what):
    if not condition:
        FAILURES.append(what)
        print("FAIL  " + what)
    return condition


class Server:
    """One producer, as the Swift tests start it: its stdin is a pipe we hold; closing it stops the server."""

    def __init__(self, script):
        self.process = subprocess.Popen(
            [sys.executable, os.path.join(HERE, script), "--port", "0"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        lines = queue.Queue()
        threading.Thread(target=lambda: lines.put(self.process.stdout.readline()), daemon=True).start()
        try:
            line = lines.get(timeout=30).decode()
        except queue.Empty:
            line = ""
        if not line.startswith("LISTENING "):
            self.stop()
            raise SystemExit("%s did not announce a port (got %r)" % (script, line))
        self.base = "http://127.0.0.1:%d" % int(line.split()[1])

    def stop(self):
        # EOF on stdin is how a test that goes away stops its server; check it works.
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            check(False, "a server did not stop when its stdin closed")
            self.process.terminate()
            self.process.wait(timeout=10)


def post(url, body, headers=None):
    """Status, Content-Type, raw body (as far as it came) and whether the body ended short of its length."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="POST", headers=headers or {
        "Content-Type": "application/json", "Accept": "text/event-stream"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            try:
                return response.status, response.headers.get("Content-Type"), response.read(), False
            except IncompleteRead as short:
                return response.status, response.headers.get("Content-Type"), short.partial, True
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type"), error.read(), False


def events_of(raw):
    """The JSON events of an SSE body, in order (LF framing, data lines only)."""
    events = []
    for block in raw.decode().split("\n\n"):
        data = [line[5:].lstrip(" ") for line in block.split("\n") if line.startswith("data:")]
        if data:
            events.append(json.loads("\n".join(data)))
    return events


def save(name, raw, request=None):
    if not ARGS.write_captures:
        return
    os.makedirs(CAPTURES, exist_ok=True)
    with open(os.path.join(CAPTURES, name + ".sse"), "wb") as file:
        file.write(raw)
    if request is not None:
        with open(os.path.join(CAPTURES, name + ".request.json"), "w") as file:
            json.dump(request, file, indent=2)
            file.write("\n")


def expect_stream(label, status, content_type, raw, types):
    check(status == 200, "%s: status %s" % (label, status))
    check((content_type or "").startswith("text/event-stream"), "%s: Content-Type %s" % (label, content_type))
    events = events_of(raw)
    got = [event["type"] for event in events]
    check(got == types, "%s: events\n      got  %s\n      want %s" % (label, got, types))
    return events


def text_of(events):
    return "".join(event.get("delta", "") for event in events if event["type"] == TMC)


# Pydantic AI ----------------------------------------------------------------------------------------------

PICK_COLOR = {"name": "pick_color", "description": "Ask the user for a color",
              "parameters": {"type": "object", "properties": {}}}


def run_input(run, messages, **extra):
    body = {"threadId": "thread-smoke", "runId": run, "protocolVersion": "1.0", "state": {},
            "messages": messages, "tools": [], "context": [], "forwardedProps": {}}
    body.update(extra)
    return body


def assistant_with_calls(events):
    """The assistant message a client holds after a run that called tools: the calls on their parent message."""
    calls, parent = {}, None
    for event in events:
        if event["type"] == TCS:
            parent = parent or event.get("parentMessageId") or event["toolCallId"]
            calls[event["toolCallId"]] = {"id": event["toolCallId"], "type": "function",
                                          "function": {"name": event["toolCallName"], "arguments": ""}}
        elif event["type"] == TCA:
            calls[event["toolCallId"]]["function"]["arguments"] += event["delta"]
    return {"id": parent, "role": "assistant", "toolCalls": list(calls.values())}


def pydantic(server):
    url = server.base + "/agent"

    def run(name, body, types):
        status, content_type, raw, _ = post(url, body)
        save("pydantic-" + name, raw, body)
        events = expect_stream("pydantic " + name, status, content_type, raw, types)
        if events and events[0]["type"] == RS:
            check(events[0].get("runId") == body["runId"] and events[-1].get("runId") == body["runId"],
                  "pydantic %s: the run does not echo runId %s" % (name, body["runId"]))
            check(events[0].get("protocolVersion") == "1.0", "pydantic %s: protocolVersion" % name)
        return events

    def user(text):
        return {"id": "user-1", "role": "user", "content": text}

    events = run("hello", run_input("run-hello", [user("hello there")]), [RS, TMS, TMC, TMC, TMC, TME, RF])
    check(text_of(events) == "Hello! How can I help?", "pydantic hello: text %r" % text_of(events))

    events = run("think", run_input("run-think", [user("think about it")]),
                 [RS, RSTART, RMS, RMC, RMC, RME, REND, TMS, TMC, TME, RF])
    check(text_of(events) == "Here is my considered answer.", "pydantic think: text")

    events = run("weather", run_input("run-weather", [user("weather in Berlin?")]),
                 [RS, TMS, TME, TCS, TCA, TCA, TCE, TCR, TMS, TMC, TMC, TME, RF])
    results = [event for event in events if event["type"] == TCR]
    check(results and json.loads(results[0]["content"]) == {"city": "Berlin", "forecast": "sunny"},
          "pydantic weather: the tool result")

    # The app's tool: the run ends pending; the next run carries the call and the app's answer.
    asked = [user("pick a color")]
    events = run("color", run_input("run-color", asked, tools=[PICK_COLOR]), [RS, TMS, TME, TCS, TCA, TCE, RF])
    outcome = events[-1].get("outcome", {}) if events else {}
    check(outcome == {"type": "success", "pendingToolCallIds": ["call_color"]}, "pydantic color: outcome %s" % outcome)
    answered = asked + [assistant_with_calls(events),
                        {"id": "tool-1", "role": "tool", "toolCallId": "call_color", "content": "teal"}]
    events = run("color-continue", run_input("run-color-2", answered, tools=[PICK_COLOR]),
                 [RS, TMS, TMC, TMC, TME, RF])
    check(text_of(events) == "The pick_color tool said: teal", "pydantic color-continue: text")

    # The approval: the run ends with an interrupt; a resume approves or denies it.
    asked = [user("delete a.txt")]
    events = run("delete", run_input("run-delete", asked), [RS, TMS, TME, TCS, TCA, TCE, RF])
    outcome = events[-1].get("outcome", {}) if events else {}
    interrupts = outcome.get("interrupts") or [{}]
    check(outcome.get("type") == "interrupt" and interrupts[0].get("id") == "int-call_delete"
          and interrupts[0].get("toolCallId") == "call_delete" and "responseSchema" in interrupts[0],
          "pydantic delete: outcome %s" % outcome)
    held = asked + [assistant_with_calls(events)]

    def resume(payload=None, status="resolved"):
        entry = {"interruptId": "int-call_delete", "status": status}
        if payload is not None:
            entry["payload"] = payload
        return [entry]

    events = run("delete-approve", run_input("run-delete-2", held, parentRunId="run-delete",
                                             resume=resume({"approved": True})),
                 [RS, TCR, TMS, TMC, TMC, TME, RF])
    check(text_of(events) == "The delete_files tool said: deleted a.txt", "pydantic delete-approve: text")
    events = run("delete-deny", run_input("run-delete-3", held, parentRunId="run-delete",
                                          resume=resume({"approved": False, "reason": "Keep it"})),
                 [RS, TCR, REV, TMS, TMC, TMC, TME, RF])
    check(text_of(events) == "I did not run delete_files: Keep it", "pydantic delete-deny: text")

    # Input it refuses: 422 with pydantic's validation errors, no stream.
    bad = {"threadId": 1, "messages": []}
    status, content_type, raw, _ = post(url, bad)
    save("pydantic-invalid", raw, bad)
    check(status == 422 and content_type == "application/json", "pydantic invalid: %s %s" % (status, content_type))

    # The same agent through the Vercel AI adapter.
    vercel(server, 5)
    vercel(server, 6)

    # "hold <gate>" streams its second part once its gate is open (opened first here, so it streams at once);
    # /requests notes when each request came in and its response ended, in ticks of one counter.
    opened = fetch(server.base + "/gates/smoke-gate", method="POST")
    check(opened.status == 200 and json.loads(opened.raw) == {"opened": "smoke-gate"},
          "gates: %s %r" % (opened.status, opened.raw))
    hold = fetch(server.base + "/vercel/v6/chat", chat_request("chat-smoke-hold", [ui_user("hold smoke-gate")]))
    chunks = expect_ui_stream("vercel-v6 hold", hold, [START, SS, TS, TD, TD, TE, MM, FS, FINISH, DONE])
    check(ui_text(chunks) == "Part one, part two.", "vercel-v6 hold: text %r" % ui_text(chunks))
    recorded = json.loads(fetch(server.base + "/requests").raw)
    last = recorded[-1]
    check(last["body"]["id"] == "chat-smoke-hold" and last["completed"] is True and last["started"] < last["ended"],
          "/requests: the hold request %s" % {key: last[key] for key in ("started", "ended", "completed")})
    check(all(entry["ended"] < last["started"] for entry in recorded[:-1]),
          "/requests: an earlier response ended after the last request came in")


# The scripted server --------------------------------------------------------------------------------------

SCRIPTED = {
    "text": [RS, TMS, TMC, TMC, TMC, TME, RF],
    "chunks": [RS, "TEXT_MESSAGE_CHUNK", "TEXT_MESSAGE_CHUNK", "TEXT_MESSAGE_CHUNK", "TOOL_CALL_CHUNK",
               "TOOL_CALL_CHUNK", RF],
    "error-first": [RE],
    "error-mid": [RS, TMS, TMC, RE],
    "truncated": [RS, TMS, TMC],
    "truncated-eof": [RS, TMS, TMC],
    "reopened": [RS, TMS, TMC, TME, TMS, TMC, TME, RF],
    "two-runs": [RS, "MESSAGES_SNAPSHOT", RF, RS, TMS, TMC, TME, RF],
    "state": [RS, "STATE_SNAPSHOT", "STATE_DELTA", "STATE_DELTA", TMS, TMC, TME, RF],
    "cancelled": [RS, TMS, TMC, TME, RF],
    "interrupt": [RS, TMS, TMC, TME, RF],
    "pending-tool": [RS, TCS, TCA, TCA, TCE, RF],
    "violation": [RS, TMS, TMC, TME, TMC, RF],
    "reasoning": [RS, RSTART, RMS, RMC, RME, REV, REND, TMS, TMC, TME, RF],
}


def scripted(server):
    def url(name):
        return server.base + "/scenario/" + name

    body = run_input("run-scripted", [{"id": "user-1", "role": "user", "content": "Go"}], tools=[
        {"name": "choose_plan", "description": "Let the user choose a plan"}])
    for name, types in SCRIPTED.items():
        status, content_type, raw, short = post(url(name), body)
        save("scripted-" + name, raw)
        events = expect_stream("scripted " + name, status, content_type, raw, types)
        check(short == (name == "truncated"), "scripted %s: the body ended short: %s" % (name, short))
        runs = [event for event in events if event["type"] in (RS, RF)]
        requested = [event for event in runs if event.get("runId") == "run-scripted"]
        check(name in ("error-first", "error-mid", "truncated", "truncated-eof") or len(requested) == 2,
              "scripted %s: RUN_STARTED/RUN_FINISHED do not carry the request's runId" % name)
        check(all(event.get("threadId") == "thread-smoke" for event in runs), "scripted %s: threadId" % name)
        last = events[-1] if events else {}
        if name == "cancelled":
            check(last.get("outcome") == {"type": "cancelled"}, "scripted cancelled: outcome")
        if name == "interrupt":
            interrupts = (last.get("outcome") or {}).get("interrupts") or [{}]
            check(last["outcome"]["type"] == "interrupt" and interrupts[0].get("reason") == "confirm"
                  and "responseSchema" in interrupts[0], "scripted interrupt: outcome %s" % last.get("outcome"))
        if name == "pending-tool":
            check(events[1].get("toolCallName") == "choose_plan", "scripted pending-tool: the advertised tool's name")
            check(last.get("outcome") == {"type": "success", "pendingToolCallIds": ["call-1"]},
                  "scripted pending-tool: outcome %s" % last.get("outcome"))
        if name == "error-first":
            check(last.get("code") == "AGENT_UNAVAILABLE" and "message" in last, "scripted error-first: the error")

    status, content_type, raw, _ = post(url("reject"), body)
    save("scripted-reject", raw)
    check(status == 422 and content_type == "application/json" and "error" in json.loads(raw),
          "scripted reject: %s %s" % (status, content_type))

    status, content_type, raw, _ = post(url("not-sse"), body)
    save("scripted-not-sse", raw)
    check(status == 200 and content_type == "application/json", "scripted not-sse: %s %s" % (status, content_type))

    # slow: hang up after the first bytes; the server records that its writes failed.
    request = urllib.request.Request(url("slow"), data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "Accept": "text/event-stream"})
    response = urllib.request.urlopen(request, timeout=30)
    first = response.read1(64) if hasattr(response, "read1") else response.read(64)
    check(first.startswith(b"data: "), "scripted slow: the first bytes %r" % first)
    response.close()

    with urllib.request.urlopen(server.base + "/requests", timeout=30) as answer:
        recorded = json.loads(answer.read())
    closed = False
    for _ in range(60):
        with urllib.request.urlopen(server.base + "/requests", timeout=30) as answer:
            recorded = json.loads(answer.read())
        closed = bool(recorded) and recorded[-1]["path"] == "/scenario/slow" and recorded[-1]["closed"]
        if closed:
            break
        time.sleep(0.2)
    check(closed, "scripted slow: the server did not notice the client hang up")
    check(len(recorded) == len(SCRIPTED) + 3, "scripted /requests: %d recorded" % len(recorded))
    check(all(entry["body"] == body and entry["accept"] == "text/event-stream" for entry in recorded),
          "scripted /requests: the bodies as sent")


# The AI SDK UI message stream ------------------------------------------------------------------------------

DONE = "[DONE]"
START, FINISH, SS, FS = "start", "finish", "start-step", "finish-step"
TS, TD, TE = "text-start", "text-delta", "text-end"
RS5, RD5, RE5 = "reasoning-start", "reasoning-delta", "reasoning-end"
TIS, TID, TIA, TIE = "tool-input-start", "tool-input-delta", "tool-input-available", "tool-input-error"
TOA, TOE, TOD, TAR = "tool-output-available", "tool-output-error", "tool-output-denied", "tool-approval-request"
MM = "message-metadata"


class Reply:
    """One HTTP answer: status, headers, the raw body as far as it came, and whether it ended short."""

    def __init__(self, status, headers, raw, short):
        self.status, self.headers, self.raw, self.short = status, headers, raw, short
        self.content_type = headers.get("Content-Type") or ""


def fetch(url, body=None, headers=None, method=None):
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    if headers is None:
        headers = {"Content-Type": "application/json"} if data is not None else {}
    request = urllib.request.Request(url, data=data, method=method or ("POST" if data is not None else "GET"),
                                     headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            try:
                return Reply(response.status, response.headers, response.read(), False)
            except IncompleteRead as short:
                return Reply(response.status, response.headers, short.partial, True)
    except urllib.error.HTTPError as error:
        return Reply(error.code, error.headers, error.read(), False)


def chunks_of(raw):
    """The chunks of a UI message stream body, in order: dicts, DONE, or the text of a data line that is not
    JSON (LF framing, data lines only)."""
    chunks = []
    for block in raw.decode().split("\n\n"):
        data = [line[5:].lstrip(" ") for line in block.split("\n") if line.startswith("data:")]
        if not data:
            continue
        payload = "\n".join(data)
        try:
            chunks.append(DONE if payload == DONE else json.loads(payload))
        except ValueError:
            chunks.append(payload)
    return chunks


def types_of(chunks):
    return [chunk["type"] if isinstance(chunk, dict) else chunk for chunk in chunks]


def ui_text(chunks):
    return "".join(chunk.get("delta", "") for chunk in chunks if isinstance(chunk, dict) and chunk["type"] == TD)


def expect_ui_stream(label, reply, types, done=True):
    check(reply.status == 200, "%s: status %s" % (label, reply.status))
    check(reply.content_type.startswith("text/event-stream"), "%s: Content-Type %s" % (label, reply.content_type))
    check(reply.headers.get("x-vercel-ai-ui-message-stream") == "v1",
          "%s: x-vercel-ai-ui-message-stream %r" % (label, reply.headers.get("x-vercel-ai-ui-message-stream")))
    check(reply.raw.endswith(b"data: [DONE]\n\n") == done, "%s: ends with [DONE]: %s" % (label, not done))
    chunks = chunks_of(reply.raw)
    got = types_of(chunks)
    check(got == types, "%s: chunks\n      got  %s\n      want %s" % (label, got, types))
    return chunks


def chat_request(chat, messages, **extra):
    """What `useChat`'s DefaultChatTransport posts (messageId only when the SDK sets it: a continuation)."""
    body = {"id": chat, "messages": messages, "trigger": "submit-message"}
    body.update(extra)
    return body


def ui_user(text, message_id="user-1"):
    return {"id": message_id, "role": "user", "parts": [{"type": "text", "text": text}]}


def ui_assistant(chunks, fallback_id="assistant-1"):
    """The assistant UIMessage a `useChat` client holds after these chunks (what processUIMessageStream
    builds; undefined fields left out, as JSON.stringify does), to send back in the next request."""
    message = {"id": fallback_id, "role": "assistant", "parts": []}
    texts, tools = {}, {}
    for chunk in chunks:
        if not isinstance(chunk, dict):
            continue
        kind = chunk["type"]
        if kind == START and chunk.get("messageId"):
            message["id"] = chunk["messageId"]
        if kind in (START, FINISH, MM) and chunk.get("messageMetadata") is not None:
            message["metadata"] = {**message.get("metadata", {}), **chunk["messageMetadata"]}
        if kind == SS:
            message["parts"].append({"type": "step-start"})
        elif kind in (TS, RS5):
            part = {"type": "text" if kind == TS else "reasoning", "text": "", "state": "streaming"}
            texts[chunk["id"]] = part
            message["parts"].append(part)
        elif kind in (TD, RD5):
            texts[chunk["id"]]["text"] += chunk["delta"]
        elif kind in (TE, RE5):
            texts[chunk["id"]]["state"] = "done"
            if chunk.get("providerMetadata"):
                texts[chunk["id"]]["providerMetadata"] = chunk["providerMetadata"]
        elif kind in (TIS, TIA):
            part = tools.get(chunk["toolCallId"])
            if part is None:
                part = tools[chunk["toolCallId"]] = {"type": "tool-" + chunk["toolName"], "toolCallId": chunk["toolCallId"]}
                message["parts"].append(part)
            part["state"] = "input-streaming" if kind == TIS else "input-available"
            if kind == TIA:
                part["input"] = chunk["input"]
        elif kind == TAR:
            tools[chunk["toolCallId"]].update(state="approval-requested", approval={"id": chunk["approvalId"]})
        elif kind == TOA:
            tools[chunk["toolCallId"]].update(state="output-available", output=chunk["output"])
        elif kind == TOE:
            tools[chunk["toolCallId"]].update(state="output-error", errorText=chunk["errorText"])
        elif kind == TOD:
            tools[chunk["toolCallId"]]["state"] = "output-denied"
    return message


def answered(message, tool_call_id, **fields):
    """The message after addToolOutput / addToolApprovalResponse changed the part of `tool_call_id`."""
    message = json.loads(json.dumps(message))
    for part in message["parts"]:
        if part.get("toolCallId") == tool_call_id:
            part.update(fields)
    return message


def vercel(server, version):
    url = server.base + "/vercel/v%d/chat" % version
    label = "vercel-v%d" % version

    def run(name, body, types):
        reply = fetch(url, body)
        save("%s-%s" % (label, name), reply.raw, body)
        chunks = expect_ui_stream("%s %s" % (label, name), reply, types)
        check(not chunks or chunks[0] == {"type": START}, "%s %s: start %s" % (label, name, chunks[:1]))
        return chunks

    chat = "chat-smoke-v%d" % version
    meta_end = [MM, FS, FINISH, DONE]
    chunks = run("hello", chat_request(chat, [ui_user("hello there")]), [START, SS, TS, TD, TD, TD, TE] + meta_end)
    check(ui_text(chunks) == "Hello! How can I help?", "%s hello: text %r" % (label, ui_text(chunks)))
    check(chunks[-4].get("messageMetadata", {}).get("pydantic_ai", {}).get("timestamp"),
          "%s hello: message-metadata %s" % (label, chunks[-4]))
    check(chunks[-2] == {"type": FINISH}, "%s hello: finish %s" % (label, chunks[-2]))

    chunks = run("think", chat_request(chat, [ui_user("think about it")]),
                 [START, SS, RS5, RD5, RD5, RE5, TS, TD, TE] + meta_end)
    check(ui_text(chunks) == "Here is my considered answer.", "%s think: text" % label)

    chunks = run("weather", chat_request(chat, [ui_user("weather in Berlin?")]),
                 [START, SS, TIS, TID, TID, TIA, TOA, FS, SS, TS, TD, TD, TE] + meta_end)
    outputs = [chunk for chunk in chunks if chunk != DONE and chunk["type"] == TOA]
    check(outputs and outputs[0]["output"] == {"city": "Berlin", "forecast": "sunny"}, "%s weather: output" % label)

    # The app's tool: the stream ends after its input; the next request carries the client's output.
    asked = [ui_user("pick a color")]
    chunks = run("color", chat_request(chat, asked), [START, SS, TIS, TID, TIA] + meta_end)
    held = ui_assistant(chunks)
    check(held["parts"][-1] == {"type": "tool-pick_color", "toolCallId": "call_color", "state": "input-available",
                                "input": {}}, "%s color: the client's part %s" % (label, held["parts"][-1]))
    given = answered(held, "call_color", state="output-available", output="teal")
    chunks = run("color-continue", chat_request(chat, asked + [given], messageId=given["id"]),
                 [START, SS, TS, TD, TD, TE] + meta_end)
    check(ui_text(chunks) == "The pick_color tool said: teal", "%s color-continue: text %r" % (label, ui_text(chunks)))

    # The approval: v6 asks with tool-approval-request and takes approval-responded; v5 has neither.
    asked = [ui_user("delete a.txt")]
    chunks = run("delete", chat_request(chat, asked),
                 [START, SS, TIS, TID, TIA, MM] + ([TAR] if version >= 6 else []) + [FS, FINISH, DONE])
    held = ui_assistant(chunks)
    if version >= 6:
        requests = [chunk for chunk in chunks if chunk != DONE and chunk["type"] == TAR]
        check(requests == [{"type": TAR, "approvalId": "call_delete", "toolCallId": "call_delete"}],
              "%s delete: %s" % (label, requests))
        approve = answered(held, "call_delete", state="approval-responded",
                           approval={"id": "call_delete", "approved": True})
        deny = answered(held, "call_delete", state="approval-responded",
                        approval={"id": "call_delete", "approved": False, "reason": "Keep it"})
        approved_types = [START, TIA, TOA, SS, TS, TD, TD, TE] + meta_end
        denied_types = [START, TOD, SS, TS, TD, TD, TE] + meta_end
        approved_text, denied_text = "The delete_files tool said: deleted a.txt", "I did not run delete_files: Keep it"
    else:
        # v5: the client answers the call itself (addToolResult); the tool never runs on the server.
        approve = answered(held, "call_delete", state="output-available", output="Yes, confirmed.")
        deny = answered(held, "call_delete", state="output-error", errorText="No, denied: Keep it")
        approved_types = denied_types = [START, SS, TS, TD, TD, TE] + meta_end
        approved_text, denied_text = ("The delete_files tool said: Yes, confirmed.",
                                      "The delete_files tool said: No, denied: Keep it")
    chunks = run("delete-approve", chat_request(chat, asked + [approve], messageId=approve["id"]), approved_types)
    check(ui_text(chunks) == approved_text, "%s delete-approve: text %r" % (label, ui_text(chunks)))
    chunks = run("delete-deny", chat_request(chat, asked + [deny], messageId=deny["id"]), denied_types)
    check(ui_text(chunks) == denied_text, "%s delete-deny: text %r" % (label, ui_text(chunks)))
    if version < 6:
        # An approval-responded part means nothing to v5: the call is dropped and the model calls it again.
        ignored = answered(held, "call_delete", state="approval-responded",
                           approval={"id": "call_delete", "approved": True})
        run("delete-approval-responded", chat_request(chat, asked + [ignored], messageId=ignored["id"]),
            [START, SS, TIS, TID, TIA] + meta_end)

    bad = {"id": 1, "messages": []}
    reply = fetch(url, bad)
    save(label + "-invalid", reply.raw, bad)
    check(reply.status == 422 and reply.content_type == "application/json",
          "%s invalid: %s %s" % (label, reply.status, reply.content_type))


# The scripted AI SDK server -------------------------------------------------------------------------------

def step(*body, finish="stop"):
    return [START, SS, *body, FS, FINISH, DONE]


TEXT3 = [TS, TD, TD, TD, TE]
AISDK = {
    "text": step(*TEXT3),
    "reasoning": step(RS5, RD5, RD5, RE5, TS, TD, TE),
    "tools": [START, SS, TIS, TID, TID, TIA, TOA, FS, SS, TS, TD, TD, TE, FS, FINISH, DONE],
    "tools-dynamic": step(TIS, TID, TIA, TOA, TOA, TOA, TS, TD, TE),
    "tool-error": [START, SS, TIS, TID, TIE, TIS, TIA, TOE, FS, SS, TS, TD, TE, FS, FINISH, DONE],
    "approval": step(TIS, TID, TIA, TAR),
    "app-tool": step(TIS, TID, TIA),
    "sources-files": step("source-url", "source-document", "file", TS, TD, TE),
    "data-parts": step("data-progress", "data-progress", "data-notice", "data-weather", MM, TS, TD, TE),
    "error": [START, SS, TS, TD, "error", DONE],
    "abort": [START, SS, TS, TD, "abort", DONE],
    "truncated": [START, SS, TS, TD],
    "no-done": [START, SS, TS, TD, TE, FS, FINISH],
    "malformed": [START, SS, TS, TD, '{"type": "text-delta", "id": "text-1", "delta": ', "mystery-chunk", TD, TE, FS,
                  FINISH, DONE],
}
FINISH_REASONS = {"approval": "tool-calls", "app-tool": "tool-calls"}


def aisdk(server):
    def url(name):
        return server.base + "/scenario/" + name

    chat = "chat-smoke"
    asked = [ui_user("Go")]
    body = chat_request(chat, asked)
    headers = {"Content-Type": "application/json", "Authorization": "Bearer smoke-token"}
    for name, types in AISDK.items():
        reply = fetch(url(name), body, headers)
        save("aisdk-" + name, reply.raw, body)
        chunks = expect_ui_stream("aisdk " + name, reply, types, done=DONE in types)
        check(reply.headers.get("Cache-Control") == "no-cache", "aisdk %s: Cache-Control" % name)
        check(reply.short == (name == "truncated"), "aisdk %s: the body ended short: %s" % (name, reply.short))
        check(chunks[:1] == [{"type": START, "messageId": "msg-" + name}] or name == "data-parts",
              "aisdk %s: start %s" % (name, chunks[:1]))
        finishes = [chunk for chunk in chunks if isinstance(chunk, dict) and chunk["type"] == FINISH]
        if finishes:
            check(finishes[0].get("finishReason") == FINISH_REASONS.get(name, "stop"),
                  "aisdk %s: finish %s" % (name, finishes[0]))
        if name == "data-parts":
            held = ui_assistant(chunks)
            check(chunks[0].get("messageMetadata") == {"model": "scripted"}, "aisdk data-parts: start metadata")
            check(finishes and finishes[0].get("messageMetadata") == {"finishedAt": "2026-12-03T00:00:00Z"},
                  "aisdk data-parts: finish metadata")
            progress = [chunk for chunk in chunks if isinstance(chunk, dict) and chunk["type"] == "data-progress"]
            check([chunk.get("id") for chunk in progress] == ["progress-1", "progress-1"]
                  and progress[1]["data"] == {"percent": 100}, "aisdk data-parts: progress %s" % progress)
            check(chunks[4].get("transient") is True, "aisdk data-parts: transient %s" % chunks[4])
        if name == "error":
            check(chunks[-2].get("errorText") == "The model went away.", "aisdk error: %s" % chunks[-2])
        if name == "abort":
            check(chunks[-2].get("reason") == "The run was stopped.", "aisdk abort: %s" % chunks[-2])
        if name == "tool-error":
            check(chunks[4].get("errorText") and chunks[4].get("input") == '{"id": 4', "aisdk tool-error: %s" % chunks[4])

    # The other framings of a body cut off: a clean EOF (no length), or a Content-Length it falls short of.
    for framing, short in (("close", False), ("length", True)):
        reply = fetch(url("truncated") + "?framing=" + framing, body)
        expect_ui_stream("aisdk truncated framing=%s" % framing, reply, AISDK["truncated"], done=False)
        check(reply.short == short, "aisdk truncated framing=%s: ended short %s" % (framing, reply.short))
    reply = fetch(url("text") + "?framing=length", body)
    expect_ui_stream("aisdk text framing=length", reply, AISDK["text"])
    check(reply.headers.get("Content-Length") == str(len(reply.raw)), "aisdk text framing=length: Content-Length")

    # Each fault of malformed alone.
    for fault, bad in (("not-json", ['{"type": "text-delta", "id": "text-1", "delta": ']), ("unknown", ["mystery-chunk"]),
                       ("orphan", [TD])):
        reply = fetch(url("malformed") + "?fault=" + fault, body)
        chunks = expect_ui_stream("aisdk malformed fault=%s" % fault, reply, [START, SS, TS, TD, *bad, TE, FS, FINISH, DONE])
        if fault == "orphan":
            check(chunks[4].get("id") == "text-ghost", "aisdk malformed orphan: %s" % chunks[4])

    # The approval, answered both ways (the client sends the message back with the part approval-responded).
    chunks = chunks_of(fetch(url("approval"), body).raw)
    held = ui_assistant(chunks)
    check(held["parts"][-1] == {"type": "tool-delete_files", "toolCallId": "call-delete", "state": "approval-requested",
                                "input": {"paths": ["a.txt"]}, "approval": {"id": "approval-1"}},
          "aisdk approval: the client's part %s" % held["parts"][-1])
    for answer, approval, types, said in (
            ("approve", {"id": "approval-1", "approved": True}, step(TOA, TS, TD, TE), "Deleted a.txt."),
            ("deny", {"id": "approval-1", "approved": False, "reason": "Keep it"}, step(TOD, TS, TD, TD, TE),
             "I did not delete a.txt: Keep it")):
        message = answered(held, "call-delete", state="approval-responded", approval=approval)
        request = chat_request(chat, asked + [message], messageId=message["id"])
        reply = fetch(url("approval"), request)
        save("aisdk-approval-" + answer, reply.raw, request)
        chunks = expect_ui_stream("aisdk approval-" + answer, reply, types)
        check(chunks[0] == {"type": START, "messageId": "msg-approval"}, "aisdk approval-%s: start %s" % (answer, chunks[0]))
        check(ui_text(chunks) == said, "aisdk approval-%s: text %r" % (answer, ui_text(chunks)))
    unanswered = chat_request(chat, asked + [held], messageId=held["id"])
    reply = fetch(url("approval"), unanswered)
    check(reply.status == 400, "aisdk approval unanswered: status %s" % reply.status)

    # The app's tool, answered with an output and with an error.
    chunks = chunks_of(fetch(url("app-tool"), body).raw)
    held = ui_assistant(chunks)
    for answer, fields, said in (("continue", {"state": "output-available", "output": "teal"}, 'You picked "teal".'),
                                 ("error", {"state": "output-error", "errorText": "No colors today"},
                                  "The color picker failed: No colors today")):
        message = answered(held, "call-color", **fields)
        request = chat_request(chat, asked + [message], messageId=message["id"])
        reply = fetch(url("app-tool"), request)
        save("aisdk-app-tool-" + answer, reply.raw, request)
        chunks = expect_ui_stream("aisdk app-tool-" + answer, reply, step(TS, *[TD] * (3 if answer == "continue" else 2), TE))
        check(ui_text(chunks) == said, "aisdk app-tool-%s: text %r" % (answer, ui_text(chunks)))

    # by-message: the latest user message names the scenario.
    reply = fetch(url("by-message"), chat_request(chat, [ui_user("reasoning")]))
    expect_ui_stream("aisdk by-message", reply, AISDK["reasoning"])

    reply = fetch(url("reject"), body)
    save("aisdk-reject", reply.raw, body)
    check(reply.status == 422 and reply.content_type == "application/json" and "error" in json.loads(reply.raw),
          "aisdk reject: %s %s" % (reply.status, reply.content_type))
    reply = fetch(url("not-stream"), body)
    save("aisdk-not-stream", reply.raw, body)
    check(reply.status == 200 and reply.content_type == "application/json" and json.loads(reply.raw)["role"] == "assistant",
          "aisdk not-stream: %s %s" % (reply.status, reply.content_type))

    resumable(server, url)

    # slow: hang up after the first bytes; the server records that its writes failed.
    request = urllib.request.Request(url("slow"), data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    response = urllib.request.urlopen(request, timeout=30)
    first = response.read1(64) if hasattr(response, "read1") else response.read(64)
    check(first.startswith(b"data: "), "aisdk slow: the first bytes %r" % first)
    response.close()
    closed = False
    for _ in range(60):
        recorded = json.loads(fetch(server.base + "/requests").raw)
        closed = recorded[-1]["path"] == "/scenario/slow" and recorded[-1]["closed"]
        if closed:
            break
        time.sleep(0.2)
    check(closed, "aisdk slow: the server did not notice the client hang up")

    recorded = json.loads(fetch(server.base + "/requests").raw)
    first = recorded[0]
    check(first["method"] == "POST" and first["path"] == "/scenario/text" and first["body"] == body
          and first["headers"]["authorization"] == "Bearer smoke-token"
          and first["headers"]["content-type"] == "application/json", "aisdk /requests: the first %s" % first)
    gets = [entry for entry in recorded if entry["method"] == "GET"]
    check(gets and all(entry["body"] is None and entry["path"].endswith("/stream") for entry in gets),
          "aisdk /requests: the resume requests")
    check(any(entry["headers"]["authorization"] == "Bearer resume-token" for entry in gets),
          "aisdk /requests: the resume request's Authorization")


RESUMABLE = step(TS, TD, TD, TD, TD, TD, TE)


def resumable(server, url):
    """POST drops the reply after N chunks, for every N; GET <api>/<chatId>/stream replays it from the start
    through [DONE]; then nothing is active (204)."""
    def resume(chat, query=""):
        return fetch("%s/%s/stream%s" % (url("resumable"), chat, query),
                     headers={"Authorization": "Bearer resume-token"})

    reply = resume("chat-never")
    check(reply.status == 204 and reply.raw == b"", "aisdk resume with nothing active: %s" % reply.status)
    whole = len(RESUMABLE) - 1  # the JSON chunks; [DONE] never goes out on a dropped reply
    for drop in range(whole + 1):
        chat = "chat-resume-%d" % drop
        request = chat_request(chat, [ui_user("Go")])
        reply = fetch(url("resumable") + "?drop_after=%d" % drop, request)
        expect_ui_stream("aisdk resumable drop_after=%d" % drop, reply, RESUMABLE[:drop], done=False)
        check(reply.short, "aisdk resumable drop_after=%d: the body did not end short" % drop)
        again = resume(chat)
        chunks = expect_ui_stream("aisdk resume drop_after=%d" % drop, again, RESUMABLE)
        check(chunks[:drop] == chunks_of(reply.raw), "aisdk resume drop_after=%d: not replayed from the start" % drop)
        check(resume(chat).status == 204, "aisdk resume drop_after=%d: still active after the replay" % drop)
        if drop == 4:
            save("aisdk-resumable", reply.raw, request)
            save("aisdk-resumable-resume", again.raw)
    # A resume can drop too; the stream stays active until one gets through.
    fetch(url("resumable") + "?drop_after=2", chat_request("chat-twice", [ui_user("Go")]))
    reply = resume("chat-twice", "?resume_drop_after=3")
    expect_ui_stream("aisdk resume dropped", reply, RESUMABLE[:3], done=False)
    expect_ui_stream("aisdk resume after a dropped resume", resume("chat-twice"), RESUMABLE)
    # A reply that completes leaves nothing active.
    reply = fetch(url("resumable") + "?drop_after=none", chat_request("chat-whole", [ui_user("Go")]))
    expect_ui_stream("aisdk resumable whole", reply, RESUMABLE)
    check(resume("chat-whole").status == 204, "aisdk resumable whole: active after it completed")
    reply = fetch(url("resumable"), {"messages": [], "trigger": "submit-message"})
    check(reply.status == 400, "aisdk resumable without a chat id: %s" % reply.status)


def main():
    started = time.monotonic()
    for script, exercise in (("pydantic_agent_server.py", pydantic), ("scripted_server.py", scripted),
                             ("aisdk_scripted_server.py", aisdk)):
        server = Server(script)
        try:
            exercise(server)
        finally:
            server.stop()
        print("ok    %s" % script if not FAILURES else "      %s done" % script)
    print("%s in %.1f s" % ("FAILED (%d)" % len(FAILURES) if FAILURES else "passed", time.monotonic() - started))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write-captures", action="store_true", help="save the responses under captures/")
    ARGS = parser.parse_args()
    sys.exit(main())
