"""Alembic migrations of the server's database, run automatically at start-up."""
