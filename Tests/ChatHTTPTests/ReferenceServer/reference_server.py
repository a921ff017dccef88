#!/usr/bin/env python3
"""Reference server for the chat protocol of Docs/HTTP-PROTOCOL.md (Python 3 standard library only).

    python3 reference_server.py --port 0 [--host 127.0.0.1] [--token secret] [--style typed|frames]
                                [--delay-ms 20] [--keepalive-s 5] [--tool-timeout-s 10]
                                [--no-stdin-watch] [--verbose]

It binds, prints exactly one line `LISTENING <port>` to stdout, then serves the API under `/v1` until
SIGTERM/SIGINT or until its stdin reaches EOF (so a test process that dies never leaves it running).
Tests drive faults and inspect state through the unauthenticated `/control/...` API; see README.md.

Layout: `ChatState` holds everything behind one lock (with a Condition that wakes waiting streams);
`ReplyStream` writes one agent reply (style A data frames or style B typed events); `Handler` parses
requests, checks auth and faults, and routes `/v1` and `/control` calls.
"""

import argparse
import json
import os
import re
import socket
import sys
import threading
import time
import traceback
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ServerSupport"))
from local_server import add_common_arguments, serve_until_stopped  # noqa: E402

API_PREFIX = "/v1"
CONTROL_PREFIX = "/control"

AGENT = {"id": "fin", "name": "Fin"}
HUMAN_AGENT = {"id": "human-sam", "name": "Sam"}
USER_ID = "u-1"

# A send's place when it names none: after the newest message on the conversation's line.
NEWEST = object()

MAX_TEXT_LENGTH = 10_000  # ChatPolicy.maximumTextLength's default
MAX_TOOL_RESULT_BYTES = 20_000  # ChatPolicy.maximumToolResultBytes's default
MAX_BODY_BYTES = 5 * 1024 * 1024
PAGE_SIZES = range(1, 101)  # ChatPolicy.historyPageSizes / listPageSizes defaults
DEFAULT_LIST_LIMIT = 20
STATUSES = ("ongoing", "taken_over", "ended", "not_found", "unavailable")
RATINGS = ("up", "down", "none")
STYLES = ("typed", "frames")
# Statuses in which the conversation takes new user messages (a human agent answers when taken over).
ACCEPTS_MESSAGES = ("ongoing", "taken_over")
HOST_OPERATION_KINDS = ("analytics.event", "profile.set")  # the host operations this server applies
MAX_HOST_PAYLOAD_BYTES = 16 * 1024
MAX_TITLE_LENGTH = 200  # ConversationSummary.maximumUserTitleLength
# A title the server refuses by rule (400 INVALID_TITLE), as a real one refuses words it does not allow: tests
# use it to see a rename the client let through rolled back.
REFUSED_TITLE_PREFIX = "!"
# What PATCH /v1/conversations/{id} may set, and the JSON type of each.
CONVERSATION_CHANGES = {"title": str, "pinned": bool, "pinned_at": (str, type(None)), "archived": bool,
                        "unread": bool}

ORDER_PATTERN = re.compile(r"\border\s+#?(\d+)", re.IGNORECASE)
# A question about returns or refunds is answered citing RETURN_SOURCES (`Source` objects): two passages of one
# document (one with both links, one with its public link only) and an article known by its title alone.
SOURCES_PATTERN = re.compile(r"\b(returns?|refunds?)\b", re.IGNORECASE)
RETURN_SOURCES = (
    {"id": "src-1", "document_id": "doc-9", "title": "Returns policy",
     "internal_url": "https://admin.example.com/articles/9/edit",
     "external_url": "https://help.example.com/articles/9-returns-policy"},
    {"id": "src-2", "document_id": "doc-9", "title": "Returns policy: refunds",
     "external_url": "https://help.example.com/articles/9-returns-policy#refunds"},
    {"title": "Printing a return label"},
)
FILLER = (
    "Here is a longer answer, streamed word by word so that a client sees many small frames: "
    "the reference server splits every reply into words and sends each one as its own frame, "
    "with a short pause in between, just like a real agent streaming its tokens."
)


# ---------------------------------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------------------------------


