// The Replay page in the browser: board, move list, VP chart and controls of one game, stepped
// without asking the server within the window of steps it holds. The server sends one view of the
// game (dashboards/replay_data.py): what that view may not see never reaches the browser, so a new
// view or a step past the window is a round trip ("want"). Every text from the database goes through
// esc() before it reaches the page.

const PALETTE = ["#2f7ed8", "#d9412b", "#2e9a48", "#e08a00", "#8e5cc7", "#1a9c9c"];
const STATE_KEY = "governor-replay:";
// Each seat's line has a dash of its own beside a colour: five seats stay apart without colour.
const DASHES = ["", "7 3", "2 3", "9 3 2 3", "4 2 1 2", "1 3"];
const MARKS = ["circle", "square", "diamond", "triangle", "cross", "circle"];

function esc(value) {
  return String(value === null || value === undefined ? "" : value)
    .replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

// A run ([[step, value], ...]) as one value per step from lo to hi (index 0 is step lo).
function expand(runs, lo, hi) {
  const out = new Array(hi - lo + 1);
  let i = 0;
  let value = null;
  for (let step = lo; step <= hi; step++) {
    while (i < runs.length && runs[i][0] <= step) { value = runs[i][1]; i++; }
    out[step - lo] = value;
  }
  return out;
}

function columns(runsByColumn, lo, hi) {
  const out = {};
  for (const [name, runs] of Object.entries(runsByColumn)) { out[name] = expand(runs, lo, hi); }
  return out;
}

// A column the view left out is absent, not null: a board tells "hidden" from "none".
function rowAt(game, cols, step) {
  const row = {};
  for (const name in cols) {
    const value = cols[name][step - game.lo];
    if (value !== undefined) { row[name] = value; }
  }
  return row;
}

// A name from the database, isolated from the text around it (a right-to-left name keeps its place
// and does not pull the numbers next to it into its own direction): <bdi> in HTML, FSI ... PDI in text.
function nameHtml(name, cls) {
  return `<bdi class="${cls}" title="${esc(name)}">${esc(name)}</bdi>`;
}
function iso(name) { return `\u2068${String(name)}\u2069`; }
function plural(count, one, many) { return `${count} ${count === 1 ? one : many || `${one}s`}`; }

function list(value) { return Array.isArray(value) ? value : []; }
function num(value) { return value === null || value === undefined ? "?" : String(value); }
function pairs(values) {
  return list(values).map((item) => {
    const text = String(item);
    const at = text.lastIndexOf(":");
    return at < 0 ? [text, ""] : [text.slice(0, at), text.slice(at + 1)];
  });
}

// -- the game, decoded once ----------------------------------------------------------------------

function decode(data) {
  const total = data.total;
  const lo = data.lo || 0;
  const hi = data.hi === undefined || data.hi === null ? total : data.hi;
  const game = {
    data,
    total,
    lo,
    hi,
    names: data.names,
    table: columns(data.table, lo, hi),
    seats: data.seats.map((s) => columns(s, lo, hi)),
    vp: data.chart.map((r) => expand(r, 0, total)),
    moveIndex: new Map(),
    roundFirst: {},
    rounds: [],
  };
  data.moves.step.forEach((step, i) => game.moveIndex.set(step, i));
  // The stored analysis: [step, seat, estimate, low, high, verdict, words, best words, best estimate,
  // best low, best high] per decision, by step (a step may hold two decisions).
  game.analysis = list(data.analysis);
  game.review = new Map();
  game.analysis.forEach((d) => {
    if (!game.review.has(d[0])) { game.review.set(d[0], []); }
    game.review.get(d[0]).push(d);
  });
  for (const [round, step] of Object.entries(data.round_first)) {
    game.roundFirst[Number(round)] = step;
    game.rounds.push(Number(round));
  }
  game.rounds.sort((a, b) => a - b);
  return game;
}

function roundAt(game, step) {
  if (step >= game.lo && step <= game.hi && game.table.round) {
    const r = game.table.round[step - game.lo];
    if (r !== null && r !== undefined) { return Number(r); }
  }
  // Outside the window: the last round whose first move is at or before the step.
  let found = 1;
  for (const r of game.rounds) { if (game.roundFirst[r] <= step) { found = r; } else { break; } }
  return found;
}

// The position before round r's first move (round 1 starts at the start of the game).
function roundStart(game, round) {
  const first = game.roundFirst[round];
  return first === undefined ? null : Math.max(0, first - 1);
}

// -- views ---------------------------------------------------------------------------------------

function viewSeat(view) {
  const found = /^seat(\d)$/.exec(view || "");
  return found ? Number(found[1]) : null;
}

function inWindow(game, step) { return step >= game.lo && step <= game.hi; }

// -- boards --------------------------------------------------------------------------------------

function badges(governor, acting, winner) {
  let out = "";
  if (governor) { out += '<span class="badge gov">governor</span>'; }
  if (acting) { out += '<span class="badge act">to act</span>'; }
  if (winner) { out += '<span class="badge win">winner</span>'; }
  return out;
}

// The score's words of the game shown (``12 VP``, the chart's heading), as its declaration says them
// (the payload's score_unit and score_name).
const SCORE = { unit: "VP", name: "Victory points" };

// A seat's panel head: its name, badges and score. The score's word is ``unit``, else the Replay page's
// game's (SCORE); a page that draws boards with this function alone (the Play page, the Games page's
// comparison) has no SCORE: "VP" there.
function panelHead(name, vp, parts, flags, unit) {
  const word = unit || (typeof SCORE === "undefined" ? "VP" : SCORE.unit);
  return `<div class="phead">${nameHtml(name, "pname")}`
    + `<span class="badges">${badges(flags.governor, flags.acting, flags.winner)}</span>`
    + `<span class="pvp" title="${esc(parts)}">${esc(vp)} <small>${esc(word)}</small></span></div>`;
}

function panelClass(flags) {
  return "player" + (flags.acting ? " acting" : "") + (flags.winner ? " winner" : "");
}

// A chip of the status bar; ``piece``: the name a move gives what it shows (a board's piece the Play
// page lets a player click: ``data-piece``).
function chip(text, cls, piece) {
  const named = piece === undefined || piece === null ? "" : ` data-piece="${esc(piece)}"`;
  return `<span class="chip ${cls}"${named}>${esc(text)}</span>`;
}

function seatName(game, seat) {
  return seat !== null && seat !== undefined && seat >= 0 && seat < game.names.length ? game.names[seat] : "?";
}

// The board of each game, by the registry's name of the game (each game declares its drawing).
const BOARDS = BOARD_TABLE;

// -- the move list, the chart and what changed ---------------------------------------------------

// A move the stored analysis tagged (docs/analysis.md): a short badge after its words.
const TAG_LABELS = { inaccuracy: "?!", mistake: "?", blunder: "??", "not significant": "~" };
const TAG_COLOURS = { inaccuracy: "#c9a400", mistake: "#e07000", blunder: "#d0201b" };
function pct(v) { return `${Math.round(Number(v) * 100)}%`; }
function chanceText(est, lo, hi) { return `${pct(est)} (${Math.round(Number(lo) * 100)}\u2013${pct(hi)})`; }

// One decision in words: who, the chance after the move played with its interval, and the best move's.
// A decision that is a part of another seat's move (d[11], the seat making the move: refraining from
// a draw the move offers) is worded as that move: it says whose decision it is first.
function reviewText(game, d) {
  const who = iso(seatName(game, d[1]));
  const part = d[11] !== null && d[11] !== undefined ? `${who}'s decision in ${iso(seatName(game, d[11]))}'s move` : null;
  // The words of a move name its player already; a hidden move is named by its seat only.
  let text = d[6] === null ? `${part || `${who}'s move`} ${chanceText(d[2], d[3], d[4])}`
    : `${part ? `${part}: ` : ""}${d[6]} ${chanceText(d[2], d[3], d[4])}`;
  if (d[7] !== null && d[7] !== d[6]) { text += `; best: ${d[7]} ${chanceText(d[8], d[9], d[10])}`; }
  if (d[5]) { text += ` \u2014 ${d[5]}`; }
  return text;
}

function tagHtml(tag, title) {
  const tip = title || tag;
  return tag && TAG_LABELS[tag] ? `<span class="tag tag-${tag.replace(/ /g, "-")}" title="${esc(tip)}">${TAG_LABELS[tag]} ${esc(tag)}</span>` : "";
}

// The move list's mark of an analysed step: its tag (the first of the step's decisions that has
// one) or the estimate, with every decision's chances and best move on hover.
function reviewHtml(game, step, storedTag) {
  const found = game.review.get(step);
  if (!found) { return tagHtml(storedTag); }
  const title = found.map((d) => reviewText(game, d)).join("\n");
  const tagged = found.find((d) => d[5]);
  const tag = storedTag || (tagged ? tagged[5] : null);
  if (tag) { return tagHtml(tag, title); }
  return `<span class="est" title="${esc(title)}">${pct(found[0][2])}</span>`;
}

// The game's variations (What if?) that start after `step`: under the move they start from,
// indented and marked, each with its result ("unfinished" until the bots finish it). A click on one
// opens it in the viewer (a round trip: its positions are made on the server, in this view).
const VARIATION_MOVES_SHOWN = 12;
function variationsHtml(game, step) {
  return list(game.data.variations).filter((v) => v.branch === step).map((v) => {
    const words = list(v.words);
    const shown = words.slice(0, VARIATION_MOVES_SHOWN).map((w, i) => `<div class="vmv" data-var="${Number(v.k)}" data-vstep="${v.branch + i + 1}">`
      + `<span class="n">${v.branch + i + 1}</span><span class="w">${esc(w)}</span></div>`).join("");
    const more = words.length > VARIATION_MOVES_SHOWN
      ? `<div class="vmv more-v" data-var="${Number(v.k)}" data-vstep="${v.branch + words.length}">… ${plural(words.length - VARIATION_MOVES_SHOWN, "more move")}</div>` : "";
    return `<div class="vline${v.active ? " active" : ""}" data-var="${Number(v.k)}"><div class="vhead" data-var="${Number(v.k)}" data-vstep="${v.branch + 1}">`
      + `<span class="vmark">↳ Variation ${Number(v.k) + 1}</span> <span class="vres">${esc(v.result)}</span></div>${shown}${more}</div>`;
  }).join("");
}

// The moves of the window; a row before and after it asks the server for the moves beyond.
function moveListHtml(game) {
  const m = game.data.moves;
  const events = m.events || null;
  const tags = m.tag || null;
  const first = game.lo === 0 ? "The start of the game" : `The position after move ${game.lo}`;
  const rows = [];
  if (game.lo > 0) {
    rows.push(`<div class="more" data-want="${game.lo - 1}">Moves 1 to ${game.lo}: show earlier moves</div>`);
  }
  const branchAfter = game.data.branch_after;
  const isVariation = branchAfter !== undefined && branchAfter !== null;
  if (isVariation) {
    rows.push(`<div class="vback" data-var="-1" data-vstep="${branchAfter}">↰ Back to the game (variation ${Number(game.data.variation_k) + 1}: ${esc(game.data.variation_result)})</div>`);
  }
  rows.push(`<div class="mv" data-step="${game.lo}"><span class="n">${game.lo}</span><span class="body"><span class="w">${first}</span></span></div>`);
  rows.push(variationsHtml(game, game.lo));
  let lastRound = null;
  m.step.forEach((step, i) => {
    if (m.round[i] !== lastRound) {
      lastRound = m.round[i];
      rows.push(`<div class="rnd" data-round="${lastRound}">Round ${esc(lastRound)}</div>`);
    }
    const ev = events && events[i] && events[i].length
      ? events[i].map((e) => `<span class="ev">${esc(e)}</span>`).join("") : "";
    // The raw form of a move is sent only when the view sees all of it.
    const title = m.text[i] === null || m.text[i] === undefined ? "" : ` title="${esc(m.text[i])}"`;
    const own = isVariation && step > branchAfter ? " varmv" : "";
    rows.push(`<div class="mv${own}" data-step="${step}"${title}><span class="n">${step}</span>`
      + `<span class="body"><span class="w">${esc(m.words[i])}</span>${reviewHtml(game, step, tags && tags[i])}${ev}</span></div>`);
    rows.push(variationsHtml(game, step));
  });
  if (game.hi < game.total) {
    rows.push(`<div class="more" data-want="${game.hi + 1}">Moves ${game.hi + 1} to ${game.total}: show later moves</div>`);
  }
  return rows.join("");
}

function changesHtml(game, step) {
  if (step === 0) { return '<p class="meta">The start of the game: nothing before it.</p>'; }
  const items = game.data.changes[step - game.lo] || [];
  if (!items.length) { return '<p class="meta">Nothing stored changed.</p>'; }
  const out = items.map(([who, lines]) => {
    if (!lines.length) { return ""; }
    const name = who < 0 ? "Table" : game.names[who];
    const text = lines.map((line) => {
      const cls = line.startsWith("+") ? "plus" : line.startsWith("\u2212") ? "minus" : "";
      return `<span class="${cls}">${esc(line)}</span>`;
    }).join(", ");
    return `<li><b>${nameHtml(name, "who")}</b>: ${text}</li>`;
  }).join("");
  return `<ul class="diff">${out}</ul>`;
}

function chartSvg(game, width) {
  const height = 170;
  const pad = { l: 30, r: 8, t: 8, b: 20 };
  const total = Math.max(1, game.total);
  // A score the view hides is null: no point of the line (a gap), never drawn as 0.
  let max = 1;
  let least = 0;
  const series = game.seats.map((_, seat) => {
    const values = [];
    for (let s = 0; s <= game.total; s++) {
      const raw = game.vp[seat][s];
      const v = raw === null || raw === undefined ? null : Number(raw);
      values.push(v);
      if (v !== null && v > max) { max = v; }
      if (v !== null && v < least) { least = v; }
    }
    return values;
  });
  // The axis starts at 0, or lower for a game whose scores go below it (at a tick, so it is labelled).
  const stepTick = max - least > 40 ? 20 : max - least > 20 ? 10 : 5;
  const lo = least < 0 ? -Math.ceil(-least / stepTick) * stepTick : 0;
  const x = (s) => pad.l + (s / total) * (width - pad.l - pad.r);
  const y = (v) => height - pad.b - ((v - lo) / (max - lo)) * (height - pad.t - pad.b);
  const lines = series.map((values, seat) => {
    let d = "";
    for (let s = 0; s < values.length; s++) {
      const v = values[s];
      const before = s > 0 ? values[s - 1] : null;
      if (v === null) {
        if (before !== null) { d += `H${x(s).toFixed(1)}`; }
      } else if (before === null) {
        d += `M${x(s).toFixed(1)},${y(v).toFixed(1)}`;
      } else if (v !== before) {
        d += `H${x(s).toFixed(1)}V${y(v).toFixed(1)}`;
      }
    }
    if (values.length && values[values.length - 1] !== null) { d += `H${x(game.total).toFixed(1)}`; }
    const dash = DASHES[seat % DASHES.length];
    return `<path d="${d}" stroke="${PALETTE[seat % PALETTE.length]}" class="line"${dash ? ` stroke-dasharray="${dash}"` : ""}/>`;
  }).join("");
  const ticks = [];
  for (let v = lo; v <= max; v += stepTick) {
    ticks.push(`<line x1="${pad.l}" x2="${width - pad.r}" y1="${y(v)}" y2="${y(v)}" class="grid"/>`
      + `<text x="${pad.l - 4}" y="${y(v) + 3}" class="tick" text-anchor="end">${v}</text>`);
  }
  // Every round of a short game, every other of a usual one, about 15 of a long one.
  const every = game.rounds.length < 12 ? 1 : Math.max(2, Math.ceil(game.rounds.length / 15));
  for (const round of game.rounds) {
    const s = roundStart(game, round);
    if (round % every === 1 % every) {
      ticks.push(`<text x="${x(s)}" y="${height - 6}" class="tick" text-anchor="middle">${round}</text>`);
    }
  }
  const dots = game.seats.map((_, seat) => markSvg(seat, "dot")).join("");
  return {
    html: `<svg width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(SCORE.name)} by move">`
      + `${ticks.join("")}<text x="${pad.l - 4}" y="${height - 6}" class="tick" text-anchor="end">rd</text>`
      + `${lines}<line class="cursor" y1="${pad.t}" y2="${height - pad.b}"/>${dots}`
      + `<rect class="hit" x="${pad.l}" y="0" width="${width - pad.l - pad.r}" height="${height}"/></svg>`,
    x, y, series, pad, width,
  };
}

// The winning chance of each seat after each of its analysed decisions (lichess's evaluation graph),
// tagged moves marked in their tag's colour; a cursor at the step shown, a click goes to a move.
function chanceSvg(game, width) {
  const height = 130;
  const pad = { l: 30, r: 8, t: 8, b: 14 };
  const total = Math.max(1, game.total);
  const x = (s) => pad.l + (s / total) * (width - pad.l - pad.r);
  const y = (v) => height - pad.b - Number(v) * (height - pad.t - pad.b);
  const parts = [];
  for (const v of [0, 0.5, 1]) {
    parts.push(`<line x1="${pad.l}" x2="${width - pad.r}" y1="${y(v)}" y2="${y(v)}" class="grid"/>`
      + `<text x="${pad.l - 4}" y="${y(v) + 3}" class="tick" text-anchor="end">${v * 100}</text>`);
  }
  game.names.forEach((_, seat) => {
    const mine = game.analysis.filter((d) => d[1] === seat);
    if (!mine.length) { return; }
    const points = mine.map((d) => `${x(d[0]).toFixed(1)},${y(d[2]).toFixed(1)}`).join(" ");
    parts.push(`<polyline points="${points}" stroke="${PALETTE[seat % PALETTE.length]}" class="line" fill="none"/>`);
    mine.filter((d) => TAG_COLOURS[d[5]]).forEach((d) => {
      parts.push(`<circle r="4.5" class="tagdot" cx="${x(d[0]).toFixed(1)}" cy="${y(d[2]).toFixed(1)}" fill="${TAG_COLOURS[d[5]]}"`
        + ` stroke="${PALETTE[seat % PALETTE.length]}"><title>${esc(`move ${d[0]}: ${reviewText(game, d)}`)}</title></circle>`);
    });
  });
  return {
    html: `<svg width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="Winning chances by move">`
      + `${parts.join("")}<line class="cursor" y1="${pad.t}" y2="${height - pad.b}"/></svg>`,
    x, pad, width,
  };
}

// The learned win chance of every seat at every step (``model.chances``: a list per seat, a value per
// step from 0), as the view shown may know it (dashboards/model_chart.py); a cursor at the step shown.
function modelSvg(game, model, width) {
  const height = 130;
  const pad = { l: 30, r: 8, t: 8, b: 14 };
  const total = Math.max(1, game.total);
  const x = (step) => pad.l + (step / total) * (width - pad.l - pad.r);
  const y = (v) => height - pad.b - Number(v) * (height - pad.t - pad.b);
  const parts = [];
  for (const v of [0, 0.5, 1]) {
    parts.push(`<line x1="${pad.l}" x2="${width - pad.r}" y1="${y(v)}" y2="${y(v)}" class="grid"/>`
      + `<text x="${pad.l - 4}" y="${y(v) + 3}" class="tick" text-anchor="end">${v * 100}</text>`);
  }
  model.chances.forEach((values, seat) => {
    const points = values.map((v, step) => `${x(step).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    parts.push(`<polyline points="${points}" stroke="${PALETTE[seat % PALETTE.length]}" class="line" fill="none"/>`);
  });
  // The luckiest (a triangle up) and unluckiest (down) moments, on the seat's line after the move; a
  // click goes to their move (``data-step``).
  const marks = list(model.moments).map((m) => {
    const value = list(model.chances[m.seat])[m.step];
    if (value === undefined) { return ""; }
    const up = m.kind === "luckiest";
    return `<g class="luckmark ${up ? "lucky" : "unlucky"}" data-step="${Number(m.step)}" transform="translate(${x(m.step).toFixed(1)},${y(value).toFixed(1)})">`
      + `<path d="${up ? "M0,-7L6,4L-6,4z" : "M0,7L6,-4L-6,-4z"}" fill="${PALETTE[m.seat % PALETTE.length]}"/><title>${esc(m.text)}</title></g>`;
  }).join("");
  return {
    html: `<svg width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="Learned win chance by move">`
      + `${parts.join("")}<line class="cursor" y1="${pad.t}" y2="${height - pad.b}"/>${marks}</svg>`,
    x, pad, width,
  };
}

// Every seat's learned win chance at a step (the model graph's readout).
function modelAt(game, model, step) {
  return model.chances.map((values, seat) => `${iso(game.names[seat])} ${pct(values[Math.min(step, values.length - 1)])}`).join(" \u00b7 ");
}

// The model graph of the game and view shown, or nothing (another game's or view's, or none sent).
function renderModel(s, model) {
  const { ui, game } = s;
  const fits = model && game && model.game_id === game.data.game_id && model.view === s.view
    && Array.isArray(model.chances) && model.chances.length === game.names.length;
  s.modelData = fits ? model : null;
  ui.modelBox.hidden = !fits;
  if (!fits) { s.model = null; ui.model.innerHTML = ""; return; }
  const width = Math.max(240, Math.floor(ui.chart.clientWidth || 600));
  s.model = modelSvg(game, model, width);
  ui.model.innerHTML = s.model.html;
  ui.modelLegend.innerHTML = game.names.map((name, seat) => `<span class="lg"><svg class="sw" viewBox="-14 -6 28 12" aria-hidden="true">`
    + `<line x1="-13" x2="13" y1="0" y2="0" stroke="${PALETTE[seat % PALETTE.length]}" stroke-width="2"/></svg>${nameHtml(name, "lgname")}</span>`).join("");
  ui.modelNote.textContent = `${s.view === "all" ? "Every card seen, as after the game" : "Only what this seat knows"}: ${model.meaning}.`;
  // The moments' captions, each a button to its move; the server wrote them as plain text.
  const found = list(model.moments);
  ui.modelMoments.hidden = !found.length;
  ui.modelMoments.innerHTML = found.length ? `<div class="meta">${esc(model.luck_note)}</div>` + found.map((m) =>
    `<button type="button" class="moment ${m.kind === "luckiest" ? "lucky" : "unlucky"}" data-step="${Number(m.step)}">${esc(m.text)}</button>`).join("") : "";
  placeModelCursor(s, s.step);
}

// The model graph's cursor and readout at a step (the readout unless the pointer is over the graph).
function placeModelCursor(s, step) {
  if (!s.model || !s.modelData) { return; }
  if (!s.hoveringModel) { s.ui.modelReadout.textContent = `move ${step}: ${modelAt(s.game, s.modelData, step)}`; }
  const cursor = s.ui.model.querySelector(".cursor");
  if (cursor) {
    const cx = s.model.x(step).toFixed(1);
    cursor.setAttribute("x1", cx);
    cursor.setAttribute("x2", cx);
  }
}

// The steps of the moves tagged inaccuracy or worse, of the viewed seat in a seat's view.
function taggedSteps(game, view) {
  const seat = viewSeat(view);
  const steps = game.analysis.filter((d) => TAG_COLOURS[d[5]] && (seat === null || d[1] === seat)).map((d) => d[0]);
  return Array.from(new Set(steps)).sort((a, b) => a - b);
}

// A seat's marker (moved to a point with a transform): a shape of its own beside a colour.
function markSvg(seat, cls) {
  const fill = PALETTE[seat % PALETTE.length];
  const shape = MARKS[seat % MARKS.length];
  const path = shape === "square" ? "M-3.5,-3.5h7v7h-7z" : shape === "diamond" ? "M0,-5L5,0L0,5L-5,0z"
    : shape === "triangle" ? "M0,-5L4.5,4L-4.5,4z" : shape === "cross" ? "M-1.6,-5h3.2v3.4h3.4v3.2h-3.4v3.4h-3.2v-3.4h-3.4v-3.2h3.4z"
      : "M-4,0a4,4 0 1,0 8,0a4,4 0 1,0 -8,0";
  return `<path class="${cls}" data-seat="${seat}" d="${path}" fill="${fill}"/>`;
}

// ``marked``: the seats whose line this view draws without what it may not see (a footnote says so).
function legendHtml(game, marked) {
  return game.names.map((name, seat) => {
    const dash = DASHES[seat % DASHES.length];
    const swatch = `<svg class="sw" viewBox="-14 -6 28 12" aria-hidden="true"><line x1="-13" x2="13" y1="0" y2="0" stroke="${PALETTE[seat % PALETTE.length]}"`
      + ` stroke-width="2"${dash ? ` stroke-dasharray="${dash}"` : ""}/>${markSvg(seat, "lgmark")}</svg>`;
    return `<span class="lg">${swatch}${nameHtml(name, "lgname")}${marked && marked[seat] ? "*" : ""}</span>`;
  }).join("");
}

// The winning chance of every analysed seat after its last decision at or before a step (the chance
// chart's readout), "-" for a seat with no decision yet.
function chanceAt(game, step) {
  return chanceSeats(game).map((seat) => {
    let found = null;
    for (const d of game.analysis) { if (d[1] === seat && d[0] <= step) { found = d; } }
    return `${iso(game.names[seat])} ${found ? pct(found[2]) : "\u2013"}`;
  }).join(" \u00b7 ");
}

// The seats the stored analysis has decisions of, in seat order.
function chanceSeats(game) {
  return game.names.map((_, seat) => seat).filter((seat) => game.analysis.some((d) => d[1] === seat));
}

// The chance chart's legend: each analysed seat's line, then the tags' colours.
function chanceLegendHtml(game) {
  const seats = chanceSeats(game).map((seat) => `<span class="lg"><svg class="sw" viewBox="-14 -6 28 12" aria-hidden="true">`
    + `<line x1="-13" x2="13" y1="0" y2="0" stroke="${PALETTE[seat % PALETTE.length]}" stroke-width="2"/></svg>${nameHtml(game.names[seat], "lgname")}</span>`);
  const tags = Object.keys(TAG_COLOURS).map((tag) => `<span class="lg"><svg class="sw" viewBox="-14 -6 28 12" aria-hidden="true">`
    + `<circle r="4.5" fill="${TAG_COLOURS[tag]}"/></svg>${TAG_LABELS[tag]} ${tag}</span>`);
  return seats.concat(tags).join("");
}

// The step under the pointer on a chart drawn by chartSvg or chanceSvg.
function stepAt(s, c, box, event) {
  const x = (event.clientX - box.left) * (c.width / box.width);
  return Math.max(0, Math.min(s.game.total, Math.round(((x - c.pad.l) / (c.width - c.pad.l - c.pad.r)) * s.game.total)));
}

// The score of every seat at a step, for the chart's readout: "?" for one the view hides (as the board
// shows it), never a 0 it is not.
function vpAt(game, step) {
  return game.names.map((name, seat) => {
    const v = game.vp[seat][step];
    return `${iso(name)} ${v === null || v === undefined ? "?" : Number(v)}`;
  }).join(" \u00b7 ");
}

// The end-of-game scoring table: VP by source per seat, as the board's game declares its sources.
function scoringHtml(game, scoring) {
  const head = `<tr><th>player</th>${scoring.columns.map((c) => `<th>${esc(c)}</th>`).join("")}</tr>`;
  const body = scoring.rows.map((row, seat) => `<tr${game.data.winners.includes(seat) ? ' class="won"' : ""}>`
    + `<td class="who">${nameHtml(game.names[seat], "")}</td>`
    + row.map((v) => `<td>${esc(num(v))}</td>`).join("") + "</tr>").join("");
  return `<div class="sidehead">Final scoring</div><table class="score"><thead>${head}</thead><tbody>${body}</tbody></table>`;
}

// -- the component -------------------------------------------------------------------------------

const ICON = {
  first: '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M3 3h2v10H3zM13 3v10L6 8z"/></svg>',
  prev: '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M11 3v10L4 8z"/></svg>',
  next: '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M5 3v10l7-5z"/></svg>',
  last: '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M11 3h2v10h-2zM3 3v10l7-5z"/></svg>',
  link: '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M6.5 9.5l3-3 1 1-3 3zM4 12a2 2 0 0 1 0-2.8l2-2 1 1-2 2a.6.6 0 0 0 .8.8l2-2 1 1-2 2A2 2 0 0 1 4 12zm8-8a2 2 0 0 1 0 2.8l-2 2-1-1 2-2a.6.6 0 0 0-.8-.8l-2 2-1-1 2-2A2 2 0 0 1 12 4z"/></svg>',
  branch: '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M4 1h2v7.2l4.6-3.4-1.4-1.4H14v4.8l-1.5-1.5L6 11.5V15H4z"/></svg>',
};

const HTML = `
<div class="gv-root">
  <div class="head"><div class="headtext"><div class="title"></div><div class="facts"></div></div>
    <div class="headtools"><span class="copied" role="status" aria-live="polite"></span>
    <button type="button" class="copylink" title="Copy a link to this game at this move, in this view" aria-label="Copy link">${ICON.link}<span class="lbl">Copy link</span></button></div></div>
  <div class="controls">
    <button type="button" data-go="first" title="First (Home)" aria-label="First">${ICON.first}<span class="lbl">First</span></button>
    <button type="button" data-go="prev" title="Previous move (Left arrow)" aria-label="Previous">${ICON.prev}<span class="lbl">Prev</span></button>
    <button type="button" data-go="next" title="Next move (Right arrow)" aria-label="Next">${ICON.next}<span class="lbl">Next</span></button>
    <button type="button" data-go="last" title="Last (End)" aria-label="Last">${ICON.last}<span class="lbl">Last</span></button>
    <input type="range" class="slider" min="0" value="0" step="1" aria-label="Move">
    <span class="pos"></span>
    <label class="sel"><span class="lbl">Round </span><select class="round" aria-label="Round"></select></label>
    <label class="sel"><span class="lbl">View </span><select class="view" aria-label="Seat view"></select></label>
    <button type="button" class="branch" title="Try another move from this position (What if?, below the board)" aria-label="Try a move here">${ICON.branch}<span class="lbl">Try a move here</span></button>
  </div>
  <div class="now"></div>
  <div class="tabs" role="tablist" aria-label="Parts of the replay">
    <button type="button" role="tab" data-tab="board" aria-selected="true">Board</button>
    <button type="button" role="tab" data-tab="moves" aria-selected="false">Moves</button>
    <button type="button" role="tab" data-tab="charts" aria-selected="false">Charts</button>
  </div>
  <div class="main" data-tab="board">
    <div class="boardcol"><div class="board"></div><div class="scoring" hidden></div></div>
    <div class="side">
      <div class="movesbox"><div class="sidehead">Moves</div><div class="moves" tabindex="-1"></div></div>
      <div class="reviewbox" hidden><div class="sidehead">Review</div><div class="review"></div></div>
      <div class="chartsbox">
        <div class="chartbox"><div class="charthead"><span class="scorename">Victory points</span> <span class="meta">(click to go to a move)</span></div>
        <div class="readout"></div><div class="chart"></div><div class="legend"></div><div class="chartnote meta" hidden></div></div>
        <div class="chancebox" hidden><div class="charthead">Winning chances <span class="meta">(stored analysis; click to go to a move; N / P: next / previous inaccuracy or worse)</span></div>
        <div class="readout chance-readout"></div><div class="chance"></div><div class="legend chance-legend"></div></div>
        <div class="modelbox" hidden><div class="charthead">Win chance (model) <span class="meta">(click to go to a move)</span></div>
        <div class="readout model-readout"></div><div class="model"></div><div class="legend model-legend"></div><div class="moments" hidden></div><div class="meta model-note"></div></div>
      </div>
      <div class="changesbox"><div class="sidehead">What changed <span class="chg-step"></span></div><div class="changes"></div></div>
    </div>
  </div>
</div>`;

function isDark(host) {
  const style = getComputedStyle(host);
  const bg = style.getPropertyValue("--st-background-color").trim();
  const m = /^#([0-9a-f]{6})$/i.exec(bg) || null;
  let rgb = null;
  if (m) {
    rgb = [0, 2, 4].map((i) => parseInt(m[1].slice(i, i + 2), 16));
  } else {
    const found = /rgba?\(([^)]+)\)/.exec(bg);
    if (found) { rgb = found[1].split(",").slice(0, 3).map((v) => parseFloat(v)); }
  }
  if (!rgb) { return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches; }
  return (0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]) < 128;
}

function setup(parent, host) {
  // A child of its own: the parent also holds the style sheet Streamlit put there.
  const root = document.createElement("div");
  root.innerHTML = HTML;
  parent.appendChild(root);
  const el = (sel) => root.querySelector(sel);
  const ui = {
    root: el(".gv-root"), title: el(".title"), facts: el(".facts"), slider: el(".slider"), pos: el(".pos"),
    round: el("select.round"), view: el("select.view"), now: el(".now"), board: el(".board"),
    chart: el(".chart"), legend: el(".legend"), chance: el(".chance"), chanceBox: el(".chancebox"),
    scoring: el(".scoring"), readout: el(".chartbox .readout"), chanceReadout: el(".chance-readout"),
    chanceLegend: el(".chance-legend"), model: el(".model"), modelBox: el(".modelbox"), modelReadout: el(".model-readout"),
    modelLegend: el(".model-legend"), modelNote: el(".model-note"), modelMoments: el(".moments"), chartNote: el(".chartnote"), scoreName: el(".scorename"), main: el(".main"), tabs: Array.from(root.querySelectorAll(".tabs button")), moves: el(".moves"), changes: el(".changes"), chgStep: el(".chg-step"),
    branch: el("button.branch"), copy: el("button.copylink"), copied: el(".copied"), buttons: {},
  };
  root.querySelectorAll("button[data-go]").forEach((b) => { ui.buttons[b.dataset.go] = b; });
  const s = { ui, host, game: null, step: 0, view: "all", request: null, drawn: null, rowEls: [], frame: 0, urlTimer: 0, chart: null };
  ui.review = el(".review");
  ui.reviewBox = el(".reviewbox");
  // A mistake of the Review beside the board: the position before it.
  ui.review.addEventListener("click", (event) => {
    const row = event.target.closest(".rv-mistake");
    if (row) { go(s, Number(row.dataset.step) - 1); }
  });
  return s;
}

function saveLater(s) {
  clearTimeout(s.urlTimer);
  // URL and session memory follow the position a moment later: replaceState on every key of a held
  // key would be throttled by the browser, and no history entry is made per step.
  s.urlTimer = setTimeout(() => saveNow(s), 120);
}

function saveNow(s) {
  if (!s.game) { return; }
  try {
    const url = new URL(window.location.href);
    url.searchParams.set("game", s.game.data.url_game || s.game.data.game_id);
    url.searchParams.set("step", String(s.step));
    url.searchParams.set("view", s.view);
    if (url.toString() !== window.location.href) { window.history.replaceState(window.history.state, "", url.toString()); }
    window.sessionStorage.setItem(STATE_KEY + s.game.data.game_id, JSON.stringify({ step: s.step, view: s.view }));
    window.sessionStorage.setItem(STATE_KEY + "last", s.game.data.game_id);
  } catch (err) { /* storage or history refused (private mode): the page still works */ }
}

// The page's link (game, move, view, and the variations kept) to the clipboard, said beside the button.
function copyLink(s) {
  clearTimeout(s.urlTimer);
  saveNow(s);
  const link = window.location.href;
  const said = (text) => {
    s.ui.copied.textContent = text;
    clearTimeout(s.copiedTimer);
    s.copiedTimer = setTimeout(() => { s.ui.copied.textContent = ""; }, 2500);
  };
  const fallback = () => {
    // Without the clipboard API (a page not served over https or from localhost): a selected field.
    const field = document.createElement("textarea");
    field.value = link;
    field.setAttribute("readonly", "");
    field.style.position = "fixed";
    field.style.opacity = "0";
    s.ui.root.appendChild(field);
    field.select();
    let done = false;
    try { done = document.execCommand("copy"); } catch (err) { done = false; }
    field.remove();
    said(done ? "Link copied" : `Copy this link: ${link}`);
  };
  s.ui.root.setAttribute("data-link", link);
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(link).then(() => said("Link copied"), fallback);
  } else {
    fallback();
  }
}

function remembered(gameId) {
  try { return JSON.parse(window.sessionStorage.getItem(STATE_KEY + gameId) || "null"); } catch (err) { return null; }
}

function go(s, step) {
  if (!s.game) { return; }
  const target = Math.max(0, Math.min(s.game.total, step));
  if (target === s.step) { return; }
  if (!inWindow(s.game, target)) { want(s, target, s.view); return; }
  s.step = target;
  schedule(s);
  saveLater(s);
}

// A step past the window or another view: the server sends it (a view's secrets are kept there).
// Asks made in a quick row (a held key, a dragged slider) go as one, the last.
function want(s, step, view) {
  s.wanted = { step, view };
  s.ui.root.setAttribute("data-loading", "1");
  s.ui.pos.textContent = `${step} / ${s.game.total} …`;
  clearTimeout(s.wantTimer);
  s.wantTimer = setTimeout(() => { if (s.trigger && s.wanted) { s.trigger("want", s.wanted); } }, 150);
}

function schedule(s) {
  if (s.frame) { return; }
  s.frame = requestAnimationFrame(() => { s.frame = 0; render(s); });
}

function setGame(s, data) {
  const game = decode(data);
  s.game = game;
  const { ui } = s;
  ui.title.textContent = `${data.title}: ${data.names.map(iso).join(", ")}`;
  ui.title.title = ui.title.textContent;
  const winners = data.winners.map((w) => data.names[w]).join(", ");
  const outcome = data.unfinished ? "unfinished" : winners ? `winner ${winners}` : "no winner";
  ui.facts.textContent = [...data.facts, outcome, `source ${data.source}`, `game id ${data.game_id}`].join(" \u00b7 ");
  ui.facts.title = ui.facts.textContent;
  ui.slider.max = String(game.total);
  ui.round.innerHTML = game.rounds.map((r) => `<option value="${r}">${r}</option>`).join("");
  ui.view.innerHTML = '<option value="all">everything</option><option value="public">public</option>'
    + data.names.map((n, seat) => `<option value="seat${seat}">${esc(iso(n.length > 24 ? n.slice(0, 23) + "\u2026" : n))}'s seat</option>`).join("");
  // Seats whose line leaves out what this view may not see (e.g. points that lie face down until the
  // end): marked in the legend, with the reason the server gives.
  SCORE.unit = data.score_unit || "VP";
  SCORE.name = data.score_name || "Victory points";
  ui.scoreName.textContent = SCORE.name;
  const marked = list(data.chart_hidden);
  ui.legend.innerHTML = legendHtml(game, marked);
  ui.chartNote.hidden = !marked.some(Boolean);
  ui.chartNote.textContent = ui.chartNote.hidden ? "" : `* ${data.chart_note || "what this view may see only"}`;
  ui.chanceLegend.innerHTML = game.analysis.length ? chanceLegendHtml(game) : "";
  s.drawn = null;
  s.boardParts = null;
}

function drawStatic(s) {
  // What depends on the game and the view, not on the step: the move list and the chart's lines.
  const { ui, game } = s;
  ui.moves.innerHTML = moveListHtml(game);
  s.rowEls = Array.from(ui.moves.querySelectorAll(".mv"));
  s.rowEls.forEach((row) => { row.classList.add("future"); });
  if (s.rowEls.length) { s.rowEls[0].classList.remove("future"); }
  const width = Math.max(240, Math.floor(ui.chart.clientWidth || 600));
  s.chart = chartSvg(game, width);
  ui.chart.innerHTML = s.chart.html;
  s.chart.width = width;
  ui.chanceBox.hidden = !game.analysis.length;
  s.chance = game.analysis.length ? chanceSvg(game, width) : null;
  ui.chance.innerHTML = s.chance ? s.chance.html : "";
  if (s.modelData) { renderModel(s, s.modelData); }
  s.drawnStep = game.lo;
  s.drawn = game;
}

function render(s) {
  const { ui, game } = s;
  if (!game) { return; }
  const started = performance.now();
  if (s.drawn !== game || (s.chart && Math.abs((ui.chart.clientWidth || s.chart.width) - s.chart.width) > 40)) { drawStatic(s); }
  const step = s.step;
  const parts = BOARDS[game.data.game] ? BOARDS[game.data.game](game, step) : null;
  if (parts) { paintBoard(s, parts); }
  // The last step of a finished game: the scoring by source under the board.
  const scoring = parts && game.data.scoring && step === game.total && !game.data.unfinished ? scoringHtml(game, game.data.scoring) : "";
  if (scoring !== (s.scoringHtml || "")) { ui.scoring.innerHTML = scoring; ui.scoring.hidden = !scoring; s.scoringHtml = scoring; }
  ui.slider.value = String(step);
  ui.pos.textContent = `${step} / ${game.total}`;
  const round = roundAt(game, step);
  ui.round.value = String(round);
  ui.view.value = s.view;
  const i = game.moveIndex.get(step);
  const words = step === 0 ? "the start of the game" : game.data.moves.words[i];
  const reviewed = game.review.get(step);
  const review = reviewed ? `<div class="review">${reviewed.map((d) => `<span class="${d[5] ? `tag-${d[5].replace(/ /g, "-")}` : ""}">${esc(reviewText(game, d))}</span>`).join("<br>")}</div>` : "";
  ui.now.innerHTML = `<b>Move ${step} of ${game.total}</b> \u00b7 round ${esc(round)} \u00b7 <span class="words">${esc(words)}</span>${review}`;
  ui.buttons.first.disabled = ui.buttons.prev.disabled = step === 0;
  ui.buttons.next.disabled = ui.buttons.last.disabled = step >= game.total;
  // Move list: only the rows between the old and the new position change class.
  const rows = s.rowEls;
  const indexOf = (st) => (st === game.lo ? 0 : (game.moveIndex.get(st) ?? -1) + 1);
  const old = indexOf(s.drawnStep ?? game.lo);
  const now = indexOf(step);
  if (rows[old]) { rows[old].classList.remove("current"); }
  for (let k = Math.min(old, now) + 1; k <= Math.max(old, now); k++) { rows[k].classList.toggle("future", k > now); }
  if (rows[now]) { rows[now].classList.add("current"); rows[now].classList.remove("future"); keepInView(ui.moves, rows[now]); }
  s.drawnStep = step;
  ui.chgStep.textContent = step ? `(move ${step})` : "";
  ui.changes.innerHTML = changesHtml(game, step);
  // The chart's cursor and dots.
  const c = s.chart;
  const cursor = ui.chart.querySelector(".cursor");
  if (c && cursor) {
    const x = c.x(step).toFixed(1);
    cursor.setAttribute("x1", x);
    cursor.setAttribute("x2", x);
    ui.chart.querySelectorAll(".dot").forEach((dot) => {
      const seat = Number(dot.getAttribute("data-seat"));
      const v = c.series[seat][step];
      // A score the view hides has no dot (the style is written only when that changes: a step is hot).
      const hide = v === null ? "none" : "";
      if (dot.style.display !== hide) { dot.style.display = hide; }
      if (v !== null) { dot.setAttribute("transform", `translate(${x},${c.y(v).toFixed(1)})`); }
    });
  }
  // The charts' readouts say the values at the step shown, unless the pointer is over a chart.
  if (!s.hovering) { ui.readout.textContent = `move ${step}: ${vpAt(game, step)}`; }
  if (s.chance && !s.hoveringChance) { ui.chanceReadout.textContent = `move ${step}: ${chanceAt(game, step)}`; }
  const chanceCursor = s.chance ? ui.chance.querySelector(".cursor") : null;
  if (chanceCursor) {
    const cx = s.chance.x(step).toFixed(1);
    chanceCursor.setAttribute("x1", cx);
    chanceCursor.setAttribute("x2", cx);
  }
  placeModelCursor(s, step);
  // What drawing this step cost in script and DOM work (the benchmark reads it beside its own clock).
  ui.root.setAttribute("data-render-ms", (performance.now() - started).toFixed(2));
  ui.root.setAttribute("data-view", s.view);
  if (!s.wanted) { ui.root.removeAttribute("data-loading"); } else { ui.pos.textContent = `${s.wanted.step} / ${game.total} \u2026`; }
  ui.root.setAttribute("data-step", String(step));
}

// Only the parts of the board whose HTML changed are replaced: a step usually changes the status bar
// and one or two players, and parsing five panels again would cost most of a step's time.
function paintBoard(s, parts) {
  let b = s.boardParts;
  if (!b || b.cls !== parts.cls || b.slots.length !== parts.panels.length) {
    s.ui.board.innerHTML = `<div class="barbox"></div><div class="${parts.cls}">`
      + parts.panels.map(() => '<div class="slot"></div>').join("") + "</div>";
    b = s.boardParts = {
      cls: parts.cls, bar: null, barEl: s.ui.board.querySelector(".barbox"),
      slots: Array.from(s.ui.board.querySelectorAll(".slot")), html: parts.panels.map(() => null),
    };
  }
  if (b.bar !== parts.bar) { b.barEl.innerHTML = parts.bar; b.bar = parts.bar; }
  parts.panels.forEach((html, i) => {
    if (b.html[i] !== html) { b.slots[i].innerHTML = html; b.html[i] = html; }
  });
}

function keepInView(box, row) {
  const top = row.offsetTop;
  const bottom = top + row.offsetHeight;
  if (top < box.scrollTop + 24 || bottom > box.scrollTop + box.clientHeight - 24) {
    box.scrollTop = Math.max(0, top - box.clientHeight / 2);
  }
}

function roundJump(s, direction) {
  const game = s.game;
  const r = roundAt(game, s.step);
  const last = game.rounds.length ? game.rounds[game.rounds.length - 1] : r;
  if (direction > 0) {
    const next = roundStart(game, r + 1);
    // A round past the window of a long game is not known here: the next window is.
    go(s, next !== null ? next : r < last && game.hi < game.total ? game.hi + 1 : game.total);
    return;
  }
  const start = roundStart(game, r);
  if (start !== null && s.step > start) { go(s, start); return; }
  const previous = roundStart(game, r - 1);
  go(s, previous !== null ? previous : r > 1 && game.lo > 0 ? game.lo - 1 : 0);
}

function onKey(s, event) {
  if (!s.game || event.altKey || event.ctrlKey || event.metaKey) { return; }
  const keys = { ArrowLeft: 1, ArrowRight: 1, Home: 1, End: 1, PageUp: 1, PageDown: 1, n: 1, p: 1, N: 1, P: 1 };
  if (!keys[event.key]) { return; }
  const target = event.composedPath ? event.composedPath()[0] : event.target;
  const ours = s.ui.slider === target;
  const tag = target && target.tagName ? target.tagName.toLowerCase() : "";
  // Keys typed into a field elsewhere (or a list box of ours) are left to it.
  if (!ours && (tag === "input" || tag === "textarea" || tag === "select" || (target && target.isContentEditable)
      || (target && target.getAttribute && target.getAttribute("role") === "slider"))) { return; }
  event.preventDefault();
  if (event.key === "ArrowLeft") { go(s, s.step - 1); }
  else if (event.key === "ArrowRight") { go(s, s.step + 1); }
  else if (event.key === "Home") { go(s, 0); }
  else if (event.key === "End") { go(s, s.game.total); }
  else if (event.key === "PageUp") { roundJump(s, -1); }
  else if (event.key === "PageDown") { roundJump(s, 1); }
  else if (event.key === "n" || event.key === "N" || event.key === "p" || event.key === "P") {
    const steps = taggedSteps(s.game, s.view);
    const forward = event.key === "n" || event.key === "N";
    const found = forward ? steps.find((st) => st > s.step) : steps.slice().reverse().find((st) => st < s.step);
    if (found !== undefined) { go(s, found); }
  }
}

function wire(s) {
  const { ui } = s;
  const off = [];
  const on = (target, type, fn, opts) => { target.addEventListener(type, fn, opts); off.push(() => target.removeEventListener(type, fn, opts)); };
  on(ui.buttons.first, "click", () => go(s, 0));
  on(ui.buttons.prev, "click", () => go(s, s.step - 1));
  on(ui.buttons.next, "click", () => go(s, s.step + 1));
  on(ui.buttons.last, "click", () => go(s, s.game ? s.game.total : 0));
  on(ui.slider, "input", () => go(s, Number(ui.slider.value)));
  // The one input that asks the server: the What-if panel branches at the step shown here.
  on(ui.branch, "click", () => { if (s.game && s.trigger) { s.trigger("branch", s.step); } });
  on(ui.copy, "click", () => { copyLink(s); });
  on(ui.round, "change", () => {
    const start = roundStart(s.game, Number(ui.round.value));
    if (start !== null) { go(s, start); }
    ui.round.blur();
  });
  on(ui.view, "change", () => { ui.view.blur(); if (s.game && ui.view.value !== s.view) { want(s, s.step, ui.view.value); } });
  on(ui.modelMoments, "click", (event) => {
    const moment = event.target.closest ? event.target.closest("[data-step]") : null;
    if (moment) { go(s, Number(moment.getAttribute("data-step"))); }
  });
  on(ui.moves, "click", (event) => {
    const line = event.target.closest ? event.target.closest("[data-var]") : null;
    if (line && s.trigger) {
      const k = Number(line.getAttribute("data-var"));
      const at = line.getAttribute("data-vstep");
      s.trigger("variation", { k, step: at === null ? -1 : Number(at) });
      return;
    }
    const more = event.target.closest ? event.target.closest(".more") : null;
    if (more) { go(s, Number(more.getAttribute("data-want"))); return; }
    const row = event.target.closest ? event.target.closest(".mv") : null;
    if (row) { go(s, Number(row.getAttribute("data-step"))); }
  });
  // Each chart: a click goes to the move under the pointer; hovering says every series' value there.
  const charts = [
    [ui.chart, () => s.chart, (at) => { s.hovering = true; ui.readout.textContent = `move ${at}: ${vpAt(s.game, at)}`; },
      () => { s.hovering = false; ui.readout.textContent = `move ${s.step}: ${vpAt(s.game, s.step)}`; }],
    [ui.chance, () => s.chance, (at) => { s.hoveringChance = true; ui.chanceReadout.textContent = `move ${at}: ${chanceAt(s.game, at)}`; },
      () => { s.hoveringChance = false; ui.chanceReadout.textContent = `move ${s.step}: ${chanceAt(s.game, s.step)}`; }],
    [ui.model, () => s.model, (at) => { s.hoveringModel = true; ui.modelReadout.textContent = `move ${at}: ${modelAt(s.game, s.modelData, at)}`; },
      () => { s.hoveringModel = false; placeModelCursor(s, s.step); }],
  ];
  charts.forEach(([box, drawn, hover, leave]) => {
    const at = (event) => {
      const c = drawn();
      const svg = box.querySelector("svg");
      // A mark of a move (the luckiest moment) is its move wherever in the mark the pointer is.
      const mark = event.target.closest ? event.target.closest("[data-step]") : null;
      if (c && mark && box.contains(mark) && s.game) { return Math.max(0, Math.min(s.game.total, Number(mark.getAttribute("data-step")))); }
      return c && svg && s.game ? stepAt(s, c, svg.getBoundingClientRect(), event) : null;
    };
    on(box, "click", (event) => { const step = at(event); if (step !== null) { go(s, step); } });
    on(box, "mousemove", (event) => { const step = at(event); if (step !== null) { hover(step); } });
    on(box, "mouseleave", () => { if (s.game) { leave(); } });
  });
  ui.tabs.forEach((tab) => on(tab, "click", () => { showTab(s, tab.getAttribute("data-tab")); }));
  const keydown = (event) => onKey(s, event);
  on(document, "keydown", keydown);
  const resize = new ResizeObserver(() => { if (s.game && s.chart && Math.abs(ui.chart.clientWidth - s.chart.width) > 40) { schedule(s); } });
  resize.observe(ui.chart);
  off.push(() => resize.disconnect());
  return () => off.forEach((fn) => fn());
}

// The first paint's viewer of this game (another one than ``parent``'s), closed: the step and view it
// showed (the one it asked the server for, when past its window), or null.
function handOver(parent, gameId) {
  const first = window.__gvFirst;
  if (!first || first.closed || first.holder === parent.host) { return null; }
  const state = first.state;
  const shown = first.gameId === gameId && state && state.game
    ? (state.wanted ? { step: state.wanted.step, view: String(state.wanted.view) } : { step: state.step, view: state.view })
    : null;
  first.close();
  return shown;
}

// Show one of the tabs (board, moves, charts) where the viewer is too narrow for them side by side.
function showTab(s, name) {
  s.ui.main.setAttribute("data-tab", name);
  s.ui.tabs.forEach((t) => t.setAttribute("aria-selected", String(t.getAttribute("data-tab") === name)));
  if (name !== "board") { schedule(s); }
}

// The game the server named by its signature instead of sending it again: the one this viewer shows,
// or the one the board drawn first in this tab holds (dashboards/first_paint.py); null when neither.
function heldGame(s, sig) {
  if (s.game && s.heldSig === sig) { return s.game.data; }
  const held = window.__gvHeld;
  if (held && held.sig === sig && held.game) {
    // Said once: the cookie must not make another session of this browser expect the board.
    document.cookie = "governor_first=; path=/; max-age=0; SameSite=Strict";
    return held.game;
  }
  return null;
}

// A link to a part of this page (``replay?...#review``): Streamlit scrolls to the heading once, when
// it appears, but the board, its panels and the charts above it may grow after that and push it out of
// view (on a slow machine, seconds later). Until the person scrolls, types, clicks or touches (or for a
// minute), the heading is brought back into view whenever the page's content changes size.
function followAnchor() {
  const id = decodeURIComponent(window.location.hash.slice(1));
  if (!id || window.gvFollowedAnchor === window.location.href) { return; }
  window.gvFollowedAnchor = window.location.href;
  const content = document.querySelector("[data-testid='stMainBlockContainer']") || document.body;
  const events = ["wheel", "keydown", "mousedown", "touchstart"];
  let timer = 0;
  const place = () => {
    const heading = document.getElementById(id);
    if (heading) { heading.scrollIntoView({ block: "start" }); }
  };
  const sizes = new ResizeObserver(place);
  const stop = () => {
    sizes.disconnect();
    clearTimeout(timer);
    events.forEach((name) => window.removeEventListener(name, stop, true));
  };
  events.forEach((name) => window.addEventListener(name, stop, true));
  timer = setTimeout(stop, 60000);
  sizes.observe(content);
}

export default function (component) {
  followAnchor();
  const { parentElement } = component;
  let data = component.data;
  let s = parentElement.__governorReplay;
  if (!s) {
    s = setup(parentElement, parentElement.host || parentElement);
    parentElement.__governorReplay = s;
  }
  s.ui.root.classList.toggle("dark", isDark(s.host));
  s.trigger = component.setTriggerValue;
  if (!data || !data.game) { return undefined; }
  if (data.game.held) {
    const sig = String(data.game.held);
    const held = heldGame(s, sig);
    if (!held) {
      // Not held here after all (another tab drew it first): the server sends the whole game.
      if (s.askedFull !== sig) { s.askedFull = sig; s.trigger("full", sig); }
      return undefined;
    }
    s.heldSig = sig;
    data = { ...data, game: held };
  } else {
    s.heldSig = null;
  }
  // A variation has no "here" to branch from: it is played on in the What-if panel.
  s.ui.branch.hidden = !data.branch;
  // What makes two sends of a game differ for the viewer: another game, view, window or length, the
  // analysis tags.
  const signature = (g) => `${g.game_id}|${g.view}|${g.lo}|${g.hi}|${g.total}|${g.moves && g.moves.tag ? g.moves.tag.join(",") : ""}`
    + `|${JSON.stringify(g.variations || null)}|${g.analysis ? g.analysis.length : 0}`;
  const fresh = !s.game || s.game.data.game_id !== data.game.game_id || s.request !== data.request;
  if (!fresh && signature(s.game.data) !== signature(data.game)) {
    // The same game sent again with more in it (e.g. tags of an analysis just stored): keep the position.
    setGame(s, data.game);
    s.view = data.game.view;
    s.step = Math.max(s.game.lo, Math.min(s.step, s.game.hi));
  }
  if (fresh) {
    if (!s.game || signature(s.game.data) !== signature(data.game)) { setGame(s, data.game); }
    s.request = data.request;
    s.wanted = null;
    const memory = remembered(data.game.game_id);
    // The board the server drew in this tab before Streamlit started (dashboards/first_paint.py): this
    // viewer goes on from where the user has stepped it meanwhile, and it goes.
    const first = handOver(parentElement, data.game.game_id);
    const asked = first ? first.step : data.step !== null && data.step !== undefined ? data.step : memory ? memory.step : 0;
    const target = Math.max(0, Math.min(s.game.total, Number(asked) || 0));
    s.view = data.game.view;
    s.step = Math.max(s.game.lo, Math.min(target, s.game.hi));
    // Without a view in the URL, the view this tab last showed of the game; it comes from the server.
    const other = first ? (first.view !== s.view ? first.view : null)
      : !data.view && memory && memory.view && memory.view !== s.view ? String(memory.view) : null;
    if (other || s.step !== target) { want(s, target, other || s.view); }
    s.drawn = null;
    // When this page's game arrived and was first drawn (ms since the page's navigation began): the
    // open benchmark tells the app's part from Streamlit's own start with them.
    if (!s.ui.root.hasAttribute("data-received-ms")) { s.ui.root.setAttribute("data-received-ms", performance.now().toFixed(1)); }
  }
  render(s);
  renderReview(s, data.review);
  renderModel(s, data.model);
  if (data.reveal && s.revealed !== data.reveal) {
    // A row chosen in a table under the board moved it: the board comes into view, on its own tab.
    s.revealed = data.reveal;
    showTab(s, "board");
    s.ui.root.scrollIntoView({ block: "start" });
  }
  if (!s.ui.root.hasAttribute("data-drawn-ms")) { s.ui.root.setAttribute("data-drawn-ms", performance.now().toFixed(1)); }
  if (data.await_shown && s.shownFor !== data.request) {
    // The server holds the panels under the board until the board is drawn: say it is, once per
    // request (the rerun it causes sends the same request, which must not ask again).
    s.shownFor = data.request;
    s.ui.root.setAttribute("data-panels", "asked");
    s.trigger("shown", data.request);
  }
  saveNow(s);
  // One set of listeners, whether or not the last send's clean-up ran: a key must step once.
  if (s.unwire) { s.unwire(); }
  const unwire = wire(s);
  s.unwire = unwire;
  return () => {
    unwire();
    if (s.unwire === unwire) { s.unwire = null; }
    clearTimeout(s.urlTimer); clearTimeout(s.wantTimer);
    if (s.frame) { cancelAnimationFrame(s.frame); s.frame = 0; }
  };
}
