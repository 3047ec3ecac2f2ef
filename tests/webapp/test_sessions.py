"""Game sessions over HTTP: creation, every game's actions, undo, conflicts, deletion, and a
server restart that keeps a Simsala Hopp tournament."""

import threading

import pytest

from tests.webapp.conftest import error_code
from webapp import create_app

YOB = [{"name": "Ann", "colour": "yellow"}, {"name": "Olli", "colour": "orange"},
       {"name": "Ben", "colour": "blue"}]


def arena(**counts):
    """Simsala Hopp facts: counts in the arena by short name (white=2, blue=1, frog=3)."""
    labels = {k: (f"rabbit-{k}" if k not in ("frog", "cat") else k) for k in counts}
    return {"arena": {labels[k]: n for k, n in counts.items()}, "outside": {}}


@pytest.mark.parametrize(
    "game, players, options",
    [
        ("simsala-hopp", YOB, {"level": "1"}),
        ("magic-rabbit", [{"name": "A"}, {"name": "B"}], {}),
        ("hop-la-bille", [{"colour": "north"}, {"colour": "south"}], {"variant": "pile"}),
        ("mauerhuepfer", [{"colour": "red"}, {"colour": "green"}], {}),
        ("troetofanten", [{"colour": "north"}, {"colour": "east"}, {"colour": "west"}], {}),
    ],
)
def test_create_get_list_delete(client, new_session, game, players, options):
    s = new_session(game, players, options)
    assert s["game"] == game and s["version"] == 1 and s["view"] is not None
    assert s["options"] == options
    got = client.get(f"/api/sessions/{s['id']}").get_json()
    assert got["id"] == s["id"] and got["players"] == s["players"]
    listed = client.get("/api/sessions").get_json()["sessions"]
    assert [x["id"] for x in listed] == [s["id"]]
    assert client.delete(f"/api/sessions/{s['id']}").get_json() == {"deleted": s["id"]}
    res = client.get(f"/api/sessions/{s['id']}")
    assert res.status_code == 404 and error_code(res) == "no_such_session"


def test_players_sorted_in_seating_order_and_named(new_session):
    s = new_session("simsala-hopp", [{"colour": "blue"}, {"name": "  Ann  ", "colour": "yellow"}])
    # The castle walls go yellow, orange, blue, violet: that is the seating order.
    assert s["players"] == [{"name": "Ann", "colour": "yellow"}, {"name": "Blue", "colour": "blue"}]


@pytest.mark.parametrize(
    "body, code",
    [
        ({"game": "simsala-hopp", "players": YOB[:1]}, "bad_input"),  # 1 player: too few
        ({"game": "simsala-hopp", "players": YOB + YOB[:1] + YOB[:1]}, "bad_input"),  # 5
        ({"game": "simsala-hopp", "players": [YOB[0], YOB[0]]}, "bad_input"),  # same colour
        ({"game": "simsala-hopp", "players": [YOB[0], {"colour": "red"}]}, "bad_input"),
        ({"game": "simsala-hopp", "players": "Ann,Ben"}, "bad_input"),
        ({"game": "simsala-hopp", "players": YOB, "options": {"level": "7"}}, "bad_option"),
        ({"game": "simsala-hopp", "players": YOB, "options": {"variant": "pile"}}, "bad_option"),
        ({"game": "poker", "players": YOB}, "unknown_game"),
        ({"players": YOB}, "unknown_game"),
    ],
)
def test_create_bad_input(client, body, code):
    res = client.post("/api/sessions", json=body)
    assert res.status_code == 400
    assert error_code(res) == code


def test_unknown_action_and_missing_session(client, new_session, act):
    s = new_session("troetofanten", [{"colour": "north"}, {"colour": "south"}])
    status, body = act(s["id"], {"type": "fly"})
    assert status == 400 and body["error"]["code"] == "bad_input"
    status, body = act(s["id"], {"no": "type"})
    assert status == 400
    status, body = act("missing", {"type": "undo"})
    assert status == 404
    status, body = act(s["id"], {"type": "undo"})  # nothing to undo yet
    assert status == 400 and body["error"]["code"] == "rule_violation"


