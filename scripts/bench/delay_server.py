#!/usr/bin/env python3
"""Serves the files of a folder on 127.0.0.1, holding every response for a
fixed delay (a slow origin, as most feed hosts are next to loopback).

    delay_server.py FOLDER DELAY_MS

asyncio with the files preloaded, so the server adds next to nothing but
the delay itself. HTTP/1.1 with keep-alive, GET only. Prints the port on
its first line; exits when its stdin closes.
"""
import asyncio
import os
import sys

FOLDER, DELAY = sys.argv[1], int(sys.argv[2]) / 1000.0
FILES = {}
for name in os.listdir(FOLDER):
    with open(os.path.join(FOLDER, name), "rb") as f:
        FILES["/" + name] = f.read()


async def handle(reader, writer):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            path = head.split(b" ", 2)[1].decode()
            await asyncio.sleep(DELAY)
            body = FILES.get(path)
            if body is None:
                writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
            else:
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nContent-Length: %d\r\n\r\n"
                             % len(body) + body)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, IndexError):
        pass
    finally:
        writer.close()


async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=1024)
    print(server.sockets[0].getsockname()[1], flush=True)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.read)
    os._exit(0)


asyncio.run(main())
