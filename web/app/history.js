// history.js — a player's past matches, a match's replay with the
// engine's review, and a player's rating graph (docs/web-protocol.md,
// "History and replay", version 3). Like app.js it knows no rules: every
// position of a replay comes from the gateway, which replays the match
// through the rules engine and places the cells as for a live game; this
// file only draws them. It uses app.js's send(), el(), $() and cellShape().
"use strict";

let historyPlayer = "";      // whose matches are listed ("": the gateway's default)
let historyPage = 0;
let replayMsg = null;        // the last replay message
let replayStep = 0;          // the position shown: after this many moves

function historyShowOnly(id) {
  for (const s of ["lobby", "game", "history", "replay", "tournament"])
    $(s).hidden = s !== id;
}

// Whether the history or a replay is on screen (app.js then leaves it there).
function historyShown() {
  return !$("history").hidden || !$("replay").hidden;
}

function judgementWord(j) {
  return { inaccuracy: t("inaccuracy"), mistake: t("mistake"), blunder: t("blunder") }[j] || j;
}

function historyOpen(player, page) {
  historyPlayer = player;
  historyPage = page;
  send({ type: "history", player, page });
  send({ type: "rating_history", player });
}

function historyBack() {
  replayMsg = null;
  historyShowOnly(current ? "game" : "lobby");
  if (!current) send({ type: "list" });
}

function resultText(m) {
  const names = m.winners.map((s) => m.seats[s] || "?");
  return names.length ? t("Won by %s").replace("%s", names.join(t(" and "))) : t("A draw");
}

function showHistory(msg) {
  historyShowOnly("history");
  $("history-title").textContent = t("Matches of %s").replace("%s", msg.player);
  if (!$("history-player").value) $("history-player").value = msg.player;
  const body = $("matches").tBodies[0];
  body.replaceChildren();
  for (const m of msg.matches) {
    const row = el("tr", { "data-match": m.id });
    row.append(el("td", {}, m.id));
    row.append(el("td", {}, m.kind));
    row.append(el("td", {}, m.seats.map((s, i) => `${s} ${m.scores[i]}`).join(", ")));
    row.append(el("td", {}, m.status === "finished" ? resultText(m) : t(m.status)));
    row.append(el("td", {}, new Date(m.ended_ms).toLocaleString()));
    const cell = el("td");
    const open = el("button", { type: "button", class: "replay" }, t("Replay"));
    open.addEventListener("click", () => send({ type: "replay", game: m.id }));
    cell.append(open);
    row.append(cell);
    body.append(row);
  }
  $("history-empty").hidden = msg.matches.length > 0;
  $("history-prev").disabled = msg.page === 0;
  $("history-next").disabled = !msg.more;
  $("history-pageno").textContent = t("Page %d").replace("%d", msg.page + 1);
}

// --- the rating graph: one line per kind ---

const GRAPH_W = 600, GRAPH_H = 200, GRAPH_PAD = 30;
const KIND_COLOURS = 6;     // app.css: .kind-0 ... .kind-5

function showRatings(msg) {
  const box = $("rating-graph");
  box.replaceChildren();
  const pts = msg.points;
  $("rating-title").textContent = t("Ratings of %s").replace("%s", msg.player);
  if (!pts.length) {
    box.append(el("p", {}, t("No rated games yet.")));
    return;
  }
  const values = pts.flatMap((p) => [p.before, p.rating]);
  const lo = Math.min(...values) - 20, hi = Math.max(...values) + 20;
  const y = (v) => GRAPH_PAD + (GRAPH_H - 2 * GRAPH_PAD) * (1 - (v - lo) / (hi - lo));
  const svg = el("svg:svg", { viewBox: `0 0 ${GRAPH_W} ${GRAPH_H}`, role: "img",
                              "aria-label": t("Rating graph") });
  svg.append(el("svg:rect", { x: 0, y: 0, width: GRAPH_W, height: GRAPH_H, class: "graph-bg" }));
  svg.append(el("svg:text", { x: 4, y: GRAPH_PAD, class: "graph-axis" }, Math.round(hi)));
  svg.append(el("svg:text", { x: 4, y: GRAPH_H - GRAPH_PAD, class: "graph-axis" }, Math.round(lo)));
  const kinds = [...new Set(pts.map((p) => p.kind))];
  const legend = el("ul", { class: "legend" });
  kinds.forEach((kind, k) => {
    const mine = pts.filter((p) => p.kind === kind);
    // x: the game's place among all of this player's rated games (its
    // point after it); the line starts at the rating before the first.
    const n = pts.length;
    const x = (i) => GRAPH_PAD + (GRAPH_W - 2 * GRAPH_PAD) * (i + 1) / n;
    const colour = `kind-${k % KIND_COLOURS}`;
    const coords = mine.map((p) => [x(pts.indexOf(p)), y(p.rating)]);
    const start = [x(pts.indexOf(mine[0]) - 1), y(mine[0].before)];
    svg.append(el("svg:polyline", { points: [start, ...coords].map((c) => c.join(",")).join(" "),
                                    class: `rating-line ${colour}` }));
    mine.forEach((p, i) => {
      const dot = el("svg:circle", { cx: coords[i][0], cy: coords[i][1], r: 4,
                                     class: `rating-point ${colour}`, "data-kind": kind,
                                     "data-rating": p.rating });
      dot.append(el("svg:title", {}, t("%s: %d after game %s").replace("%s", kind)
        .replace("%d", p.rating + (p.provisional ? "?" : "")).replace("%s", p.game)));
      svg.append(dot);
    });
    const item = el("li", { class: colour }, `${kind}: ${mine[mine.length - 1].rating}`);
    legend.append(item);
  });
  box.append(svg, legend);
}

