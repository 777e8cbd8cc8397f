"""Names as long as a name may be: 200 code points instead of 40.

Revision ID: 0011
Revises: 0010

A name has at most 24 characters, but a character may take several code points (a family emoji
takes seven), and a name may take up to 200 (:data:`nimmt.names.NAME_MAX_CODE_POINTS`).
PostgreSQL counts a VARCHAR's length in code points and refused such a name in the five columns
that store one: a seat's, a profile's, a group's, a game result's seat and a line of the talk.
SQLite ignores the length; there the tables are rebuilt with the new one (batch mode).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision: str | None = "0010"
branch_labels: str | None = None
depends_on: str | None = None

NAME_COLUMNS = (
    ("seats", True),
    ("profiles", False),
    ("groups", False),
    ("result_seats", False),
    ("talk_lines", False),
)
"""Each table with a ``name`` column, and whether its name may be missing."""


def upgrade() -> None:
    _resize(40, 200)


def downgrade() -> None:
    _resize(200, 40)


def _resize(before: int, after: int) -> None:
    for table, nullable in NAME_COLUMNS:
        with op.batch_alter_table(table) as batch:
            batch.alter_column(
                "name",
                existing_type=sa.String(before),
                type_=sa.String(after),
                existing_nullable=nullable,
            )
