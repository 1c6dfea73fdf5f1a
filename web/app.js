// The page of `retrograde serve`: draws the map (or a graph's vertices on
// a circle), places the cops and the thief, asks the JSON API and shows the
// answers, for any number of cops. No libraries: this file and draw.js (the
// drawing, loaded first).
//
// Tables answer in one of two dialects (see src/cli/serve/api/table.rs):
// the one-cop API names the cop (`cop`), the cops API lists the cops
// (`cops`); `copsOf` and `moveCells` read both, so the rest of the page
// has one path. One cop differs only in words and in how clicks place the
// pieces (the radios; with several cops each click places the next piece).
"use strict";

const $ = (id) => document.getElementById(id);

// Outcome colours as RGB (also in style.css for the legend).
const RGB = {
  cop: [47, 111, 220],
  thief: [224, 123, 34],
  draw: [138, 143, 152],
  wall: [43, 45, 49],
  free: [244, 241, 234],
  exit: [46, 158, 91],
};

const state = {
  tables: [],
  table: null, // an entry of /api/tables
  map: null, // /api/map: {rows, cols, grid} on a map, {vertices, edges, exits} on a graph
  graph: false, // the table is of a graph
  graphExits: null, // a graph's exits, as a set
  cops: [], // one cell per cop, null until placed: [row, col] on a map, a vertex id on a graph
  thief: null,
  turn: "cop",
  place: "cop", // one cop: what a click places (the radios)
  next: 0, // several cops: what the next click places (0..k-1 a cop, k the thief)
  heat: "cop", // "off", or the piece held still
  row: null, // the last /api/row answer, with .key
  info: null, // the last /api/query answer
  game: null, // the last /api/play answer
  gameIndex: 0,
  autoTimer: null,
  cell: 1, // CSS pixels per cell on a map; the canvas side on a graph
  base: null, // an offscreen canvas, one pixel per cell: the map
  exits: null, // the same, exits only (drawn over the heatmap on small cells)
  heatLayer: null, // the same for the heatmap
  seq: 0, // the newest refresh; older answers are dropped
  pending: 0, // requests in flight (tests wait for 0)
};

const other = (piece) => (piece === "cop" ? "thief" : "cop");
// A cell as text: `r,c` on a map, the vertex id on a graph.
const fmt = (cell) => (Array.isArray(cell) ? `${cell[0]},${cell[1]}` : `${cell}`);
const same = (a, b) => a !== null && b !== null && fmt(a) === fmt(b);
// Cells as text, ascending as the API lists cops (by row then column, or
// by vertex id), so that any order of the cops reads the same.
const sorted = (cells) =>
  cells
    .slice()
    .sort((a, b) => (Array.isArray(a) ? a[0] - b[0] || a[1] - b[1] : a - b))
    .map(fmt)
    .join(" ");
// The number of cops of the table shown.
const copCount = () => state.table.cops;
// The cops of a position of an answer, in either dialect.
const copsOf = (p) => (p.cops ? p.cops : [p.cop]);
// The cells a move of `info` puts its mover on: the cops API lists the
// cops' cells on their turn; otherwise one cell.
const moveCells = (info, m) => (info.cops && info.turn === "cop" ? m.to : [m.to]);
const copsPlaced = () => state.cops.every((c) => c !== null);
const placed = () => copsPlaced() && state.thief !== null;
// Only the one-cop API (a table without `kind`) holds the thief still:
// with several cops its heatmap would range over every placement of them.
const thiefHeat = () => !state.table.kind;

async function api(path, params) {
  state.pending++;
  try {
    const response = await fetch(`${path}?${new URLSearchParams(params)}`);
    const body = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
    return body;
  } finally {
    state.pending--;
  }
}

// A cell from a link's `ROW,COL`, or null.
function parseCell(text) {
  const m = /^(\d+),(\d+)$/.exec(text || "");
  return m ? [Number(m[1]), Number(m[2])] : null;
}

