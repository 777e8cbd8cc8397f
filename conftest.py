"""pytest set-up for the whole repository.

``--doctest-modules`` (in ``pyproject.toml``) imports every module under ``src/nimmt`` to collect
its examples. Alembic's ``env.py`` runs migrations when imported and only makes sense inside
Alembic, so it is left out.
"""

collect_ignore = ["src/nimmt/server/migrations/env.py"]
# The tests' conftest.py files hold fixtures, no examples. Collected as doctest modules, two of
# them (tests/server and tests/browser, not packages) are both the module "conftest": naming both
# folders on the command line then failed with "import file mismatch". They still load as
# conftests: this only keeps them from being collected as test files.
collect_ignore_glob = ["tests/*conftest.py"]
