// The page of `retrograde serve`: draws the map, places the pieces, asks the
// JSON API and shows the answers. No libraries: everything is in this file.
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
  k: null, // on a table of several cops: its cops and what a click places (kcops.js)
  map: null, // /api/map: {rows, cols, grid}
  cop: null, // [row, col]
  thief: null,
  turn: "cop",
  place: "cop",
  heat: "cop", // "off", or the piece held still
  row: null, // the last /api/row answer, with .key
  info: null, // the last /api/query answer
  game: null, // the last /api/play answer
  gameIndex: 0,
  autoTimer: null,
  cell: 1, // CSS pixels per cell
  base: null, // an offscreen canvas, one pixel per cell: the map
  exits: null, // the same, exits only (drawn over the heatmap on small cells)
  heatLayer: null, // the same for the heatmap
  seq: 0, // the newest refresh; older answers are dropped
  pending: 0, // requests in flight (tests wait for 0)
};

const other = (piece) => (piece === "cop" ? "thief" : "cop");
const fmt = (rc) => `${rc[0]},${rc[1]}`;
const same = (a, b) => a && b && a[0] === b[0] && a[1] === b[1];

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

// `?table=&cop=&thief=&turn=` opens that position; bad parts are named.
function applyLink(params) {
  const problems = [];
  const { rows, cols, grid } = state.map;
  for (const piece of ["cop", "thief"]) {
    if (!params.has(piece)) continue;
    const rc = parseCell(params.get(piece));
    if (!rc || rc[0] >= rows || rc[1] >= cols) problems.push(`${piece}=${params.get(piece)} is not a cell of the map`);
    else if (grid[rc[0]][rc[1]] === "#") problems.push(`${piece}=${fmt(rc)} is a wall`);
    else state[piece] = rc;
  }
  if (params.has("turn")) {
    const turn = params.get("turn");
    if (turn === "cop" || turn === "thief") state.turn = turn;
    else problems.push(`turn=${turn} is not cop or thief`);
  }
  return problems;
}

// The address follows the position, so that it can be shared or reloaded.
function updateLink() {
  if (!state.table) return;
  if (state.k) return kUpdateLink();
  const params = new URLSearchParams({ table: state.table.name });
  if (state.cop) params.set("cop", fmt(state.cop));
  if (state.thief) params.set("thief", fmt(state.thief));
  params.set("turn", state.turn);
  // Commas kept readable: `cop=3,4`, not `cop=3%2C4`.
  const url = `${location.pathname}?${params.toString().replaceAll("%2C", ",")}`;
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
    const apply = () => problems.push(...(state.k ? kApplyLink(link) : applyLink(link)));
    await loadTable(first, cells ? apply : null);
    if (problems.length) $("error").textContent = `link: ${problems.join("; ")}`;
  } catch (e) {
    $("error").textContent = e.message;
  }
}

// `link`, when given, places the pieces from the address before the
// first refresh.
async function loadTable(name, link) {
  stopAuto();
  state.table = state.tables.find((t) => t.name === name);
  if (state.table.cops > 1) return kLoad(state.table, link);
  state.k = null;
  kMode(false);
  state.map = await api("/api/map", { table: name });
  const t = state.table;
  state.cop = t.start ? t.start.cop : null;
  state.thief = t.start ? t.start.thief : null;
  state.turn = t.start ? t.start.turn : t.first_mover;
  state.game = null;
  state.row = null;
  state.info = null;
  if (link) link();
  $("table-info").textContent =
    `${t.rows} x ${t.cols}, ${t.cells} free cells, ${t.exits} exits` +
    (t.has_dte ? "" : ", no distances stored");
  buildBase();
  layout();
  await refresh();
}

