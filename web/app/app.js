// app.js — Sungka in the browser: draws what sungka-web sends and sends
// what the player clicks (docs/web-protocol.md). It knows no rules: the
// gateway sends each cell's place, its value and the move it means when
// playable. Every string from the network goes in with textContent or as
// an attribute value, never as markup.
"use strict";

// Every string the app shows goes through t() (i18n.js): the one place its
// translations come in (from the same po catalogues as the other views).

const PROTOCOL_VERSION = 4;
const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

let ws = null;
let me = "";
let current = null;        // the last state message
let stateAt = 0;           // performance.now() when it came (the clocks count from it)
let retries = 0;           // reconnections tried since the last hello
let versionRefused = false;
const watchPath = /^\/game\/([A-Za-z0-9_-]{1,31})$/.exec(location.pathname);

function send(msg) {
  if (ws && ws.readyState === WebSocket.OPEN)
    ws.send(JSON.stringify(msg));
}

function showError(text) {
  const e = $("error");
  e.textContent = text;
  e.hidden = !text;
}

function el(tag, attrs, text) {
  const node = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4))
                                      : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {}))
    node.setAttribute(k, String(v));
  if (text !== undefined)
    node.textContent = String(text);
  return node;
}

// --- the lobby ---

function showLobby(msg) {
  if (historyShown()) return;
  $("lobby").hidden = false;
  $("game").hidden = true;
  const kinds = $("kind");
  if (kinds.options.length === 0) {
    for (const k of msg.kinds)
      kinds.append(el("option", { value: k }, k));
    kinds.value = msg.kinds.includes("kalah") ? "kalah" : msg.kinds[0];
  }
  const body = $("games").tBodies[0];
  body.replaceChildren();
  for (const g of msg.games) {
    const row = el("tr", { "data-game": g.id });
    row.append(el("td", {}, g.title ? `${g.id}: ${g.title}` : g.id));
    row.append(el("td", {}, g.options ? `${g.kind} (${g.options})` : g.kind));
    row.append(el("td", {}, g.seats.map((s) => s || t("(open)")).join(", ")));
    row.append(el("td", {}, t(g.status)));
    const cell = el("td");
    if (g.status === "waiting" && g.seats.includes("")) {
      const join = el("button", { type: "button", class: "join" }, t("Join"));
      join.addEventListener("click", () => send({ type: "join", game: g.id, observe: false }));
      cell.append(join);
    }
    const watch = el("a", { href: `/game/${encodeURIComponent(g.id)}`, class: "watch" }, t("Watch"));
    cell.append(" ", watch);
    row.append(cell);
    body.append(row);
  }
}

// --- the board ---

function cellShape(st, c) {
  const [x, y, w, h] = c.rect;
  const g = el("svg:g", { "data-cell": c.cell });
  if (st.drawing === "mancala") {
    if (c.home)
      g.append(el("svg:rect", { x: x + 4, y: y + 4, width: w - 8, height: h - 8, rx: w / 2 - 4,
                                class: "home" }));
    else
      g.append(el("svg:ellipse", { cx: x + w / 2, cy: y + h / 2, rx: w / 2 - 6, ry: h / 2 - 6,
                                   class: "cup" }));
    g.append(el("svg:text", { x: x + w / 2, y: y + h / 2, class: "stones" }, c.value));
  } else if (st.drawing === "discs") {
    g.append(el("svg:rect", { x, y, width: w, height: h, class: "square" }));
    if (c.value > 0) {
      const seat = st.seats[c.value - 1];
      const colour = seat && seat.colour ? `disc-${seat.colour}` : `disc-${c.value - 1}`;
      g.append(el("svg:circle", { cx: x + w / 2, cy: y + h / 2, r: w / 2 - 5, class: colour }));
    }
  } else {
    g.append(el("svg:rect", { x, y, width: w, height: h, class: "slice" }));
    if (c.value > 0) {
      const seat = st.seats[c.value - 1];
      g.append(el("svg:text", { x: x + w / 2, y: y + h / 2, class: "stones mark" },
                  seat ? seat.mark : "?"));
    }
  }
  return g;
}

