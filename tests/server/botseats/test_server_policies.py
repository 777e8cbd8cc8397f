"""Saved policies at the web tables: only the files of the operator's ``NIMMT_POLICY_DIR``, by
their names, and each plays as its weights say; no name a person sends reads another file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient
from tests.server.server_helpers import create_table, service_of
from tests.waiting import wait_until
from typer.testing import CliRunner

from nimmt.bots import BOT_NAMES
from nimmt.bots.saved import FEATURE_NAMES, FEATURES, Network
from nimmt.cli import app
from nimmt.server import Settings, create_app
from nimmt.server.policybots import PolicyDirError, offered_policies
from nimmt.server.storage import MemoryStorage


def highest_card() -> Network:
    network = Network(np.zeros(FEATURES), np.zeros((FEATURES, 1)), np.zeros(1), np.zeros(1))
    network.linear[FEATURE_NAMES.index("card")] = 1.0
    return network


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    policies = tmp_path / "policies"
    policies.mkdir()
    highest_card().save(policies / "high.npz")
    (policies / "README.txt").write_text("not a policy, and not offered: not an .npz")
    return policies


def test_the_folder_s_policies_are_offered_by_name(
    make_client: Callable[..., TestClient], folder: Path
) -> None:
    client = make_client(policy_dir=folder)
    names = [bot["name"] for bot in client.get("/api/bots").json()["bots"]]
    assert names == [*BOT_NAMES, "policy:high.npz"]
    assert str(folder) not in client.get("/api/bots").text  # the path stays the server's


def test_a_policy_bot_plays_its_weights_at_a_table(
    make_client: Callable[..., TestClient], folder: Path
) -> None:
    client = make_client(policy_dir=folder, deal_seed=4)
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "policy:high.npz"}]
    code, _ = create_table(client, seats)
    table = service_of(client).book.tables[code]
    wait_until(lambda: table.game.view(1).chosen_card is not None, message="the bot never chose")
    dealt = table.game.history[-1].hands[1]
    assert table.game.view(1).chosen_card == max(dealt)  # not the lowest, a failed bot's card


@pytest.mark.parametrize(
    "bot",
    ["policy:../policies/high.npz", "policy:README.txt", "policy:missing.npz", "policy:HIGH.npz"],
)
def test_other_policy_names_are_refused(
    make_client: Callable[..., TestClient], folder: Path, bot: str
) -> None:
    client = make_client(policy_dir=folder)
    seats = [{"kind": "human"}, {"kind": "bot", "bot": bot}]
    answer = client.post("/api/tables", json={"seats": seats})
    assert answer.status_code == 422 and answer.json()["error"]["code"] == "unknown_bot"
    whole_path = {"kind": "bot", "bot": f"policy:{folder / 'high.npz'}"}
    answer = client.post("/api/tables", json={"seats": [{"kind": "human"}, whole_path]})
    assert answer.status_code == 422 and answer.json()["error"]["code"] == "unknown_bot"


def test_without_a_folder_no_policy_is_offered(
    make_client: Callable[..., TestClient], folder: Path
) -> None:
    client = make_client()
    assert [bot["name"] for bot in client.get("/api/bots").json()["bots"]] == list(BOT_NAMES)
    bot = {"kind": "bot", "bot": f"policy:{folder / 'high.npz'}"}
    answer = client.post("/api/tables", json={"seats": [{"kind": "human"}, bot]})
    assert answer.status_code == 422 and answer.json()["error"]["code"] == "unknown_bot"


def test_a_bad_folder_or_file_stops_the_start_with_its_name(tmp_path: Path, folder: Path) -> None:
    with pytest.raises(PolicyDirError, match="is not a folder"):
        offered_policies(tmp_path / "nowhere")
    (folder / "broken.npz").write_text("not an archive")
    with pytest.raises(PolicyDirError, match=r"broken\.npz' is not a policy file"):
        create_app(Settings(policy_dir=folder, db="sqlite://"), storage=MemoryStorage())
    result = CliRunner().invoke(
        app, ["serve", "--port", "0"], env={"NIMMT_POLICY_DIR": str(folder)}
    )
    assert result.exit_code == 1
    assert result.output.startswith("error: NIMMT_POLICY_DIR: ")
    assert "broken.npz' is not a policy file" in result.output
