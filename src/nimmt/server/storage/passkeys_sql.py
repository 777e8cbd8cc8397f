"""The SQLAlchemy side of :class:`~nimmt.server.storage.passkeys.PasskeyStore`: the tables
``passkeys`` and ``passkey_challenges`` (created by migration ``0006``), on the engine of
:class:`~nimmt.server.storage.SqlStorage`. Both belong to a profile (``ON DELETE CASCADE``)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Column,
    Connection,
    DateTime,
    Engine,
    ForeignKey,
    LargeBinary,
    String,
    Table,
    delete,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from nimmt.server.models import Base
from nimmt.server.storage.base import as_utc
from nimmt.server.storage.passkeys import (
    Challenge,
    Passkey,
    PasskeyExistsError,
    PasskeyLimitError,
    Purpose,
)
from nimmt.server.storage.writes import held_by_profile, writing

passkeys = Table(
    "passkeys",
    Base.metadata,
    Column("id", String(16), primary_key=True),
    Column(
        "profile_id",
        String(16),
        ForeignKey("profiles.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    # A credential id is at most 1023 bytes: 1364 characters of base64url.
    Column("credential_id", String(1400), nullable=False, unique=True),
    Column("public_key", LargeBinary, nullable=False),
    Column("sign_count", BigInteger, nullable=False),  # an unsigned 32-bit counter
    Column("name", String(200), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("last_used_at", DateTime(timezone=True), nullable=True),
)
passkey_challenges = Table(
    "passkey_challenges",
    Base.metadata,
    Column("challenge_hash", String(64), primary_key=True),
    Column("purpose", String(8), nullable=False),
    Column("rp_id", String(253), nullable=False),
    Column(
        "profile_id",
        String(16),
        ForeignKey("profiles.id", ondelete="CASCADE"),
        nullable=True,
        index=True,
    ),
    Column("expires_at", DateTime(timezone=True), nullable=False, index=True),
)


def _passkey(row: Any) -> Passkey:
    return Passkey(
        row.id,
        row.profile_id,
        row.credential_id,
        bytes(row.public_key),
        int(row.sign_count),
        row.name,
        as_utc(row.created_at),
        as_utc(row.last_used_at) if row.last_used_at is not None else None,
    )


class SqlPasskeys:
    """:class:`~nimmt.server.storage.passkeys.PasskeyStore` on SQLite or PostgreSQL."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def _writing(self) -> AbstractContextManager[Connection]:
        return writing(self.engine)

    def add_challenge(self, challenge: Challenge, now: datetime) -> None:
        with self._writing() as connection:
            connection.execute(
                delete(passkey_challenges).where(passkey_challenges.c.expires_at <= as_utc(now))
            )
            connection.execute(
                insert(passkey_challenges).values(
                    challenge_hash=challenge.challenge_hash,
                    purpose=challenge.purpose,
                    rp_id=challenge.rp_id,
                    profile_id=challenge.profile_id,
                    expires_at=as_utc(challenge.expires_at),
                )
            )

    def take_challenge(self, challenge_hash: str, now: datetime) -> Challenge | None:
        with self._writing() as connection:
            row = connection.execute(
                delete(passkey_challenges)
                .where(passkey_challenges.c.challenge_hash == challenge_hash)
                .returning(*passkey_challenges.c)
            ).first()
        if row is None or as_utc(row.expires_at) <= as_utc(now):
            return None
        purpose: Purpose = "register" if row.purpose == "register" else "sign_in"
        return Challenge(
            row.challenge_hash, purpose, row.rp_id, row.profile_id, as_utc(row.expires_at)
        )

    def passkeys(self, profile_id: str) -> list[Passkey]:
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(passkeys)
                .where(passkeys.c.profile_id == profile_id)
                .order_by(passkeys.c.created_at, passkeys.c.id)
            ).all()
        return [_passkey(row) for row in rows]

    def by_credential(self, credential_id: str) -> Passkey | None:
        with self.engine.connect() as connection:
            row = connection.execute(
                select(passkeys).where(passkeys.c.credential_id == credential_id)
            ).first()
        return _passkey(row) if row is not None else None

    def add_passkey(self, passkey: Passkey, limit: int) -> None:
        profiles = Base.metadata.tables["profiles"]  # people_sql's, which imports this module
        try:
            with self._writing() as connection:
                if held_by_profile(connection, profiles, passkey.profile_id, passkeys) >= limit:
                    raise PasskeyLimitError(f"a profile has at most {limit} passkeys")
                connection.execute(
                    insert(passkeys).values(
                        id=passkey.id,
                        profile_id=passkey.profile_id,
                        credential_id=passkey.credential_id,
                        public_key=passkey.public_key,
                        sign_count=passkey.sign_count,
                        name=passkey.name,
                        created_at=as_utc(passkey.created_at),
                        last_used_at=None,
                    )
                )
        except IntegrityError:
            raise PasskeyExistsError("this credential is stored already") from None

    def use_passkey(self, passkey_id: str, sign_count: int, now: datetime) -> bool:
        # Compare and set: of two answers with the same counter, one finds it moved already.
        moved = (
            passkeys.c.sign_count == 0 if sign_count == 0 else passkeys.c.sign_count < sign_count
        )
        with self._writing() as connection:
            done = connection.execute(
                update(passkeys)
                .where(passkeys.c.id == passkey_id, moved)
                .values(sign_count=sign_count, last_used_at=as_utc(now))
            )
        return done.rowcount == 1

    def remove_passkey(self, profile_id: str, passkey_id: str) -> bool:
        with self._writing() as connection:
            gone = connection.execute(
                delete(passkeys).where(
                    passkeys.c.id == passkey_id, passkeys.c.profile_id == profile_id
                )
            )
        return gone.rowcount == 1

    @staticmethod
    def forget_profile(connection: Connection, profile_id: str) -> None:
        """Within the deletion of a profile (its transaction): its passkeys and challenges."""
        for table in (passkeys, passkey_challenges):
            connection.execute(delete(table).where(table.c.profile_id == profile_id))