function cellName(st, c) {
  if (st.drawing === "mancala")
    return c.home ? t("home, %d stones").replace("%d", c.value)
                  : t("cup %s, %d stones").replace("%s", c.label).replace("%d", c.value);
  return c.label || t("cell %d").replace("%d", c.cell);
}

function drawBoard(st) {
  const focused = document.activeElement && document.activeElement.dataset
                    ? document.activeElement.dataset.move : undefined;
  const [vx, vy, vw, vh] = st.view;
  const svg = el("svg:svg", { viewBox: `${vx - 30} ${vy - 40} ${vw + 60} ${vh + 80}`,
                              role: "group", "aria-label": t("board") });
  svg.append(el("svg:rect", { x: vx - 30, y: vy - 40, width: vw + 60, height: vh + 80,
                              rx: 30, class: "board-bg" }));
  for (const s of st.seats)
    if (s.label) {
      const [x, y, w, h] = s.label;
      svg.append(el("svg:text", { x: x + w / 2, y: y + h / 2, class: "seat-label" },
                    `${s.name} (${s.score})`));
    }
  for (const c of st.cells) {
    const g = cellShape(st, c);
    if (c.move >= 0) {
      // A cup the player may choose is a button: focusable, Enter or Space.
      g.setAttribute("class", "playable");
      g.setAttribute("role", "button");
      g.setAttribute("tabindex", "0");
      g.setAttribute("data-move", c.move);
      g.setAttribute("aria-label", t("play %s").replace("%s", cellName(st, c)));
      const play = () => send({ type: "move", move: c.move });
      g.addEventListener("click", play);
      g.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); play(); }
      });
    } else {
      g.setAttribute("aria-label", cellName(st, c));
    }
    svg.append(g);
  }
  $("board").replaceChildren(svg);
  if (focused !== undefined) {
    const again = svg.querySelector(`[data-move="${CSS.escape(focused)}"]`);
    if (again) again.focus();
  }
}

function seatName(st, seat) {
  return st.seats[seat] ? st.seats[seat].name : "?";
}

// "4:59", "0:07", "1:02:03" (as agent_format_clock: rounded up).
function clockText(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600), m = Math.floor((total % 3600) / 60), sec = total % 60;
  const two = (n) => String(n).padStart(2, "0");
  return h ? `${h}:${two(m)}:${two(sec)}` : `${m}:${two(sec)}`;
}

// The clocks, counted down here from the time left the gateway sent (the
// agent's clock model) and the time since it came.
function drawClocks() {
  const box = $("clocks");
  const st = current;
  if (!st || !st.clocks) { box.hidden = true; return; }
  box.hidden = false;
  const since = performance.now() - stateAt;
  const running = st.status === "running" ? st.clock_running : -1;
  st.clocks.forEach((left, seat) => {
    let li = $(`clock-${seat}`);
    if (!li) {
      li = el("li", { id: `clock-${seat}` });
      box.append(li);
    }
    const ms = left === null ? 0 : (seat === running ? left - since : left);
    li.dataset.ms = String(Math.max(0, Math.round(ms)));
    li.className = seat === running ? "clock running" : "clock";
    li.textContent = `${seatName(st, seat)}: ${clockText(ms)}`;
  });
  for (const li of [...box.children])
    if (Number(li.id.slice(6)) >= st.clocks.length) li.remove();
}

function showActions(st) {
  const seated = st.my_seat >= 0;
  const running = st.status === "running";
  const show = (id, on) => { $(id).hidden = !on; };
  show("resign", seated && running);
  show("abort", seated && running);
  show("offer-draw", seated && running && st.draw_offer < 0);
  show("give-time", seated && running && Array.isArray(st.clocks));
  const offered = seated && running && st.draw_offer >= 0 && st.draw_offer !== st.my_seat;
  show("answer-draw", offered);
  if (offered)
    $("draw-offer-text").textContent = t("%s offers a draw.").replace("%s", seatName(st, st.draw_offer));
  show("claim", seated && running && st.claimable);
  const over = st.status === "finished" || st.status === "abandoned";
  const mine = (st.rematch || []).includes(st.my_seat);
  show("rematch", seated && over && !mine);
  show("decline-rematch", seated && over && !mine && (st.rematch || []).length > 0);
  const r = $("rematch-status");
  if (over && (st.rematch || []).length) {
    r.textContent = t("A rematch is asked for by: %s.").replace(
      "%s", st.rematch.map((s) => seatName(st, s)).join(", "));
    r.hidden = false;
  } else {
    r.hidden = true;
  }
}

