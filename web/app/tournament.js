// tournament.js — tournaments in the browser (docs/web-protocol.md,
// "Tournaments", version 4): the lobby's list, a tournament's page with
// its standings and games kept live by the gateway, Join, Withdraw and
// Create. The games a tournament seats this browser at are played on
// app.js's board as any other; once such a game is over, the tournament's
// page comes back until the next pairing. Like app.js it knows no rules
// and puts every string it is sent in as text. It uses app.js's send(),
// el(), $(), showError() and current, and history.js's historyShown().
"use strict";

let tourMsg = null;         // the last tournament message
let tourAt = 0;             // performance.now() when it came (the arena's time counts from it)
let tourOpen = "";          // the tournament whose page the reader opened ("": none)
let tourCreating = false;   // a Create was sent: its page opens with its first message
const tourPath = /^\/tournament\/([A-Za-z0-9_-]{1,31})$/.exec(location.pathname);

function tourFormatWord(f) {
  return { arena: t("arena"), round_robin: t("round robin"), swiss: t("Swiss") }[f] || f;
}

function tourStatusWord(s) {
  return { waiting: t("waiting for players"), running: t("running"),
           finished: t("finished") }[s] || s;
}

// "12:04 left" for a running arena, "round 2 of 3" for the others.
function tourWhen(tr, since) {
  if (tr.status === "finished") return "";
  if (tr.format === "arena") {
    if (tr.left_ms < 0 || tr.status !== "running")
      return t("%s minutes").replace("%s", Math.round(tr.seconds / 60));
    return t("%s left").replace("%s", clockText(tr.left_ms - (since || 0)));
  }
  if (tr.round > 0) return t("round %s of %s", tr.round, tr.rounds);
  return "";
}

function tourShowOnly() {
  for (const s of ["lobby", "game", "history", "replay"])
    $(s).hidden = true;
  $("tournament").hidden = false;
}

// The lobby's list (lobby.tournaments), each with its link.
function tourLobby(list) {
  const body = $("tournaments").tBodies[0];
  body.replaceChildren();
  for (const tr of list) {
    const row = el("tr", { "data-tournament": tr.id });
    row.append(el("td", {}, tr.title ? `${tr.id}: ${tr.title}` : tr.id));
    row.append(el("td", {}, `${tr.kind}, ${tourFormatWord(tr.format)}` +
                             (tr.clock ? `, ${tr.clock}` : "")));
    row.append(el("td", {}, `${tr.players}/${tr.max_players}`));
    const when = tourWhen(tr, 0);
    row.append(el("td", {}, tourStatusWord(tr.status) + (when ? ` (${when})` : "")));
    const cell = el("td");
    const link = el("a", { href: `/tournament/${encodeURIComponent(tr.id)}`, class: "open" },
                    t("Open"));
    link.addEventListener("click", (e) => { e.preventDefault(); tourOpenPage(tr.id); });
    cell.append(link);
    row.append(cell);
    body.append(row);
  }
  $("tournaments-empty").hidden = list.length > 0;
  const kinds = $("tour-kind");
  if (kinds.options.length === 0)
    for (const k of [...$("kind").options].map((o) => o.value))
      kinds.append(el("option", { value: k }, k));
  $("tour-rated").disabled = $("rated").disabled;
}

function tourOpenPage(id) {
  tourOpen = id;
  send({ type: "tournament", id });
}

