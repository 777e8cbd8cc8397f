"""Assisted tables (games played with real cards): the hash of the token that enters the cards.

Revision ID: 0004
Revises: 0003

A table with ``assistant_hash`` set is an assisted one; every existing table is a played one.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("assistant_hash", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("assistant_hash")