function showState(st) {
  current = st;
  stateAt = performance.now();
  $("lobby").hidden = true;
  $("game").hidden = historyShown();   // history.js: not while a replay or history is read
  const name = st.title || st.kind;
  $("game-title").textContent = t("Game %s: %s").replace("%s", st.game).replace("%s", name) +
    (st.rated ? ` (${t("rated")})` : "") + (st.time_control ? `, ${st.time_control}` : "");
  const link = $("game-link");
  link.href = `/game/${encodeURIComponent(st.game)}`;
  link.textContent = new URL(link.href, location.href).href;
  if (location.pathname !== link.pathname)
    history.replaceState(null, "", link.pathname);
  const who = st.my_seat >= 0 ? t("You are %s.").replace("%s", seatName(st, st.my_seat))
                              : t("You are observing.");
  let turn = "";
  if (st.status === "waiting") turn = t("Waiting for players.");
  else if (st.status === "running" && st.to_move >= 0)
    turn = st.to_move === st.my_seat
             ? (st.drawing === "mancala" ? t("Your move: choose a cup.")
                                         : t("Your move: choose a square."))
             : t("%s to move.").replace("%s", seatName(st, st.to_move));
  $("turn").textContent = `${who} ${turn}`;
  drawBoard(st);
  drawClocks();
  $("description").textContent = describeState(st);
  const moves = $("moves");
  moves.replaceChildren();
  for (const m of st.moves || [])
    moves.append(el("li", {}, `${m.name}: ${m.move}`));
  const over = $("over");
  if (st.over) {
    const names = st.over.winners.map((s) => seatName(st, s));
    const result = names.length ? t("Won by %s").replace("%s", names.join(t(" and ")))
                                : t("A draw");
    const scores = st.seats.map((s) => `${s.name} ${s.score}`).join(", ");
    over.textContent = `${t("Game over:")} ${result}. ${endReason(st.over)} (${scores})`;
    over.hidden = false;
  } else {
    over.hidden = true;
  }
  const away = (st.away || []).map((a) => t("%s is away (%d s left to come back).")
    .replace("%s", seatName(st, a.seat)).replace("%d", a.seconds));
  $("away").textContent = away.join(" ");
  showActions(st);
}

function addChat(msg) {
  let line = `${msg.name}: ${msg.text}`;
  if (msg.to) line = t("%s (to %s): %s").replace("%s", msg.name).replace("%s", msg.to)
    .replace("%s", msg.text);
  else if (msg.spectators) line = t("%s (to the spectators): %s").replace("%s", msg.name)
    .replace("%s", msg.text);
  $("chat").append(el("li", { class: msg.to ? "tell" : "" }, line));
}

// A player departed (the connection dropped...): said with the reason's own
// words, from the event's why, as the other views say it (views/narrate.c,
// view_depart_words); the gateway's English text when the code is not
// known here.
function addDeparted(msg) {
  const why = {
    connection_closed: () => t("the connection closed"),
    no_pings: () => t("no answer to pings"),
    not_back: () => t("did not come back in time"),
    token_revoked: () => t("the seat was taken over elsewhere"),
    ended_by_operator: () => t("the operator ended the connection"),
  };
  const reason = why[msg.why] ? why[msg.why]() : msg.text;
  const line = msg.grace_s > 0
    ? t("%s departed: %s. The seat is kept for %d s.", msg.name, reason).replace("%d", msg.grace_s)
    : t("%s departed: %s.", msg.name, reason);
  $("chat").append(el("li", { class: "departed" }, line));
}

function showAccount(msg) {
  const account = msg.account;
  $("who").textContent = account ? t("Signed in as %s.").replace("%s", account)
                                 : t("Playing as %s (a guest).").replace("%s", msg.name);
  $("account-form").hidden = !!account || !msg.kept;
  $("sign-out").hidden = !account;
  $("rated").disabled = !account;
  if (!account) $("rated").checked = false;
}

// The CSRF token the gateway put in a cookie for this page's scripts (the
// session itself is in an HttpOnly cookie no script can read).
function csrfToken() {
  const m = /(?:^|;\s*)sungka_csrf=([0-9a-f]+)/.exec(document.cookie);
  return m ? m[1] : "";
}

