"""docs/deploy.md's fenced blocks, for the tests that run them as written there (the proxies,
the service unit, the nightly backup and the restore), so that the operator's guide and what is
tested cannot drift apart. A test changes only what it must, with :func:`substituted`."""

from __future__ import annotations

import re
from pathlib import Path

DEPLOY = Path(__file__).resolve().parents[3] / "docs" / "deploy.md"


def section(title: str) -> str:
    """The text of the section ``## title`` (up to the next ``## ``)."""
    text = DEPLOY.read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def blocks(language: str, title: str) -> list[str]:
    """The fenced ``language`` blocks of the section ``## title``, in order."""
    pattern = rf"^```{language}\n(.*?)^```$"
    found: list[str] = re.findall(pattern, section(title), flags=re.MULTILINE | re.DOTALL)
    return found


def block(language: str, title: str, containing: str = "") -> str:
    """The one fenced ``language`` block of the section ``## title`` that holds ``containing``."""
    matching = [text for text in blocks(language, title) if containing in text]
    assert len(matching) == 1, f"{DEPLOY.name}: {len(matching)} {language} blocks in {title!r}"
    return matching[0]


def substituted(text: str, replacements: dict[str, str]) -> str:
    """``text`` with each of ``replacements`` made; every one must be there to be made, so that
    a changed doc fails here instead of being tested with its old words."""
    for old, new in replacements.items():
        assert old in text, f"{DEPLOY.name} no longer says {old!r}: update the test"
        text = text.replace(old, new)
    return text
