"""Vercel AI SDK "UI message stream v1" edge cases for the tests, scripted by hand (standard library only).

POST /scenario/<name> answers a `useChat` request body ({id, messages: [UIMessage], trigger, messageId?})
with the headers the AI SDK sends (content-type text/event-stream, cache-control no-cache, connection
keep-alive, x-vercel-ai-ui-message-stream v1, x-accel-buffering no) and a body of `data: <json>\\n\\n` chunks
ended by `data: [DONE]\\n\\n`, one chunk written (and flushed) at a time. The `start` chunk's messageId is
`msg-<name>`, or the id of the last message when that is the assistant's (a continuation, as the AI SDK's
`toUIMessageStreamResponse({originalMessages})` does). Scenarios:
  text          start, start-step, text-start, text-delta x3, text-end, finish-step, finish (stop)
  reasoning     a reasoning part (with providerMetadata on its end), then text
  tools         get_weather run by the server: tool-input-start, tool-input-delta x2, tool-input-available,
                tool-output-available, then a second step with text
  tools-dynamic a dynamic, provider-executed tool with a title: two preliminary outputs, then the final one
  tool-error    tool-input-error (input that does not parse), then a call whose tool-output-error follows
  approval      delete_files needs approval: tool-input-available, tool-approval-request (approvalId
                "approval-1"), finish (tool-calls). The continuation (the assistant message resent with the
                tool part in state approval-responded, approval {id: "approval-1", approved, reason?})
                gets tool-output-available (approved) or tool-output-denied, then text
  auto-approval AI SDK 7: delete_files decided by the server's policy, no user asked: tool-input-available,
                tool-approval-request {isAutomatic: true, signature}, tool-approval-response {approved: true,
                reason}, tool-output-available, then text, in one run
  auto-denial   the same, denied: tool-approval-response {approved: false, reason}, tool-output-denied, text
  signed-approval  AI SDK 7 with a toolApprovalSecret: as approval, with a signature ("sig-approval-1") on the
                request; the continuation is refused (400 SIGNATURE_MISSING) unless its approval carries it back
  reset-step    AI SDK 7: a first step streams text and starts a lookup_order call, then `reset-step` throws it
                away (a retried model call); the step streams again with other text, then a `custom` chunk
                (kind "scripted.note") and a `reasoning-file`
  app-tool      pick_color, a tool the client runs: tool-input-available, finish (tool-calls). The
                continuation (the part in state output-available, or output-error) gets text about it
  sources-files source-url, source-document, file, then text
  data-parts    start with messageMetadata, data-progress (id progress-1) twice (the second replaces the
                first), a transient data-notice, a data-weather without id, message-metadata, text, and
                finish with messageMetadata
  error         text, then an `error` chunk, no finish (then [DONE], as the AI SDK's SSE encoder always ends)
  abort         text, then `abort` with a reason, no finish (then [DONE])
  truncated     text-delta, then the connection closes: no text-end, finish or [DONE]
  no-done       a whole reply with finish, then the body ends without [DONE]
  malformed     a good start, then what a client must reject; `?fault=` picks one: not-json (a data line
                that is not JSON), unknown (an unknown chunk type), orphan (a text-delta for a part never
                started); default all three in that order. Then text-end, finish-step, finish, [DONE]
  not-stream    200 with Content-Type application/json (a UIMessage), no stream
  reject        HTTP 422 with a JSON error body
  slow          300 text deltas 0.2 s apart (a minute: a stop has time to come, however loaded the machine);
                a client that hangs up is recorded (`"closed": true`)
  resumable     text in five deltas, dropped after `?drop_after=N` chunks (default 4; `none` sends it
                all): the stream stays active for the request's chat `id`
  by-message    the scenario the latest user message's text names (one endpoint for a conversation)

GET /scenario/<name>/<chatId>/stream is the AI SDK's resume URL (`${api}/${chatId}/stream`, a plain GET: no
body, no Last-Event-ID, the transport's headers): 204 when no stream is active for that chat, else 200 with
the active stream replayed FROM THE START (as the `resumable-stream` package does) through finish and
[DONE]; once replayed in full it is no longer active. `resume_drop_after=N` drops the replay after N chunks
(the stream stays active); the route's own `drop_after` applies to the POST only, so a client may keep the
route's query on the resume URL.

Query parameters for every stream: `framing=chunked` (default: Transfer-Encoding chunked, as uvicorn and
Next.js send it; a drop leaves the last chunk unterminated, so the client sees the body fail), `framing=close`
(no length, Connection close: a drop is a clean EOF) or `framing=length` (Content-Length; a drop announces
more than it sends); `delay_ms=N` waits N ms before each chunk (slow always waits 200 ms).

GET /requests answers every request so far, as a JSON array of {method, path, query, body, headers:
{authorization, content-type, accept, last-event-id, user-agent}, closed}.

The rules every local test server keeps are in ../ChatHTTPTests/ServerSupport/local_server.py.
"""

