"""The page in a real headless browser (Debian's chromium driven by selenium and chromedriver):
generate a board of a chosen distance, press solve, watch the tiles reach the goal with the
counter at the optimal length (checked against the exact table); a hint, a move by hand, and a
phone-sized screen.  Skipped, saying why, only when no chromium can be found."""

from __future__ import annotations

import shutil
import tempfile

import pytest

from solver.core.board import Board, goal_board
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
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(WAIT)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _wait(driver, condition, what):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, WAIT, poll_frequency=0.05).until(
        lambda d: condition(d), message=what
    )


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
    hinted = browser.find_element("css selector", ".tile.hinted")
    hinted.click()  # follow the hint: one move closer
    assert not browser.find_elements("css selector", ".tile.hinted")  # the hint is spent
    _wait(browser, lambda d: _text(d, "distance") == "9", "the distance did not update")
    after = Board.from_tiles(map(int, _tiles(browser).split()), "3x3")
    assert exact.distance(after, goal_board("3x3"), data_dir=service_dir) == 9
    assert after != board and _text(browser, "made") == "1"
    # A move away from the goal: the page asks the server again.
    movable = browser.find_elements("css selector", ".tile.movable")
    for tile in movable:
        tile.click()
        _wait(browser, lambda d: _text(d, "distance").isdigit(), "no distance after a move")
        moved = Board.from_tiles(map(int, _tiles(browser).split()), "3x3")
        want = exact.distance(moved, goal_board("3x3"), data_dir=service_dir)
        _wait(
            browser,
            lambda d, want=want: _text(d, "distance") == str(want),
            "the distance shown is not the table's",
        )
        break


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