def play_turn(act, sid, facts, spectators_pass=True):
    status, s = act(sid, {"type": "turn", "facts": facts})
    assert status == 200, s
    while s["view"]["phase"] == "lazy_spell":
        status, s = act(sid, {"type": "pass", "player": s["view"]["current_spectator"]})
        assert status == 200, s
    assert s["view"]["phase"] == "count"
    status, s = act(sid, {"type": "count_points"})
    assert status == 200, s
    return s


def test_simsala_tournament_round_and_restart(data_dir, client, new_session, act):
    s = new_session("simsala-hopp", YOB)
    sid = s["id"]
    status, s = act(sid, {"type": "first-magician", "colour": "orange"})
    assert status == 200 and s["view"]["magician"] == "orange"
    assert s["score_options"] == {"magician": "orange", "players": "yellow,orange,blue",
                                  "level": "0"}
    # Turn 1: Olli (orange) is magician, 2 white + 1 orange + 1 blue rabbit, frogs left.
    status, s = act(sid, {"type": "turn", "facts": arena(white=2, orange=1, blue=1, frog=11)})
    assert s["view"]["phase"] == "lazy_spell"
    assert s["view"]["lazy_order"] == ["blue", "yellow"]  # clockwise from the magician's left
    assert s["view"]["turn_score"]["points"] == {"yellow": 0, "orange": 3, "blue": 1}
    # Ben turns a frog: a blue rabbit (his second). Ann passes.
    status, s = act(sid, {"type": "lazy_spell", "player": "blue", "result": "rabbit-blue"})
    assert status == 200, s
    status, body = act(sid, {"type": "lazy_spell", "player": "blue", "result": "rabbit-blue"})
    assert status == 400 and body["error"]["code"] == "rule_violation"  # not Ben's turn now
    status, s = act(sid, {"type": "pass", "player": "yellow"})
    assert s["view"]["phase"] == "count"
    status, s = act(sid, {"type": "count_points"})
    assert s["view"]["bats"] == {"yellow": 0, "orange": 3, "blue": 2}
    assert s["view"]["magician"] == "blue"
    # A first magician cannot be changed once the tournament runs.
    status, body = act(sid, {"type": "first-magician", "colour": "yellow"})
    assert status == 400

    # The server restarts: a new app on the same data folder sees the same tournament.
    client2 = create_app({"TESTING": True, "DATA_DIR": str(data_dir)}).test_client()
    again = client2.get(f"/api/sessions/{sid}").get_json()
    assert again["view"]["bats"] == s["view"]["bats"]
    assert again["view"]["magician"] == "blue" and again["version"] == s["version"]
    res = client2.post(f"/api/sessions/{sid}/actions",
                       json={"type": "turn", "facts": arena(white=1, blue=2, frog=12)})
    assert res.status_code == 200
    assert res.get_json()["view"]["phase"] == "lazy_spell"


def test_simsala_tournament_to_a_winner_with_decision_tap(new_session, act):
    s = new_session("simsala-hopp", [YOB[0], YOB[2]])  # 2 players: 3 cups win
    sid = s["id"]
    tie = arena(white=1, frog=14)  # every magician scores 1: each round is a tie
    for _ in range(3):
        for _ in range(2):
            s = play_turn(act, sid, tie)
    assert s["view"]["cups"] == {"yellow": 3, "blue": 3}
    assert s["view"]["phase"] == "decision_tap"
    assert s["view"]["contenders"] == ["yellow", "blue"]
    status, body = act(sid, {"type": "turn", "facts": tie})
    assert status == 400  # no normal turns during the tie-break
    status, s = act(sid, {"type": "tap", "facts": arena(white=2, frog=13)})
    assert s["view"]["current_tapper"] == "blue"
    status, s = act(sid, {"type": "tap", "facts": arena(white=1, blue=2, frog=12)})
    assert s["view"]["phase"] == "finished" and s["view"]["winner"] == "blue"
    # Undo brings back the last tap.
    status, s = act(sid, {"type": "undo"})
    assert s["view"]["phase"] == "decision_tap" and s["view"]["current_tapper"] == "blue"