import argparse
import json
import os
import sys
import threading
import time
from urllib.parse import parse_qs, unquote, urlsplit

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ChatHTTPTests", "ServerSupport"))
from local_server import BackloggedHTTPServer, JSONRequestHandler, add_common_arguments, serve_until_stopped  # noqa: E402,E501

REQUESTS = []
ACTIVE = {}  # (scenario, chat id) -> the chunks of the active stream, for the resume endpoint
LOCK = threading.Lock()
DONE = "[DONE]"
RECORDED_HEADERS = ("authorization", "content-type", "accept", "last-event-id", "user-agent")
STREAM_HEADERS = {
    "Content-Type": "text/event-stream",
    "Cache-Control": "no-cache",
    "X-Vercel-AI-UI-Message-Stream": "v1",
    "X-Accel-Buffering": "no",
}


def text(part_id, *deltas):
    return [{"type": "text-start", "id": part_id}] + [
        {"type": "text-delta", "id": part_id, "delta": delta} for delta in deltas
    ] + [{"type": "text-end", "id": part_id}]


def reply(message_id, *body, finish=None):
    """start, one step holding `body`, finish-step, finish (stop unless `finish` says otherwise), [DONE]."""
    return [{"type": "start", "messageId": message_id}, {"type": "start-step"}, *body,
            {"type": "finish-step"}, finish or {"type": "finish", "finishReason": "stop"}, DONE]


def tool_parts(messages, tool_call_id):
    """The tool parts with `tool_call_id` in the assistant messages of a request, in order."""
    found = []
    for message in messages:
        if isinstance(message, dict) and message.get("role") == "assistant":
            for part in message.get("parts") or ():
                if isinstance(part, dict) and part.get("toolCallId") == tool_call_id:
                    found.append(part)
    return found


class Refused(Exception):
    def __init__(self, status, code, message):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


# The provider metadata the tool-metadata scenario streams with its lookup_order calls, and wants back.
CALL_METADATA = {"scripted": {"thoughtSignature": "c2lnLW9yZGVy"}}


