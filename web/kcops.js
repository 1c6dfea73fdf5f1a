// The page of `retrograde serve` on a table of several cops: K cops and the
// thief placed by clicks (each click places the next piece in turn), the
// value, the rated moves (the cops' joint moves or the thief's), the
// thief's heatmap with every cop held still, the optimal game. Maps are
// drawn as grids; a graph's vertices stand on a circle, joined by its
// edges. Uses app.js's helpers ($, RGB, api, winner, other, state); app.js
// hands over to these functions when `state.k` is set.
"use strict";

// A cell as text: `r,c` on a map, the vertex id on a graph.
const kfmt = (cell) => (Array.isArray(cell) ? `${cell[0]},${cell[1]}` : `${cell}`);
const ksame = (a, b) => a !== null && b !== null && kfmt(a) === kfmt(b);
// The cops of a position as text, ascending as the API shows them (by
// row then column, or by vertex id).
const ksorted = (cops) =>
  cops
    .slice()
    .sort((a, b) => (Array.isArray(a) ? a[0] - b[0] || a[1] - b[1] : a - b))
    .map(kfmt)
    .join(" ");

// Enters several-cops mode for table `t` (an entry of /api/tables).
async function kLoad(t, link) {
  state.map = await api("/api/map", { table: t.name });
  const graph = state.map.kind === "graph";
  state.k = {
    count: t.cops,
    graph,
    cops: t.start ? t.start.cops.slice() : new Array(t.cops).fill(null),
    next: 0, // which piece the next click places: 0..count-1 a cop, count the thief
    exits: graph ? new Set(state.map.exits) : null,
  };
  state.thief = t.start ? t.start.thief : null;
  state.cop = null;
  state.turn = t.start ? t.start.turn : t.first_mover;
  state.game = null;
  state.row = null;
  state.info = null;
  if (state.heat === "thief") {
    // The thief cannot be held still here: its heatmap would range over
    // every placement of the cops.
    state.heat = "cop";
    document.querySelector("input[name=heat][value=cop]").checked = true;
  }
  if (link) link();
  const speeds =
    t.cop_speed !== 1 || t.thief_speed !== 1 ? `, speeds ${t.cop_speed} and ${t.thief_speed}` : "";
  $("table-info").textContent =
    (graph
      ? `graph of ${t.cells} vertices, ${t.cops} cops, ${t.exits} exits`
      : `${t.rows} x ${t.cols}, ${t.cells} free cells, ${t.cops} cops, ${t.exits} exits`) +
    speeds +
    (t.has_dte ? "" : ", no distances stored");
  kMode(true);
  if (!graph) buildBase();
  layout();
  await refresh();
}

// Shows the controls of one mode: the radios of the one-cop page or the
// several-cops line saying which piece a click places.
function kMode(on) {
  $("place-one").hidden = on;
  $("place-k").hidden = !on;
  $("heat-thief").hidden = on;
  $("heat-cop-label").textContent = on ? "cops held still" : "cop held still";
}

// `cop=` once per cop, `thief=`, `turn=` from a link.
function kApplyLink(params) {
  const problems = [];
  const cells = params.getAll("cop");
  if (cells.length) {
    if (cells.length !== state.k.count)
      problems.push(`the table is of ${state.k.count} cops: the link places ${cells.length}`);
    else {
      const parsed = cells.map(kParse);
      const bad = cells.filter((_, i) => parsed[i] === null);
      if (bad.length) problems.push(`cop=${bad[0]} is not a cell of the table`);
      else state.k.cops = parsed;
    }
  }
  if (params.has("thief")) {
    const cell = kParse(params.get("thief"));
    if (cell === null) problems.push(`thief=${params.get("thief")} is not a cell of the table`);
    else state.thief = cell;
  }
  if (params.has("turn")) {
    const turn = params.get("turn");
    if (turn === "cop" || turn === "thief") state.turn = turn;
    else problems.push(`turn=${turn} is not cop or thief`);
  }
  return problems;
}