def test_simsala_foul_tap_eliminates(new_session, act):
    s = new_session("simsala-hopp", [YOB[0], YOB[2]])
    for _ in range(6):
        s = play_turn(act, s["id"], arena(white=1, frog=14))
    status, s = act(s["id"], {"type": "tap", "foul": True})
    assert s["view"]["winner"] == "blue"


def test_magic_rabbit_hourglass_and_reveal(new_session, act):
    s = new_session("magic-rabbit", [{"name": "A"}, {"name": "B"}])
    assert s["view"]["hourglass_remaining_s"] is None
    status, s = act(s["id"], {"type": "start-hourglass"})
    assert 149 <= s["view"]["hourglass_remaining_s"] <= 150
    line = [{"hat": n, "rabbit": n, "dove": False} for n in range(1, 10)]
    line[3], line[4] = line[4], line[3]  # hats 4 and 5 swapped with their rabbits
    status, s = act(s["id"], {"type": "reveal", "facts": {"line": line}})
    assert s["view"]["reveal"]["score"]["won"] is False
    assert s["view"]["reveal"]["score"]["wrong_positions"] == [3, 4]
    assert (s["view"]["played"], s["view"]["won"]) == (1, 0)
    assert s["view"]["hourglass_remaining_s"] is None  # stopped at the reveal
    # Two players play with 4 doves: the session passes the player count to the scorer.
    assert s["score_options"] == {"players": "2"}


def test_hop_la_bille_check_and_return_cards(new_session, act):
    s = new_session("hop-la-bille", [{"name": "N", "colour": "north"}, {"colour": "south"}],
                    {"variant": "pile"})
    facts = {"zones": {"north": {"marble-red": 2, "marble-green": 1}},
             "cards": {"north": [{"colour": "green",
                                  "marbles": ["marble-red", "marble-red", "marble-green"]}],
                       "south": [{"colour": "red", "marbles": ["marble-red"] * 3
                                 + ["marble-yellow"] * 2}]}}
    status, s = act(s["id"], {"type": "check", "facts": facts})
    assert status == 200, s
    assert s["view"]["last"]["score"]["completed"]["north"] == [0]
    status, body = act(s["id"], {"type": "return", "zone": "south", "index": 0})
    assert status == 400  # south's card is not complete
    status, s = act(s["id"], {"type": "return", "zone": "north", "index": 0})
    status, s = act(s["id"], {"type": "return-card", "zone": "south", "colour": "red"})
    rows = {r["colour"]: r for r in s["view"]["players"]}
    assert rows["north"]["marbles"] == 3 and rows["south"]["marbles"] == 5
    assert s["view"]["players"][0]["colour"] == "south"  # pile: most marbles first


def test_mauerhuepfer_check(new_session, act):
    s = new_session("mauerhuepfer", [{"colour": "red"}, {"colour": "green"}])
    facts = {"dice": [3, 4], "pawns": {"pawn-red": 4},
             "positions": {"pawn-red": ["a", "b", "c", "d"]}}
    status, s = act(s["id"], {"type": "check", "facts": facts})
    assert s["view"]["last"]["score"]["winner"] == "red"


def test_troetofanten_rounds_to_the_target(new_session, act):
    s = new_session("troetofanten", [{"name": "Nia", "colour": "north"}, {"colour": "south"}])
    assert s["view"]["target"] == 100
    status, s = act(s["id"], {"type": "round",
                              "facts": {"zones": {"north": {"elephant-1": 16, "elephant-2": 12,
                                                            "elephant-3": 12, "back": 2},
                                                  "south": {"elephant-4": 10}}}})
    assert s["view"]["totals"] == {"north": 38, "south": 10}
    status, s = act(s["id"], {"type": "round", "points": {"north": 70, "south": 5}})
    assert s["view"]["totals"] == {"north": 108, "south": 15}
    assert s["view"]["winner"] == "Nia"
    status, body = act(s["id"], {"type": "round", "points": {"north": "lots"}})
    assert status == 400


