"""Players' names: one rule for the web table, ``nimmt play --name`` and ``nimmt assist``.

A name is trimmed, its runs of white space folded into one space, and kept in Unicode's composed
form (NFC). It is refused (:class:`BadNameError`) when it is empty, longer than :data:`NAME_MAX`
characters as people count them (grapheme clusters: an emoji is one), or when it holds an
invisible or unprintable character (:data:`REFUSED_CATEGORIES`) other than folded white space
and the joiners that emoji sequences are made of (:data:`EMOJI_FORMAT`), when nothing of it
shows (no letter, digit, punctuation or symbol but blank ones), or when it is made of more than
:data:`NAME_MAX_CODE_POINTS` code points. Two names of one table are alike when they differ
only in letter case, joiners or variation selectors (:func:`name_key`).

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
NAME_MAX_CODE_POINTS = 200
"""The most code points in a name: a character may be made of several (👍🏽 of two, 👩‍👩‍👧‍👦 of
seven, so 24 of those are 168), but not of a pile of accents sent in every message."""
BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Characters Unicode counts as letters or symbols that show nothing (the Hangul fillers, the
blank Braille pattern)."""
SHOWN_CATEGORIES = frozenset("LNPS")
"""Letters, numbers, punctuation and symbols (the first letter of a Unicode category): a name
needs one of them that is not blank, or it shows nothing."""

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
IGNORED_IN_KEY = EMOJI_FORMAT | {chr(code) for code in range(0xFE00, 0xFE10)}
"""What two names alike may differ in: the joiners and the variation selectors, which change
how a character is drawn, not which it is ("Ana" and "Ana" with a joiner after it look the
same)."""


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
    if not any(
        unicodedata.category(char)[0] in SHOWN_CATEGORIES and char not in BLANK_LETTERS
        for char in cleaned
    ):
        raise BadNameError("a name needs a letter, a digit or a symbol that shows")
    if name_length(cleaned) > NAME_MAX:
        raise BadNameError(f"a name has at most {NAME_MAX} characters")
    if len(cleaned) > NAME_MAX_CODE_POINTS:
        raise BadNameError(
            f"that name is too long: at most {NAME_MAX_CODE_POINTS} code points (a pile of"
            " accents counts each)"
        )
    return cleaned


def name_key(name: str) -> str:
    """What two names alike have in common: a clean name in any letter case."""
    return "".join(char for char in name if char not in IGNORED_IN_KEY).casefold()


def clean_names(names: Iterable[object]) -> list[str]:
    """Each of ``names`` cleaned by :func:`clean_name`, no two alike (:func:`name_key`), or
    :class:`BadNameError`."""
    cleaned = [clean_name(name) for name in names]
    keys = [name_key(name) for name in cleaned]
    for name, key in zip(cleaned, keys, strict=True):
        if keys.count(key) > 1:
            raise BadNameError(f"{name} is named twice: give each a name")
    return cleaned
