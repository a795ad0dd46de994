"""The fault matrix, counted from the test collection.

``tests/faults/README.md`` (the matrix) and ``docs/guides/security.md`` (the
security model's figures) carry a generated block each; ``tests/project/test_fault_matrix.py``
fails when either is stale, and ``python tests/fault_matrix.py`` rewrites both
from ``pytest --collect-only``. So no figure is ever typed by hand.

An area groups the fault files that try one surface; every file in
``tests/faults/`` belongs to exactly one area.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FAULTS = ROOT / "tests" / "faults"
MATRIX_FILE = FAULTS / "README.md"
SECURITY_FILE = ROOT / "docs" / "guides" / "security.md"


@dataclass(frozen=True)
class Area:
    name: str
    files: tuple[str, ...]
    tried: str


AREAS = (
    Area(
        "AG-UI server",
        ("test_agui_server.py",),
        "`rt.ag_ui_app()` tried as a hostile web page and local process: no token, a wrong "
        "one, a foreign `Host` (DNS rebinding) or `Origin`, a `no-cors` `text/plain` POST, "
        "CORS preflights, a 100 MB body, a 100,000-deep body, a tool message settling a "
        "gated call, a user message dismissing a pending approval, malformed, stale, "
        "repeated and partial resumes of an interrupt, resumes of the notebook's own call, from "
        "another `threadId` or naming another `parentRunId`, every interrupt cancelled beside a "
        "new message (moves on, the call not run), a client hanging up mid-run, hostile "
        "client tools (a chat tool's name, reserved prefixes, oversized or invalid schemas, "
        "129 tools) and client states (no object, over the size or depth limits)",
    ),
    Area(
        "answers",
        ("test_answers.py",),
        "a gated or kernel tool's call answered by `add_tool_result`, a forged widget "
        "`tool_result` and an agent's `TOOL_CALL_RESULT`; human tools still answerable",
    ),
    Area(
        "AG-UI agents",
        ("test_agui_sequence.py", "test_agui_agent_limits.py", "test_agui_interrupts.py"),
        "cancel mid-text and mid-arguments, reject / answer / send while calls wait, retry "
        "after RUN_ERROR, unknown parents, every runtime scenario through the sequence "
        "verifier; JSON Patch bombs (`copy` ops, 300-deep states), a 64 MB event, an "
        "endless stream, a snapshot then a delta, the connection after cancel, unclosed "
        "sessions at exit; interrupts for a call not made, for none, for a kernel tool, "
        "for an answered or decided call, malformed ones, an agent interrupting forever "
        "(with a grant too), a reload while the approval is pending, a new message instead "
        "of a decision (the interrupt resumed as cancelled, once)",
    ),
    Area(
        "MCP",
        ("test_mcp.py",),
        "servers that crash, hang, lie about schemas or annotations (`readOnlyHint` with "
        "`destructiveHint`), a remote `$ref` (SSRF), a catastrophic `pattern`, a 6 MB "
        "schema, reserved `show_component_` / `update_component_` names, a backreference "
        "pattern, an `outputSchema` pattern, an approval note forged in a thread file, "
        "a server name with a line break and 5,000 characters; "
        "a server asking mid-call with a form MCP does not allow (nested object, `$ref`, "
        "`pattern`, 60 fields), a 150,000-character sampling prompt, a request after its call "
        "ended, two requests at once, a result for a sampling card, a double approve",
    ),
    Area(
        "files",
        ("test_files.py",),
        "attachment ids that climb out of `.files/`, a symlinked `.files` folder, links to "
        "`/dev/zero`, FIFOs in `.files/` and as the thread file, a non-image named `.png`, "
        "an image saved through a linked folder, a FIFO and a size-0 `/proc` file given by "
        "path, lock files as symbolic or hard links (at open and mid-run), a thread file "
        "that is a link, two calls sharing one id in a thread file",
    ),
    Area(
        "network",
        ("test_network.py", "test_openai_stream_errors.py"),
        "HTTP 4xx/5xx, 429 with `Retry-After` (seconds, ms, date, garbage, an hour, `inf`), "
        "a server that never answers, a stall mid-stream, a stream cut before `[DONE]`, "
        "garbage SSE, an unreachable server; Stop during a retry wait and during a hang; "
        "errors inside an HTTP-200 stream (Groq's `event: error`, OpenRouter's error chunk "
        'with choices, vLLM\'s error frame, `"error": null`, a frame not JSON) and a cut or '
        "a timeout mid-reply, worded alike on the raw and typed paths (a cut never retried)",
    ),
    Area(
        "native providers",
        ("test_provider_model.py",),
        "`gu.model('anthropic:...')` and the other pydantic-ai providers: a refusal, a 429 "
        "with `Retry-After` (short, an hour), an overloaded event before any text, an error "
        "mid-stream, a connection cut mid-reply, no server, Stop on a real SDK stream that "
        "never ends and on one with nothing to close; a thread file with another "
        "provider's signed thinking or forged provider data of the wrong types",
    ),
    Area(
        "comm",
        ("test_comm.py",),
        "forged frontend messages (wrong types, unknown calls, stale and duplicate "
        "decisions, oversized payloads), 250- and 5,000-character tool-call ids, a message "
        "over the length limit (the text stays in the box)",
    ),
    Area(
        "definitions",
        ("test_definitions.py",),
        "builtins, positional-only and `_` parameters, names pydantic reserves, annotations "
        "with no schema, defaults of the wrong type, NaN defaults, generators, methods, "
        "reserved names, bytes results, wrong constructor arguments",
    ),
    Area(
        "persistence",
        ("test_persistence.py", "test_crash_during_save.py"),
        "hand-edited thread files (calls flipped to approved, `always_approved` added), two "
        "writers on one path, stale temp files, truncated and invalid files, SIGKILL 20 "
        "times during autosave",
    ),
    Area(
        "odd values",
        ("test_odd_values.py",),
        "lone surrogates from the model, the user, tool arguments, results and reasons; "
        "`factorial(2000)`, `10**100000`, NaN and inf in results; a save that raises; a "
        "5,000-digit integer in streamed tool arguments",
    ),
    Area(
        "tools and components",
        (
            "test_tool_execution.py",
            "test_tool_result_budget.py",
            "test_tool_call_ids.py",
            "test_component_render.py",
        ),
        "`sys.exit` / argparse in a tool or a component's render, hung renders and sync "
        "tools, `KeyboardInterrupt`, a tool cancelling itself, a 20 MB result, duplicate "
        "and reused tool-call ids",
    ),
    Area(
        "approvals",
        ("test_approvals.py",),
        'a rule fed `"false"` / `"no"` / `"off"` / `"0"` / `0` for a bool, edited '
        "arguments, a rule that raises, a single-model tool",
    ),
    Area(
        "always-allow grants",
        ("test_grants.py",),
        "forged widget messages that try to grant (extra fields on a revoke, `grant` / "
        "`always_allow` types, a second `always` on a decided call, a revoke of a tool "
        "never granted): an error, the grants unchanged; a revoke removes only its tool",
    ),
    Area(
        "conversation and data",
        (
            "test_conversation_control.py",
            "test_data_references.py",
            "test_loop_seams.py",
            "test_widget_texts.py",
        ),
        "edits, regenerations and branch switches mid-run, stale data references, the "
        "loop's seams between steps, widget texts and sizes",
    ),
    Area(
        "browser kernel",
        ("test_browser_kernel.py",),
        "Pyodide with no threads (JupyterLite): a sync tool, a failing sync tool, a sync "
        "Python component, a sorted page of a large table, the price data of a priced reply",
    ),
    Area(
        "widget bundle",
        ("test_widget_bundle.py",),
        "five chats in one saved notebook (the bundle once, each later chat under 10 KB), "
        "a closed bundle model replaced, a checkout without the built bundle",
    ),
    Area("resources", ("test_resources.py",), "1,000 turns on the offline and scripted models"),
    Area(
        "small things",
        ("test_small_things.py",),
        "a refused connection through OpenAIModel and two SDKs (not called a timeout), a "
        "table titled by an internal ref, a default and a user-styled matplotlib figure, "
        "`chat.model` from code",
    ),
    Area(
        "model switch",
        ("test_model_switch.py",),
        "a forged picker choice (an unlisted name, a near-miss id, extra fields, a 10,000-"
        "character id), a listed model that cannot be made (no key), a thread file's saved "
        "choice that is not listed or cannot be made now, the clients of models switched away from",
    ),
    Area(
        "notebook display",
        ("test_transcript_display.py",),
        "script, image, iframe, link and markdown payloads in a thread file's text, "
        "attachment and tool names, arguments, results and reasons through `_repr_html_` / "
        "`_repr_markdown_`; "
        "a right-to-left override, a lone surrogate, a result no encoder takes, a 1 MB "
        "message with 400 calls",
    ),
    Area(
        "MCP request flood",
        ("test_mcp_flood.py",),
        "300 form requests at once from one approved call (cards capped, the rest refused "
        "to the server, Stop ends the run, the loop answering), 500 saves asked for at once",
    ),
    Area(
        "A2UI",
        ("test_a2ui.py",),
        "an `updateDataModel` path 5,000 levels deep and a value 500 deep (from a model and "
        "in a thread file), 10,000 components in one surface, a thread's surfaces over their "
        "total, a data model over its size; each call's messages checked once",
    ),
    Area(
        "cassettes",
        ("test_cassettes.py",),
        "files that are no cassette, another format version, a symbolic link, a FIFO, "
        "`/dev/zero`, a URL, a file over the cap; entries not JSON, 10,000 deep, over the "
        "line cap, of wrong types or unknown delta kinds (skipped naming the line, or refused "
        "with `strict=True`); an offset of ten years (capped, Stop ends it); a recorded call "
        "to a gated tool (still waits for the user) and to a tool the chat lacks",
    ),
    Area(
        "workbench",
        ("test_workbench.py",),
        "a replay of 200,000 characters in 1-character chunks, props 100,000 levels deep "
        "checked and replayed",
    ),
)

_JS_AND_BROWSER_ROWS = (
    "| XSS and URLs (JS) | `js/test/helpers/xss-corpus.js`, `js/test/common/resources.test.js`, "
    "`js/test/markdown/fuzz.test.js` | script-injection payloads through both renderers at "
    "every streamed prefix, resource-fetching payloads through three render paths, seeded "
    "random HTML/markdown documents streamed and whole |",
    "| approval card (JS) | `js/test/tool-card/invisible-chars.test.js`, "
    "`js/test/tool-card/approval-note.test.js`, `js/test/tool-card/server-request.test.js` | "
    "a right-to-left override, isolates, a zero-width "
    "space and tag characters in arguments and `run_python` code (highlighted, plain, "
    "late-highlighted, edited, CRLF) and in a link request's URL, the XSS corpus wrapped in "
    "them; a server's claims shown as text |",
    "| run_python card (JS) | `js/test/tool-card/run-python-card.test.js` | script and HTML "
    "in stdout, the value's repr and table names, cells, dtypes and index; figure URLs that "
    "are not `data:`; a malformed `for_user` |",
    "| widget keyboard (JS) | `js/test/controls.test.js` | Esc, `/` and arrow keys inside the "
    "widget kept from JupyterLab's notebook shortcuts; Esc outside the widget left alone |",
    "| in the browser | `tests/e2e/` | model-written images against a local server that "
    "records requests, a `<frameset>` reply, a typed XSS attempt, a `no-cors` POST from "
    "another origin to the AG-UI endpoint, invisible characters on the approval card |",
)


def collected_counts() -> Counter[str]:
    """Tests per fault file, as pytest collects them (parametrized cases count)."""
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/faults",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    counts: Counter[str] = Counter()
    for line in out.splitlines():
        if "::" in line:
            counts[Path(line.split("::", 1)[0]).name] += 1
    return counts


def unassigned(counts: Counter[str]) -> list[str]:
    """Fault files no area names (each must belong to one)."""
    named = {f for area in AREAS for f in area.files}
    return sorted(set(counts) - named)


def area_count(area: Area, counts: Counter[str]) -> int:
    return sum(counts[f] for f in area.files)


def matrix_block(counts: Counter[str]) -> str:
    rows = ["| area | tests | where | what is tried |", "|---|---|---|---|"]
    for area in AREAS:
        where = ", ".join(f"`{f}`" for f in area.files)
        rows.append(f"| {area.name} | {area_count(area, counts)} | {where} | {area.tried} |")
    js_rows = [row.replace(" | `", " | – | `", 1) for row in _JS_AND_BROWSER_ROWS]
    return "\n".join(rows + js_rows)


def figures_block(counts: Counter[str]) -> str:
    parts = ", ".join(f"{a.name} {area_count(a, counts)}" for a in AREAS if area_count(a, counts))
    return f"{sum(counts.values())} Python fault tests ({parts})"


_BLOCK = "<!-- {name}:start -->\n{body}\n<!-- {name}:end -->"


def replace_block(text: str, name: str, body: str) -> str:
    pattern = re.compile(rf"<!-- {name}:start -->\n.*?<!-- {name}:end -->", re.S)
    if not pattern.search(text):
        raise ValueError(f"no <!-- {name}:start --> ... <!-- {name}:end --> block")
    return pattern.sub(lambda _: _BLOCK.format(name=name, body=body), text, count=1)


def expected_texts(counts: Counter[str]) -> dict[Path, str]:
    return {
        MATRIX_FILE: replace_block(
            MATRIX_FILE.read_text(encoding="utf-8"), "fault-matrix", matrix_block(counts)
        ),
        SECURITY_FILE: replace_block(
            SECURITY_FILE.read_text(encoding="utf-8"), "fault-figures", figures_block(counts)
        ),
    }


def main() -> None:
    counts = collected_counts()
    missing = unassigned(counts)
    if missing:
        raise SystemExit(f"fault files in no area of tests/fault_matrix.py: {', '.join(missing)}")
    for path, text in expected_texts(counts).items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