// --- the replay ---

function showReplay(msg) {
  replayMsg = msg;
  historyShowOnly("replay");
  $("replay-title").textContent = t("Replay of game %s: %s").replace("%s", msg.game)
    .replace("%s", msg.title || msg.kind);
  const list = $("replay-moves");
  list.replaceChildren();
  msg.moves.forEach((m, i) => {
    const item = el("li", {});
    const b = el("button", { type: "button", "data-step": i + 1 }, `${m.name}: ${m.move}`);
    b.addEventListener("click", () => replayGo(i + 1));
    item.append(b);
    list.append(item);
  });
  drawReview(msg);
  replayGo(msg.moves.length);
}

function replayGo(step) {
  const msg = replayMsg;
  if (!msg) return;
  replayStep = Math.max(0, Math.min(msg.moves.length, step));
  const pos = msg.positions[replayStep];
  const st = { drawing: msg.drawing, seats: msg.seats };
  const [vx, vy, vw, vh] = msg.view;
  const svg = el("svg:svg", { viewBox: `${vx - 30} ${vy - 40} ${vw + 60} ${vh + 80}`,
                              role: "img", "aria-label": t("board") });
  svg.append(el("svg:rect", { x: vx - 30, y: vy - 40, width: vw + 60, height: vh + 80,
                              rx: 30, class: "board-bg" }));
  msg.seats.forEach((s, i) => {
    if (!s.label) return;
    const [x, y, w, h] = s.label;
    svg.append(el("svg:text", { x: x + w / 2, y: y + h / 2, class: "seat-label" },
                  `${s.name} (${pos.scores[i]})`));
  });
  for (const c of msg.cells)
    svg.append(cellShape(st, { ...c, value: pos.values[c.cell] }));
  $("replay-board").replaceChildren(svg);
  let text;
  if (replayStep === 0) {
    text = t("move 0 of %d: the starting position").replace("%d", msg.moves.length);
  } else {
    const m = msg.moves[replayStep - 1];
    text = t("move %d of %d: %s played %s").replace("%d", replayStep)
      .replace("%d", msg.moves.length).replace("%s", m.name).replace("%s", m.move);
  }
  if (replayStep === msg.moves.length && msg.reason)
    text += ` ${t("The end: %s.").replace("%s", msg.reason)}`;
  $("replay-where").textContent = text;
  for (const b of $("replay-moves").querySelectorAll("button"))
    b.classList.toggle("at", Number(b.dataset.step) === replayStep);
  for (const p of $("value-graph").querySelectorAll("[data-step]"))
    p.classList.toggle("at", Number(p.dataset.step) === replayStep);
}

