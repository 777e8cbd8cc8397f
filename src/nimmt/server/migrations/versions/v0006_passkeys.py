"""Passkeys (issue 19): a profile's WebAuthn credentials, and the pending challenges of their
ceremonies (kept in the database so that a ceremony may end at another server process).

Revision ID: 0006
Revises: 0005

Both tables belong to a profile and go with it. Only the SHA-256 of a challenge is stored.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision: str | None = "0005"
branch_labels: str | None = None
depends_on: str | None = None

_WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "passkeys",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column(
            "profile_id",
            sa.String(16),
            sa.ForeignKey("profiles.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("credential_id", sa.String(1400), nullable=False, unique=True),
        sa.Column("public_key", sa.LargeBinary, nullable=False),
        sa.Column("sign_count", sa.BigInteger, nullable=False),
        sa.Column("name", sa.String(200), nullable=True),
        sa.Column("created_at", _WHEN, nullable=False),
        sa.Column("last_used_at", _WHEN, nullable=True),
    )
    op.create_index("ix_passkeys_profile_id", "passkeys", ["profile_id"])
    op.create_table(
        "passkey_challenges",
        sa.Column("challenge_hash", sa.String(64), primary_key=True),
        sa.Column("purpose", sa.String(8), nullable=False),
        sa.Column("rp_id", sa.String(253), nullable=False),
        sa.Column(
            "profile_id",
            sa.String(16),
            sa.ForeignKey("profiles.id", ondelete="CASCADE"),
            nullable=True,
        ),
        sa.Column("expires_at", _WHEN, nullable=False),
    )
    op.create_index("ix_passkey_challenges_profile_id", "passkey_challenges", ["profile_id"])
    op.create_index("ix_passkey_challenges_expires_at", "passkey_challenges", ["expires_at"])


def downgrade() -> None:
    op.drop_table("passkey_challenges")
    op.drop_table("passkeys")
