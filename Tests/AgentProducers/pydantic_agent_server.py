"""A real AG-UI and Vercel AI producer for the tests: Pydantic AI's AG-UI and Vercel AI adapters on
Starlette, with a scripted `FunctionModel` (no model, no network). It speaks exactly what the adapters emit.

What the agent does depends on the latest user message:
  "hello"  text in three deltas            "think"  reasoning, then text
  "weather" the server tool get_weather, its result, then text
  "color"  the app's own tool pick_color: the run ends with it pending; the next run, carrying its result,
           answers with it
  "delete" the tool delete_files on the file named after it ("delete b.txt"; a.txt when none is), which needs
           approval: the run ends waiting; an answer that approves runs it and answers, one that denies answers
           without it. The call is call_delete, the conversation's second call_delete_2, and so on
  "delete <file> wait <gate>"  the same, but the request that carries the approval's answer waits for <gate>
           (POST /gates/<gate>) before it responds at all: the client's answer stays waiting, with that request
           on its way, for as long as a test needs
  "hold <gate>"  "Part one, " at once, then nothing until the test opens <gate> (POST /gates/<gate>), then
           "part two.": an answer that streams for as long as a test needs, with no clock involved

Routes (127.0.0.1):
  GET  /requests         every request received so far, oldest first: [{"path", "body", "started", "ended",
                         "completed"}]. `started` and `ended` are ticks of one counter (not times): `started`
                         when the request came in, `ended` just before the last piece of its response went out
                         (as LLMock's journal records it); `completed` whether the response went out whole
                         (false while it streams and for one the client left)
  POST /gates/<gate>     opens <gate> (before or while a "hold <gate>" answer waits on it): {"opened": <gate>}
  POST /agent            AG-UI 1.0 (AGUIAdapter). pick_color is the client's tool, advertised in
                         RunAgentInput.tools; the answer is a `tool` message. An approval is an interrupt
                         (outcome `interrupt`); the next run resumes it (`resume: [{interruptId, status,
                         payload: {approved, reason?}}]`).
  POST /vercel/v5/chat   the AI SDK UI message stream v1 (VercelAIAdapter, sdk_version=5)
  POST /vercel/v6/chat   the same with sdk_version=6
      The body is what `useChat` sends: {id, messages: [UIMessage], trigger, messageId?}. pick_color is an
      external tool on these routes (the AI SDK has no way to advertise tools in the request): the stream
      ends after its `tool-input-available` (finish without finishReason); the next request resends the
      assistant message with the part {"type": "tool-pick_color", "toolCallId": "call_color",
      "state": "output-available", "input": {}, "output": "teal"}.
      delete_files on v6 streams `tool-approval-request` {approvalId: toolCallId}; the next request resends
      the part with "state": "approval-responded", "approval": {"id", "approved", "reason"?}. v5 has no
      approvals: the call is left like pick_color (no approval chunk) and the answer is a tool output
      (state output-available, or output-error) that stands for the tool's result; an approval-responded
      part sent to v5 is dropped as unresolved and the model calls the tool again.

The rules every local test server keeps (`LISTENING <port>`, stop on SIGTERM or stdin EOF) are in
../ChatHTTPTests/ServerSupport/local_server.py.
"""

import argparse
import asyncio
import itertools
import json
import os
import socket
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ChatHTTPTests", "ServerSupport"))
from local_server import add_common_arguments  # noqa: E402

import uvicorn  # noqa: E402
from pydantic_ai import Agent, DeferredToolRequests  # noqa: E402
from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart, UserPromptPart  # noqa: E402
from pydantic_ai.models.function import AgentInfo, DeltaThinkingPart, DeltaToolCall, FunctionModel  # noqa: E402
from pydantic_ai.tools import ToolDefinition  # noqa: E402
from pydantic_ai.toolsets import ExternalToolset  # noqa: E402
from pydantic_ai.ui.ag_ui import AGUIAdapter  # noqa: E402
from pydantic_ai.ui.vercel_ai import VercelAIAdapter  # noqa: E402
from starlette.applications import Starlette  # noqa: E402
from starlette.responses import JSONResponse  # noqa: E402
from starlette.routing import Route  # noqa: E402


def latest_prompt(messages):
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, UserPromptPart) and isinstance(part.content, str):
                    return part.content.lower()
    return ""


async def stream(messages, info: AgentInfo):
    last = messages[-1]
    returns = [part for part in getattr(last, "parts", []) if isinstance(part, ToolReturnPart)]
    if returns:
        # The run continues after a tool: answer with what it returned.
        result = returns[-1]
        if result.outcome == "denied":
            # A denied approval (or a cancelled interrupt): say so, without running it.
            yield "I did not run %s: " % result.tool_name
            yield str(result.content)
            return
        yield "The %s tool said: " % result.tool_name
        yield str(result.content)
        return
    prompt = latest_prompt(messages)
    words = prompt.split()
    if "hold" in words[:-1]:
        yield "Part one, "
        await gate(words[words.index("hold") + 1]).wait()
        yield "part two."
    elif "think" in prompt:
        yield {0: DeltaThinkingPart(content="The user wants ")}
        yield {0: DeltaThinkingPart(content="a considered answer.")}
        yield "Here is my considered answer."
    elif "weather" in prompt:
        yield {0: DeltaToolCall(name="get_weather", json_args='{"city": ', tool_call_id="call_weather")}
        yield {0: DeltaToolCall(json_args='"Berlin"}')}
    elif "color" in prompt:
        yield {0: DeltaToolCall(name="pick_color", json_args="{}", tool_call_id="call_color")}
    elif "delete" in prompt:
        named = words[words.index("delete") + 1].strip(",.") if "delete" in words[:-1] else ""
        path = named if "." in named else "a.txt"
        arguments = json.dumps({"paths": [path]})
        # Each call of a conversation has an ID of its own, as a model's have: call_delete, call_delete_2, …
        earlier = sum(1 for message in messages if isinstance(message, ModelResponse) for part in message.parts
                      if isinstance(part, ToolCallPart) and part.tool_name == "delete_files")
        call_id = "call_delete" if earlier == 0 else "call_delete_%d" % (earlier + 1)
        yield {0: DeltaToolCall(name="delete_files", json_args=arguments, tool_call_id=call_id)}
    else:
        for piece in ["Hello", "! How can ", "I help?"]:
            yield piece


