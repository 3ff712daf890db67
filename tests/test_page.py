"""The page in a real headless browser (Debian's chromium driven by selenium and chromedriver):
generate a board of a chosen distance, press solve, watch the tiles reach the goal with the
counter at the optimal length (checked against the exact table); a hint, a move by hand, and a
phone-sized screen.  Skipped, saying why, only when no chromium can be found."""

from __future__ import annotations

import re
import shutil
import tempfile

import pytest

from solver.core.board import Board, Shape, goal_board
from solver.heuristics import manhattan
from solver.tables import exact

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)
WAIT = 20  # seconds for anything the page does


def _why_not() -> str | None:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    if not CHROMIUM or not CHROMEDRIVER:
        return (
            "chromium and chromedriver are not installed "
            "(apt-get install chromium chromium-driver; .ci/run does it)"
        )
    return None


@pytest.fixture(scope="module")
def browser():
    reason = _why_not()
    if reason:
        print(f"\nbrowser test skipped: {reason}")
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="npuzzle-chromium-")
    options.add_argument(f"--user-data-dir={profile}")
    options.add_argument("--window-size=1100,900")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the console, for errors
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(WAIT)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _wait(driver, condition, what, seconds=WAIT):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds, poll_frequency=0.05).until(
        lambda d: condition(d), message=what
    )


def _click_when_uncovered(driver, selector: str) -> None:
    """Click the first element matching ``selector`` once nothing covers it: a move's tile
    slides for a moment, and a click meanwhile can land on the tile passing over it."""
    from selenium.common.exceptions import ElementClickInterceptedException

    def click(d) -> bool:
        try:
            d.find_element("css selector", selector).click()
        except ElementClickInterceptedException:
            return False
        return True

    _wait(driver, click, f"{selector} stayed covered")


def _tiles(driver) -> str:
    return driver.find_element("id", "board").get_attribute("data-tiles")


def _text(driver, element_id) -> str:
    return driver.find_element("id", element_id).text


def _open(browser, live_server):
    browser.get(live_server.url + "/")
    _wait(
        browser,
        lambda d: d.execute_script("return document.body.dataset.ready") == "1",
        "the page never finished loading",
    )


def _type_board(browser, text: str) -> None:
    field = browser.find_element("id", "board-text")
    field.clear()
    field.send_keys(text)
    browser.find_element("id", "use-board").click()


