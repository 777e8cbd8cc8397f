"""The group routes of docs/protocol.md ("Groups"): open a group, its invite, join and leave
it, its page and standings (JSON and CSV), and tables opened for it."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request, status
from fastapi.responses import Response
from pydantic import ConfigDict

from nimmt.server.groups import group_json
from nimmt.server.routers.deps import RequestBody, ServiceDep
from nimmt.server.routers.signin import ProfileDep, client_address
from nimmt.server.security import CreationQuota
from nimmt.server.standings import standings_csv
from nimmt.server.table import SeatSpec

router = APIRouter(prefix="/api/groups")


class CreateGroupIn(RequestBody):
    model_config = ConfigDict(extra="forbid")

    name: str


class JoinGroupIn(RequestBody):
    model_config = ConfigDict(extra="forbid")

    invite: str


class GroupSeatIn(RequestBody):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["human", "bot"]
    bot: str | None = None


class GroupTableIn(RequestBody):
    model_config = ConfigDict(extra="forbid")

    seats: list[GroupSeatIn]
    coach: bool = False
    away_seconds: int = 120


class RealPlayerIn(RequestBody):
    model_config = ConfigDict(extra="forbid")

    profile: str | None = None
    name: str | None = None


class GroupRealIn(RequestBody):
    model_config = ConfigDict(extra="forbid")

    players: list[RealPlayerIn]


@router.post("", status_code=status.HTTP_201_CREATED)
async def create_group(
    body: CreateGroupIn, profile: ProfileDep, service: ServiceDep, request: Request
) -> dict[str, Any]:
    quota: CreationQuota = request.app.state.create_quota
    address = client_address(request)
    stamp = quota.acquire(address)
    try:
        group = await service.groups.create(profile, body.name)
    except BaseException:
        quota.release(address, stamp)
        raise
    return {"group": group_json(group, profile)}


@router.get("")
async def my_groups(profile: ProfileDep, service: ServiceDep) -> dict[str, Any]:
    return {"groups": [group_json(g, profile) for g in await service.groups.mine(profile)]}


@router.post("/join")
async def join_group(body: JoinGroupIn, profile: ProfileDep, service: ServiceDep) -> dict[str, Any]:
    group = await service.groups.join(profile, body.invite)
    return {"group": group_json(group, profile)}


@router.get("/{code}")
async def group_page(code: str, profile: ProfileDep, service: ServiceDep) -> dict[str, Any]:
    return await service.groups.page(profile, code)


@router.get("/{code}/open")
async def group_open(code: str, profile: ProfileDep, service: ServiceDep) -> dict[str, Any]:
    return {"open": await service.groups.open_tables(profile, code)}


@router.get("/{code}/standings")
async def group_standings(code: str, profile: ProfileDep, service: ServiceDep) -> dict[str, Any]:
    return await service.groups.standings(profile, code)


@router.get("/{code}/standings.csv")
async def group_standings_csv(code: str, profile: ProfileDep, service: ServiceDep) -> Response:
    found = await service.groups.standings(profile, code)
    return Response(
        standings_csv(found["standings"]),
        media_type="text/csv; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="standings-{found["group"]}.csv"'},
    )


@router.post("/{code}/invite", status_code=status.HTTP_201_CREATED)
async def new_invite(
    code: str, profile: ProfileDep, service: ServiceDep, request: Request
) -> dict[str, Any]:
    secret = await service.groups.new_invite(profile, code)
    base = str(request.base_url).rstrip("/")
    return {"invite": secret, "url": f"{base}/g/join?token={secret}"}


@router.delete("/{code}/invite")
async def revoke_invite(code: str, profile: ProfileDep, service: ServiceDep) -> dict[str, Any]:
    await service.groups.revoke_invite(profile, code)
    return {"revoked": True}


@router.post("/{code}/leave")
async def leave_group(code: str, profile: ProfileDep, service: ServiceDep) -> dict[str, Any]:
    await service.groups.leave(profile, code)
    return {"left": True}


@router.post("/{code}/tables", status_code=status.HTTP_201_CREATED)
async def group_table(
    code: str, body: GroupTableIn, profile: ProfileDep, service: ServiceDep, request: Request
) -> dict[str, Any]:
    quota: CreationQuota = request.app.state.create_quota
    address = client_address(request)
    stamp = quota.acquire(address)
    try:
        seats = [SeatSpec(seat.kind, seat.bot) for seat in body.seats]
        return await service.groups.open_table(
            profile, code, seats, coach=body.coach, away_seconds=body.away_seconds
        )
    except BaseException:
        quota.release(address, stamp)
        raise


@router.post("/{code}/assisted", status_code=status.HTTP_201_CREATED)
async def group_real_cards(
    code: str, body: GroupRealIn, profile: ProfileDep, service: ServiceDep, request: Request
) -> dict[str, Any]:
    quota: CreationQuota = request.app.state.create_quota
    address = client_address(request)
    stamp = quota.acquire(address)
    try:
        players = [player.model_dump(exclude_none=True) for player in body.players]
        return await service.groups.open_real_cards(profile, code, players)
    except BaseException:
        quota.release(address, stamp)
        raise
