"""The coach's review with a game's result: the bullheads a seat lost to its own decisions.

Revision ID: 0008
Revises: 0007

Kept once somebody has asked for the review of that seat's game (``GET
/api/tables/{code}/analysis``); every existing result has none.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision: str | None = "0007"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("result_seats") as batch:
        batch.add_column(sa.Column("decision_loss", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("result_seats") as batch:
        batch.drop_column("decision_loss")