// A cell of the table from text, or null.
function kParse(text) {
  if (state.k.graph) {
    const v = /^\d+$/.test(text || "") ? Number(text) : -1;
    return v >= 0 && v < state.map.vertices ? v : null;
  }
  const rc = parseCell(text);
  if (!rc || rc[0] >= state.map.rows || rc[1] >= state.map.cols) return null;
  return state.map.grid[rc[0]][rc[1]] === "#" ? null : rc;
}

function kParams() {
  const params = new URLSearchParams({ table: state.table.name });
  for (const c of state.k.cops) params.append("cop", kfmt(c));
  params.set("thief", kfmt(state.thief));
  params.set("turn", state.turn);
  return params;
}

function kUpdateLink() {
  const params = new URLSearchParams({ table: state.table.name });
  for (const c of state.k.cops) if (c !== null) params.append("cop", kfmt(c));
  if (state.thief !== null) params.set("thief", kfmt(state.thief));
  params.set("turn", state.turn);
  const url = `${location.pathname}?${params.toString().replaceAll("%2C", ",")}`;
  if (url !== location.pathname + location.search) history.replaceState(null, "", url);
}

const kPlaced = () => state.k.cops.every((c) => c !== null) && state.thief !== null;
const kRowKey = () =>
  state.heat === "off" || !state.k.cops.every((c) => c !== null)
    ? null
    : `${state.table.name}|${ksorted(state.k.cops)}|${state.turn}`;

async function kRefresh() {
  const seq = ++state.seq;
  const jobs = [];
  kUpdateLink();
  kUpdatePanel();
  kDraw();
  if (kPlaced()) {
    jobs.push(
      api("/api/query", kParams()).then((info) => {
        if (seq === state.seq) state.info = info;
      }),
    );
  } else state.info = null;
  const key = kRowKey();
  if (key && (!state.row || state.row.key !== key)) {
    const params = new URLSearchParams({ table: state.table.name, turn: state.turn });
    for (const c of state.k.cops) params.append("cop", kfmt(c));
    jobs.push(
      api("/api/row", params).then((row) => {
        if (seq !== state.seq) return;
        if (state.k.graph) state.row = { ...row, key };
        else setRow(row, key);
      }),
    );
  }
  await settle(jobs, seq, () => {
    kUpdatePanel();
    kDraw();
  });
}

function kSentence(info) {
  const w = winner(info.value, info.turn);
  const plies = info.dte === null ? "" : ` in ${info.dte} ${info.dte === 1 ? "ply" : "plies"}`;
  if (info.moves.length === 0 && info.dte === 0)
    return w === "cop" ? "game over: a cop has caught the thief" : "game over: the thief has escaped";
  if (w === "cop") return `the cops catch the thief${plies}`;
  if (w === "thief") return `the thief escapes${plies}`;
  return "draw: the thief evades forever";
}

function kUpdatePanel() {
  const k = state.k;
  $("turn").textContent = `to move: ${state.turn}`;
  const next = k.next < k.count ? `cop ${k.next + 1} of ${k.count}` : "the thief";
  $("kplace-next").textContent = next;
  const where = [];
  where.push(
    k.cops.every((c) => c !== null) ? `cops ${ksorted(k.cops)}` : `place ${k.count} cops`,
  );
  where.push(state.thief !== null ? `thief ${kfmt(state.thief)}` : "place the thief");
  where.push(`${state.turn} to move`);
  $("where").textContent = where.join(" · ");
  const info = state.info;
  const current =
    info &&
    kPlaced() &&
    ksorted(info.cops) === ksorted(k.cops) &&
    ksame(info.thief, state.thief) &&
    info.turn === state.turn;
  const value = $("value");
  value.textContent = current ? info.value : "";
  value.className = current ? info.value : "";
  const known = current && info.dte !== null;
  $("dte").textContent = known ? info.dte : "";
  $("dte-plies").textContent = known && info.dte === 1 ? "ply" : "plies";
  $("dte-box").hidden = !known;
  $("verdict").textContent = current ? kSentence(info) : "";
  const list = $("moves");
  list.replaceChildren();
  if (current) {
    for (const m of info.moves) {
      const li = document.createElement("li");
      let step;
      if (info.turn === "cop") {
        const to = ksorted(m.to);
        step = to === ksorted(k.cops) ? "cops pass" : `cops → ${to}`;
      } else step = ksame(m.to, state.thief) ? "thief passes" : `thief → ${kfmt(m.to)}`;
      li.textContent = `${step}: `;
      const v = document.createElement("span");
      v.className = m.value;
      v.textContent = `${m.value}${m.dte === null ? "" : ` in ${m.dte}`}`;
      li.append(v);
      li.addEventListener("click", () => kMakeMove(m.to));
      list.append(li);
    }
  }
  const g = state.game;
  $("game-info").textContent = g
    ? `ply ${state.gameIndex} of ${g.plies}; the game ends by ${g.end}`
    : "no game yet: step forward to start one";
  $("auto").textContent = state.autoTimer ? "stop" : "autoplay";
}

