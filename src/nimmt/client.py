"""A remote player: takes a seat at a web table and plays it with a bot, following
docs/protocol.md.

:func:`play_seat` joins a table by its link (``http://host:port/t/CODE``) under a name, or
comes back to a seat with its token, opens the table's socket and answers every decision of
that seat until the game is over, with any :class:`~nimmt.bots.Bot` (given the seat's
:class:`~nimmt.engine.SeatView`, rebuilt from the ``state`` message) or a plain function of the
``view`` object of docs/protocol.md that returns the card or the row. A dropped socket is
opened again with ``since=`` the last version seen (the server keeps the seat), so a restarted
or replaced server process costs nothing but a moment.

The server sends a seat nothing it may not see; this client only ever holds what it was sent.

>>> link = parse_table_link("http://127.0.0.1:8000/t/k7qx2m")
>>> (link.base, link.code, link.socket("tok", since=12))
('http://127.0.0.1:8000', 'K7QX2M', 'ws://127.0.0.1:8000/ws/K7QX2M?token=tok&since=12')
"""

from __future__ import annotations

import asyncio
import json
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from nimmt.engine import Outcome, PendingRowChoice, Phase, SeatView

Message = dict[str, Any]
Decide = Callable[[Message], int]
"""A callback playing the seat: given the ``view`` of a ``state`` message, the card to play
(``view["legal_cards"]`` is not empty) or the row to take (``view["must_choose_row"]``)."""

HTTP_TIMEOUT = 15.0
RECONNECT_DELAYS = (0.2, 0.5, 1.0, 2.0, 3.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0)
"""Seconds to wait before each new attempt when the socket drops (about 40 s in all); a
``state`` received starts the count again."""
RETRY_CODES = ("busy", "storage_error", "rate_limited")
"""Refusals that change nothing and pass: the action is sent again, a few times at most."""
MAX_RETRIES = 5
_CODE = re.compile(r"[A-Za-z0-9]{6}")


class ClientError(Exception):
    """What went wrong, as the server (or the network) said it: ``code`` is the protocol's
    error code (``table_full``, ``bad_token``, ...) or ``bad_url`` / ``unreachable`` /
    ``connection_lost``; ``str(error)`` is a sentence for a person."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class TableLink:
    """Where a table lives: the server's base URL and the table's code."""

    base: str
    code: str

    def socket(self, token: str | None, since: int | None = None) -> str:
        """The table socket's URL (docs/protocol.md section 3)."""
        scheme, rest = self.base.split("://", 1)
        query = {"token": token, "since": since}
        wanted = {key: value for key, value in query.items() if value is not None}
        tail = f"?{urllib.parse.urlencode(wanted)}" if wanted else ""
        return f"{'wss' if scheme == 'https' else 'ws'}://{rest}/ws/{self.code}{tail}"


def parse_table_link(url: str) -> TableLink:
    """The server and code of a table link such as ``http://host:8000/t/K7QX2M``."""
    parts = urllib.parse.urlsplit(url.strip())
    path = parts.path.rstrip("/")
    prefix, _, code = path.rpartition("/t/")
    if parts.scheme not in ("http", "https") or not parts.netloc or not _CODE.fullmatch(code):
        raise ClientError(
            "bad_url", f"{url!r} is not a table link such as http://127.0.0.1:8000/t/K7QX2M"
        )
    return TableLink(f"{parts.scheme}://{parts.netloc}{prefix}", code.upper())


@dataclass(frozen=True, slots=True)
class Seat:
    """A seat held at a table: its number and the token that holds it (keep it secret)."""

    seat: int
    token: str


@dataclass(slots=True)
class GameResult:
    """How the game ended for this client: the last ``state`` and every message received."""

    seat: int
    token: str
    state: Message
    messages: list[Message]

    @property
    def outcome(self) -> Message:
        """``{"totals": [...], "winners": [...]}`` of the finished game."""
        outcome: Message = self.state["view"]["outcome"]
        return outcome


# ------------------------------------------------------------------------------- HTTP


