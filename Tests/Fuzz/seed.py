#!/usr/bin/env python3
"""Writes the fuzzer's seed corpus from Protocol/examples: every message a client sends in an example,
one file each, and each example's messages together, one per line (the harness reads a line a message).

usage: seed.py EXAMPLES_DIR CORPUS_DIR
"""
import json
import pathlib
import sys

examples, corpus = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
corpus.mkdir(parents=True, exist_ok=True)
count = 0
for example in sorted(examples.glob("*.json")):
    sends = [json.dumps(step["send"], separators=(",", ":"))
             for step in json.loads(example.read_text())["steps"] if "send" in step]
    for i, message in enumerate(sends):
        (corpus / f"{example.stem}-{i:02}").write_text(message)
    if sends:
        (corpus / f"{example.stem}-all").write_text("\n".join(sends) + "\n")
    count += len(sends) + bool(sends)
print(f"seed.py: {count} seeds in {corpus}")

# Import bodies (first byte 1) and stored rows (first byte 2): see Sources/SnapboardFuzz/FuzzHarness+Stored.swift.
import struct

CONFIG = {"gridX": {"pitch": 32}, "gridY": {"pitch": 32}, "height": 768, "layoutPadding": 10, "maxShapes": 200,
          "maxSize": 4096, "minSize": 4, "width": 1024,
          "snapping": {"angleStep": 0.2617993877991494, "angleTolerance": 0.05235987755982988, "gaps": True, "grid": True,
                       "objects": True, "releaseMargin": 4, "threshold": 5}}


def shape(i, kind="dot", **extra):
    s = {"id": f"s{i}", "kind": kind, "x": 64 + 32 * i, "y": 96, "w": 40, "h": 40, "scale": 1, "rotation": 0,
         "fill": {"h": 0.5, "s": 0.5, "b": 0.5, "a": 1}, "hatch": "none", "z": i}
    s.update(extra)
    return s


def snapshot(seq, shapes, config=CONFIG):
    return {"id": "fuzz", "config": config, "seq": seq, "rng": 42, "shapes": shapes}


imports = {
    "empty": snapshot(0, []),
    "three": snapshot(3, [shape(0), shape(1, "polygon", sides=7), shape(2, "star", points=5, inner=0.5)]),
    "edge": snapshot(9007199254740991 - 2, [shape(0, z=9007199254740991 - 1, rotation=6.283185307179586)]),
    "layout": snapshot(1, [shape(0)], dict(CONFIG, layout={"flexible": {"rows": 3, "columns": 4}})),
    "looks": snapshot(2, [shape(0, "note", w=200, h=200, text="Ship \u2713\nfriday", stroke="#1e1e1e", fontSize=160),
                          shape(1, "text", w=240, h=60, text="x" * 4096, strokeWidth=0, opacity=0.1)]),
    # 1.7 (P27, P28): a group, and an arrow bound to both of its shapes, one end at a point anchor.
    "connectors": snapshot(3, [shape(0, group="g1"), shape(1, group="g1"),
                               shape(2, "arrow", x=80, y=96, w=32, h=16, **{"from": {"shape": "s0", "anchor": "right"},
                                                                           "to": {"shape": "s1", "u": -0.5, "v": 0.25}})]),
}
for name, body in imports.items():
    (corpus / f"import-{name}").write_bytes(b"\x01" + json.dumps(body, separators=(",", ":")).encode())


def string(s):
    return struct.pack("<H", len(s)) + s.encode()


def create(i, x=100.0, y=100.0, z=0):
    return (bytes([1, 1]) + string(f"s{i}") + bytes([0]) + struct.pack("<10d", x, y, 40, 40, 1, 0, 0.5, 0.5, 0.5, 1)
            + bytes([0]) + struct.pack("<q", z) + struct.pack("<Q", 42))


def place(i, x, y, z):
    return bytes([1, 2]) + string(f"s{i}") + struct.pack("<6d", x, y, 40, 40, 1, 0) + struct.pack("<q", z)


