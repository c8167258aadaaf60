// The Replay page in the browser: board, move list, VP chart and controls of one game, stepped
// without asking the server. The server sends the whole game once (dashboards/replay_data.py);
// every text from the database goes through esc() before it reaches the page.

const PALETTE = ["#2f7ed8", "#d9412b", "#2e9a48", "#e08a00", "#8e5cc7", "#1a9c9c"];
const GOODS_PR = ["corn", "indigo", "sugar", "tobacco", "coffee"];
const STATE_KEY = "governor-replay:";

function esc(value) {
  return String(value === null || value === undefined ? "" : value)
    .replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

function expand(runs, total) {
  const out = new Array(total + 1);
  let i = 0;
  let value = null;
  for (let step = 0; step <= total; step++) {
    while (i < runs.length && runs[i][0] <= step) { value = runs[i][1]; i++; }
    out[step] = value;
  }
  return out;
}

function columns(runsByColumn, total) {
  const out = {};
  for (const [name, runs] of Object.entries(runsByColumn)) { out[name] = expand(runs, total); }
  return out;
}

function rowAt(cols, step) {
  const row = {};
  for (const name in cols) { row[name] = cols[name][step]; }
  return row;
}

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
  const game = {
    data,
    total,
    names: data.names,
    table: columns(data.table, total),
    seats: data.seats.map((s) => columns(s, total)),
    vpPublic: data.vp_public ? data.vp_public.map((r) => expand(r, total)) : null,
    moveIndex: new Map(),
    roundFirst: {},
    rounds: [],
  };
  data.moves.step.forEach((step, i) => game.moveIndex.set(step, i));
  for (const [round, step] of Object.entries(data.round_first)) {
    game.roundFirst[Number(round)] = step;
    game.rounds.push(Number(round));
  }
  game.rounds.sort((a, b) => a - b);
  return game;
}

