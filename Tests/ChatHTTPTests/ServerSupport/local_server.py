"""How the repository's local test servers live and die (Python 3 standard library only).

A server serves on 127.0.0.1, prints exactly one line, `LISTENING <port>`, and stops on SIGTERM, SIGINT or
when its stdin reaches EOF: a test keeps a pipe to its stdin open, so a test process that dies never leaves
it running (`--no-stdin-watch` for running one by hand in the background).
"""

import os
import signal
import sys
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class BackloggedHTTPServer(ThreadingHTTPServer):
    """A threading server whose listen backlog holds a test suite's burst of connections. The default (5)
    overflows when a suite opens a dozen streams at once on a loaded machine: the kernel drops the SYNs past
    it, and the client's retries back off for a minute or more (a CI run saw four streams stall past 60 s)."""

    request_queue_size = 128
    daemon_threads = True
    verbose = False


class JSONRequestHandler(BaseHTTPRequestHandler):
    """A handler that logs only when its server is `verbose`, and answers with a JSON body."""

    def log_message(self, *args):
        if self.server.verbose:
            super().log_message(*args)

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def add_common_arguments(parser):
    """The options every local test server takes: where to listen, whether to watch stdin, and logging."""
    parser.add_argument("--port", type=int, default=0, help="port to bind (0: a free one)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--no-stdin-watch", action="store_true",
                        help="do not shut down when stdin reaches EOF (for running it by hand in the background)")
    parser.add_argument("--verbose", action="store_true", help="log requests and errors to stderr")


def serve_until_stopped(servers, port, watch_stdin=True, poll_s=0.2, before_exit=None):
    """Serves each of `servers` on its own thread, announces `port`, and returns never: once asked to
    stop it calls `before_exit`, closes the servers and exits the process at once (stream threads may be
    blocked in a socket call; they are not waited for)."""
    stop = threading.Event()

    def request_stop(*_):
        stop.set()

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)

    if watch_stdin:
        def watch():
            # The parent keeps our stdin open while it lives; EOF means it is gone (or closed it on purpose).
            try:
                while os.read(sys.stdin.fileno(), 4096):
                    pass
            except OSError:
                pass
            stop.set()

        threading.Thread(target=watch, name="stdin-watch", daemon=True).start()

    for index, server in enumerate(servers):
        threading.Thread(target=server.serve_forever, name="serve-%d" % index, daemon=True).start()
    sys.stdout.write("LISTENING %d\n" % port)
    sys.stdout.flush()

    while not stop.wait(poll_s):
        pass
    if before_exit:
        before_exit()
    for server in servers:
        server.server_close()
    os._exit(0)
