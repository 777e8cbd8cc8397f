"""Passkeys (WebAuthn, by the ``webauthn`` library): a profile may add some, and any browser
that answers one of them is signed in to the profile with a new device secret, exactly as a
device link signs it in (:meth:`nimmt.server.profiles.Profiles.new_device`).

The relying party is the host name of the request (:func:`relying_party`): a name the server
answers to by ``NIMMT_ALLOWED_HOSTS`` or ``NIMMT_ALLOWED_ORIGINS`` (not merely ``*``), or
``localhost``; never an address, which WebAuthn does not accept. The origins a browser's answer
may come from are the request's own origin and the configured origins of that host, and only
secure ones: ``https://``, or ``http://localhost``. A passkey made under one host name works
under that name only.

Every ceremony has a challenge of 32 random bytes, kept in the database (:data:`CHALLENGE_SECONDS`
long) so that any server process can check the answer, and used up by the first answer to it.
The authenticator's signature counter must go up at every sign-in (unless it keeps none).
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import json
import logging
import secrets
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import bytes_to_base64url, options_to_json_dict
from webauthn.helpers.structs import (
    AttestationConveyancePreference,
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from nimmt.server.book import TableBook
from nimmt.server.errors import ServiceError
from nimmt.server.hosts import HostRule, host_name
from nimmt.server.security import CreationQuota, QuotaExceededError
from nimmt.server.storage.passkeys import (
    Challenge,
    Passkey,
    PasskeyExistsError,
    PasskeyLimitError,
    Purpose,
    counter_goes_on,
)
from nimmt.server.storage.people import PeopleStore, Profile
from nimmt.server.table import clean_name

log = logging.getLogger(__name__)

RP_NAME = "6 nimmt!"
"""The site's name as an authenticator shows it beside the profile's."""
CHALLENGE_SECONDS = 120
"""How long a ceremony's challenge stays valid."""
MAX_PASSKEYS = 10
"""Passkeys a profile may have."""
ATTEMPTS = 30
"""Ceremonies one client address may begin per :data:`ATTEMPTS_WINDOW` seconds (per process)."""
ATTEMPTS_WINDOW = 60.0

NewDevice = Callable[[Profile], Awaitable[str]]
"""Signs a new device in to a profile; its secret."""


@dataclass(frozen=True, slots=True)
class RelyingParty:
    id: str
    """The host name the passkeys are bound to."""
    origins: tuple[str, ...]
    """The secure origins of that host a browser's answer may come from."""


class TooManyAttemptsError(QuotaExceededError):
    """429 ``too_many_attempts`` (with ``Retry-After``)."""

    def __init__(self, retry_after: int) -> None:
        ServiceError.__init__(
            self,
            "too_many_attempts",
            f"Too many passkey attempts from your address; try again in {retry_after} seconds.",
            429,
        )
        self.retry_after = retry_after


def relying_party(
    host: str | None,
    scheme: str,
    allowed_hosts: Iterable[str],
    allowed_origins: Iterable[str],
) -> RelyingParty:
    """The relying party of a request with ``Host: host`` on ``scheme`` (see the module);
    ``passkey_host`` or ``not_secure_context`` (400) when passkeys cannot work there."""
    name = host_name(host or "")
    if name is None or _is_address(name):
        raise ServiceError(
            "passkey_host",
            "Passkeys need the site's host name, not an address: open it by its name "
            "(or as localhost on this computer).",
            400,
        )
    origins_allowed = [origin for origin in allowed_origins if origin.strip()]
    local = name == "localhost" or name.endswith(".localhost")
    named = HostRule([h for h in allowed_hosts if h.strip() != "*"], origins_allowed)
    if not local and not named.allows(host):
        raise ServiceError(
            "passkey_host",
            "Passkeys work only under a host name the server is configured for "
            "(NIMMT_ALLOWED_HOSTS).",
            400,
        )
    candidates = [_origin(f"{scheme}://{(host or '').strip()}")]
    candidates += [_origin(origin) for origin in origins_allowed]
    origins = tuple(
        dict.fromkeys(
            origin
            for origin in candidates
            if origin is not None and urlsplit(origin).hostname == name and _secure(origin)
        )
    )
    if not origins:
        raise ServiceError(
            "not_secure_context",
            "Passkeys need a secure page: the site served over HTTPS (or as localhost on this "
            "computer).",
            400,
        )
    return RelyingParty(name, origins)


