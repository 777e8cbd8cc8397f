"""An index of the tables opened for a group, by group.

Revision ID: 0012
Revises: 0011

A group's page lists the group's open tables (``GET /api/groups/{code}``, ``open``): one query
from ``group_tables`` by ``group_code`` to ``tables`` by code. ``group_tables`` was keyed by
table only, so that query read every group's tables; with this index it reads the group's own.
"""

from __future__ import annotations

from alembic import op

revision = "0012"
down_revision: str | None = "0011"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_index("ix_group_tables_group_code", "group_tables", ["group_code"])


def downgrade() -> None:
    op.drop_index("ix_group_tables_group_code", table_name="group_tables")
