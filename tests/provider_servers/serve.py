"""Serve one provider's wire format in this process, for a benchmark that
must not count the server's CPU::

    python -m provider_servers.serve anthropic --reply turn.json [--after-tools "Done."]
    # prints "PORT <n>", then serves that Turn (provider_servers.Turn JSON)
    # to every request (a request continuing a tool loop gets "Done.")
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import Sequence

from . import SERVERS, Turn


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("provider", choices=sorted(SERVERS))
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--reply", required=True, help="a JSON file holding the Turn served")
    parser.add_argument(
        "--after-tools", help="the text answering a request that continues a tool loop"
    )
    args = parser.parse_args(argv)
    server = SERVERS[args.provider](port=args.port)
    with open(args.reply, encoding="utf-8") as handle:
        server.default = Turn.from_json(handle.read())
    if args.after_tools is not None:
        server.after_tools = Turn(text=args.after_tools)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(server.serve_forever())


if __name__ == "__main__":
    main(sys.argv[1:])