// The map at one pixel per cell, scaled up when drawn.
function buildBase() {
  const { rows, cols, grid } = state.map;
  const canvas = document.createElement("canvas");
  canvas.width = cols;
  canvas.height = rows;
  const ctx = canvas.getContext("2d");
  const image = ctx.createImageData(cols, rows);
  for (let r = 0; r < rows; r++) {
    const line = grid[r];
    for (let c = 0; c < cols; c++) {
      const ch = line[c];
      const rgb = ch === "#" ? RGB.wall : ch === "E" ? RGB.exit : RGB.free;
      image.data.set([...rgb, 255], (r * cols + c) * 4);
    }
  }
  ctx.putImageData(image, 0, 0);
  state.base = canvas;
  const exits = document.createElement("canvas");
  exits.width = cols;
  exits.height = rows;
  const ex = exits.getContext("2d");
  const layer = ex.createImageData(cols, rows);
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++)
      if (grid[r][c] === "E") layer.data.set([...RGB.exit, 255], (r * cols + c) * 4);
  ex.putImageData(layer, 0, 0);
  state.exits = exits;
}

// Fits the canvas to its box: whole pixels per cell when cells are large,
// fractions when the map has more cells than the box has pixels.
function layout() {
  if (!state.map) return;
  if (state.k && state.k.graph) return kGraphLayout();
  const box = $("board-box");
  const { rows, cols } = state.map;
  let cell = Math.min((box.clientWidth - 16) / cols, (box.clientHeight - 16) / rows);
  if (cell >= 2) cell = Math.floor(cell);
  cell = Math.max(cell, 0.25);
  state.cell = cell;
  const canvas = $("board");
  const dpr = window.devicePixelRatio || 1;
  canvas.style.width = `${cols * cell}px`;
  canvas.style.height = `${rows * cell}px`;
  canvas.width = Math.round(cols * cell * dpr);
  canvas.height = Math.round(rows * cell * dpr);
  draw();
}

// The winner's colour for a value seen by the player to move.
function winner(value, mover) {
  if (value === "w" || value === "win") return mover;
  if (value === "l" || value === "loss") return other(mover);
  return "draw";
}

function setRow(row, key) {
  const { rows, cols, values, dte } = row;
  let maxDte = 1;
  if (dte) for (const d of dte) if (d > maxDte) maxDte = d;
  const canvas = document.createElement("canvas");
  canvas.width = cols;
  canvas.height = rows;
  const ctx = canvas.getContext("2d");
  const image = ctx.createImageData(cols, rows);
  let free = 0;
  for (let i = 0; i < rows * cols; i++) {
    const v = values[i];
    if (v === "#") continue;
    const rgb = RGB[winner(v, row.turn)];
    // Paler with distance: quick ends stand out.
    const d = dte ? dte[free] : -1;
    const fade = d >= 0 ? 0.65 * (d / maxDte) : 0;
    image.data.set(
      [...rgb.map((x) => Math.round(x + (255 - x) * fade)), 255],
      i * 4,
    );
    free++;
  }
  ctx.putImageData(image, 0, 0);
  state.heatLayer = canvas;
  state.row = { ...row, key };
}

function draw() {
  // On several cops kDraw draws the grid through this function (with
  // state.kGrid set), then its own pieces.
  if (state.k && !state.kGrid) return kDraw();
  const canvas = $("board");
  const ctx = canvas.getContext("2d");
  if (!state.map || !state.base) return;
  const dpr = window.devicePixelRatio || 1;
  const { rows, cols, grid } = state.map;
  const cell = state.cell;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.imageSmoothingEnabled = false;
  const w = cols * cell;
  const h = rows * cell;
  ctx.clearRect(0, 0, w, h);
  ctx.drawImage(state.base, 0, 0, w, h);
  if (state.heat !== "off" && state.row && state.row.key === rowKey()) {
    ctx.globalAlpha = 0.85;
    ctx.drawImage(state.heatLayer, 0, 0, w, h);
    ctx.globalAlpha = 1;
    // Exits stay visible under the heatmap: outlined on large cells,
    // filled on small ones (rim exits line every border of a big map).
    if (cell < 4) {
      ctx.drawImage(state.exits, 0, 0, w, h);
    } else {
      ctx.strokeStyle = `rgb(${RGB.exit})`;
      ctx.lineWidth = Math.max(1, cell / 8);
      for (let r = 0; r < rows; r++)
        for (let c = 0; c < cols; c++)
          if (grid[r][c] === "E") ctx.strokeRect(c * cell + 1, r * cell + 1, cell - 2, cell - 2);
    }
  }
  if (cell >= 10) {
    ctx.strokeStyle = "rgba(0,0,0,0.08)";
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (let r = 0; r <= rows; r++) {
      ctx.moveTo(0, r * cell);
      ctx.lineTo(w, r * cell);
    }
    for (let c = 0; c <= cols; c++) {
      ctx.moveTo(c * cell, 0);
      ctx.lineTo(c * cell, h);
    }
    ctx.stroke();
  }
  const center = (rc) => [(rc[1] + 0.5) * cell, (rc[0] + 0.5) * cell];
  // The game so far as two trails.
  if (state.game) {
    const upto = state.game.positions.slice(0, state.gameIndex + 1);
    for (const piece of ["cop", "thief"]) {
      ctx.strokeStyle = `rgba(${RGB[piece]},0.7)`;
      ctx.lineWidth = Math.max(1.5, cell / 6);
      ctx.beginPath();
      upto.forEach((p, i) => (i ? ctx.lineTo(...center(p[piece])) : ctx.moveTo(...center(p[piece]))));
      ctx.stroke();
    }
  }
  // Every move's target, coloured by what it gives the mover.
  if (state.info && cell >= 6) {
    for (const m of state.info.moves) drawTarget(ctx, center(m.to), m.value, cell);
  }
  for (const piece of ["thief", "cop"]) {
    if (state[piece]) drawPiece(ctx, piece, center(state[piece]), cell, piece === "cop" ? "C" : "T");
  }
}

