"""The JSON API of docs/protocol.md section 2: bots, tables, joining, records, rematch."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Query, Request, status
from pydantic import ConfigDict

from nimmt.server.routers.deps import RequestBody, ServiceDep
from nimmt.server.routers.signin import MaybeProfileDep
from nimmt.server.security import CreationQuota
from nimmt.server.table import SeatSpec

router = APIRouter(prefix="/api")


class SeatIn(RequestBody):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["human", "bot"]
    bot: str | None = None


class CreateTableIn(RequestBody):
    model_config = ConfigDict(extra="forbid")

    seats: list[SeatIn]
    name: str | None = None
    coach: bool = False
    away_seconds: int = 120


class CreateAssistedIn(RequestBody):
    model_config = ConfigDict(extra="forbid")

    names: list[str]


class JoinIn(RequestBody):
    name: str
    seat: int | None = None


class RematchIn(RequestBody):
    token: str
    agree: bool = True


class LeaveIn(RequestBody):
    token: str
    bot: str | None = None


@router.get("/bots")
async def list_bots(service: ServiceDep) -> dict[str, Any]:
    return {"bots": [{"name": name} for name in service.bot_names]}


@router.post("/tables", status_code=status.HTTP_201_CREATED)
async def create_table(
    body: CreateTableIn, service: ServiceDep, request: Request, profile: MaybeProfileDep
) -> dict[str, Any]:
    seats = [SeatSpec(seat.kind, seat.bot) for seat in body.seats]
    # The client's address as the HTTP server saw it: behind a proxy, that is the proxy's unless
    # uvicorn is told to trust its forwarded headers (docs/protocol.md, "Limits and security").
    address = request.client.host if request.client is not None else "unknown"
    quota: CreationQuota = request.app.state.create_quota
    stamp = quota.acquire(address)
    try:
        code = await service.create_table(
            seats, creator=body.name, coach=body.coach, away_seconds=body.away_seconds
        )
    except BaseException:
        quota.release(address, stamp)  # refused tables do not count
        raise
    answer: dict[str, Any] = {"code": code, "url": f"/t/{code}"}
    if body.name is not None:
        seat, token = await service.join(code, body.name)
        answer.update(seat=seat, token=token)
        if profile is not None:  # a signed-in person's seat counts in their history
            await service.profiles.claim_seat(profile, code, token)
    return answer


@router.post("/assisted", status_code=status.HTTP_201_CREATED)
async def create_assisted(
    body: CreateAssistedIn, service: ServiceDep, request: Request
) -> dict[str, Any]:
    """A game played with real cards: its code, link, and the token that enters its cards."""
    address = request.client.host if request.client is not None else "unknown"
    quota: CreationQuota = request.app.state.create_quota
    stamp = quota.acquire(address)
    try:
        code, token = await service.create_assisted_table(body.names)
    except BaseException:
        quota.release(address, stamp)  # refused tables do not count
        raise
    return {"code": code, "url": f"/t/{code}", "token": token}


@router.get("/tables")
async def list_tables(
    service: ServiceDep,
    limit: int = Query(default=20, ge=1, le=100),
    cursor: str | None = Query(default=None, max_length=200),
) -> dict[str, Any]:
    return await service.list_tables(limit, cursor)


@router.get("/tables/{code}")
async def table_summary(code: str, service: ServiceDep) -> dict[str, Any]:
    return await service.summary(code)


@router.post("/tables/{code}/join")
async def join_table(
    code: str, body: JoinIn, service: ServiceDep, profile: MaybeProfileDep
) -> dict[str, Any]:
    seat, token = await service.join(code, body.name, body.seat)
    if profile is not None:  # a signed-in person's seat counts in their history
        await service.profiles.claim_seat(profile, code, token)
    return {"seat": seat, "token": token}


@router.get("/tables/{code}/record")
async def game_record(
    code: str, service: ServiceDep, game: int | None = Query(default=None)
) -> dict[str, Any]:
    return await service.record(code, game)


@router.get("/tables/{code}/analysis")
async def game_analysis(
    code: str,
    service: ServiceDep,
    seat: int = Query(),
    game: int | None = Query(default=None),
) -> dict[str, Any]:
    return await service.game_analysis(code, seat, game)


@router.post("/tables/{code}/rematch")
async def rematch(code: str, body: RematchIn, service: ServiceDep) -> dict[str, Any]:
    return await service.rematch(code, body.token, body.agree)


@router.post("/tables/{code}/leave")
async def leave(code: str, body: LeaveIn, service: ServiceDep) -> dict[str, Any]:
    await service.leave(code, body.token, body.bot)
    return {"left": True}
