"""``nimmt bot URL``: a bot as a remote player at a web table (docs/protocol.md).

Takes a free seat at the table behind a link (or comes back to a seat with its token), plays it
with a built-in bot or a ``cmd:COMMAND`` program until the game is over, and prints a line per
round. The work is :func:`nimmt.client.play_seat`; everything is imported when the command runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from nimmt.cli.arena import DEFAULT_MOVE_TIME, MoveTimeOption, check_move_time
from nimmt.cli.errors import fail
from nimmt.cli.stopping import stop_on_signals

if TYPE_CHECKING:
    from nimmt.client import ClientError

DEFAULT_BOT = "medium"
MAX_NAME = 24
"""The longest name a table accepts (docs/protocol.md, ``join``)."""


def bot(
    url: Annotated[
        str,
        typer.Argument(
            metavar="URL", help="The table's link, e.g. http://127.0.0.1:8000/t/K7QX2M."
        ),
    ],
    kind: Annotated[
        str,
        typer.Option(
            "--bot",
            metavar="BOT",
            help="The bot that plays: random, greedy, easy, medium, hard, mc:N or cmd:COMMAND.",
        ),
    ] = DEFAULT_BOT,
    name: Annotated[
        str | None,
        typer.Option(metavar="NAME", help='The name at the table (default: "BOT (bot)").'),
    ] = None,
    token: Annotated[
        str | None,
        typer.Option(metavar="TOKEN", help="Come back to the seat this token holds."),
    ] = None,
    seat: Annotated[
        int | None,
        typer.Option(
            metavar="N",
            help="The free seat to take, counted from 0 as the table's API counts them: "
            "0 is the first seat (Seat 1 on the web page).",
        ),
    ] = None,
    seed: Annotated[
        int | None, typer.Option(metavar="SEED", help="Seed of the bot's own random choices.")
    ] = None,
    move_time: MoveTimeOption = DEFAULT_MOVE_TIME,
) -> None:
    """Play a seat at a web table with a bot, as a remote player, until the game is over."""
    import asyncio

    from nimmt.bots import UnknownBotError, make_bot
    from nimmt.bots.external import ProgramBotError, ProgramScope
    from nimmt.client import ClientError, GameResult, join_table, parse_table_link, play_seat

    check_move_time(move_time)
    if token is not None and seat is not None:
        fail("give --token (to come back to a seat) or --seat, not both")
    try:
        link = parse_table_link(url)
    except ClientError as error:
        fail(error.message)
    display = name if name is not None else _default_name(kind)
    report = _Reporter()
    # A signal (SIGINT, SIGTERM, SIGHUP) kills every program at once, then unwinds as Ctrl-C.
    with stop_on_signals() as stopping, ProgramScope(move_time):
        try:
            player = make_bot(kind, seed)
        except UnknownBotError as error:
            fail(str(error))

        async def take_seat_and_play() -> GameResult:
            held = token
            if held is None:
                joined = await join_table(link, display, seat)
                held = joined.token
                typer.echo(f"Took seat {joined.seat}; to come back to it: --token {held}")
            return await play_seat(url, player, token=held, on_message=report.message)

        try:
            result = asyncio.run(take_seat_and_play())
        except ClientError as error:
            fail(_explain(error, link.code))
        except ProgramBotError as error:
            fail(str(error))
        except KeyboardInterrupt:
            typer.echo(
                f"error: {stopping.reason()} (the seat stays held: come back with --token)",
                err=True,
            )
            raise typer.Exit(stopping.status()) from None
    outcome = result.outcome
    totals = outcome["totals"]
    winners = ", ".join(report.name(seat) for seat in outcome["winners"])
    typer.echo(
        f"Game over: {report.name(result.seat)} has {totals[result.seat]} bullheads; "
        f"{'winner' if len(outcome['winners']) == 1 else 'winners'}: {winners}."
    )


def _default_name(kind: str) -> str:
    """``hard (bot)``; for a program, its file's name: ``lowest_bot (bot)``."""
    from pathlib import PurePath

    from nimmt.bots.external import PREFIX, is_program

    label = kind.strip()
    if is_program(label):
        words = label[len(PREFIX) :].split()
        files = [word for word in words if "/" in word or "." in word]
        label = PurePath((files or words or ["program"])[-1]).stem
    return f"{label[: MAX_NAME - len(' (bot)')]} (bot)"


def _explain(error: ClientError, code: str) -> str:
    if error.code in ("bad_url", "unreachable", "connection_lost"):
        return error.message
    if error.code in ("table_full", "seat_taken", "bad_name", "bad_request", "table_not_found"):
        return f"cannot take a seat at table {code}: {error.message}"
    if error.code == "bad_token":
        return f"the token was refused at table {code}: {error.message}"
    return f"the server refused: {error.message} ({error.code})"


class _Reporter:
    """Prints one line when the seat is taken and one per round, from what the server sends."""

    def __init__(self) -> None:
        self.names: list[str | None] = []
        self.seat: int | None = None

    def name(self, seat: int) -> str:
        known = self.names[seat] if seat < len(self.names) else None
        return known or f"seat {seat}"

    def message(self, message: dict[str, Any]) -> None:
        if message.get("type") == "state":
            self.names = list(message["view"]["names"])
            if self.seat is None and message["you"]["seat"] is not None:
                self.seat = message["you"]["seat"]
                table = message["table"]
                who = f"{self.name(self.seat)} (seat {self.seat})"
                typer.echo(f"Playing at table {table['code']} as {who}.")
        elif message.get("type") == "events":
            for event in message["events"]:
                if event["type"] == "round_scored" and self.seat is not None:
                    totals = ", ".join(
                        f"{self.name(seat)} {total}" for seat, total in enumerate(event["totals"])
                    )
                    taken = event["penalties"][self.seat]
                    typer.echo(
                        f"Round {event['round']}: {self.name(self.seat)} took {taken} "
                        f"{'bullhead' if taken == 1 else 'bullheads'}; totals {totals}."
                    )