const rowKey = () => {
  if (state.k) return kRowKey();
  const at = state.heat === "off" ? null : state[state.heat];
  return at ? `${state.table.name}|${state.heat}|${fmt(at)}|${state.turn}` : null;
};

const positionParams = () => ({
  table: state.table.name,
  cop: fmt(state.cop),
  thief: fmt(state.thief),
  turn: state.turn,
});

// Asks for what the screen shows: the position and the heatmap.
async function refresh() {
  if (state.k) return kRefresh();
  const seq = ++state.seq;
  const jobs = [];
  updateLink();
  updatePanel();
  draw();
  if (state.cop && state.thief) {
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
    const params = { table: state.table.name, turn: state.turn };
    params[state.heat] = fmt(state[state.heat]);
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

// A move's target: a dot coloured by what the move gives the mover.
function drawTarget(ctx, [x, y], value, cell) {
  ctx.fillStyle = value === "win" ? "#16813d" : value === "loss" ? "#b3261e" : "#666";
  ctx.beginPath();
  ctx.arc(x, y, Math.max(2, cell / 7), 0, 2 * Math.PI);
  ctx.fill();
}

// A piece's radius on cells of `cell` pixels: never smaller than a
// labelled disc, since on big maps a cell is under a pixel and the pieces
// must still be found and told apart.
const pieceRadius = (cell) => Math.max(cell * 0.42, 9);

// A piece: a disc in its colour, ringed black when it is to move, with its
// label.
function drawPiece(ctx, piece, [x, y], cell, label) {
  const radius = pieceRadius(cell);
  ctx.fillStyle = `rgb(${RGB[piece]})`;
  ctx.strokeStyle = piece === state.turn ? "#000" : "#fff";
  ctx.lineWidth = Math.max(1.5, radius / 4);
  ctx.beginPath();
  ctx.arc(x, y, radius, 0, 2 * Math.PI);
  ctx.fill();
  ctx.stroke();
  ctx.fillStyle = "#fff";
  ctx.font = `bold ${Math.round(radius * 1.1)}px system-ui, sans-serif`;
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.fillText(label, x, y + 1);
}

function sentence(info) {
  const mover = info.turn;
  const w = winner(info.value, mover);
  const plies = info.dte === null ? "" : ` in ${info.dte} ${info.dte === 1 ? "ply" : "plies"}`;
  if (info.moves.length === 0 && info.dte === 0) {
    return w === "cop" ? "game over: the cop has caught the thief" : "game over: the thief has escaped";
  }
  if (w === "cop") return `the cop catches the thief${plies}`;
  if (w === "thief") return `the thief escapes${plies}`;
  return "draw: the thief evades forever";
}

function updatePanel() {
  if (state.k) return kUpdatePanel();
  $("turn").textContent = `to move: ${state.turn}`;
  const where = [];
  where.push(state.cop ? `cop ${fmt(state.cop)}` : "place the cop");
  where.push(state.thief ? `thief ${fmt(state.thief)}` : "place the thief");
  where.push(`${state.turn} to move`);
  $("where").textContent = where.join(" · ");
  const info = state.info;
  const current =
    info && same(info.cop, state.cop) && same(info.thief, state.thief) && info.turn === state.turn;
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
      const from = state[info.turn];
      const step = same(m.to, from) ? "pass" : `→ ${fmt(m.to)}`;
      const dte = m.dte === null ? "" : ` in ${m.dte}`;
      li.textContent = `${info.turn} ${step}: `;
      const v = document.createElement("span");
      v.className = m.value;
      v.textContent = `${m.value}${dte}`;
      li.append(v);
      li.addEventListener("click", () => makeMove(m.to));
      list.append(li);
    }
  }
  const g = state.game;
  $("game-info").textContent = g
    ? `ply ${state.gameIndex} of ${g.plies}; the game ends by ${g.end}`
    : "no game yet: step forward to start one";
  $("auto").textContent = state.autoTimer ? "stop" : "autoplay";
}