function roundAt(game, step) {
  const r = game.table.round ? game.table.round[step] : null;
  return r === null || r === undefined ? 1 : Number(r);
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

// Whether this view sees everything of a seat.
function seesSeat(view, seat) {
  return view === "all" || viewSeat(view) === seat;
}

function seatVp(game, view, seat, step) {
  if (game.vpPublic && !seesSeat(view, seat)) { return game.vpPublic[seat][step]; }
  return game.seats[seat].vp[step];
}

function moveWords(game, view, i) {
  const m = game.data.moves;
  const pub = m.public[i];
  if (pub === null || pub === undefined || seesSeat(view, m.seat[i])) { return m.words[i]; }
  return pub;
}

// -- boards --------------------------------------------------------------------------------------

function badges(governor, acting, winner) {
  let out = "";
  if (governor) { out += '<span class="badge gov">governor</span>'; }
  if (acting) { out += '<span class="badge act">to act</span>'; }
  if (winner) { out += '<span class="badge win">winner</span>'; }
  return out;
}

function panelHead(name, vp, parts, flags) {
  return `<div class="phead"><span class="pname" title="${esc(name)}">${esc(name)}</span>`
    + `<span class="badges">${badges(flags.governor, flags.acting, flags.winner)}</span>`
    + `<span class="pvp" title="${esc(parts)}">${esc(vp)} <small>VP</small></span></div>`;
}

function panelClass(flags) {
  return "player" + (flags.acting ? " acting" : "") + (flags.winner ? " winner" : "");
}

function chip(text, cls) { return `<span class="chip ${cls}">${esc(text)}</span>`; }

function seatName(game, seat) {
  return seat !== null && seat !== undefined && seat >= 0 && seat < game.names.length ? game.names[seat] : "?";
}

const SJ_ROLES = ["builder", "producer", "trader", "councillor", "prospector"];
const SJ_STAGES = {
  over: "game over", role: "choosing a role", chapel: "chapel (start of turn)",
  hand_limit: "discarding to the hand limit", draft: "drafting the starting hand",
};

function sjGoodsOnBuildings(buildings, goods, cards) {
  const pending = goods.slice();
  return buildings.map((name) => {
    const card = cards[name];
    const good = card ? card.good : null;
    if (pending.length && good && good === pending[0]) { return pending.shift(); }
    return null;
  });
}

function sjCard(name, good, cards) {
  const card = cards[name];
  const cost = card ? card.cost : "?";
  const vpText = card && card.cost === 6 ? "bonus" : `${card ? card.vp : "?"} VP`;
  const title = `${name}: cost ${cost}, ${card ? card.vp : "?"} VP` + (good ? `, holds ${good}` : "");
  const goodHtml = good ? `<span class="good good-${esc(good)}" title="${esc(good)}"></span>` : "";
  return `<div class="card ${esc(card ? card.cls : "violet")}" title="${esc(title)}"><span class="cost">${esc(cost)}</span>`
    + `<span class="vp">${esc(vpText)}</span><span class="cname">${esc(name)}</span>${goodHtml}</div>`;
}

function sjBoard(game, step, view) {
  const t = rowAt(game.table, step);
  const cards = game.data.catalogue.cards || {};
  const tiles = game.data.catalogue.tiles || {};
  const taken = list(t.roles_taken);
  const roleChips = SJ_ROLES.map((r) => chip(r, t.role === r && taken.includes(r) ? "now" : taken.includes(r) ? "done" : "")).join("");
  let tile;
  if (t.tile) {
    const prices = (tiles[String(t.tile)] || []).map(([g, p]) => `${g} ${p}`).join(", ");
    tile = `<b>Trading house</b> tile ${esc(t.tile)} <span title="cards paid per good">(${esc(prices)})</span>`;
  } else {
    tile = `<b>Trading house</b> next tile ${t.next_tile ? esc(t.next_tile) : "?"} (face down)`;
  }
  const stage = t.stage === "phase" ? `${t.role} phase` : (SJ_STAGES[t.stage] || String(t.stage || "").replace(/_/g, " "));
  const acting = t.to_act;
  const waiting = acting !== null && acting !== undefined ? ` · <b>to act</b> <span class="who" title="${esc(seatName(game, acting))}">${esc(seatName(game, acting))}</span>` : "";
  const bar = '<div class="bar">'
    + `<span><b>Round</b> <span class="round-now">${esc(num(t.round))}</span></span>`
    + `<span><b>Governor</b> <span class="who" title="${esc(seatName(game, t.governor))}">${esc(seatName(game, t.governor))}</span></span>`
    + `<span><b>Now</b> ${esc(stage)}${waiting}</span>`
    + `<span><b>Roles</b> ${roleChips}</span>`
    + `<span><b>Draw pile</b> ${esc(num(t.draw_pile))}</span>`
    + `<span><b>Discard pile</b> ${esc(num(t.discard_pile))}</span>`
    + `<span>${tile}</span></div>`;
  const over = t.stage === "over";
  const panels = game.seats.map((cols, seat) => {
    const p = rowAt(cols, step);
    const flags = { governor: seat === t.governor, acting: seat === acting, winner: over && game.data.winners.includes(seat) };
    const buildings = list(p.buildings);
    const goods = list(p.goods);
    const placed = sjGoodsOnBuildings(buildings, goods, cards);
    const parts = `buildings ${num(p.vp_buildings)} + chapel ${num(p.vp_chapel)} + bonus ${num(p.vp_bonus)}`;
    const built = buildings.map((b, i) => sjCard(b, placed[i], cards)).join("");
    let hand;
    if (seesSeat(view, seat)) {
      hand = list(p.hand).map((c) => {
        const card = cards[c];
        const tip = card ? `${c}: cost ${card.cost}, ${card.vp} VP` : c;
        return `<span class="mini ${esc(card ? card.cls : "violet")}" title="${esc(tip)}">${esc(c)}</span>`;
      }).join("") || '<span class="meta">(empty)</span>';
    } else {
      const n = Number(p.hand_size || 0);
      hand = n ? `<span class="backs" title="${n} cards, face down">${'<span class="back"></span>'.repeat(Math.min(n, 14))}</span>`
        : '<span class="meta">(empty)</span>';
    }
    const covered = list(p.covered);
    return `<div class="${panelClass(flags)}" data-seat="${seat}">`
      + panelHead(game.names[seat], p.vp, parts, flags)
      + `<div class="meta">Hand ${esc(num(p.hand_size))} · Goods ${goods.length} · Chapel ${esc(num(p.chapel_cards))}`
      + ` · ${buildings.length}/12 buildings</div>`
      + `<div class="cards">${built}</div>`
      + (covered.length ? `<div class="meta">Under cranes: ${esc(covered.join(", "))}</div>` : "")
      + `<div class="section">Hand (${esc(num(p.hand_size))})</div><div class="hand">${hand}</div></div>`;
  });
  return { bar, panels, cls: "players" };
}

function prColonists(filled, circles) {
  let out = "";
  for (let i = 0; i < circles; i++) { out += `<span class="col${i < filled ? " on" : ""}"></span>`; }
  return out;
}

function prTile(kind) {
  const worked = kind.endsWith("*");
  const name = kind.replace(/\*+$/, "");
  return `<span class="tile t-${esc(name)}" title="${esc(name)}${worked ? " (worked)" : ""}">${esc(name.slice(0, 3))}`
    + `${prColonists(worked ? 1 : 0, 1)}</span>`;
}

function prBuilding(name, workers, cards) {
  const b = cards[name];
  const circles = b ? b.circles : Math.max(workers, 1);
  const title = `${name}: cost ${b ? b.cost : "?"}, ${b ? b.vp : "?"} VP, ${workers}/${circles} colonists`;
  return `<div class="bld ${esc(b ? b.cls : "violet")}" title="${esc(title)}"><span class="bname">${esc(name)}</span>`
    + `<span class="bfoot"><span class="vp">${esc(b ? b.vp : "?")}</span><span class="circles">${prColonists(workers, circles)}</span></span></div>`;
}

function prBoard(game, step, view) {
  const t = rowAt(game.table, step);
  const cards = game.data.catalogue.cards || {};
  const taken = list(t.roles_taken);
  const roleChips = pairs(t.role_doubloons).map(([card, coins]) => {
    const extra = coins && coins !== "0" ? ` +${coins}$` : "";
    return chip(card + extra, card === t.role ? "now" : taken.includes(card) ? "done" : "");
  }).join("");
  const ships = list(t.ships).map((s) => `<span class="ship">${esc(s)}</span>`).join("");
  const house = list(t.trading_house).join(", ") || "empty";
  const supply = pairs(t.goods_supply).map(([g, n]) => `${g} ${n}`).join(", ");
  const faceUp = list(t.face_up_plantations).map((k) => prTile(String(k))).join("");
  const acting = t.to_act;
  const stage = t.role ? `${t.role} phase` : String(t.stage || "").replace(/_/g, " ");
  const waiting = acting !== null && acting !== undefined ? ` · <b>to act</b> <span class="who" title="${esc(seatName(game, acting))}">${esc(seatName(game, acting))}</span>` : "";
  const triggers = list(t.end_triggers).join(", ");
  const bar = '<div class="bar">'
    + `<span><b>Round</b> <span class="round-now">${esc(num(t.round))}</span></span>`
    + `<span><b>Governor</b> <span class="who" title="${esc(seatName(game, t.governor))}">${esc(seatName(game, t.governor))}</span></span>`
    + `<span><b>Now</b> ${esc(stage)}${waiting}</span>`
    + `<span><b>Roles</b> ${roleChips}</span></div>`
    + '<div class="bar">'
    + `<span><b>Ships</b> <span class="ships">${ships}</span></span>`
    + `<span><b>Trading house</b> ${esc(house)}</span>`
    + `<span><b>Colonist ship</b> ${esc(num(t.colonist_ship))} · supply ${esc(num(t.colonist_supply))}</span>`
    + `<span><b>VP chips left</b> ${esc(num(t.vp_chips_left))}</span>`
    + `<span><b>Bank</b> ${esc(num(t.bank))} doubloons</span></div>`
    + '<div class="bar">'
    + `<span><b>Plantations</b> <span class="island">${faceUp}</span></span>`
    + `<span>stack ${esc(num(t.plantation_stack))} · discarded ${esc(num(t.plantation_discard))} · quarries ${esc(num(t.quarries_left))}</span>`
    + `<span><b>Goods supply</b> ${esc(supply)}</span>`
    + (triggers ? `<span><b>Game end triggered</b> ${esc(triggers)}</span>` : "")
    + "</div>";
  const over = t.stage === "over";
  const panels = game.seats.map((cols, seat) => {
    const p = rowAt(cols, step);
    const flags = { governor: seat === t.governor, acting: seat === acting, winner: over && game.data.winners.includes(seat) };
    const sees = seesSeat(view, seat) || over;
    const vp = sees ? p.vp : seatVp(game, view, seat, step);
    const parts = sees
      ? `chips ${num(p.vp_chips)} + buildings ${num(p.vp_buildings)} + bonus ${num(p.vp_bonus)}`
      : `buildings ${num(p.vp_buildings)} + bonus ${num(p.vp_bonus)}; VP chips lie face down`;
    const goods = GOODS_PR.map((g) => `<span class="gq"><span class="sq good-${g}"></span>${g} ${esc(num(p["goods_" + g] || 0))}</span>`).join("");
    const island = list(p.island).map((k) => prTile(String(k))).join("")
      + '<span class="tile t-empty"></span>'.repeat(Math.max(0, 12 - list(p.island).length));
    const city = list(p.city);
    const occupancy = list(p.city_occupancy);
    const built = city.map((b, i) => prBuilding(String(b), Number(occupancy[i] || 0), cards)).join("");
    const free = Math.max(0, 12 - Number(p.city_spaces || 0));
    return `<div class="${panelClass(flags)}" data-seat="${seat}">`
      + panelHead(game.names[seat], vp, parts, flags)
      + `<div class="meta"><b>${esc(num(p.doubloons))}</b> doubloons · colonists ${esc(num(p.colonists_placed))} placed,`
      + ` ${esc(num(p.colonists_san_juan))} in San Juan${sees ? ` · chips ${esc(num(p.vp_chips))}` : " · chips hidden"}</div>`
      + `<div class="goods">${goods}</div>`
      + `<div class="island">${island}</div>`
      + `<div class="city">${built}${'<div class="bld empty"></div>'.repeat(free)}</div></div>`;
  });
  return { bar, panels, cls: "players pr" };
}

const BOARDS = { san_juan: sjBoard, puerto_rico: prBoard };

// -- the move list, the chart and what changed ---------------------------------------------------

// A move the stored analysis tagged (docs/analysis.md): a short badge after its words.
const TAG_LABELS = { inaccuracy: "?!", mistake: "?", blunder: "??" };
function tagHtml(tag) {
  return tag && TAG_LABELS[tag] ? `<span class="tag tag-${tag}" title="${esc(tag)}">${TAG_LABELS[tag]} ${esc(tag)}</span>` : "";
}

function moveListHtml(game, view) {
  const m = game.data.moves;
  const events = m.events || null;
  const tags = m.tag || null;
  const rows = ['<div class="mv" data-step="0"><span class="n">0</span><span class="body"><span class="w">The start of the game</span></span></div>'];
  let lastRound = null;
  m.step.forEach((step, i) => {
    if (m.round[i] !== lastRound) {
      lastRound = m.round[i];
      rows.push(`<div class="rnd" data-round="${lastRound}">Round ${esc(lastRound)}</div>`);
    }
    const ev = events && events[i] && events[i].length
      ? events[i].map((e) => `<span class="ev">${esc(e)}</span>`).join("") : "";
    rows.push(`<div class="mv" data-step="${step}" title="${esc(m.text[i])}"><span class="n">${step}</span>`
      + `<span class="body"><span class="w">${esc(moveWords(game, view, i))}</span>${tagHtml(tags && tags[i])}${ev}</span></div>`);
  });
  return rows.join("");
}

function changesHtml(game, view, step) {
  if (step === 0) { return '<p class="meta">The start of the game: nothing before it.</p>'; }
  const items = game.data.changes[step] || [];
  if (!items.length) { return '<p class="meta">Nothing stored changed.</p>'; }
  const out = items.map(([who, full, pub]) => {
    const lines = who >= 0 && pub && !seesSeat(view, who) ? pub : full;
    if (!lines.length) { return ""; }
    const name = who < 0 ? "Table" : game.names[who];
    const text = lines.map((line) => {
      const cls = line.startsWith("+") ? "plus" : line.startsWith("\u2212") ? "minus" : "";
      return `<span class="${cls}">${esc(line)}</span>`;
    }).join(", ");
    return `<li><b class="who" title="${esc(name)}">${esc(name)}</b>: ${text}</li>`;
  }).join("");
  return `<ul class="diff">${out}</ul>`;
}

function chartSvg(game, view, width) {
  const height = 170;
  const pad = { l: 30, r: 8, t: 8, b: 20 };
  const total = Math.max(1, game.total);
  let max = 1;
  const series = game.seats.map((_, seat) => {
    const values = [];
    for (let s = 0; s <= game.total; s++) {
      const v = Number(seatVp(game, view, seat, s) || 0);
      values.push(v);
      if (v > max) { max = v; }
    }
    return values;
  });
  const x = (s) => pad.l + (s / total) * (width - pad.l - pad.r);
  const y = (v) => height - pad.b - (v / max) * (height - pad.t - pad.b);
  const lines = series.map((values, seat) => {
    let d = `M${x(0).toFixed(1)},${y(values[0]).toFixed(1)}`;
    for (let s = 1; s < values.length; s++) {
      if (values[s] !== values[s - 1]) { d += `H${x(s).toFixed(1)}V${y(values[s]).toFixed(1)}`; }
    }
    d += `H${x(game.total).toFixed(1)}`;
    return `<path d="${d}" stroke="${PALETTE[seat % PALETTE.length]}" class="line"/>`;
  }).join("");
  const ticks = [];
  const stepTick = max > 40 ? 20 : max > 20 ? 10 : 5;
  for (let v = 0; v <= max; v += stepTick) {
    ticks.push(`<line x1="${pad.l}" x2="${width - pad.r}" y1="${y(v)}" y2="${y(v)}" class="grid"/>`
      + `<text x="${pad.l - 4}" y="${y(v) + 3}" class="tick" text-anchor="end">${v}</text>`);
  }
  for (const round of game.rounds) {
    const s = roundStart(game, round);
    if (round % 2 === 1 || game.rounds.length < 12) {
      ticks.push(`<text x="${x(s)}" y="${height - 6}" class="tick" text-anchor="middle">${round}</text>`);
    }
  }
  const dots = game.seats.map((_, seat) => `<circle r="4" class="dot" data-seat="${seat}" fill="${PALETTE[seat % PALETTE.length]}"/>`).join("");
  return {
    html: `<svg width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="Victory points by move">`
      + `${ticks.join("")}<text x="${pad.l - 4}" y="${height - 6}" class="tick" text-anchor="end">rd</text>`
      + `${lines}<line class="cursor" y1="${pad.t}" y2="${height - pad.b}"/>${dots}`
      + `<rect class="hit" x="${pad.l}" y="0" width="${width - pad.l - pad.r}" height="${height}"/></svg>`,
    x, y, series, pad, width,
  };
}

function legendHtml(game) {
  return game.names.map((name, seat) => `<span class="lg" title="${esc(name)}"><span class="sw" style="background:${PALETTE[seat % PALETTE.length]}"></span>`
    + `<span class="lgname">${esc(name)}</span></span>`).join("");
}

// -- the component -------------------------------------------------------------------------------

const ICON = {
  first: '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M3 3h2v10H3zM13 3v10L6 8z"/></svg>',
  prev: '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M11 3v10L4 8z"/></svg>',
  next: '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M5 3v10l7-5z"/></svg>',
  last: '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M11 3h2v10h-2zM3 3v10l7-5z"/></svg>',
  branch: '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M4 1h2v7.2l4.6-3.4-1.4-1.4H14v4.8l-1.5-1.5L6 11.5V15H4z"/></svg>',
};

const HTML = `
<div class="gv-root">
  <div class="head"><div class="title"></div><div class="facts"></div></div>
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
  <div class="main">
    <div class="boardcol"><div class="board"></div>
      <div class="chartbox"><div class="charthead">Victory points <span class="meta">(click to go to a move)</span></div>
      <div class="chart"></div><div class="legend"></div></div></div>
    <div class="side">
      <div class="sidehead">Moves</div><div class="moves" tabindex="-1"></div>
      <div class="sidehead">What changed <span class="chg-step"></span></div><div class="changes"></div>
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
    chart: el(".chart"), legend: el(".legend"), moves: el(".moves"), changes: el(".changes"), chgStep: el(".chg-step"),
    branch: el("button.branch"), buttons: {},
  };
  root.querySelectorAll("button[data-go]").forEach((b) => { ui.buttons[b.dataset.go] = b; });
  const s = { ui, host, game: null, step: 0, view: "all", request: null, drawn: null, rowEls: [], frame: 0, urlTimer: 0, chart: null };
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

function remembered(gameId) {
  try { return JSON.parse(window.sessionStorage.getItem(STATE_KEY + gameId) || "null"); } catch (err) { return null; }
}

function go(s, step) {
  if (!s.game) { return; }
  const target = Math.max(0, Math.min(s.game.total, step));
  if (target === s.step) { return; }
  s.step = target;
  schedule(s);
  saveLater(s);
}

function schedule(s) {
  if (s.frame) { return; }
  s.frame = requestAnimationFrame(() => { s.frame = 0; render(s); });
}

function setGame(s, data) {
  const game = decode(data);
  s.game = game;
  const { ui } = s;
  const title = { san_juan: "San Juan", puerto_rico: "Puerto Rico" }[data.game] || data.game;
  ui.title.textContent = `${title}: ${data.names.join(", ")}`;
  ui.title.title = ui.title.textContent;
  const winners = data.winners.map((w) => data.names[w]).join(", ");
  ui.facts.textContent = [...data.facts, winners ? `winner ${winners}` : "no winner", `source ${data.source}`, `game id ${data.game_id}`].join(" \u00b7 ");
  ui.facts.title = ui.facts.textContent;
  ui.slider.max = String(game.total);
  ui.round.innerHTML = game.rounds.map((r) => `<option value="${r}">${r}</option>`).join("");
  ui.view.innerHTML = '<option value="all">everything</option><option value="public">public</option>'
    + data.names.map((n, seat) => `<option value="seat${seat}">${esc(n.length > 24 ? n.slice(0, 23) + "\u2026" : n)}'s seat</option>`).join("");
  ui.legend.innerHTML = legendHtml(game);
  s.drawn = null;
  s.boardParts = null;
}

