#!/usr/bin/env python3
"""Checks feedmerge's Web Bot Auth with implementations that are not
feedmerge's: the verifier of PyPI's http-message-signatures (RFC 9421) and
jwcrypto's JWK thumbprint (RFC 7638), for SignedRequestTests.

  verify_web_bot_auth.py LOG DIRECTORY HEADERS AGENT

LOG is the test server's /log URL (the requests feedmerge made), DIRECTORY the
JSON `feedmerge key directory` wrote, HEADERS the headers it said to serve
it with, AGENT the Signature-Agent feedmerge was given. DIRECTORY may be a
URL instead, where a web server serves it: then HEADERS is "-" and the
response's own body and headers are checked. Each key is resolved
by the thumbprint jwcrypto computes, never by the kid feedmerge wrote.
Prints one JSON object: for each request whether its signature verifies,
what it covers and its parameters, and whether each tampered copy is
rejected; the same for the directory's response.
"""
import base64
import copy
import datetime
import json
import sys
import urllib.request

import http_sf
from cryptography.hazmat.primitives.asymmetric import ed25519
from http_message_signatures import HTTPMessageVerifier, HTTPSignatureKeyResolver, algorithms
from http_message_signatures.exceptions import InvalidSignature
from jwcrypto import jwk

DIRECTORY_PATH = "/.well-known/http-message-signatures-directory"


class Request:
    def __init__(self, method, url, headers):
        self.method = method
        self.url = url
        self.headers = headers


class Response:
    def __init__(self, headers, request):
        self.status_code = 200
        self.headers = headers
        self.request = request


class Directory(HTTPSignatureKeyResolver):
    def __init__(self, text):
        self.keys = {}
        self.kids = {}
        for key in json.loads(text)["keys"]:
            thumbprint = jwk.JWK(**key).thumbprint()
            raw = base64.urlsafe_b64decode(key["x"] + "=" * (-len(key["x"]) % 4))
            self.keys[thumbprint] = ed25519.Ed25519PublicKey.from_public_bytes(raw)
            self.kids[key.get("kid")] = thumbprint

    def resolve_public_key(self, key_id):
        return self.keys.get(key_id)

    def resolve_private_key(self, key_id):
        raise NotImplementedError


def outcome(verify):
    try:
        return {"verified": True, "results": verify()}
    except InvalidSignature as error:
        return {"verified": False, "error": str(error)}


def replace_header(headers, name, value):
    changed = {k: v for k, v in headers.items() if k.lower() != name.lower()}
    changed[name] = value
    return changed


def check_request(verifier, recorded):
    headers = dict(recorded["headers"])
    host = headers["Host"]
    url = "http://" + host + recorded["path"]
    has_agent = "Signature-Agent" in headers
    required = ("@authority", "signature-agent") if has_agent else ("@authority",)

    def verify(message):
        results = verifier.verify(message, expect_tag="web-bot-auth", require_components=required,
                                  max_age=datetime.timedelta(minutes=10))
        return [{"covered": list(r.covered_components), "parameters": dict(r.parameters)} for r in results]

    report = {"path": recorded["path"], "authority": host}
    report.update(outcome(lambda: verify(Request(recorded["method"], url, headers))))
    if has_agent:
        report["signature_agent"] = http_sf.parse(headers["Signature-Agent"].encode(), tltype="item")[0]
    tampered = {
        "authority": Request(recorded["method"], "http://127.0.0.1:1" + recorded["path"], headers),
        "created": Request(recorded["method"], url, replace_header(
            headers, "Signature-Input", bump_created(headers["Signature-Input"]))),
        "signature": Request(recorded["method"], url, replace_header(
            headers, "Signature", flip_signature(headers["Signature"]))),
    }
    if has_agent:
        tampered["signature-agent"] = Request(recorded["method"], url, replace_header(
            headers, "Signature-Agent", '"https://elsewhere.example"'))
    report["tampered"] = {name: "rejected" if not outcome(lambda m=message: verify(m))["verified"] else "accepted"
                          for name, message in tampered.items()}
    return report


def bump_created(value):
    head, _, rest = value.partition(";created=")
    digits = rest.split(";", 1)[0]
    return head + ";created=" + str(int(digits) + 1) + rest[len(digits):]


def flip_signature(value):
    label, _, encoded = value.partition("=")
    raw = bytearray(base64.b64decode(encoded.strip(":")))
    raw[0] ^= 1
    return label + "=:" + base64.b64encode(bytes(raw)).decode() + ":"


def check_directory(verifier, headers, agent, count):
    def verify(authority):
        request = Request("GET", "https://" + authority + DIRECTORY_PATH, {})
        results = verifier.verify(Response(headers, request), expect_tag="http-message-signatures-directory",
                                  require_components=('"@authority";req',))
        if len(results) != count:
            raise InvalidSignature("%d signatures for %d keys" % (len(results), count))
        return [{"covered": list(r.covered_components), "parameters": dict(r.parameters)} for r in results]

    authority = agent.split("://", 1)[1].split("/", 1)[0]
    report = outcome(lambda: verify(authority))
    report["content_type"] = headers.get("Content-Type")
    report["tampered"] = {"authority": "rejected" if not outcome(lambda: verify("elsewhere.example"))["verified"]
                          else "accepted"}
    return report


def main():
    log, directory_file, headers_file, agent = sys.argv[1:5]
    headers = {}
    if directory_file.startswith("http://"):
        with urllib.request.urlopen(directory_file) as response:
            directory = Directory(response.read().decode())
            for name in ("Content-Type", "Signature-Input", "Signature"):
                headers[name] = response.headers.get(name)
    else:
        with open(directory_file) as f:
            directory = Directory(f.read())
        with open(headers_file) as f:
            for line in f:
                if line.strip():
                    name, _, value = line.rstrip("\n").partition(": ")
                    headers[name] = value
    verifier = HTTPMessageVerifier(signature_algorithm=algorithms.ED25519, key_resolver=directory)
    with urllib.request.urlopen(log) as f:
        requests = json.load(f)
    print(json.dumps({
        "thumbprints": directory.kids,
        "requests": [check_request(verifier, r) for r in requests],
        "directory": check_directory(verifier, headers, agent, len(directory.keys)),
    }))


main()
