"""Display names: emoji sequences count as one character each (grapheme clusters, as the
browser's ``Intl.Segmenter`` counts them), control and other invisible characters are refused."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient
from tests.server.server_helpers import create_table

from nimmt.names import NAME_MAX, NAME_MAX_CODE_POINTS, name_key, name_length
from nimmt.server.errors import ServiceError
from nimmt.server.table import clean_name

FAMILY = "\U0001f469\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # 👩‍👩‍👧‍👦
FLAG_FR = "\U0001f1eb\U0001f1f7"  # 🇫🇷
THUMB_MEDIUM = "\U0001f44d\U0001f3fd"  # 👍🏽
SCOTLAND = "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"  # 🏴 + tags
RAINBOW_FLAG = "\U0001f3f3\ufe0f\u200d\U0001f308"  # 🏳️‍🌈: variation selector and joiner
KEYCAP_ONE = "1\ufe0f\u20e3"  # 1️⃣


@pytest.mark.parametrize(
    "sequence", [FAMILY, FLAG_FR, THUMB_MEDIUM, SCOTLAND, RAINBOW_FLAG, KEYCAP_ONE]
)
def test_an_emoji_sequence_is_one_character(sequence: str) -> None:
    assert name_length(sequence) == 1
    assert clean_name(f"Ana {sequence}") == f"Ana {sequence}"
    fits = min(NAME_MAX, NAME_MAX_CODE_POINTS // len(sequence))
    assert name_length(clean_name(sequence * fits)) == fits


def test_the_limit_counts_grapheme_clusters_and_caps_code_points() -> None:
    assert len(FAMILY * NAME_MAX) == 7 * NAME_MAX  # far more code points than characters
    assert clean_name(FAMILY * NAME_MAX) == FAMILY * NAME_MAX
    # One letter under 3,000 accents is one character, but 6 KB in every message.
    for too_long in ("a" * (NAME_MAX + 1), FAMILY * (NAME_MAX + 1), "a" + "\u0301" * 3000):
        with pytest.raises(ServiceError) as refused:
            clean_name(too_long)
        assert refused.value.code == "bad_name"
    # A letter with a combining accent is one character too, and is stored composed.
    assert clean_name("Zoe\u0308" * 8) == "Zo\u00eb" * 8
    assert clean_name("e\u0301" * NAME_MAX) == "\u00e9" * NAME_MAX


@pytest.mark.parametrize(
    "name",
    [
        "bell\u0007",  # Cc
        "Ana\u0000",  # Cc
        "Ana\u0085",  # Cc (next line)
        "A\u200bna",  # Cf: a zero-width space would make two names look alike
        "Ana\u202e",  # Cf: right-to-left override
        "Ana\ufeff",  # Cf: byte order mark
        "Ana\u2028Ben",  # Zl: line separator
        "Ana\u2029",  # Zp: paragraph separator
        "Ana\ue000",  # Co: private use
        "Ana\U000f0000",  # Co: private use plane
        "Ana\u0378",  # Cn: unassigned
        "Ana\ud800",  # Cs: a lone surrogate
    ],
)
def test_control_and_invisible_characters_are_refused(name: str) -> None:
    with pytest.raises(ServiceError) as refused:
        clean_name(name)
    assert refused.value.code == "bad_name"


@pytest.mark.parametrize(
    "name",
    [
        "\u200d\u200d",  # joiners alone
        "\U000e0041\U000e0042",  # tags alone
        "\ufe0f",  # a variation selector alone
        "\u0301",  # an accent on nothing
        "\u3164",  # Hangul filler: a "letter" that shows nothing
        "\u2800 \u2800",  # blank Braille patterns
    ],
)
def test_a_name_that_shows_nothing_is_refused(name: str) -> None:
    with pytest.raises(ServiceError) as refused:
        clean_name(name)
    assert refused.value.code == "bad_name"


def test_names_alike_but_for_joiners_or_variation_selectors() -> None:
    assert name_key("Ana\u200d") == name_key("ana") == name_key("A\ufe0fna")
    assert name_key(RAINBOW_FLAG) != name_key("\U0001f3f3")


def test_white_space_is_folded_and_blank_is_refused() -> None:
    assert clean_name("  Ana \t\n Ben\u00a0 ") == "Ana Ben"
    for blank in ("", "   ", "\t\n"):
        with pytest.raises(ServiceError):
            clean_name(blank)
    with pytest.raises(ServiceError):
        clean_name(42)


def test_emoji_names_through_the_api(make_client) -> None:  # type: ignore[no-untyped-def]
    client: TestClient = make_client()
    name = f"{FAMILY} {FLAG_FR}{THUMB_MEDIUM}"
    code, _token = create_table(client, [{"kind": "human"}, {"kind": "human"}], name)
    long_name = FAMILY * NAME_MAX
    joined = client.post(f"/api/tables/{code}/join", json={"name": long_name})
    assert joined.status_code == 200, joined.text
    names = [seat["name"] for seat in client.get(f"/api/tables/{code}").json()["seats"]]
    assert names == [name, long_name]
    bell = client.post("/api/tables", json={"seats": [{"kind": "human"}] * 2, "name": "\u0007"})
    assert bell.status_code == 422 and bell.json()["error"]["code"] == "bad_name"