// A link's cell for `piece`: `{cell}`, or `{problem}` naming what is wrong.
function linkCell(piece, text) {
  if (state.graph) {
    const v = /^\d+$/.test(text || "") ? Number(text) : -1;
    if (v >= 0 && v < state.map.vertices) return { cell: v };
    return { problem: `${piece}=${text} is not a vertex of the graph` };
  }
  const { rows, cols, grid } = state.map;
  const rc = parseCell(text);
  if (!rc || rc[0] >= rows || rc[1] >= cols) return { problem: `${piece}=${text} is not a cell of the map` };
  if (grid[rc[0]][rc[1]] === "#") return { problem: `${piece}=${fmt(rc)} is a wall` };
  return { cell: rc };
}

// `?table=&cop=&thief=&turn=` (`cop` once per cop) opens that position;
// bad parts are named.
function applyLink(params) {
  const problems = [];
  const k = copCount();
  const cops = params.getAll("cop");
  if (cops.length && cops.length !== k) {
    problems.push(`the table is of ${k} cop${k === 1 ? "" : "s"}: the link places ${cops.length}`);
  } else if (cops.length) {
    const cells = cops.map((text) => linkCell("cop", text));
    const bad = cells.find((c) => c.problem);
    if (bad) problems.push(bad.problem);
    else state.cops = cells.map((c) => c.cell);
  }
  if (params.has("thief")) {
    const c = linkCell("thief", params.get("thief"));
    if (c.problem) problems.push(c.problem);
    else state.thief = c.cell;
  }
  if (params.has("turn")) {
    const turn = params.get("turn");
    if (turn === "cop" || turn === "thief") state.turn = turn;
    else problems.push(`turn=${turn} is not cop or thief`);
  }
  return problems;
}

// The position's parameters: `cop` once per cop, `thief`, `turn`.
function positionParams() {
  const params = new URLSearchParams({ table: state.table.name });
  for (const c of state.cops) if (c !== null) params.append("cop", fmt(c));
  if (state.thief !== null) params.set("thief", fmt(state.thief));
  params.set("turn", state.turn);
  return params;
}

// The address follows the position, so that it can be shared or reloaded.
function updateLink() {
  if (!state.table) return;
  // Commas kept readable: `cop=3,4`, not `cop=3%2C4`.
  const url = `${location.pathname}?${positionParams().toString().replaceAll("%2C", ",")}`;
  if (url !== location.pathname + location.search) history.replaceState(null, "", url);
}

async function init() {
  try {
    const { tables } = await api("/api/tables", {});
    state.tables = tables;
    const select = $("table");
    for (const t of tables) {
      const option = document.createElement("option");
      option.value = option.textContent = t.name;
      select.append(option);
    }
    $("table-row").hidden = tables.length < 2;
    select.addEventListener("change", () => loadTable(select.value));
    const link = new URLSearchParams(location.search);
    const problems = [];
    let first = tables[0].name;
    let cells = true; // a link's cells belong to its table only
    if (link.has("table")) {
      if (tables.some((t) => t.name === link.get("table"))) first = link.get("table");
      else {
        problems.push(`no table named ${link.get("table")}`);
        cells = false;
      }
    }
    select.value = first;
    await loadTable(first, cells ? () => problems.push(...applyLink(link)) : null);
    if (problems.length) $("error").textContent = `link: ${problems.join("; ")}`;
  } catch (e) {
    $("error").textContent = e.message;
  }
}

// `link`, when given, places the pieces from the address before the
// first refresh.
async function loadTable(name, link) {
  stopAuto();
  const t = (state.table = state.tables.find((t) => t.name === name));
  state.map = await api("/api/map", { table: name });
  state.graph = state.map.kind === "graph";
  state.graphExits = state.graph ? new Set(state.map.exits) : null;
  state.cops = t.start ? copsOf(t.start).slice() : new Array(t.cops).fill(null);
  state.thief = t.start ? t.start.thief : null;
  state.turn = t.start ? t.start.turn : t.first_mover;
  state.next = 0;
  state.game = null;
  state.row = null;
  state.info = null;
  showControls();
  if (link) link();
  $("table-info").textContent = describe(t);
  if (!state.graph) buildBase();
  layout();
  await refresh();
}