// --- the connection ---

function onMessage(ev) {
  let msg;
  try { msg = JSON.parse(ev.data); } catch (e) { return; }
  switch (msg.type) {
  case "hello":
    if (msg.version !== PROTOCOL_VERSION) {
      showError(t("This page is older than the gateway: reload it."));
      versionRefused = true;
      ws.close();
      return;
    }
    retries = 0;
    me = msg.name;
    $("connection").textContent = t("Connected as %s.").replace("%s", msg.account || me);
    showAccount(msg);
    send({ type: "hello", version: PROTOCOL_VERSION });
    // Back at the game the gateway kept for us (a reload, a restart), or
    // the one the address names.
    if (!msg.game && watchPath)
      send({ type: "join", game: watchPath[1], observe: true });
    tourHello(msg);        // version 4: tournament.js
    break;
  case "account":
    showError("");
    showAccount(msg);
    break;
  case "lobby":
    if (!current && $("tournament").hidden) showLobby(msg);
    showPools(msg.pools || []);
    tourLobby(msg.tournaments || []);   // version 4: tournament.js
    break;
  case "state": {
    showError("");
    const before = current;
    if (tourKeepsPage(msg)) {   // a late state of a tournament's game: tournament.js
      current = msg;
      break;
    }
    showState(msg);
    sowPlay(before, msg);
    break;
  }
  case "left":
    current = null;
    if (location.pathname !== "/") history.replaceState(null, "", "/");
    break;
  case "event":
    if (msg.event === "moved") sowNoted(msg);
    if (msg.event === "chat") addChat(msg);
    else if (msg.event === "departed") addDeparted(msg);
    else if (msg.event === "notice") $("connection").textContent = noticeWords(msg);
    break;
  case "error":
    showError(tourRefusal(msg) || refusalWords(msg));   // tournament.js
    break;
  case "pairing":
    showPairing(msg);
    break;
  default:
    historyMessage(msg) || tournamentMessage(msg);   // version 3: history.js; 4: tournament.js
  }
}

// Lost the gateway (it restarted, the network went): try again, waiting
// longer each time (0.5 s, 1 s, 2 s ... at most 10 s, with some jitter, so
// a restarted gateway is not met by every browser at once).
function reconnectLater(reason) {
  const delay = Math.min(10000, 500 * 2 ** Math.min(retries, 5)) * (0.75 + Math.random() / 2);
  retries++;
  $("connection").textContent = (reason ? t("Disconnected: %s.").replace("%s", reason) + " "
                                        : "") +
    t("Connecting again in %d s…").replace("%d", Math.ceil(delay / 1000));
  setTimeout(connect, delay);
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  ws = new WebSocket(`${scheme}//${location.host}/ws`, "sungka");
  ws.addEventListener("message", onMessage);
  ws.addEventListener("close", (ev) => {
    if (versionRefused) {
      $("connection").textContent = t("Disconnected from the gateway: reload to come back.");
      return;
    }
    reconnectLater(ev.reason);
  });
}

function account(type) {
  const name = $("account-name").value, password = $("account-password").value;
  if (!name || !password) {
    showError(t("Give a name and a password."));
    return;
  }
  send({ type, name, password, csrf: csrfToken() });
  $("account-password").value = "";
}

function click(id, fn) { $(id).addEventListener("click", fn); }

// The page's own words (index.html), in the reader's language.
function translatePage(lang) {
  const words = {
    "connection": t("Connecting…"), "lobby-title": t("Lobby"), "kind-label": t("Game"),
    "bot-label": t("against the service's bot"), "create": t("New game"),
    "refresh": t("Refresh the list"), "games-caption": t("Games on this service"),
    "th-game": t("Game"), "th-kind": t("Kind"), "th-players": t("Players"),
    "th-status": t("Status"), "link-label": t("Link to this game:"), "resign": t("Resign"),
    "leave": t("Back to the lobby"), "moves-title": t("Moves"), "chat-title": t("Chat"),
    "chat-label": t("Say"), "chat-send": t("Send"),
    "quick": t("Quick game"), "quick-cancel": t("Cancel"),
  };
  for (const [id, text] of Object.entries(words))
    if ($(id)) $(id).textContent = text;
  $("lang").setAttribute("aria-label", t("Language"));
  $("lang").value = lang;
  historyTranslate();
  tourTranslate();
}

