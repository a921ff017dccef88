"""A scripted OpenAI Responses API server for the resume tests (Python 3 standard library only).

LLMock streams the Responses API but keeps no background responses, so it has no resume endpoint; this
server scripts one reply and serves the two requests a resume involves, as OpenAI documents them:

  POST /case/<drop>/<resume_drop>/v1/responses
      `stream: true` answers the scripted reply as typed events (`event: <type>`, `data: {... "type",
      "sequence_number" ...}`, numbered from 0), with Transfer-Encoding chunked as OpenAI sends it. With
      `background: true` the response is kept for the resume endpoint. `<drop>` is how many events go out
      before the connection is cut mid-chunk (`none`: all of them); the response goes on without the client.
  GET /case/<drop>/<resume_drop>/v1/responses/<id>?stream=true[&starting_after=N]
      the kept response's events after N (all without it), cut after `<resume_drop>` events (`none`: all);
      404 with OpenAI's error body for a response it does not keep, and when `<resume_drop>` is `gone`.
  GET /requests
      every request so far: method, path, query and the JSON body.

The reply: reasoning "Counting up." (a summary in two deltas), then the text "one two three four five."
in five deltas, then response.completed: 20 events, sequence numbers 0 to 19.

It prints `LISTENING <port>` once it listens, and exits when its stdin closes.
"""

import argparse
import json
import os
import sys
import threading
from urllib.parse import parse_qs, urlparse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "ChatHTTPTests", "ServerSupport"))
from local_server import BackloggedHTTPServer, JSONRequestHandler, add_common_arguments, serve_until_stopped  # noqa: E402,E501

KEPT = {}  # response id -> its events
REQUESTS = []
LOCK = threading.Lock()
COUNTER = [0]


def scripted_events(response_id):
    """The scripted reply's events, numbered."""
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": []}
    message = {"type": "message", "id": "msg_1", "status": "in_progress", "role": "assistant", "content": []}
    words = ["one ", "two ", "three ", "four ", "five."]
    text = "".join(words)
    done_message = dict(message, status="completed",
                        content=[{"type": "output_text", "text": text, "annotations": []}])
    done_reasoning = dict(reasoning, summary=[{"type": "summary_text", "text": "Counting up."}])
    response = {"id": response_id, "object": "response", "status": "in_progress", "background": True, "output": []}
    events = [
        {"type": "response.created", "response": response},
        {"type": "response.in_progress", "response": response},
        {"type": "response.output_item.added", "output_index": 0, "item": reasoning},
        {"type": "response.reasoning_summary_part.added", "item_id": "rs_1", "output_index": 0, "summary_index": 0,
         "part": {"type": "summary_text", "text": ""}},
        {"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "output_index": 0, "summary_index": 0,
         "delta": "Counting"},
        {"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "output_index": 0, "summary_index": 0,
         "delta": " up."},
        {"type": "response.reasoning_summary_text.done", "item_id": "rs_1", "output_index": 0, "summary_index": 0,
         "text": "Counting up."},
        {"type": "response.reasoning_summary_part.done", "item_id": "rs_1", "output_index": 0, "summary_index": 0,
         "part": {"type": "summary_text", "text": "Counting up."}},
        {"type": "response.output_item.done", "output_index": 0, "item": done_reasoning},
        {"type": "response.output_item.added", "output_index": 1, "item": message},
        {"type": "response.content_part.added", "item_id": "msg_1", "output_index": 1, "content_index": 0,
         "part": {"type": "output_text", "text": "", "annotations": []}},
    ]
    for word in words:
        events.append({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 1,
                       "content_index": 0, "delta": word, "logprobs": []})
    events += [
        {"type": "response.output_text.done", "item_id": "msg_1", "output_index": 1, "content_index": 0,
         "text": text, "logprobs": []},
        {"type": "response.content_part.done", "item_id": "msg_1", "output_index": 1, "content_index": 0,
         "part": {"type": "output_text", "text": text, "annotations": []}},
        {"type": "response.output_item.done", "output_index": 1, "item": done_message},
        {"type": "response.completed",
         "response": dict(response, status="completed", output=[done_reasoning, done_message],
                          usage={"input_tokens": 12, "output_tokens": 9, "total_tokens": 21})},
    ]
    for number, event in enumerate(events):
        event["sequence_number"] = number
    return events


def count(segment):
    """A path segment's event count, or None for `none`."""
    return None if segment == "none" else int(segment)


class Handler(JSONRequestHandler):
    protocol_version = "HTTP/1.1"

    def record(self, body):
        url = urlparse(self.path)
        with LOCK:
            REQUESTS.append({"method": self.command, "path": url.path, "query": url.query, "body": body})

    def do_GET(self):
        url = urlparse(self.path)
        if url.path == "/requests":
            with LOCK:
                return self.answer(200, REQUESTS)
        self.record(None)
        segments = url.path.strip("/").split("/")
        # case/<drop>/<resume_drop>/v1/responses/<id>
        if len(segments) != 6 or segments[0] != "case" or segments[3:5] != ["v1", "responses"]:
            return self.answer(404, {"error": {"message": "No such path.", "type": "invalid_request_error"}})
        query = parse_qs(url.query)
        with LOCK:
            events = KEPT.get(segments[5])
        if events is None or query.get("stream") != ["true"] or segments[2] == "gone":
            return self.answer(404, {"error": {"message": f"No response found with id '{segments[5]}'.",
                                               "type": "invalid_request_error", "code": "not_found"}})
        after = int(query["starting_after"][0]) if "starting_after" in query else -1
        self.stream([event for event in events if event["sequence_number"] > after], count(segments[2]))

    def do_POST(self):
        url = urlparse(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        self.record(body)
        segments = url.path.strip("/").split("/")
        if len(segments) != 5 or segments[0] != "case" or segments[3:] != ["v1", "responses"]:
            return self.answer(404, {"error": {"message": "No such path.", "type": "invalid_request_error"}})
        with LOCK:
            COUNTER[0] += 1
            response_id = f"resp_{COUNTER[0]}"
        events = scripted_events(response_id)
        if body.get("background") is True:
            with LOCK:
                KEPT[response_id] = events
        self.stream(events, count(segments[1]))

    def stream(self, events, drop):
        """Writes `events` in HTTP chunks, one an event; after `drop` of them the connection is cut."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        sent = events if drop is None else events[:drop]
        for event in sent:
            data = f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()
        if drop is not None and drop < len(events):
            # Cut mid-chunk: the client sees the body fail, as when a connection drops.
            self.wfile.write(b"40\r\nevent: response.output")
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_common_arguments(parser)
    args = parser.parse_args()
    server = BackloggedHTTPServer((args.host, args.port), Handler)
    server.verbose = args.verbose
    serve_until_stopped([server], server.server_address[1], watch_stdin=not args.no_stdin_watch)


if __name__ == "__main__":
    main()