function makeMove(to) {
  stopAuto();
  state[state.turn] = to;
  state.turn = other(state.turn);
  state.game = null;
  refresh();
}

function place(piece, r, c) {
  const { rows, cols, grid } = state.map;
  if (r < 0 || c < 0 || r >= rows || c >= cols) return;
  if (grid[r][c] === "#") {
    $("error").textContent = `${r},${c} is a wall`;
    return;
  }
  stopAuto();
  state[piece] = [r, c];
  state.game = null;
  refresh();
}

// The cell under the pointer, told in the panel.
function hover(event) {
  if (!state.map || (state.k && kHover(event))) return;
  const [r, c] = cellAt(event);
  const { rows, cols, grid } = state.map;
  if (r < 0 || c < 0 || r >= rows || c >= cols) {
    $("hover").textContent = "";
    return;
  }
  const kind = grid[r][c] === "#" ? " (wall)" : grid[r][c] === "E" ? " (exit)" : "";
  $("hover").textContent = `cell ${r},${c}${kind}`;
}

function cellAt(event) {
  const rect = $("board").getBoundingClientRect();
  return [
    Math.floor((event.clientY - rect.top) / state.cell),
    Math.floor((event.clientX - rect.left) / state.cell),
  ];
}

// The optimal game from the position on the board.
async function ensureGame() {
  if (state.game) return true;
  if (state.k ? !kPlaced() : !(state.cop && state.thief)) {
    $("error").textContent = state.k ? "place every piece first" : "place both pieces first";
    return false;
  }
  try {
    state.game = await api("/api/play", state.k ? kParams() : positionParams());
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
  if (state.k) kShow(p);
  else {
    state.cop = p.cop;
    state.thief = p.thief;
    state.turn = p.turn;
  }
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
  canvas.addEventListener("click", (e) =>
    state.k ? kPlace(kCellAt(e), false) : place(state.place, ...cellAt(e)),
  );
  canvas.addEventListener("mousemove", hover);
  canvas.addEventListener("mouseleave", () => ($("hover").textContent = ""));
  canvas.addEventListener("contextmenu", (e) => {
    e.preventDefault();
    if (state.k) kPlace(kCellAt(e), true);
    else place(other(state.place), ...cellAt(e));
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

// For tests and scripts: where a cell is on screen, and whether the page
// waits for an answer.
window.retrograde = {
  state,
  cellCenter(r, c) {
    const rect = $("board").getBoundingClientRect();
    return { x: rect.left + (c + 0.5) * state.cell, y: rect.top + (r + 0.5) * state.cell };
  },
  // A graph's vertex on screen (tables of several cops on a graph).
  vertexCenter(v) {
    const rect = $("board").getBoundingClientRect();
    const [x, y] = kVertex(v);
    return { x: rect.left + x, y: rect.top + y };
  },
  busy: () => state.pending > 0,
};

wire();
init();
