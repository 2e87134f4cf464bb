#!/usr/bin/env python3
"""A TCP proxy that adds latency: every chunk read from one side is written to the other DELAY_MS
milliseconds after it arrived (each direction), in order, without holding up the chunks behind it.
A request and its answer each pay the delay once, so a round trip through the proxy takes
2 * DELAY_MS more than without it.

usage: delay-proxy.py LISTEN_PORT TARGET_HOST TARGET_PORT DELAY_MS
Listens on 127.0.0.1:LISTEN_PORT, prints "ready" on stdout once it does, runs until killed."""
import asyncio
import socket
import sys


async def pipe(reader, writer, delay):
    """Copies reader to writer, each chunk delayed by `delay` seconds from its arrival."""
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue()

    async def deliver():
        while True:
            due, data = await queue.get()
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            if data is None:
                break
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()

    out = asyncio.ensure_future(deliver())
    try:
        while True:
            data = await reader.read(65536)
            queue.put_nowait((loop.time() + delay, data or None))
            if not data:
                break
        await out
    except (ConnectionError, asyncio.CancelledError):
        out.cancel()
    finally:
        writer.close()


async def main():
    listen_port, host, port, delay_ms = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    delay = delay_ms / 1000.0

    async def handle(cr, cw):
        try:
            sr, sw = await asyncio.open_connection(host, port)
        except OSError:
            cw.close()
            return
        for w in (cw, sw):
            sock = w.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        await asyncio.gather(pipe(cr, sw, delay), pipe(sr, cw, delay), return_exceptions=True)

    server = await asyncio.start_server(handle, "127.0.0.1", listen_port)
    print("ready", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