function kMakeMove(to) {
  stopAuto();
  if (state.turn === "cop") state.k.cops = to.slice();
  else state.thief = to;
  state.turn = other(state.turn);
  state.game = null;
  refresh();
}

// A click places the next piece (cops in order, then the thief); a right
// click places the thief.
function kPlace(cell, thief) {
  if (cell === null) return;
  const k = state.k;
  stopAuto();
  if (thief || k.next === k.count) state.thief = cell;
  else k.cops[k.next] = cell;
  if (!thief) k.next = (k.next + 1) % (k.count + 1);
  state.game = null;
  refresh();
}

// The cell under the pointer: a free grid cell, or the nearest vertex
// within reach of its disc; null elsewhere (a wall says so).
function kCellAt(event) {
  if (!state.k.graph) {
    const [r, c] = cellAt(event);
    const { rows, cols, grid } = state.map;
    if (r < 0 || c < 0 || r >= rows || c >= cols) return null;
    if (grid[r][c] === "#") {
      $("error").textContent = `${r},${c} is a wall`;
      return null;
    }
    return [r, c];
  }
  const rect = $("board").getBoundingClientRect();
  const x = event.clientX - rect.left;
  const y = event.clientY - rect.top;
  let best = null;
  let bestD = Infinity;
  for (let v = 0; v < state.map.vertices; v++) {
    const [vx, vy] = kVertex(v);
    const d = Math.hypot(vx - x, vy - y);
    if (d < bestD) [best, bestD] = [v, d];
  }
  return bestD <= Math.max(kVertexRadius() * 2, 12) ? best : null;
}

// A graph's drawing: vertices on a circle in a square canvas.
function kGraphLayout() {
  const box = $("board-box");
  const side = Math.max(200, Math.min(box.clientWidth, box.clientHeight) - 16);
  state.cell = side; // the canvas side, in CSS pixels
  const canvas = $("board");
  const dpr = window.devicePixelRatio || 1;
  canvas.style.width = canvas.style.height = `${side}px`;
  canvas.width = canvas.height = Math.round(side * dpr);
  kDraw();
}

// Vertex `v` on the circle; `out` pixels further out for its label.
function kVertex(v, out = 0) {
  const side = state.cell;
  const n = state.map.vertices;
  const angle = (2 * Math.PI * v) / n - Math.PI / 2;
  const radius = side / 2 - kVertexRadius() * 2.5 + out;
  return [side / 2 + radius * Math.cos(angle), side / 2 + radius * Math.sin(angle)];
}

const kVertexRadius = () =>
  Math.max(4, Math.min(16, (Math.PI * state.cell) / (3 * state.map.vertices)));

// The screen centre of a cell.
function kCenter(cell) {
  if (state.k.graph) return kVertex(cell);
  return [(cell[1] + 0.5) * state.cell, (cell[0] + 0.5) * state.cell];
}