// The table in a line: its size, cops (when several), exits and speeds.
function describe(t) {
  const cops = t.cops === 1 ? "" : `, ${t.cops} cops`;
  const size = state.graph
    ? `graph of ${t.cells} vertices${cops}`
    : `${t.rows} x ${t.cols}, ${t.cells} free cells${cops}`;
  const fast = t.cop_speed > 1 || t.thief_speed > 1;
  const speeds = fast ? `, speeds ${t.cop_speed} and ${t.thief_speed}` : "";
  return `${size}, ${t.exits} exits${speeds}${t.has_dte ? "" : ", no distances stored"}`;
}

// The controls of this table: the radios for one cop, the line naming the
// next piece for several; the thief's heatmap where the table has it.
function showControls() {
  const several = copCount() > 1;
  $("place-one").hidden = several;
  $("place-k").hidden = !several;
  $("heat-thief").hidden = !thiefHeat();
  $("heat-cop-label").textContent = several ? "cops held still" : "cop held still";
  if (state.heat === "thief" && !thiefHeat()) {
    state.heat = "cop";
    document.querySelector("input[name=heat][value=cop]").checked = true;
  }
}

// The heatmap's key: the table, the piece held still, where, the turn.
const rowKey = () => {
  if (state.heat === "off") return null;
  const cop = state.heat === "cop";
  if (cop ? !copsPlaced() : state.thief === null) return null;
  const at = cop ? sorted(state.cops) : fmt(state.thief);
  return `${state.table.name}|${state.heat}|${at}|${state.turn}`;
};

// Asks for what the screen shows: the position and the heatmap.
async function refresh() {
  const seq = ++state.seq;
  const jobs = [];
  updateLink();
  updatePanel();
  draw();
  if (placed()) {
    jobs.push(
      api("/api/query", positionParams()).then((info) => {
        if (seq === state.seq) state.info = info;
      }),
    );
  } else {
    state.info = null;
  }
  const key = rowKey();
  if (key && (!state.row || state.row.key !== key)) {
    const params = new URLSearchParams({ table: state.table.name, turn: state.turn });
    if (state.heat === "cop") for (const c of state.cops) params.append("cop", fmt(c));
    else params.set("thief", fmt(state.thief));
    jobs.push(
      api("/api/row", params).then((row) => {
        if (seq === state.seq) setRow(row, key);
      }),
    );
  }
  await settle(jobs, seq, () => {
    updatePanel();
    draw();
  });
}

// Waits for a refresh's requests; unless a newer refresh began meanwhile,
// shows their error (or clears it) and calls `show`.
async function settle(jobs, seq, show) {
  try {
    await Promise.all(jobs);
    if (seq === state.seq) $("error").textContent = "";
  } catch (e) {
    if (seq === state.seq) {
      state.info = null;
      $("error").textContent = e.message;
    }
  }
  if (seq === state.seq) show();
}

// What the value means, in words for one cop or several.
function sentence(info) {
  const one = copCount() === 1;
  const w = winner(info.value, info.turn);
  const plies = info.dte === null ? "" : ` in ${info.dte} ${info.dte === 1 ? "ply" : "plies"}`;
  if (info.moves.length === 0 && info.dte === 0) {
    if (w !== "cop") return "game over: the thief has escaped";
    return `game over: ${one ? "the" : "a"} cop has caught the thief`;
  }
  if (w === "cop") return `${one ? "the cop catches" : "the cops catch"} the thief${plies}`;
  if (w === "thief") return `the thief escapes${plies}`;
  return "draw: the thief evades forever";
}

// Where the pieces stand, or what is left to place.
function where() {
  const k = copCount();
  const cops = copsPlaced() ? `cop${k === 1 ? "" : "s"} ${sorted(state.cops)}` : k === 1 ? "place the cop" : `place ${k} cops`;
  const thief = state.thief !== null ? `thief ${fmt(state.thief)}` : "place the thief";
  return [cops, thief, `${state.turn} to move`].join(" · ");
}

// A rated move as the list says it: `cop → 3,4`, `cops pass`, `thief
// passes` (with several cops).
function moveText(info, m) {
  const one = copCount() === 1;
  const cop = info.turn === "cop";
  const to = cop ? sorted(moveCells(info, m)) : fmt(m.to);
  const from = cop ? sorted(state.cops) : fmt(state.thief);
  const who = cop && !one ? "cops" : info.turn;
  const pass = one || cop ? "pass" : "passes";
  return `${who} ${to === from ? pass : `→ ${to}`}: `;
}

