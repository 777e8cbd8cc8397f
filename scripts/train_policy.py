"""Train the opponent model of ``hard`` (``src/nimmt/bots/policy_weights.json``): expert iteration.

Two steps, both seeded and reproducible:

``generate``: play seeded rounds in which every seat is a search bot (by default ``hard-v1``) and
record each card decision as the seat saw it (rows, hand, number of players, the cards it had
not seen) with the card the search chose, one JSON line per decision::

    python scripts/train_policy.py generate --bot hard-v1 --players 4 --deals 200 --seed 1 \
        --out /tmp/decisions-4.jsonl

``fit``: fit the conditional-logit card model of :mod:`nimmt.bots.policy` (a linear score over
each card's features, softmax over the hand) to those decisions by maximum likelihood
(:func:`nimmt.bots.policy.fit_weights`), and write the weights::

    python scripts/train_policy.py fit /tmp/decisions-*.jsonl \
        --out src/nimmt/bots/policy_weights.json

``selfplay``: train the same model's weights by playing, not by imitation: REINFORCE on each
seat's relative score from its turn to the end of the round, in batches of rounds at 3 to 10
seats, against a league (``greedy``, the softmin policy, the shipped weights, earlier snapshots
and itself); the result a file that ``strong:own_weights=FILE`` or ``strong:weights=FILE``
takes::

    python scripts/train_policy.py selfplay --updates 1500 --seed 1 --out /tmp/selfplay.json

``docs/bots.md`` records the exact commands that produced the shipped weights.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from nimmt.arena.runner import bot_rng, deal_rng
from nimmt.bots import make_bot
from nimmt.engine import Game, Phase

if TYPE_CHECKING:
    from nimmt.bots.batchsim import Batch


def generate(bot: str, players: int, deals: int, seed: int, out: Path) -> None:
    """Self-play of ``bot`` at ``players`` seats; every card decision appended to ``out``."""
    with out.open("w") as stream:
        for deal in range(deals):
            game = Game(players)
            game.deal(deal_rng(seed, deal))
            bots = [make_bot(bot, bot_rng(seed, deal, 0, seat)) for seat in range(players)]
            while game.phase in (Phase.CHOOSING_CARDS, Phase.CHOOSING_ROW):
                if game.phase is Phase.CHOOSING_ROW:
                    pending = game.pending_row_choice
                    assert pending is not None
                    seat = pending.seat
                    game.choose_row(seat, bots[seat].choose_row(game.view(seat)))
                    continue
                for seat in game.waiting_for():
                    view = game.view(seat)
                    card = bots[seat].choose_card(view)
                    if len(view.hand) > 1:
                        line = {
                            "players": players,
                            "rows": [list(row) for row in view.rows],
                            "hand": list(view.hand),
                            "card": card,
                            # What the seat had not seen (bench/opponent_fit.py deals it).
                            "unseen": list(view.unseen_cards()),
                            # Whose decision in which deal (bench/opponent_fit.py --adaptive
                            # judges each seat by its earlier plays in the deal).
                            "deal": deal,
                            "seat": seat,
                        }
                        stream.write(json.dumps(line) + "\n")
                    game.play(seat, card)
                    if game.phase is not Phase.CHOOSING_CARDS:
                        break
            stream.flush()
            print(f"deal {deal + 1}/{deals}", file=sys.stderr, flush=True)


def load(paths: list[Path]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features ``(N, H, F)``, a mask of real cards ``(N, H)`` and the chosen slot ``(N,)``."""
    from nimmt.bots.batchsim import batch_from_rows
    from nimmt.bots.policy import HAND_WIDTH, card_features

    features, masks, chosen = [], [], []
    for path in paths:
        for text in path.read_text().splitlines():
            line = json.loads(text)
            hand = np.zeros((1, line["players"], HAND_WIDTH), dtype=np.int64)
            hand[0, 0, : len(line["hand"])] = line["hand"]
            batch = batch_from_rows(line["rows"], hand)
            features.append(card_features(batch)[0, 0])
            masks.append(hand[0, 0] != 0)
            chosen.append(line["hand"].index(line["card"]))
    return np.stack(features), np.stack(masks), np.asarray(chosen)