function drawStatic(s) {
  // What depends on the game and the view, not on the step: the move list and the chart's lines.
  const { ui, game, view } = s;
  ui.moves.innerHTML = moveListHtml(game, view);
  s.rowEls = Array.from(ui.moves.querySelectorAll(".mv"));
  s.rowEls.forEach((row) => { row.classList.add("future"); });
  if (s.rowEls.length) { s.rowEls[0].classList.remove("future"); }
  const width = Math.max(240, Math.floor(ui.chart.clientWidth || 600));
  s.chart = chartSvg(game, view, width);
  ui.chart.innerHTML = s.chart.html;
  s.chart.width = width;
  s.drawnStep = 0;
  s.drawn = view;
}

function render(s) {
  const { ui, game } = s;
  if (!game) { return; }
  const started = performance.now();
  if (s.drawn !== s.view || (s.chart && Math.abs((ui.chart.clientWidth || s.chart.width) - s.chart.width) > 40)) { drawStatic(s); }
  const step = s.step;
  if (BOARDS[game.data.game]) { paintBoard(s, BOARDS[game.data.game](game, step, s.view)); }
  ui.slider.value = String(step);
  ui.pos.textContent = `${step} / ${game.total}`;
  const round = roundAt(game, step);
  ui.round.value = String(round);
  ui.view.value = s.view;
  const i = game.moveIndex.get(step);
  const words = step === 0 ? "the start of the game" : moveWords(game, s.view, i);
  ui.now.innerHTML = `<b>Move ${step} of ${game.total}</b> \u00b7 round ${esc(round)} \u00b7 <span class="words">${esc(words)}</span>`;
  ui.buttons.first.disabled = ui.buttons.prev.disabled = step === 0;
  ui.buttons.next.disabled = ui.buttons.last.disabled = step >= game.total;
  // Move list: only the rows between the old and the new position change class.
  const rows = s.rowEls;
  const indexOf = (st) => (st === 0 ? 0 : (game.moveIndex.get(st) ?? -1) + 1);
  const old = indexOf(s.drawnStep || 0);
  const now = indexOf(step);
  if (rows[old]) { rows[old].classList.remove("current"); }
  for (let k = Math.min(old, now) + 1; k <= Math.max(old, now); k++) { rows[k].classList.toggle("future", k > now); }
  if (rows[now]) { rows[now].classList.add("current"); rows[now].classList.remove("future"); keepInView(ui.moves, rows[now]); }
  s.drawnStep = step;
  ui.chgStep.textContent = step ? `(move ${step})` : "";
  ui.changes.innerHTML = changesHtml(game, s.view, step);
  // The chart's cursor and dots.
  const c = s.chart;
  const cursor = ui.chart.querySelector(".cursor");
  if (c && cursor) {
    const x = c.x(step).toFixed(1);
    cursor.setAttribute("x1", x);
    cursor.setAttribute("x2", x);
    ui.chart.querySelectorAll(".dot").forEach((dot) => {
      const seat = Number(dot.getAttribute("data-seat"));
      dot.setAttribute("cx", x);
      dot.setAttribute("cy", c.y(c.series[seat][step]).toFixed(1));
    });
  }
  // What drawing this step cost in script and DOM work (the benchmark reads it beside its own clock).
  ui.root.setAttribute("data-render-ms", (performance.now() - started).toFixed(2));
  ui.root.setAttribute("data-view", s.view);
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
  if (direction > 0) {
    const next = roundStart(game, r + 1);
    go(s, next === null ? game.total : next);
    return;
  }
  const start = roundStart(game, r);
  if (start !== null && s.step > start) { go(s, start); return; }
  const previous = roundStart(game, r - 1);
  go(s, previous === null ? 0 : previous);
}