function updatePanel() {
  $("turn").textContent = `to move: ${state.turn}`;
  const k = copCount();
  $("kplace-next").textContent = state.next < k ? `cop ${state.next + 1} of ${k}` : "the thief";
  $("where").textContent = where();
  const info = state.info;
  const current =
    info &&
    placed() &&
    sorted(copsOf(info)) === sorted(state.cops) &&
    same(info.thief, state.thief) &&
    info.turn === state.turn;
  const value = $("value");
  // Only what is known: nothing while an answer is pending.
  value.textContent = current ? info.value : "";
  value.className = current ? info.value : "";
  const known = current && info.dte !== null;
  $("dte").textContent = known ? info.dte : "";
  $("dte-plies").textContent = known && info.dte === 1 ? "ply" : "plies";
  $("dte-box").hidden = !known;
  $("verdict").textContent = current ? sentence(info) : "";
  const list = $("moves");
  list.replaceChildren();
  if (current) {
    for (const m of info.moves) {
      const li = document.createElement("li");
      li.textContent = moveText(info, m);
      const v = document.createElement("span");
      v.className = m.value;
      v.textContent = `${m.value}${m.dte === null ? "" : ` in ${m.dte}`}`;
      li.append(v);
      li.addEventListener("click", () => makeMove(info, m));
      list.append(li);
    }
  }
  const g = state.game;
  $("game-info").textContent = g
    ? `ply ${state.gameIndex} of ${g.plies}; the game ends by ${g.end}`
    : "no game yet: step forward to start one";
  $("auto").textContent = state.autoTimer ? "stop" : "autoplay";
}

function makeMove(info, m) {
  stopAuto();
  if (info.turn === "cop") state.cops = moveCells(info, m).slice();
  else state.thief = m.to;
  state.turn = other(state.turn);
  state.game = null;
  refresh();
}

// A click on `cell` (null: nowhere to place). One cop: the radios say
// which piece, a right click the other. Several: each click places the
// next piece (the cops in order, then the thief), a right click the thief.
function placeAt(cell, right) {
  if (cell === null) return;
  stopAuto();
  const k = copCount();
  if (k === 1) {
    const piece = right ? other(state.place) : state.place;
    if (piece === "cop") state.cops = [cell];
    else state.thief = cell;
  } else {
    if (right || state.next === k) state.thief = cell;
    else state.cops[state.next] = cell;
    if (!right) state.next = (state.next + 1) % (k + 1);
  }
  state.game = null;
  refresh();
}

// The cell a click lands on: a free cell of the map (a wall says so), or
// the vertex within reach of its disc; null elsewhere.
function clickedCell(event) {
  if (state.graph) return vertexAt(event);
  const [r, c] = gridAt(event);
  const { rows, cols, grid } = state.map;
  if (r < 0 || c < 0 || r >= rows || c >= cols) return null;
  if (grid[r][c] === "#") {
    $("error").textContent = `${r},${c} is a wall`;
    return null;
  }
  return [r, c];
}

// The cell under the pointer, told in the panel.
function hover(event) {
  if (!state.map) return;
  if (state.graph) {
    const v = vertexAt(event);
    $("hover").textContent = v === null ? "" : `vertex ${v}${state.graphExits.has(v) ? " (exit)" : ""}`;
    return;
  }
  const [r, c] = gridAt(event);
  const { rows, cols, grid } = state.map;
  if (r < 0 || c < 0 || r >= rows || c >= cols) {
    $("hover").textContent = "";
    return;
  }
  const kind = grid[r][c] === "#" ? " (wall)" : grid[r][c] === "E" ? " (exit)" : "";
  $("hover").textContent = `cell ${r},${c}${kind}`;
}

// The map's row and column under the pointer (maybe off the map).
function gridAt(event) {
  const rect = $("board").getBoundingClientRect();
  return [
    Math.floor((event.clientY - rect.top) / state.cell),
    Math.floor((event.clientX - rect.left) / state.cell),
  ];
}

