"""Passkeys through the real HTTP routes, answered by a software authenticator: a profile adds
one, another browser signs in with it and gets a device secret of its own; a challenge works
once, briefly, for its own ceremony and host; an answer from another origin or relying party,
with a bad signature or a counter that did not go up is refused; a removed passkey, or one of a
deleted profile, signs in nobody; a ceremony begun at one process ends at another."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import create_engine, text
from starlette.testclient import TestClient
from tests.server.profiles.soft_authenticator import SoftAuthenticator, b64
from tests.server.server_helpers import service_of

from nimmt.server.security import CreationQuota
from nimmt.server.storage import SqlStorage

ORIGIN = "https://testserver"
Message = dict[str, Any]


def auth(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def secure_client(make_client: Any, **options: Any) -> TestClient:
    client: TestClient = make_client(**options)
    client.base_url = ORIGIN  # httpx makes it a URL
    return client


def make_profile(client: TestClient, name: str = "Ana") -> tuple[Message, str]:
    answer = client.post("/api/profile", json={"name": name, "emoji": "🐮", "colour": "#1f5a45"})
    assert answer.status_code == 201, answer.text
    return answer.json()["profile"], answer.json()["secret"]


def add_passkey(
    client: TestClient, secret: str, key: SoftAuthenticator, name: str | None = "Phone"
) -> Message:
    options = client.post("/api/profile/passkeys/register/options", headers=auth(secret))
    assert options.status_code == 200, options.text
    answer = client.post(
        "/api/profile/passkeys/register",
        json={"credential": key.register(options.json()["options"], ORIGIN), "name": name},
        headers=auth(secret),
    )
    assert answer.status_code == 201, answer.text
    passkey: Message = answer.json()["passkey"]
    return passkey


def sign_in_options(client: TestClient) -> Message:
    options = client.post("/api/profile/passkeys/signin/options")
    assert options.status_code == 200, options.text
    found: Message = options.json()["options"]
    return found


def sign_in(client: TestClient, credential: Message) -> Any:
    return client.post("/api/profile/passkeys/signin", json={"credential": credential})


def refused(answer: Any, status: int, code: str) -> None:
    assert answer.status_code == status, answer.text
    assert answer.json()["error"]["code"] == code


def test_a_passkey_is_added_listed_and_signs_another_browser_in(make_client: Any) -> None:
    client = secure_client(make_client)
    profile, secret = make_profile(client)
    options = client.post("/api/profile/passkeys/register/options", headers=auth(secret)).json()
    created = options["options"]
    assert created["rp"] == {"id": "testserver", "name": "6 nimmt!"}
    assert created["user"]["name"] == "Ana"
    assert created["user"]["id"] == b64(profile["id"].encode())
    assert created["authenticatorSelection"]["residentKey"] == "required"
    key = SoftAuthenticator()
    passkey = add_passkey(client, secret, key)
    assert passkey["name"] == "Phone" and passkey["last_used_at"] is None
    listed = client.get("/api/profile", headers=auth(secret)).json()["passkeys"]
    assert listed == [passkey]

    again = client.post("/api/profile/passkeys/register/options", headers=auth(secret)).json()
    assert [item["id"] for item in again["options"]["excludeCredentials"]] == [key.id]

    options = sign_in_options(client)
    assert options["rpId"] == "testserver" and options["allowCredentials"] == []
    answer = sign_in(client, key.sign_in(options, ORIGIN))
    assert answer.status_code == 200, answer.text
    assert answer.json()["profile"] == profile
    other = answer.json()["secret"]
    assert other != secret
    mine = client.get("/api/profile", headers=auth(other)).json()
    assert [device["current"] for device in mine["devices"]] == [False, True]
    assert mine["passkeys"][0]["last_used_at"] is not None


def test_an_unnamed_passkey_and_a_counterless_authenticator(make_client: Any) -> None:
    client = secure_client(make_client)
    _profile, secret = make_profile(client)
    key = SoftAuthenticator(counter=0)  # as synced passkeys: the counter stays 0
    assert add_passkey(client, secret, key, name="  ")["name"] is None
    for _ in range(2):
        assert sign_in(client, key.sign_in(sign_in_options(client), ORIGIN)).status_code == 200


def test_a_challenge_works_once_briefly_and_for_its_own_ceremony(make_client: Any) -> None:
    client = secure_client(make_client)
    _profile, secret = make_profile(client)
    key = SoftAuthenticator()
    add_passkey(client, secret, key)

    answer = key.sign_in(sign_in_options(client), ORIGIN)
    assert sign_in(client, answer).status_code == 200
    refused(sign_in(client, answer), 400, "bad_challenge")  # replayed
    refused(
        sign_in(
            client, key.sign_in(sign_in_options(client) | {"challenge": b64(b"made up")}, ORIGIN)
        ),
        400,
        "bad_challenge",
    )

    # A registration's challenge does not sign in.
    options = client.post("/api/profile/passkeys/register/options", headers=auth(secret)).json()
    refused(
        sign_in(client, key.sign_in(options["options"] | {"rpId": "testserver"}, ORIGIN)),
        400,
        "bad_challenge",
    )

    # Nor does one past its two minutes.
    options = sign_in_options(client)
    book = service_of(client).book
    now = book.clock()
    book.clock = lambda: now + timedelta(seconds=121)
    refused(sign_in(client, key.sign_in(options, ORIGIN)), 400, "bad_challenge")


def test_another_profiles_registration_challenge_is_refused(make_client: Any) -> None:
    client = secure_client(make_client)
    _ana, ana = make_profile(client)
    _ben, ben = make_profile(client, "Ben")
    options = client.post("/api/profile/passkeys/register/options", headers=auth(ana)).json()
    answer = client.post(
        "/api/profile/passkeys/register",
        json={"credential": SoftAuthenticator().register(options["options"], ORIGIN)},
        headers=auth(ben),
    )
    refused(answer, 400, "bad_challenge")
    assert client.get("/api/profile", headers=auth(ben)).json()["passkeys"] == []


def test_answers_from_another_origin_or_relying_party_are_refused(make_client: Any) -> None:
    client = secure_client(make_client)
    _profile, secret = make_profile(client)
    options = client.post("/api/profile/passkeys/register/options", headers=auth(secret)).json()
    key = SoftAuthenticator()
    credential = key.register(options["options"], "https://evil.example")
    answer = client.post(
        "/api/profile/passkeys/register", json={"credential": credential}, headers=auth(secret)
    )
    refused(answer, 400, "wrong_origin")
    # The challenge was used up by that attempt.
    credential = key.register(options["options"], ORIGIN)
    answer = client.post(
        "/api/profile/passkeys/register", json={"credential": credential}, headers=auth(secret)
    )
    refused(answer, 400, "bad_challenge")
    assert client.get("/api/profile", headers=auth(secret)).json()["passkeys"] == []

    add_passkey(client, secret, key)
    refused(
        sign_in(client, key.sign_in(sign_in_options(client), "http://testserver")),
        400,
        "wrong_origin",
    )
    wrong_party = key.sign_in(sign_in_options(client), ORIGIN, rp_id="evil.example")
    refused(sign_in(client, wrong_party), 400, "verification_failed")


def test_a_bad_signature_or_a_counter_that_did_not_go_up_is_refused(make_client: Any) -> None:
    client = secure_client(make_client)
    _profile, secret = make_profile(client)
    key = SoftAuthenticator(counter=4)
    add_passkey(client, secret, key)

    forged = key.sign_in(sign_in_options(client), ORIGIN)
    forged["response"]["signature"] = SoftAuthenticator().sign_in(sign_in_options(client), ORIGIN)[
        "response"
    ]["signature"]
    refused(sign_in(client, forged), 400, "verification_failed")

    assert (
        sign_in(client, key.sign_in(sign_in_options(client), ORIGIN, counter=7)).status_code == 200
    )
    # A copy of the authenticator, behind the original: same counter, then a lower one.
    for counter in (7, 6, 0):
        answer = sign_in(client, key.sign_in(sign_in_options(client), ORIGIN, counter=counter))
        refused(answer, 409, "bad_sign_count")
    assert (
        sign_in(client, key.sign_in(sign_in_options(client), ORIGIN, counter=8)).status_code == 200
    )


def test_a_removed_passkey_signs_in_nobody(make_client: Any) -> None:
    client = secure_client(make_client)
    _profile, secret = make_profile(client)
    _ben, ben = make_profile(client, "Ben")
    key = SoftAuthenticator()
    passkey = add_passkey(client, secret, key)
    refused(
        client.delete(f"/api/profile/passkeys/{passkey['id']}", headers=auth(ben)),
        404,
        "passkey_not_found",
    )
    gone = client.delete(f"/api/profile/passkeys/{passkey['id']}", headers=auth(secret))
    assert gone.json() == {"removed": True}
    assert client.get("/api/profile", headers=auth(secret)).json()["passkeys"] == []
    refused(
        sign_in(client, key.sign_in(sign_in_options(client), ORIGIN)), 404, "unknown_credential"
    )
    refused(
        client.delete(f"/api/profile/passkeys/{passkey['id']}", headers=auth(secret)),
        404,
        "passkey_not_found",
    )


def test_the_same_credential_cannot_be_added_twice(make_client: Any) -> None:
    client = secure_client(make_client)
    _profile, secret = make_profile(client)
    key = SoftAuthenticator()
    add_passkey(client, secret, key)
    options = client.post("/api/profile/passkeys/register/options", headers=auth(secret)).json()
    answer = client.post(
        "/api/profile/passkeys/register",
        json={"credential": key.register(options["options"], ORIGIN)},
        headers=auth(secret),
    )
    refused(answer, 409, "passkey_exists")


def test_garbage_answers_are_refused_cleanly(make_client: Any) -> None:
    client = secure_client(make_client)
    _profile, secret = make_profile(client)
    for credential in (
        {},
        {"response": "x"},
        {"response": {"clientDataJSON": "!!"}},
        {"response": {"clientDataJSON": b64(b"[1]")}},
    ):
        refused(sign_in(client, credential), 400, "verification_failed")
    refused(client.post("/api/profile/passkeys/signin", json={}), 422, "bad_request")
    options = sign_in_options(client)
    key = SoftAuthenticator()
    answer = key.sign_in(options, ORIGIN)
    answer["response"]["authenticatorData"] = "AAAA"
    refused(sign_in(client, answer), 404, "unknown_credential")
    add_passkey(client, secret, key)
    answer = key.sign_in(sign_in_options(client), ORIGIN)
    answer["response"]["authenticatorData"] = "AAAA"
    refused(sign_in(client, answer), 400, "verification_failed")


def test_passkeys_need_a_secure_page_and_a_host_name(make_client: Any) -> None:
    client = make_client(allowed_hosts=["testserver", "*"])
    _profile, secret = make_profile(client)
    plain = client.post("/api/profile/passkeys/register/options", headers=auth(secret))
    refused(plain, 400, "not_secure_context")
    refused(client.post("/api/profile/passkeys/signin/options"), 400, "not_secure_context")
    for host in ("127.0.0.1:8000", "[::1]:8000", "elsewhere.example"):
        answer = client.post(f"https://{host}/api/profile/passkeys/signin/options")
        refused(answer, 400, "passkey_host")
    # localhost is a secure context without TLS: the port is part of the origin.
    options = client.post(
        "http://localhost:8000/api/profile/passkeys/register/options", headers=auth(secret)
    )
    assert options.status_code == 200
    assert options.json()["options"]["rp"]["id"] == "localhost"
    key = SoftAuthenticator()
    answer = client.post(
        "http://localhost:8000/api/profile/passkeys/register",
        json={"credential": key.register(options.json()["options"], "http://localhost:8000")},
        headers=auth(secret),
    )
    assert answer.status_code == 201, answer.text
    # A passkey of localhost is no passkey of testserver.
    options = client.post("https://testserver/api/profile/passkeys/signin/options").json()
    wrong = key.sign_in(options["options"], "https://testserver", rp_id="localhost")
    refused(
        client.post("https://testserver/api/profile/passkeys/signin", json={"credential": wrong}),
        400,
        "verification_failed",
    )


def test_a_configured_origin_is_accepted_behind_a_proxy(make_client: Any) -> None:
    # TLS ends at a proxy that does not say so: the request looks like http://nimmt.example.org.
    client = make_client(allowed_hosts=[], allowed_origins=["https://nimmt.example.org"])
    client.base_url = "http://nimmt.example.org"
    _profile, secret = make_profile(client)
    options = client.post("/api/profile/passkeys/register/options", headers=auth(secret))
    assert options.status_code == 200, options.text
    key = SoftAuthenticator()
    credential = key.register(options.json()["options"], "https://nimmt.example.org")
    answer = client.post(
        "/api/profile/passkeys/register", json={"credential": credential}, headers=auth(secret)
    )
    assert answer.status_code == 201, answer.text


def test_too_many_attempts_from_one_address(make_client: Any) -> None:
    client = secure_client(make_client)
    for _ in range(30):
        assert client.post("/api/profile/passkeys/signin/options").status_code == 200
    answer = client.post("/api/profile/passkeys/signin/options")
    refused(answer, 429, "too_many_attempts")
    assert int(answer.headers["Retry-After"]) >= 1


def test_deleting_the_profile_deletes_its_passkeys(make_client: Any, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'nimmt.db'}"
    client = secure_client(make_client, storage=SqlStorage(url))
    _profile, secret = make_profile(client)
    key = SoftAuthenticator()
    add_passkey(client, secret, key)
    client.post("/api/profile/passkeys/register/options", headers=auth(secret))  # pending
    engine = create_engine(url)
    with engine.connect() as connection:
        assert connection.execute(text("select count(*) from passkeys")).scalar() == 1
        pending = "select count(*) from passkey_challenges where profile_id is not null"
        assert connection.execute(text(pending)).scalar() == 1
    options = sign_in_options(client)
    assert client.delete("/api/profile", headers=auth(secret)).status_code == 200
    with engine.connect() as connection:
        assert connection.execute(text("select count(*) from passkeys")).scalar() == 0
        assert connection.execute(text(pending)).scalar() == 0
    engine.dispose()
    refused(sign_in(client, key.sign_in(options, ORIGIN)), 404, "unknown_credential")


def test_deleting_the_profile_deletes_its_passkeys_in_memory_too(make_client: Any) -> None:
    client = secure_client(make_client)
    _profile, secret = make_profile(client)
    key = SoftAuthenticator()
    add_passkey(client, secret, key)
    assert client.delete("/api/profile", headers=auth(secret)).status_code == 200
    refused(
        sign_in(client, key.sign_in(sign_in_options(client), ORIGIN)), 404, "unknown_credential"
    )


def test_a_ceremony_begun_at_one_process_ends_at_another(make_client: Any, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'nimmt.db'}"
    first = secure_client(make_client, storage=SqlStorage(url))
    second = secure_client(make_client, storage=SqlStorage(url))
    _profile, secret = make_profile(first)
    key = SoftAuthenticator()
    options = first.post("/api/profile/passkeys/register/options", headers=auth(secret)).json()
    answer = second.post(
        "/api/profile/passkeys/register",
        json={"credential": key.register(options["options"], ORIGIN)},
        headers=auth(secret),
    )
    assert answer.status_code == 201, answer.text
    credential = key.sign_in(sign_in_options(second), ORIGIN)
    assert sign_in(first, credential).status_code == 200
    refused(sign_in(second, credential), 400, "bad_challenge")  # used up at the other process


FIELDS = ("id", "rawId", "type", "response", "clientExtensionResults")
RESPONSE_FIELDS = (
    "clientDataJSON",
    "attestationObject",
    "authenticatorData",
    "signature",
    "userHandle",
    "transports",
)
JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.text(max_size=40),
    st.binary(max_size=80).map(b64),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
    st.fixed_dictionaries({"challenge": st.text(max_size=10), "origin": st.just(ORIGIN)}).map(
        lambda data: b64(json.dumps(data).encode())
    ),
)


def test_a_mangled_answer_is_refused_with_a_code_never_a_crash(make_client: Any) -> None:
    client = secure_client(make_client)
    service_of(client).profiles.passkeys.attempts = CreationQuota(10**9, 60.0)
    _profile, secret = make_profile(client)
    key = SoftAuthenticator()
    add_passkey(client, secret, key)

    @given(data=st.data())
    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    def attempt(data: st.DataObject) -> None:
        if data.draw(st.booleans(), label="register"):
            options = client.post("/api/profile/passkeys/register/options", headers=auth(secret))
            credential = SoftAuthenticator().register(options.json()["options"], ORIGIN)
            path, headers = "/api/profile/passkeys/register", auth(secret)
        else:
            credential = key.sign_in(sign_in_options(client), ORIGIN)
            path, headers = "/api/profile/passkeys/signin", {}
        for _ in range(data.draw(st.integers(1, 3), label="changes")):
            if data.draw(st.booleans(), label="in response"):
                field = data.draw(st.sampled_from(RESPONSE_FIELDS))
                credential["response"][field] = data.draw(JUNK)
            else:
                field = data.draw(st.sampled_from(FIELDS))
                credential[field] = data.draw(JUNK)
                if field == "response" and not isinstance(credential[field], dict):
                    break
        answer = client.post(path, json={"credential": credential}, headers=headers)
        assert answer.status_code < 500, answer.text
        if answer.status_code >= 400:
            assert answer.json()["error"]["code"] in REFUSALS, answer.text
        elif answer.status_code == 201:  # the change did not matter: undo what it made
            made = answer.json()["passkey"]["id"]
            assert client.delete(f"/api/profile/passkeys/{made}", headers=auth(secret)).is_success
        else:
            signed = auth(answer.json()["secret"])
            devices = client.get("/api/profile", headers=signed).json()["devices"]
            device = next(device["id"] for device in devices if device["current"])
            assert client.delete(f"/api/profile/devices/{device}", headers=signed).is_success

    attempt()


REFUSALS = {
    "bad_challenge",
    "wrong_origin",
    "verification_failed",
    "unknown_credential",
    "bad_sign_count",
    "passkey_exists",
    "bad_request",
}
