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