def fit(paths: list[Path], out: Path, l2: float) -> None:
    """Maximum-likelihood weights of the conditional logit, with a small L2 penalty."""
    from nimmt.bots.policy import FEATURE_NAMES, fit_weights

    features, mask, chosen = load(paths)
    count = len(chosen)
    weights, loglik = fit_weights(features, mask, chosen, l2)
    logits = np.where(mask, features @ weights, -np.inf)
    hit = float((logits.argmax(axis=1) == chosen).mean())
    print(f"{count} decisions, top-1 agreement {hit:.3f}", file=sys.stderr)
    softmin = np.where(mask, -features[:, :, FEATURE_NAMES.index("cost")], -np.inf)
    softmin -= softmin.max(axis=1, keepdims=True)
    softmin_loglik = softmin - np.log(np.exp(softmin).sum(axis=1, keepdims=True))
    print(
        f"log-likelihood per decision: model {loglik:.4f}, "
        f"softmin {float(softmin_loglik[np.arange(count), chosen].mean()):.4f}",
        file=sys.stderr,
    )
    document = {
        "trained_on": [path.name for path in paths],
        "decisions": count,
        "top1_agreement": round(hit, 4),
        "log_likelihood": round(loglik, 4),
        "features": list(FEATURE_NAMES),
        "weights": [round(float(value), 6) for value in weights],
    }
    out.write_text(json.dumps(document, indent=1) + "\n")


def _deal(rng: np.random.Generator, rounds: int, players: int) -> Batch:
    """``rounds`` fresh deals of a whole round at ``players`` seats."""
    from nimmt.bots.batchsim import Batch
    from nimmt.engine import BULLHEADS, HAND_SIZE, NUM_ROWS

    heads = np.asarray(BULLHEADS, dtype=np.int64)
    cards = rng.permuted(np.broadcast_to(np.arange(1, 105), (rounds, 104)), axis=1)
    rows = cards[:, :NUM_ROWS]
    hands = cards[:, NUM_ROWS : NUM_ROWS + players * HAND_SIZE].reshape(rounds, players, HAND_SIZE)
    return Batch(
        ends=rows.copy(),
        lengths=np.ones((rounds, NUM_ROWS), dtype=np.int64),
        heads=heads[rows],
        hands=hands.copy(),
        penalties=np.zeros((rounds, players), dtype=np.int64),
    )


def play_rounds(
    rng: np.random.Generator,
    rounds: int,
    seats: list[np.ndarray | None],
    learners: set[int],
) -> tuple[np.ndarray, float]:
    """Play ``rounds`` rounds, seat ``p`` by the model with weights ``seats[p]`` (``None``:
    ``greedy``). The policy gradient of the seats in ``learners`` (REINFORCE on each turn's
    relative score to the round's end, less that turn's mean over the batch), per decision;
    and seat 0's mean relative score (its bullheads minus the mean of the others')."""
    from nimmt.bots.batchsim import EMPTY, greedy_policy, gumbel_noise, resolve_turn, take_cards
    from nimmt.bots.policy import card_features
    from nimmt.engine import HAND_SIZE

    batch = _deal(rng, rounds, len(seats))
    players = len(seats)
    index = np.arange(rounds)
    taken: list[np.ndarray] = []
    scores: list[dict[int, np.ndarray]] = []
    for _ in range(HAND_SIZE):
        features = card_features(batch).astype(np.float64)
        slots = np.empty((rounds, players), dtype=np.int64)
        taken.append(batch.penalties.copy())
        turn: dict[int, np.ndarray] = {}
        for seat, weights in enumerate(seats):
            if weights is None:
                slots[:, seat] = greedy_policy(batch)[:, seat]
                continue
            logits = np.where(batch.hands[:, seat] != EMPTY, features[:, seat] @ weights, -np.inf)
            slots[:, seat] = (logits + gumbel_noise(rng, logits.shape, np.float64)).argmax(-1)
            if seat in learners:
                logits -= logits.max(axis=-1, keepdims=True)
                chance = np.exp(logits)
                chance /= chance.sum(axis=-1, keepdims=True)
                # d log p(chosen) / d weights: the chosen card's features less their mean.
                mean = np.einsum("bh,bhf->bf", chance, features[:, seat])
                turn[seat] = features[index, seat, slots[:, seat]] - mean
        scores.append(turn)
        resolve_turn(batch, take_cards(batch, slots))
    final = batch.penalties
    gradient = np.zeros(features.shape[-1])
    decisions = 0
    for turn_taken, turn in zip(taken, scores[:-1], strict=False):  # the last card is forced
        to_go = final - turn_taken
        for seat, score in turn.items():
            relative = to_go[:, seat] - (to_go.sum(axis=1) - to_go[:, seat]) / (players - 1)
            advantage = relative.mean() - relative  # fewer bullheads than usual: reinforce
            gradient += advantage @ score
            decisions += rounds
    first = final[:, 0] - final[:, 1:].mean(axis=1)
    return gradient / max(decisions, 1), float(first.mean())


