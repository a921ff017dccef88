"""Smoke test of the two AG-UI producers, without Swift: starts each server (reading `LISTENING <port>`), runs
every scenario once over urllib, checks the status and the event types in order, and stops them. Exits 1 on
any failure. Run it with the environment's python (make-venv.sh prints it):

  .build/agent-venv/bin/python Tests/AgentProducers/smoke_test.py [--write-captures]

--write-captures also saves each raw response as captures/<server>-<scenario>.sse and, for Pydantic AI, the
request body as captures/pydantic-<scenario>.request.json (timestamps and generated IDs differ run to run).
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


def main():
    started = time.monotonic()
    for script, exercise in (("pydantic_agent_server.py", pydantic), ("scripted_server.py", scripted)):
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