function kDraw() {
  if (!state.map) return;
  const k = state.k;
  if (!k.graph) {
    // The grid, the heatmap and the move markers as for one cop; the
    // pieces are drawn below.
    const saved = [state.cop, state.thief, state.info, state.game];
    state.cop = state.thief = state.info = state.game = null;
    state.kGrid = true;
    try {
      draw();
    } finally {
      state.kGrid = false;
      [state.cop, state.thief, state.info, state.game] = saved;
    }
  } else kDrawGraph();
  const canvas = $("board");
  const ctx = canvas.getContext("2d");
  const dpr = window.devicePixelRatio || 1;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  const cell = k.graph ? kVertexRadius() * 2.4 : state.cell;
  // The thief's moves or the cops' targets, coloured by what they give.
  if (state.info && cell >= 6) {
    for (const m of state.info.moves) {
      const targets = state.info.turn === "cop" ? m.to : [m.to];
      for (const t of targets) drawTarget(ctx, kCenter(t), m.value, cell);
    }
  }
  const pieces = [];
  if (state.thief !== null) pieces.push(["thief", state.thief, "T"]);
  // "C1", not "1": on a graph a bare number reads as a vertex id.
  k.cops.forEach((c, i) => c !== null && pieces.push(["cop", c, `C${i + 1}`]));
  const stacked = new Map(); // pieces on one cell fan out
  const radius = pieceRadius(cell);
  for (const [piece, at, label] of pieces) {
    const n = stacked.get(kfmt(at)) || 0;
    stacked.set(kfmt(at), n + 1);
    const [cx, cy] = kCenter(at);
    drawPiece(ctx, piece, [cx + n * radius * 0.6, cy - n * radius * 0.6], cell, label);
  }
}

// Edges, then vertices filled by the heatmap (or free/exit colours).
function kDrawGraph() {
  const canvas = $("board");
  const ctx = canvas.getContext("2d");
  const dpr = window.devicePixelRatio || 1;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, state.cell, state.cell);
  ctx.fillStyle = `rgb(${RGB.free})`;
  ctx.fillRect(0, 0, state.cell, state.cell);
  ctx.strokeStyle = "rgba(0,0,0,0.35)";
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (const [u, v] of state.map.edges) {
    ctx.moveTo(...kVertex(u));
    ctx.lineTo(...kVertex(v));
  }
  ctx.stroke();
  const heat = state.heat !== "off" && state.row && state.row.key === kRowKey() ? state.row : null;
  const r = kVertexRadius();
  for (let v = 0; v < state.map.vertices; v++) {
    const [x, y] = kVertex(v);
    const exit = state.k.exits.has(v);
    const rgb = heat ? RGB[winner(heat.values[v], heat.turn)] : exit ? RGB.exit : [255, 255, 255];
    ctx.fillStyle = `rgb(${rgb})`;
    ctx.strokeStyle = exit ? `rgb(${RGB.exit})` : "#555";
    ctx.lineWidth = exit ? 3 : 1;
    ctx.beginPath();
    ctx.arc(x, y, r, 0, 2 * Math.PI);
    ctx.fill();
    ctx.stroke();
  }
  // Vertex ids outside the circle, where the pieces do not cover them;
  // on a crowded circle only every `step`-th (1, 2, 5, 10, 20, ...), so
  // that no two overlap (pointing at a vertex names it).
  const size = Math.round(Math.max(10, r));
  ctx.fillStyle = "#555";
  ctx.font = `${size}px system-ui, sans-serif`;
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  const n = state.map.vertices;
  const [x0, y0] = kVertex(0, r * 1.9);
  const around = (2 * Math.PI * Math.hypot(x0 - state.cell / 2, y0 - state.cell / 2)) / n;
  const wide = ctx.measureText(`${n - 1}`).width + size / 2;
  let step = 1;
  for (let unit = 1; step * around < wide; unit *= 10) {
    step = [1, 2, 5].map((m) => m * unit).find((s) => s * around >= wide) || 10 * unit;
  }
  for (let v = 0; v < n; v += step) ctx.fillText(`${v}`, ...kVertex(v, r * 1.9));
}

function kHover(event) {
  if (!state.k.graph) return false;
  const cell = kCellAtQuiet(event);
  $("hover").textContent =
    cell === null ? "" : `vertex ${cell}${state.k.exits.has(cell) ? " (exit)" : ""}`;
  return true;
}

// kCellAt without the wall message (the pointer only passes over).
function kCellAtQuiet(event) {
  const error = $("error").textContent;
  const cell = kCellAt(event);
  $("error").textContent = error;
  return cell;
}

// A game position shown on the board.
function kShow(p) {
  state.k.cops = p.cops.slice();
  state.thief = p.thief;
  state.turn = p.turn;
}