def scenario(name, body, query):
    """The chunks of a scenario (dicts, raw strings for lines that are not JSON, DONE), and whether the
    connection drops after the last of them."""
    messages = body.get("messages") if isinstance(body.get("messages"), list) else []
    last = messages[-1] if messages and isinstance(messages[-1], dict) else {}
    continuing = last.get("role") == "assistant" and isinstance(last.get("id"), str)
    mid = last["id"] if continuing else "msg-" + name
    if name == "text":
        return reply(mid, *text("text-1", "Hello", ", from the ", "scripted agent.")), False
    if name == "reasoning":
        return reply(mid, {"type": "reasoning-start", "id": "reasoning-1"},
                     {"type": "reasoning-delta", "id": "reasoning-1", "delta": "Weighing "},
                     {"type": "reasoning-delta", "id": "reasoning-1", "delta": "the options."},
                     {"type": "reasoning-end", "id": "reasoning-1",
                      "providerMetadata": {"scripted": {"signature": "c2lnbmF0dXJl"}}},
                     *text("text-1", "Decided.")), False
    if name == "tools":
        return [
            {"type": "start", "messageId": mid}, {"type": "start-step"},
            {"type": "tool-input-start", "toolCallId": "call-weather", "toolName": "get_weather"},
            {"type": "tool-input-delta", "toolCallId": "call-weather", "inputTextDelta": '{"city": '},
            {"type": "tool-input-delta", "toolCallId": "call-weather", "inputTextDelta": '"Berlin"}'},
            {"type": "tool-input-available", "toolCallId": "call-weather", "toolName": "get_weather",
             "input": {"city": "Berlin"}},
            {"type": "tool-output-available", "toolCallId": "call-weather",
             "output": {"city": "Berlin", "forecast": "sunny"}},
            {"type": "finish-step"}, {"type": "start-step"},
            *text("text-1", "It is sunny ", "in Berlin."),
            {"type": "finish-step"}, {"type": "finish", "finishReason": "stop"}, DONE,
        ], False
    if name == "tools-dynamic":
        call = "call-search"
        return reply(mid,
                     {"type": "tool-input-start", "toolCallId": call, "toolName": "web_search", "dynamic": True,
                      "providerExecuted": True, "title": "Web search"},
                     {"type": "tool-input-delta", "toolCallId": call, "inputTextDelta": '{"query": "swift"}'},
                     {"type": "tool-input-available", "toolCallId": call, "toolName": "web_search",
                      "input": {"query": "swift"}, "dynamic": True, "providerExecuted": True, "title": "Web search"},
                     {"type": "tool-output-available", "toolCallId": call, "output": {"status": "searching"},
                      "dynamic": True, "providerExecuted": True, "preliminary": True},
                     {"type": "tool-output-available", "toolCallId": call, "output": {"status": "reading", "hits": 1},
                      "dynamic": True, "providerExecuted": True, "preliminary": True},
                     {"type": "tool-output-available", "toolCallId": call, "output": {"hits": 2},
                      "dynamic": True, "providerExecuted": True},
                     *text("text-1", "Found two pages.")), False
    if name == "tool-metadata":
        # AI SDK 7's metadata on tool parts. Like a model that signs its own calls (Gemini's thought
        # signatures), it refuses a chat whose earlier lookup_order call comes back without the provider
        # metadata it was streamed with.
        for message in messages:
            if not isinstance(message, dict) or message.get("role") != "assistant":
                continue
            for part in message.get("parts") or []:
                if isinstance(part, dict) and part.get("type") == "tool-lookup_order" \
                        and part.get("callProviderMetadata") != CALL_METADATA:
                    raise Refused(400, "SIGNATURE_MISSING",
                                  "%s came back without its callProviderMetadata" % part.get("toolCallId"))
        turn = sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")
        order, search = "call-order-%d" % turn, "call-search-%d" % turn
        tool_metadata = {"clientName": "orders-mcp"}
        return reply("msg-tool-metadata-%d" % turn,
                     {"type": "tool-input-start", "toolCallId": order, "toolName": "lookup_order",
                      "providerMetadata": CALL_METADATA, "toolMetadata": tool_metadata},
                     {"type": "tool-input-available", "toolCallId": order, "toolName": "lookup_order",
                      "input": {"id": 42}, "providerMetadata": CALL_METADATA, "toolMetadata": tool_metadata},
                     {"type": "tool-output-available", "toolCallId": order, "output": {"status": "shipped"},
                      "providerMetadata": {"scripted": {"resultId": "r-%d" % turn}}},
                     {"type": "tool-input-start", "toolCallId": search, "toolName": "web_search", "dynamic": True,
                      "providerExecuted": True, "title": "Web search"},
                     {"type": "tool-input-available", "toolCallId": search, "toolName": "web_search",
                      "input": {"query": "parcel"}, "dynamic": True, "providerExecuted": True,
                      "title": "Web search"},
                     {"type": "tool-output-available", "toolCallId": search, "output": {"hits": 1},
                      "dynamic": True, "providerExecuted": True},
                     *text("text-1", "Order 42 has shipped.")), False
    if name == "tool-error":
        return [
            {"type": "start", "messageId": mid}, {"type": "start-step"},
            {"type": "tool-input-start", "toolCallId": "call-bad", "toolName": "lookup_order"},
            {"type": "tool-input-delta", "toolCallId": "call-bad", "inputTextDelta": '{"id": 4'},
            {"type": "tool-input-error", "toolCallId": "call-bad", "toolName": "lookup_order", "input": '{"id": 4',
             "errorText": "Invalid input for tool lookup_order: JSON parsing failed."},
            {"type": "tool-input-start", "toolCallId": "call-order", "toolName": "lookup_order"},
            {"type": "tool-input-available", "toolCallId": "call-order", "toolName": "lookup_order",
             "input": {"id": 42}},
            {"type": "tool-output-error", "toolCallId": "call-order", "errorText": "Order 42 was not found."},
            {"type": "finish-step"}, {"type": "start-step"},
            *text("text-1", "I could not find that order."),
            {"type": "finish-step"}, {"type": "finish", "finishReason": "stop"}, DONE,
        ], False
    if name == "approval":
        parts = tool_parts(messages, "call-delete")
        if not parts:
            return reply(mid,
                         {"type": "tool-input-start", "toolCallId": "call-delete", "toolName": "delete_files"},
                         {"type": "tool-input-delta", "toolCallId": "call-delete",
                          "inputTextDelta": '{"paths": ["a.txt"]}'},
                         {"type": "tool-input-available", "toolCallId": "call-delete", "toolName": "delete_files",
                          "input": {"paths": ["a.txt"]}},
                         {"type": "tool-approval-request", "approvalId": "approval-1", "toolCallId": "call-delete"},
                         finish={"type": "finish", "finishReason": "tool-calls"}), False
        part = parts[-1]
        approval = part.get("approval") if isinstance(part.get("approval"), dict) else {}
        if part.get("state") != "approval-responded" or not isinstance(approval.get("approved"), bool):
            raise Refused(400, "APPROVAL_MISSING",
                          "call-delete is in state %r, not approval-responded with a boolean approved"
                          % part.get("state"))
        if approval.get("id") != "approval-1":
            raise Refused(400, "APPROVAL_UNKNOWN", "no approval request %r" % approval.get("id"))
        if approval["approved"]:
            return reply(mid, {"type": "tool-output-available", "toolCallId": "call-delete",
                               "output": "deleted a.txt"}, *text("text-1", "Deleted a.txt.")), False
        reason = approval.get("reason") if isinstance(approval.get("reason"), str) else "no reason given"
        return reply(mid, {"type": "tool-output-denied", "toolCallId": "call-delete"},
                     *text("text-1", "I did not delete a.txt: ", reason)), False
    if name in ("auto-approval", "auto-denial"):
        approved = name == "auto-approval"
        decided = [{"type": "tool-output-available", "toolCallId": "call-delete", "output": "deleted a.txt"},
                   *text("text-1", "Deleted a.txt, as the policy allows.")] if approved else [
                  {"type": "tool-output-denied", "toolCallId": "call-delete"},
                  *text("text-1", "The policy does not allow deleting a.txt.")]
        return reply(mid,
                     {"type": "tool-input-start", "toolCallId": "call-delete", "toolName": "delete_files"},
                     {"type": "tool-input-available", "toolCallId": "call-delete", "toolName": "delete_files",
                      "input": {"paths": ["a.txt"]}},
                     {"type": "tool-approval-request", "approvalId": "approval-auto", "toolCallId": "call-delete",
                      "isAutomatic": True, "signature": "sig-approval-auto"},
                     {"type": "tool-approval-response", "approvalId": "approval-auto", "approved": approved,
                      "reason": "policy: temporary files" if approved else "policy: never on Fridays"},
                     *decided), False
    if name == "reset-step":
        return reply(mid,
                     *text("text-1", "The first try, ", "which the server retries."),
                     {"type": "tool-input-start", "toolCallId": "call-lost", "toolName": "lookup_order"},
                     {"type": "tool-input-delta", "toolCallId": "call-lost", "inputTextDelta": '{"id": '},
                     {"type": "reset-step"},
                     *text("text-2", "The second try."),
                     {"type": "custom", "kind": "scripted.note", "providerMetadata": {"scripted": {"n": 1}}},
                     {"type": "reasoning-file", "url": "data:text/plain;base64,aGk=", "mediaType": "text/plain"}), False
    if name == "signed-approval":
        parts = tool_parts(messages, "call-delete")
        if not parts:
            return reply(mid,
                         {"type": "tool-input-available", "toolCallId": "call-delete", "toolName": "delete_files",
                          "input": {"paths": ["a.txt"]}},
                         {"type": "tool-approval-request", "approvalId": "approval-1", "toolCallId": "call-delete",
                          "signature": "sig-approval-1"},
                         finish={"type": "finish", "finishReason": "tool-calls"}), False
        approval = parts[-1].get("approval") if isinstance(parts[-1].get("approval"), dict) else {}
        if approval.get("signature") != "sig-approval-1":
            raise Refused(400, "SIGNATURE_MISSING", "the approval carries signature %r" % approval.get("signature"))
        if approval.get("approved") is not True:
            raise Refused(400, "APPROVAL_MISSING", "approval-1 is not approved: %r" % approval)
        return reply(mid, {"type": "tool-output-available", "toolCallId": "call-delete", "output": "deleted a.txt"},
                     *text("text-1", "Deleted a.txt.")), False
    if name == "app-tool":
        parts = tool_parts(messages, "call-color")
        if not parts:
            return reply(mid,
                         {"type": "tool-input-start", "toolCallId": "call-color", "toolName": "pick_color"},
                         {"type": "tool-input-delta", "toolCallId": "call-color", "inputTextDelta": '{"hint": "warm"}'},
                         {"type": "tool-input-available", "toolCallId": "call-color", "toolName": "pick_color",
                          "input": {"hint": "warm"}},
                         finish={"type": "finish", "finishReason": "tool-calls"}), False
        part = parts[-1]
        if part.get("state") == "output-available":
            return reply(mid, *text("text-1", "You picked ", json.dumps(part.get("output")), ".")), False
        if part.get("state") == "output-error":
            return reply(mid, *text("text-1", "The color picker failed: ", str(part.get("errorText")))), False
        raise Refused(400, "TOOL_OUTPUT_MISSING", "call-color is in state %r, with no output" % part.get("state"))
    if name == "sources-files":
        return reply(mid,
                     {"type": "source-url", "sourceId": "source-1", "url": "https://example.com/a", "title": "Example A"},
                     {"type": "source-document", "sourceId": "source-2", "mediaType": "application/pdf",
                      "title": "The spec", "filename": "spec.pdf"},
                     {"type": "file", "url": "data:image/png;base64,iVBORw0KGgo=", "mediaType": "image/png"},
                     *text("text-1", "Two sources and a picture.")), False
    if name == "data-parts":
        return [
            {"type": "start", "messageId": mid, "messageMetadata": {"model": "scripted"}}, {"type": "start-step"},
            {"type": "data-progress", "id": "progress-1", "data": {"percent": 10}},
            {"type": "data-progress", "id": "progress-1", "data": {"percent": 100}},
            {"type": "data-notice", "data": {"message": "only for onData"}, "transient": True},
            {"type": "data-weather", "data": {"city": "Berlin"}},
            {"type": "message-metadata", "messageMetadata": {"tokens": 12}},
            *text("text-1", "Done."),
            {"type": "finish-step"},
            {"type": "finish", "finishReason": "stop", "messageMetadata": {"finishedAt": "2026-12-03T00:00:00Z"}},
            DONE,
        ], False
    if name == "error":
        return [{"type": "start", "messageId": mid}, {"type": "start-step"},
                {"type": "text-start", "id": "text-1"}, {"type": "text-delta", "id": "text-1", "delta": "Half an answer"},
                {"type": "error", "errorText": "The model went away."}, DONE], False
    if name == "abort":
        return [{"type": "start", "messageId": mid}, {"type": "start-step"},
                {"type": "text-start", "id": "text-1"}, {"type": "text-delta", "id": "text-1", "delta": "Stopping here"},
                {"type": "abort", "reason": "The run was stopped."}, DONE], False
    if name == "truncated":
        return [{"type": "start", "messageId": mid}, {"type": "start-step"},
                {"type": "text-start", "id": "text-1"},
                {"type": "text-delta", "id": "text-1", "delta": "Cut off in the mid"}], True
    if name == "no-done":
        return reply(mid, *text("text-1", "No end marker."))[:-1], False
    if name == "malformed":
        faults = {
            "not-json": ['{"type": "text-delta", "id": "text-1", "delta": '],
            "unknown": [{"type": "mystery-chunk", "value": 1}],
            "orphan": [{"type": "text-delta", "id": "text-ghost", "delta": "never started"}],
        }
        fault = (query.get("fault") or ["all"])[0]
        if fault != "all" and fault not in faults:
            raise Refused(400, "INVALID_INPUT", "fault is one of all, %s" % ", ".join(faults))
        bad = faults["not-json"] + faults["unknown"] + faults["orphan"] if fault == "all" else faults[fault]
        return [{"type": "start", "messageId": mid}, {"type": "start-step"},
                {"type": "text-start", "id": "text-1"}, {"type": "text-delta", "id": "text-1", "delta": "Fine so far."},
                *bad, {"type": "text-end", "id": "text-1"}, {"type": "finish-step"},
                {"type": "finish", "finishReason": "stop"}, DONE], False
    if name == "slow":
        return reply(mid, *text("text-1", *["word%d " % index for index in range(300)])), False
    if name == "resumable":
        return reply(mid, *text("text-1", "one ", "two ", "three ", "four ", "five.")), False
    return None, False


