"""A real OpenAI-compatible producer for the tests: LLMock 0.2.2's FastAPI app on uvicorn (no model, no
network). It speaks what LLMock emits for Chat Completions (POST /v1/chat/completions) and the Responses
API (POST /v1/responses), streaming or not, with tool calls, and breaks on demand through LLMock's control
API (POST /_llmock/scenario; see README.md, "LLMock").

Deterministic set-up, whatever LLMOCK_* variables the environment holds (they are dropped):
  - no random chaos: no sampled HTTP errors, no sampled stream faults, no latency, no quotas, and no pause
    between chunks unless `--chunk-delay-ms N` (every stream then takes N ms per chunk after the first);
  - replies in `--response-style` (default `echo`: "Hello! You said: <the prompt>", the prompt being every
    message's text joined by spaces, whitespace collapsed, cut at 120 characters; `static`:
    "Mock response from <model>."), unless a `reply` behaviour scripts the text;
  - `--tool-mode` (default `auto`): a request that offers tools and whose last message is not a tool
    result gets a call to the best-matching tool with schema-valid arguments; after the result, text.
IDs (chatcmpl-…, resp_…, call_…, msg_…, fc_…) and `created` timestamps are random/current: LLMock has no
seed for them.

Besides LLMock's own /_llmock routes this wrapper adds three read-only/narrow ones so that tests running in
parallel on one server can keep apart by model name (LLMock's journal, verdict and reset are global):
  GET    /_llmock/scoped/verdict?model=NAME    the verdict over only the requests whose "model" is NAME
  GET    /_llmock/scoped/requests?model=NAME   those requests (same shape as GET /_llmock/requests)
  DELETE /_llmock/scoped/scenario?model=NAME   drop the queued behaviours whose match.model is NAME

Serves on 127.0.0.1 (see ../ChatHTTPTests/ServerSupport/local_server.py for the rules every local test
server keeps: `LISTENING <port>`, stop on SIGTERM or stdin EOF).
"""

import argparse
import os
import socket
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ChatHTTPTests", "ServerSupport"))
from local_server import add_common_arguments  # noqa: E402

# LLMock reads its settings from LLMOCK_* variables (llmock.main builds a default app at import time):
# drop them so that nothing in the environment makes this server random or slow.
for _name in [n for n in os.environ if n.startswith("LLMOCK_")]:
    del os.environ[_name]

import uvicorn  # noqa: E402
from fastapi import Request  # noqa: E402
from llmock import __version__ as llmock_version  # noqa: E402
from llmock.chaos import ChaosSettings, StreamChaos  # noqa: E402
from llmock.main import create_app  # noqa: E402
from llmock.ratelimit import LimitSettings  # noqa: E402
from llmock.simulation import SUPPORTED_RESPONSE_STYLES, SUPPORTED_TOOL_MODES, MockResponseSettings  # noqa: E402
from llmock.verdict import judge  # noqa: E402

# What /_llmock/verdict waits for requests still in flight (llmock.admin._WAIT_SECONDS).
_WAIT_SECONDS = 2.0


def build_app(response_style="echo", tool_mode="auto", chunk_delay_ms=0):
    app = create_app(
        chaos=ChaosSettings(),
        responses=MockResponseSettings(response_style=response_style, tool_mode=tool_mode),
        limits=LimitSettings(),
        stream_chaos=StreamChaos(chunk_delay_ms=chunk_delay_ms),
    )
    state = app.state.llmock

    def records_for(model):
        return [r for r in state.journal.records(wait=_WAIT_SECONDS) if r.model == model]

    def scoped_verdict(request: Request, model: str, format: str = "json"):
        result = judge(records_for(model))
        if format == "text":
            from fastapi.responses import PlainTextResponse

            return PlainTextResponse(result.render())
        return result.to_dict()

    def scoped_requests(request: Request, model: str):
        records = records_for(model)
        return {"count": len(records), "requests": [r.to_dict() for r in records]}

    def scoped_clear(request: Request, model: str):
        queue = state.scenarios
        # ScenarioQueue has no selective clear: filter its entries under its own lock (llmock 0.2.2 internals).
        with queue._lock:
            before = len(queue._entries)
            queue._entries = [e for e in queue._entries if e[0].match.model != model]
            dropped = before - len(queue._entries)
            left = len(queue._entries)
        return {"dropped": dropped, "pending": left}

    # Plain functions, as LLMock's own /_llmock routes are: FastAPI runs them on its thread pool. A read waits
    # (blocking, on a condition) up to _WAIT_SECONDS for requests in flight; on the event loop that wait froze
    # the whole server, the very requests it waited for included, so every read took the full 2 s while any
    # stream was open and held every other test's streams for as long.
    # Under /_llmock, so that LLMock's middleware neither journals them nor lets them consume behaviours.
    app.add_api_route("/_llmock/scoped/verdict", scoped_verdict, methods=["GET"], response_model=None)
    app.add_api_route("/_llmock/scoped/requests", scoped_requests, methods=["GET"])
    app.add_api_route("/_llmock/scoped/scenario", scoped_clear, methods=["DELETE"])
    return app


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_common_arguments(parser)
    parser.add_argument("--response-style", default="echo", choices=sorted(SUPPORTED_RESPONSE_STYLES),
                        help="unscripted reply text (default echo)")
    parser.add_argument("--tool-mode", default="auto", choices=sorted(SUPPORTED_TOOL_MODES),
                        help="auto: call an offered tool, then answer its result in text; off: always text")
    parser.add_argument("--chunk-delay-ms", type=int, default=0,
                        help="pause between streamed chunks, on every stream (default 0: as fast as possible)")
    args = parser.parse_args()
    app = build_app(args.response_style, args.tool_mode, args.chunk_delay_ms)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    sock.listen(64)
    # h11 and the asyncio loop: the same HTTP stack whether or not uvicorn[standard]'s httptools/uvloop are
    # installed. A graceful shutdown waits at most 1 s for streams in flight (a scripted stall lasts 30 s).
    server = uvicorn.Server(uvicorn.Config(
        app, log_level="info" if args.verbose else "error", lifespan="off", http="h11", loop="asyncio",
        timeout_graceful_shutdown=1,
    ))

    def stop_when_parent_goes():
        try:
            while os.read(sys.stdin.fileno(), 4096):
                pass
        except OSError:
            pass
        os._exit(0)

    if not args.no_stdin_watch:
        threading.Thread(target=stop_when_parent_goes, name="stdin-watch", daemon=True).start()
    if args.verbose:
        sys.stderr.write("llmock %s, response_style=%s, tool_mode=%s, chunk_delay_ms=%d\n"
                         % (llmock_version, args.response_style, args.tool_mode, args.chunk_delay_ms))
    sys.stdout.write("LISTENING %d\n" % sock.getsockname()[1])
    sys.stdout.flush()
    server.run(sockets=[sock])


if __name__ == "__main__":
    main()