def _console_errors(driver) -> list[str]:
    """What the page's console logged at level SEVERE since the last call (failed loads: a
    404 favicon, a 503 from the server...)."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def _select_shape(driver, shape: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("id", "shape")).select_by_value(shape)


def _generate(browser, distance: int) -> Board:
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element("id", "shape")).select_by_value("3x3")
    field = browser.find_element("id", "difficulty")
    field.clear()
    field.send_keys(str(distance))
    before = _tiles(browser)
    browser.find_element("id", "generate").click()
    _wait(
        browser,
        lambda d: _tiles(d) != before and _text(d, "distance") == str(distance),
        f"no board {distance} moves away appeared",
    )
    return Board.from_tiles(map(int, _tiles(browser).split()), "3x3")


def test_generate_solve_and_watch_the_tiles_reach_the_goal(browser, live_server, service_dir):
    from selenium.webdriver.support.ui import Select

    _open(browser, live_server)
    board = _generate(browser, 14)
    assert exact.distance(board, goal_board("3x3"), data_dir=service_dir) == 14
    assert _text(browser, "solvable") == "yes"
    Select(browser.find_element("id", "speed")).select_by_value("15")
    browser.find_element("id", "solve").click()
    goal = goal_board("3x3").flat()
    _wait(
        browser,
        lambda d: _text(d, "counter") == "14 / 14" and _tiles(d) == goal,
        "the solution did not play to the goal",
    )
    assert _text(browser, "distance") == "0"
    assert len(browser.find_elements("css selector", ".tile.home")) == 8
    _wait(
        browser,
        lambda d: _text(d, "heuristic").startswith("0 "),
        "the heuristic was not asked again for the goal",
    )


def test_hint_and_moving_a_tile_by_hand(browser, live_server, service_dir):
    _open(browser, live_server)
    board = _generate(browser, 10)
    browser.find_element("id", "hint").click()
    _wait(browser, lambda d: "moves left" in _text(d, "hint-text"), "no hint appeared")
    assert "9 moves left" in _text(browser, "hint-text")
    _click_when_uncovered(browser, ".tile.hinted")  # follow the hint: one move closer
    assert not browser.find_elements("css selector", ".tile.hinted")  # the hint is spent
    _wait(browser, lambda d: _text(d, "distance") == "9", "the distance did not update")
    after = Board.from_tiles(map(int, _tiles(browser).split()), "3x3")
    assert exact.distance(after, goal_board("3x3"), data_dir=service_dir) == 9
    assert after != board and _text(browser, "made") == "1"
    # A move away from the goal: the page asks the server again.
    _click_when_uncovered(browser, ".tile.movable")
    _wait(browser, lambda d: _text(d, "distance").isdigit(), "no distance after a move")
    moved = Board.from_tiles(map(int, _tiles(browser).split()), "3x3")
    want = exact.distance(moved, goal_board("3x3"), data_dir=service_dir)
    _wait(
        browser,
        lambda d: _text(d, "distance") == str(want),
        "the distance shown is not the table's",
    )


def test_a_phone_sized_screen_needs_no_sideways_scrolling(browser, live_server):
    browser.set_window_size(390, 844)
    try:
        _open(browser, live_server)
        overflow = browser.execute_script(
            "const right = [...document.querySelectorAll('body *')]"
            "  .map((e) => e.getBoundingClientRect().right);"
            "return Math.max(document.documentElement.scrollWidth, ...right)"
            "  - document.documentElement.clientWidth"
        )
        assert overflow <= 0
        tile = browser.find_element("css selector", ".tile")
        assert tile.size["width"] >= 40  # big enough for a finger
    finally:
        browser.set_window_size(1100, 900)


# --- the page at work ---------------------------------------------------------------------------


def test_the_8_puzzle_shows_its_heuristic_with_no_error_per_move(browser, live_server):
    _open(browser, live_server)
    _console_errors(browser)
    _generate(browser, 12)
    _wait(
        browser,
        lambda d: re.fullmatch(r"12 \(exact table; Manhattan \d+\)", _text(d, "heuristic")),
        "the heuristic is not the exact table's",
    )
    for _ in range(3):  # moves by hand: each asks the server again
        _click_when_uncovered(browser, ".tile.movable")
        _wait(browser, lambda d: _text(d, "distance").isdigit(), "no distance after a move")
        _wait(
            browser,
            lambda d: _text(d, "heuristic").split(" ")[0] == _text(d, "distance"),
            "the heuristic does not follow the moves",
        )
    assert _console_errors(browser) == []  # no 503, no 404 favicon


def test_an_unsolvable_board_says_so(browser, live_server):
    _open(browser, live_server)
    _type_board(browser, "1 2 3/4 5 6/8 7 0")
    _wait(browser, lambda d: _text(d, "distance") == "unsolvable", "the distance did not say so")
    _wait(
        browser,
        lambda d: _text(d, "heuristic") == "– (this board cannot reach the goal)",
        "the heuristic did not say so",
    )
    facts = browser.find_element("css selector", ".facts").text
    assert "undefined" not in facts and _text(browser, "solvable").startswith("no — unsolvable")


def test_5x5_from_the_menu_always_gives_a_5x5_board(browser, live_server):
    """No 5x5 database is built here: the page still gives a 5x5 board (the goal at once, then
    one 30 moves away found by random walks), Random shuffles one, and "fast, not optimal"
    solves it; no message speaks of command-line options."""
    _open(browser, live_server)
    _select_shape(browser, "5x5")
    _wait(browser, lambda d: len(_tiles(d).split()) == 25, "the board is not 5x5")
    assert browser.find_element("id", "difficulty").get_attribute("value") == "30"
    _wait(browser, lambda d: _text(d, "distance") == "30", "no 5x5 board 30 moves away")
    board = Board.from_tiles(map(int, _tiles(browser).split()), "5x5")
    assert board.shape == Shape.parse("5x5") and manhattan(board, goal_board("5x5")) <= 30
    browser.find_element("id", "random").click()
    # The server's first 5x5 search makes its pruning machine (the test's cache starts empty):
    # seconds on a quiet machine, more on a loaded one.
    _wait(browser, lambda d: "fast, not optimal" in _text(d, "status"), "Random gave nothing", 300)
    assert len(_tiles(browser).split()) == 25
    from selenium.webdriver.support.ui import Select

    fast = browser.find_element("id", "fast")
    assert fast.is_displayed()
    fast.click()
    Select(browser.find_element("id", "speed")).select_by_value("15")
    browser.find_element("id", "solve").click()
    goal = goal_board("5x5").flat()
    _wait(browser, lambda d: _tiles(d) == goal, "the fast solution did not reach the goal", 60)
    # The page says so on the player's next tick after the last move (15 ms here): wait for it.
    _wait(browser, lambda d: _text(d, "status").startswith("solved in"), "no 'solved in'")
    for message in (_text(browser, "status"), _text(browser, "hint-text")):
        assert "--" not in message and "npuzzle" not in message
    _select_shape(browser, "3x3")
    _wait(browser, lambda d: len(_tiles(d).split()) == 9, "the board is not 3x3 again")
    assert not browser.find_element("id", "fast").is_displayed()


def test_a_distance_too_far_for_the_time_cap_is_said_in_the_pages_words(browser, live_server):
    _open(browser, live_server)
    _select_shape(browser, "2x3")
    _wait(browser, lambda d: len(_tiles(d).split()) == 6, "the board is not 2x3")
    field = browser.find_element("id", "difficulty")
    field.clear()
    field.send_keys("40")
    browser.find_element("id", "generate").click()
    _wait(browser, lambda d: "maximum" in _text(d, "status"), "no message")
    assert "--" not in _text(browser, "status") and len(_tiles(browser).split()) == 6


def _status_kind(browser) -> str:
    """What the status line is: error, info or ok (its class)."""
    classes = browser.find_element("id", "status").get_attribute("class").split()
    return next(k for k in ("error", "info", "ok") if k in classes)


def test_solving_an_unsolvable_board_says_why_once_as_an_error(browser, live_server):
    _open(browser, live_server)
    _type_board(browser, "1 2 3/4 5 6/8 7 0")
    _wait(browser, lambda d: _text(d, "distance") == "unsolvable", "the distance did not say so")
    browser.find_element("id", "solve").click()
    _wait(browser, lambda d: _text(d, "status").startswith("unsolvable: "), "no reason given")
    assert "unsolvable: unsolvable" not in _text(browser, "status")
    assert _status_kind(browser) == "error"


def test_a_long_solve_shows_its_seconds_and_stop_cancels_it(browser, live_server):
    """An optimal 5x5 solve without its database takes far longer than anyone waits: the
    page counts the seconds as an info line (not an error), and Stop ends it -- the server
    drops the search, as it does for any client that hangs up."""
    from serving import call

    def cancelled() -> int:
        return call(live_server.url + "/health", timeout=5)[1]["searches"]["cancelled"]

    _open(browser, live_server)
    _select_shape(browser, "5x5")
    _wait(browser, lambda d: len(_tiles(d).split()) == 25, "the board is not 5x5")
    browser.find_element("id", "random").click()
    # The server's first 5x5 search makes its pruning machine (the test's cache starts empty):
    # seconds on a quiet machine, more on a loaded one.
    _wait(browser, lambda d: "fast, not optimal" in _text(d, "status"), "Random gave nothing", 300)
    # The page's short search for the distance is over: the solve gets the server's worker.
    _wait(browser, lambda d: _text(d, "distance") not in ("…", "–"), "no distance shown", 60)
    before = cancelled()
    browser.find_element("id", "solve").click()
    _wait(browser, lambda d: "s (Stop cancels)" in _text(d, "status"), "no seconds shown")
    assert _status_kind(browser) == "info" and _text(browser, "solve") == "Stop"
    browser.find_element("id", "solve").click()
    _wait(browser, lambda d: _text(d, "status").startswith("stopped"), "Stop did nothing")
    assert _text(browser, "solve") == "Solve" and _text(browser, "moves") == ""
    _wait(browser, lambda d: cancelled() > before, "the server still searches")


def test_a_rejected_board_clears_the_solution_on_screen(browser, live_server):
    from selenium.webdriver.support.ui import Select

    _open(browser, live_server)
    _generate(browser, 8)
    Select(browser.find_element("id", "speed")).select_by_value("700")
    browser.find_element("id", "solve").click()
    _wait(browser, lambda d: len(_text(d, "moves")) == 8, "no solution shown")
    assert _status_kind(browser) == "ok"
    _type_board(browser, "1 2 3/4 5 6/7 7 0")
    _wait(browser, lambda d: "twice" in _text(d, "status"), "the board was not rejected")
    assert _text(browser, "moves") == "" and _status_kind(browser) == "error"


def test_the_distance_box_follows_the_shape_of_a_typed_board(browser, live_server):
    _open(browser, live_server)
    _type_board(browser, "1 2 3/4 0 5")
    _wait(browser, lambda d: len(_tiles(d).split()) == 6, "the board is not 2x3")
    difficulty = browser.find_element("id", "difficulty")
    assert difficulty.get_attribute("value") == "12"  # the 2x3 default, not the 3x3 one
    _select_shape(browser, "4x4")
    _wait(browser, lambda d: difficulty.get_attribute("value") == "40", "not the 4x4 default")


def test_the_favicon_is_served(live_server):
    status, body = _get(live_server.url + "/favicon.ico")
    assert status == 200 and body.startswith(b"<svg")


def _get(url: str) -> tuple[int, bytes]:
    import urllib.request

    with urllib.request.urlopen(url, timeout=10) as r:
        return r.status, r.read()


# --- the Board field and the hint while a solution plays ----------------------------------------


def test_the_typed_board_stays_in_the_field_after_playback_and_moves(browser, live_server):
    """Playing a solution and moving tiles by hand change the board shown, never the Board
    field: it keeps the board as typed, and Use starts that board again."""
    from selenium.webdriver.support.ui import Select

    typed = "1 2 3/4 0 6/7 5 8"  # 2 moves from blank-last
    _open(browser, live_server)
    _type_board(browser, typed)
    _wait(browser, lambda d: _tiles(d) == "1 2 3 4 0 6 7 5 8", "the typed board is not shown")
    _wait(browser, lambda d: _text(d, "distance") == "2", "no distance for the typed board")
    Select(browser.find_element("id", "speed")).select_by_value("15")
    browser.find_element("id", "solve").click()
    goal = goal_board("3x3").flat()
    _wait(browser, lambda d: _tiles(d) == goal, "the solution did not play to the goal")
    field = browser.find_element("id", "board-text")
    assert field.get_attribute("value") == typed
    _click_when_uncovered(browser, ".tile.movable")  # a move by hand, away from the goal
    _wait(browser, lambda d: _text(d, "made") == "3", "the move was not made")
    assert field.get_attribute("value") == typed
    browser.find_element("id", "use-board").click()
    _wait(browser, lambda d: _tiles(d) == "1 2 3 4 0 6 7 5 8", "Use did not start it again")
    assert _text(browser, "made") == "0" and field.get_attribute("value") == typed


def test_hint_while_a_solution_plays_pauses_it_and_answers_for_the_board_shown(
    browser, live_server, service_dir
):
    from selenium.webdriver.support.ui import Select

    _open(browser, live_server)
    _generate(browser, 20)
    Select(browser.find_element("id", "speed")).select_by_value("300")
    browser.find_element("id", "solve").click()
    _wait(
        browser, lambda d: _text(d, "counter").startswith("2 / 20"), "the solution is not playing"
    )
    assert _text(browser, "play") == "Pause"
    browser.find_element("id", "hint").click()
    _wait(browser, lambda d: "moves left" in _text(d, "hint-text"), "no hint while playing")
    assert _text(browser, "play") == "Play"  # paused on the board the hint is for
    shown = Board.from_tiles(map(int, _tiles(browser).split()), "3x3")
    left = exact.distance(shown, goal_board("3x3"), data_dir=service_dir)
    assert f"{left - 1} moves left after it" in _text(browser, "hint-text")
    assert len(browser.find_elements("css selector", ".tile.hinted")) == 1
    # Played on to the goal, the hint says so.
    Select(browser.find_element("id", "speed")).select_by_value("15")
    browser.find_element("id", "play").click()
    goal = goal_board("3x3").flat()
    _wait(browser, lambda d: _tiles(d) == goal, "the solution did not play on to the goal")
    browser.find_element("id", "hint").click()
    _wait(browser, lambda d: _text(d, "hint-text") == "already at the goal", "no hint at the goal")


# --- a server with a token -------------------------------------------------------------------------

TOKEN = "page-Token_7"


@pytest.fixture(scope="module")
def guarded(service_dir, tmp_path_factory):
    """`npuzzle serve` with $NPUZZLE_TOKEN set."""
    from serving import Server

    server = Server(service_dir, tmp_path_factory.mktemp("page-guarded"), token=TOKEN)
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


def test_a_server_with_a_token_is_opened_with_it_in_the_address(browser, guarded):
    """Opened as /#token=TOKEN the page asks with the token, takes it out of the address and
    keeps it for the tab; opened without one it says how to give it, in the page's words."""
    browser.get(guarded.url + f"/#token={TOKEN}")
    _wait(
        browser,
        lambda d: d.execute_script("return document.body.dataset.ready") == "1",
        "the page never finished loading",
    )
    _wait(browser, lambda d: _text(d, "distance") == "20", "no board generated with the token")
    assert TOKEN not in browser.current_url
    assert "pattern db" in browser.find_element("id", "shape").text  # /databases answered too
    browser.refresh()  # the tab keeps the token
    _wait(browser, lambda d: _text(d, "distance") == "20", "the token was lost on reload")
    browser.execute_script("sessionStorage.clear()")
    browser.refresh()
    _wait(browser, lambda d: "asks for a token" in _text(d, "status"), "no word of the token")
    assert "/#token=" in _text(browser, "status") and "--" not in _text(browser, "status")
