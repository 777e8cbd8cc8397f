"""The lobby from the database: when a person last acted at a table, its number of seats, its free
seats and the names seated, kept on the table's row; and an index for the lobby's query.

Revision ID: 0002
Revises: 0001

Existing tables count as last active when they were created; ``seat_count``, ``free_seats`` and
``humans`` are computed from their seats.
"""

from __future__ import annotations

from collections import defaultdict

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None

_tables = sa.table(
    "tables",
    sa.column("id", sa.Integer()),
    sa.column("created_at", sa.DateTime(timezone=True)),
    sa.column("last_active_at", sa.DateTime(timezone=True)),
    sa.column("seat_count", sa.Integer()),
    sa.column("free_seats", sa.Integer()),
    sa.column("humans", sa.JSON()),
)
_seats = sa.table(
    "seats",
    sa.column("table_id", sa.Integer()),
    sa.column("seat", sa.Integer()),
    sa.column("kind", sa.String()),
    sa.column("name", sa.String()),
    sa.column("token_hash", sa.String()),
)


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("last_active_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("seat_count", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("free_seats", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("humans", sa.JSON(), nullable=False, server_default="[]"))

    bind = op.get_bind()
    bind.execute(sa.update(_tables).values(last_active_at=_tables.c.created_at))
    count: defaultdict[int, int] = defaultdict(int)
    free: defaultdict[int, int] = defaultdict(int)
    humans: defaultdict[int, list[str]] = defaultdict(list)
    seats = bind.execute(
        sa.select(_seats.c.table_id, _seats.c.kind, _seats.c.name, _seats.c.token_hash).order_by(
            _seats.c.table_id, _seats.c.seat
        )
    )
    for table_id, kind, name, token_hash in seats:
        count[table_id] += 1
        if kind == "human":
            free[table_id] += token_hash is None
            if name is not None:
                humans[table_id].append(name)
    for table_id in count:
        bind.execute(
            sa.update(_tables)
            .where(_tables.c.id == table_id)
            .values(seat_count=count[table_id], free_seats=free[table_id], humans=humans[table_id])
        )

    # SQLite rebuilds the table for this: storage.migrate runs migrations with its foreign keys
    # off, or dropping the old table would cascade to every seat and action.
    with op.batch_alter_table("tables") as batch:
        batch.alter_column(
            "last_active_at", existing_type=sa.DateTime(timezone=True), nullable=False
        )
    op.create_index("ix_tables_lobby", "tables", ["finished", "created_at", "id"])


def downgrade() -> None:
    op.drop_index("ix_tables_lobby", table_name="tables")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("humans")
        batch.drop_column("free_seats")
        batch.drop_column("seat_count")
        batch.drop_column("last_active_at")
