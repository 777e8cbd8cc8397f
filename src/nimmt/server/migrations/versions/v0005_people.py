"""The people around the tables (issue 19): profiles and their devices, one-time device links,
groups and their members, seats held by profiles, tables opened for a group, results of
finished games.

Revision ID: 0005
Revises: 0004

Only hashes of secrets are stored (a device's, a link's, an invite's). Nothing existing changes:
a game played without a profile stays as it was.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None

_WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "profiles",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("emoji", sa.String(16), nullable=False),
        sa.Column("colour", sa.String(16), nullable=False),
        sa.Column("created_at", _WHEN, nullable=False),
    )
    op.create_table(
        "profile_devices",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column(
            "profile_id",
            sa.String(16),
            sa.ForeignKey("profiles.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("secret_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", _WHEN, nullable=False),
    )
    op.create_index("ix_profile_devices_profile_id", "profile_devices", ["profile_id"])
    op.create_table(
        "profile_links",
        sa.Column("link_hash", sa.String(64), primary_key=True),
        sa.Column(
            "profile_id",
            sa.String(16),
            sa.ForeignKey("profiles.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("expires_at", _WHEN, nullable=False),
    )
    op.create_table(
        "groups",
        sa.Column("code", sa.String(8), primary_key=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column(
            "owner_id",
            sa.String(16),
            sa.ForeignKey("profiles.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("created_at", _WHEN, nullable=False),
        sa.Column("invite_hash", sa.String(64), nullable=True, unique=True),
    )
    op.create_table(
        "group_members",
        sa.Column(
            "group_code",
            sa.String(8),
            sa.ForeignKey("groups.code", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "profile_id",
            sa.String(16),
            sa.ForeignKey("profiles.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("joined_at", _WHEN, nullable=False),
    )
    op.create_index("ix_group_members_profile_id", "group_members", ["profile_id"])
    op.create_table(
        "seat_profiles",
        sa.Column(
            "table_code",
            sa.String(6),
            sa.ForeignKey("tables.code", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column(
            "profile_id",
            sa.String(16),
            sa.ForeignKey("profiles.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("token_hash", sa.String(64), nullable=True),
    )
    op.create_index("ix_seat_profiles_profile_id", "seat_profiles", ["profile_id"])
    op.create_table(
        "group_tables",
        sa.Column(
            "table_code",
            sa.String(6),
            sa.ForeignKey("tables.code", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "group_code",
            sa.String(8),
            sa.ForeignKey("groups.code", ondelete="CASCADE"),
            nullable=False,
        ),
    )
    op.create_table(
        "game_results",
        sa.Column("table_code", sa.String(6), primary_key=True),
        sa.Column("game", sa.Integer, primary_key=True),
        sa.Column("finished_at", _WHEN, nullable=False),
        sa.Column("real_cards", sa.Boolean, nullable=False),
        sa.Column(
            "group_code",
            sa.String(8),
            sa.ForeignKey("groups.code", ondelete="SET NULL"),
            nullable=True,
        ),
    )
    op.create_index("ix_game_results_group", "game_results", ["group_code", "finished_at"])
    op.create_table(
        "result_seats",
        sa.Column("table_code", sa.String(6), primary_key=True),
        sa.Column("game", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("kind", sa.String(5), nullable=False),
        sa.Column(
            "profile_id",
            sa.String(16),
            sa.ForeignKey("profiles.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("winner", sa.Boolean, nullable=False),
        sa.Column("rows_taken", sa.Integer, nullable=False),
        sa.Column("round_penalties", sa.JSON, nullable=False),
    )
    op.create_index("ix_result_seats_profile_id", "result_seats", ["profile_id"])


def downgrade() -> None:
    for table in (
        "result_seats",
        "game_results",
        "group_tables",
        "seat_profiles",
        "group_members",
        "groups",
        "profile_links",
        "profile_devices",
        "profiles",
    ):
        op.drop_table(table)
