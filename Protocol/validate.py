#!/usr/bin/env python3
"""Validates JSON messages against Protocol/schema: one message per line on stdin, or the files named.

Exits non-zero and names the first message that does not match its schema (chosen by its "type").
"""
import json, pathlib, sys
from jsonschema import Draft202012Validator

here = pathlib.Path(__file__).parent / "schema"
schemas = {p.stem: json.loads(p.read_text()) for p in here.glob("*.json")}
try:  # jsonschema 4.18 and later resolve $ref through a registry
    from referencing import Registry, Resource
    registry = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in schemas.values())
    by_type = {name: Draft202012Validator(schema, registry=registry) for name, schema in schemas.items()}
except ImportError:  # older releases, such as Debian 12's 4.10, use a resolver
    from jsonschema import RefResolver
    store = {s["$id"]: s for s in schemas.values()}
    by_type = {name: Draft202012Validator(schema, resolver=RefResolver.from_schema(schema, store=store))
               for name, schema in schemas.items()}

lines = [l for f in sys.argv[1:] for l in open(f)] if sys.argv[1:] else sys.stdin
count = 0
for line in lines:
    if not line.strip():
        continue
    message = json.loads(line)
    kind = message.get("type")
    if kind not in by_type:
        sys.exit(f"no schema for type {kind!r}: {line.strip()[:200]}")
    errors = sorted(by_type[kind].iter_errors(message), key=lambda e: e.path)
    if errors:
        sys.exit(f"{kind} does not match its schema: {errors[0].message} at {list(errors[0].path)}\n{line.strip()[:400]}")
    count += 1
print(f"{count} messages valid")
