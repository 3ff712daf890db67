// npuzzle page: asks the server (the same JSON API as `curl` uses) and plays the answers.
//
// A move is the direction the *blank* travels (U D L R), as everywhere in npuzzle.  The page
// keeps the current board; every question about it goes to the server, which owns the tables
// and the searches.  Answers that arrive after the board has changed are dropped (`version`).
// The Board field keeps the board the puzzle was set to (typed, generated or shuffled): moves,
// played or made by hand, change the board shown, never the field, so Use starts it again.
// A server started with a token is opened as /#token=TOKEN: the page keeps the token for this
// tab, takes it out of the address, and sends it with every question.
"use strict";

const DEFAULT_DISTANCE = { "2x2": 4, "2x3": 12, "3x3": 20, "4x4": 40, "5x5": 30 };
const MENU_SHAPES = ["2x3", "3x3", "4x4", "5x5"];  // offered even where nothing is built
const BIG_CELLS = 16;           // from here on the page offers "fast, not optimal"
const BIG_DISTANCE_SECONDS = 3; // a board this big without a table: a short search, or "at least"
const STEP = { U: [-1, 0], D: [1, 0], L: [0, -1], R: [0, 1] };
const BLANK_WORD = { U: "up", D: "down", L: "left", R: "right" };
const TOKEN_KEY = "npuzzle-token";  // where the tab keeps the server's token (sessionStorage)
const TOKEN_WORDS = "this server asks for a token: open this page as /#token=TOKEN";

const $ = (id) => document.getElementById(id);

const state = {
  rows: 3,
  cols: 3,
  tiles: [],        // tiles[cell], 0 = blank
  goal: [],         // the goal's tiles, from the server
  solution: null,   // { moves: "UDLR...", at: moves already played }
  timer: null,
  made: 0,          // moves made since the board was set
  version: 0,       // bumped whenever the board changes
  known: {},        // shape -> what the server has built for it (/databases)
  asking: new AbortController(),  // the questions about the current board
  solving: null,    // the AbortController of the solve under way, which Stop aborts
  token: null,      // the server's token, where it asks for one (takeToken)
};

// --- talking to the server -----------------------------------------------------------------