def _request(method: str, url: str, body: Message | None = None) -> Any:
    """One JSON request (blocking); an error answer becomes a :class:`ClientError`."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT) as answer:
            return json.loads(answer.read())
    except urllib.error.HTTPError as error:
        try:
            detail = json.loads(error.read())["error"]
            code, message = str(detail["code"]), str(detail["message"])
        except (ValueError, KeyError, TypeError):
            code, message = "http_error", f"the server answered {error.code} {error.reason}"
        raise ClientError(code, message) from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        if isinstance(reason, OSError) and reason.strerror:
            reason = reason.strerror
        raise ClientError(
            "unreachable", f"cannot reach the server at {_server(url)}: {reason}"
        ) from None
    except ValueError:
        raise ClientError("unreachable", f"{_server(url)} did not answer with JSON") from None


def _server(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


async def join_table(link: TableLink, name: str, seat: int | None = None) -> Seat:
    """Take a free seat (the first, or ``seat``) under ``name``: ``POST .../join``."""
    body: Message = {"name": name} if seat is None else {"name": name, "seat": seat}
    url = f"{link.base}/api/tables/{link.code}/join"
    answer = await asyncio.to_thread(_request, "POST", url, body)
    return Seat(int(answer["seat"]), str(answer["token"]))


async def table_summary(link: TableLink) -> Message:
    """The table's public summary (``GET /api/tables/{code}``)."""
    summary: Message = await asyncio.to_thread(
        _request, "GET", f"{link.base}/api/tables/{link.code}"
    )
    return summary


async def game_record(link: TableLink, game: int | None = None) -> Message:
    """The finished game's record (``GET /api/tables/{code}/record``)."""
    query = f"?game={game}" if game is not None else ""
    record: Message = await asyncio.to_thread(
        _request, "GET", f"{link.base}/api/tables/{link.code}/record{query}"
    )
    return record


# ----------------------------------------------------------------------------- the view


def seat_view(seat: int, view: Message) -> SeatView:
    """The :class:`~nimmt.engine.SeatView` a bot decides from, rebuilt from a ``state``'s
    ``view`` (docs/protocol.md); a table still waiting for players reads as dealing."""
    pending = view["pending_row_choice"]
    outcome = view["outcome"]
    phase = Phase.DEALING if view["phase"] == "waiting" else Phase(view["phase"])
    return SeatView(
        seat=seat,
        players=len(view["names"]),
        phase=phase,
        round=view["round"],
        turn=view["turn"],
        rows=tuple(tuple(row) for row in view["rows"]),
        hand=tuple(view["hand"]),
        chosen_card=view["chosen_card"],
        has_chosen=tuple(view["has_chosen"]),
        revealed=tuple(view["revealed"]) if view["revealed"] is not None else None,
        pending_row_choice=(
            PendingRowChoice(pending["seat"], pending["card"]) if pending is not None else None
        ),
        round_rows=tuple(view["round_rows"]),
        played=tuple(tuple(turn) for turn in view["played"]),
        penalties=tuple(view["penalties"]),
        totals=tuple(view["totals"]),
        score_sheet=tuple(tuple(line) for line in view["score_sheet"]),
        outcome=(
            Outcome(tuple(outcome["totals"]), tuple(outcome["winners"]))
            if outcome is not None
            else None
        ),
    )


def bot_decider(bot: Any) -> Callable[[int, Message], int]:
    """A decision function ``(seat, view) -> card or row`` for a :class:`~nimmt.bots.Bot`."""

    def decide(seat: int, view: Message) -> int:
        seen = seat_view(seat, view)
        return int(bot.choose_row(seen) if view["must_choose_row"] else bot.choose_card(seen))

    return decide


# ----------------------------------------------------------------------------- playing


async def play_seat(
    url: str,
    player: Any,
    *,
    name: str | None = None,
    token: str | None = None,
    seat: int | None = None,
    on_message: Callable[[Message], None] | None = None,
) -> GameResult:
    """Play one seat of the table at ``url`` until its game is over.

    ``player`` is a :class:`~nimmt.bots.Bot` or a :data:`Decide` callback. With ``token`` the
    client comes back to the seat that token holds; otherwise it joins under ``name`` (the first
    free seat, or ``seat``). ``on_message`` sees every message the server sends, as it comes.
    Raises :class:`ClientError` for a bad link, an unreachable server, a refused join or token,
    an action the server refuses, or a connection that cannot be opened again.
    """
    link = parse_table_link(url)
    if token is None:
        if name is None:
            raise ClientError("bad_name", "give a name to join under, or the token of a seat")
        held = await join_table(link, name, seat)
        token = held.token
    if hasattr(player, "choose_card") and hasattr(player, "choose_row"):
        decide = bot_decider(player)
    else:

        def decide(_seat: int, view: Message) -> int:
            return int(player(view))

    return await _Session(link, token, decide, on_message).run()


