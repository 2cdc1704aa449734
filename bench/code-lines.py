#!/usr/bin/env python3
"""The code a request runs, as cache lines: read from a callgrind dump made with --dump-instr=yes.

Used by bench/instructions.sh (results in bench/RESULTS.md). Counts the distinct 64-byte lines
of machine code holding an instruction that ran at least FRACTION x REQUESTS times in the dump
(0.5 by default): the code at least half the requests run, not the paths a few of them take (a
status read of a grant with a purpose runs code that one of a record never asked for skips). When a server
idles between requests (a paced load), whatever else ran on its core in the meantime has evicted
part of that code, and each line then costs a fetch from a slower cache: it tells a request's cost
at low load better than its instruction count, which counts a loop's body once per turn.

Prints one line: "CODE_LINES KIB PAGES", the lines, what they hold in KiB, and the 4 KiB pages
they lie on (each one a translation the CPU's TLB must hold or walk the page tables for; program
and shared libraries together: what is in the binary depends on how it was linked).

Standard library only. Arguments: DUMP REQUESTS [FRACTION].
"""

import sys


def main() -> None:
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: code-lines.py DUMP REQUESTS [FRACTION]")
    dump, requests = sys.argv[1], int(sys.argv[2])
    fraction = float(sys.argv[3]) if len(sys.argv) == 4 else 0.5
    if requests <= 0:
        sys.exit("REQUESTS must be positive")

    # The most any one cost line gave an instruction address (an address can appear under more
    # than one context).
    counts: dict[int, int] = {}
    position = 0
    skip_next = False  # the line after `calls=` is the call's inclusive cost, not the caller's own
    positions = 0  # the columns before the costs: the instruction's address, maybe its line
    for raw in open(dump, encoding="utf-8", errors="replace"):
        line = raw.rstrip("\n")
        if not line:
            continue
        if line.startswith("positions:"):
            columns = line.split()[1:]
            if not columns or columns[0] != "instr":
                sys.exit(f"{dump} was not made with --dump-instr=yes")
            positions = len(columns)
            continue
        if line.startswith("calls="):
            skip_next = True
            continue
        first = line[0]
        if not (first.isdigit() or first in "+-*"):
            continue  # fl=, fn=, cfn=, summary: and the other headers
        fields = line.split()
        token = fields[0]
        if token.startswith("0x"):
            position = int(token, 16)
        elif token[0] == "+":
            position += int(token[1:], 0)
        elif token[0] == "-":
            position -= int(token[1:], 0)
        elif token != "*":
            continue
        if skip_next:
            skip_next = False
            continue
        if len(fields) <= positions:  # a position with no cost
            continue
        cost = int(fields[positions])  # the first event: Ir
        if cost > counts.get(position, 0):
            counts[position] = cost
    if not positions:
        sys.exit(f"{dump} has no positions: line")

    threshold = fraction * requests
    lines = {address >> 6 for address, cost in counts.items() if cost >= threshold}
    pages = {line >> 6 for line in lines}
    print(len(lines), f"{len(lines) * 64 / 1024:.0f}", len(pages))


if __name__ == "__main__":
    main()
