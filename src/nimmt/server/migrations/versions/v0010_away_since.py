"""The absence clock across a restart: when a seated person left.

Revision ID: 0010
Revises: 0009

``seats.away_since`` is the moment the seat's person had left every socket, stored once they
have been away for a few seconds (a reload or a server's own stop stores nothing) and cleared
when they come back, so that a restarted server counts their time away on from there. Every
existing seat has none: its person counts as away from the restart, as before.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision: str | None = "0009"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("away_since", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("away_since")