document.addEventListener("DOMContentLoaded", async () => {
  translatePage(await i18nLoad());
  translateRest();
  $("lang").addEventListener("change", () => i18nChoosePersist($("lang").value));
  $("new-game").addEventListener("submit", (e) => {
    e.preventDefault();
    const options = [];
    if ($("clock").value !== "none") options.push(`clock=${$("clock").value}`);
    if ($("rated").checked) options.push("rated");
    send({ type: "new", kind: $("kind").value, options, bots: $("bot").checked ? 1 : 0 });
  });
  click("refresh", () => send({ type: "list" }));
  click("resign", () => send({ type: "resign" }));
  click("abort", () => send({ type: "abort" }));
  click("offer-draw", () => send({ type: "offer_draw" }));
  click("give-time", () => send({ type: "give_time" }));
  click("accept-draw", () => send({ type: "answer_draw", accept: true }));
  click("decline-draw", () => send({ type: "answer_draw", accept: false }));
  click("claim", () => send({ type: "claim" }));
  click("rematch", () => send({ type: "rematch" }));
  click("decline-rematch", () => send({ type: "rematch", decline: true }));
  click("leave", () => { current = null; send({ type: "leave" }); });
  click("sign-in", () => account("sign_in"));
  click("register", () => account("register"));
  click("sign-out", () => send({ type: "sign_out" }));
  $("account-form").addEventListener("submit", (e) => { e.preventDefault(); account("sign_in"); });
  $("chat-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("chat-text"), to = $("chat-to");
    if (text.value && to.value) send({ type: "tell", to: to.value, text: text.value });
    else if (text.value) send({ type: "chat", text: text.value });
    text.value = "";
  });
  click("quick", askQuick);
  click("quick-cancel", () => send({ type: "quick_cancel" }));
  setInterval(drawClocks, 250);
  connect();
});

// --- quick pairing ---

// Wait in the service's pool for a game of the kind, clock and rated
// chosen in the new game's form; the gateway says the pool as it changes.
function askQuick() {
  const clock = $("clock").value;
  send({ type: "quick", kind: $("kind").value, clock: clock === "none" ? "" : clock,
         rated: $("rated").checked });
}

// The pools where players wait for a quick pairing now (the lobby's).
function showPools(pools) {
  $("pools").replaceChildren(...pools.map((p) => el("li", {}, t(
    "Quick pairing pool %s (%s), clock %s%s: %d waiting, the longest for %d s.", p.kind,
    p.options, p.clock || t("none"), p.rated ? t(", rated") : "")
    .replace("%d", p.players).replace("%d", Math.round(p.longest_wait_ms / 1000)))));
}

function showPairing(msg) {
  $("quick-wait").hidden = !msg.waiting;
  $("quick").disabled = $("create").disabled = !!msg.waiting;
  if (msg.waiting)
    $("quick-status").textContent = t("Waiting for a quick game: %s in the pool.",
                                      msg.pool_size);
}

// --- the sowing animation ---

// A mancala move comes with its steps (the gateway's "moved": each cell's
// value after it changed, as the rules recorded them; the app computes
// none): once its state has been drawn, the cups are shown as they were
// before the move and the steps applied one by one, SOW_STEP_MS apart, so
// the seeds travel cup by cup. Skipped for a reader who asks for reduced
// motion, and cut short when the next move comes before it has played.
// document.body's data-sowings and data-sowings-skipped count them.
const SOW_STEP_MS = 60;
let sowPending = null;     // the steps of the move whose state comes next
let sowTimer = 0;

function sowCount(what) {
  const b = document.body.dataset;
  b[what] = String(Number(b[what] || 0) + 1);
}

function sowStop() {
  if (!sowTimer) return false;
  clearInterval(sowTimer);
  sowTimer = 0;
  $("board").classList.remove("sowing");
  return true;
}

function sowNoted(msg) {
  if (sowStop()) sowCount("sowingsSkipped");   // moves come faster than it plays
  sowPending = Array.isArray(msg.steps) && msg.steps.length ? msg : null;
}

