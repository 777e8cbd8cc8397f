"""The engine stands alone: standard library only, no I/O or web, database or UI packages."""

import json
import subprocess
import sys

FORBIDDEN = (
    "fastapi",
    "starlette",
    "sqlalchemy",
    "alembic",
    "numpy",
    "rich",
    "typer",
    "uvicorn",
    "websockets",
    "asyncio",
    "sqlite3",
    "nimmt.bots",
    "nimmt.server",
    "nimmt.cli",
    "nimmt.arena",
)


def test_engine_imports_nothing_but_the_standard_library() -> None:
    code = "import sys, json, nimmt.engine; print(json.dumps(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    loaded = json.loads(result.stdout)
    assert "nimmt.engine.game" in loaded
    for name in FORBIDDEN:
        assert not any(module == name or module.startswith(name + ".") for module in loaded), name
    third_party = {
        module.split(".")[0]
        for module in loaded
        if module.split(".")[0] not in sys.stdlib_module_names and not module.startswith("nimmt")
    }
    assert third_party <= {"__main__", "_distutils_hack"}, third_party
