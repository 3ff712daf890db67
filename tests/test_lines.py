"""Reading batch input (solver.workloads.lines): every format the tools write, the header,
bounded memory for long lines, and one bad line being one bad line."""

from __future__ import annotations

import io

import pytest

from solver.core.board import Board, BoardError, goal_board
from solver.workloads import lines
from solver.workloads.lines import LineError, Reader, chunks, problem


def read(text: str | bytes, reader: Reader | None = None, line: int = 1):
    raw = text.encode() if isinstance(text, str) else text
    r = reader or Reader()
    if not r.started:
        r.start(raw, line)
    return r.read(raw, line)


@pytest.mark.parametrize(
    "text",
    [
        "8 6 7 2 5 4 3 0 1",
        "8,6,7,2,5,4,3,0,1",
        "8 6 7/2 5 4/3 0 1",
        "[[8,6,7],[2,5,4],[3,0,1]]",
        "[8,6,7,2,5,4,3,0,1]",
        '{"board": "8 6 7 2 5 4 3 0 1"}',
        '{"start": [8,6,7,2,5,4,3,0,1]}',
        '{"input": "8 6 7/2 5 4/3 0 1", "error": "was bad once"}',
        "8 6 7/2 5 4/3 0 1\t31",
        '"8 6 7/2 5 4/3 0 1",31',
        "8 6 7 2 5 4 3 0 1,extra",
        "  8 6 7 2 5 4 3 0 1  \r",
    ],
)
def test_every_format_names_the_same_board(text):
    start, goal = problem(read(text))
    assert start == Board.parse("8 6 7 2 5 4 3 0 1") and goal == goal_board("3x3")


@pytest.mark.parametrize("text", ["", "   ", "# a comment", "  # indented comment"])
def test_lines_that_ask_nothing(text):
    assert read(text) is None


def test_json_line_goal_shape_id_and_the_rest_carried():
    req = read(
        '{"id": 7, "board": [[1,2],[3,0],[4,5]], "goal": "blank-first", '
        '"shape": "3x2", "note": "x", "distance": 3}'
    )
    assert req.id == 7 and req.goal == "blank-first" and req.shape == "3x2"
    assert req.extra == {"goal": "blank-first", "shape": "3x2", "note": "x", "distance": 3}
    start, goal = problem(req)
    assert str(start.shape) == "3x2" and goal == goal_board("3x2", "blank-first")
    # the command line's goal wins over the line's
    assert problem(req, goal="blank-last")[1] == goal_board("3x2")


def test_header_names_the_columns():
    r = Reader()
    header = b"id,board,goal,note"
    r.start(header, 1)
    assert r.read(header, 1) is None
    req = r.read(b'7,"8 6 7 2 5 4 3 0 1",blank-first,hi', 2)
    assert req.id == "7" and req.goal == "blank-first" and req.extra == {"note": "hi"}
    assert problem(req)[1] == goal_board("3x3", "blank-first")


def test_no_header_when_the_first_line_has_digits():
    r = Reader()
    r.start(b"8 6 7/2 5 4/3 0 1\t31", 1)
    assert r.header_line is None and r.columns is None


def test_a_line_that_is_a_board_as_a_whole_is_one():
    # 1,2,3,4,0,5 is a comma-separated board, not a first column "1"
    assert problem(read("1,2,3,4,0,5"))[0] == Board.parse("1 2 3/4 0 5")


@pytest.mark.parametrize(
    "text,words",
    [
        ("1 2 3/4 5 6/7 8 8\t31", "appears twice"),  # the first column was meant as the board
        ("1,2,3,4,5,6,7,8,8", "appears twice"),  # the whole line was
        ("junk", "not a tile number"),
    ],
)
def test_the_error_of_the_part_meant_as_the_board(text, words):
    with pytest.raises(BoardError, match=words):
        problem(read(text))


@pytest.mark.parametrize(
    "raw,words",
    [
        (b"\xff\xfe 1 2 3", "not UTF-8"),
        (b"{", "not valid JSON"),
        (b'{"board": ' + b"[" * 1000 + b"]" * 1000 + b"}", "nested too deeply"),
        (b'{"id": ' + b"1" * 5000 + b', "board": "1 2 3 4 0 5"}', "number too long"),
        (b"[1,2]", None),  # a JSON list is a board (a wrong one): no line error
        (b'{"board": 5}', "must be a string or a list"),
        (b'{"goal": "spiral"}', 'without a "board"'),
        (b'"just a string"', None),
    ],
)
def test_syntax_errors_are_line_errors(raw, words):
    if words is None:
        with pytest.raises(BoardError):
            problem(read(raw))
        return
    with pytest.raises(LineError, match=words):
        read(raw)