// The token given in the address (#token=...), kept for this tab so a reload keeps working,
// and taken out of the address so it is not shown, bookmarked or shared.
function takeToken() {
  const given = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  if (given) {
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(given[1]));
    history.replaceState(null, "", location.pathname + location.search);
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

function headers(more = {}) {
  return state.token ? { ...more, authorization: `Bearer ${state.token}` } : more;
}

async function ask(path, body, signal) {
  let response;
  try {
    response = await fetch(path, {
      method: "POST",
      headers: headers({ "content-type": "application/json" }),
      body: JSON.stringify(body),
      signal,
    });
  } catch (e) {
    if (e.name === "AbortError") return { status: -1, data: {} };  // the board changed
    return { status: 0, data: { error: "the server cannot be reached" } };
  }
  let data;
  try { data = await response.json(); } catch (e) { data = { error: `HTTP ${response.status}` }; }
  if (response.status === 401) data = { error: TOKEN_WORDS };  // the server's words name options
  return { status: response.status, data };
}

// kind: "error" (red), "info" (what the page is doing), "ok" (an answer).
function say(text, kind = "error") {
  const el = $("status");
  el.textContent = text || "";
  for (const k of ["error", "info", "ok"]) el.classList.toggle(k, k === kind);
}

function movesText(n) {
  return `${n} move${n === 1 ? "" : "s"}`;
}

// The Distance box's starting value for a shape: a board of middling difficulty.
function defaultDistance(shapeText) {
  return DEFAULT_DISTANCE[shapeText] ?? Math.round(2.2 * cellsOf(shapeText));
}

function problem() {
  return { board: state.tiles.join(" "), shape: `${state.rows}x${state.cols}`, goal: $("goal").value };
}

function boardChanged() {
  // A new board: the answers still coming about the old one are dropped, and the server
  // drops their searches (it notices the closed connections).
  state.version++;
  state.asking.abort();
  state.asking = new AbortController();
}

// A server message that names command-line options means nothing on this page.
function pageWords(text) {
  return text && !/--|npuzzle |build-pdb/.test(text) ? text : "";
}

function cellsOf(shapeText) {
  const { rows, cols } = shapeOf(shapeText);
  return rows * cols;
}

// Shapes whose random positions the server can give with their distance (tables, or 4x4).
function searchable(shapeText) {
  const s = state.known[shapeText];
  return cellsOf(shapeText) <= BIG_CELLS || Boolean(s && s.exact);
}

// --- the board -----------------------------------------------------------------------------

function shapeOf(text) {
  const [r, c] = text.split("x").map(Number);
  return { rows: r, cols: c };
}

function render() {
  const board = $("board");
  board.style.setProperty("--rows", state.rows);
  board.style.setProperty("--cols", state.cols);
  board.dataset.tiles = state.tiles.join(" ");
  board.dataset.goal = state.goal.join(" ");
  const n = state.rows * state.cols;
  if (board.children.length !== n - 1) {
    board.replaceChildren();
    for (let t = 1; t < n; t++) {
      const el = document.createElement("div");
      el.className = "tile";
      el.dataset.tile = t;
      el.textContent = t;
      el.setAttribute("role", "gridcell");
      el.addEventListener("click", () => clickTile(t));
      board.appendChild(el);
    }
  }
  const blank = state.tiles.indexOf(0);
  const w = 100 / state.cols, h = 100 / state.rows;
  state.tiles.forEach((t, cell) => {
    if (t === 0) return;
    const el = board.querySelector(`[data-tile="${t}"]`);
    const r = Math.floor(cell / state.cols), c = cell % state.cols;
    el.style.left = `calc(${c * w}% + 3px)`;
    el.style.top = `calc(${r * h}% + 3px)`;
    el.style.width = `calc(${w}% - 6px)`;
    el.style.height = `calc(${h}% - 6px)`;
    el.classList.toggle("home", state.goal[cell] === t);
    el.classList.toggle("movable", adjacent(cell, blank));
    el.setAttribute("aria-label", `tile ${t}`);
  });
  $("made").textContent = String(state.made);
  renderSolution();
}

function adjacent(a, b) {
  const ra = Math.floor(a / state.cols), ca = a % state.cols;
  const rb = Math.floor(b / state.cols), cb = b % state.cols;
  return Math.abs(ra - rb) + Math.abs(ca - cb) === 1;
}

function moveBlank(move) {
  const blank = state.tiles.indexOf(0);
  const r = Math.floor(blank / state.cols) + STEP[move][0];
  const c = (blank % state.cols) + STEP[move][1];
  if (r < 0 || c < 0 || r >= state.rows || c >= state.cols) return false;
  const target = r * state.cols + c;
  state.tiles[blank] = state.tiles[target];
  state.tiles[target] = 0;
  return true;
}

function directionTo(cell) {
  const blank = state.tiles.indexOf(0);
  const dr = Math.floor(cell / state.cols) - Math.floor(blank / state.cols);
  const dc = (cell % state.cols) - (blank % state.cols);
  return Object.keys(STEP).find((m) => STEP[m][0] === dr && STEP[m][1] === dc);
}

function isGoal() {
  return state.tiles.join(" ") === state.goal.join(" ");
}

// --- setting a board -------------------------------------------------------------------------

// `typed`: the Board field already holds this board as the user wrote it, and keeps it.
async function setBoard(tiles, shapeText, distance = null, typed = false) {
  stop();
  const shape = shapeOf(shapeText);
  state.rows = shape.rows;
  state.cols = shape.cols;
  state.tiles = tiles.slice();
  state.solution = null;
  state.made = 0;
  boardChanged();
  const big = state.rows * state.cols >= BIG_CELLS;
  $("fast-option").hidden = !big;
  if (!big) $("fast").checked = false;
  if (!typed) $("board-text").value = boardText(tiles);
  clearHint();
  await refreshFacts(distance);
}

// The goal of a shape, as the server defines it for the chosen goal (blank last, snake...).
async function goalOf(shapeText) {
  const n = cellsOf(shapeText);
  const last = [...Array(n - 1).keys()].map((i) => i + 1).concat([0]);
  const { status, data } = await ask("/check", { board: last.join(" "), shape: shapeText, goal: $("goal").value });
  return status === 200 ? data.goal.split(" ").map(Number) : last;
}

function boardText(tiles) {
  const rows = [];
  for (let r = 0; r < state.rows; r++) rows.push(tiles.slice(r * state.cols, (r + 1) * state.cols).join(" "));
  return rows.join("/");
}

async function generate(withDistance) {
  const shape = $("shape").value;
  if (!withDistance && !searchable(shape)) return shuffleHere(shape);
  const body = { shape, goal: $("goal").value, count: 1 };
  if (withDistance) body.distance = Number($("difficulty").value);
  say(withDistance ? `looking for a ${shape} board ${body.distance} moves from the goal…` : "", "info");
  const { status, data } = await ask("/generate", body);
  if (status !== 200) return say(cannotGenerate(shape, body.distance, status, data));
  say("");
  const rec = data.results[0];
  await setBoard(rec.board.split(" ").map(Number), rec.shape, rec.distance);
}

function cannotGenerate(shape, distance, status, data) {
  const smaller = searchable(shape)
    ? "try another distance"
    : "try a smaller distance, or press Random and solve it with “fast, not optimal”";
  if (status === 504) {
    return `no ${shape} board ${distance} moves from the goal was found within the server's time limit: ${smaller}`;
  }
  if (status === 503 && data.retry_after) return `the server is busy: try again in ${data.retry_after} s`;
  if (status === 503 && data.fix) return `this server has no database for ${shape} boards: ${smaller}`;
  return pageWords(data.error) || `the server cannot make that ${shape} board: ${smaller}`;
}

// A uniformly random solvable board, shuffled here: for shapes whose random positions are too
// far for the server to measure (5x5 and up), so Random still gives a board of the menu's shape.
async function shuffleHere(shape) {
  const tiles = [...Array(cellsOf(shape)).keys()];
  for (let i = tiles.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [tiles[i], tiles[j]] = [tiles[j], tiles[i]];
  }
  const { status, data } = await ask("/check", { board: tiles.join(" "), shape, goal: $("goal").value });
  if (status === 200 && !data.solvable) {
    // Swapping two tiles changes the parity: the other half of the boards, all solvable.
    const [a, b] = tiles.map((t, cell) => [t, cell]).filter(([t]) => t !== 0).slice(0, 2).map(([, cell]) => cell);
    [tiles[a], tiles[b]] = [tiles[b], tiles[a]];
  }
  say(`a random ${shape} board: too far from the goal to measure here; “fast, not optimal” solves it at once`, "info");
  await setBoard(tiles, shape);
}

async function useTypedBoard(event) {
  event.preventDefault();
  const text = $("board-text").value;
  let { status, data } = await ask("/check", { board: text, goal: $("goal").value });
  if (status === 400 && /cannot tell the shape/.test(data.error || "")) {
    ({ status, data } = await ask("/check", { board: text, goal: $("goal").value, shape: $("shape").value }));
  }
  if (status !== 200) {
    // The board shown stays; what was said about it before (its solution) is put away, so
    // nothing on screen seems to answer the rejected text.
    stop();
    state.solution = null;
    render();
    return say(data.error || `HTTP ${status}`);
  }
  say("");
  ensureShapeOption(data.shape);
  if ($("shape").value !== data.shape) $("difficulty").value = defaultDistance(data.shape);
  $("shape").value = data.shape;
  await setBoard(data.board.split(" ").map(Number), data.shape, null, true);
}

// --- what the server knows about the board ---------------------------------------------------

async function refreshFacts(known = null) {
  const version = state.version;
  const body = problem();
  const signal = state.asking.signal;
  $("distance").textContent = "…";
  const [check] = await Promise.all([ask("/check", body, signal), refreshHeuristic()]);
  if (version !== state.version) return;
  if (check.status === 200) {
    state.goal = check.data.goal.split(" ").map(Number);
    $("solvable").textContent = check.data.solvable ? "yes" : `no — ${check.data.reason}`;
  } else {
    $("solvable").textContent = "–";
    say(check.data.error);
  }
  render();
  if (check.status === 200 && !check.data.solvable) {
    $("distance").textContent = "unsolvable";
    return;
  }
  if (known !== null) {
    $("distance").textContent = String(known);
    return;
  }
  // A big board without a table: a short search, else the bound it proved.
  if (!searchable(`${state.rows}x${state.cols}`)) body.timeout = BIG_DISTANCE_SECONDS;
  const dist = await ask("/distance", body, signal);
  if (version !== state.version) return;
  if (dist.status === 200 && dist.data.status === "limit") {
    $("distance").textContent = `at least ${dist.data.lower_bound} (too far to measure in time)`;
  } else if (dist.status === 200) {
    $("distance").textContent = String(dist.data.distance);
  } else {
    $("distance").textContent = "–";
    say(pageWords(dist.data.error) || "the server could not measure the distance");
  }
}

function heuristicText(status, data) {
  if (status !== 200) return "–";
  if (data.solvable === false) return "– (this board cannot reach the goal)";
  const source = {
    exact: "exact table",
    pdb: `pattern database ${data.partition}`,
    "linear-conflict": "linear conflict",
  }[data.heuristic] || data.heuristic;
  return `${data.h} (${source}; Manhattan ${data.manhattan})`;
}

async function refreshHeuristic() {
  const version = state.version;
  const heur = await ask("/heuristic", problem(), state.asking.signal);
  if (version !== state.version) return;
  $("heuristic").textContent = heuristicText(heur.status, heur.data);
}

let heuristicTimer = null;

function refreshHeuristicSoon() {
  // While a solution plays, ask once it pauses rather than at every step.
  clearTimeout(heuristicTimer);
  heuristicTimer = setTimeout(refreshHeuristic, 250);
}

function clearHint() {
  $("hint-text").textContent = "";
  document.querySelectorAll(".tile.hinted").forEach((el) => el.classList.remove("hinted"));
}

// --- moving tiles by hand ---------------------------------------------------------------------

function clickTile(tile) {
  const move = directionTo(state.tiles.indexOf(tile));
  if (!move) return;
  stop();
  const sol = state.solution;
  const following = sol && sol.moves[sol.at] === move;
  moveBlank(move);
  state.made++;
  boardChanged();
  clearHint();
  if (following) {
    sol.at++;  // still on the optimal path: the distance is known without asking
    render();
    showRemaining();
    refreshHeuristicSoon();
  } else {
    state.solution = null;
    refreshFacts();
  }
}

// --- solving and playing -----------------------------------------------------------------------

async function solve() {
  if (state.solving) return state.solving.abort();  // the button reads "Stop" meanwhile
  stop();
  state.solution = null;
  render();
  const fast = !$("fast-option").hidden && $("fast").checked;
  const label = fast ? "solving (fast, not optimal)…" : "solving…";
  say(label, "info");
  const version = state.version;
  const body = fast ? { ...problem(), algorithm: "fast" } : problem();
  const solving = (state.solving = new AbortController());
  $("solve").textContent = "Stop";
  const started = Date.now();
  const ticking = setInterval(() => {
    say(`${label} ${Math.round((Date.now() - started) / 1000)} s (Stop cancels)`, "info");
  }, 1000);
  let answer;
  try {
    answer = await ask("/solve", body, AbortSignal.any([state.asking.signal, solving.signal]));
  } finally {
    clearInterval(ticking);
    state.solving = null;
    $("solve").textContent = "Solve";
  }
  if (version !== state.version) return;
  if (solving.signal.aborted) return say("stopped: the server dropped the search", "info");
  showSolved(answer.status, answer.data);
}

function showSolved(status, data) {
  if (status === 503 && data.retry_after) return say(`the server is busy: try again in ${data.retry_after} s`);
  if (status !== 200) return say(pageWords(data.error) || "the server could not solve this board");
  if (data.solvable === false) return say(data.reason);  // "unsolvable: ..." and why
  if (data.status === "limit") {
    const quick = $("fast-option").hidden ? "" : "; tick “fast, not optimal” for a quick one";
    return say(`the search hit the server's time limit: the shortest solution is at least ${movesText(data.lower_bound)}${quick}`);
  }
  const what = data.optimal ? "optimal" : "fast, not optimal";
  say(`${what}: ${movesText(data.length)} (${data.algorithm}${data.database ? ", " + data.database : ""})`, "ok");
  state.solution = { moves: data.moves, at: 0, optimal: data.optimal };
  render();
  showRemaining();
  play();
}

function renderSolution() {
  const sol = state.solution;
  const moves = $("moves"), counter = $("counter");
  if (!sol) {
    moves.replaceChildren();
    counter.textContent = isGoal() ? "at the goal" : "";
    return;
  }
  const done = document.createElement("span");
  done.className = "done";
  done.textContent = sol.moves.slice(0, sol.at);
  const next = document.createElement("span");
  next.className = "next";
  next.textContent = sol.moves.slice(sol.at, sol.at + 1);
  moves.replaceChildren(done, next, document.createTextNode(sol.moves.slice(sol.at + 1)));
  counter.textContent = `${sol.at} / ${sol.moves.length}`;
}

function showRemaining() {
  // Along an optimal solution the moves left are the distance; along a fast one they are not.
  const sol = state.solution;
  if (sol && sol.optimal) $("distance").textContent = String(sol.moves.length - sol.at);
  else if (sol) $("distance").textContent = "–";
}

function step(direction = 1) {
  const sol = state.solution;
  if (!sol) return false;
  if (direction > 0) {
    if (sol.at >= sol.moves.length) return false;
    moveBlank(sol.moves[sol.at]);
    sol.at++;
    state.made++;
  } else {
    if (sol.at === 0) return false;
    sol.at--;
    moveBlank(opposite(sol.moves[sol.at]));
    state.made--;
  }
  boardChanged();
  clearHint();
  render();
  showRemaining();
  refreshHeuristicSoon();
  return true;
}

function opposite(m) {
  return { U: "D", D: "U", L: "R", R: "L" }[m];
}

function play() {
  if (!state.solution) return;
  stop();
  const delay = Number($("speed").value);
  $("board").style.setProperty("--slide", `${Math.min(delay * 0.8, 250)}ms`);
  $("play").textContent = "Pause";
  state.timer = setInterval(() => {
    if (!step(1)) {
      stop();
      if (isGoal()) say(`solved in ${movesText(state.solution.moves.length)}`, "ok");
    }
  }, delay);
}

function stop() {
  if (state.timer !== null) clearInterval(state.timer);
  state.timer = null;
  $("play").textContent = "Play";
}

function togglePlay() {
  if (state.timer !== null) stop();
  else if (state.solution && state.solution.at >= state.solution.moves.length) { rewind(); play(); }
  else play();
}

function rewind() {
  stop();
  while (step(-1)) { /* back to the start of the solution */ }
}

// --- hints ------------------------------------------------------------------------------------------

// A hint is for the board shown: a solution playing pauses there (each move would change the
// board, and drop the answer), and the hint says what to slide next from that position.
async function hint() {
  stop();
  const version = state.version;
  const { status, data } = await ask("/hint", problem(), state.asking.signal);
  if (version !== state.version) return;
  const text = $("hint-text");
  if (status !== 200) return say(pageWords(data.error) || "the server could not give a hint");
  if (data.solvable === false) { text.textContent = "no hint: this board cannot reach the goal"; return; }
  if (data.status === "limit") { text.textContent = "no hint: the search hit the server's limit"; return; }
  if (!data.move) { text.textContent = "already at the goal"; return; }
  clearHint();
  text.textContent = `slide tile ${data.tile} (the gap goes ${BLANK_WORD[data.move]}): ${movesText(data.distance_after)} left after it`;
  const el = document.querySelector(`[data-tile="${data.tile}"]`);
  if (el) el.classList.add("hinted");
}

// --- shapes ------------------------------------------------------------------------------------

function ensureShapeOption(shape, label) {
  const select = $("shape");
  let option = [...select.options].find((o) => o.value === shape);
  if (!option) {
    option = document.createElement("option");
    option.value = shape;
    select.appendChild(option);
  }
  option.textContent = label || option.textContent || shape;
}

async function loadShapes() {
  const known = {};
  try {
    const response = await fetch("/databases", { headers: headers() });
    const data = await response.json();
    for (const s of data.shapes) known[s.shape] = s;
  } catch (e) { /* the defaults below still work where tables exist */ }
  state.known = known;
  const shapes = new Set([...MENU_SHAPES, ...Object.keys(known)]);
  for (const shape of shapes) {
    const s = known[shape];
    const what = !s ? "no database" : s.exact ? "exact table" : `pattern db ${s.partitions.join(", ")}`;
    ensureShapeOption(shape, `${shape} (${what})`);
  }
  $("shape").value = "3x3";
}

async function shapeChanged() {
  // The board matches the menu at once (the goal), then a board of the default distance
  // replaces it if the server finds one.
  const shape = $("shape").value;
  $("difficulty").value = defaultDistance(shape);
  say("");
  await setBoard(await goalOf(shape), shape);
  await generate(true);
}

// --- start -------------------------------------------------------------------------------------------

function wire() {
  $("shape").addEventListener("change", shapeChanged);
  $("goal").addEventListener("change", () => { state.solution = null; boardChanged(); refreshFacts(); });
  $("generate").addEventListener("click", () => generate(true));
  $("random").addEventListener("click", () => generate(false));
  $("board-form").addEventListener("submit", useTypedBoard);
  $("solve").addEventListener("click", solve);
  $("play").addEventListener("click", togglePlay);
  $("step").addEventListener("click", () => { stop(); step(1); });
  $("back").addEventListener("click", () => { stop(); step(-1); });
  $("rewind").addEventListener("click", rewind);
  $("hint").addEventListener("click", hint);
  $("speed").addEventListener("change", () => { if (state.timer !== null) play(); });
}

async function start() {
  state.token = takeToken();
  wire();
  await loadShapes();
  await generate(true);
  document.body.dataset.ready = "1";
}

start();