def test_version_conflict_is_409(new_session, act):
    s = new_session("troetofanten", [{"colour": "north"}, {"colour": "south"}])
    status, s2 = act(s["id"], {"type": "round", "points": {"north": 1}, "version": 1})
    assert status == 200 and s2["version"] == 2
    # A second phone still showing version 1 must not overwrite that round.
    status, body = act(s["id"], {"type": "round", "points": {"north": 5}, "version": 1})
    assert status == 409 and body["error"]["code"] == "conflict"
    status, body = act(s["id"], {"type": "round", "points": {}, "version": "one"})
    assert status == 400


def test_failed_action_changes_nothing(client, new_session, act):
    s = new_session("simsala-hopp", YOB)
    status, body = act(s["id"], {"type": "turn", "facts": {"arena": {"frog": 99}}})
    assert status == 400
    after = client.get(f"/api/sessions/{s['id']}").get_json()
    assert after["version"] == s["version"] and after["view"] == s["view"]


def test_concurrent_phones_lose_no_round(app, new_session):
    # Several tables / phones write at once: every round is kept (BEGIN IMMEDIATE).
    s = new_session("troetofanten", [{"colour": "north"}, {"colour": "south"}])
    other = app.test_client().post("/api/sessions", json={
        "game": "troetofanten", "players": [{"colour": "east"}, {"colour": "west"}]}).get_json()
    errors = []

    def worker(sid, side):
        c = app.test_client()
        for _ in range(10):
            r = c.post(f"/api/sessions/{sid}/actions", json={"type": "round",
                                                            "points": {side: 1}})
            if r.status_code != 200:
                errors.append(r.get_json())

    threads = [threading.Thread(target=worker, args=(sid, side))
               for sid, side in [(s["id"], "north"), (s["id"], "south"),
                                 (other["id"], "east"), (other["id"], "west")]]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    c = app.test_client()
    assert c.get(f"/api/sessions/{s['id']}").get_json()["view"]["totals"] == {
        "north": 10, "south": 10}
    assert c.get(f"/api/sessions/{other['id']}").get_json()["view"]["totals"] == {
        "east": 10, "west": 10}


def test_hop_la_bille_pile_short_first_to_11(new_session, act):
    s = new_session("hop-la-bille", [{"name": "Nora", "colour": "north"},
                                     {"name": "Sam", "colour": "south"}],
                    {"variant": "pile-short"})
    for colour in ("red", "blue"):  # 5 + 4 = 9 marbles: not yet
        status, s = act(s["id"], {"type": "return-card", "zone": "south", "colour": colour})
    assert s["view"]["winner"] is None
    status, s = act(s["id"], {"type": "return-card", "zone": "south", "colour": "green"})
    assert s["view"]["winner"] == "Sam"  # 12 marbles


def test_troetofanten_five_to_eight_players_play_to_50(new_session, act):
    players = [{"colour": c} for c in ("north", "east", "south", "west", "seat-5", "seat-6")]
    s = new_session("troetofanten", players)
    assert s["view"]["target"] == 50
    status, s = act(s["id"], {"type": "round", "points": {"seat-6": 51}})
    assert s["view"]["winner"] == "Seat-6"
    # A photo scores the four sides; seat 5's points are typed in beside it.
    status, s = act(s["id"], {"type": "round", "facts": {"zones": {"north": {"elephant-1": 2}}},
                              "points": {"seat-5": 4, "north": 99}})
    assert s["view"]["rounds"][-1]["points"]["north"] == 2
    assert s["view"]["rounds"][-1]["points"]["seat-5"] == 4