def order(moves):
    # 1.6, tag 8: (index, z, z before) for each shape.
    return bytes([1, 8]) + struct.pack("<I", len(moves)) + b"".join(string(f"s{i}") + struct.pack("<qq", z, before)
                                                                 for i, z, before in moves)


def lock(ids, locked=True):
    # 1.6, tag 9.
    return bytes([1, 9, int(locked)]) + struct.pack("<I", len(ids)) + b"".join(string(f"s{i}") for i in ids)


def clear_locked(i, z=0):
    # 1.6, format 2: a clear whose one shape is locked (a flags byte after each shape's z).
    return (bytes([2, 5]) + struct.pack("<I", 1) + string(f"s{i}") + bytes([0])
            + struct.pack("<10d", 100, 100, 40, 40, 1, 0, 0.5, 0.5, 0.5, 1) + bytes([0]) + struct.pack("<q", z) + bytes([1]))


def style(stroke=0x1E1E1E, width=1.25, opacity=1.0, font=20.0):
    return struct.pack("<q3d", stroke, width, opacity, font)


def look(text, stroke=-1, width=1.25, opacity=1.0, font=20.0, group=""):
    # A look ends with its group id, "" for none (P27).
    return struct.pack("<4d", 0.1, 0.5, 1, 1) + style(stroke, width, opacity, font) + string(text) + string(group)


def create_note(i, text, z=0):
    # 1.7, format 2, kind 8 (note): flags 2, then a look (style and text) after z.
    return (bytes([2, 1]) + string(f"s{i}") + bytes([8]) + struct.pack("<10d", 300, 300, 200, 200, 1, 0, 0.15, 0.4, 1, 1)
            + bytes([0]) + struct.pack("<q", z) + bytes([2]) + style(0xE03131, 0, 0.5, 160) + string(text) + string("")
            + struct.pack("<Q", 42))


def arrow(i, to, z=0):
    # 1.7 (P28), format 2, kind 10 (arrow): flags 4, then the ends: from free, to bound to s`to` at its centre.
    return (bytes([2, 1]) + string(f"s{i}") + bytes([10]) + struct.pack("<10d", 200, 100, 200, 16, 1, 0, 0, 0, 0, 0)
            + bytes([0]) + struct.pack("<q", z) + bytes([4]) + bytes([0]) + bytes([1]) + string(f"s{to}") + bytes([0])
            + struct.pack("<Q", 42))


def edit(i, text, before):
    # 1.7, tag 10: id, the look after and the look before.
    return bytes([1, 10]) + struct.pack("<I", 1) + string(f"s{i}") + look(text) + look(before)


def row(seq, op, undoes=None):
    step = bytes([0]) if undoes is None else bytes([1]) + struct.pack("<q", undoes)
    return struct.pack("<q", seq) + step + struct.pack("<H", len(op)) + op


stored = {
    "log-only": b"" + b"\x00" + row(1, create(0)) + row(2, create(1, 300, 200, 1)) + row(3, place(0, 500, 400, 2)),
    "checkpoint-and-log": json.dumps(imports["three"], separators=(",", ":")).encode() + b"\x00"
    + row(4, create(5, 700, 300, 3)) + row(5, place(1, 200, 200, 4), undoes=4),
    "order-and-lock": b"" + b"\x00" + row(1, create(0)) + row(2, create(1, 300, 200, 1)) + row(3, order([(0, 2, 0)]))
    + row(4, lock([0, 1])) + row(5, clear_locked(0)),
    "notes-and-edits": b"" + b"\x00" + row(1, create_note(0, "plan")) + row(2, create(1, 300, 200, 1))
    + row(3, edit(0, "plan \u2713", "plan")) + row(4, edit(0, "plan", "plan \u2713"), undoes=3),
    "connectors": b"" + b"\x00" + row(1, create(0, 300, 100)) + row(2, arrow(1, 0, 1)) + row(3, place(0, 500, 400, 2)),
}
for name, body in stored.items():
    (corpus / f"stored-{name}").write_bytes(b"\x02" + body)
print(f"seed.py: {len(imports)} import and {len(stored)} stored-row seeds in {corpus}")
