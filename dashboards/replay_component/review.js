// The Replay viewer's side column: the Review's results (dashboards/review_panel.py's ``beside``).
// Put after replay.js, whose helpers (esc, list, nameHtml, plural) it uses.

// The Review's results beside the board (where the side column is beside it; under the board the
// page shows them): each seat's accuracy and counts, and the mistakes this view may name, each a way
// to its position. Drawn again only when they change.
function renderReview(s, review) {
  const key = JSON.stringify(review || null);
  if (s.reviewKey === key) { return; }
  s.reviewKey = key;
  s.ui.reviewBox.hidden = !review;
  if (!review) { s.ui.review.innerHTML = ""; return; }
  const seats = list(review.seats).map((r) => `<tr><td class="who">${nameHtml(r.player, "who")}</td>`
    + `<td>${r.accuracy === null || r.accuracy === undefined ? "\u2013" : esc(Number(r.accuracy).toFixed(1))}</td>`
    + `<td>${esc(r.inaccuracies)}</td><td>${esc(r.mistakes)}</td><td>${esc(r.blunders)}</td></tr>`).join("");
  const table = '<table class="score rv-acc"><thead><tr><th class="who">player</th><th title="accuracy, 0 to 100">acc.</th>'
    + '<th title="inaccuracies">?!</th><th title="mistakes">?</th><th title="blunders">??</th></tr></thead>'
    + `<tbody>${seats}</tbody></table>`;
  const found = list(review.mistakes).map((m) => `<button type="button" class="rv-mistake" data-step="${esc(m.step)}" `
    + `title="Go to the position before move ${esc(m.step)}"><span class="n">${esc(m.step)}</span><span class="body">`
    + `${nameHtml(m.player, "who")} \u00b7 ${esc(m.tag)}, ${esc(m.loss)} points lost`
    + `<span class="ev">Better: ${esc(m.better)} \u00b7 ${esc(m.chance)}%</span></span></button>`).join("");
  const none = list(review.mistakes).length ? "" : '<div class="meta">No mistake or blunder listed in this view.</div>';
  const unlisted = review.unlisted ? `<div class="meta">${esc(plural(review.unlisted, "mistake"))} not listed in this view.</div>` : "";
  s.ui.review.innerHTML = `${table}<div class="sidehead">Mistakes and blunders</div><div class="rv-list">${found}</div>${none}${unlisted}`;
}
