"""A real loopback webhook receiver: an `http.server` in a thread on 127.0.0.1 that
records every connection and request, and answers as the test tells it to."""

import contextlib
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Answer:
    status: int = 204
    sleep: float = 0.0  # before answering
    body: bytes = b""
    location: str = ""


@dataclass
class Received:
    headers: dict
    body: bytes
    at: float


@dataclass
class Receiver:
    """`answers` are used in turn (the last one again once they run out)."""

    answers: list[Answer] = field(default_factory=lambda: [Answer()])
    requests: list[Received] = field(default_factory=list)
    connections: int = 0
    _server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/hook"

    @property
    def port(self) -> int:
        assert self._server is not None
        return self._server.server_address[1]

    def ids(self) -> list[str]:
        return [r.headers["webhook-id"] for r in self.requests]

    def start(self, port: int = 0) -> "Receiver":
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                body = self.rfile.read(length)
                index = min(len(receiver.requests), len(receiver.answers) - 1)
                answer = receiver.answers[index]
                receiver.requests.append(
                    Received({k.lower(): v for k, v in self.headers.items()}, body, time.time())
                )
                if answer.sleep:
                    time.sleep(answer.sleep)
                self.send_response(answer.status)
                if answer.location:
                    self.send_header("Location", answer.location)
                self.send_header("Content-Length", str(len(answer.body)))
                self.end_headers()
                with contextlib.suppress(OSError):
                    self.wfile.write(answer.body)

            def log_message(self, *args) -> None:
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            allow_reuse_address = True

            def get_request(self):
                receiver.connections += 1
                return super().get_request()

        self._server = Server(("127.0.0.1", port), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
