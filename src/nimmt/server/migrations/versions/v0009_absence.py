"""An absent player: how long a person must have been away before a bot may be proposed.

Revision ID: 0009
Revises: 0008

Every existing table gets the default, two minutes. The agreements themselves are stored as
actions (``handover``, ``return``), which need no change of the schema.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision: str | None = "0008"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(
            sa.Column("away_seconds", sa.Integer(), nullable=False, server_default="120")
        )


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("away_seconds")
