"""A threaded HTTP server on 127.0.0.1 for the download tests (no network needed)."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class LoopbackServer:
    """Serve ``respond(path) -> (body, content_type)`` (``None``: 404); counts requests in ``hits``.

    Subclasses override ``respond``; ``base`` is ``http://127.0.0.1:<port>``. Use as a context
    manager: the server runs inside the ``with`` block.
    """

    def __init__(self, delay: float = 0.0):
        self.delay = delay
        self.hits = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # silence
                pass

            def do_GET(self):
                outer.hits += 1
                if outer.delay:
                    time.sleep(outer.delay)
                answer = outer.respond(self.path)
                if answer is None:
                    self.send_error(404)
                    return
                body, ctype = answer
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def respond(self, path: str) -> tuple[bytes, str] | None:
        raise NotImplementedError

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