# The gates "hold <gate>" answers and "wait <gate>" approvals wait on, by name; opened by POST /gates/<gate>,
# never closed again.
GATES = {}


def gate(name):
    return GATES.setdefault(name, asyncio.Event())


async def open_gate(request):
    name = request.path_params["name"]
    gate(name).set()
    return JSONResponse({"opened": name})


# DeferredToolRequests among the outputs lets a run end waiting for an approval (an AG-UI interrupt) even
# when the client advertises no tools of its own (with them, the adapter adds it by itself).
agent = Agent(
    FunctionModel(stream_function=stream), instructions="A scripted test agent.", output_type=[str, DeferredToolRequests]
)


@agent.tool_plain
def get_weather(city: str) -> dict:
    """The forecast for a city."""
    return {"city": city, "forecast": "sunny"}


@agent.tool_plain(requires_approval=True)
def delete_files(paths: list[str]) -> str:
    """Deletes files (after the user approves)."""
    return "deleted %s" % ", ".join(paths)


# Every request received, oldest first, with its path and body (what a test checks the client sent), and when
# it came in and its response went out, in ticks of TICKS: one request came after another's response ended
# when its `started` is above the other's `ended`.
RECEIVED = []
TICKS = itertools.count(1)


async def remember(request):
    try:
        body = await request.json()  # Starlette keeps the body: the adapter reads it again
    except ValueError:
        body = None
    entry = {"path": request.url.path, "body": body, "started": next(TICKS), "ended": None, "completed": False}
    RECEIVED.append(entry)
    return entry


def tracked(entry, response):
    """`response`, noting in `entry` when each piece of it goes out (the last one's tick stays) and whether it
    went out whole."""
    pieces = getattr(response, "body_iterator", None)
    if pieces is None:
        entry["ended"], entry["completed"] = next(TICKS), True
        return response

    async def noted():
        async for piece in pieces:
            entry["ended"] = next(TICKS)
            yield piece
        entry["completed"] = True

    response.body_iterator = noted()
    return response


def latest_user_text(body):
    """The text of the latest user message of an AG-UI or AI SDK request body, lowercased."""
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content.lower()
            parts = message.get("parts") or []
            return "".join(part.get("text", "") for part in parts if part.get("type") == "text").lower()
    return ""


def answers_approval(body):
    """Whether the request carries the answer to an approval: an AG-UI resume, or an AI SDK assistant message
    resent with an approval-responded part."""
    if body.get("resume"):
        return True
    messages = body.get("messages") or []
    last = messages[-1] if messages else {}
    return last.get("role") == "assistant" and any(
        part.get("state") == "approval-responded" for part in last.get("parts") or [])


async def wait_if_asked(body):
    """A request answering an approval for "delete <file> wait <gate>" waits until <gate> opens."""
    if not isinstance(body, dict):
        return
    words = latest_user_text(body).split()
    if "wait" in words[:-1] and answers_approval(body):
        await gate(words[words.index("wait") + 1]).wait()


async def received(request):
    return JSONResponse(RECEIVED)


async def run_agent(request):
    entry = await remember(request)
    await wait_if_asked(entry["body"])
    return tracked(entry, await AGUIAdapter.dispatch_request(request, agent=agent))


# The AI SDK request carries no tool list: on the Vercel routes the app's tool is declared here, as an
# external tool (its calls are deferred: the run ends and the client supplies the output).
APP_TOOLS = ExternalToolset([ToolDefinition(
    name="pick_color", description="Ask the user for a color",
    parameters_json_schema={"type": "object", "properties": {}})])


def vercel_route(sdk_version):
    async def run_vercel(request):
        entry = await remember(request)
        await wait_if_asked(entry["body"])
        return tracked(entry, await VercelAIAdapter.dispatch_request(
            request, agent=agent, sdk_version=sdk_version, toolsets=[APP_TOOLS]))
    return run_vercel


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_common_arguments(parser)
    args = parser.parse_args()
    app = Starlette(routes=[
        Route("/agent", run_agent, methods=["POST"]),
        Route("/vercel/v5/chat", vercel_route(5), methods=["POST"]),
        Route("/vercel/v6/chat", vercel_route(6), methods=["POST"]),
        Route("/requests", received, methods=["GET"]),
        Route("/gates/{name}", open_gate, methods=["POST"]),
    ])
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    sock.listen(64)
    server = uvicorn.Server(uvicorn.Config(app, log_level="info" if args.verbose else "error", lifespan="off"))

    def stop_when_parent_goes():
        try:
            while os.read(sys.stdin.fileno(), 4096):
                pass
        except OSError:
            pass
        os._exit(0)

    if not args.no_stdin_watch:
        threading.Thread(target=stop_when_parent_goes, name="stdin-watch", daemon=True).start()
    sys.stdout.write("LISTENING %d\n" % sock.getsockname()[1])
    sys.stdout.flush()
    server.run(sockets=[sock])


if __name__ == "__main__":
    main()