function sowStones(cell) {
  return $("board").querySelector(`[data-cell="${cell}"] text.stones`);
}

function sowPlay(before, st) {
  const moved = sowPending;
  sowPending = null;
  if (!moved || st.drawing !== "mancala" || !before || before.game !== st.game ||
      before.cells.length !== st.cells.length)
    return;
  if (window.matchMedia("(prefers-reduced-motion: reduce)").matches) {
    sowCount("sowingsSkipped");
    return;
  }
  for (const c of before.cells) {
    const text = sowStones(c.cell);
    if (text) text.textContent = c.value;
  }
  const steps = moved.steps.slice();
  let i = 0, last = null;
  $("board").classList.add("sowing");
  sowTimer = setInterval(() => {
    if (last) last.classList.remove("sown");
    if (i >= steps.length) {
      sowStop();
      for (const c of st.cells) {        // the board as the state has it
        const text = sowStones(c.cell);
        if (text) text.textContent = c.value;
      }
      sowCount("sowings");
      return;
    }
    const [cell, value] = steps[i++];
    const text = sowStones(cell);
    if (text) {
      text.textContent = value;
      last = text.parentNode;
      last.classList.add("sown");
    }
  }, SOW_STEP_MS);
}

// --- the gateway's reasons, in the reader's language ---

// Why the game ended (state's over: why, out, who, detail, and reason, the
// English), as the other views say it (views/narrate.c, view_end_reason).
function endReason(over) {
  const who = over.who || "";
  const out = {
    resigned: () => t("%s resigned", who),
    time_ran_out: () => t("%s ran out of time", who),
    quit: () => t("%s quit the game", who),
    claimed: () => t("%s did not come back, and the others claimed the seat", who),
  };
  const end = {
    finished: () => t("the game was played to its end"),
    player_out: () => (out[over.out] ? out[over.out]() : null),
    draw_agreed: () => t("the players agreed a draw"),
    aborted: () => t("%s aborted the game", who),
    no_first_move: () => t("%s made no first move in time; the game is aborted", who),
    empty_seat_time: () => t("a seat's time ran out while it was empty"),
    operator: () => t("the operator ended the game: %s", over.detail || ""),
    nobody_left: () => t("%s left and nobody else is playing; the game ends with no winner",
                         who),
  };
  // In English the gateway's sentence says it, and says more ("alice
  // resigned; bob wins"); in another language the reason's own words.
  const english = document.documentElement.lang === "en";
  const words = (!english && end[over.why] && end[over.why]()) || over.reason || "";
  return words ? words.charAt(0).toUpperCase() + words.slice(1) + (/[.!?]$/.test(words) ? "" : ".")
               : "";
}

// The rest of the page's own words (index.html) that translatePage leaves:
// the account form, the clock's choices, the game's buttons; and labels
// read only by screen readers.
function translateRest() {
  const words = {
    "account-name-label": t("Name"), "account-password-label": t("Password"),
    "sign-in": t("Sign in"), "register": t("Register"), "sign-out": t("Sign out"),
    "clock-label": t("Clock"), "clock-opt-none": t("none"), "clock-opt-1": t("1 minute"),
    "clock-opt-5-3": t("5 minutes + 3 s a move"), "clock-opt-10": t("10 minutes"),
    "clock-opt-30-move": t("30 s a move"), "rated-label": t("rated (signed in)"),
    "offer-draw": t("Offer a draw"), "give-time": t("+15 s"), "accept-draw": t("Accept the draw"),
    "decline-draw": t("Decline"), "abort": t("Abort"), "claim": t("Claim the game"),
    "rematch": t("Rematch"), "decline-rematch": t("No rematch"),
    "chat-to-label": t("To (empty: everyone)"),
  };
  for (const [id, text] of Object.entries(words))
    if ($(id)) $(id).textContent = text;
  $("account").setAttribute("aria-label", t("Account"));
  $("pools").setAttribute("aria-label", t("Quick pairing pools"));
  $("clocks").setAttribute("aria-label", t("Clocks"));
}

