// app.js — Sungka in the browser: draws what sungka-web sends and sends
// what the player clicks (docs/web-protocol.md). It knows no rules: the
// gateway sends each cell's place, its value and the move it means when
// playable. Every string from the network goes in with textContent or as
// an attribute value, never as markup. Every word shown goes through
// t("English") (i18n.js), in the reader's language.
"use strict";

const PROTOCOL_VERSION = 1;
const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

let ws = null;
let me = "";
let current = null;        // the last state message
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

function statusWord(status) {
  switch (status) {
  case "waiting": return t("waiting");
  case "running": return t("running");
  case "finished": return t("finished");
  case "abandoned": return t("abandoned");
  default: return status;
  }
}

function showLobby(msg) {
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
    row.append(el("td", {}, statusWord(g.status)));
    const cell = el("td");
    if (g.status === "waiting" && g.seats.includes("")) {
      const join = el("button", { type: "button", class: "join" }, t("Join"));
      join.addEventListener("click", () => send({ type: "join", game: g.id, observe: false }));
      cell.append(join);
    }
    const watch = el("a", { href: `/game/${encodeURIComponent(g.id)}`, class: "watch" },
                     t("Watch"));
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
    return c.home ? t("home, %s stones", c.value) : t("cup %s, %s stones", c.label, c.value);
  return c.label || t("cell %s", c.cell);
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
      g.setAttribute("aria-label", t("play %s", cellName(st, c)));
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

function showState(st) {
  current = st;
  $("lobby").hidden = true;
  $("game").hidden = false;
  $("game-title").textContent = t("Game %s: %s", st.game, st.title || st.kind);
  const link = $("game-link");
  link.href = `/game/${encodeURIComponent(st.game)}`;
  link.textContent = new URL(link.href, location.href).href;
  const who = st.my_seat >= 0 ? t("You are %s.", st.seats[st.my_seat].name)
                              : t("You are watching.");
  let turn = "";
  if (st.status === "waiting") turn = t("Waiting for players.");
  else if (st.status === "running" && st.to_move >= 0)
    turn = st.to_move !== st.my_seat ? t("%s to move.", st.seats[st.to_move].name)
           : st.drawing === "mancala" ? t("Your move: choose a cup.")
                                      : t("Your move: choose a square.");
  $("turn").textContent = `${who} ${turn}`;
  drawBoard(st);
  $("description").textContent = st.description;
  const moves = $("moves");
  moves.replaceChildren();
  for (const m of st.moves || [])
    moves.append(el("li", {}, `${m.name}: ${m.move}`));
  const over = $("over");
  if (st.over) {
    const names = st.over.winners.map((s) => st.seats[s].name);
    const result = names.length ? t("Won by %s", names.join(t(" and "))) : t("A draw");
    const scores = st.seats.map((s) => `${s.name} ${s.score}`).join(", ");
    over.textContent = t("Game over: %s. %s (%s)", result, st.over.reason, scores);
    over.hidden = false;
  } else {
    over.hidden = true;
  }
  $("resign").hidden = !(st.my_seat >= 0 && st.status === "running");
}

function addChat(msg) {
  $("chat").append(el("li", {}, `${msg.name}: ${msg.text}`));
}

// --- the connection ---

function onMessage(ev) {
  let msg;
  try { msg = JSON.parse(ev.data); } catch (e) { return; }
  switch (msg.type) {
  case "hello":
    if (msg.version !== PROTOCOL_VERSION) {
      showError(t("This page is older than the gateway: reload it."));
      ws.close();
      return;
    }
    me = msg.name;
    $("connection").textContent = t("Connected as %s.", me);
    send({ type: "hello", version: PROTOCOL_VERSION });
    if (watchPath)
      send({ type: "join", game: watchPath[1], observe: true });
    break;
  case "lobby":
    if (!current || !watchPath) showLobby(msg);
    break;
  case "state":
    showError("");
    showState(msg);
    break;
  case "left":
    current = null;
    if (watchPath) history.replaceState(null, "", "/");
    break;
  case "event":
    if (msg.event === "chat") addChat(msg);
    else if (msg.event === "notice") $("connection").textContent = msg.text;
    break;
  case "error":
    showError(msg.message);
    break;
  }
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  ws = new WebSocket(`${scheme}//${location.host}/ws`, "sungka");
  ws.addEventListener("message", onMessage);
  ws.addEventListener("close", (ev) => {
    $("connection").textContent = ev.reason ? t("Disconnected: %s", ev.reason)
                                            : t("Disconnected from the gateway: reload to come "
                                                + "back.");
  });
}

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
  };
  for (const [id, text] of Object.entries(words))
    if ($(id)) $(id).textContent = text;
  $("lang").setAttribute("aria-label", t("Language"));
  $("lang").value = lang;
}

document.addEventListener("DOMContentLoaded", async () => {
  translatePage(await i18nLoad());
  $("lang").addEventListener("change", () => i18nChoosePersist($("lang").value));
  $("new-game").addEventListener("submit", (e) => {
    e.preventDefault();
    send({ type: "new", kind: $("kind").value, options: [], bots: $("bot").checked ? 1 : 0 });
  });
  $("refresh").addEventListener("click", () => send({ type: "list" }));
  $("resign").addEventListener("click", () => send({ type: "resign" }));
  $("leave").addEventListener("click", () => { current = null; send({ type: "leave" }); });
  $("chat-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const t = $("chat-text");
    if (t.value) send({ type: "chat", text: t.value });
    t.value = "";
  });
  connect();
});
