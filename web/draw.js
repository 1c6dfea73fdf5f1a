// The drawing half of the page of `retrograde serve` (app.js is the
// rest): the map or graph, its heatmap, the pieces, the moves and the game
// played. Loaded before app.js; its functions read app.js's `state`, `$`
// and `RGB` when they run, after both have loaded.
"use strict";

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

// Fits the canvas to its box. A map: whole pixels per cell when cells are
// large, fractions when the map has more cells than the box has pixels. A
// graph: a square.
function layout() {
  if (!state.map) return;
  const box = $("board-box");
  const canvas = $("board");
  const dpr = window.devicePixelRatio || 1;
  if (state.graph) {
    const side = Math.max(200, Math.min(box.clientWidth, box.clientHeight) - 16);
    state.cell = side;
    canvas.style.width = canvas.style.height = `${side}px`;
    canvas.width = canvas.height = Math.round(side * dpr);
    return draw();
  }
  const { rows, cols } = state.map;
  let cell = Math.min((box.clientWidth - 16) / cols, (box.clientHeight - 16) / rows);
  if (cell >= 2) cell = Math.floor(cell);
  cell = Math.max(cell, 0.25);
  state.cell = cell;
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

// Keeps a heatmap; on a map also drawn at one pixel per cell, paler with
// distance (quick ends stand out). A graph colours its vertices by it.
function setRow(row, key) {
  state.row = { ...row, key };
  if (state.graph) return;
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
}

// The heatmap on screen, if its answer is in.
const shownRow = () =>
  state.heat !== "off" && state.row && state.row.key === rowKey() ? state.row : null;

function draw() {
  const canvas = $("board");
  const ctx = canvas.getContext("2d");
  if (!state.map || (!state.graph && !state.base)) return;
  const dpr = window.devicePixelRatio || 1;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  if (state.graph) drawGraph(ctx);
  else drawGrid(ctx);
  drawPlay(ctx);
}

// A map: its cells, the heatmap with the exits over it, grid lines.
function drawGrid(ctx) {
  const { rows, cols, grid } = state.map;
  const cell = state.cell;
  ctx.imageSmoothingEnabled = false;
  const w = cols * cell;
  const h = rows * cell;
  ctx.clearRect(0, 0, w, h);
  ctx.drawImage(state.base, 0, 0, w, h);
  if (shownRow()) {
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
}

// A graph: edges, then vertices filled by the heatmap (or free and exit
// colours), then vertex ids.
function drawGraph(ctx) {
  const side = state.cell;
  ctx.clearRect(0, 0, side, side);
  ctx.fillStyle = `rgb(${RGB.free})`;
  ctx.fillRect(0, 0, side, side);
  ctx.strokeStyle = "rgba(0,0,0,0.35)";
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (const [u, v] of state.map.edges) {
    ctx.moveTo(...vertex(u));
    ctx.lineTo(...vertex(v));
  }
  ctx.stroke();
  const heat = shownRow();
  const r = vertexRadius();
  for (let v = 0; v < state.map.vertices; v++) {
    const [x, y] = vertex(v);
    const exit = state.graphExits.has(v);
    const rgb = heat ? RGB[winner(heat.values[v], heat.turn)] : exit ? RGB.exit : [255, 255, 255];
    ctx.fillStyle = `rgb(${rgb})`;
    ctx.strokeStyle = exit ? `rgb(${RGB.exit})` : "#555";
    ctx.lineWidth = exit ? 3 : 1;
    ctx.beginPath();
    ctx.arc(x, y, r, 0, 2 * Math.PI);
    ctx.fill();
    ctx.stroke();
  }
  drawVertexIds(ctx, r);
}

// Vertex ids outside the circle, where the pieces do not cover them; on a
// crowded circle only every `step`-th (1, 2, 5, 10, 20, ...), so that no
// two overlap (pointing at a vertex names it).
function drawVertexIds(ctx, r) {
  const size = Math.round(Math.max(10, r));
  ctx.fillStyle = "#555";
  ctx.font = `${size}px system-ui, sans-serif`;
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  const n = state.map.vertices;
  const [x0, y0] = vertex(0, r * 1.9);
  const around = (2 * Math.PI * Math.hypot(x0 - state.cell / 2, y0 - state.cell / 2)) / n;
  const wide = ctx.measureText(`${n - 1}`).width + size / 2;
  let step = 1;
  for (let unit = 1; step * around < wide; unit *= 10) {
    step = [1, 2, 5].map((m) => m * unit).find((s) => s * around >= wide) || 10 * unit;
  }
  for (let v = 0; v < n; v += step) ctx.fillText(`${v}`, ...vertex(v, r * 1.9));
}

// Vertex `v` on the circle; `out` pixels further out for its label.
function vertex(v, out = 0) {
  const side = state.cell;
  const n = state.map.vertices;
  const angle = (2 * Math.PI * v) / n - Math.PI / 2;
  const radius = side / 2 - vertexRadius() * 2.5 + out;
  return [side / 2 + radius * Math.cos(angle), side / 2 + radius * Math.sin(angle)];
}

const vertexRadius = () => Math.max(4, Math.min(16, (Math.PI * state.cell) / (3 * state.map.vertices)));

// The screen centre of a cell.
const center = (cell) =>
  state.graph ? vertex(cell) : [(cell[1] + 0.5) * state.cell, (cell[0] + 0.5) * state.cell];

// What play draws over the board: the game's trails, every move's
// targets, the pieces.
function drawPlay(ctx) {
  // The size pieces and markers are drawn for.
  const size = state.graph ? vertexRadius() * 2.4 : state.cell;
  if (state.game) drawTrails(ctx, size);
  // Every move's target, coloured by what it gives the mover.
  if (state.info && size >= 6) {
    for (const m of state.info.moves)
      for (const t of moveCells(state.info, m)) drawTarget(ctx, center(t), m.value, size);
  }
  const pieces = [];
  if (state.thief !== null) pieces.push(["thief", state.thief, "T"]);
  // "C1", not "1", with several cops: on a graph a bare number reads as
  // a vertex id.
  const one = copCount() === 1;
  state.cops.forEach((c, i) => c !== null && pieces.push(["cop", c, one ? "C" : `C${i + 1}`]));
  const stacked = new Map(); // pieces on one cell fan out
  const radius = pieceRadius(size);
  for (const [piece, at, label] of pieces) {
    const n = stacked.get(fmt(at)) || 0;
    stacked.set(fmt(at), n + 1);
    const [x, y] = center(at);
    drawPiece(ctx, piece, [x + n * radius * 0.6, y - n * radius * 0.6], size, label);
  }
}

// The game so far as trails: the thief's, and the cop's when there is
// one (the API lists several cops ascending at each ply, so one cop's path
// cannot be told from another's).
function drawTrails(ctx, size) {
  const upto = state.game.positions.slice(0, state.gameIndex + 1);
  const trails = [["thief", (p) => p.thief]];
  if (copCount() === 1) trails.unshift(["cop", (p) => copsOf(p)[0]]);
  for (const [piece, at] of trails) {
    ctx.strokeStyle = `rgba(${RGB[piece]},0.7)`;
    ctx.lineWidth = Math.max(1.5, size / 6);
    ctx.beginPath();
    upto.forEach((p, i) => (i ? ctx.lineTo(...center(at(p))) : ctx.moveTo(...center(at(p)))));
    ctx.stroke();
  }
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
