"""The one JSON parser of the API: DRF's, made safe against hostile bodies.

DRF's `JSONParser` turns malformed JSON into a 400, but not everything a client can
send is merely malformed:

- `[[[[…` a hundred thousand levels deep makes the C decoder raise `RecursionError`,
  which DRF lets through as a 500;
- a NUL character (`\\u0000`) is valid JSON, but PostgreSQL refuses it in text columns
  (SQLite stores it), so the same body would be a 500 on one database and stored on the
  other; a lone surrogate (`\\ud800`) is valid JSON too, but no UTF-8 text at all, so
  neither database can store it. Both are refused here, with the place they were found;
- a number too large for a float (`1e999`) is valid JSON that Python reads as infinity,
  which no field means and which fails later (JSON out, SQL): refused here too, with its
  place.
"""

import math
import re

from rest_framework import exceptions, parsers

# Deep enough for every payload of the contract (the deepest, a DSAR payload or a
# continuation token's surface context, nests three or four levels).
MAX_JSON_DEPTH = 32

# NUL, and the surrogate code points that only JSON's \u escapes can produce.
UNSTORABLE = re.compile(r"[\x00\ud800-\udfff]")


def _check_structure(data) -> None:
    """Walk the parsed document without recursion: refuse excess depth and unstorable text."""
    stack: list[tuple[object, tuple[str, ...], int]] = [(data, (), 0)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, dict):
            if depth >= MAX_JSON_DEPTH:
                raise exceptions.ParseError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels.")
            for key, inner in value.items():
                if UNSTORABLE.search(key):
                    raise _unstorable_error(path)
                stack.append((inner, (*path, key), depth + 1))
        elif isinstance(value, list):
            if depth >= MAX_JSON_DEPTH:
                raise exceptions.ParseError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels.")
            stack.extend((inner, (*path, str(i)), depth + 1) for i, inner in enumerate(value))
        elif isinstance(value, str) and UNSTORABLE.search(value):
            raise _unstorable_error(path)
        elif isinstance(value, float) and not math.isfinite(value):
            raise exceptions.ValidationError(
                {".".join(path) or "non_field_errors": ["A number this large is not allowed."]}
            )


def _unstorable_error(path: tuple[str, ...]) -> exceptions.ValidationError:
    return exceptions.ValidationError(
        {
            ".".join(path) or "non_field_errors": [
                "Null characters and unpaired surrogates are not allowed."
            ]
        }
    )


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser that answers 400, never 500, for any body a client can send."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError as exc:
            raise exceptions.ParseError(
                f"JSON nested deeper than {MAX_JSON_DEPTH} levels."
            ) from exc
        _check_structure(data)
        return data