// A refusal's sentence in the reader's language, from the service's reason
// (an error's reason: its ErrorReason name) as the other views say it
// (views/narrate.c, view_refusal); the gateway's English sentence for a
// reason not known here, and for an English reader (it says more).
function refusalWords(msg) {
  const said = {
    NOT_YOUR_TURN: () => t("It is not your turn."),
    NOT_FOUND: () => t("There is no such game, match or player."),
    GAME_FULL: () => t("There is no seat left in that game."),
    NOT_STORED: () => t("The service could not store it, so it did not happen; try again."),
    SHUTTING_DOWN: () => t("The service is closing."),
    UNAVAILABLE: () => t("The service cannot do that now; try again later."),
    INTERNAL: () => t("The service failed inside."),
    NAME_TAKEN: () => t("That name is taken."),
    BAD_CREDENTIALS: () => t("Wrong name or password."),
    NAME_CONFUSABLE: () => t("That name looks like a registered one."),
    NAME_REGISTERED: () => t("That name is registered: sign in to play under it."),
    UNKNOWN_SESSION: () => t("Your sign-in has ended: sign in again."),
    ACCOUNT_REQUIRED: () => t("This service plays with accounts only: register or sign in."),
    NAME_NOT_ALLOWED: () => t("That name has characters a name may not have."),
    NOT_YOUR_NAME: () => t("You are signed in under another name."),
    GAME_NOT_STARTED: () => t("The game has not started yet."),
    GAME_ENDED: () => t("The game is over."),
    OBSERVER: () => t("Only the players can do that; you are watching."),
    NO_OFFER: () => t("Nobody has offered you that."),
    OFFER_PENDING: () => t("Your offer is open: wait for the others to answer."),
    BAD_REQUEST: () => t("The service cannot take that as it was given: check what you typed."),
    WRONG_STATE: () => t("That cannot be done at this point of the game."),
    NOT_PERMITTED: () => t("You are not allowed to do that."),
    LIMIT_REACHED: () =>
      t("A limit was reached (too many, or too fast): wait a little and try again."),
    UNKNOWN_TOKEN: () => t("The service no longer knows your seat: join the game again."),
    UNKNOWN_METHOD: () => t("This service does not have that command."),
    REPLACED: () => t("Another connection with your seat took over."),
    DEPARTED: () => t("The service took you for gone."),
    ELSEWHERE: () => t("That game is at another server."),
    GAME_MOVING: () => t("The game is moving to another server: try again in a moment."),
    READ_ONLY: () => t("This server lets you watch only: play at a board service."),
    NOT_HERE: () => t("This server has no lobby or history: ask a board service."),
    ACCOUNT_DISABLED: () => t("The operator has disabled this account."),
    ADDRESS_BANNED: () => t("The operator has banned your address."),
    MUTED: () => t("The operator has muted your chat."),
    CODE_EXPIRED: () => t("That code has expired: ask the operator for another."),
  };
  if (document.documentElement.lang === "en" || !msg.reason || !said[msg.reason])
    return msg.message;
  return said[msg.reason]();
}

// The position in words for screen readers: the gateway's English
// description, or, in another language, said here from its parts
// (description_parts: each seat's cups and home, or its score).
function describeState(st) {
  if (document.documentElement.lang === "en" || !Array.isArray(st.description_parts))
    return st.description;
  const words = st.description_parts.map((p) => (Array.isArray(p.cups)
    ? t("%s: cups %s, home %s.", p.name, p.cups.join(" "), p.home)
    : t("%s has %s.", p.name, p.score)));
  if (st.status === "running" && st.to_move >= 0)
    words.push(t("%s to move.").replace("%s", seatName(st, st.to_move)));
  else if (st.status === "finished" || st.status === "abandoned")
    words.push(t("The game is over."));
  return words.join(" ");
}

// A notice of the gateway's agent (reconnecting to the service) in the
// reader's language, from its code (said, where, seconds) as the other
// views say it (views/narrate.c, view_agent_words); else its text.
function noticeWords(msg) {
  const secs = String(msg.seconds);
  const said = {
    lost: () => t("lost the connection to %s; trying again for %d s\u2026")
      .replace("%s", msg.where).replace("%d", secs),
    still_trying: () => t("still trying (%d s)\u2026").replace("%d", secs),
    reconnected: () => t("reconnected to %s").replace("%s", msg.where),
  };
  const words = said[msg.said] ? said[msg.said]() : msg.text;
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : "";
}
