"""The systemd unit of docs/deploy.md, as written there, checked by systemd's own
``systemd-analyze verify`` (its ``ExecStart`` on this checkout's ``nimmt``, which is there to be
found): unknown or misspelt settings, bad values and a missing program all fail it. The tests run
where systemd does not (no unit is started); skipped where ``systemd-analyze`` is missing."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.server.ops.deploy_doc import block, substituted
from tests.server.server_helpers import NIMMT

SECTION = "One machine, several processes"


@pytest.fixture
def analyze() -> str:
    found = shutil.which("systemd-analyze", path=f"{os.environ.get('PATH', '')}:/usr/bin:/bin")
    if found is None:
        pytest.skip("systemd-analyze is not installed (Debian's systemd package)")
    return found


def test_systemd_accepts_the_guide_s_unit(analyze: str, tmp_path: Path) -> None:
    unit = substituted(
        block("ini", SECTION, "[Service]"),
        {"ExecStart=/opt/nimmt/.venv/bin/nimmt serve ": f"ExecStart={NIMMT} serve "},
    )
    path = tmp_path / "nimmt.service"
    path.write_text(unit)
    checked = subprocess.run(
        [analyze, "verify", str(path)], capture_output=True, text=True, timeout=60
    )
    # A warning ("Unknown key ...") leaves the exit status 0: nothing at all may be said.
    assert (checked.returncode, checked.stdout + checked.stderr) == (0, ""), checked.stderr


def test_systemd_reports_a_misspelt_setting(analyze: str, tmp_path: Path) -> None:
    # The check above would see a mistake: a misspelt setting is reported.
    path = tmp_path / "nimmt.service"
    path.write_text(f"[Service]\nExecStart={NIMMT} serve\nLimitNOFLE=65536\n")
    checked = subprocess.run(
        [analyze, "verify", str(path)], capture_output=True, text=True, timeout=60
    )
    assert "Unknown key" in checked.stdout + checked.stderr
