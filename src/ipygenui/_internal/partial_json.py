"""Incremental partial JSON: feed the streamed text chunk by chunk, read the value so far.

Why not re-parse: the usual partial parsers (partial-json-parser, jiter's
partial mode) parse the whole prefix again on every chunk, so a message's
total cost grows with the square of its length. This parser keeps a stack of
open containers and the token being read, consumes only the new characters of
each chunk, and updates the partial value in place: total work is linear.

Partial-value rule (the same as jiter's ``partial_mode="trailing-strings"``):

- an unterminated string shows its decoded prefix; an escape sequence cut by
  the chunk boundary is left out until it is complete, and so is a trailing
  ``\\uD800``-``\\uDBFF`` high surrogate still waiting for its low half;
- a number in progress is shown when the text so far is itself a valid JSON
  number (``12`` shows 12; ``-``, ``1.``, ``1e`` show nothing yet); it may
  still grow (``12`` -> ``123``), which :meth:`field_status` reports;
- ``true`` / ``false`` / ``null`` appear only once complete;
- a key without a started value (``{"a``, ``{"a":``) is left out;
- open objects and arrays show what they hold so far.

Field status paths (the keys of :meth:`PartialJSONParser.field_status`):
segments joined with ``"."``, array items by their index, e.g. ``"rows"``,
``"rows.3.name"``; the root value is ``""``. A ``.`` or ``\\`` inside an
object key is escaped with a backslash (``{"a.b": 1}`` -> ``"a\\.b"``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Literal

__all__ = ["FieldStatus", "PartialJSONError", "PartialJSONParser", "path_segment"]

FieldStatus = Literal["streaming", "complete"]

_STREAMING: FieldStatus = "streaming"
_COMPLETE: FieldStatus = "complete"

# Runs scanned by the C regex engine rather than a per-character Python loop.
_STR_RUN = re.compile(r'[^"\\\x00-\x1f]*')
_NUM_RUN = re.compile(r"[0-9+\-.eE]*")
_LIT_RUN = re.compile(r"[a-z]*")
_WS_RUN = re.compile(r"[ \t\n\r]*")
_HEX = re.compile(r"[0-9a-fA-F]*")
_NUM_FULL = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
# Every prefix of a valid number (and nothing else) matches this.
_NUM_PREFIX = re.compile(r"-?(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*|(?:\.[0-9]+)?[eE][+-]?[0-9]*)?)?")
_HIGH_SURROGATE_TAIL = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}$")
_SIMPLE_ESCAPES = frozenset('"\\/bfnrt')
_LITERALS: dict[str, tuple[str, Any]] = {
    "t": ("true", True),
    "f": ("false", False),
    "n": ("null", None),
}

# parser states
_VALUE, _AFTER, _KEY, _COLON, _STRING, _NUMBER, _LITERAL, _DONE = range(8)


class PartialJSONError(ValueError):
    """The text can never become valid JSON; ``offset`` is the 0-based
    character offset of the first offending character in all text fed."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(f"{message} at offset {offset}")
        self.offset = offset


def path_segment(key: str) -> str:
    """The field-status path segment for an object key (escapes ``\\`` and ``.``)."""
    if "." in key or "\\" in key:
        return key.replace("\\", "\\\\").replace(".", "\\.")
    return key


class _Frame:
    """An open object or array on the parser's stack."""

    __slots__ = ("container", "is_dict", "key", "path")

    def __init__(self, container: dict[str, Any] | list[Any], path: str) -> None:
        self.container: Any = container  # dict or list, told apart by is_dict
        self.is_dict = isinstance(container, dict)
        self.path = path
        self.key: str = ""  # the object key whose value comes next