function onKey(s, event) {
  if (!s.game || event.altKey || event.ctrlKey || event.metaKey) { return; }
  const keys = { ArrowLeft: 1, ArrowRight: 1, Home: 1, End: 1, PageUp: 1, PageDown: 1 };
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
  on(ui.round, "change", () => {
    const start = roundStart(s.game, Number(ui.round.value));
    if (start !== null) { go(s, start); }
    ui.round.blur();
  });
  on(ui.view, "change", () => { s.view = ui.view.value; ui.view.blur(); render(s); saveLater(s); });
  on(ui.moves, "click", (event) => {
    const row = event.target.closest ? event.target.closest(".mv") : null;
    if (row) { go(s, Number(row.getAttribute("data-step"))); }
  });
  on(ui.chart, "click", (event) => {
    const c = s.chart;
    const svg = ui.chart.querySelector("svg");
    if (!c || !svg || !s.game) { return; }
    const box = svg.getBoundingClientRect();
    const x = (event.clientX - box.left) * (c.width / box.width);
    const span = c.width - c.pad.l - c.pad.r;
    go(s, Math.round(((x - c.pad.l) / span) * s.game.total));
  });
  const keydown = (event) => onKey(s, event);
  on(document, "keydown", keydown);
  const resize = new ResizeObserver(() => { if (s.game && s.chart && Math.abs(ui.chart.clientWidth - s.chart.width) > 40) { schedule(s); } });
  resize.observe(ui.chart);
  off.push(() => resize.disconnect());
  return () => off.forEach((fn) => fn());
}

