"""AG-UI edge cases for the tests, written with ag-ui-protocol's own event models and encoder.

POST /scenario/<name> streams one scripted response to a RunAgentInput (its threadId and runId are used);
GET /requests answers every request body received so far, as a JSON array. Scenarios:
  text        a message in three deltas
  chunks      the chunk forms: a text chunk that opens, chunks without an ID, then a tool-call chunk
  error-first RUN_ERROR as the first event          error-mid   text, then RUN_ERROR
  truncated   text, then the connection closes without a terminal event
  reopened    a message ended and started again with the same ID
  two-runs    a replayed earlier run (a MESSAGES_SNAPSHOT) before the requested run, on one response
  state       a snapshot, a delta that applies and one that does not
  cancelled   text, then RUN_FINISHED with outcome cancelled
  interrupt   text, then RUN_FINISHED with outcome interrupt (one interrupt: reason "confirm", a responseSchema)
  pending-tool a call to the first tool the client advertised (else pick_color), left for the app:
              RUN_FINISHED success with pendingToolCallIds
  truncated-eof like truncated, but the body has no length: it ends cleanly at the close (no HTTP error)
  violation   content for a message never started
  reasoning   a reasoning span and message with an encrypted value, then text
  reject      HTTP 422 with a JSON body, no stream
  not-sse     a 200 with the events but Content-Type application/json
  by-message  the scenario the latest user message names (one endpoint for a conversation of several runs)
  slow        300 deltas, 0.2 s apart (a minute: a stop has time to come, however loaded the machine); a client
              that hangs up is recorded (`"closed": true` in /requests)

The rules every local test server keeps are in ../ChatHTTPTests/ServerSupport/local_server.py.
"""

import argparse
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ChatHTTPTests", "ServerSupport"))
from local_server import BackloggedHTTPServer, JSONRequestHandler, add_common_arguments, serve_until_stopped  # noqa: E402,E501

from ag_ui.core import (  # noqa: E402
    AssistantMessage,
    Interrupt,
    MessagesSnapshotEvent,
    ReasoningEncryptedValueEvent,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    TextMessageChunkEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallChunkEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    UserMessage,
)
from ag_ui.encoder import EventEncoder  # noqa: E402

REQUESTS = []
LOCK = threading.Lock()


def text(message_id, *deltas):
    return [TextMessageStartEvent(message_id=message_id, role="assistant")] + [
        TextMessageContentEvent(message_id=message_id, delta=delta) for delta in deltas
    ] + [TextMessageEndEvent(message_id=message_id)]


def scenario(name, thread, run, tools=()):
    """The events of a scenario, and whether the connection closes before a terminal event."""
    started = RunStartedEvent(thread_id=thread, run_id=run)
    finished = RunFinishedEvent(thread_id=thread, run_id=run)
    if name == "slow":
        return [started] + text("m1", *["word%d " % index for index in range(300)]) + [finished], False
    if name in ("text", "not-sse"):
        return [started] + text("m1", "Hello", ", from the ", "scripted agent.") + [finished], False
    if name == "chunks":
        return [
            started,
            TextMessageChunkEvent(message_id="m1", role="assistant", delta="Chunked "),
            TextMessageChunkEvent(delta="text, "),
            TextMessageChunkEvent(delta="then a call."),
            ToolCallChunkEvent(tool_call_id="c1", tool_call_name="lookup_order", delta='{"id": '),
            ToolCallChunkEvent(delta="42}"),
            finished,
        ], False
    if name == "error-first":
        return [RunErrorEvent(message="The agent is not available.", code="AGENT_UNAVAILABLE")], False
    if name == "error-mid":
        return [started, TextMessageStartEvent(message_id="m1", role="assistant"),
                TextMessageContentEvent(message_id="m1", delta="Half an answer"),
                RunErrorEvent(message="The model went away.", code="MODEL_ERROR")], False
    if name in ("truncated", "truncated-eof"):
        return [started, TextMessageStartEvent(message_id="m1", role="assistant"),
                TextMessageContentEvent(message_id="m1", delta="Cut off in the mid")], True
    if name == "reopened":
        return [started] + text("m1", "First. ") + text("m1", "Then more.") + [finished], False
    if name == "two-runs":
        earlier = "earlier-run"
        return [
            RunStartedEvent(thread_id=thread, run_id=earlier),
            MessagesSnapshotEvent(messages=[
                UserMessage(id="old-user", role="user", content="An earlier question"),
                AssistantMessage(id="old-answer", role="assistant", content="An earlier answer"),
            ]),
            RunFinishedEvent(thread_id=thread, run_id=earlier),
            started,
        ] + text("m1", "The answer to this run.") + [finished], False
    if name == "state":
        return [
            started,
            StateSnapshotEvent(snapshot={"count": 1, "items": []}),
            StateDeltaEvent(delta=[{"op": "replace", "path": "/count", "value": 2}]),
            StateDeltaEvent(delta=[{"op": "remove", "path": "/missing"}]),
        ] + text("m1", "Counted.") + [finished], False
    if name == "cancelled":
        return [started] + text("m1", "Stopping here.") + [
            RunFinishedEvent(thread_id=thread, run_id=run, outcome=RunFinishedCancelledOutcome(type="cancelled"))
        ], False
    if name == "interrupt":
        return [started] + text("m1", "Before I go on: ") + [
            RunFinishedEvent(thread_id=thread, run_id=run, outcome=RunFinishedInterruptOutcome(
                type="interrupt",
                interrupts=[Interrupt(
                    id="int-1", reason="confirm", message="Send the report to the whole team?",
                    response_schema={"type": "object", "properties": {"confirmed": {"type": "boolean"}},
                                     "required": ["confirmed"]},
                )],
            ))
        ], False
    if name == "pending-tool":
        tool = next((t.get("name") for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)),
                    "pick_color")
        return [
            started,
            ToolCallStartEvent(tool_call_id="call-1", tool_call_name=tool),
            ToolCallArgsEvent(tool_call_id="call-1", delta='{"hint": '),
            ToolCallArgsEvent(tool_call_id="call-1", delta='"warm"}'),
            ToolCallEndEvent(tool_call_id="call-1"),
            RunFinishedEvent(thread_id=thread, run_id=run, outcome=RunFinishedSuccessOutcome(
                type="success", pending_tool_call_ids=["call-1"])),
        ], False
    if name == "violation":
        return [started] + text("m1", "Fine so far.") + [
            TextMessageContentEvent(message_id="ghost", delta="not started"), finished
        ], False
    if name == "reasoning":
        return [
            started,
            ReasoningStartEvent(message_id="span-1"),
            ReasoningMessageStartEvent(message_id="r1", role="reasoning"),
            ReasoningMessageContentEvent(message_id="r1", delta="Weighing the options."),
            ReasoningMessageEndEvent(message_id="r1"),
            ReasoningEncryptedValueEvent(subtype="message", entity_id="r1", encrypted_value="c2VjcmV0"),
            ReasoningEndEvent(message_id="span-1"),
        ] + text("m1", "Decided.") + [finished], False
    return None, False