class PartialJSONParser:
    """Linear-time incremental parser for one JSON value streamed in chunks.

    >>> p = PartialJSONParser()
    >>> p.feed('{"rows": [{"name": "Ad')
    >>> p.value
    {'rows': [{'name': 'Ad'}]}
    >>> p.field_status()["rows.0.name"]
    'streaming'

    ``value`` is live: objects and arrays are mutated in place as text
    arrives, so copy it if you need a snapshot. Reading it costs time only
    for the one scalar still being read (a partial string is joined once per
    read), never for the whole value.
    """

    def __init__(self) -> None:
        self._state = _VALUE
        self._stack: list[_Frame] = []
        self._allow_close = False  # right after "{" or "[": "}" / "]" may close
        self._root: Any = None
        self._status: dict[str, FieldStatus] = {}
        self._consumed = 0  # characters fed so far
        self._carry = ""  # an escape sequence cut by the chunk boundary
        # the scalar being read: where it goes and its text so far
        self._tok: list[str] = []
        self._tok_escaped = False
        self._tok_is_key = False
        self._tok_path = ""
        self._tok_start = 0  # offset where a number or literal began
        self._tok_shown = False  # a partial display sits in its slot
        self._dirty = False  # text fed since the partial scalar was shown
        self._error: PartialJSONError | None = None

    # --- public API ---------------------------------------------------------

    @property
    def done(self) -> bool:
        """True once a complete JSON value has been read."""
        return self._state == _DONE

    @property
    def value(self) -> Any:
        """The value so far: ``None`` before anything parsed, a dict for objects."""
        if self._dirty:
            self._dirty = False
            self._show_partial_scalar()
        return self._root

    def field_status(self) -> Mapping[str, FieldStatus]:
        """Every started value's path -> ``"streaming"`` or ``"complete"``.

        A read-only live view (no copy, so calling it per chunk stays cheap).
        """
        return MappingProxyType(self._status)

    def feed(self, chunk: str) -> None:
        """Consume the next characters. Raises :class:`PartialJSONError` if the
        text can never become valid JSON, and the same error on every later
        feed; ``value`` keeps what was parsed before the error."""
        if self._error is not None:
            raise self._error  # the text is already broken: nothing more can parse
        if not isinstance(chunk, str):
            raise TypeError(f"feed() takes str, not {type(chunk).__name__}")
        if not chunk:
            return
        s = self._carry + chunk if self._carry else chunk
        base = self._consumed - len(self._carry)  # offset of s[0]
        self._carry = ""
        self._consumed += len(chunk)
        self._dirty = True
        try:
            self._scan(s, base)
        except PartialJSONError as error:
            self._error = error
            raise

    # --- scanning -----------------------------------------------------------

    def _scan(self, s: str, base: int) -> None:
        i = 0
        n = len(s)
        while i < n:
            state = self._state
            if state == _STRING:
                j = _STR_RUN.match(s, i).end()  # type: ignore[union-attr]
                if j > i:
                    self._tok.append(s[i:j])
                    i = j
                    if i >= n:
                        break
                c = s[i]
                if c == '"':
                    i += 1
                    self._end_string()
                elif c == "\\":
                    if i + 1 >= n:
                        self._carry = s[i:]
                        break
                    e = s[i + 1]
                    if e in _SIMPLE_ESCAPES:
                        self._tok.append(s[i : i + 2])
                        self._tok_escaped = True
                        i += 2
                    elif e == "u":
                        digits = s[i + 2 : i + 6]
                        if _HEX.match(digits).end() != len(digits):  # type: ignore[union-attr]
                            raise PartialJSONError("invalid \\u escape", base + i)
                        if len(digits) < 4:
                            self._carry = s[i:]
                            break
                        self._tok.append(s[i : i + 6])
                        self._tok_escaped = True
                        i += 6
                    else:
                        raise PartialJSONError(f"invalid escape \\{e}", base + i)
                else:
                    raise PartialJSONError("control character in string", base + i)
                continue

            if state == _NUMBER:
                j = _NUM_RUN.match(s, i).end()  # type: ignore[union-attr]
                self._tok.append(s[i:j])
                i = j
                if j < n:  # a delimiter ended the number
                    self._end_number()
                elif _NUM_PREFIX.fullmatch("".join(self._tok)) is None:
                    raise PartialJSONError(
                        f"invalid number {''.join(self._tok)!r}", self._tok_start
                    )
                continue
            if state == _LITERAL:
                j = _LIT_RUN.match(s, i).end()  # type: ignore[union-attr]
                self._tok.append(s[i:j])
                i = j
                text = "".join(self._tok)
                word, lit = _LITERALS[text[0]]
                if not word.startswith(text) or (j < n and len(text) < len(word)):
                    raise PartialJSONError(f"invalid literal {text!r}", self._tok_start)
                if len(text) == len(word):
                    self._tok = []
                    self._end_scalar(lit)
                continue

            c = s[i]
            if c in " \t\n\r":
                i = _WS_RUN.match(s, i).end()  # type: ignore[union-attr]
                continue

            if state == _AFTER:
                top = self._stack[-1]
                if c == ",":
                    i += 1
                    self._state = _KEY if top.is_dict else _VALUE
                    self._allow_close = False
                elif c == ("}" if top.is_dict else "]"):
                    i += 1
                    self._close()
                else:
                    raise PartialJSONError(f"expected ',' or close, got {c!r}", base + i)
            elif state == _KEY:
                if c == '"':
                    i += 1
                    self._start_scalar(_STRING, is_key=True)
                elif c == "}" and self._allow_close:
                    i += 1
                    self._close()
                else:
                    raise PartialJSONError(f"expected an object key, got {c!r}", base + i)
            elif state == _COLON:
                if c != ":":
                    raise PartialJSONError(f"expected ':', got {c!r}", base + i)
                i += 1
                self._state = _VALUE
                self._allow_close = False
            elif state == _VALUE:
                i = self._start_value(s, i, base)
            else:  # _DONE
                raise PartialJSONError("unexpected data after the JSON value", base + i)

    def _start_value(self, s: str, i: int, base: int) -> int:
        c = s[i]
        if c == "{" or c == "[":
            container: dict[str, Any] | list[Any] = {} if c == "{" else []
            path = self._attach(container)
            self._status[path] = _STREAMING
            self._stack.append(_Frame(container, path))
            self._state = _KEY if c == "{" else _VALUE
            self._allow_close = True
        elif c == '"':
            self._start_scalar(_STRING, is_key=False)
        elif c == "-" or "0" <= c <= "9":
            self._start_scalar(_NUMBER, is_key=False)
            self._tok_start = base + i
            return i  # the number scanner reads this character
        elif c in _LITERALS:
            self._start_scalar(_LITERAL, is_key=False)
            self._tok_start = base + i
            return i
        elif c == "]" and self._allow_close and not self._stack[-1].is_dict:
            self._close()
        else:
            raise PartialJSONError(f"expected a JSON value, got {c!r}", base + i)
        return i + 1

    # --- placing values -----------------------------------------------------

    def _child_path(self) -> str:
        if not self._stack:
            return ""
        top = self._stack[-1]
        seg = path_segment(top.key) if top.is_dict else str(len(top.container))
        return f"{top.path}.{seg}" if top.path else seg

    def _attach(self, value: Any) -> str:
        """Put a new container into its parent (or the root); return its path."""
        path = self._child_path()
        if not self._stack:
            self._root = value
        else:
            top = self._stack[-1]
            if top.is_dict:
                top.container[top.key] = value
            else:
                top.container.append(value)
        return path

    def _start_scalar(self, state: int, *, is_key: bool) -> None:
        self._state = state
        self._tok = []
        self._tok_escaped = False
        self._tok_is_key = is_key
        self._tok_shown = False
        if not is_key:
            self._tok_path = self._child_path()
            self._status[self._tok_path] = _STREAMING

    def _end_string(self) -> None:
        raw = "".join(self._tok)
        text = json.loads(f'"{raw}"') if self._tok_escaped else raw
        self._tok = []
        if self._tok_is_key:
            self._stack[-1].key = text
            self._state = _COLON
        else:
            self._end_scalar(text)

    def _end_number(self) -> None:
        text = "".join(self._tok)
        self._tok = []
        if _NUM_FULL.fullmatch(text) is None:
            raise PartialJSONError(f"invalid number {text!r}", self._tok_start)
        try:
            value = _number(text)
        except ValueError:  # past Python's int-to-text limit: the model's text, not our fault
            raise PartialJSONError(
                f"an integer of {len(text):,} digits is too long", self._tok_start
            ) from None
        self._end_scalar(value)

    def _end_scalar(self, value: Any) -> None:
        self._place(value)
        self._status[self._tok_path] = _COMPLETE
        self._after_value()

    def _place(self, value: Any) -> None:
        if not self._stack:
            self._root = value
            return
        top = self._stack[-1]
        if top.is_dict:
            top.container[top.key] = value
        elif self._tok_shown:
            top.container[-1] = value
        else:
            top.container.append(value)
        self._tok_shown = False

    def _unplace(self) -> None:
        if not self._tok_shown:
            return
        self._tok_shown = False
        if not self._stack:
            self._root = None
            return
        top = self._stack[-1]
        if top.is_dict:
            del top.container[top.key]
        else:
            top.container.pop()

    def _show_partial_scalar(self) -> None:
        """Put the display value of the scalar being read into its slot."""
        state = self._state
        if self._tok_is_key or state not in (_STRING, _NUMBER, _LITERAL):
            return
        if state == _STRING:
            raw = "".join(self._tok)
            self._tok = [raw] if raw else []  # join once; later reads reuse it
            if self._tok_escaped:
                raw = _HIGH_SURROGATE_TAIL.sub("", raw)
                shown: Any = json.loads(f'"{raw}"')
            else:
                shown = raw
        elif state == _NUMBER:
            text = "".join(self._tok)
            try:
                shown = None if _NUM_FULL.fullmatch(text) is None else _number(text)
            except ValueError:  # too many digits to read: :meth:`feed` says so at its end
                shown = None
            if shown is None:
                self._unplace()
                return
        else:  # literals appear only once complete
            return
        self._place(shown)
        self._tok_shown = True

    def _close(self) -> None:
        frame = self._stack.pop()
        self._status[frame.path] = _COMPLETE
        self._after_value()

    def _after_value(self) -> None:
        self._state = _AFTER if self._stack else _DONE


def _number(text: str) -> int | float:
    if "." in text or "e" in text or "E" in text:
        return float(text)
    return int(text)
