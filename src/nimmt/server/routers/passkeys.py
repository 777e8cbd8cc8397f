"""The passkey routes of docs/protocol.md ("Passkeys"), under ``/api/profile/passkeys``: add
one to the signed-in profile (options, then the browser's answer), remove one, and sign a
browser in with one (options, then the answer). The relying party is the request's host
(:func:`nimmt.server.passkeys.relying_party`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, status
from pydantic import ConfigDict

from nimmt.server.passkeys import RelyingParty, relying_party
from nimmt.server.routers.deps import RequestBody, ServiceDep, SettingsDep
from nimmt.server.routers.signin import ProfileDep, client_address, profile_json
from nimmt.server.serialize import iso
from nimmt.server.storage.passkeys import Passkey

router = APIRouter(prefix="/passkeys")


class RegisterIn(RequestBody):
    model_config = ConfigDict(extra="forbid")

    credential: dict[str, Any]
    """What the browser's ``navigator.credentials.create`` gave, as JSON (base64url)."""
    name: str | None = None


class SignInIn(RequestBody):
    model_config = ConfigDict(extra="forbid")

    credential: dict[str, Any]
    """What the browser's ``navigator.credentials.get`` gave, as JSON (base64url)."""


def passkey_json(passkey: Passkey) -> dict[str, Any]:
    return {
        "id": passkey.id,
        "name": passkey.name,
        "created_at": iso(passkey.created_at),
        "last_used_at": iso(passkey.last_used_at) if passkey.last_used_at else None,
    }


def party_of(request: Request, settings: SettingsDep) -> RelyingParty:
    return relying_party(
        request.headers.get("host"),
        request.url.scheme,
        settings.allowed_hosts,
        settings.allowed_origins,
    )


@router.post("/register/options")
async def registration_options(
    profile: ProfileDep, service: ServiceDep, settings: SettingsDep, request: Request
) -> dict[str, Any]:
    party = party_of(request, settings)
    options = await service.profiles.passkeys.registration_options(
        profile, party, client_address(request)
    )
    return {"options": options}


@router.post("/register", status_code=status.HTTP_201_CREATED)
async def register(
    body: RegisterIn,
    profile: ProfileDep,
    service: ServiceDep,
    settings: SettingsDep,
    request: Request,
) -> dict[str, Any]:
    party = party_of(request, settings)
    passkey = await service.profiles.passkeys.register(profile, party, body.credential, body.name)
    return {"passkey": passkey_json(passkey)}


@router.delete("/{passkey_id}")
async def remove(passkey_id: str, profile: ProfileDep, service: ServiceDep) -> dict[str, Any]:
    await service.profiles.passkeys.remove(profile, passkey_id)
    return {"removed": True}


@router.post("/signin/options")
async def sign_in_options(
    service: ServiceDep, settings: SettingsDep, request: Request
) -> dict[str, Any]:
    party = party_of(request, settings)
    options = await service.profiles.passkeys.sign_in_options(party, client_address(request))
    return {"options": options}


@router.post("/signin")
async def sign_in(
    body: SignInIn, service: ServiceDep, settings: SettingsDep, request: Request
) -> dict[str, Any]:
    party = party_of(request, settings)
    profile, secret = await service.profiles.passkeys.sign_in(party, body.credential)
    return {"profile": profile_json(profile), "secret": secret}
