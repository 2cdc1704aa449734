#!/usr/bin/env python3
"""The functions of a program a request runs, hottest first: read from a callgrind dump.

Used by bench/instructions.sh when HOT_FUNCTIONS is set (bench/hot-text.sh writes
docker/hot-text.order with it). Lists the functions of OBJECT (the program's own file, not the
shared libraries it loads) whose own instructions, without those of the functions they call, come
to at least MINIMUM a request (0.5 by default: a function of one instruction that every other
request runs), by that figure, highest first, one symbol name a line. The dump must be made with
--demangle=no, so that the names are the symbols the linker orders; callgrind's suffix for a
recursive call ('2) is dropped, the costs of a function's recursion levels added together, and
nameless addresses are skipped.

With "movable MAP" instead, reads such a list on standard input and prints the names that lld's
map of the program (-Map) shows in a section of their own (`.text.NAME`, from -function-sections):
the linker can only move sections, and a name in a shared `.text` (code compiled without function
sections, such as most of the Swift standard library's own functions) would move its whole
section, megabytes, in among the listed ones.

Standard library only. Arguments: DUMP REQUESTS OBJECT [MINIMUM], or movable MAP.
"""

import os
import re
import sys

COMPRESSED = re.compile(r"\((\d+)\)(?:\s+(.*))?$")


def movable(map_path: str) -> None:
    """Prints the names read on standard input whose input section in the map is their own."""
    section_of: dict[str, str] = {}
    section = ""
    for raw in open(map_path, encoding="utf-8", errors="replace"):
        fields = raw.split()
        # An input section: VMA LMA Size Align FILE:(SECTION); a symbol: VMA LMA Size Align NAME.
        if len(fields) >= 5 and raw.rstrip().endswith(")") and ":(" in fields[-1]:
            section = fields[-1][fields[-1].rindex(":(") + 2:-1]
        elif len(fields) == 5 and section.startswith(".text"):
            section_of.setdefault(fields[4], section)
    kept = dropped = 0
    for line in sys.stdin:
        name = line.strip()
        if not name:
            continue
        if section_of.get(name, "").startswith(".text."):
            print(name)
            kept += 1
        else:
            dropped += 1
    print(f"movable: {kept} kept, {dropped} in a shared section or not in the map", file=sys.stderr)


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "movable":
        movable(sys.argv[2])
        return
    if len(sys.argv) not in (4, 5):
        sys.exit("usage: hot-functions.py DUMP REQUESTS OBJECT [MINIMUM]")
    dump, requests, wanted = sys.argv[1], int(sys.argv[2]), os.path.realpath(sys.argv[3])
    minimum = float(sys.argv[4]) if len(sys.argv) == 5 else 0.5
    if requests <= 0:
        sys.exit("REQUESTS must be positive")

    names: dict[str, str] = {}
    objects: dict[str, str] = {}

    def resolve(token: str, table: dict[str, str]) -> str:
        # callgrind names a file or function in full once, as "(id) name", then as "(id)".
        match = COMPRESSED.match(token)
        if not match:
            return token
        if match.group(2) is not None:
            table[match.group(1)] = match.group(2)
        return table.get(match.group(1), token)

    own: dict[str, int] = {}  # a function's own instructions
    function = obj = None
    skip_next = False
    positions = 1
    for raw in open(dump, encoding="utf-8", errors="replace"):
        line = raw.rstrip("\n")
        if not line:
            continue
        if line.startswith("positions:"):
            positions = len(line.split()) - 1
        elif line.startswith("ob="):
            obj = os.path.realpath(resolve(line[3:], objects))
        elif line.startswith("fn="):
            name = resolve(line[3:], names)
            function = name if obj == wanted else None
        elif line.startswith("cob="):
            resolve(line[4:], objects)
        elif line.startswith("cfn="):
            resolve(line[4:], names)
        elif line.startswith("calls="):
            skip_next = True  # the next cost line is the call's inclusive cost
        elif line[0].isdigit() or line[0] in "+-*":
            if skip_next:
                skip_next = False
                continue
            fields = line.split()
            if function is not None and len(fields) > positions:
                own[function] = own.get(function, 0) + int(fields[positions])
    if not own:
        sys.exit(f"{dump} has no function of {wanted}")

    hot: dict[str, float] = {}
    for name, cost in own.items():
        symbol = re.sub(r"'\d+$", "", name)
        if symbol.startswith("0x") or " " in symbol:
            continue
        hot[symbol] = hot.get(symbol, 0.0) + cost / requests
    for symbol, per_request in sorted(hot.items(), key=lambda item: (-item[1], item[0])):
        if per_request >= minimum:
            print(symbol)


if __name__ == "__main__":
    main()
