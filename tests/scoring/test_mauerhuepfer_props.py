"""Invariants of the Mauerhuepfer referee on random positions (hypothesis, derandomized)."""

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.labels import PAWN_COLOURS
from scoring.mauerhuepfer import (
    Position,
    apply_move,
    board_from_dict,
    check_move,
    is_home,
    legal_moves,
    load_board,
)
from scoring.mauerhuepfer.board import SerpentineSettings, serpentine_board

DEFAULT = load_board()
# A small asymmetric board: 3 rows of 5, walls with several numbers, goal on field 9.
SMALL = board_from_dict(serpentine_board(
    SerpentineSettings(rows=3, cols=5),
    {(0, 0, 1): 2, (0, 1, 1): 3, (1, 1, -1): 3, (1, 2, 1): 6, (2, 3, -1): 1, (1, 3, 1): 4},
    ["9"], {"red": "1", "yellow": "15", "green": "5", "black": "11"}))
# The same small board as a loop (the last field is followed by the first).
LOOP = board_from_dict({**SMALL.to_dict(), "closed": True, "name": "small loop"})
BOARDS = [DEFAULT, SMALL, LOOP]

PROPS = settings(max_examples=150, derandomize=True, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow])


@st.composite
def positions(draw, board):
    """A rules-possible position: up to 4 pawns per colour, at most one pawn per field."""
    ids = [f.id for f in board.fields]
    colours = [c.colour for c in board.colours]
    n_track = draw(st.integers(0, min(len(ids), 12)))
    fields = draw(st.lists(st.sampled_from(ids), min_size=n_track, max_size=n_track,
                           unique=True))
    pawns = []
    per = Counter()
    for f in fields:
        c = draw(st.sampled_from(colours))
        if per[c] < 4:
            per[c] += 1
            pawns.append((c, f))
    for c in colours:
        for _ in range(draw(st.integers(0, 4 - per[c]))):
            pawns.append((c, draw(st.sampled_from(["B", "B", "a", "goal"]))))
    # at most three home per colour so the game is still on
    fixed, home = [], Counter()
    for c, p in pawns:
        if is_home(p):
            home[c] += 1
            p = p if home[c] < 4 else "B"
        fixed.append((c, p))
    return Position(tuple(fixed))


dice = st.tuples(st.integers(1, 6), st.integers(1, 6)).map(lambda d: tuple(sorted(d)))


@st.composite
def cases(draw):
    board = draw(st.sampled_from(BOARDS))
    pos = draw(positions(board))
    colour = draw(st.sampled_from([c.colour for c in board.colours]))
    return board, pos, colour, draw(dice)


def _track(position):
    return [p for _, p in position.pawns if p != "B" and not is_home(p)]


@PROPS
@given(cases())
def test_moves_keep_one_pawn_per_field_and_never_beat_own(case):
    board, pos, colour, roll = case
    before = pos.occupancy()
    for m in legal_moves(board, pos, colour, roll):
        after = apply_move(pos, m)
        track = _track(after)
        assert len(track) == len(set(track)), m.text()  # never two pawns on one field
        for lab, f in m.beaten:
            assert lab != f"pawn-{colour}"  # never beats an own pawn
            assert before[f] == lab[len("pawn-"):]
        end_owner = before.get(m.to)
        assert end_owner != colour or m.to == m.start
        # pawn counts per colour never change; beaten pawns are back in B
        for c in PAWN_COLOURS:
            assert len(after.places(c)) == len(pos.places(c))
        assert after.home(colour) == pos.home(colour) + (1 if m.home else 0)


@PROPS
@given(cases())
def test_every_move_uses_both_dice_exactly(case):
    board, pos, colour, roll = case
    for m in legal_moves(board, pos, colour, roll):
        assert sorted(g.die for g in m.legs) == sorted(roll)
        cur = m.start
        for g in m.legs:
            if g.kind == "jump":
                jumps = {(j.to, j.number) for j in board.field(cur).jumps}
                assert (g.to, g.die) in jumps
            elif g.kind == "enter":
                assert cur == "B" and g.path[0] == board.start_field(colour)
                assert len(g.path) == g.die
            else:
                assert len(g.path) == g.die
                step = 1 if g.direction == "forward" else -1
                idx = [board.index(cur)] + [board.index(f) for f in g.path]
                n = len(board.fields)
                diffs = [(b - a) % n if board.closed else b - a
                         for a, b in zip(idx, idx[1:], strict=False)]
                assert all(d == step % n if board.closed else d == step for d in diffs)
            cur = g.to
        assert m.home == (m.to in board.goal_fields)


@PROPS
@given(cases())
def test_check_move_agrees_with_legal_moves(case):
    board, pos, colour, roll = case
    moves = legal_moves(board, pos, colour, roll)
    reachable = {(m.start, m.to) for m in moves}
    for start in {m.start for m in moves}:
        for f in board.fields[:: max(1, len(board.fields) // 15)]:
            v = check_move(board, pos, colour, roll, {"from": start, "to": f.id})
            assert v.ok == ((start, f.id) in reachable), v.reason
            assert v.reason


def _flip(direction):
    return {"forward": "backward", "backward": "forward"}.get(direction, direction)


@PROPS
@given(cases())
def test_reversing_the_track_swaps_forward_and_backward(case):
    board, pos, colour, roll = case
    plain = {(m.start, m.to, tuple((g.die, g.kind, g.direction) for g in m.legs), m.beaten)
             for m in legal_moves(board, pos, colour, roll)}
    rev = {(m.start, m.to, tuple((g.die, g.kind, _flip(g.direction)) for g in m.legs), m.beaten)
           for m in legal_moves(board.reversed(), pos, colour, roll)}
    assert plain == rev


def test_default_board_is_mirror_symmetric_and_small_board_is_not():
    assert DEFAULT.mirror_map() is not None
    assert SMALL.mirror_map() is None
    assert LOOP.closed and LOOP.walk("15", 1, 2) == ("1", "2")


@PROPS
@given(positions(DEFAULT), st.sampled_from(PAWN_COLOURS), dice)
def test_legal_moves_mirror_on_the_symmetric_default_board(pos, colour, roll):
    fmap, cmap = DEFAULT.mirror_map()
    mirrored = Position(tuple((cmap[c], fmap.get(p, p)) for c, p in pos.pawns))

    def norm(moves, f=lambda x: x, flip=lambda d: d, lab=lambda x: x):
        return {(f(m.start), f(m.to), tuple((g.die, g.kind, flip(g.direction)) for g in m.legs),
                 frozenset((lab(b), f(x)) for b, x in m.beaten), m.home) for m in moves}

    ours = legal_moves(DEFAULT, pos, colour, roll)
    theirs = legal_moves(DEFAULT, mirrored, cmap[colour], roll)
    assert norm(ours, f=lambda x: fmap.get(x, x), flip=_flip,
                lab=lambda b: "pawn-" + cmap[b[len("pawn-"):]]) == norm(theirs)
