"""What the Aggregator tests' servers share: a threaded HTTP server on
127.0.0.1 at a free port, printed on stdout; it runs until the parent closes
stdin (or dies)."""
import http.server
import os
import socketserver
import sys
import threading


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # resets and broken pipes from killed clients are expected


def serve(handler):
    server = Server(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(server.server_address[1], flush=True)
    sys.stdin.read()
    os._exit(0)
