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

``docs/bots.md`` records the exact commands that produced the shipped weights.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import numpy as np

from nimmt.arena.runner import bot_rng, deal_rng
from nimmt.bots import make_bot
from nimmt.engine import Game, Phase


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
    args = parser.parse_args()
    random.seed(0)
    if args.command == "generate":
        generate(args.bot, args.players, args.deals, args.seed, args.out)
    else:
        fit(args.paths, args.out, args.l2)


if __name__ == "__main__":
    main()
