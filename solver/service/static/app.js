// npuzzle page: asks the server (the same JSON API as `curl` uses) and plays the answers.
//
// A move is the direction the *blank* travels (U D L R), as everywhere in npuzzle.  The page
// keeps the current board; every question about it goes to the server, which owns the tables
// and the searches.  Answers that arrive after the board has changed are dropped (`version`).
"use strict";

const DEFAULT_DISTANCE = { "2x3": 12, "3x3": 20, "4x4": 40 };
const STEP = { U: [-1, 0], D: [1, 0], L: [0, -1], R: [0, 1] };
const BLANK_WORD = { U: "up", D: "down", L: "left", R: "right" };

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
};

// --- talking to the server -----------------------------------------------------------------

async function ask(path, body) {
  let response;
  try {
    response = await fetch(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  } catch (e) {
    return { status: 0, data: { error: "the server cannot be reached" } };
  }
  let data;
  try { data = await response.json(); } catch (e) { data = { error: `HTTP ${response.status}` }; }
  return { status: response.status, data };
}

function say(text, ok = false) {
  const el = $("status");
  el.textContent = text || "";
  el.classList.toggle("ok", ok);
}

function problem() {
  return { board: state.tiles.join(" "), shape: `${state.rows}x${state.cols}`, goal: $("goal").value };
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

async function setBoard(tiles, shapeText) {
  stop();
  const shape = shapeOf(shapeText);
  state.rows = shape.rows;
  state.cols = shape.cols;
  state.tiles = tiles.slice();
  state.solution = null;
  state.made = 0;
  state.version++;
  $("board-text").value = boardText(tiles);
  clearHint();
  await refreshFacts();
}

function boardText(tiles) {
  const rows = [];
  for (let r = 0; r < state.rows; r++) rows.push(tiles.slice(r * state.cols, (r + 1) * state.cols).join(" "));
  return rows.join("/");
}

async function generate(withDistance) {
  const shape = $("shape").value;
  const body = { shape, goal: $("goal").value, count: 1 };
  if (withDistance) body.distance = Number($("difficulty").value);
  say(withDistance ? `looking for a ${shape} board ${body.distance} moves from the goal…` : "");
  const { status, data } = await ask("/generate", body);
  if (status !== 200) return say(data.error || `HTTP ${status}`);
  say("");
  const rec = data.results[0];
  await setBoard(rec.board.split(" ").map(Number), rec.shape);
}

async function useTypedBoard(event) {
  event.preventDefault();
  const text = $("board-text").value;
  let { status, data } = await ask("/check", { board: text, goal: $("goal").value });
  if (status === 400 && /cannot tell the shape/.test(data.error || "")) {
    ({ status, data } = await ask("/check", { board: text, goal: $("goal").value, shape: $("shape").value }));
  }
  if (status !== 200) return say(data.error || `HTTP ${status}`);
  say("");
  ensureShapeOption(data.shape);
  $("shape").value = data.shape;
  await setBoard(data.board.split(" ").map(Number), data.shape);
}

// --- what the server knows about the board ---------------------------------------------------

async function refreshFacts() {
  const version = state.version;
  const body = problem();
  $("distance").textContent = "…";
  const [check] = await Promise.all([ask("/check", body), refreshHeuristic()]);
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
  const dist = await ask("/distance", body);
  if (version !== state.version) return;
  if (dist.status === 200 && dist.data.status === "limit") {
    $("distance").textContent = `more than ${dist.data.lower_bound - 1} (the search hit the server's limit)`;
  } else if (dist.status === 200) {
    $("distance").textContent = String(dist.data.distance);
  } else {
    $("distance").textContent = "–";
    say(dist.data.error);
  }
}

async function refreshHeuristic() {
  const version = state.version;
  const heur = await ask("/heuristic", problem());
  if (version !== state.version) return;
  $("heuristic").textContent = heur.status === 200
    ? `${heur.data.h} (pattern database ${heur.data.partition}; Manhattan ${heur.data.manhattan})`
    : (heur.data.fix ? `no pattern database (${heur.data.fix})` : "–");
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
  state.version++;
  $("board-text").value = boardText(state.tiles);
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
  stop();
  say("solving…");
  const version = state.version;
  const { status, data } = await ask("/solve", problem());
  if (version !== state.version) return;
  if (status !== 200) return say(data.error || `HTTP ${status}`);
  if (data.solvable === false) return say(`unsolvable: ${data.reason}`);
  if (data.status === "limit") {
    return say(`the search hit the server's limit; the optimal solution is at least ${data.lower_bound} moves`);
  }
  say(`optimal: ${data.length} moves (${data.algorithm}${data.database ? ", " + data.database : ""})`, true);
  state.solution = { moves: data.moves, at: 0 };
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
  const sol = state.solution;
  if (sol) $("distance").textContent = String(sol.moves.length - sol.at);
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
  state.version++;
  $("board-text").value = boardText(state.tiles);
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
      if (isGoal()) say(`solved in ${state.solution.moves.length} moves`, true);
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

async function hint() {
  const version = state.version;
  const { status, data } = await ask("/hint", problem());
  if (version !== state.version) return;
  const text = $("hint-text");
  if (status !== 200) return say(data.error || `HTTP ${status}`);
  if (data.solvable === false) { text.textContent = "no hint: this board cannot reach the goal"; return; }
  if (data.status === "limit") { text.textContent = "no hint: the search hit the server's limit"; return; }
  if (!data.move) { text.textContent = "already at the goal"; return; }
  clearHint();
  text.textContent = `slide tile ${data.tile} (the gap goes ${BLANK_WORD[data.move]}): ${data.distance_after} moves left after it`;
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
    const response = await fetch("/databases");
    const data = await response.json();
    for (const s of data.shapes) known[s.shape] = s;
  } catch (e) { /* the defaults below still work where tables exist */ }
  const shapes = new Set(["2x3", "3x3", "4x4", ...Object.keys(known)]);
  for (const shape of shapes) {
    const s = known[shape];
    const what = !s ? "no database" : s.exact ? "exact table" : `pattern db ${s.partitions.join(", ")}`;
    ensureShapeOption(shape, `${shape} (${what})`);
  }
  $("shape").value = "3x3";
}

function shapeChanged() {
  const shape = $("shape").value;
  $("difficulty").value = DEFAULT_DISTANCE[shape] ?? 20;
  generate(true);
}

// --- start -------------------------------------------------------------------------------------------

function wire() {
  $("shape").addEventListener("change", shapeChanged);
  $("goal").addEventListener("change", () => { state.solution = null; state.version++; refreshFacts(); });
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
  wire();
  await loadShapes();
  await generate(true);
  document.body.dataset.ready = "1";
}

start();
