"""Alembic environment: migrations run on the connection handed over by
:func:`nimmt.server.storage.migrate` (never from an ini file)."""

from __future__ import annotations

from alembic import context

from nimmt.server.models import Base

connection = context.config.attributes["connection"]
# Batch mode lets later migrations alter SQLite tables, which cannot ALTER most things in place.
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