class Passkeys:
    """The passkeys of the profiles of ``people``."""

    def __init__(self, book: TableBook, people: PeopleStore, new_device: NewDevice) -> None:
        self.book = book
        self.people = people
        self.store = people.passkeys
        self.new_device = new_device
        self.attempts = CreationQuota(ATTEMPTS, ATTEMPTS_WINDOW)

    async def of(self, profile: Profile) -> list[Passkey]:
        return await self.book.read(self.store.passkeys, profile.id)

    async def registration_options(
        self, profile: Profile, party: RelyingParty, address: str
    ) -> dict[str, Any]:
        """What ``navigator.credentials.create`` needs to make the profile a passkey."""
        held = await self.of(profile)
        if len(held) >= MAX_PASSKEYS:
            raise _too_many()
        self._attempt(address)
        challenge = await self._challenge("register", party, profile.id)
        options = generate_registration_options(
            rp_id=party.id,
            rp_name=RP_NAME,
            user_id=profile.id.encode(),
            user_name=profile.name,
            user_display_name=profile.name,
            challenge=challenge,
            timeout=CHALLENGE_SECONDS * 1000,
            attestation=AttestationConveyancePreference.NONE,
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED,
                user_verification=UserVerificationRequirement.PREFERRED,
            ),
            exclude_credentials=[_descriptor(passkey) for passkey in held],
        )
        return options_to_json_dict(options)

    async def register(
        self, profile: Profile, party: RelyingParty, credential: dict[str, Any], name: object
    ) -> Passkey:
        """Store the passkey of a browser's answer to :meth:`registration_options`."""
        label = None if name is None or (isinstance(name, str) and not name.strip()) else name
        cleaned = clean_name(label) if label is not None else None
        challenge = await self._take(credential, "register", party, profile.id)
        try:
            verified = verify_registration_response(
                credential=credential,
                expected_challenge=challenge,
                expected_rp_id=party.id,
                expected_origin=list(party.origins),
            )
        except Exception as error:  # the library parses what a client sent: any failure
            raise _failed(error) from None
        passkey = Passkey(
            secrets.token_urlsafe(9),
            profile.id,
            bytes_to_base64url(verified.credential_id),
            verified.credential_public_key,
            verified.sign_count,
            cleaned,
            self.book.clock(),
        )
        try:
            await self.book.read(self.store.add_passkey, passkey, MAX_PASSKEYS)
        except PasskeyLimitError:
            raise _too_many() from None
        except PasskeyExistsError:
            raise ServiceError(
                "passkey_exists", "This passkey is already added to a profile.", 409
            ) from None
        return passkey

    async def sign_in_options(self, party: RelyingParty, address: str) -> dict[str, Any]:
        """What ``navigator.credentials.get`` needs: any passkey of this host will do (the
        browser offers the person those it holds)."""
        self._attempt(address)
        challenge = await self._challenge("sign_in", party, None)
        options = generate_authentication_options(
            rp_id=party.id,
            challenge=challenge,
            timeout=CHALLENGE_SECONDS * 1000,
            user_verification=UserVerificationRequirement.PREFERRED,
        )
        return options_to_json_dict(options)

    async def sign_in(self, party: RelyingParty, credential: dict[str, Any]) -> tuple[Profile, str]:
        """A browser's answer to :meth:`sign_in_options`: the profile of the passkey it used
        and a new device secret for that browser."""
        challenge = await self._take(credential, "sign_in", party, None)
        credential_id = credential.get("id")
        passkey = None
        if isinstance(credential_id, str) and len(credential_id) <= 1400:
            passkey = await self.book.read(self.store.by_credential, credential_id)
        if passkey is None:
            raise ServiceError(
                "unknown_credential",
                "This passkey belongs to no profile here (it may have been removed).",
                404,
            )
        response = credential.get("response")
        handle = response.get("userHandle") if isinstance(response, dict) else None
        if handle not in (None, "") and handle != _b64(passkey.profile_id.encode()):
            raise _failed(ValueError("the user handle is not the passkey's profile"))
        try:
            verified = verify_authentication_response(
                credential=credential,
                expected_challenge=challenge,
                expected_rp_id=party.id,
                expected_origin=list(party.origins),
                credential_public_key=passkey.public_key,
                credential_current_sign_count=0,  # checked below, once the signature holds
            )
        except Exception as error:  # the library parses what a client sent: any failure
            raise _failed(error) from None
        count = verified.new_sign_count
        now = self.book.clock()
        if not counter_goes_on(passkey.sign_count, count) or not await self.book.read(
            self.store.use_passkey, passkey.id, count, now
        ):
            raise ServiceError(
                "bad_sign_count",
                "This passkey's counter did not go up: the answer was replayed, or the "
                "authenticator copied. Sign in another way and remove this passkey.",
                409,
            )
        profile = await self.book.read(self.people.profile, passkey.profile_id)
        if profile is None:
            raise ServiceError("unknown_credential", "This passkey's profile is gone.", 404)
        return profile, await self.new_device(profile)

    async def remove(self, profile: Profile, passkey_id: str) -> None:
        if not await self.book.read(self.store.remove_passkey, profile.id, passkey_id):
            raise ServiceError("passkey_not_found", "This profile has no such passkey.", 404)

    # ------------------------------------------------------------------ challenges

    def _attempt(self, address: str) -> None:
        try:
            self.attempts.acquire(address)
        except QuotaExceededError as error:
            raise TooManyAttemptsError(error.retry_after) from None

    async def _challenge(self, purpose: Purpose, party: RelyingParty, profile: str | None) -> bytes:
        challenge = secrets.token_bytes(32)
        now = self.book.clock()
        stored = Challenge(
            _digest(challenge),
            purpose,
            party.id,
            profile,
            now + timedelta(seconds=CHALLENGE_SECONDS),
        )
        await self.book.read(self.store.add_challenge, stored, now)
        return challenge

    async def _take(
        self, credential: dict[str, Any], purpose: Purpose, party: RelyingParty, profile: str | None
    ) -> bytes:
        """The challenge the answer ``credential`` is to, used up now: ``bad_challenge`` when
        it is unknown, used, expired, or for another ceremony, host or profile;
        ``wrong_origin`` when the answer comes from a page elsewhere."""
        client = _client_data(credential)
        try:
            challenge = base64.urlsafe_b64decode(_padded(str(client["challenge"])))
        except (KeyError, ValueError) as error:
            raise _failed(error) from None
        taken = await self.book.read(
            self.store.take_challenge, _digest(challenge), self.book.clock()
        )
        if (
            taken is None
            or taken.purpose != purpose
            or taken.rp_id != party.id
            or taken.profile_id != profile
        ):
            raise ServiceError(
                "bad_challenge",
                "This passkey request has expired or was used already: try again.",
                400,
            )
        if client.get("origin") not in party.origins:
            raise ServiceError(
                "wrong_origin", "This passkey answer comes from a page of another site.", 400
            )
        return challenge


