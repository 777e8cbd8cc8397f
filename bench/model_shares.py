"""How much the learned model explains each kind of opponent: the fitted model shares of
``strong:adapt=...`` (:func:`nimmt.bots.belief.model_shares`) seen from seat 0.

Plays seeded rounds at a table where every seat is BOT, and at the turn given reads seat 0's
view and prints the mean, over rounds and the other seats, of the share of the model in the
mixture "the model, or a uniformly random card" that best explains their plays so far (1: the
model explains them as well as it can; near 0: no better than uniform play):

    python bench/model_shares.py hard-v1 mc:64 --players 4 --rounds 6 --turn 8 --json
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from nimmt.bots import make_bot
from nimmt.bots.batchsim import sample_hands
from nimmt.bots.belief import EVIDENCE_DEALS, adaptive_log_likelihood
from nimmt.bots.montecarlo import table_order
from nimmt.bots.policy import shipped_weights
from nimmt.engine import Game, Phase


def shares_at(bot: str, players: int, seed: int, turn: int, prior: float) -> list[float]:
    """The other seats' model shares seen by seat 0 once ``turn - 1`` turns were played."""
    game = Game(players)
    game.deal(seed)
    bots = [make_bot(bot, seed * 100 + seat) for seat in range(players)]
    while game.view(0).turn < turn:
        pending = game.pending_row_choice
        if pending is not None:
            game.choose_row(pending.seat, bots[pending.seat].choose_row(game.view(pending.seat)))
            continue
        for seat in game.waiting_for():
            game.play(seat, bots[seat].choose_card(game.view(seat)))
            if game.phase is not Phase.CHOOSING_CARDS:
                break
    view = game.view(0)
    rng = np.random.default_rng(seed)
    pool = sample_hands(view.unseen_cards(), players - 1, len(view.hand), EVIDENCE_DEALS, rng)
    _, shares = adaptive_log_likelihood(view, pool, table_order(view), shipped_weights(), prior)
    return [float(share) for share in shares]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("bots", nargs="+")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--turn", type=int, default=8)
    parser.add_argument("--prior", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    for bot in args.bots:
        shares = [
            share
            for number in range(args.rounds)
            for share in shares_at(bot, args.players, args.seed + number, args.turn, args.prior)
        ]
        result = {
            "bot": bot,
            "players": args.players,
            "turn": args.turn,
            "prior": args.prior,
            "seats": len(shares),
            "mean_share": round(float(np.mean(shares)), 3),
            "min_share": round(min(shares), 3),
            "max_share": round(max(shares), 3),
        }
        print(json.dumps(result) if args.json else result)


if __name__ == "__main__":
    main()