def encode(chunk):
    return ("data: %s\n\n" % (chunk if isinstance(chunk, str) else json.dumps(chunk, separators=(",", ":")))).encode()


def drop_point(query, default):
    """How many chunks to send before dropping the connection, or None to send them all."""
    value = (query.get("drop_after") or [default])[0]
    if value in (None, "none"):
        return None
    try:
        count = int(value)
    except ValueError:
        raise Refused(400, "INVALID_INPUT", "drop_after is a number or none") from None
    if count < 0:
        raise Refused(400, "INVALID_INPUT", "drop_after is not negative")
    return count


class Handler(JSONRequestHandler):
    protocol_version = "HTTP/1.1"


    def record(self, body):
        url = urlsplit(self.path)
        entry = {"method": self.command, "path": url.path, "query": url.query, "body": body,
                 "headers": {name: self.headers.get(name) for name in RECORDED_HEADERS}, "closed": False}
        with LOCK:
            REQUESTS.append(entry)
        return entry

    def do_GET(self):
        url = urlsplit(self.path)
        if url.path == "/requests":
            with LOCK:
                body = json.loads(json.dumps(REQUESTS))
            return self.answer(200, body)
        segments = [unquote(segment) for segment in url.path.split("/")]
        # /scenario/<name>/<chatId>/stream
        if len(segments) != 5 or segments[1] != "scenario" or segments[4] != "stream":
            return self.answer(404, {"error": {"code": "NOT_FOUND", "message": url.path}})
        entry = self.record(None)
        name, chat = segments[2], segments[3]
        query = parse_qs(url.query)
        with LOCK:
            chunks = ACTIVE.get((name, chat))
        if chunks is None:
            # No active stream: the AI SDK's transport then resumes nothing.
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        try:
            # Its own parameter: a client keeps the chat route's query (`drop_after`) on the resume URL.
            drop = drop_point({"drop_after": query.get("resume_drop_after") or []}, None)
        except Refused as refused:
            return self.answer(refused.status, {"error": {"code": refused.code, "message": refused.message}})
        def replayed():
            with LOCK:
                if ACTIVE.get((name, chat)) is chunks:
                    del ACTIVE[(name, chat)]

        def broken():
            with LOCK:
                ACTIVE.setdefault((name, chat), chunks)

        # No longer active once the last bytes go out, before the client can see the end and ask again (done
        # after the write, a quick client's next GET could still find it active); active again if they fail.
        self.stream(chunks, drop, query, entry, before_end=replayed if drop is None else None, on_break=broken)

    def do_POST(self):
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            self.record(raw.decode("utf-8", "replace"))
            return self.answer(400, {"error": {"code": "INVALID_INPUT", "message": "not JSON"}})
        entry = self.record(body)
        if not isinstance(body, dict):
            return self.answer(400, {"error": {"code": "INVALID_INPUT", "message": "not a JSON object"}})
        segments = url.path.split("/")
        if len(segments) != 3 or segments[1] != "scenario":
            return self.answer(404, {"error": {"code": "NOT_FOUND", "message": url.path}})
        route = name = unquote(segments[2])
        query = parse_qs(url.query)
        if name == "by-message":
            name = latest_user_text(body.get("messages")).strip()
        if name == "reject":
            return self.answer(422, {"error": {"code": "INVALID_INPUT", "message": "The chat request was refused."}})
        if name == "not-stream":
            return self.answer(200, {"id": "msg-not-stream", "role": "assistant",
                                     "parts": [{"type": "text", "text": "Not a stream."}]})
        try:
            chunks, truncate = scenario(name, body, query)
            if chunks is None:
                raise Refused(404, "NOT_FOUND", name)
            drop = len(chunks) if truncate else None
            if name == "resumable":
                chat = body.get("id")
                if not isinstance(chat, str) or not chat:
                    raise Refused(400, "INVALID_INPUT", "resumable needs the chat id (`id`) in the body")
                drop = drop_point(query, "4")
        except Refused as refused:
            return self.answer(refused.status, {"error": {"code": refused.code, "message": refused.message}})
        if name == "resumable":
            with LOCK:
                if drop is None:
                    ACTIVE.pop((route, chat), None)
                else:
                    # The reply goes on without the client: a resume replays it from the start.
                    ACTIVE[(route, chat)] = chunks
        delay = 0.2 if name == "slow" else None
        self.stream(chunks, drop, query, entry, delay)

    def stream(self, chunks, drop, query, entry, delay=None, before_end=None, on_break=None):
        """Writes `chunks` (all, or the first `drop` and then drops the connection); True if all went out.
        `before_end` runs just before the bytes that let the client see the end; `on_break` if a write fails
        after it ran."""
        framing = (query.get("framing") or ["chunked"])[0]
        if delay is None:
            try:
                delay = max(0, int((query.get("delay_ms") or ["0"])[0])) / 1000
            except ValueError:
                delay = 0
        sent = [encode(chunk) for chunk in (chunks if drop is None else chunks[:drop])]
        self.send_response(200)
        for header, value in STREAM_HEADERS.items():
            self.send_header(header, value)
        if framing == "close":
            self.send_header("Connection", "close")
            self.close_connection = True
        elif framing == "length":
            whole = sum(len(data) for data in sent)
            self.send_header("Content-Length", str(whole + (4096 if drop is not None else 0)))
            self.send_header("Connection", "keep-alive")
        else:
            framing = "chunked"
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Connection", "keep-alive")
        ending = [False]

        def end():
            if before_end and not ending[0]:
                ending[0] = True
                before_end()

        if not sent:
            end()
        self.end_headers()
        try:
            for index, data in enumerate(sent):
                if delay:
                    time.sleep(delay)
                if index == len(sent) - 1 and framing != "chunked":
                    end()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data) if framing == "chunked" else data)
                self.wfile.flush()
            if drop is not None:
                # Gone mid-reply: a chunked body is left without its last chunk, a sized one short.
                self.close_connection = True
                return False
            if framing == "chunked":
                end()
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            return True
        except (BrokenPipeError, ConnectionResetError):
            if ending[0] and on_break:
                on_break()
            with LOCK:
                entry["closed"] = True
            self.close_connection = True
            return False


def latest_user_text(messages):
    for message in reversed(messages if isinstance(messages, list) else []):
        if isinstance(message, dict) and message.get("role") == "user":
            return "".join(part.get("text", "") for part in message.get("parts") or ()
                           if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str))
    return ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_common_arguments(parser)
    args = parser.parse_args()
    server = BackloggedHTTPServer((args.host, args.port), Handler)
    server.verbose = args.verbose
    serve_until_stopped([server], server.server_address[1], watch_stdin=not args.no_stdin_watch)


if __name__ == "__main__":
    main()
