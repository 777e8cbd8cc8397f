"""A software authenticator for the passkey tests: an EC P-256 key made here, and the answers a
browser would send for it, built byte by byte as WebAuthn (level 2) lays them out: the
registration's attestation object with the ``none`` format, the assertion's authenticator data
and its ECDSA signature over that data and the hash of the client data."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import struct
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

USER_PRESENT = 0x01
USER_VERIFIED = 0x04
ATTESTED = 0x40


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class SoftAuthenticator:
    """One passkey: its key, its id, its signature counter (``counter`` 0 keeps none at all,
    as synced passkeys do)."""

    def __init__(self, counter: int = 1) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = os.urandom(32)
        self.counter = counter
        self.keeps_counter = counter > 0
        self.user_handle: str | None = None

    @property
    def id(self) -> str:
        return b64(self.credential_id)

    def cose_key(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        return cbor2.dumps(
            {
                1: 2,  # kty: EC2
                3: -7,  # alg: ES256
                -1: 1,  # crv: P-256
                -2: numbers.x.to_bytes(32, "big"),
                -3: numbers.y.to_bytes(32, "big"),
            }
        )

    def authenticator_data(self, rp_id: str, counter: int, *, attested: bool) -> bytes:
        flags = USER_PRESENT | USER_VERIFIED | (ATTESTED if attested else 0)
        data = hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + struct.pack(">I", counter)
        if attested:
            data += bytes(16)  # the AAGUID of an authenticator that says nothing of itself
            data += struct.pack(">H", len(self.credential_id)) + self.credential_id
            data += self.cose_key()
        return data

    def register(
        self, options: dict[str, Any], origin: str, *, rp_id: str | None = None
    ) -> dict[str, Any]:
        """The answer to ``navigator.credentials.create(options)`` from a page at ``origin``."""
        self.user_handle = options["user"]["id"]
        client = _client_data("webauthn.create", options["challenge"], origin)
        start = self.counter if self.keeps_counter else 0
        data = self.authenticator_data(rp_id or options["rp"]["id"], start, attested=True)
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": data})
        return {
            "id": self.id,
            "rawId": self.id,
            "type": "public-key",
            "response": {
                "clientDataJSON": b64(client),
                "attestationObject": b64(attestation),
                "transports": ["internal"],
            },
            "clientExtensionResults": {},
        }

    def sign_in(
        self,
        options: dict[str, Any],
        origin: str,
        *,
        counter: int | None = None,
        rp_id: str | None = None,
    ) -> dict[str, Any]:
        """The answer to ``navigator.credentials.get(options)`` from a page at ``origin``; the
        counter goes up by one unless ``counter`` is given (or the passkey keeps none)."""
        if counter is None:
            if self.keeps_counter:
                self.counter += 1
            counter = self.counter if self.keeps_counter else 0
        client = _client_data("webauthn.get", options["challenge"], origin)
        data = self.authenticator_data(rp_id or options["rpId"], counter, attested=False)
        signature = self.key.sign(data + hashlib.sha256(client).digest(), ec.ECDSA(hashes.SHA256()))
        response = {
            "clientDataJSON": b64(client),
            "authenticatorData": b64(data),
            "signature": b64(signature),
        }
        if self.user_handle is not None:
            response["userHandle"] = self.user_handle
        return {
            "id": self.id,
            "rawId": self.id,
            "type": "public-key",
            "response": response,
            "clientExtensionResults": {},
        }


def _client_data(kind: str, challenge: str, origin: str) -> bytes:
    return json.dumps(
        {"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": False}
    ).encode()