def selfplay(updates: int, seed: int, rounds: int, rate: float, out: Path) -> None:
    """REINFORCE with Adam steps from the shipped weights against a league; every 100
    updates, seat 0's mean relative score against three of the shipped model and of
    ``greedy`` (4 seats, the same 4,096 deals each time) is printed."""
    from nimmt.bots.policy import FEATURE_NAMES, shipped_weights

    rng = np.random.default_rng(seed)
    shipped = shipped_weights().astype(np.float64)
    softmin = np.zeros(len(FEATURE_NAMES))
    softmin[FEATURE_NAMES.index("cost")] = -1.0
    weights = shipped.copy()
    first = np.zeros_like(weights)
    second = np.zeros_like(weights)
    snapshots = [weights.copy()]

    def evaluate(opponent: np.ndarray | None) -> float:
        return play_rounds(
            np.random.default_rng(seed + 1), 4096, [weights, *[opponent] * 3], set()
        )[1]

    for update in range(1, updates + 1):
        players = int(rng.integers(3, 11))
        league = [None, shipped, softmin, snapshots[int(rng.integers(len(snapshots)))], weights]
        seats = [weights] + [league[int(rng.integers(len(league)))] for _ in range(players - 1)]
        learners = {seat for seat, chosen in enumerate(seats) if chosen is weights}
        gradient, _ = play_rounds(rng, rounds, seats, learners)
        first = 0.9 * first + 0.1 * gradient
        second = 0.999 * second + 0.001 * gradient**2
        step = (first / (1 - 0.9**update)) / (np.sqrt(second / (1 - 0.999**update)) + 1e-8)
        weights = weights + rate * step
        if update % 20 == 0:
            snapshots.append(weights.copy())
        if update % 100 == 0:
            print(
                f"update {update}: against 3 shipped {evaluate(shipped):+.3f},"
                f" against 3 greedy {evaluate(None):+.3f}",
                file=sys.stderr,
                flush=True,
            )
    document = {
        "trained_by": f"selfplay --updates {updates} --seed {seed} --rounds {rounds} --rate {rate}",
        "features": list(FEATURE_NAMES),
        "weights": [round(float(value), 6) for value in weights],
    }
    out.write_text(json.dumps(document, indent=1) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    gen = commands.add_parser("generate", help="record a search bot's card decisions")
    gen.add_argument("--bot", default="hard-v1")
    gen.add_argument("--players", type=int, default=4)
    gen.add_argument("--deals", type=int, default=200)
    gen.add_argument("--seed", type=int, default=1)
    gen.add_argument("--out", type=Path, required=True)
    fitting = commands.add_parser("fit", help="fit the card model to recorded decisions")
    fitting.add_argument("paths", type=Path, nargs="+")
    fitting.add_argument("--out", type=Path, required=True)
    fitting.add_argument("--l2", type=float, default=1.0)
    play = commands.add_parser("selfplay", help="train the card model's weights by self-play")
    play.add_argument("--updates", type=int, default=1500)
    play.add_argument("--seed", type=int, default=1)
    play.add_argument("--rounds", type=int, default=512, help="rounds per update")
    play.add_argument("--rate", type=float, default=0.02, help="Adam's step size")
    play.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    random.seed(0)
    if args.command == "generate":
        generate(args.bot, args.players, args.deals, args.seed, args.out)
    elif args.command == "selfplay":
        selfplay(args.updates, args.seed, args.rounds, args.rate, args.out)
    else:
        fit(args.paths, args.out, args.l2)


if __name__ == "__main__":
    main()