def _client_data(credential: dict[str, Any]) -> dict[str, Any]:
    try:
        raw = credential["response"]["clientDataJSON"]
        data = json.loads(base64.urlsafe_b64decode(_padded(raw)))
    except (KeyError, TypeError, ValueError) as error:
        raise _failed(error) from None
    if not isinstance(data, dict):
        raise _failed(ValueError("clientDataJSON is not an object"))
    return data


def _failed(error: BaseException) -> ServiceError:
    log.info("passkey answer refused: %s", error)
    return ServiceError(
        "verification_failed", "The passkey's answer could not be verified: try again.", 400
    )


def _too_many() -> ServiceError:
    return ServiceError(
        "too_many_passkeys",
        f"A profile has at most {MAX_PASSKEYS} passkeys: remove one first.",
        409,
    )


def _descriptor(passkey: Passkey) -> PublicKeyCredentialDescriptor:
    return PublicKeyCredentialDescriptor(
        id=base64.urlsafe_b64decode(_padded(passkey.credential_id))
    )


def _digest(challenge: bytes) -> str:
    return hashlib.sha256(challenge).hexdigest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _padded(text: str) -> str:
    if not isinstance(text, str):
        raise TypeError("not base64url text")
    return text + "=" * (-len(text) % 4)


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _origin(text: str) -> str | None:
    """``scheme://host[:port]`` as a browser writes an origin (no default port), or ``None``."""
    try:
        parts = urlsplit(text.strip().rstrip("/"))
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname or parts.path:
        return None
    default = 443 if scheme == "https" else 80
    suffix = f":{port}" if port is not None and port != default else ""
    return f"{scheme}://{parts.hostname.lower()}{suffix}"


def _secure(origin: str) -> bool:
    parts = urlsplit(origin)
    local = parts.hostname == "localhost" or (parts.hostname or "").endswith(".localhost")
    return parts.scheme == "https" or local
