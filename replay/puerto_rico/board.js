// Puerto Rico's board, declared by the game (replay/puerto_rico/__init__.py: board) and drawn by the
// pages' BOARD_TABLE: the status bar, and a panel per seat with island and city. Buildings, goods and
// the island's and city's spaces come from the catalogue the server sends (view.board_catalogue), the
// final scoring from the view too; the helpers (esc, chip, panelHead...) are the component's.

function prColonists(filled, circles) {
  let out = "";
  for (let i = 0; i < circles; i++) { out += `<span class="col${i < filled ? " on" : ""}"></span>`; }
  return out;
}

// A role card in words: a second card of a role ("prospector_2") is "Prospector (2nd)".
function prRoleWords(card) {
  const text = String(card || "");
  const found = /^(.*)_(\d+)$/.exec(text);
  if (found) {
    const n = Number(found[2]);
    const suffix = n % 100 >= 11 && n % 100 <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" })[n % 10] || "th";
    return `${prRoleWords(found[1])} (${n}${suffix})`;
  }
  const words = text.replace(/_/g, " ");
  return words.slice(0, 1).toUpperCase() + words.slice(1);
}

function prTile(kind) {
  const worked = kind.endsWith("*");
  const name = kind.replace(/\*+$/, "");
  return `<span class="tile t-${esc(name)}" title="${esc(name)}${worked ? " (worked)" : ""}" data-piece="${esc(name)}">${esc(name.slice(0, 3))}`
    + `${prColonists(worked ? 1 : 0, 1)}</span>`;
}

function prBuilding(name, workers, cards) {
  const b = cards[name];
  const circles = b ? b.circles : Math.max(workers, 1);
  const title = `${name}: cost ${b ? b.cost : "?"}, ${b ? b.vp : "?"} VP, ${workers}/${circles} colonists`;
  return `<div class="bld ${esc(b ? b.cls : "violet")}" title="${esc(title)}" data-piece="${esc(name)}"><span class="bname">${esc(name)}</span>`
    + `<span class="bfoot"><span class="vp">${esc(b ? b.vp : "?")}</span><span class="circles">${prColonists(workers, circles)}</span></span></div>`;
}

function draw(game, step) {
  const t = rowAt(game, game.table, step);
  const catalogue = game.data.catalogue;
  const cards = catalogue.cards || {};
  const taken = list(t.roles_taken);
  const roleChips = pairs(t.role_doubloons).map(([card, coins]) => {
    const extra = coins && coins !== "0" ? ` +${coins}$` : "";
    return chip(prRoleWords(card) + extra, card === t.role ? "now" : taken.includes(card) ? "done" : "", card);
  }).join("");
  const ships = list(t.ships).map((s) => `<span class="ship" data-piece="${esc(s)}">${esc(s)}</span>`).join("");
  const house = list(t.trading_house).join(", ") || "empty";
  const supply = pairs(t.goods_supply).map(([g, n]) => `${g} ${n}`).join(", ");
  const faceUp = list(t.face_up_plantations).map((k) => prTile(String(k))).join("");
  const acting = t.to_act;
  const stage = t.role ? `${prRoleWords(t.role)} phase` : String(t.stage || "").replace(/_/g, " ");
  const waiting = acting !== null && acting !== undefined ? ` · <b>to act</b> ${nameHtml(seatName(game, acting), "who")}` : "";
  const triggers = list(t.end_triggers).map((x) => String(x).replace(/_/g, " ").replace(/^vp /, "VP ")).join(", ");
  const bar = '<div class="bar">'
    + `<span><b>Round</b> <span class="round-now">${esc(num(t.round))}</span></span>`
    + `<span><b>Governor</b> ${nameHtml(seatName(game, t.governor), "who")}</span>`
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
    const p = rowAt(game, cols, step);
    const flags = { governor: seat === t.governor, acting: seat === acting, winner: over && game.data.winners.includes(seat) };
    // The server leaves the chips out of a view that may not see them (their VP too).
    const sees = p.vp_chips !== null && p.vp_chips !== undefined;
    const vp = p.vp;
    const parts = sees
      ? `chips ${num(p.vp_chips)} + buildings ${num(p.vp_buildings)} + bonus ${num(p.vp_bonus)}`
      : `buildings ${num(p.vp_buildings)} + bonus ${num(p.vp_bonus)}; VP chips lie face down`;
    const goods = list(catalogue.goods).map((g) => `<span class="gq" data-piece="${esc(g)}"><span class="sq good-${g}"></span>${g} ${esc(num(p["goods_" + g] || 0))}</span>`).join("");
    const island = list(p.island).map((k) => prTile(String(k))).join("")
      + '<span class="tile t-empty"></span>'.repeat(Math.max(0, Number(catalogue.island_spaces || 0) - list(p.island).length));
    const city = list(p.city);
    const occupancy = list(p.city_occupancy);
    const built = city.map((b, i) => prBuilding(String(b), Number(occupancy[i] || 0), cards)).join("");
    const free = Math.max(0, Number(catalogue.city_spaces || 0) - Number(p.city_spaces || 0));
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