class Handler(JSONRequestHandler):
    protocol_version = "HTTP/1.1"


    def do_GET(self):
        if self.path != "/requests":
            return self.answer(404, {"error": {"code": "NOT_FOUND", "message": self.path}})
        with LOCK:
            body = list(REQUESTS)
        self.answer(200, body)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            return self.answer(400, {"error": {"code": "INVALID_INPUT", "message": "not JSON"}})
        if not isinstance(body, dict):
            return self.answer(400, {"error": {"code": "INVALID_INPUT", "message": "not a JSON object"}})
        entry = {"path": self.path, "body": body, "accept": self.headers.get("Accept"),
                 "authorization": self.headers.get("Authorization"), "closed": False}
        with LOCK:
            REQUESTS.append(entry)
        name = self.path.rsplit("/", 1)[-1]
        if name == "by-message":
            # One endpoint for a whole conversation: the latest user message names the scenario.
            users = [m for m in body.get("messages") or () if isinstance(m, dict) and m.get("role") == "user"]
            name = users[-1].get("content", "") if users and isinstance(users[-1].get("content"), str) else ""
        if name == "reject":
            return self.answer(422, {"error": {"code": "INVALID_INPUT", "message": "The run input was refused."}})
        events, truncate = scenario(name, body.get("threadId", "t"), body.get("runId", "r"), body.get("tools") or ())
        if events is None:
            return self.answer(404, {"error": {"code": "NOT_FOUND", "message": name}})
        encoder = EventEncoder()
        if name == "slow":
            return self.stream_slowly(encoder, events, entry)
        payload = "".join(encoder.encode(event) for event in events).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json" if name == "not-sse" else encoder.get_content_type())
        self.send_header("Cache-Control", "no-cache")
        if name == "truncated-eof":
            # No length: the body runs until the connection closes, so it ends cleanly, mid-run.
            self.send_header("Connection", "close")
        elif truncate:
            # Announce more than is sent, then close: the client sees the body end mid-run.
            self.send_header("Content-Length", str(len(payload) + 4096))
        else:
            self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()
        if truncate:
            self.close_connection = True

    def stream_slowly(self, encoder, events, entry):
        self.send_response(200)
        self.send_header("Content-Type", encoder.get_content_type())
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        try:
            for event in events:
                self.wfile.write(encoder.encode(event).encode())
                self.wfile.flush()
                time.sleep(0.2)
        except (BrokenPipeError, ConnectionResetError):
            with LOCK:
                entry["closed"] = True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_common_arguments(parser)
    args = parser.parse_args()
    server = BackloggedHTTPServer((args.host, args.port), Handler)
    server.verbose = args.verbose
    serve_until_stopped([server], server.server_address[1], watch_stdin=not args.no_stdin_watch)


if __name__ == "__main__":
    main()
