"""Players' names: one rule for the web table, ``nimmt play --name`` and ``nimmt assist``.

A name is trimmed, its runs of white space folded into one space, and kept in Unicode's composed
form (NFC). It is refused (:class:`BadNameError`) when it is empty, longer than :data:`NAME_MAX`
characters as people count them (grapheme clusters: an emoji is one), or when it holds an
invisible or unprintable character (:data:`REFUSED_CATEGORIES`) other than folded white space
and the joiners that emoji sequences are made of (:data:`EMOJI_FORMAT`). Two names of one table
are alike when they differ only in letter case (:func:`name_key`).

>>> clean_name("  Zoe\\u0308   Ana ")
'Zoë Ana'
>>> clean_name("Ana\\u0007")
Traceback (most recent call last):
...
nimmt.names.BadNameError: a name cannot hold control characters
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

import regex

NAME_MAX = 24
"""The most characters (grapheme clusters) in a name."""

FOLDED_SPACE = " \t\n\r\v\f"
"""White space a form may let through: folded into one space like any run of spaces."""
EMOJI_FORMAT = frozenset(
    {"\u200d"}  # zero-width joiner: 👩‍👩‍👧‍👦 is one picture made of four
    | {chr(code) for code in range(0xE0020, 0xE0080)}  # tags: the flags of 🏴󠁧󠁢󠁳󠁣󠁴󠁿 and the like
)
"""The invisible format characters (Unicode ``Cf``) that emoji sequences are made of."""
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Control, format, surrogate, private-use and unassigned characters, and line or paragraph
separators: invisible or unprintable, they would let two names look alike or break a line."""
GRAPHEME = regex.compile(r"\X")


class BadNameError(ValueError):
    """A name the rule refuses; the message says why, in lower case without a final stop (the
    server makes a sentence of it, the command line prints it after ``error:``)."""


def name_length(name: str) -> int:
    """The length of a name as people count it: in grapheme clusters (what the browser's
    ``Intl.Segmenter`` counts too), so that 👩‍👩‍👧‍👦, 🇫🇷 and 👍🏽 are one each.

    >>> [name_length(text) for text in ("Ana", "👩‍👩‍👧‍👦", "🇫🇷", "👍🏽", "Zoë")]
    [3, 1, 1, 1, 3]
    """
    return len(GRAPHEME.findall(name))


def clean_name(name: object) -> str:
    """``name`` as a display name (see the module's docstring), or :class:`BadNameError`."""
    if not isinstance(name, str):
        raise BadNameError("the name must be text")
    if any(
        char not in FOLDED_SPACE
        and char not in EMOJI_FORMAT
        and unicodedata.category(char) in REFUSED_CATEGORIES
        for char in name
    ):
        raise BadNameError("a name cannot hold control characters")
    cleaned = unicodedata.normalize("NFC", " ".join(name.split()))
    if not cleaned:
        raise BadNameError("please give a name")
    if name_length(cleaned) > NAME_MAX:
        raise BadNameError(f"a name has at most {NAME_MAX} characters")
    return cleaned


def name_key(name: str) -> str:
    """What two names alike have in common: a clean name in any letter case."""
    return name.casefold()


def clean_names(names: Iterable[object]) -> list[str]:
    """Each of ``names`` cleaned by :func:`clean_name`, no two alike (:func:`name_key`), or
    :class:`BadNameError`."""
    cleaned = [clean_name(name) for name in names]
    keys = [name_key(name) for name in cleaned]
    for name, key in zip(cleaned, keys, strict=True):
        if keys.count(key) > 1:
            raise BadNameError(f"{name!r} is named twice: give each a name")
    return cleaned
