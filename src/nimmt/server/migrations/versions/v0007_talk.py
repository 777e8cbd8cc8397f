"""The table talk (issue 19, "at the table"): chat lines and quick reactions kept with their
table, and whether a table's spectators may write. Both go with their table when it is deleted;
neither is part of a game's record.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "talk_lines",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "table_code",
            sa.String(6),
            sa.ForeignKey("tables.code", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("speaker", sa.String(32), nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("text", sa.String(800), nullable=False),
    )
    op.create_index("ix_talk_lines_table", "talk_lines", ["table_code", "id"])
    op.create_table(
        "talk_settings",
        sa.Column(
            "table_code",
            sa.String(6),
            sa.ForeignKey("tables.code", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("spectators_write", sa.Boolean, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("talk_settings")
    op.drop_index("ix_talk_lines_table", table_name="talk_lines")
    op.drop_table("talk_lines")