// The page of the tournament in msg, drawn afresh.
function tourShow(msg) {
  tourShowOnly();
  const path = `/tournament/${encodeURIComponent(msg.id)}`;
  if (location.pathname !== path) history.replaceState(null, "", path);
  $("tournament-title").textContent = t("Tournament %s: %s", msg.id, msg.title || msg.kind);
  const link = $("tournament-link");
  link.href = path;
  link.textContent = new URL(path, location.href).href;
  tourAbout();
  let you = "";
  if (msg.joined) you = t("You play in this tournament.");
  if (msg.joined && msg.status === "waiting")
    you += " " + t("It starts when %s players have joined.", msg.max_players);
  else if (msg.joined && msg.status === "running")
    you += " " + t("Waiting for your next game.");
  $("tournament-you").textContent = you;
  const open = msg.status !== "finished";
  $("tournament-join").hidden = msg.joined || !open ||
    (msg.status === "running" && msg.format !== "arena");
  $("tournament-withdraw").hidden = !msg.joined || !open;
  const body = $("standings").tBodies[0];
  body.replaceChildren();
  for (const s of msg.standings) {
    const row = el("tr", { "data-player": s.name, class: s.name === me ? "me" : "" });
    row.append(el("td", {}, s.rank));
    row.append(el("td", {}, s.withdrawn ? t("%s (withdrawn)", s.name) : s.name));
    row.append(el("td", { class: "points" }, s.points));
    row.append(el("td", {}, s.games));
    row.append(el("td", {}, s.wins));
    row.append(el("td", {}, s.streak));
    body.append(row);
  }
  const games = $("tournament-games");
  games.replaceChildren();
  for (const g of msg.games) {
    const names = g.players.map((p, i) => (g.finished ? `${p} ${g.points[i]}` : p)).join(" – ");
    const item = el("li", { "data-game": g.game },
                    t("Round %s: %s", g.round, names) + " " +
                    (g.finished ? t("(over)") : t("(playing)")));
    const watch = el("a", { href: `/game/${encodeURIComponent(g.game)}`, class: "watch" },
                     g.game === msg.your_game && !g.finished ? t("Your game") : t("Watch"));
    // Watched in this page: a new page would end this browser's place in
    // the tournament (the gateway keeps its player token for this
    // connection only).
    watch.addEventListener("click", (e) => {
      e.preventDefault();
      tourOpen = "";
      send({ type: "join", game: g.game, observe: g.finished || g.game !== msg.your_game });
    });
    item.append(" ", watch);
    games.append(item);
  }
}

// The line about the tournament: its kind, clock, state and time.
function tourAbout() {
  const msg = tourMsg;
  if (!msg || $("tournament").hidden) return;
  const when = tourWhen(msg, performance.now() - tourAt);
  const parts = [tourFormatWord(msg.format), msg.kind, msg.clock ? t("clock %s", msg.clock) : "",
                 tourStatusWord(msg.status), t("%s players", `${msg.players}/${msg.max_players}`),
                 when].filter((p) => p);
  $("tournament-about").textContent = parts.join(" · ");
}

// Whether a game's state should leave the tournament's page on screen:
// the page is shown and the game is over (a late state of the game just
// played). Otherwise the page makes way for the board. The end of a game
// the tournament seated us at brings its page back with the tournament's
// next message (the game scored), or after TOUR_BACK_MS without one.
const TOUR_BACK_MS = 3000;
function tourKeepsPage(st) {
  const over = st.status === "finished" || st.status === "abandoned";
  if (!$("tournament").hidden && over) return true;
  $("tournament").hidden = true;
  if (over && tourMsg && tourMsg.your_game === st.game) {
    setTimeout(() => {
      if (current && current.game === st.game && $("tournament").hidden && !historyShown())
        tourShow(tourMsg);
    }, TOUR_BACK_MS);
  }
  return false;
}

// A tournament message: shown when its page is open, when it was just
// created here, or when this browser plays in it and is not at a game
// being played (after a game, back to the tournament until the next).
function tourMessage(msg) {
  tourMsg = msg;
  tourAt = performance.now();
  if (tourCreating) {
    tourCreating = false;
    tourOpen = msg.id;
  }
  const playing = current && (current.status === "running" || current.status === "waiting") &&
                  current.my_seat >= 0;
  const mine = msg.joined || (msg.your_game && current && current.game === msg.your_game);
  if (historyShown() || playing) return;
  if (tourOpen === msg.id || mine) {
    tourOpen = msg.id;
    showError("");
    tourShow(msg);
  }
}