export default function (component) {
  const { data, parentElement } = component;
  let s = parentElement.__governorReplay;
  if (!s) {
    s = setup(parentElement, parentElement.host || parentElement);
    parentElement.__governorReplay = s;
  }
  s.ui.root.classList.toggle("dark", isDark(s.host));
  s.trigger = component.setTriggerValue;
  if (!data || !data.game) { return undefined; }
  // A variation has no "here" to branch from: it is played on in the What-if panel.
  s.ui.branch.hidden = !data.branch;
  // What makes two sends of a game differ for the viewer: another game, its length, the analysis tags.
  const signature = (g) => `${g.game_id}|${g.total}|${g.moves && g.moves.tag ? g.moves.tag.join(",") : ""}`;
  const fresh = !s.game || s.game.data.game_id !== data.game.game_id || s.request !== data.request;
  if (!fresh && signature(s.game.data) !== signature(data.game)) {
    // The same game sent again with more in it (e.g. tags of an analysis just stored): keep the position.
    setGame(s, data.game);
    s.step = Math.min(s.step, s.game.total);
  }
  if (fresh) {
    if (!s.game || signature(s.game.data) !== signature(data.game)) { setGame(s, data.game); }
    s.request = data.request;
    const memory = remembered(data.game.game_id);
    const step = data.step !== null && data.step !== undefined ? data.step : memory ? memory.step : 0;
    s.step = Math.max(0, Math.min(s.game.total, Number(step) || 0));
    s.view = data.view || (memory && memory.view) || "all";
    if (s.view !== "all" && s.view !== "public" && (viewSeat(s.view) === null || viewSeat(s.view) >= data.game.names.length)) { s.view = "all"; }
    s.drawn = null;
  }
  render(s);
  saveNow(s);
  const unwire = wire(s);
  return () => { unwire(); clearTimeout(s.urlTimer); if (s.frame) { cancelAnimationFrame(s.frame); s.frame = 0; } };
}