def iso_from_ms(ms):
    """ISO 8601 UTC with milliseconds and a Z suffix, e.g. 2026-12-01T03:00:00.125Z."""
    seconds = datetime.fromtimestamp(ms // 1000, tz=timezone.utc)
    return seconds.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (ms % 1000)


def parse_iso(text):
    """Milliseconds since the epoch of an ISO 8601 time with an offset or Z (fractional seconds or not);
    None when `text` is not one."""
    if not isinstance(text, str) or "T" not in text:
        return None
    try:
        moment = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None
    return int(round(moment.timestamp() * 1000))


def id_number(identifier, prefix):
    """The N of an ID like `m-N`; None when it is not one of ours."""
    if isinstance(identifier, str) and identifier.startswith(prefix + "-"):
        tail = identifier[len(prefix) + 1:]
        if tail.isdigit():
            return int(tail)
    return None


def answer_text(user_text, variant=0):
    """The deterministic answer to a user's text. Variant N > 0 is the Nth regeneration."""
    if variant == 0:
        return "You said: %s. %s" % (user_text, FILLER)
    return "Another answer (%d) to: %s. %s" % (variant, user_text, FILLER)


def answer_sources(user_text):
    """The sources the answer to a user's text cites (fresh copies), in order; none for most texts."""
    return [dict(source) for source in RETURN_SOURCES] if SOURCES_PATTERN.search(user_text) else []


def word_chunks(text):
    """Splits text into word-sized pieces whose concatenation is exactly `text`."""
    pieces = re.findall(r"\S+\s*", text)
    leading = text[: len(text) - len(text.lstrip())]
    if not pieces:
        return [text] if text else []
    pieces[0] = leading + pieces[0]
    return pieces


def json_bytes(value):
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


class ApiError(Exception):
    """A non-2xx answer with the protocol's error body."""

    def __init__(self, status, code, message, headers=None, conversation_status=None, extra=None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}
        # Fields beside "error" in the body (an outbox batch out of sync says where the server numbers).
        self.extra = extra or {}
        # Where the conversation stands, for CONVERSATION_NOT_ONGOING: it is said both when the conversation
        # ended and when a person took it over, and the client follows only what it is told.
        self.conversation_status = conversation_status


class StreamCut(Exception):
    """Raised inside a stream to close the connection abruptly (a fault, or a reset of the server)."""


# ---------------------------------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------------------------------


class Faults:
    """Test-controlled behaviour. One-shot faults are cleared by the request that consumes them."""

    def __init__(self, config):
        self.delay_ms = config.delay_ms
        self.style = config.style
        self.accepted_token = config.token
        self.keepalive_s = config.keepalive_s
        self.tool_timeout_s = config.tool_timeout_s
        self.drop_reply_after_frames = None
        self.detach_reply_after_frames = None
        self.drop_resume_after_frames = None
        self.malformed_next_reply_frame = False
        self.rate_limit_remaining = 0
        self.rate_limit_retry_after = 1
        self.expire_token_after_requests = None
        self.token_expired = False
        self.lose_next_batch_response = False
        # The outbox epoch the server numbers in; None: any epoch is taken (see README, `outbox_epoch`).
        self.outbox_epoch = None
        # Off by default so message counts stay predictable; see README.
        self.outbox_replies = False
        self.realtime_reply_events = False

    def snapshot(self):
        return dict(vars(self))


class Conversation:
    def __init__(self, conversation_id, title, created_ms):
        self.id = conversation_id
        self.title = title
        self.status = "ongoing"
        self.created_at = iso_from_ms(created_ms)
        # The conversation is a tree: every message follows a parent (`parents`). Its line, `messages`, is the
        # path from the first message to the newest written, oldest first: what history pages and catch-up
        # return. IDs grow along any path (a message is written after its parent), so the line is in ID order.
        self.messages = []
        self.written = []  # every message, on the line or on a branch off it, in the order written
        self.nodes = {}  # message_id -> Message, for every message written
        self.parents = {}  # message_id -> the ID of the message it follows (None for a first message)
        self.ratings = {}  # message_id -> "up" | "down" | "none"
        self.feedback = None  # {"rating", "comment", "at"}
        self.read_up_to = None
        self.typing = False
        self.regenerations = {}  # reply_to message_id -> how many regenerations started
        # What the user manages from their list (PATCH /v1/conversations/{id}).
        self.pinned_at = None  # when the user pinned it (the time their device gave), or None
        self.archived = False
        self.unread = False  # the user's "mark unread", apart from unread_count
        self.title_set_by_user = False

    def find(self, message_id):
        """A message on the line or on a branch off it; None when the conversation has none with that ID."""
        return self.nodes.get(message_id)

    def on_line(self, message_id):
        return any(m["id"] == message_id for m in self.messages)

    def path_to(self, message_id):
        """The messages from the first one to `message_id` (which must exist), oldest first."""
        path = []
        while message_id is not None:
            path.append(self.nodes[message_id])
            message_id = self.parents[message_id]
        path.reverse()
        return path

    def last_activity_at(self):
        return self.messages[-1]["created_at"] if self.messages else self.created_at

    def unread_count(self):
        # Message IDs grow with time, so the read cursor compares by number; this keeps working when the
        # message it names left the line (a regeneration, a send after another message).
        read = id_number(self.read_up_to, "m") or 0
        return sum(1 for m in self.messages if m["role"] != "user" and id_number(m["id"], "m") > read)

    def row(self):
        preview = self.messages[-1]["text"][:80] if self.messages else None
        return {
            "id": self.id,
            "title": self.title,
            "status": self.status,
            "last_activity_at": self.last_activity_at(),
            "unread_count": self.unread_count(),
            "last_message_preview": preview,
            "pinned_at": self.pinned_at,
            "archived": self.archived,
            "unread": self.unread,
            "title_set_by_user": self.title_set_by_user,
        }

    def dump(self):
        return {
            "title": self.title,
            "status": self.status,
            "created_at": self.created_at,
            "messages": self.messages,
            "all_messages": self.written,
            "parents": self.parents,
            "ratings": self.ratings,
            "feedback": self.feedback,
            "read_up_to": self.read_up_to,
            "typing": self.typing,
            "pinned_at": self.pinned_at,
            "archived": self.archived,
            "unread": self.unread,
            "title_set_by_user": self.title_set_by_user,
        }


class Reply:
    """One agent answer: announced at the start of a stream, stored ("committed") when a stream finishes it.

    A stream that is cut (fault or client disconnect) stores nothing; a repeated send streams the same
    reply again under the same message ID, and stores it then.
    """

    def __init__(self, epoch, conversation_id, user_message_id, assistant_id, variant=0, regenerates=False):
        self.epoch = epoch
        self.conversation_id = conversation_id
        self.user_message_id = user_message_id
        self.assistant_id = assistant_id
        self.variant = variant
        self.regenerates = regenerates
        self.committed = None  # the stored Message once a stream finished it


class ReplyLog:
    """The frames one reply stream wrote, with their IDs, so a client whose connection dropped can resume.

    A reply goes on after its connection drops only under `detach_reply_after_frames`; a stream the client
    closed or a `drop_reply_after_frames` cut abandons the reply, and its log answers every resume with 204.
    """

    def __init__(self, epoch, conversation_id):
        self.epoch = epoch
        self.conversation_id = conversation_id
        self.frames = []  # (event ID, the frame's bytes with its id: line)
        self.finished = False
        self.abandoned = False

    def index_after(self, event_id):
        """The index of the first frame after `event_id`; None when no frame has that ID."""
        for index, (frame_id, _) in enumerate(self.frames):
            if frame_id == event_id:
                return index + 1
        return None


class ChatState:
    """Everything the server knows, behind one lock. `cond` wakes realtime streams and tool-call waits."""

    def __init__(self, config):
        self.config = config
        self.lock = threading.RLock()
        self.cond = threading.Condition(self.lock)
        self.stopping = False
        self.epoch = 0
        self.realtime_generation = 0
        self.realtime_handlers = set()
        self._last_ms = 0
        with self.lock:
            self.reset()

    # Every method below expects the caller to hold `self.lock`.

    def reset(self):
        self.epoch += 1
        self.conversations = {}
        self.events = []  # event N is events[N - 1]
        self.batches = {}  # batch_id -> the answer it got
        self.batch_order = []
        self.host_operations = []  # accepted host operations, in the order applied
        self.contact = None  # the anonymous user's contact details, as last given
        self.contact_updates = 0
        self.batch_requests = 0
        self.requests = 0
        self.sends = 0
        self.send_replies = {}  # client_id -> Reply (or None for an outbox send not answered yet)
        self.send_messages = {}  # client_id -> (conversation_id, user message id)
        self.regenerate_replies = {}  # Idempotency-Key -> Reply
        self.reply_logs = {}  # assistant message ID -> ReplyLog of its latest stream
        self.response_cache = {}  # (path, Idempotency-Key) -> (status, body)
        self.tool_calls = {}  # tool_call_id -> {"conversation_id", "tool_name", "input"}
        self.tool_results = {}  # tool_call_id -> {"conversation_id", "result" | "error", "at"}
        self.tickets = []
        self.log = []
        self.counters = {"m": 0, "conv": 0, "T": 0, "t": 0}
        self.faults = Faults(self.config)
        self.drop_realtime()  # event IDs restart, so open streams would miss events: close them
        self.cond.notify_all()

    def next_id(self, prefix):
        self.counters[prefix] += 1
        return "%s-%d" % (prefix, self.counters[prefix])

    def now_ms(self):
        """Server time in ms, strictly increasing so messages never share a timestamp."""
        ms = int(time.time() * 1000)
        if ms <= self._last_ms:
            ms = self._last_ms + 1
        self._last_ms = ms
        return ms

    def now(self):
        return iso_from_ms(self.now_ms())

    def conversation(self, conversation_id):
        conversation = self.conversations.get(conversation_id)
        if conversation is None or conversation.status == "not_found":
            raise ApiError(404, "CONVERSATION_NOT_FOUND", "No conversation %r." % (conversation_id,))
        return conversation

    def new_conversation(self, title):
        conversation = Conversation(self.next_id("conv"), title, self.now_ms())
        self.conversations[conversation.id] = conversation
        return conversation

    def new_message(self, role, text, client_id=None, created_at=None, message_id=None, **extra):
        message = {"id": message_id or self.next_id("m")}
        if client_id is not None:
            message["client_id"] = client_id
        message.update({"role": role, "text": text, "created_at": created_at or self.now()})
        if role == "user":
            message["author"] = USER_ID
        message.update(extra)
        return message

    def add_message(self, conversation, message, broadcast=True, parent_id=NEWEST):
        """Writes `message` after `parent_id` (which the conversation must have), first of all when None (an
        edit of the first message), or after the newest message on the line when NEWEST; the line becomes the
        path to it. Broadcasts it (and any change of line)."""
        if parent_id is NEWEST:
            parent_id = conversation.messages[-1]["id"] if conversation.messages else None
        else:
            self.switch_line(conversation, parent_id)
        conversation.nodes[message["id"]] = message
        conversation.parents[message["id"]] = parent_id
        conversation.written.append(message)
        conversation.messages.append(message)
        if broadcast:
            self.add_event("message.created", conversation.id, {"message": message})

    def switch_line(self, conversation, message_id):
        """Makes the line end at `message_id`: the messages that leave it stay as a branch and are announced
        `message.deleted` with `"branch": true` (oldest first), those that come back onto it `message.created` (oldest first)."""
        line = conversation.path_to(message_id) if message_id is not None else []
        staying = {m["id"] for m in line}
        before = {m["id"] for m in conversation.messages}
        leaving = [m for m in conversation.messages if m["id"] not in staying]
        returning = [m for m in line if m["id"] not in before]
        conversation.messages = line
        for message in leaving:
            # Still stored, as a branch: a client that keeps branches must not take it for a deletion.
            self.add_event("message.deleted", conversation.id, {"message_id": message["id"], "branch": True})
        for message in returning:
            self.add_event("message.created", conversation.id, {"message": message})

    def add_event(self, event_type, conversation_id, data, raw_data=None):
        """Stores a realtime event and wakes the streams. Returns its ID."""
        payload = {"conversation_id": conversation_id}
        payload.update(data or {})
        event = {"id": len(self.events) + 1, "event": event_type, "data": payload}
        if raw_data is not None:
            event["raw_data"] = raw_data
        self.events.append(event)
        self.cond.notify_all()
        return event["id"]

    def drop_realtime(self):
        """Closes every open realtime stream abruptly (no terminating chunk)."""
        self.realtime_generation += 1
        for handler in list(self.realtime_handlers):
            handler.abort_connection()
        self.cond.notify_all()

    def commit(self, reply, text, usage, role, agent, sources=()):
        """Stores a finished reply (once), with the sources it cites, and broadcasts it. Returns the stored
        Message."""
        if reply.committed is not None:
            return reply.committed
        extra = {"sources": list(sources)} if sources else {}
        message = self.new_message(
            role, text, message_id=reply.assistant_id, agent=agent, finish_reason="stop", usage=usage, **extra)
        conversation = self.conversations.get(reply.conversation_id)
        if reply.epoch != self.epoch or conversation is None:
            return message  # the server was reset under this stream: store nothing
        if reply.regenerates or not conversation.on_line(reply.user_message_id):
            # A regenerated answer follows its question: what came after it leaves the line (kept as a
            # branch). So does the answer to a question that left the line while it streamed. Any other
            # answer follows the newest message, as it always has.
            self.switch_line(conversation, reply.user_message_id)
        if self.faults.realtime_reply_events:
            self.add_event("reply.finished", conversation.id, {"message": message})
        self.add_message(conversation, message)
        reply.committed = message
        return message

    def dump(self):
        return {
            "conversations": {cid: c.dump() for cid, c in self.conversations.items()},
            "batches": list(self.batch_order),
            "host_operations": list(self.host_operations),
            "contact": self.contact,
            "contact_updates": self.contact_updates,
            "batch_responses": self.batches,
            "batch_requests": self.batch_requests,
            "requests": self.requests,
            "sends": self.sends,
            "last_event_id": len(self.events),
            "events": self.events,
            "tool_calls": self.tool_calls,
            "tool_results": self.tool_results,
            "tickets": self.tickets,
            "idempotency_keys": list(self.send_messages),
            "faults": self.faults.snapshot(),
            "realtime_connections": len(self.realtime_handlers),
            "log": self.log,
        }


# ---------------------------------------------------------------------------------------------------
# Reply streams
# ---------------------------------------------------------------------------------------------------


class ReplyStream:
    """Writes one reply on a send's or regeneration's response, in style A ("frames") or B ("typed")."""

    HEARTBEAT_EVERY = 4  # style A: a {"type": "heartbeat"} frame after every 4 content frames
    TOOL_WAIT_HEARTBEAT_S = 2.0

    def __init__(self, handler, state, reply, style, user_text, start_user_message):
        self.handler = handler
        self.state = state
        self.reply = reply
        self.style = style
        self.user_text = user_text
        self.start_user_message = start_user_message
        self.text_frames = 0
        self.text = ""
        with state.lock:
            faults = state.faults
            # One-shot faults belong to the next reply stream, whichever it is.
            self.drop_after = faults.drop_reply_after_frames
            faults.drop_reply_after_frames = None
            self.detach_after = faults.detach_reply_after_frames
            faults.detach_reply_after_frames = None
            self.malformed = faults.malformed_next_reply_frame
            faults.malformed_next_reply_frame = False
            conversation = state.conversations.get(reply.conversation_id)
            taken_over = conversation is not None and conversation.status == "taken_over"
            self.role, self.agent = ("human_agent", HUMAN_AGENT) if taken_over else ("assistant", AGENT)
            self.committed = reply.committed
            self.log = ReplyLog(reply.epoch, reply.conversation_id)
            state.reply_logs[reply.assistant_id] = self.log
        # False once `detach_reply_after_frames` cut the connection: the reply goes on into its log only.
        self.attached = True

    # Frame writing ---------------------------------------------------------------------------------

    def _write(self, payload):
        if self.attached:
            self.handler.write_chunk(payload)

    def _logged(self, text, last=False):
        """Writes a data frame with the next ID (`<assistant message ID>.<n>`) and keeps it for a resume."""
        with self.state.lock:
            event_id = "%s.%d" % (self.reply.assistant_id, len(self.log.frames) + 1)
            payload = ("id: %s\n%s" % (event_id, text)).encode("utf-8")
            self.log.frames.append((event_id, payload))
            self.log.finished = last
            self.state.cond.notify_all()
        self._write(payload)

    def _event(self, name, data, last=False):
        self._logged("event: %s\ndata: %s\n\n" % (name, json.dumps(data, ensure_ascii=False)), last)

    def _frame(self, data, last=False):
        self._logged("data: %s\n\n" % json.dumps(data, ensure_ascii=False), last)

    def abandon(self):
        """The reply ends here (a cut, the client went away): a resume gets 204 from now on."""
        with self.state.lock:
            self.log.abandoned = True
            self.state.cond.notify_all()

    def _detach(self):
        """Cuts the connection the way a network drop does, and goes on with the reply."""
        self.attached = False
        self.handler.abort_connection()

    def _pause(self):
        with self.state.lock:
            delay = self.state.faults.delay_ms
        if delay > 0:
            time.sleep(delay / 1000.0)

    def _check_epoch(self):
        with self.state.lock:
            if self.reply.epoch != self.state.epoch or self.state.stopping:
                raise StreamCut()

    def _text(self, pieces):
        """Streams text pieces, with the malformed-frame and cut faults applied."""
        for piece in pieces:
            self._pause()
            self._check_epoch()
            if self.malformed and self.text_frames >= self.malformed_at:
                self.malformed = False
                # Not JSON: the client should end the reply with INVALID_EVENT. The server goes on.
                if self.style == "typed":
                    self._write(b'event: text-delta\ndata: {"delta": "unterminated\n\n')
                else:
                    self._write(b'data: {"message_id": "broken", "content": \n\n')
            if self.style == "typed":
                self._event("text-delta", {"delta": piece})
            else:
                self._frame({"message_id": self.reply.assistant_id, "content": piece})
                if (self.text_frames + 1) % self.HEARTBEAT_EVERY == 0:
                    self._frame({"type": "heartbeat"})
            self.text += piece
            self.text_frames += 1
            with self.state.lock:
                if self.state.faults.realtime_reply_events:
                    self.state.add_event("reply.delta", self.reply.conversation_id,
                                         {"message_id": self.reply.assistant_id, "delta": piece})
            if self.drop_after is not None and self.text_frames >= self.drop_after:
                raise StreamCut()
            if self.attached and self.detach_after is not None and self.text_frames >= self.detach_after:
                self._detach()

    # The reply -------------------------------------------------------------------------------------

    def run(self):
        reply = self.reply
        if self.committed is not None:
            body_text = self.committed["text"]  # a repeated request: the stored answer again
            sources = self.committed.get("sources", [])
            order = None
        else:
            match = ORDER_PATTERN.search(self.user_text) if self.style == "typed" else None
            order = match.group(1) if match else None
            body_text = answer_text(self.user_text, reply.variant)
            sources = answer_sources(self.user_text)
        lead = "Let me look up order %s. " % order if order else ""
        # Place the malformed frame roughly in the middle of the text frames.
        self.malformed_at = len(word_chunks(lead + body_text)) // 2

        with self.state.lock:
            if self.state.faults.realtime_reply_events:
                self.state.add_event("reply.started", reply.conversation_id,
                                     {"message_id": reply.assistant_id, "agent": self.agent})

        first = {"conversation_id": reply.conversation_id}
        if self.start_user_message is not None:
            first["user_message"] = self.start_user_message
        first["message_id"] = reply.assistant_id
        if self.style == "typed":
            first["agent"] = self.agent
            self._event("start", first)
        else:
            self._frame(first)
            self._write(b": heartbeat comment\n\n")
        if self.drop_after == 0:
            raise StreamCut()  # accepted (first frame), then nothing
        if self.detach_after == 0:
            self._detach()

        if order:
            self._text(word_chunks(lead))
            outcome_text = self._tool_call(order)
            self._text(word_chunks(outcome_text + body_text))
        else:
            self._text(word_chunks(body_text))
        self._sources(sources)

        self._pause()
        self._check_epoch()
        usage = {"input_tokens": len(self.user_text.split()), "output_tokens": len(self.text.split())}
        with self.state.lock:
            message = self.state.commit(reply, self.text, dict(usage, credits=0.5), self.role, self.agent, sources)
        if self.style == "typed":
            if "suggest" in self.user_text.lower():
                # Follow-ups offered with the answer, before it finishes (the protocol's `suggestions`).
                self._event("suggestions", {"suggestions": ["Track my order", "Change the delivery day"]})
            self._event("finish", {"message": message, "user_message_id": reply.user_message_id,
                                   "finish_reason": "stop", "usage": usage}, last=True)
        else:
            self._frame({"message_id": reply.assistant_id, "status": "DONE",
                         "created_at": message["created_at"], "user_message_id": reply.user_message_id}, last=True)

    def _sources(self, sources):
        """Cites the answer's sources after its text: a `source` event each (typed), or one data frame with
        all of them (frames). The finish message lists them again, as the stored message does."""
        if not sources:
            return
        self._pause()
        self._check_epoch()
        if self.style == "typed":
            for source in sources:
                self._event("source", source)
        else:
            self._frame({"message_id": self.reply.assistant_id, "sources": sources})

    def _tool_call(self, order):
        """Asks the client to run lookupOrder, waits for its result, and returns the text that follows."""
        state = self.state
        with state.lock:
            tool_call_id = state.next_id("t")
            state.tool_calls[tool_call_id] = {"conversation_id": self.reply.conversation_id,
                                              "tool_name": "lookupOrder", "input": {"order": order}}
            timeout = state.faults.tool_timeout_s
        self._pause()
        self._event("tool-call", {"tool_call_id": tool_call_id, "tool_name": "lookupOrder",
                                  "input": {"order": order}, "execution": "client"})
        deadline = time.monotonic() + timeout
        last_heartbeat = time.monotonic()
        outcome = None
        while outcome is None:
            with state.lock:
                while True:
                    outcome = state.tool_results.get(tool_call_id)
                    now = time.monotonic()
                    if (outcome is not None or now >= deadline or state.stopping
                            or now - last_heartbeat >= self.TOOL_WAIT_HEARTBEAT_S):
                        break
                    state.cond.wait(min(deadline, last_heartbeat + self.TOOL_WAIT_HEARTBEAT_S) - now)
            self._check_epoch()
            if outcome is None and time.monotonic() >= deadline:
                break
            if outcome is None:
                # A comment keeps the client's idle timeout fed while the app runs the tool.
                self._write(b": waiting for tool result\n\n")
                last_heartbeat = time.monotonic()

        if outcome is None:
            error = {"code": "TIMEOUT", "message": "No tool result within %g s." % timeout}
            self._event("tool-result", {"tool_call_id": tool_call_id, "error": error})
            return "The lookup failed (TIMEOUT). "
        if "error" in outcome:
            self._event("tool-result", {"tool_call_id": tool_call_id, "error": outcome["error"]})
            return "The lookup failed (%s). " % outcome["error"].get("code")
        self._event("tool-result", {"tool_call_id": tool_call_id, "result": outcome["result"]})
        return "Order %s: %s. " % (order, json.dumps(outcome["result"], sort_keys=True, ensure_ascii=False))


# ---------------------------------------------------------------------------------------------------
# HTTP
# ---------------------------------------------------------------------------------------------------


class Response:
    def __init__(self, status, body=None, headers=None):
        self.status = status
        self.body = body
        self.headers = headers or {}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "ReferenceChatServer/1.0"
    state = None  # ChatState, set by make_server
    verbose = False

    # Plumbing --------------------------------------------------------------------------------------

    def setup(self):
        super().setup()
        # Every frame is a small write right after another (headers, then chunks): with Nagle's algorithm
        # each one would wait for the client's delayed ACK (40 ms on Linux) on a reused connection.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format, *args):
        if self.verbose:
            sys.stderr.write("%s - %s\n" % (self.address_string(), format % args))

    def send_response(self, code, message=None):
        self._status = code
        if self._log_entry is not None:
            self._log_entry["status"] = code
        super().send_response(code, message)

    def send_error(self, code, message=None, explain=None):
        """Malformed request lines and headers get the protocol's JSON error body too."""
        self.close_connection = True
        try:
            body = json_bytes({"error": {"code": "INVALID_REQUEST", "message": message or "Bad request."}})
            self.send_response(code)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
        except OSError:
            pass

    def abort_connection(self):
        """Closes the connection without a (complete) response: the client sees it drop."""
        self.close_connection = True
        if self._log_entry is not None and self._log_entry.get("status") is None:
            self._log_entry["status"] = "aborted"
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def handle_one_request(self):
        self._log_entry = None
        self._status = None
        self._chunked = False
        try:
            super().handle_one_request()
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, socket.timeout):
            self.close_connection = True

    def do_GET(self):
        self._dispatch("GET")

    def do_POST(self):
        self._dispatch("POST")

    def do_PUT(self):
        self._dispatch("PUT")

    def do_DELETE(self):
        self._dispatch("DELETE")

    def do_PATCH(self):
        self._dispatch("PATCH")

    def _read_body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            parts, total = [], 0
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    break
                total += size
                if total > MAX_BODY_BYTES:
                    raise ApiError(413, "TOO_LARGE", "Request body too large.")
                parts.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(parts)
        length = self.headers.get("Content-Length")
        if not length:
            return b""
        length = int(length)
        if length < 0 or length > MAX_BODY_BYTES:
            raise ApiError(413, "TOO_LARGE", "Request body too large.")
        return self.rfile.read(length)

    def _json_body(self):
        if not self._body.strip():
            raise ApiError(400, "INVALID_REQUEST", "A JSON object body is required.")
        try:
            value = json.loads(self._body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as error:
            raise ApiError(400, "INVALID_REQUEST", "Malformed JSON body: %s" % error)
        if not isinstance(value, dict):
            raise ApiError(400, "INVALID_REQUEST", "The body must be a JSON object.")
        return value

    def _send(self, response):
        headers = dict(response.headers)
        body = b""
        if response.body is not None:
            body = json_bytes(response.body)
            headers.setdefault("Content-Type", "application/json; charset=utf-8")
        self.send_response(response.status)
        for name, value in headers.items():
            self.send_header(name, value)
        if response.status != 204:
            self.send_header("Content-Length", str(len(body)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if body:
            self.wfile.write(body)

    def _error(self, error):
        body = {"code": error.code, "message": error.message}
        if error.conversation_status is not None:
            body["conversation_status"] = error.conversation_status
        return Response(error.status, dict(error.extra, error=body), error.headers)

    def start_stream(self):
        """200 text/event-stream; chunked on HTTP/1.1, or close-delimited for an HTTP/1.0 client."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        if self.request_version == "HTTP/1.1":
            self._chunked = True
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.close_connection = True
            self.send_header("Connection", "close")
        self.end_headers()

    def write_chunk(self, payload):
        """Writes (and, since wfile is unbuffered, sends) one piece of a stream at once."""
        if self._chunked:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(payload), payload))
        else:
            self.wfile.write(payload)

    def end_stream(self):
        if self._chunked:
            self.wfile.write(b"0\r\n\r\n")

    def _dispatch(self, method):
        state = self.state
        split = urlsplit(self.path)
        path = split.path.rstrip("/") or "/"
        self._query = {k: v[-1] for k, v in parse_qs(split.query, keep_blank_values=True).items()}
        self._log_entry = {"method": method, "path": path, "query": split.query,
                           "idempotency_key": self.headers.get("Idempotency-Key"),
                           "outbox_epoch": self.headers.get("Outbox-Epoch"), "status": None}
        try:
            try:
                self._body = self._read_body()
            except ValueError:
                raise ApiError(400, "INVALID_REQUEST", "Malformed request body framing.")
            if path == API_PREFIX or path.startswith(API_PREFIX + "/"):
                with state.lock:
                    state.log.append(self._log_entry)
                    del state.log[:-1000]
                response = self._api(method, path)
            elif path == CONTROL_PREFIX or path.startswith(CONTROL_PREFIX + "/"):
                response = self._control(method, path)
            else:
                raise ApiError(404, "NOT_FOUND", "No such path: %s (the API is under /v1)." % path)
        except ApiError as error:
            if error.status == 413:
                self.close_connection = True  # the body may not have been read
            response = self._error(error)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, socket.timeout):
            self.close_connection = True
            return
        except Exception as error:  # a bug here must not take the server down
            if self.verbose:
                traceback.print_exc()
            if self._status is not None:  # headers already sent: all we can do is drop the connection
                self.abort_connection()
                return
            response = Response(500, {"error": {"code": "SERVER_ERROR", "message": "%s: %s" % (
                type(error).__name__, error)}})
        if response is None:
            return  # a stream or an aborted response wrote (or didn't write) its own answer
        try:
            self._send(response)
        except OSError:
            self.close_connection = True

    # /v1 -------------------------------------------------------------------------------------------

    def _authorize(self):
        """Checks the bearer token, applying the token-expiry fault. Raises 401."""
        state = self.state
        header = self.headers.get("Authorization", "")
        challenge = {"WWW-Authenticate": 'Bearer realm="chat"'}
        if not header.startswith("Bearer "):
            raise ApiError(401, "UNAUTHORIZED", "Missing bearer token.", challenge)
        token = header[len("Bearer "):].strip()
        with state.lock:
            faults = state.faults
            if token != faults.accepted_token:
                raise ApiError(401, "UNAUTHORIZED", "Invalid token.", challenge)
            if faults.token_expired:
                raise ApiError(401, "UNAUTHORIZED", "The token has expired.", challenge)
            if faults.expire_token_after_requests is not None:
                if faults.expire_token_after_requests <= 0:
                    faults.expire_token_after_requests = None
                    faults.token_expired = True
                    raise ApiError(401, "UNAUTHORIZED", "The token has expired.", challenge)
                faults.expire_token_after_requests -= 1

    def _api(self, method, path):
        state = self.state
        parts = [unquote(p) for p in path[len(API_PREFIX):].split("/") if p]
        with state.lock:
            state.requests += 1
            if parts == ["messages"] and method == "POST":
                state.sends += 1
            if parts == ["outbox"] and method == "POST":
                state.batch_requests += 1
        self._authorize()
        if parts != ["events"]:
            with state.lock:
                faults = state.faults
                if faults.rate_limit_remaining > 0:
                    faults.rate_limit_remaining -= 1
                    retry_after = faults.rate_limit_retry_after
                    value = str(int(retry_after)) if float(retry_after).is_integer() else str(retry_after)
                    raise ApiError(429, "RATE_LIMITED", "Too many requests; try again in %s s." % value,
                                   {"Retry-After": value})

        route = self._route(method, parts)
        handler, args, cacheable = route
        if cacheable and self.headers.get("Idempotency-Key"):
            # "A server that has seen the key answers as it did the first time" (successful answers only:
            # a 429 or 401 must not stick to the key).
            key = (path, self.headers["Idempotency-Key"])
            with state.lock:
                cached = state.response_cache.get(key)
            if cached is not None:
                return Response(cached[0], cached[1])
            response = handler(*args)
            if 200 <= response.status < 300:
                with state.lock:
                    state.response_cache[key] = (response.status, response.body)
            return response
        return handler(*args)

    def _route(self, method, parts):
        """(handler, args, cacheable by Idempotency-Key)."""
        n = len(parts)
        routes = []
        if parts == ["messages"]:
            routes.append(("POST", self.api_send, (), False))
        elif parts == ["outbox"]:
            routes.append(("POST", self.api_outbox, (), False))
        elif parts == ["contact"]:
            routes.append(("POST", self.api_contact, (), True))
        elif parts == ["tickets"]:
            routes.append(("POST", self.api_ticket, (), True))
        elif parts == ["events"]:
            routes.append(("GET", self.api_events, (), False))
        elif parts == ["conversations"]:
            routes.append(("GET", self.api_list, (), False))
        elif n == 2 and parts[0] == "conversations":
            routes.append(("PATCH", self.api_update_conversation, (parts[1],), False))
            routes.append(("DELETE", self.api_delete_conversation, (parts[1],), False))
        elif n >= 3 and parts[0] == "conversations":
            cid, rest = parts[1], parts[2:]
            if rest == ["messages"]:
                routes.append(("GET", self.api_messages, (cid,), False))
            elif rest == ["regenerate"]:
                routes.append(("POST", self.api_regenerate, (cid,), False))
            elif len(rest) == 3 and rest[0] == "replies" and rest[2] == "stream":
                routes.append(("GET", self.api_resume, (cid, rest[1]), False))
            elif len(rest) == 3 and rest[0] == "messages" and rest[2] == "rating":
                routes.append(("POST", self.api_rating, (cid, rest[1]), True))
            elif rest == ["feedback"]:
                routes.append(("POST", self.api_feedback, (cid,), True))
            elif rest == ["read"]:
                routes.append(("POST", self.api_read, (cid,), True))
            elif rest == ["typing"]:
                routes.append(("POST", self.api_typing, (cid,), True))
            elif rest == ["tool-results"]:
                routes.append(("POST", self.api_tool_result, (cid,), True))
        if not routes:
            raise ApiError(404, "NOT_FOUND", "No such endpoint: %s %s" % (method, self.path))
        for route_method, handler, args, cacheable in routes:
            if route_method == method:
                return handler, args, cacheable
        raise ApiError(405, "METHOD_NOT_ALLOWED", "%s is not allowed here." % method,
                       {"Allow": ", ".join(r[0] for r in routes)})

    def _style(self):
        style = self._query.get("style")
        if style is None:
            with self.state.lock:
                return self.state.faults.style
        if style not in STYLES:
            raise ApiError(400, "INVALID_REQUEST", "style must be typed or frames.")
        return style

    @staticmethod
    def _page_size(value):
        if value is None:
            return None
        try:
            limit = int(value)
        except ValueError:
            raise ApiError(400, "INVALID_PAGE_SIZE", "limit must be an integer.")
        if limit not in PAGE_SIZES:
            raise ApiError(400, "INVALID_PAGE_SIZE", "limit must be 1...100.")
        return limit

    def _stream(self, reply, user_text, start_user_message):
        style = self._style()
        stream = ReplyStream(self, self.state, reply, style, user_text, start_user_message)
        self.start_stream()
        try:
            stream.run()
            if stream.attached:
                self.end_stream()
        except StreamCut:
            stream.abandon()
            self.abort_connection()
        except OSError:
            stream.abandon()
            self.close_connection = True  # the client went away (stopped the reply): nothing is stored
            with self.state.lock:
                self._log_entry["client_closed"] = True  # tests read this in the log
        return None

    def api_resume(self, conversation_id, message_id):
        """`GET …/replies/{id}/stream`: the frames after `Last-Event-ID` (all without one), then the live
        rest until the reply ends. 204 when there is nothing to resume: no such reply stream here, one that
        was abandoned, or an event ID it never sent."""
        state = self.state
        last_id = self.headers.get("Last-Event-ID")
        with state.lock:
            state.conversation(conversation_id)
            log = state.reply_logs.get(message_id)
            if log is None or log.abandoned or log.epoch != state.epoch or log.conversation_id != conversation_id:
                return Response(204)
            start = 0 if last_id is None else log.index_after(last_id)
            if start is None:
                return Response(204)
            drop_after = state.faults.drop_resume_after_frames
            state.faults.drop_resume_after_frames = None
        self.start_stream()
        sent = 0
        try:
            while True:
                with state.lock:
                    while (start >= len(log.frames) and not log.finished and not log.abandoned
                           and log.epoch == state.epoch and not state.stopping):
                        state.cond.wait(1.0)
                    batch = log.frames[start:]
                    ended = log.finished
                    gone = log.abandoned or log.epoch != state.epoch or state.stopping
                for _, payload in batch:
                    self.write_chunk(payload)
                    start += 1
                    sent += 1
                    if drop_after is not None and sent >= drop_after:
                        self.abort_connection()
                        return None
                if ended:
                    self.end_stream()
                    return None
                if gone:
                    self.abort_connection()
                    return None
        except OSError:
            self.close_connection = True
        return None

    def api_send(self):
        state = self.state
        body = self._json_body()
        client_id = body.get("client_id", self.headers.get("Idempotency-Key"))
        text = body.get("text")
        conversation_id = body.get("conversation_id")
        # The message the new one follows in a conversation with branches; null: it comes first (an edit of
        # the first message); absent: after the newest.
        parent_id = body.get("parent_id", NEWEST)
        # Or the message whose parent it follows: an edit of a message whose parent the client has not loaded.
        sibling_of = body.get("sibling_of")
        with state.lock:  # tests read them in the log
            if parent_id is not NEWEST:
                self._log_entry["parent_id"] = parent_id
            if sibling_of is not None:
                self._log_entry["sibling_of"] = sibling_of
        if not isinstance(client_id, str) or not client_id:
            raise ApiError(400, "INVALID_REQUEST", "client_id must be a non-empty string.")
        if not isinstance(text, str):
            raise ApiError(400, "INVALID_REQUEST", "text must be a string.")
        if conversation_id is not None and not isinstance(conversation_id, str):
            raise ApiError(400, "INVALID_REQUEST", "conversation_id must be a string or null.")
        if parent_id is not NEWEST and parent_id is not None and not isinstance(parent_id, str):
            raise ApiError(400, "INVALID_REQUEST", "parent_id must be a message ID or null.")
        if sibling_of is not None and (not isinstance(sibling_of, str) or parent_id is not NEWEST):
            raise ApiError(400, "INVALID_REQUEST", "sibling_of must be a message ID, and comes without parent_id.")
        if not text.strip():
            raise ApiError(400, "EMPTY_MESSAGE", "The message is empty.")
        if len(text) > MAX_TEXT_LENGTH:
            raise ApiError(413, "MESSAGE_TOO_LONG", "Messages are limited to %d characters." % MAX_TEXT_LENGTH)
        self._style()  # reject a bad ?style= before anything is stored
        with state.lock:
            known = state.send_messages.get(client_id)
            if known is not None and known[0] in state.conversations:
                # Idempotent by client ID: no second message. Stream the stored reply again, or (when no
                # reply was stored: the first stream was cut, or the message came through the outbox)
                # produce it now, under the ID already announced.
                conversation = state.conversations[known[0]]
                user_message = conversation.find(known[1])
                reply = state.send_replies.get(client_id)
                if reply is None or reply.epoch != state.epoch:
                    reply = Reply(state.epoch, conversation.id, known[1], state.next_id("m"))
                    state.send_replies[client_id] = reply
                user_text = user_message["text"] if user_message else text
            else:
                if conversation_id is None:
                    if sibling_of is not None:
                        raise ApiError(404, "UNKNOWN_MESSAGE", "A new conversation has no message to be beside.")
                    self._check_parent(None, parent_id)
                    conversation = state.new_conversation(text[:40])
                else:
                    conversation = state.conversation(conversation_id)
                    self._check_accepts_messages(conversation)
                    if sibling_of is not None:
                        parent_id = self._parent_of(conversation, sibling_of)
                    self._check_parent(conversation, parent_id)
                user_message = state.new_message("user", text, client_id=client_id)
                state.add_message(conversation, user_message, parent_id=parent_id)
                state.send_messages[client_id] = (conversation.id, user_message["id"])
                reply = Reply(state.epoch, conversation.id, user_message["id"], state.next_id("m"))
                state.send_replies[client_id] = reply
                user_text = text
        return self._stream(reply, user_text, user_message)

    @staticmethod
    def _check_parent(conversation, parent_id):
        """A send's `parent_id` must name a message of its conversation (a new conversation has none)."""
        if isinstance(parent_id, str) and (conversation is None or conversation.find(parent_id) is None):
            raise ApiError(404, "UNKNOWN_MESSAGE", "No message %r to follow here." % (parent_id,))

    @staticmethod
    def _parent_of(conversation, sibling_of):
        """The parent of `sibling_of` (None when it is the first message), which the conversation must have."""
        if conversation.find(sibling_of) is None:
            raise ApiError(404, "UNKNOWN_MESSAGE", "No message %r to be beside here." % (sibling_of,))
        return conversation.parents.get(sibling_of)

    @staticmethod
    def _check_accepts_messages(conversation):
        if conversation.status == "unavailable":
            raise ApiError(503, "CHAT_UNAVAILABLE", "Chat is not available right now.")
        if conversation.status not in ACCEPTS_MESSAGES:
            raise ApiError(
                409, "CONVERSATION_NOT_ONGOING", "The conversation is %s." % conversation.status,
                conversation_status=conversation.status)

    def api_regenerate(self, conversation_id):
        state = self.state
        body = self._json_body()
        reply_to, answer = body.get("reply_to"), body.get("answer")
        if not isinstance(reply_to, str) or not (answer is None or isinstance(answer, str)):
            raise ApiError(400, "INVALID_REQUEST", "reply_to must be a string, answer a string or null.")
        self._style()
        key = self.headers.get("Idempotency-Key")
        with state.lock:
            conversation = state.conversation(conversation_id)
            reply = state.regenerate_replies.get(key) if key else None
            if reply is None or reply.epoch != state.epoch:
                if conversation.status != "ongoing":  # a human agent's or an ended conversation
                    raise ApiError(
                        409, "CONVERSATION_NOT_ONGOING", "The conversation is %s." % conversation.status,
                        conversation_status=conversation.status)
                question = conversation.find(reply_to)
                if question is None or question["role"] != "user":
                    raise ApiError(422, "UNKNOWN_MESSAGE", "No user message %r here." % reply_to)
                if answer is not None:
                    old = conversation.find(answer)
                    if old is None or old["role"] == "user" or id_number(answer, "m") < id_number(reply_to, "m"):
                        raise ApiError(422, "UNKNOWN_MESSAGE", "No answer %r to %r here." % (answer, reply_to))
                variant = conversation.regenerations.get(reply_to, 0) + 1
                conversation.regenerations[reply_to] = variant
                reply = Reply(state.epoch, conversation.id, reply_to, state.next_id("m"), variant, regenerates=True)
                if key:
                    state.regenerate_replies[key] = reply
            question = conversation.find(reply.user_message_id)
            user_text = question["text"] if question else ""
        return self._stream(reply, user_text, None)

    def api_messages(self, conversation_id):
        state = self.state
        query = self._query
        limit = self._page_size(query.get("limit"))
        before, after = query.get("before"), query.get("after")
        if before is not None and after is not None:
            raise ApiError(400, "INVALID_REQUEST", "before and after cannot be combined.")
        for name, cursor in (("before", before), ("after", after)):
            if cursor is not None and id_number(cursor, "m") is None:
                raise ApiError(400, "INVALID_REQUEST", "Unknown %s cursor %r." % (name, cursor))
        with state.lock:
            conversation = state.conversation(conversation_id)
            messages = conversation.messages
            next_cursor = None
            if after is not None or (before is None and limit is None):
                # Catch-up: the line after the ID, oldest first (IDs grow with time, so an ID off the line works).
                mark = id_number(after, "m") if after is not None else 0
                newer = [m for m in messages if id_number(m["id"], "m") > mark]
                page = newer[:limit] if limit else newer
                has_more = len(page) < len(newer)
            else:
                # History: the newest `limit` messages before the cursor, oldest first; pages go back in time.
                mark = id_number(before, "m") if before is not None else None
                older = [m for m in messages if mark is None or id_number(m["id"], "m") < mark]
                page = older[-limit:] if limit else older
                has_more = len(page) < len(older)
                next_cursor = page[0]["id"] if has_more else None
            return Response(200, {
                "messages": page,
                "next_cursor": next_cursor,
                "has_more": has_more,
                "title": conversation.title,
                "status": conversation.status,
                "read_up_to": conversation.read_up_to,
                "unread_count": conversation.unread_count(),
                "total_count": len(messages),
            })

    def api_list(self):
        state = self.state
        limit = self._page_size(self._query.get("limit")) or DEFAULT_LIST_LIMIT
        after = self._query.get("after")
        with state.lock:
            rows = [c.row() for c in state.conversations.values() if c.status != "not_found"]
            rows.sort(key=lambda r: (r["last_activity_at"], id_number(r["id"], "conv")), reverse=True)
            start = 0
            if after is not None:
                ids = [r["id"] for r in rows]
                if after not in ids:
                    raise ApiError(400, "INVALID_REQUEST", "Unknown cursor %r." % after)
                start = ids.index(after) + 1
            page = rows[start:start + limit]
            has_more = start + limit < len(rows)
            return Response(200, {"conversations": page, "next_cursor": page[-1]["id"] if has_more else None,
                                  "has_more": has_more, "total_count": len(rows)})

    def api_update_conversation(self, conversation_id):
        """`PATCH /v1/conversations/{id}`: sets what the body names (a client sends one field at a time; more
        are taken together), checked whole before anything changes, and broadcasts `conversation.updated`
        with what was set. 204."""
        state = self.state
        body = self._json_body()
        unknown = sorted(set(body) - set(CONVERSATION_CHANGES))
        if unknown:
            raise ApiError(400, "INVALID_REQUEST", "Unknown field(s): %s." % ", ".join(unknown))
        if not set(body) - {"pinned_at"}:
            raise ApiError(400, "INVALID_REQUEST", "Name what changes: title, pinned, archived or unread.")
        for key, kind in CONVERSATION_CHANGES.items():
            if key in body and not isinstance(body[key], kind):
                raise ApiError(400, "INVALID_REQUEST", "%s has the wrong type." % key)
        if "pinned_at" in body and body.get("pinned") is not True and body["pinned_at"] is not None:
            raise ApiError(400, "INVALID_REQUEST", "pinned_at goes with \"pinned\": true.")
        pinned_ms = None
        if body.get("pinned") is True and body.get("pinned_at") is not None:
            pinned_ms = parse_iso(body["pinned_at"])
            if pinned_ms is None:
                raise ApiError(400, "INVALID_REQUEST", "pinned_at must be an ISO 8601 time.")
        title = body.get("title")
        if title is not None:
            title = title.strip()
            if not title or len(title) > MAX_TITLE_LENGTH:
                raise ApiError(400, "INVALID_TITLE", "A title has 1 to %d characters." % MAX_TITLE_LENGTH)
            if title.startswith(REFUSED_TITLE_PREFIX):
                raise ApiError(400, "INVALID_TITLE", "Titles may not start with %r." % REFUSED_TITLE_PREFIX)
        with state.lock:
            conversation = state.conversation(conversation_id)
            told = {}
            if title is not None:
                conversation.title, conversation.title_set_by_user = title, True
                told["title"] = title
            if "pinned" in body:
                if body["pinned"]:
                    conversation.pinned_at = iso_from_ms(pinned_ms) if pinned_ms is not None else state.now()
                    told.update(pinned=True, pinned_at=conversation.pinned_at)
                else:
                    conversation.pinned_at = None
                    told["pinned"] = False
            if "archived" in body:
                conversation.archived = told["archived"] = body["archived"]
            if "unread" in body:
                conversation.unread = told["unread"] = body["unread"]
            state.add_event("conversation.updated", conversation.id, told)
        return Response(204)

    def api_delete_conversation(self, conversation_id):
        """`DELETE /v1/conversations/{id}`: the conversation and its messages go (later calls about it are 404,
        the list leaves it out), announced as `conversation.deleted`. 204; 404 when there is none."""
        state = self.state
        with state.lock:
            conversation = state.conversation(conversation_id)
            del state.conversations[conversation.id]
            for client_id, (owner, _) in list(state.send_messages.items()):
                if owner == conversation.id:
                    del state.send_messages[client_id]
                    state.send_replies.pop(client_id, None)
            for message_id, log in list(state.reply_logs.items()):
                if log.conversation_id == conversation.id:
                    del state.reply_logs[message_id]
            state.add_event("conversation.deleted", conversation.id, {})
        return Response(204)

    def api_rating(self, conversation_id, message_id):
        state = self.state
        body = self._json_body()
        rating = body.get("rating")
        if rating not in RATINGS:
            raise ApiError(400, "INVALID_REQUEST", "rating must be up, down or none.")
        with state.lock:
            conversation = state.conversation(conversation_id)
            if conversation.find(message_id) is None:
                raise ApiError(422, "UNKNOWN_MESSAGE", "No message %r here." % message_id)
            conversation.ratings[message_id] = rating
        return Response(204)

    def api_feedback(self, conversation_id):
        state = self.state
        body = self._json_body()
        rating, comment = body.get("rating"), body.get("comment")
        if rating not in ("up", "down") or not (comment is None or isinstance(comment, str)):
            raise ApiError(400, "INVALID_REQUEST", "rating must be up or down, comment a string or null.")
        with state.lock:
            conversation = state.conversation(conversation_id)
            conversation.feedback = {"rating": rating, "comment": comment, "at": state.now()}
        return Response(204)

    def api_read(self, conversation_id):
        state = self.state
        up_to = self._json_body().get("up_to")
        if not isinstance(up_to, str):
            raise ApiError(400, "INVALID_REQUEST", "up_to must be a message ID.")
        with state.lock:
            conversation = state.conversation(conversation_id)
            if conversation.find(up_to) is None:
                raise ApiError(422, "UNKNOWN_MESSAGE", "No message %r here." % up_to)
            self._move_read(conversation, up_to)
        return Response(204)

    @staticmethod
    def _move_read(conversation, up_to):
        # The read cursor only moves forward.
        if id_number(up_to, "m") > (id_number(conversation.read_up_to, "m") or 0):
            conversation.read_up_to = up_to

    def api_contact(self):
        """The anonymous user's contact details (one user per token here): replaced whole, null clears."""
        state = self.state
        body = self._json_body()
        email, name = body.get("email"), body.get("name")
        if not (email is None or (isinstance(email, str) and email.count("@") == 1 and len(email) <= 254)):
            raise ApiError(422, "INVALID_CONTACT", "email must be an address or null.")
        if not (name is None or (isinstance(name, str) and len(name) <= 128)):
            raise ApiError(422, "INVALID_CONTACT", "name must be a string of up to 128 characters or null.")
        with state.lock:
            state.contact = {"email": email, "name": name}
            state.contact_updates += 1
        return Response(204)

    def api_typing(self, conversation_id):
        state = self.state
        typing = self._json_body().get("typing")
        if not isinstance(typing, bool):
            raise ApiError(400, "INVALID_REQUEST", "typing must be true or false.")
        with state.lock:
            state.conversation(conversation_id).typing = typing
        return Response(204)

    def api_ticket(self):
        state = self.state
        body = self._json_body()
        conversation_id, subject, text = body.get("conversation_id"), body.get("subject"), body.get("body")
        category, priority = body.get("category"), body.get("priority")
        if not isinstance(subject, str) or not isinstance(text, str):
            raise ApiError(400, "INVALID_REQUEST", "subject and body must be strings.")
        if category is not None and not isinstance(category, str) or priority is not None and not isinstance(priority, str):
            raise ApiError(400, "INVALID_REQUEST", "category and priority must be strings when given.")
        if not subject.strip() or not text.strip():
            raise ApiError(400, "EMPTY_MESSAGE", "A ticket needs a subject and a body.")
        with state.lock:
            if conversation_id is not None:
                state.conversation(conversation_id)
            ticket_id = state.next_id("T")
            url = "https://support.example.com/tickets/%s" % ticket_id
            state.tickets.append({"ticket_id": ticket_id, "conversation_id": conversation_id, "subject": subject,
                                  "body": text, "category": category, "priority": priority, "url": url,
                                  "created_at": state.now()})
        return Response(200, {"ticket_id": ticket_id, "url": url})

    def api_tool_result(self, conversation_id):
        state = self.state
        body = self._json_body()
        tool_call_id = body.get("tool_call_id")
        has_result, has_error = "result" in body, "error" in body
        if not isinstance(tool_call_id, str) or has_result == has_error:
            raise ApiError(400, "INVALID_REQUEST", "Send tool_call_id with either result or error.")
        if has_error:
            error = body["error"]
            if not (isinstance(error, dict) and isinstance(error.get("code"), str)
                    and isinstance(error.get("message"), str)):
                raise ApiError(400, "INVALID_REQUEST", "error must be {\"code\", \"message\"}.")
        elif len(json_bytes(body["result"])) > MAX_TOOL_RESULT_BYTES:
            raise ApiError(413, "TOOL_RESULT_TOO_LARGE",
                           "Tool results are limited to %d bytes." % MAX_TOOL_RESULT_BYTES)
        with state.lock:
            state.conversation(conversation_id)
            call = state.tool_calls.get(tool_call_id)
            if call is None or call["conversation_id"] != conversation_id:
                raise ApiError(422, "UNKNOWN_TOOL_CALL", "No tool call %r in this conversation." % tool_call_id)
            if tool_call_id not in state.tool_results:  # the first result wins
                outcome = {"conversation_id": conversation_id, "at": state.now()}
                outcome.update({"error": body["error"]} if has_error else {"result": body["result"]})
                state.tool_results[tool_call_id] = outcome
                state.cond.notify_all()
        return Response(204)

    def api_outbox(self):
        state = self.state
        body = self._json_body()
        batch_id = body.get("batch_id", self.headers.get("Idempotency-Key"))
        operations = body.get("operations")
        first_sequence = body.get("first_sequence", 1)
        if not isinstance(batch_id, str) or not batch_id:
            raise ApiError(400, "INVALID_REQUEST", "batch_id must be a non-empty string.")
        if not isinstance(operations, list) or not isinstance(first_sequence, int):
            raise ApiError(400, "INVALID_REQUEST", "operations must be a list, first_sequence an integer.")
        epoch = body.get("epoch")
        with state.lock:
            server_epoch = state.faults.outbox_epoch
            if server_epoch is not None and epoch != server_epoch:
                # Nothing of a stale batch is taken; the answer says where the server numbers.
                raise ApiError(409, "OUTBOX_OUT_OF_SYNC",
                               "The batch is in epoch %r; the server numbers in %d." % (epoch, server_epoch),
                               extra={"epoch": server_epoch, "next_sequence": 1})
            if batch_id in state.batches:
                answer = {"duplicate": True, "rejections": []}
            else:
                def sequence(pair):
                    index, op = pair
                    number = op.get("sequence") if isinstance(op, dict) else None
                    return (number if isinstance(number, int) else first_sequence + index, index)

                rejections = []
                for _, op in sorted(enumerate(operations), key=sequence):
                    rejection = self._apply_operation(op)
                    if rejection is not None:
                        rejections.append(rejection)
                answer = {"duplicate": False, "rejections": rejections}
                state.batches[batch_id] = answer
                state.batch_order.append(batch_id)
            lose = state.faults.lose_next_batch_response
            state.faults.lose_next_batch_response = False
        if lose:
            self.abort_connection()  # applied, but the client never hears about it
            return None
        return Response(200, answer)

    def _apply_operation(self, op):
        """Applies one outbox operation (lock held). Returns a rejection, or None when accepted."""
        state = self.state

        def reject(reason, message):
            operation_id = op.get("id") if isinstance(op, dict) and isinstance(op.get("id"), str) else ""
            return {"operation_id": operation_id, "reason": reason, "message": message}

        if not isinstance(op, dict) or not isinstance(op.get("id"), str):
            return reject("INVALID_OPERATION", "An operation must be an object with an id.")
        kind, conversation_id = op.get("kind"), op.get("conversation_id")
        if kind not in ("send", "rate_answer", "rate_conversation", "mark_read", "host"):
            return reject("INVALID_OPERATION", "Unknown kind %r." % (kind,))
        if conversation_id is None and kind not in ("send", "host"):
            return reject("INVALID_OPERATION", "%s needs a conversation_id." % kind)
        conversation = None
        if conversation_id is not None:
            conversation = state.conversations.get(conversation_id)
            if conversation is None or conversation.status == "not_found":
                return reject("CONVERSATION_NOT_FOUND", "No conversation %r." % (conversation_id,))

        if kind == "host":
            # The host's own operations: this server knows two kinds, as a real one knows its own.
            host_kind, payload = op.get("host_kind"), op.get("payload")
            if host_kind not in HOST_OPERATION_KINDS:
                return reject("INVALID_OPERATION", "Unknown host operation %r." % (host_kind,))
            if not isinstance(payload, dict):
                return reject("INVALID_OPERATION", "A host operation's payload must be an object.")
            if len(json_bytes(payload)) > MAX_HOST_PAYLOAD_BYTES:
                return reject("TOO_LARGE", "Host payloads are limited to %d bytes." % MAX_HOST_PAYLOAD_BYTES)
            state.host_operations.append(
                {"id": op["id"], "host_kind": host_kind, "payload": payload, "conversation_id": conversation_id})
            return None

        if kind == "send":
            client_id, text, parent_id = op.get("client_id"), op.get("text"), op.get("parent_id", NEWEST)
            sibling_of = op.get("sibling_of")
            if not isinstance(client_id, str) or not client_id or not isinstance(text, str) or not text.strip():
                return reject("INVALID_OPERATION", "A send needs a client_id and a non-empty text.")
            if parent_id is not NEWEST and parent_id is not None and not isinstance(parent_id, str):
                return reject("INVALID_OPERATION", "parent_id must be a message ID or null.")
            if sibling_of is not None and (not isinstance(sibling_of, str) or parent_id is not NEWEST):
                return reject("INVALID_OPERATION", "sibling_of must be a message ID, and comes without parent_id.")
            if len(text) > MAX_TEXT_LENGTH:
                return reject("TOO_LARGE", "Messages are limited to %d characters." % MAX_TEXT_LENGTH)
            if client_id in state.send_messages:
                return None  # already have it (idempotent by client ID): accepted, nothing new
            if conversation is not None and conversation.status not in ACCEPTS_MESSAGES:
                return reject("CONVERSATION_NOT_ONGOING", "The conversation is %s." % conversation.status)
            if sibling_of is not None:
                if conversation is None or conversation.find(sibling_of) is None:
                    return reject("UNKNOWN_MESSAGE", "No message %r to be beside here." % (sibling_of,))
                parent_id = conversation.parents.get(sibling_of)
            if isinstance(parent_id, str) and (conversation is None or conversation.find(parent_id) is None):
                return reject("UNKNOWN_MESSAGE", "No message %r to follow here." % (parent_id,))
            if conversation is None:
                conversation = state.new_conversation(text[:40])
            message = state.new_message("user", text, client_id=client_id)
            state.add_message(conversation, message, parent_id=parent_id)
            state.send_messages[client_id] = (conversation.id, message["id"])
            if state.faults.outbox_replies and conversation.status == "ongoing":
                sources = answer_sources(text)
                answer = state.new_message("assistant", answer_text(text), agent=AGENT, finish_reason="stop",
                                           **({"sources": sources} if sources else {}))
                state.add_message(conversation, answer)
                state.send_replies[client_id] = Reply(state.epoch, conversation.id, message["id"], answer["id"])
                state.send_replies[client_id].committed = answer
            return None

        if kind == "rate_answer":
            message_id, rating = op.get("message_id"), op.get("rating")
            if rating not in RATINGS:
                return reject("INVALID_OPERATION", "rating must be up, down or none.")
            if not isinstance(message_id, str) or conversation.find(message_id) is None:
                return reject("UNKNOWN_MESSAGE", "No message %r here." % (message_id,))
            conversation.ratings[message_id] = rating
            return None

        if kind == "rate_conversation":
            rating, comment = op.get("rating"), op.get("comment")
            if rating not in ("up", "down") or not (comment is None or isinstance(comment, str)):
                return reject("INVALID_OPERATION", "rating must be up or down, comment a string or null.")
            conversation.feedback = {"rating": rating, "comment": comment, "at": state.now()}
            return None

        up_to = op.get("up_to")  # mark_read
        if not isinstance(up_to, str) or conversation.find(up_to) is None:
            return reject("UNKNOWN_MESSAGE", "No message %r here." % (up_to,))
        self._move_read(conversation, up_to)
        return None

    def api_events(self):
        """The realtime stream: replay after Last-Event-ID, then live events, keepalives when idle."""
        state = self.state
        header = self.headers.get("Last-Event-ID")
        last_id = None
        if header is not None and header.strip():
            try:
                last_id = int(header.strip())
            except ValueError:
                raise ApiError(400, "INVALID_REQUEST", "Last-Event-ID must be an event ID of this server.")
        only = self._query.get("conversation_id")  # optional filter
        with state.lock:
            if last_id is None:
                cursor = len(state.events)  # a fresh connection gets live events only
            elif last_id > len(state.events) or last_id < 0:
                cursor = 0  # an ID this server never issued (from before a reset): replay everything
            else:
                cursor = last_id
            generation = state.realtime_generation
            state.realtime_handlers.add(self)
        try:
            self.start_stream()
            self.write_chunk(b"retry: 1000\n\n")
            last_write = time.monotonic()
            while True:
                with state.lock:
                    while True:
                        if generation != state.realtime_generation or state.stopping:
                            raise StreamCut()
                        if len(state.events) > cursor:
                            batch = state.events[cursor:]
                            cursor = len(state.events)
                            break
                        remaining = last_write + state.faults.keepalive_s - time.monotonic()
                        if remaining <= 0:
                            batch = None
                            break
                        state.cond.wait(remaining)
                if batch is None:
                    self.write_chunk(b": keepalive\n\n")
                else:
                    frames = b"".join(self._event_bytes(e) for e in batch
                                      if only is None or e["data"].get("conversation_id") == only)
                    if frames:
                        self.write_chunk(frames)
                last_write = time.monotonic()
        except StreamCut:
            self.abort_connection()
        except OSError:
            self.close_connection = True
        finally:
            with state.lock:
                state.realtime_handlers.discard(self)
        return None

    @staticmethod
    def _event_bytes(event):
        data = event.get("raw_data")
        if data is None:
            data = json.dumps(event["data"], ensure_ascii=False)
        lines = "".join("data: %s\n" % line for line in data.split("\n"))
        return ("id: %d\nevent: %s\n%s\n" % (event["id"], event["event"], lines)).encode("utf-8")

    # /control --------------------------------------------------------------------------------------

    def _control(self, method, path):
        state = self.state
        name = path[len(CONTROL_PREFIX):].strip("/")
        if method == "GET" and name == "state":
            with state.lock:
                # Serialize under the lock: the dump shares live lists and dicts.
                return Response(200, json.loads(json.dumps(state.dump())))
        if method != "POST":
            raise ApiError(405, "METHOD_NOT_ALLOWED", "Control calls are POST (GET for /control/state).")
        body = self._json_body() if self._body.strip() else {}
        with state.lock:
            if name == "reset":
                state.reset()
                return Response(200, {"ok": True})
            if name == "faults":
                return Response(200, {"faults": self._apply_faults(body)})
            if name == "events":
                event_type, data, raw = body.get("type"), body.get("data", {}), body.get("raw_data")
                if not isinstance(event_type, str) or not isinstance(data, dict) or not (
                        raw is None or isinstance(raw, str)):
                    raise ApiError(400, "INVALID_REQUEST", "Send type (string), data (object), raw_data (string).")
                event_id = state.add_event(event_type, body.get("conversation_id"), data, raw)
                return Response(200, {"event_id": event_id})
            if name == "agent_message":
                conversation = state.conversation(body.get("conversation_id"))
                text, role = body.get("text"), body.get("role", "assistant")
                sources = body.get("sources")
                if not isinstance(text, str) or role not in ("assistant", "human_agent", "system"):
                    raise ApiError(400, "INVALID_REQUEST",
                                   "text must be a string; role assistant, human_agent or system.")
                if sources is not None and not isinstance(sources, list):
                    raise ApiError(400, "INVALID_REQUEST", "sources must be a list (sent as given).")
                extra = {"agent": HUMAN_AGENT if role == "human_agent" else AGENT} if role != "system" else {}
                if sources is not None:
                    extra["sources"] = sources  # as given, unchecked: tests send sources a client must refuse
                message = state.new_message(role, text, **extra)
                state.add_message(conversation, message)
                return Response(200, {"message": message, "event_id": len(state.events)})
            if name == "conversations":
                return Response(200, self._seed_conversation(body))
            if name == "conversation_status":
                conversation = state.conversations.get(body.get("conversation_id"))
                status = body.get("status")
                if conversation is None:
                    raise ApiError(404, "CONVERSATION_NOT_FOUND", "No such conversation.")
                if status not in STATUSES:
                    raise ApiError(400, "INVALID_REQUEST", "status must be one of %s." % ", ".join(STATUSES))
                conversation.status = status
                event_id = state.add_event("conversation.status", conversation.id, {"status": status})
                return Response(200, {"event_id": event_id})
        raise ApiError(404, "NOT_FOUND", "No control call %r." % name)

    def _apply_faults(self, body):
        state = self.state
        faults = state.faults
        known = {"delay_ms", "drop_reply_after_frames", "detach_reply_after_frames", "drop_resume_after_frames",
                 "rate_limit_next", "expire_token_after_requests",
                 "accepted_token", "lose_next_batch_response", "drop_realtime", "malformed_next_reply_frame",
                 "style", "keepalive_s", "tool_timeout_s", "outbox_replies", "realtime_reply_events",
                 "outbox_epoch"}
        unknown = sorted(set(body) - known)
        if unknown:
            raise ApiError(400, "INVALID_REQUEST", "Unknown fault(s): %s." % ", ".join(unknown))

        def number(key, minimum=0):
            value = body[key]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < minimum:
                raise ApiError(400, "INVALID_REQUEST", "%s must be a number >= %s." % (key, minimum))
            return value

        def flag(key):
            if not isinstance(body[key], bool):
                raise ApiError(400, "INVALID_REQUEST", "%s must be true or false." % key)
            return body[key]

        # Validate everything before changing anything.
        updates = {}
        for key in ("delay_ms", "keepalive_s", "tool_timeout_s"):
            if key in body:
                updates[key] = number(key)
        if "keepalive_s" in updates and updates["keepalive_s"] <= 0:
            raise ApiError(400, "INVALID_REQUEST", "keepalive_s must be > 0.")
        for key in ("drop_reply_after_frames", "detach_reply_after_frames", "drop_resume_after_frames",
                    "expire_token_after_requests"):
            if key in body:
                updates[key] = None if body[key] is None else int(number(key))
        for key in ("lose_next_batch_response", "malformed_next_reply_frame", "outbox_replies",
                    "realtime_reply_events", "drop_realtime"):
            if key in body:
                updates[key] = flag(key)
        if "outbox_epoch" in body:
            updates["outbox_epoch"] = None if body["outbox_epoch"] is None else int(number("outbox_epoch", 1))
        if "style" in body:
            if body["style"] not in STYLES:
                raise ApiError(400, "INVALID_REQUEST", "style must be typed or frames.")
            updates["style"] = body["style"]
        if "accepted_token" in body:
            if not isinstance(body["accepted_token"], str) or not body["accepted_token"]:
                raise ApiError(400, "INVALID_REQUEST", "accepted_token must be a non-empty string.")
            updates["accepted_token"] = body["accepted_token"]
        if "rate_limit_next" in body:
            spec = body["rate_limit_next"]
            count = spec.get("count", 1) if isinstance(spec, dict) else None
            retry_after = spec.get("retry_after", 1) if isinstance(spec, dict) else None
            if (not isinstance(count, int) or isinstance(count, bool) or count < 0
                    or isinstance(retry_after, bool) or not isinstance(retry_after, (int, float)) or retry_after < 0):
                raise ApiError(400, "INVALID_REQUEST", "rate_limit_next is {\"count\": N, \"retry_after\": seconds}.")
            updates["rate_limit_remaining"], updates["rate_limit_retry_after"] = count, retry_after

        drop = updates.pop("drop_realtime", False)
        if "accepted_token" in updates:
            faults.token_expired = False  # a new token works until told otherwise
        for key, value in updates.items():
            setattr(faults, key, value)
        if drop:
            state.drop_realtime()
        state.cond.notify_all()  # streams re-read keepalive_s and the like
        return faults.snapshot()

    def _seed_conversation(self, body):
        """Creates a conversation with N alternating user/assistant messages in the past (not broadcast)."""
        state = self.state
        title, count = body.get("title", "Seeded conversation"), body.get("messages", 0)
        status, broadcast = body.get("status", "ongoing"), body.get("broadcast", False)
        if not isinstance(title, str) or isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ApiError(400, "INVALID_REQUEST", "title must be a string, messages a count.")
        if status not in STATUSES or not isinstance(broadcast, bool):
            raise ApiError(400, "INVALID_REQUEST", "status must be one of %s." % ", ".join(STATUSES))
        conversation = state.new_conversation(title)
        base = state.now_ms() - count * 1000  # one message a second, ending now
        conversation.created_at = iso_from_ms(base - 1000)
        for index in range(count):
            created_at = iso_from_ms(base + index * 1000)
            if index % 2 == 0:
                message = state.new_message("user", "Message %d" % (index + 1), created_at=created_at)
            else:
                message = state.new_message("assistant", "Message %d" % (index + 1), created_at=created_at,
                                            agent=AGENT, finish_reason="stop")
            state.add_message(conversation, message, broadcast=broadcast)
        conversation.status = status
        return {"conversation_id": conversation.id, "message_ids": [m["id"] for m in conversation.messages]}


# ---------------------------------------------------------------------------------------------------
# Process
# ---------------------------------------------------------------------------------------------------


class Server(ThreadingHTTPServer):
    # A listen backlog of 5 (the default) overflows when a test opens connections quickly on a loaded
    # machine: a dropped SYN is retried after 1, 3, 7, 15 s, longer than a test's request timeout.
    request_queue_size = 128
    daemon_threads = True
    # ThreadingMixIn would otherwise join every handler thread on close, and realtime streams never end.
    block_on_close = False
    verbose = False

    def handle_error(self, request, client_address):
        if self.verbose:
            super().handle_error(request, client_address)


class Server6(Server):
    address_family = socket.AF_INET6


def make_server(config):
    state = ChatState(config)
    handler = type("BoundHandler", (Handler,), {"state": state, "verbose": config.verbose})
    server_class = Server6 if ":" in config.host else Server
    server = server_class((config.host, config.port), handler)
    server.verbose = config.verbose
    return server, state


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description="Reference server for Docs/HTTP-PROTOCOL.md.")
    parser.add_argument("--token", default="secret", help="the bearer token accepted at start")
    parser.add_argument("--style", choices=STYLES, default="typed", help="reply frame style")
    parser.add_argument("--delay-ms", type=float, default=20, help="pause between reply frames")
    parser.add_argument("--keepalive-s", type=float, default=5, help="realtime keepalive interval")
    parser.add_argument("--tool-timeout-s", type=float, default=10, help="how long a client tool call waits")
    add_common_arguments(parser)
    return parser.parse_args(argv)


def main(argv=None):
    config = parse_args(argv)
    server, state = make_server(config)

    def wake_streams():
        with state.lock:
            state.stopping = True
            state.cond.notify_all()
        server.shutdown()

    serve_until_stopped(
        [server], server.server_address[1], watch_stdin=not config.no_stdin_watch, poll_s=0.5,
        before_exit=wake_streams)


if __name__ == "__main__":
    main()
