"""Who a request is from: the profile whose device secret it carries in its ``Authorization:
Bearer ...`` header (docs/protocol.md, "Profiles"). A header, never a cookie: no other site
can make a browser send it, so no request is forged in a person's name."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request

from nimmt.server.errors import ServiceError
from nimmt.server.routers.deps import ServiceDep
from nimmt.server.serialize import iso
from nimmt.server.storage.people import Device, Profile


def bearer(request: Request) -> str | None:
    scheme, _, secret = request.headers.get("authorization", "").partition(" ")
    return secret.strip() or None if scheme.lower() == "bearer" else None


async def signed_in(request: Request, service: ServiceDep) -> tuple[Profile, Device]:
    return await service.profiles.signed_in(bearer(request))


async def current_profile(
    signed: Annotated[tuple[Profile, Device], Depends(signed_in)],
) -> Profile:
    return signed[0]


async def maybe_profile(request: Request, service: ServiceDep) -> Profile | None:
    """The profile if the request is signed in; ``None`` otherwise (also for a secret that no
    longer works: playing without a profile goes on as ever)."""
    if bearer(request) is None:
        return None
    try:
        return (await service.profiles.signed_in(bearer(request)))[0]
    except ServiceError:
        return None


SignedInDep = Annotated[tuple[Profile, Device], Depends(signed_in)]
ProfileDep = Annotated[Profile, Depends(current_profile)]
MaybeProfileDep = Annotated[Profile | None, Depends(maybe_profile)]


def client_address(request: Request) -> str:
    return request.client.host if request.client is not None else "unknown"


def profile_json(profile: Profile) -> dict[str, Any]:
    return {
        "id": profile.id,
        "name": profile.name,
        "emoji": profile.emoji,
        "colour": profile.colour,
        "created_at": iso(profile.created_at),
    }
