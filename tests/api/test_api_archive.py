"""A club's archive: GET /clubs/{club}/archive and `nj-ledger club export`, checked offline by `nj-ledger archive
verify` (every chain, every signature, the audit of every game, the digest), which names the first thing wrong in
an archive cut short, altered in one byte, or signed by a key it does not believe."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from test_api_evenings import create, decide, play, start_round

from cli.commands import main
from nj_ledger.archive import archive_digest, verify_archive
from nj_ledger.receipts import Signer, b64url
from nj_ledger.store import Store
from nj_ledger.store.documents import import_document
from support.http import Calls, Club

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dimanche-chez-jeanne.json"


@pytest.fixture
def archived(calls: Calls, club: Club, store: Store) -> dict[str, Any]:
    return archived_club(calls, club, store)


def archived_club(calls: Calls, club: Club, store: Store) -> dict[str, Any]:
    """A club with an example game, a game being played and an evening with a round played and a mend, a season;
    its archive."""
    import_document(store.games, club.id, json.loads(EXAMPLE.read_text(encoding="utf-8")))
    playing = calls.game(club, ["Sylvie", "Ana", "Ben"])["id"]
    assert calls.act(club, playing, {"type": "deal"}).status_code == 201
    evening = create(calls, club)["id"]
    game = start_round(calls, club, evening)["rounds"][0]["tables"][0]["game"]
    play(calls, club.auth, game, seed=3)
    decide(calls, club, evening, type="adjustment", player="Ana", amount=5, reason="retard")
    calls.read("POST", f"/api/v1/clubs/{club.id}/seasons", {"name": "Hiver", "from": "2026-11-01", "to": "2027-02-28"},
               club=club, status=201)
    return dict(calls.read("GET", f"/api/v1/clubs/{club.id}/archive", club=club, status=200))


def verify(database_url: str, *arguments: str, language: str = "C") -> Result:
    return CliRunner().invoke(main, ["archive", "verify", *arguments],
                              env={"NJ_LEDGER_DATABASE_URL": database_url, "LANG": language})


def test_an_archive_holds_the_whole_club_and_verifies_offline(archived: dict[str, Any], club: Club) -> None:
    assert archived["format"] == "nj-ledger/club-archive" and archived["club"]["id"] == club.id
    assert {m["name"] for m in archived["members"]} >= {"Sylvie", "Ana", "Ben", "Jeanne"}
    assert archived["seasons"] == [{"name": "Hiver", "starts_on": "2026-11-01", "ends_on": "2027-02-28",
                                    "qualifying_evenings": 0, "best_evenings": None}]
    assert len(archived["games"]) == 5 and len(archived["evenings"]) == 1  # the example, one playing, 3 tables
    assert all(game["receipt"] and game["njn"].startswith("[") for game in archived["games"])
    assert archived["evenings"][0]["receipt"]["version"] == archived["evenings"][0]["entries"][-1]["seq"]
    report = verify_archive(archived)
    assert report.ok, report.problems
    assert (report.games, report.evenings) == (5, 1) and report.events > 300
    assert report.keys == [key["id"] for key in archived["keys"]]


def test_a_viewer_never_gets_the_archive_another_club_finds_nothing(calls: Calls, club: Club, problem) -> None:
    url = f"/api/v1/clubs/{club.id}/archive"
    problem(calls.get(url, club=calls.token(club, "viewer")), 403, "forbidden")
    problem(calls.get(url, club=calls.club("Le Nain du Vendredi")), 404, "not-found")


def test_verify_names_the_first_thing_wrong(archived: dict[str, Any], database_url: str, tmp_path: Path) -> None:
    def written(archive: dict[str, Any] | str, name: str) -> str:
        path = tmp_path / name
        path.write_text(archive if isinstance(archive, str) else json.dumps(archive), encoding="utf-8")
        return str(path)

    sound = verify(database_url, written(archived, "club.json"))
    assert sound.exit_code == 0 and "club.json: ok — 5 games" in sound.output, sound.output

    text = json.dumps(archived)
    cut = verify(database_url, written(text[: len(text) // 2], "cut.json"))
    assert cut.exit_code == 1 and "is cut short or is not JSON" in cut.output

    at = max(range(len(archived["games"])), key=lambda index: len(archived["games"][index]["document"]["events"]))
    game = archived["games"][at]
    seq = game["document"]["events"][3]["seq"]
    altered = json.loads(text)
    altered["games"][at]["document"]["events"][3]["recorded_at"] = "2026-01-01T00:00:00.000000Z"  # one stamp
    said = verify(database_url, written(altered, "altered.json"))
    assert said.exit_code == 1
    assert f"FAILED — the first thing wrong: chain-broken: Game {game['id']}: event {seq}" in said.output, said.output

    renamed = json.loads(text)
    renamed["members"][0]["name"] = renamed["members"][0]["name"] + "e"  # one byte more, in no chain
    said = verify(database_url, written(renamed, "renamed.json"), language="fr_FR.UTF-8")
    assert said.exit_code == 1 and "ÉCHEC — la première chose fausse\u00a0: digest-differs" in said.output

    forged = json.loads(text)  # changed, then signed again by a key the club's server never had
    forged["members"][0]["name"] = "Quelqu'un"
    forger = Signer.generate()
    forged["digest"] = archive_digest(forged)
    forged["receipt"] = forger.sign_archive(forged["club"]["id"], 1, forged["digest"], "2026-11-28T00:00:00Z")
    said = verify(database_url, written(forged, "forged.json"))
    assert said.exit_code == 1 and f"archive-unsigned: The archive is not signed by a key believed (its receipt " \
        f"names key {forger.id})" in said.output
    # The forger's key put among the archive's own: only the keys the checker kept from the club's server tell.
    forged["keys"].append({"id": forger.id, "algorithm": "Ed25519", "public_key": b64url(forger.public_key),
                           "created": "2026-11-28T00:00:00Z"})
    forged["digest"] = archive_digest(forged)
    forged["receipt"] = forger.sign_archive(forged["club"]["id"], 1, forged["digest"], "2026-11-28T00:00:00Z")
    believed = verify(database_url, written(forged, "forged.json"))
    assert believed.exit_code == 0 and forger.id in believed.output.splitlines()[0]
    keys = written({"keys": archived["keys"]}, "keys.json")
    kept = verify(database_url, written(forged, "forged.json"), "--keys", keys)
    assert kept.exit_code == 1 and f"archive-unsigned: The archive is not signed by a key believed (its receipt " \
        f"names key {forger.id})" in kept.output and forger.id not in kept.output.splitlines()[0]


def test_any_damage_is_named_never_raised(archived: dict[str, Any]) -> None:
    """Whatever part is missing or of another kind, the check answers with a problem and never fails itself."""
    odd: list[Any] = [None, 0, "x", [], {}, [None], [{}], {"id": 1}, [{"id": "g", "document": {"events": [{}]}}]]
    for name in list(archived):
        for value in odd:
            if value == archived[name]:  # a club with no erasure: its list is empty already
                continue
            damaged = {**archived, name: value}
            report = verify_archive(damaged)
            assert not report.ok and report.problems[0].code, (name, value)
        report = verify_archive({k: v for k, v in archived.items() if k != name})
        assert not report.ok, name
    for value in odd[1:]:
        games = [value, *archived["games"][1:]]
        assert not verify_archive({**archived, "games": games}).ok
        evenings = [{"id": "e", "entries": [value]}]
        assert not verify_archive({**archived, "evenings": evenings}).ok
        receipt = {**archived["games"][0], "receipt": value}
        assert not verify_archive({**archived, "games": [receipt, *archived["games"][1:]]}).ok
    swapped = {**archived["games"][0], "receipt": archived["evenings"][0]["receipt"]}  # signed, of another log
    assert verify_archive({**archived, "games": [swapped, *archived["games"][1:]]}).problems[0].code == (
        "receipt-invalid")
    lone = json.loads(json.dumps(archived).replace('"Ana"', '"\\ud800na"', 1))  # a lone surrogate, read from JSON
    assert not verify_archive(lone).ok
    assert verify_archive({**archived, "version": 2}).problems[0].code == "archive-version"
    assert verify_archive([archived]).problems[0].code == "not-an-archive"