function tourCreate() {
  const n = (id) => Number($(id).value) || 0;
  const options = $("tour-options").value.split(/[\s,]+/).filter((o) => o);
  tourCreating = true;
  send({ type: "tournament_new", title: $("tour-title").value.trim(),
         format: $("tour-format").value, kind: $("tour-kind").value,
         clock: $("tour-clock").value, options, minutes: n("tour-minutes"),
         rounds: n("tour-rounds"), max_players: n("tour-max"), rated: $("tour-rated").checked });
}

// A refused Create in the reader's language: a service where only the
// operator makes tournaments answers with its admin token's reasons;
// other refusals are app.js's (null).
function tourRefusal(msg) {
  if (!tourCreating) return null;
  tourCreating = false;
  if (msg.reason === "BAD_ADMIN_TOKEN" || msg.reason === "NO_ADMIN_TOKEN")
    return t("Only the operator makes tournaments on this service.");
  return null;
}

// Called by app.js's onMessage for the messages of version 4.
function tournamentMessage(msg) {
  if (msg.type !== "tournament") return false;
  tourMessage(msg);
  return true;
}

// After the gateway's hello: the tournament the address names.
function tourHello(msg) {
  if (!msg.game && tourPath) tourOpenPage(tourPath[1]);
}

function tourTranslate() {
  const words = {
    "tournaments-caption": t("Tournaments"), "th-tournament": t("Tournament"),
    "th-tour-kind": t("Kind"), "th-tour-players": t("Players"), "th-tour-status": t("Status"),
    "tournaments-empty": t("No tournaments yet."), "tour-new-legend": t("New tournament"),
    "tour-title-label": t("Name"), "tour-format-label": t("Kind of tournament"),
    "tour-format-arena": t("arena"), "tour-format-round-robin": t("round robin"),
    "tour-format-swiss": t("Swiss"), "tour-kind-label": t("Game"),
    "tour-options-label": t("Options (name=value …)"), "tour-clock-label": t("Clock"),
    "tour-clock-none": t("none"), "tour-clock-1": t("1 minute"),
    "tour-clock-3-2": t("3 minutes + 2 s a move"), "tour-clock-5-3": t("5 minutes + 3 s a move"),
    "tour-minutes-label": t("Minutes (an arena)"),
    "tour-rounds-label": t("Rounds (0: as many as needed)"), "tour-max-label": t("Players at most"),
    "tour-rated-label": t("rated (signed in)"), "tour-create": t("Create the tournament"),
    "tournament-link-label": t("Link to this tournament:"), "tournament-join": t("Join"),
    "tournament-withdraw": t("Withdraw"), "tournament-back": t("Back to the lobby"),
    "standings-caption": t("Standings"), "th-name": t("Player"), "th-points": t("Points"),
    "th-games": t("Games"), "th-wins": t("Wins"), "th-streak": t("Streak"),
    "tournament-games-title": t("Games"),
  };
  for (const [id, text] of Object.entries(words))
    if ($(id)) $(id).textContent = text;
}

document.addEventListener("DOMContentLoaded", () => {
  $("tour-new").addEventListener("submit", (e) => { e.preventDefault(); tourCreate(); });
  $("tournament-join").addEventListener("click", () => {
    if (tourMsg) send({ type: "tournament_join", id: tourMsg.id });
  });
  $("tournament-withdraw").addEventListener("click", () => {
    if (tourMsg) send({ type: "tournament_leave", id: tourMsg.id });
  });
  $("tournament-back").addEventListener("click", () => {
    tourOpen = "";
    send({ type: "tournament_close" });
    $("tournament").hidden = true;
    if (location.pathname !== "/") history.replaceState(null, "", "/");
    if (current && current.status !== "running" && current.status !== "waiting") {
      current = null;
      send({ type: "leave" });   // the game played is over: to the lobby
    } else if (current) {
      $("game").hidden = false;
    } else {
      $("lobby").hidden = false;
      send({ type: "list" });
    }
  });
  setInterval(tourAbout, 1000);
});