// The engine's review under the board: the first player's winning chance
// after each move (as the GTK replay's value graph), judged moves marked;
// with more than two players a line for each through the points after their
// own moves (each point is then its mover's chance).
function drawReview(msg) {
  const box = $("value-graph");
  box.replaceChildren();
  const r = msg.review;
  if (!r || !r.done) {
    box.append(el("p", { class: "not-reviewed" },
                  t("Not reviewed yet: %s").replace("%s", r ? r.reason : "")));
    $("accuracy").textContent = "";
    return;
  }
  const n = r.points.length;
  const x = (i) => GRAPH_PAD + (GRAPH_W - 2 * GRAPH_PAD) * (n ? i / n : 0);
  const y = (c) => GRAPH_PAD + (GRAPH_H - 2 * GRAPH_PAD) * (1 - c / 100);
  const first = msg.seats[0] ? msg.seats[0].name : "?";
  const many = msg.seats.length > 2;
  const label = many
    ? t("Value graph: each player's winning chance after their own moves")
    : t("Value graph: the winning chance of %s after each move").replace("%s", first);
  const svg = el("svg:svg", { viewBox: `0 0 ${GRAPH_W} ${GRAPH_H}`, role: "img",
                              "aria-label": label });
  svg.append(el("svg:rect", { x: 0, y: 0, width: GRAPH_W, height: GRAPH_H, class: "graph-bg" }));
  svg.append(el("svg:line", { x1: GRAPH_PAD, x2: GRAPH_W - GRAPH_PAD, y1: y(50), y2: y(50),
                              class: "graph-even" }));
  svg.append(el("svg:text", { x: 4, y: y(100), class: "graph-axis" }, "100%"));
  svg.append(el("svg:text", { x: 4, y: y(0), class: "graph-axis" }, "0%"));
  const coords = [[x(0), y(50)], ...r.points.map((p, i) => [x(i + 1), y(p.chance)])];
  const seatsDrawn = many ? msg.seats.map((_, s) => s) : [null];
  for (const seat of seatsDrawn) {
    const own = coords.filter((_, i) => i === 0 || seat === null ||
                                        r.points[i - 1].seat === seat);
    svg.append(el("svg:polyline", { points: own.map((c) => c.join(",")).join(" "),
                                    class: seat === null ? "value-line"
                                                         : `value-line seat-${seat}`,
                                    "data-seat": seat === null ? "" : seat }));
  }
  r.points.forEach((p, i) => {
    const judged = p.judgement !== "";
    const dot = el("svg:circle", { cx: coords[i + 1][0], cy: coords[i + 1][1],
                                   r: judged ? 7 : 4, "data-step": i + 1,
                                   "data-judgement": p.judgement,
                                   class: judged ? `point judged ${p.judgement}` : "point" });
    const m = msg.moves[i];
    dot.append(el("svg:title", {}, `${i + 1}. ${m ? m.name + ": " + m.move : ""} ` +
                  `${Math.round(p.chance)}%` + (judged ? ` (${judgementWord(p.judgement)})` : "")));
    dot.addEventListener("click", () => replayGo(i + 1));
    svg.append(dot);
  });
  box.append(svg);
  $("accuracy").textContent = t("Accuracy:") + " " + r.accuracy
    .map((a, i) => `${msg.seats[i] ? msg.seats[i].name : "?"} ` +
                   (a === null ? "-" : `${a.toFixed(1)}%`)).join(", ");
}

// Called by app.js's onMessage for the messages of version 3.
function historyMessage(msg) {
  switch (msg.type) {
  case "history": showError(""); showHistory(msg); return true;
  case "rating_history": showRatings(msg); return true;
  case "replay": showError(""); showReplay(msg); return true;
  }
  return false;
}

function historyTranslate() {
  const words = {
    "history-open": t("History"), "history-show": t("Show"), "history-prev": t("Previous"),
    "history-next": t("Next"), "history-back": t("Back"), "replay-back": t("Back to the matches"),
    "replay-first": t("First"), "replay-prev": t("Back one move"),
    "replay-next": t("Forward one move"), "replay-last": t("Last"),
    "history-player-label": t("Player"), "history-empty": t("No matches."),
    "review-title": t("The engine's review"), "replay-moves-title": t("Moves"),
  };
  for (const [id, text] of Object.entries(words))
    if ($(id)) $(id).textContent = text;
}

document.addEventListener("DOMContentLoaded", () => {
  $("history-open").addEventListener("click", () => historyOpen("", 0));
  $("history-form").addEventListener("submit", (e) => {
    e.preventDefault();
    historyOpen($("history-player").value.trim(), 0);
  });
  $("history-prev").addEventListener("click", () => historyOpen(historyPlayer, historyPage - 1));
  $("history-next").addEventListener("click", () => historyOpen(historyPlayer, historyPage + 1));
  $("history-back").addEventListener("click", historyBack);
  $("replay-back").addEventListener("click", () => {
    replayMsg = null;
    historyShowOnly("history");
  });
  $("replay-first").addEventListener("click", () => replayGo(0));
  $("replay-prev").addEventListener("click", () => replayGo(replayStep - 1));
  $("replay-next").addEventListener("click", () => replayGo(replayStep + 1));
  $("replay-last").addEventListener("click", () => replayGo(Infinity));
  document.addEventListener("keydown", (e) => {
    if ($("replay").hidden || !replayMsg || e.target.closest("input, select, textarea")) return;
    const to = { ArrowLeft: replayStep - 1, ArrowRight: replayStep + 1, Home: 0,
                 End: replayMsg.moves.length }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    replayGo(to);
  });
});
