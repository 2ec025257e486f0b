#!/usr/bin/env python3
"""A scripted HTTP stub for what a real OAuth server will not do on request (LatchkeyTokens tests).

Each test owns a namespace (any path segment it picks) and scripts the answers of the paths under it:

    POST /_script/<ns>   {"token": [<answer>, ...], "api": [...], ...}
    <any> /<ns>/<name>   answered with the next scripted answer for <name>; the last one repeats
    GET  /_log/<ns>      [{"name", "method", "headers", "form", "time"}, ...]  what <ns> received

An answer is {"status": 200, "headers": {...}, "json": {...}} or {"status": 503, "body": "text"},
optionally with "delay": seconds before answering, or {"drop": true} to close the connection without
answering (a connection dropped mid-request). Unscripted names answer 404.

Runs with any Python 3 (standard library only), binds 127.0.0.1 on a free port, prints
`LATCHKEY-STUB-READY port=<n> pid=<pid>` when ready, and stops on SIGTERM/SIGINT or at the end of its
standard input.
"""

import json
import os
import signal
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl

LOCK = threading.Lock()
SCRIPTS = {}  # ns -> name -> [answers]
LOGS = {}  # ns -> [requests]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *unused):  # quiet: requests carry tokens
        pass

    def do_GET(self):
        self.handle_any()

    def do_POST(self):
        self.handle_any()

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def reply(self, status, headers=None, body=b""):
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def handle_any(self):
        body = self.read_body()
        parts = self.path.split("?", 1)[0].strip("/").split("/", 1)
        if len(parts) != 2:
            return self.reply(404)
        ns, name = parts
        if ns == "_script" and self.command == "POST":
            with LOCK:
                SCRIPTS[name] = json.loads(body or b"{}")
                LOGS[name] = []
            return self.reply(204)
        if ns == "_log":
            with LOCK:
                log = list(LOGS.get(name, []))
            return self.reply(200, {"Content-Type": "application/json"}, json.dumps(log).encode())
        form = dict(parse_qsl(body.decode("utf-8", "replace"))) if body else {}
        with LOCK:
            LOGS.setdefault(ns, []).append(
                {
                    "name": name,
                    "method": self.command,
                    "headers": {key.lower(): value for key, value in self.headers.items()},
                    "form": form,
                    "time": time.monotonic(),
                }
            )
            queue = SCRIPTS.get(ns, {}).get(name)
            answer = None
            if queue:
                answer = queue.pop(0) if len(queue) > 1 else queue[0]
        if answer is None:
            return self.reply(404, {"Content-Type": "application/json"}, b'{"error":"not scripted"}')
        if answer.get("delay"):
            time.sleep(float(answer["delay"]))
        if answer.get("drop"):
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        headers = dict(answer.get("headers", {}))
        if "json" in answer:
            payload = json.dumps(answer["json"]).encode()
            headers.setdefault("Content-Type", "application/json")
        else:
            payload = str(answer.get("body", "")).encode()
        self.reply(int(answer.get("status", 200)), headers, payload)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True

    def stop(*unused):
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if "--no-stdin-watch" not in sys.argv:

        def watch_stdin():
            try:
                while sys.stdin.buffer.read(4096):
                    pass
            except OSError:
                pass
            stop()

        threading.Thread(target=watch_stdin, daemon=True).start()
    print(f"LATCHKEY-STUB-READY port={server.server_address[1]} pid={os.getpid()}", flush=True)
    server.serve_forever(poll_interval=0.2)
    server.server_close()


if __name__ == "__main__":
    main()