class _Session:
    """One seat's socket, opened again (with ``since``) whenever it drops."""

    def __init__(
        self,
        link: TableLink,
        token: str,
        decide: Callable[[int, Message], int],
        on_message: Callable[[Message], None] | None,
    ) -> None:
        self.link = link
        self.token = token
        self.decide = decide
        self.on_message = on_message
        self.version: int | None = None
        self.seat: int | None = None
        self.latest: Message | None = None
        self.messages: list[Message] = []
        self.retries = 0
        self.done: set[tuple[Any, ...]] = set()
        """Decisions already sent: a state can be followed at once by newer ones (others
        choosing), and the same decision must not be answered twice."""

    async def run(self) -> GameResult:
        import websockets

        failures = 0
        while True:
            try:
                async with websockets.connect(
                    self.link.socket(self.token, self.version),
                    open_timeout=HTTP_TIMEOUT,
                    max_queue=None,  # keep reading while the bot thinks
                    proxy=None,
                ) as socket:
                    # A decision sent on a socket that then died may never have reached the
                    # server: the state this socket begins with says what is still owed.
                    self.done.clear()
                    async for raw in socket:
                        failures = 0
                        finished = await self._handle(socket, json.loads(raw))
                        if finished is not None:
                            return finished
            except websockets.exceptions.InvalidStatus as error:
                status = error.response.status_code
                raise ClientError("unreachable", f"the table socket answered {status}") from None
            except (OSError, TimeoutError, websockets.exceptions.WebSocketException) as error:
                close = getattr(error, "rcvd", None)
                if close is not None and close.code == 4404:
                    raise ClientError(
                        "table_not_found", f"there is no table {self.link.code}"
                    ) from None
                if failures >= len(RECONNECT_DELAYS):
                    raise ClientError(
                        "connection_lost", f"lost the connection to {self.link.base}: {error}"
                    ) from None
                await asyncio.sleep(RECONNECT_DELAYS[failures])
                failures += 1
                continue
            # The server closed the socket cleanly without a game over: open it again.
            if failures >= len(RECONNECT_DELAYS):
                raise ClientError("connection_lost", f"{self.link.base} keeps closing the socket")
            await asyncio.sleep(RECONNECT_DELAYS[failures])
            failures += 1

    async def _handle(self, socket: Any, message: Message) -> GameResult | None:
        self.messages.append(message)
        if self.on_message is not None:
            self.on_message(message)
        kind = message.get("type")
        if kind == "error":
            code, text = str(message.get("code")), str(message.get("message"))
            if code == "stale_version":
                # A newer decision began before ours arrived; its state came first and was
                # answered already (or will be): nothing to do.
                return None
            if code in RETRY_CODES and self.latest is not None and self.retries < MAX_RETRIES:
                # The server could not take the action just now: nothing changed, send it again.
                self.retries += 1
                await asyncio.sleep(0.2 * self.retries)
                self.done.clear()
                await self._act(socket, self.latest)
                return None
            raise ClientError(code, text)
        if kind == "events":
            # Its events are heard: a reconnect asks only for what came after them, or a socket
            # that dropped between this message and its state would hear them twice.
            self.version = message["version"]
            return None
        if kind != "state":
            return None
        self.version = message["version"]
        self.latest = message
        seat = message["you"]["seat"]
        if seat is None:
            raise ClientError("bad_token", "this token holds no seat at this table")
        self.seat = seat
        self.retries = 0
        if message["view"]["phase"] == "game_over":
            return GameResult(seat, self.token, message, self.messages)
        await self._act(socket, message)
        return None

    async def _act(self, socket: Any, state: Message) -> None:
        view = state["view"]
        game = state["table"]["game"]
        if view["must_choose_row"]:
            key: tuple[Any, ...] = (game, view["round"], view["turn"], "row")
        elif view["legal_cards"]:
            key = (game, view["round"], view["turn"], "card")
        else:
            return
        if key in self.done:
            return
        self.done.add(key)
        assert self.seat is not None
        choice = await asyncio.to_thread(self.decide, self.seat, view)
        action: Message = (
            {"type": "choose_row", "row": choice}
            if key[-1] == "row"
            else {"type": "play", "card": choice}
        )
        action["version"] = state["version"]
        await socket.send(json.dumps(action))


__all__ = [
    "ClientError",
    "Decide",
    "GameResult",
    "Seat",
    "TableLink",
    "bot_decider",
    "game_record",
    "join_table",
    "parse_table_link",
    "play_seat",
    "seat_view",
    "table_summary",
]
