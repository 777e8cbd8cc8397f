"""Saved policies (``nimmt.bots.saved``): the file round-trips, a bad file is one clear error, and
the ``policy:PATH`` bot plays legal cards and rows as its weights say."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest
from tests.bots.test_bots_play import Watched, play_round

from nimmt.bots import UnknownBotError, make_bot
from nimmt.bots.saved import (
    FEATURE_NAMES,
    FEATURES,
    Decisions,
    Network,
    PolicyBot,
    PolicyFileError,
    candidate_features,
    load_policy,
)
from nimmt.engine import Game, total_bullheads


def trained_like(seed: int = 3, hidden: int = 8) -> Network:
    network = Network.initial(hidden, np.random.default_rng(seed), scale=1.0)
    network.linear[...] = np.random.default_rng(seed + 1).normal(0, 1, FEATURES)
    network.info = {"note": "a test"}
    return network


def preferring(feature: str, weight: float) -> Network:
    """A network that scores a candidate ``weight`` times one of its features, nothing else."""
    network = Network(np.zeros(FEATURES), np.zeros((FEATURES, 1)), np.zeros(1), np.zeros(1))
    network.linear[FEATURE_NAMES.index(feature)] = weight
    return network


def test_a_saved_policy_loads_back_the_same(tmp_path: Path) -> None:
    network = trained_like()
    path = network.save(tmp_path / "p.npz")
    loaded = load_policy(path)
    for name in ("linear", "w1", "b1", "w2"):
        np.testing.assert_array_equal(getattr(loaded, name), getattr(network, name))
    assert loaded.info == {"note": "a test"}
    with np.load(path, allow_pickle=False) as archive:  # the header, readable by numpy alone
        assert str(archive["format"]) == "nimmt-policy" and int(archive["version"]) == 1
        assert tuple(archive["features"]) == FEATURE_NAMES


def test_a_changed_file_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "p.npz"
    preferring("card", 1.0).save(path)
    first = load_policy(path)
    preferring("card", -1.0).save(path)
    assert load_policy(path).linear[FEATURE_NAMES.index("card")] == -1.0
    first.linear[...] = 5  # what a caller does with its copy changes nothing for the next one
    assert load_policy(path).linear[FEATURE_NAMES.index("card")] == -1.0


def rewrite(path: Path, **changes: object) -> None:
    with np.load(path, allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    for name, value in changes.items():
        if value is None:
            del arrays[name]
        else:
            arrays[name] = np.asarray(value)
    with path.open("wb") as out:
        np.savez(out, **arrays)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": None}, "is not a nimmt policy: no 'nimmt-policy' header"),
        ({"format": "something-else"}, "is not a nimmt policy"),
        ({"version": 2}, "is a policy of version 2; this nimmt reads version 1"),
        ({"features": ["cost"]}, "saved with other features"),
        ({"w1": np.zeros((3, 8))}, "'w1' has the shape (3, 8), not (24, 8)"),
        ({"w2": None}, "has no array 'w2' of numbers"),
        ({"b1": np.full(8, np.nan)}, "'b1' holds a value that is not finite"),
    ],
)
def test_a_bad_policy_file_is_one_clear_error(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    path = trained_like().save(tmp_path / "bad.npz")
    rewrite(path, **change)
    with pytest.raises(PolicyFileError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_policy(path)


def test_files_that_are_no_policy_at_all_are_refused(tmp_path: Path) -> None:
    with pytest.raises(PolicyFileError, match=r"no policy file at 'nowhere\.npz'"):
        load_policy("nowhere.npz")
    with pytest.raises(PolicyFileError, match="is not a file"):
        load_policy(tmp_path)
    text = tmp_path / "notes.npz"
    text.write_text("hello")
    with pytest.raises(PolicyFileError, match=r"is not a policy file \(\.npz\)"):
        load_policy(text)
    pickled = tmp_path / "pickled.npz"
    # An object array needs pickle: refused.
    with zipfile.ZipFile(pickled, "w") as archive, archive.open("format.npy", "w") as member:
        np.save(member, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(PolicyFileError, match="is not a policy file"):
        load_policy(pickled)


def test_make_bot_names_the_bad_file(tmp_path: Path) -> None:
    with pytest.raises(UnknownBotError, match=r"bot 'policy:missing\.npz': no policy file at"):
        make_bot("policy:missing.npz")
    path = preferring("card", 1.0).save(tmp_path / "Mixed Case.npz")
    bot = make_bot(f"  policy:{path} ", 7)  # the path keeps its case and inner spaces
    assert isinstance(bot, PolicyBot) and bot.name == f"policy:{path}"


@pytest.mark.parametrize("players", [2, 4, 10])
def test_the_policy_bot_makes_legal_choices_in_whole_rounds(tmp_path: Path, players: int) -> None:
    path = trained_like(seed=players).save(tmp_path / "p.npz")
    rows = 0
    for seed in range(4):
        game = Game(players)
        game.deal(seed)
        bots = [Watched(make_bot(f"policy:{path}"), seat, game) for seat in range(players)]
        rounds = len(game.history)
        play_round(game, bots)
        assert len(game.history) == rounds and len(game.history[-1].turns) == 10
        rows += sum(turn.row is not None for turn in game.history[-1].turns)
    assert rows > 0  # row choices were made along the way


def test_the_bot_plays_the_card_its_weights_prefer() -> None:
    game = Game(3)
    game.deal(5)
    view = game.view(0)
    assert PolicyBot("policy:high", preferring("card", 1.0)).choose_card(view) == max(view.hand)
    assert PolicyBot("policy:low", preferring("card", -1.0)).choose_card(view) == min(view.hand)


def test_the_row_choice_follows_the_weights() -> None:
    rows = [[10, 11, 55], [20], [30, 33], [40, 44, 45]]
    game = Game.from_position(rows=rows, hands=[[3, 60], [70, 80]])
    game.play(0, 3)
    game.play(1, 70)
    view = game.view(0)
    assert view.must_choose_row
    heads = [total_bullheads(row) for row in rows]
    cheap = PolicyBot("policy:cheap", preferring("row_heads", -1.0)).choose_row(view)
    dear = PolicyBot("policy:dear", preferring("row_heads", 1.0)).choose_row(view)
    assert cheap == heads.index(min(heads)) and dear == heads.index(max(heads))
    game.choose_row(0, dear)
    assert game.penalties[0] == max(heads)


def test_the_features_of_a_view_are_what_it_shows() -> None:
    rows = [[10], [20, 21, 22, 23, 24], [50], [90]]
    game = Game.from_position(rows=rows, hands=[[5, 26, 30, 95], [60, 61, 62, 63]])
    view = game.view(0)
    decisions = Decisions.from_views([view])
    features = candidate_features(decisions)[0]
    column = {name: features[:, index] for index, name in enumerate(FEATURE_NAMES)}
    assert list(decisions.hands[0, :4]) == [5, 26, 30, 95]
    assert list(decisions.legal[0]) == [True] * 4 + [False] * 10
    assert list(column["low"][:4]) == [1, 0, 0, 0]
    assert list(column["sixth"][:4]) == [0, 1, 1, 0]  # 26 and 30 would go on the row of 24
    unseen = set(range(1, 105)) - set(view.seen_cards())
    assert column["unseen_between"][1] == len([c for c in unseen if 24 < c < 26]) / 10
    assert column["unseen_between"][3] == min(len([c for c in unseen if 90 < c < 95]), 10) / 10
    assert column["own_between"][2] == 1 / 5  # 26 lies between the row's 24 and 30
    assert list(column["row"]) == [0] * 10 + [1] * 4
    assert column["row_length"][11] == 1.0
    assert list(column["row_cheapest"][10:]) == [1, 0, 1, 1]  # 10, 50 and 90: 3 bullheads
