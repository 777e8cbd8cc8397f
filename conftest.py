"""pytest set-up for the whole repository.

``--doctest-modules`` (in ``pyproject.toml``) imports every module under ``src/nimmt`` to collect
its examples. Alembic's ``env.py`` runs migrations when imported and only makes sense inside
Alembic, so it is left out.
"""

collect_ignore = ["src/nimmt/server/migrations/env.py"]
