"""Renders the browser's side of a wire protocol from its pydantic models.

A widget's messages are defined once, as pydantic models in the kernel; its
``_wire_codegen`` module (run by ``make protocol``) hands them to
:func:`render_module`, which writes a JS module from their JSON schemas: the
message types, a builder per browser -> kernel message (``toKernel``), a
validator per kernel -> browser message. A Python module rather than a JS
script: it reads the models where they live, and the tests that keep each
generated file fresh import it.

The validators are as lenient as the browser needs: they check the fields
the models declare (a message's ``type`` picks its validator, so it is not
checked again), ignore fields they do not know, and take an optional field
whose default is None as one left out when unset (never null on the wire).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

__all__ = ["JsChecks", "camel", "main", "pascal", "render_module", "type_of"]

_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


def pascal(name: str) -> str:
    word = camel(name)
    return word[:1].upper() + word[1:]


def doc(text: str | None, indent: str = "", prefix: str = "") -> list[str]:
    """A docstring as a JSDoc comment (``x`` becomes `x`)."""
    if not text:
        raise ValueError("every wire message needs a docstring: it documents the generated code")
    para = " ".join(text.replace("``", "`").split())
    lines = textwrap.wrap(prefix + para, width=96 - len(indent))
    if len(lines) == 1:
        return [f"{indent}/** {lines[0]} */"]
    return [f"{indent}/**", *(f"{indent} * {line}" for line in lines), f"{indent} */"]


class JsChecks:
    """Compiles JSON schemas into JS expressions that say whether a value fits."""

    def __init__(self) -> None:
        self.helpers: dict[str, str] = {}  # $def name -> its JS function

    def terms(
        self, schema: dict[str, Any], defs: dict[str, Any], v: str, depth: int = 0
    ) -> list[str]:
        """The checks of ``v`` against ``schema``, to be joined with ``&&``."""
        if "$ref" in schema:
            return [f"{self._helper(schema['$ref'].rsplit('/', 1)[-1], defs)}({v})"]
        for key in ("anyOf", "oneOf"):
            if key in schema and "type" not in schema and "properties" not in schema:
                options = [self._group(self.terms(s, defs, v, depth)) for s in schema[key]]
                return ["(" + " || ".join(options) + ")"]
        if "const" in schema:
            return [f"{v} === {json.dumps(schema['const'])}"]
        if "enum" in schema:
            return ["(" + " || ".join(f"{v} === {json.dumps(e)}" for e in schema["enum"]) + ")"]
        kind = schema.get("type")
        if kind == "string":
            return [f'typeof {v} === "string"', *self._bounds(schema, f"{v}.length", "Length")]
        if kind == "integer":
            return [f"Number.isInteger({v})", *self._bounds(schema, v, "imum")]
        if kind == "number":
            return [f'typeof {v} === "number"', *self._bounds(schema, v, "imum")]
        if kind == "boolean":
            return [f'typeof {v} === "boolean"']
        if kind == "null":
            return [f"{v} === null"]
        if kind == "array":
            out = [f"Array.isArray({v})", *self._bounds(schema, f"{v}.length", "Items")]
            items = schema.get("items")
            if items:
                x = f"item{depth}"
                each = self.terms(items, defs, x, depth + 1)
                if len(each) == 1 and each[0].endswith(f"({x})"):  # a helper: pass it
                    out.append(f"{v}.every({each[0].removesuffix(f'({x})')})")
                else:
                    out.append(f"{v}.every(({x}) => {' && '.join(each)})")
            return out
        if kind == "object":
            return self.object_terms(schema, defs, v, depth)
        if kind is None:
            return []  # any JSON value
        raise ValueError(f"no JS check for the schema {schema!r}")

    def object_terms(
        self,
        schema: dict[str, Any],
        defs: dict[str, Any],
        v: str,
        depth: int = 0,
        skip: tuple[str, ...] = (),
    ) -> list[str]:
        out = [f"isObject({v})"]
        required = set(schema.get("required", ()))
        for name, prop in schema.get("properties", {}).items():
            if name in skip:
                continue
            access = f"{v}.{name}" if _IDENTIFIER.match(name) else f"{v}[{json.dumps(name)}]"
            if name in required:
                checks = self.terms(prop, defs, access, depth)
                out.extend(checks or [f"{json.dumps(name)} in {v}"])
                continue
            if prop.get("default", ...) is None:  # left out when unset: never null on the wire
                prop = _without_null(prop)
            checks = self.terms(prop, defs, access, depth)
            if checks:
                out.append(f"({access} === undefined || {self._group(checks)})")
        for one_of in schema.get("anyOf", ()):
            if set(one_of) != {"required"}:
                raise ValueError(f"no JS check for {one_of!r} beside properties")
        if "anyOf" in schema:
            present = [
                self._group([f"{json.dumps(n)} in {v}" for n in option["required"]])
                for option in schema["anyOf"]
            ]
            out.append("(" + " || ".join(present) + ")")
        return out

    def _helper(self, name: str, defs: dict[str, Any]) -> str:
        fn = f"is{name}"
        if name not in self.helpers:
            self.helpers[name] = ""  # a recursive reference finds the name
            body = " &&\n  ".join(self.terms(defs[name], defs, "v"))
            self.helpers[name] = f"const {fn} = (v) =>\n  {body};"
        return fn

    @staticmethod
    def _group(terms: list[str]) -> str:
        if not terms:
            return "true"
        return terms[0] if len(terms) == 1 else "(" + " && ".join(terms) + ")"

    @staticmethod
    def _bounds(schema: dict[str, Any], v: str, suffix: str) -> list[str]:
        out = []
        if f"min{suffix}" in schema:
            out.append(f"{v} >= {schema[f'min{suffix}']}")
        if f"max{suffix}" in schema:
            out.append(f"{v} <= {schema[f'max{suffix}']}")
        return out


def _without_null(prop: dict[str, Any]) -> dict[str, Any]:
    options = [s for s in prop.get("anyOf", ()) if s.get("type") != "null"]
    if "anyOf" not in prop or len(options) == len(prop["anyOf"]):
        return prop
    rest = {k: v for k, v in prop.items() if k != "anyOf"}
    return {**rest, **options[0]} if len(options) == 1 else {**rest, "anyOf": options}


def builder(model: type[BaseModel]) -> list[str]:
    """``name: (params) => ({...})``: the message as the kernel parses it."""
    schema = model.model_json_schema()
    params, entries = [], [f"type: {json.dumps(type_of(model))}"]
    for field, prop in schema["properties"].items():
        if field == "type":
            continue
        param = camel(field)
        default = prop.get("default")
        params.append(f"{param} = {json.dumps(default)}" if default not in (None, []) else param)
        entry = field if field == param else f"{field}: {param}"
        if prop.get("x-only-if-filled"):
            kinds = {prop.get("type"), *(s.get("type") for s in prop.get("anyOf", ()))}
            filled = f"{param}?.length" if "array" in kinds else f"{param}?.trim()"
            entries.append(f"...({filled} ? {{ {entry} }} : {{}})")
        else:
            entries.append(entry)
    head = f"  {camel(type_of(model))}: ({', '.join(params)}) => ({{"
    one_line = f"{head} {', '.join(entries)} }}),"
    if len(one_line) <= 110:
        return [*doc(model.__doc__, "  "), one_line]
    return [*doc(model.__doc__, "  "), head, *(f"    {e}," for e in entries), "  }),"]


def validator(model: type[BaseModel], checks: JsChecks) -> list[str]:
    schema = model.model_json_schema(mode="serialization")
    terms = checks.object_terms(schema, schema.get("$defs", {}), "m", skip=("type",))
    name = f"is{pascal(type_of(model))}"
    kind = type_of(model)
    return [
        *doc(model.__doc__, prefix=f"`{kind}`: "),
        f"export const {name} = (m) =>\n  " + " &&\n  ".join(terms) + ";",
    ]


def type_of(model: type[BaseModel]) -> str:
    """The ``type`` a message model carries on the wire."""
    return str(model.model_json_schema()["properties"]["type"]["const"])


def render_module(
    *,
    generator: str,
    source: str,
    reexport: str,
    clients: Sequence[type[BaseModel]],
    servers: Sequence[type[BaseModel]],
    checks: JsChecks | None = None,
    extra: Sequence[str] = (),
) -> str:
    """The generated module's text: ``generator`` (the module that runs this)
    renders the models of ``source``; ``reexport`` is the hand-written module
    that re-exports it; ``extra``: more lines, checked by ``checks``."""
    checks = checks or JsChecks()
    validators = [line for m in servers for line in [*validator(m, checks), ""]]
    server_types = [type_of(m) for m in servers]
    return "\n".join(
        [
            *_header(generator, source, reexport),
            "",
            'const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);',
            "",
            "/** The `type` of every message the browser sends. */",
            "export const TO_KERNEL_TYPES = Object.freeze([",
            *(f"  {json.dumps(type_of(m))}," for m in clients),
            "]);",
            "",
            "/** Every message type the kernel sends, by name (a dispatch table's keys). */",
            "export const FROM_KERNEL = Object.freeze({",
            *(f"  {t}: {json.dumps(t)}," for t in server_types),
            "});",
            "",
            "// --- browser -> kernel: the only way a view builds a message --------------------",
            "",
            "export const toKernel = Object.freeze({",
            *(line for m in clients for line in builder(m)),
            "});",
            "",
            "// --- kernel -> browser: a validator per message (its `type` picked it) ----------",
            "",
            *(f"{helper}\n" for helper in checks.helpers.values()),
            *validators,
            "/** The validator of each message the kernel sends, by its `type`. */",
            "export const FROM_KERNEL_VALIDATORS = Object.freeze({",
            *(f"  {t}: is{pascal(t)}," for t in server_types),
            "});",
            *extra,
            "",
        ]
    )


def _header(generator: str, source: str, reexport: str) -> list[str]:
    text = (
        f"GENERATED FILE: do not edit. `make protocol` writes it (python -m {generator}) "
        f"from the pydantic models of {source}, where every message is defined; change a "
        "message there and run `make protocol` (a test fails while this file is stale). "
        f"{reexport} re-exports it with what is not generated."
    )
    return [f"// {line}" for line in textwrap.wrap(text, width=80, break_on_hyphens=False)]


def main(render: Callable[[], str], out: Path, argv: list[str] | None = None) -> int:
    """Write ``render()`` to ``out`` (``--check``: only say whether it is current)."""
    parser = argparse.ArgumentParser(description="Write the generated JS of a wire protocol.")
    parser.add_argument("--check", action="store_true", help="only say whether the file is current")
    args = parser.parse_args(argv)
    text = render()
    current = out.read_text(encoding="utf-8") if out.exists() else None
    if args.check:
        if current != text:
            print(f"{out} is stale: run make protocol", file=sys.stderr)
            return 1
        return 0
    if current != text:
        out.write_text(text, encoding="utf-8")
        print(f"wrote {out}")
    return 0