// The graph's vertex nearest the pointer, if within reach of its disc.
function vertexAt(event) {
  const rect = $("board").getBoundingClientRect();
  const x = event.clientX - rect.left;
  const y = event.clientY - rect.top;
  let best = null;
  let bestD = Infinity;
  for (let v = 0; v < state.map.vertices; v++) {
    const [vx, vy] = vertex(v);
    const d = Math.hypot(vx - x, vy - y);
    if (d < bestD) [best, bestD] = [v, d];
  }
  return bestD <= Math.max(vertexRadius() * 2, 12) ? best : null;
}

// The optimal game from the position on the board.
async function ensureGame() {
  if (state.game) return true;
  if (!placed()) {
    $("error").textContent = copCount() === 1 ? "place both pieces first" : "place every piece first";
    return false;
  }
  try {
    state.game = await api("/api/play", positionParams());
    state.gameIndex = 0;
    return true;
  } catch (e) {
    $("error").textContent = e.message;
    return false;
  }
}

async function step(to) {
  if (!(await ensureGame())) return;
  const last = state.game.positions.length - 1;
  const i = Math.max(0, Math.min(last, to(state.gameIndex, last)));
  state.gameIndex = i;
  const p = state.game.positions[i];
  state.cops = copsOf(p).slice();
  state.thief = p.thief;
  state.turn = p.turn;
  if (i === last) stopAuto();
  await refresh();
}

function stopAuto() {
  if (state.autoTimer) clearInterval(state.autoTimer);
  state.autoTimer = null;
  $("auto").textContent = "autoplay";
}

async function toggleAuto() {
  if (state.autoTimer) return stopAuto();
  if (!(await ensureGame())) return;
  if (state.gameIndex === state.game.positions.length - 1) await step(() => 0);
  state.autoTimer = setInterval(() => step((i) => i + 1), 400);
  updatePanel();
}

function wire() {
  const canvas = $("board");
  canvas.addEventListener("click", (e) => placeAt(clickedCell(e), false));
  canvas.addEventListener("mousemove", hover);
  canvas.addEventListener("mouseleave", () => ($("hover").textContent = ""));
  canvas.addEventListener("contextmenu", (e) => {
    e.preventDefault();
    placeAt(clickedCell(e), true);
  });
  for (const input of document.querySelectorAll("input[name=place]")) {
    input.addEventListener("change", () => (state.place = input.value));
  }
  for (const input of document.querySelectorAll("input[name=heat]")) {
    input.addEventListener("change", () => {
      state.heat = input.value;
      refresh();
    });
  }
  $("turn").addEventListener("click", () => {
    stopAuto();
    state.turn = other(state.turn);
    state.game = null;
    refresh();
  });
  $("first").addEventListener("click", () => step(() => 0));
  $("back").addEventListener("click", () => step((i) => i - 1));
  $("forward").addEventListener("click", () => step((i) => i + 1));
  $("last").addEventListener("click", () => step((i, last) => last));
  $("auto").addEventListener("click", toggleAuto);
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "SELECT" || e.target.tagName === "INPUT") return;
    const keys = {
      ArrowLeft: () => step((i) => i - 1),
      ArrowRight: () => step((i) => i + 1),
      Home: () => step(() => 0),
      End: () => step((i, last) => last),
      " ": toggleAuto,
      t: () => $("turn").click(),
    };
    if (keys[e.key]) {
      e.preventDefault();
      keys[e.key]();
    }
  });
  window.addEventListener("resize", layout);
}

// For tests and scripts: where a cell or vertex is on screen, and whether
// the page waits for an answer.
window.retrograde = {
  state,
  cellCenter(r, c) {
    const rect = $("board").getBoundingClientRect();
    return { x: rect.left + (c + 0.5) * state.cell, y: rect.top + (r + 0.5) * state.cell };
  },
  vertexCenter(v) {
    const rect = $("board").getBoundingClientRect();
    const [x, y] = vertex(v);
    return { x: rect.left + x, y: rect.top + y };
  },
  busy: () => state.pending > 0,
};

wire();
init();
