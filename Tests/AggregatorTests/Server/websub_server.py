#!/usr/bin/env python3
"""A real WebSub hub on 127.0.0.1 for the WebSub tests: flask-websub's Hub
(PyPI flask-websub 0.4.1, an independent implementation of the W3C
Recommendation), run in this process with Celery's tasks executed eagerly
(no broker): a publish ping makes the hub fetch the topic and deliver it to
its subscribers before it answers. Run with the interpreter of the virtual
environment `scripts/setup --test` makes (see websub_python in the tests).

Prints three ports on its first line: the hub, the site, the subscriber.
  hub         POST /hub is the hub's endpoint (publish allowed); GET /_log lists
              the publish pings it received ({"publish": [topic, ...]});
              POST /moved answers 307 to /hub.
  site        GET /files/ABSOLUTE/PATH serves that file, with the Link header
              a WebSub publisher sends (rel="hub": this hub, rel="self": the
              URL asked); GET /_log lists the paths fetched ("fetched") and
              each with the User-Agent that fetched it ("agents": [[path, UA]]).
  subscriber  a subscriber's callback: GET /cb/NAME answers a verification of
              intent by echoing hub.challenge; POST /cb/NAME records the
              content delivered; GET /_log/NAME lists the deliveries
              ({"body": text, "signature": header}).
Exits when stdin closes.
"""
import json
import logging
import os
import sys
import tempfile
import threading

from celery import Celery
from flask import Flask, Response, request
from flask_websub.hub import Hub, SQLite3HubStorage
from werkzeug.serving import make_server

logging.getLogger("werkzeug").setLevel(logging.ERROR)

LOCK = threading.Lock()
PUBLISHED = []
FETCHED = []
AGENTS = []
DELIVERED = {}


def start(app):
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


def hub_app():
    app = Flask("hub")
    app.config["PUBLISH_SUPPORTED"] = True
    app.config["SIGNATURE_ALGORITHM"] = os.environ.get("WEBSUB_SIGNATURE", "sha256")
    app.config["HUB_MIN_LEASE_SECONDS"] = 1
    celery = Celery("hub", broker="memory://", backend="cache+memory://")
    celery.conf.task_always_eager = True
    celery.conf.task_eager_propagates = False
    folder = tempfile.mkdtemp(prefix="websub-hub-")
    hub = Hub(SQLite3HubStorage(os.path.join(folder, "hub.db")), celery, **app.config)
    app.register_blueprint(hub.build_blueprint(url_prefix="/hub"))

    @app.before_request
    def note_publish():
        if request.path == "/hub" and request.form.get("hub.mode") == "publish":
            with LOCK:
                PUBLISHED.append(request.form.get("hub.topic"))

    @app.route("/_log")
    def log():
        with LOCK:
            return {"publish": list(PUBLISHED)}

    @app.route("/moved", methods=["POST"])
    def moved():
        return Response("", status=307, headers={"Location": "/hub"})

    return app


def site_app(hub_url):
    app = Flask("site")

    @app.route("/files/<path:path>")
    def files(path):
        with LOCK:
            FETCHED.append("/" + path)
            AGENTS.append(["/" + path, request.headers.get("User-Agent", "")])
        try:
            with open("/" + path, "rb") as f:
                body = f.read()
        except OSError:
            return Response("not found\n", status=404)
        response = Response(body, content_type="application/atom+xml")
        response.headers["Link"] = '<%s>; rel="hub", <%s>; rel="self"' % (hub_url, request.url)
        return response

    @app.route("/_log")
    def log():
        with LOCK:
            return {"fetched": list(FETCHED), "agents": list(AGENTS)}

    return app


def subscriber_app():
    app = Flask("subscriber")

    @app.route("/cb/<name>", methods=["GET", "POST"])
    def callback(name):
        if request.method == "GET":
            return Response(request.args.get("hub.challenge", ""), content_type="text/plain")
        with LOCK:
            DELIVERED.setdefault(name, []).append(
                {"body": request.get_data(as_text=True), "signature": request.headers.get("X-Hub-Signature")})
        return Response("", status=204)

    @app.route("/_log/<name>")
    def log(name):
        with LOCK:
            return json.dumps(DELIVERED.get(name, []))

    return app


def main():
    hub_port = start(hub_app())
    site_port = start(site_app("http://127.0.0.1:%d/hub" % hub_port))
    subscriber_port = start(subscriber_app())
    print(hub_port, site_port, subscriber_port, flush=True)
    sys.stdin.read()
    os._exit(0)


if __name__ == "__main__":
    main()
