"""The profile routes of docs/protocol.md ("Profiles"): create one, read and change it, its
devices and the one-time device link, its passkeys (:mod:`~nimmt.server.routers.passkeys`, under
``/api/profile/passkeys``), its history, delete it."""

from __future__ import annotations

from typing import Any

import segno
from fastapi import APIRouter, Request, status
from pydantic import ConfigDict

from nimmt.server.profiles import AVATAR_COLOURS, AVATAR_EMOJI, LINK_MINUTES
from nimmt.server.routers import passkeys
from nimmt.server.routers.deps import RequestBody, ServiceDep
from nimmt.server.routers.passkeys import passkey_json
from nimmt.server.routers.signin import ProfileDep, SignedInDep, client_address, profile_json
from nimmt.server.security import CreationQuota
from nimmt.server.serialize import iso

router = APIRouter(prefix="/api/profile")


class CreateProfileIn(RequestBody):
    model_config = ConfigDict(extra="forbid")

    name: str
    emoji: str
    colour: str


class UpdateProfileIn(RequestBody):
    model_config = ConfigDict(extra="forbid")

    name: str | None = None
    emoji: str | None = None
    colour: str | None = None


class RedeemIn(RequestBody):
    model_config = ConfigDict(extra="forbid")

    link: str


class ClaimIn(RequestBody):
    model_config = ConfigDict(extra="forbid")

    code: str
    token: str


@router.get("/avatars")
async def avatars() -> dict[str, Any]:
    return {"emoji": list(AVATAR_EMOJI), "colours": list(AVATAR_COLOURS)}


@router.post("", status_code=status.HTTP_201_CREATED)
async def create_profile(
    body: CreateProfileIn, service: ServiceDep, request: Request
) -> dict[str, Any]:
    quota: CreationQuota = request.app.state.create_quota
    address = client_address(request)
    stamp = quota.acquire(address)
    try:
        profile, secret = await service.profiles.create(body.name, body.emoji, body.colour)
    except BaseException:
        quota.release(address, stamp)  # refused profiles do not count
        raise
    return {"profile": profile_json(profile), "secret": secret}


@router.get("")
async def read_profile(signed: SignedInDep, service: ServiceDep) -> dict[str, Any]:
    profile, device = signed
    devices = await service.profiles.devices(profile)
    groups = await service.groups.mine(profile)
    keys = await service.profiles.passkeys.of(profile)
    return {
        "profile": profile_json(profile),
        "devices": [
            {"id": d.id, "created_at": iso(d.created_at), "current": d.id == device.id}
            for d in devices
        ],
        "groups": [{"code": g.code, "name": g.name, "url": f"/g/{g.code}"} for g in groups],
        "passkeys": [passkey_json(passkey) for passkey in keys],
    }


@router.patch("")
async def update_profile(
    body: UpdateProfileIn, profile: ProfileDep, service: ServiceDep
) -> dict[str, Any]:
    changed = await service.profiles.update(
        profile, name=body.name, emoji=body.emoji, colour=body.colour
    )
    return {"profile": profile_json(changed)}


@router.delete("")
async def delete_profile(profile: ProfileDep, service: ServiceDep) -> dict[str, Any]:
    await service.profiles.delete(profile)
    return {"deleted": True}


@router.delete("/devices/{device_id}")
async def sign_out(device_id: str, profile: ProfileDep, service: ServiceDep) -> dict[str, Any]:
    await service.profiles.sign_out(profile, device_id)
    return {"signed_out": True}


@router.post("/link", status_code=status.HTTP_201_CREATED)
async def device_link(profile: ProfileDep, service: ServiceDep, request: Request) -> dict[str, Any]:
    secret, expires = await service.profiles.device_link(profile)
    url = str(request.base_url).rstrip("/") + f"/me/link?token={secret}"
    return {
        "link": secret,
        "url": url,
        "expires_at": iso(expires),
        "minutes": LINK_MINUTES,
        "qr": segno.make(url, error="m").svg_data_uri(scale=4, border=2),
    }


@router.post("/redeem")
async def redeem(body: RedeemIn, service: ServiceDep) -> dict[str, Any]:
    profile, secret = await service.profiles.redeem(body.link)
    return {"profile": profile_json(profile), "secret": secret}


@router.post("/seats")
async def claim_seat(body: ClaimIn, profile: ProfileDep, service: ServiceDep) -> dict[str, Any]:
    await service.profiles.claim_seat(profile, body.code, body.token)
    return {"claimed": True}


@router.get("/history")
async def read_history(profile: ProfileDep, service: ServiceDep) -> dict[str, Any]:
    return {"profile": profile_json(profile), **await service.profiles.history(profile)}


router.include_router(passkeys.router)  # after the routes above: /api/profile/passkeys/...
