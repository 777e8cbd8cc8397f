"""How good are a bot's card decisions, judged on the hidden hands as they really were?

An arena needs hundreds of deals to show a difference of a few tenths of a bullhead per deal.
This screen is cheaper and paired: it plays seeded rounds of ``--seat`` (seat 0) against
``--opponent`` at every other seat, and at each of seat 0's card decisions from the second turn
on (while it holds 3 cards or more) it asks every bot of ``BOTS`` which card it would play. Each
card is then scored on the *true* hands of the others (known here, never to the bots): the
turn and the rest of the round are rolled out ``--rollouts`` times, every seat playing by
``hard``'s learned model (:class:`~nimmt.bots.policy.ModelPolicy`), and a card's regret is its
mean relative score minus the best card's. A bot's figure is its mean regret per decision;
the difference to the first bot is paired (the same decisions) with a normal 95% interval:

    python bench/decisions.py "strong:belief=0,stages=0,row_samples=1024" hard \\
        --deals 8 --seed 403 --json

The figure is only as right as the model's rollouts are a good judge; the arena decides.
"""

from __future__ import annotations

import argparse
import json
import random

import numpy as np

from nimmt.arena.runner import bot_rng, deal_rng
from nimmt.bots import make_bot
from nimmt.bots.montecarlo import card_scores, table_order
from nimmt.bots.policy import ModelPolicy
from nimmt.engine import Game, Phase, SeatView


def true_regrets(game: Game, view: SeatView, rollouts: int, rng: np.random.Generator) -> np.ndarray:
    """Each card of seat 0's hand: its mean relative score on the true hands, minus the best."""
    order = table_order(view)
    hands = np.asarray([game.view(seat).hand for seat in order[1:]], dtype=np.int64)
    others = np.broadcast_to(hands, (rollouts, *hands.shape)).copy()
    _, scores = card_scores(view, rollouts, rng, ModelPolicy(rng), others=others)
    regrets: np.ndarray = scores - scores.min()
    return regrets


def screen(
    bots: list[str],
    seat_bot: str,
    opponent: str,
    players: int,
    deals: int,
    seed: int,
    rollouts: int,
) -> list[list[float]]:
    """Each bot's regret at every decision of the screen (the same decisions for all)."""
    rng = np.random.default_rng(seed)
    regrets: list[list[float]] = [[] for _ in bots]
    for deal in range(deals):
        game = Game(players)
        game.deal(deal_rng(seed, deal))
        players_bots = [
            make_bot(seat_bot if seat == 0 else opponent, bot_rng(seed, deal, 0, seat))
            for seat in range(players)
        ]
        while game.phase in (Phase.CHOOSING_CARDS, Phase.CHOOSING_ROW):
            pending = game.pending_row_choice
            if pending is not None:
                view = game.view(pending.seat)
                game.choose_row(pending.seat, players_bots[pending.seat].choose_row(view))
                continue
            for seat in game.waiting_for():
                view = game.view(seat)
                if seat == 0 and len(view.hand) >= 3 and view.played:
                    regret = true_regrets(game, view, rollouts, rng)
                    for index, name in enumerate(bots):
                        bot = make_bot(name, random.Random(int(rng.integers(1 << 62))))
                        regrets[index].append(float(regret[view.hand.index(bot.choose_card(view))]))
                game.play(seat, players_bots[seat].choose_card(view))
                if game.phase is not Phase.CHOOSING_CARDS:
                    break
    return regrets


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("bots", nargs="+", help="the bots whose decisions are judged")
    parser.add_argument("--seat", default="hard", help="the bot that plays seat 0's cards")
    parser.add_argument("--opponent", default="hard-v1", help="the bot at every other seat")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--deals", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rollouts", type=int, default=2048)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    regrets = np.asarray(
        screen(
            args.bots, args.seat, args.opponent, args.players, args.deals, args.seed, args.rollouts
        )
    )
    count = regrets.shape[1]
    results = []
    for index, name in enumerate(args.bots):
        difference = regrets[index] - regrets[0]
        half = 1.96 * float(difference.std(ddof=1)) / np.sqrt(count) if count > 1 else 0.0
        results.append(
            {
                "bot": name,
                "decisions": count,
                "mean_regret": round(float(regrets[index].mean()), 4),
                "vs_first": round(float(difference.mean()), 4),
                "vs_first_ci95": [
                    round(float(difference.mean()) - half, 4),
                    round(float(difference.mean()) + half, 4),
                ],
            }
        )
    if args.json:
        print(json.dumps(results, indent=1))
        return
    for result in results:
        low, high = result["vs_first_ci95"]
        print(
            f"{result['bot']}: {result['mean_regret']:.3f} per decision over "
            f"{result['decisions']}, {result['vs_first']:+.3f} ({low:+.3f} to {high:+.3f}) "
            f"against {args.bots[0]}"
        )


if __name__ == "__main__":
    main()