@pytest.mark.parametrize(
    "text",
    [
        "1 2 3 4 5 6 7 8 " + "9" * 4301,
        "[" * 1000 + "]" * 1000,
        "[1,2,3,4,5,6,7,8," + "9" * 5000 + "]",
        "1 2 3/4 5 6/7 8 0" + "/" * 70000,
        "٣ 1 2 4 5 6 7 8 0",
        '{"board": "1 2 3 4 5 6 7 8 0", "shape": "3x' + "9" * 5000 + '"}',
        "1 2 3 4 5 6 7 8 0\x00",
    ],
)
def test_hostile_boards_are_one_line_errors(text):
    with pytest.raises(BoardError) as info:
        problem(read(text))
    message = str(info.value)
    assert "\n" not in message and len(message) < 300 and "\x00" not in message


def test_chunks_number_lines_and_refuse_long_ones_in_bounded_memory():
    long = b"7" * 5000
    data = b"a\n" + long + b"\nb\n\nc"  # no final newline
    got = list(chunks(io.BytesIO(data), max_line=1000, size=300))
    numbered = []
    for c in got:
        for i, raw in enumerate(c.lines()):
            numbered.append((c.first + i, raw, c.long.get(i)))
            assert len(raw) <= 1000
    assert [(n, raw) for n, raw, _ in numbered] == [
        (1, b"a"),
        (2, b""),
        (3, b"b"),
        (4, b""),
        (5, b"c"),
    ]
    assert [n for n, _, long in numbered if long] == [2] and numbered[1][2] > 1000


def test_a_long_line_inside_one_chunk_is_refused_too():
    data = b"x\n" + b"8" * 50 + b"\ny\n"
    got = list(chunks(io.BytesIO(data), max_line=10, size=4096))
    assert [(c.first, c.lines(), c.long) for c in got] == [(1, [b"x", b"", b"y"], {1: 50})]


def test_an_answer_names_its_line_and_id_and_carries_the_rest():
    req = read('{"id": "a", "board": "1 2 3 4 0 5", "note": 1, "distance": 99}', line=7)
    rec = lines.merged(lines.answer_fields(req, 7), {"distance": 1}, req)
    assert rec == {"line": 7, "id": "a", "distance": 1, "note": 1}


def test_a_comment_of_tab_separated_names_is_a_header():
    from solver.client.pieces import first_with_content
    from solver.workloads.lines import Chunk

    text = b"# Korf's boards, for the blank-first goal, 1985\n# id\ttiles:blank-first\tlength\n"
    text += b"1\t8 6 7 2 5 4 3 0 1\t31\n"
    head = first_with_content(Chunk(text, 1))
    assert head == (b"# id\ttiles:blank-first\tlength", 2)
    r = Reader()
    r.start(*head)
    assert r.columns == ["id", "tiles:blank-first", "length"]
    req = r.read(b"1\t8 6 7 2 5 4 3 0 1\t31", 3)
    assert req.id == "1" and req.extra == {"length": "31"}
    assert problem(req)[1] == goal_board("3x3", "blank-first")  # the column's own goal
    assert problem(req, goal="blank-last")[1] == goal_board("3x3")  # the command line wins


def test_a_comment_with_commas_is_prose_not_a_header():
    r = Reader()
    r.start(b"# Goal, then the board", 1)
    assert r.columns is None


def test_the_goal_asked_picks_its_column():
    r = Reader()
    r.start(b"# id\ttiles:blank-first\ttiles:blank-last", 1)
    req = r.read(b"1\t0 1 2 3 4 5 6 7 8\t1 2 3 4 5 6 7 8 0", 2)
    assert problem(req) == (goal_board("3x3", "blank-first"),) * 2
    assert problem(req, goal="blank-last") == (goal_board("3x3"),) * 2
    # a goal no column names reads the first board column
    assert problem(req, goal="snake")[0] == goal_board("3x3", "blank-first")


def test_a_line_that_is_not_a_board_names_its_column():
    r = Reader()
    r.start(b"id,board,note", 1)
    with pytest.raises(BoardError, match=r"column 'board' is not a board: tile 99 is out of"):
        problem(r.read(b"7,1 2 3 4 5 6 7 8 99,x", 2))


def test_a_header_without_a_board_column_is_each_line_s_error():
    r = Reader()
    r.start(b"# distance\tstates", 6)
    with pytest.raises(LineError, match="no column is called board or tiles.*line 6 names"):
        r.read(b"3\t10", 7)
