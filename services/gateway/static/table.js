// The browser table: one WebSocket to the gateway (proto/asyncapi.json), whole views in,
// moves out. The page never decides a rule: what may be sent now is view.rules (allowed,
// may_lay_off, owed_tile) and, asked for once a version in the play phase, the rules'
// detail (a `rules` frame: lay_offs, okey_takes, penalised_discards); the server answers
// every move with an outcome.
// Every word shown comes from lang/tr.json or lang/en.json (keyed by proto/codes.json's
// codes and the page's own ui.* labels).
"use strict";

const $ = (id) => document.getElementById(id);
const SLOTS = 30; // two rows of 15
// sent against the newest version the gateway holds (no seq): not decided against a view
const LOBBY_MOVES = new Set(["create_table", "sit", "leave", "replace_with_bot", "start_match",
  "request_bots", "commit_seed", "reveal_seed"]);
const COLOUR = { R: "red", Y: "yellow", B: "blue", K: "black" };

const state = {
  token: sessionStorage.getItem("okey.token"), player: sessionStorage.getItem("okey.player"),
  ws: null, tableId: sessionStorage.getItem("okey.table"), view: null, version: null, seat: -1,
  slots: [], selected: new Set(), nextId: 1, pending: new Map(), turnKey: "",
  deadline: 0, offset: null, backoff: 500, revealed: new Set(), seeding: false,
  lang: localStorage.getItem("okey.lang") || "tr", dict: {}, houses: {}, lastCreate: null, tournaments: [],
  clickAt: 0, lastHand: null, lastMatch: null, sheetKey: "", handPenalties: {}, standing: undefined, handInfo: {},
  resyncing: false,
};
window.okeyLatencies = []; // click to the view that shows the move, ms (the browser test reads it)
window.okeyPatches = { applied: 0, resynced: 0 }; // patch frames followed, gaps watched again (the same)

// ------------------------------------------------------------ words
async function loadLanguage(lang) {
  const r = await fetch(`/static/lang/${lang}.json`);
  state.dict = await r.json();
  state.lang = lang;
  localStorage.setItem("okey.lang", lang);
  document.documentElement.lang = lang;
  $("lang").textContent = lang === "tr" ? "EN" : "TR";
  $("lang").setAttribute("aria-label", lang === "tr" ? "English" : "Türkçe");
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  $("rack").setAttribute("aria-label", t("ui.rack"));
  $("bot-level").setAttribute("aria-label", t("ui.bot_level"));
  renderLink();
  if (!$("sheet").hidden) state.sheetKey = "";  // the open sheet drawn again in the new language
  render();
  updateHouse();
  renderStanding();
}

function t(key, args = {}) {
  const text = state.dict[key];
  if (text === undefined) return key;
  return text.replace(/\{(\w+)\}/g, (_, k) => (args[k] !== undefined ? args[k] : `{${k}}`));
}

function tileWords(tile) {
  if (!tile) return "";
  const [face, stands] = tile.split("=");
  if (face === "F") return t("tile.fake") + (stands ? ` (${tileWords(stands)})` : "");
  const words = `${t(`colour.${COLOUR[face[0]]}`)} ${face.slice(1)}`;
  return stands ? `${words} = ${tileWords(stands)}` : words;
}

// ------------------------------------------------------------ connection
let linkUp = false;
function renderLink() {
  $("link").textContent = t(linkUp ? "ui.connected" : "ui.offline");
  $("link").classList.toggle("up", linkUp);
}

function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  state.ws = ws;
  ws.onopen = () => ws.send(JSON.stringify({ type: "hello", v: 2, token: state.token }));
  ws.onmessage = (e) => receive(JSON.parse(e.data));
  ws.onclose = (e) => {
    linkUp = false; renderLink();
    if (e.code === 4001) { logout(e.reason); return; }
    setTimeout(connect, state.backoff);
    state.backoff = Math.min(state.backoff * 2, 8000);
  };
}

function send(message) {
  if (state.ws && state.ws.readyState === WebSocket.OPEN) state.ws.send(JSON.stringify(message));
}

function command(move, tableId = state.tableId) {
  const id = `c${Date.now().toString(36)}${(state.nextId++).toString(36)}`;
  const message = { type: "command", id, table_id: tableId || "", command: move };
  // a move in the hand is decided against the view shown; seating takes the newest version
  if (state.view && tableId === state.tableId && !LOBBY_MOVES.has(move.type)) {
    message.seq = state.version;
    state.clickAt = performance.now();
  }
  return new Promise((resolve) => { state.pending.set(id, resolve); send(message); });
}

function receive(m) {
  switch (m.type) {
    case "welcome":
      state.backoff = 500; linkUp = true; renderLink();
      state.player = m.player_id;
      $("who").textContent = displayName(m.player_id);
      if (state.tableId) watch(state.tableId, true);
      else if (inviteTable()) watch(inviteTable());
      else showLobby();
      break;
    case "update": state.resyncing = false; onUpdate(m); break;
    case "patch": onPatch(m); break;
    case "synced": state.resyncing = false; break;
    case "rules": onRules(m); break;
    case "tables": renderLobby(m.tables); break;
    case "quick_play_state": onQuickPlay(m); break;
    case "tournaments": renderTournaments(m.tournaments); break;
    case "tournament": renderBracket(m); break;
    case "outcome": {
      const done = state.pending.get(m.id);
      state.pending.delete(m.id);
      if (m.accepted) say(""); else say(reason(m.code, m.message), true);
      if (done) done(m);
      break;
    }
    case "error": {
      if (m.id && m.id.startsWith("rules-")) break;  // a view moved on meanwhile: its own ask follows
      say(reason(m.code, m.message), true);
      if (m.id && state.pending.has(m.id)) { state.pending.get(m.id)({ accepted: false, code: m.code }); state.pending.delete(m.id); }
      if (m.code === "unknown_table" && !m.id && seatedNotYetKnown()) break;
      if (m.code === "unknown_table" && !m.id) { state.tableId = null; sessionStorage.removeItem("okey.table"); showLobby(); }
      break;
    }
  }
}

// quick play (services/matchmaker): the house chosen in the create form; the hall of the
// player's level; the wait state until seated, then the table is watched
function quickPlay() {
  send({ type: "quick_play", id: `qp${Date.now().toString(36)}`, house: $("create-house").value });
}
function cancelQuickPlay() {
  send({ type: "cancel_quick_play", id: `qc${Date.now().toString(36)}`, house: $("create-house").value });
}
function onQuickPlay(m) {
  const waiting = m.status === "waiting";
  $("quick-play-button").hidden = waiting;
  $("quick-play-cancel").hidden = !waiting;
  if (waiting) $("quick-play-state").textContent = t("ui.quick_play_waiting", { hall: m.hall || m.house });
  else if (m.status === "refused") $("quick-play-state").textContent = reason(m.code, m.message);
  else $("quick-play-state").textContent = "";
  if (m.status === "seated" && m.table_id) {
    state.seated = { table: m.table_id, until: Date.now() + 30000 };
    watch(m.table_id);
  }
}

// the matchmaker seats the player before the table's first view reaches the gateway: a
// watch of that table answered `unknown_table` is sent again for a while
function seatedNotYetKnown() {
  const s = state.seated;
  if (!s || s.table !== state.tableId || Date.now() > s.until) return false;
  say("");
  setTimeout(() => { if (state.tableId === s.table && !state.view) watch(s.table); }, 300);
  return true;
}

function reason(code, message) {
  const words = state.dict[code];
  return words ? words : `${code}: ${message || ""}`;
}

// a rejection (or a note) in words next to the rack, on the screen in use; cleared by the
// next accepted move
function say(text, bad = false) {
  for (const id of ["message", "lobby-error", "login-error"]) {
    $(id).textContent = text;
    $(id).classList.toggle("bad", bad && !!text);
  }
}

// a guest's or bot's id without its suffix (okey101.names.display_name); the view's
// `names` is what the table shows
function displayName(id) { return (id || "").replace(/-[0-9a-f]{6}$/, ""); }

function inviteTable() {
  const m = location.hash.match(/^#t=([A-Za-z0-9_-]+)$/);
  return m ? m[1] : null;
}

// ------------------------------------------------------------ login and lobby
async function guestLogin(e) {
  if (e) e.preventDefault();
  const r = await fetch("/api/guest", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ name: $("login-name").value }) });
  if (!r.ok) { say(t("ui.guest_off"), true); return; }
  const { token, player_id } = await r.json();
  login(token, player_id);
}

function login(token, player) {
  state.token = token; state.player = player || "";
  sessionStorage.setItem("okey.token", token); sessionStorage.setItem("okey.player", state.player);
  $("login").hidden = true;
  connect();
}

function logout(why) {
  sessionStorage.clear();
  state.token = null;
  show("login");
  say(t("ui.signed_out", { reason: reason(why, "") }), true);
}

function show(screen) {
  for (const s of ["login", "lobby", "table"]) $(s).hidden = s !== screen;
  document.body.dataset.screen = screen;
}

function showLobby() {
  if (state.tableId) send({ type: "unwatch", table_id: state.tableId });
  state.tableId = null; state.view = null; sessionStorage.removeItem("okey.table");
  if (location.hash) history.replaceState(null, "", location.pathname);
  for (const id of ["sheet", "scores", "history"]) $(id).hidden = true;
  show("lobby");
  refreshLobby();
  loadStanding();
}

function refreshLobby() {
  send({ type: "tables", house: $("lobby-house").value || null });
  send({ type: "tournaments", house: $("lobby-house").value || null });
}

// tournaments (services/matchmaker): free entry while open; the bracket and the standings
// of the one shown, sent again by the gateway as it changes for a registered player
function renderTournaments(list) {
  state.tournaments = list;
  $("tournament-list").replaceChildren(...list.map((x) => {
    const li = document.createElement("li");
    li.innerHTML = `<span class="t-name"></span> <span class="t-status"></span><br><span class="t-when note"></span>`;
    li.querySelector(".t-name").textContent = x.name || x.tournament_id;
    li.querySelector(".t-status").textContent = t(`tournament.${x.status}`);
    li.querySelector(".t-when").textContent = t("ui.tournament_when", {
      when: new Date(x.starts_at).toLocaleString(state.lang), n: x.registered, size: x.size, house: x.house });
    if (x.status === "open") {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = x.is_registered ? t("ui.unregister") : t("ui.register");
      b.onclick = () => send({ type: x.is_registered ? "unregister" : "register",
        id: `tr${Date.now().toString(36)}`, house: x.house, tournament_id: x.tournament_id });
      li.append(b);
    }
    const v = document.createElement("button");
    v.type = "button";
    v.textContent = t("ui.bracket");
    v.onclick = () => send({ type: "tournament", id: `tb${Date.now().toString(36)}`, tournament_id: x.tournament_id });
    li.append(v);
    return li;
  }));
  $("tournaments-empty").hidden = list.length > 0;
}

function renderBracket(m) {
  const x = m.tournament;
  $("bracket").hidden = false;
  $("bracket-title").textContent = `${x.name || x.tournament_id}: ${t(`tournament.${x.status}`)}` +
    (m.reason ? ` (${m.reason})` : "");
  $("bracket-rounds").replaceChildren(...m.rounds.map((r) => {
    const div = document.createElement("div");
    const h = document.createElement("h5");
    h.textContent = t("ui.round", { n: r.round });
    const ol = document.createElement("ol");
    for (const table of r.tables) {
      const li = document.createElement("li");
      li.textContent = table.players.map((p, i) => {
        const who = table.entrants[i] ? displayName(p) || t("ui.bot") : t("ui.bot");
        const place = table.places.length ? ` ${table.places[i]}.` : "";
        return `${who}${place}${table.advancing.includes(p) ? " ✓" : ""}`;
      }).join(" · ");
      ol.append(li);
    }
    div.append(h, ol);
    return div;
  }));
  const rows = m.standings.map((p) => {
    const tr = document.createElement("tr");
    for (const text of [`${p.place}.`, p.bot ? t("ui.bot") : displayName(p.player_id), p.title,
      String(p.league_points)]) {
      const td = document.createElement("td"); td.textContent = text; tr.append(td);
    }
    return tr;
  });
  $("bracket-standings").replaceChildren(...rows);
  // the bracket carries the tournament's summary: its row in the list is redrawn from it
  const list = state.tournaments;
  if (list.some((e) => e.tournament_id === x.tournament_id))
    renderTournaments(list.map((e) => (e.tournament_id === x.tournament_id ? x : e)));
}

// the player's own place in the house chosen in the form: SP (or rating), this week's
// league, level (XP) and place on the house's board (GET /api/me/standing)
async function loadStanding() {
  const house = $("create-house").value;
  $("me-title").textContent = t("ui.my_standing", { house });
  if (!state.token) return;
  let s = null;
  try {
    const r = await fetch(`/api/me/standing?house=${encodeURIComponent(house)}`,
      { headers: { Authorization: `Bearer ${state.token}` } });
    if (r.ok) s = await r.json();
  } catch (e) { s = null; }
  if (house !== $("create-house").value) return;  // another house was chosen meanwhile
  state.standing = s;
  renderStanding();
}

function renderStanding() {
  const s = state.standing, box = $("me-figures");
  $("me-title").textContent = t("ui.my_standing", { house: $("create-house").value });
  box.replaceChildren();
  $("me-note").textContent = s === undefined ? "" : s ? (s.known ? t("ui.played_won", { played: s.played, won: s.won }) :
    t("ui.no_matches_yet")) : t("ui.standing_off");
  if (!s) return;
  const add = (label, value, id) => {
    const div = document.createElement("div");
    div.id = id;
    const dt = document.createElement("dt"), dd = document.createElement("dd");
    dt.textContent = label; dd.textContent = value;
    div.append(dt, dd); box.append(div);
  };
  if (s.points_kind !== "none") add(t(s.points_kind === "sp" ? "ui.sp" : "ui.rating"), String(s.points), "me-points");
  add(t("ui.league"), s.league_place ? t("ui.league_value", { n: s.league, place: s.league_place }) :
    t("ui.league_none", { n: s.league }), "me-league");
  if (s.has_levels) add(t("ui.level"), t("ui.level_value", { level: s.level, xp: s.xp }) +
    (s.room ? ` · ${t("ui.room_value", { room: s.room })}` : ""), "me-level");
  add(t("ui.board_place"), s.place ? t("ui.board_value", { place: s.place }) : t("ui.not_on_board"), "me-place");
}

function renderLobby(tables) {
  const list = $("lobby-tables");
  list.replaceChildren(...tables.map((x) => {
    const li = document.createElement("li");
    const names = x.players.map((p) => displayName(p) || "·").join(", ");
    li.innerHTML = `<span class="t-house"></span> <span class="t-status"></span><br><span class="t-players"></span>`;
    li.querySelector(".t-house").textContent = x.ranked === false ? `${x.house} (${t("ui.unranked")})` : x.house;
    li.querySelector(".t-status").textContent = t(`status.${x.status}`);
    li.querySelector(".t-players").textContent = names;
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = x.status === "seating" && x.free_seats.length ? t("ui.join") : t("ui.watch");
    b.onclick = () => watch(x.table_id);
    li.append(b);
    return li;
  }));
  $("lobby-empty").hidden = tables.length > 0;
}

async function loadHouses() {
  try {
    const r = await fetch("/api/houses");
    if (r.ok) state.houses = await r.json();
  } catch (e) { state.houses = {}; }
  updateHouse();
}

// the house's own defaults and limits in the form, and its setup switches where it has them
function updateHouse() {
  const p = state.houses[$("create-house").value];
  if (!p) return;
  const hands = $("create-hands"), secs = $("create-seconds");
  [hands.min, hands.max] = p.hands_range;
  // the house's own number of hands (what its ranked matches play), within its range
  hands.value = Math.min(p.hands_range[1], Math.max(p.hands_range[0], p.hands_per_match || p.hands_range[0]));
  [secs.min, secs.max] = p.turn_seconds_range;
  secs.value = p.turn_seconds || "";
  $("switches").hidden = p.id !== "okeygg";
  $("opt-escalating").checked = p.escalating_openings;
  $("opt-penalties").checked = p.penalties;
  $("opt-partners").checked = p.partners;
  $("opt-partners").closest("label").hidden = !p.partners_allowed;
  $("house-note").textContent = t("ui.house_note", { lo: p.hands_range[0], hi: p.hands_range[1],
    slo: p.turn_seconds_range[0], shi: p.turn_seconds_range[1] }) +
    (p.bots_allowed ? "" : " " + t("ui.no_bots_here"));
}

async function createTable(e, again = null) {
  if (e) e.preventDefault();
  say("");
  let spec = again;
  if (!spec) {
    const house = $("create-house").value;
    const p = state.houses[house] || {};
    const options = { hands_per_match: Number($("create-hands").value) || 1 };
    const seconds = Number($("create-seconds").value);
    if (seconds) options.turn_seconds = seconds;
    if (house === "okeygg") {
      options.escalating_openings = $("opt-escalating").checked;
      options.penalties = $("opt-penalties").checked;
      if (p.partners_allowed) options.partners = $("opt-partners").checked;
    }
    spec = { type: "create_table", profile: house, options, private: $("create-private").checked };
  }
  state.lastCreate = spec;
  const outcome = await command(spec, "");
  if (outcome.accepted) watch(outcome.table_id);
}

function watch(tableId, resume = false) {
  // resuming (a reconnect) sends the version held, and gets only what it missed
  const version = resume && state.view && tableId === state.tableId ? state.version : null;
  if (version === null) {
    state.view = null; state.version = null; $("log").innerHTML = ""; state.slots = [];
    state.handInfo = {}; state.handPenalties = {}; state.lastHand = null; state.lastMatch = null; state.sheetKey = "";
  }
  state.tableId = tableId; sessionStorage.setItem("okey.table", tableId);
  show("table");
  send({ type: "watch", table_id: tableId, version });
}

// ------------------------------------------------------------ views
// A patch (views contract v2) is the seat's view as its changes to the version before
// (`previous`): applied to the view held it gives the whole view an update would send. A
// page holding another version (or another seat's view) has missed one: it watches again with the version it holds
// and gets the whole view (once; the patches until then are skipped).
function onPatch(m) {
  if (m.table_id !== state.tableId || state.resyncing) return;
  if (state.version !== null && m.version <= state.version) return;  // held already
  let view = null;
  if (state.view && state.version === m.previous && state.seat === m.seat) {
    try { view = applyPatch(structuredClone(state.view), m.patch); } catch (e) { view = null; }
  }
  if (view === null) {
    window.okeyPatches.resynced++;
    state.resyncing = true; watch(state.tableId, true); return;
  }
  window.okeyPatches.applied++;
  onUpdate({ ...m, view });
}

// JSON Patch (RFC 6902) as the views service writes it: members replaced, items replaced
// or added (at an index, or "-" for the end)
function applyPatch(view, ops) {
  for (const { op, path, value } of ops) {
    const keys = path.split("/").slice(1);
    const last = keys.pop();
    let node = view;
    for (const key of keys) {
      node = Array.isArray(node) ? node[Number(key)] : node[key];
      if (node === undefined || node === null || typeof node !== "object") throw new Error(`no ${path}`);
    }
    if (!Array.isArray(node)) {
      if (op !== "replace" || !(last in node)) throw new Error(`${op} ${path}`);
      node[last] = value;
    } else if (op === "add" && last === "-") {
      node.push(value);
    } else {
      const i = Number(last);
      if (!Number.isInteger(i)) throw new Error(`index ${path}`);
      if (op === "replace" && i >= 0 && i < node.length) node[i] = value;
      else if (op === "add" && i >= 0 && i <= node.length) node.splice(i, 0, value);
      else throw new Error(`${op} ${path}`);
    }
  }
  return view;
}

function onUpdate(m) {
  if (m.table_id !== state.tableId) return;
  if (m.reset) $("log").innerHTML = "";
  const fresh = state.version === null;
  state.view = m.view; state.version = m.version; state.seat = m.seat;
  askRules();
  if (fresh && m.view.hand) state.curHand = m.view.hand.number;
  for (const e of m.events) note(e, fresh);
  clockFrom(m);
  reconcileRack(m.view.rack);
  render();
  if (state.clickAt) {
    window.okeyLatencies.push(performance.now() - state.clickAt);
    if (window.okeyLatencies.length > 500) window.okeyLatencies.shift();
    state.clickAt = 0;
  }
  contributeSeed(m.view);
}

// The rules' detail (every lay-off and okey take open to this seat, each penalised discard)
// is asked for the version held, once, when it is this seat's play phase; the answer counts
// only while that version is still the one held.
function askRules() {
  const v = state.view, hand = v && v.hand;
  if (!hand || state.seat < 0 || hand.to_act !== state.seat || hand.phase !== "play" || v.status !== "playing") return;
  if (state.askedRules === `${state.tableId}:${state.version}`) return;
  state.askedRules = `${state.tableId}:${state.version}`;
  send({ type: "rules", id: `rules-${state.version}`, table_id: state.tableId, seat: state.seat, version: state.version });
}
function onRules(m) {
  if (m.table_id !== state.tableId || m.version !== state.version) return;
  state.detail = m;
  render();
}
function detail() {
  const d = state.detail;
  return d && d.table_id === state.tableId && d.version === state.version ? d.rules
    : { lay_offs: [], okey_takes: [], penalised_discards: [] };
}

// The turn clock runs to the server's deadline: the view's `turn_by` where it has one
// (ms since the epoch, on the server's clock); otherwise the time (the server's `at`) of
// the event that started the turn plus the house's turn time. Either is moved onto this
// clock by the smallest delay seen between an event's time and its arrival.
function clockFrom(m) {
  const v = m.view, hand = v.hand;
  const ats = m.events.map((e) => e.at).filter((x) => x);
  if (ats.length) {
    const lag = Date.now() - Math.max(...ats);
    state.offset = state.offset === null ? lag : Math.min(state.offset, lag);
  }
  const key = hand ? `${v.turn}:${hand.to_act}:${hand.number}:${hand.attempt}` : "";
  if ("turn_by" in v) {  // the server's deadline for the turn (ms since the epoch), or null
    state.turnKey = key;
    state.deadline = typeof v.turn_by === "number" ? v.turn_by + (state.offset || 0) : 0;
    return;
  }
  if (key === state.turnKey) return;
  state.turnKey = key;
  const seconds = v.profile && v.profile.turn_seconds;
  if (!hand || !seconds) { state.deadline = 0; return; }
  const start = m.events.find((e) => e.type === "hand_started" || e.type === "tile_discarded" || e.type === "turn_timed_out");
  const started = start && start.at ? start.at + (state.offset || 0) : Date.now();
  state.deadline = started + seconds * 1000;
}

function reconcileRack(rack) {
  const saved = JSON.parse(sessionStorage.getItem(`okey.rack.${state.tableId}`) || "null");
  if (!state.slots.length && saved) state.slots = saved;
  if (state.slots.length !== SLOTS) state.slots = Array(SLOTS).fill(null);
  const want = {};
  for (const x of rack) want[x] = (want[x] || 0) + 1;
  state.slots = state.slots.map((x) => { if (x && want[x]) { want[x]--; return x; } return null; });
  for (const [x, n] of Object.entries(want)) for (let i = 0; i < n; i++) {
    const free = state.slots.indexOf(null);
    if (free >= 0) state.slots[free] = x;
  }
  for (const i of [...state.selected]) if (!state.slots[i]) state.selected.delete(i);
  saveRack();
}

function saveRack() { sessionStorage.setItem(`okey.rack.${state.tableId}`, JSON.stringify(state.slots)); }

function name(seat) {
  const v = state.view;
  if (!v) return "";
  return (v.names && v.names[seat]) || displayName(v.players[seat]) || t("ui.empty_seat", { seat: seat + 1 });
}

function note(e, quiet) {
  const who = e.seat !== undefined && e.seat >= 0 ? name(e.seat) : "";
  const args = { who, tile: tileWords(e.tile), hand: e.hand, points: e.points };
  let key = `event.${e.type}`;
  if (e.type === "hand_opened") { key = e.kind === "pairs" ? "event.hand_opened_pairs" : "event.hand_opened"; args.value = e.value; }
  if (e.type === "penalty_imposed") {
    args.why = t(`penalty.${e.reason}`);
    const pen = state.handPenalties[state.curHand] || (state.handPenalties[state.curHand] = [0, 0, 0, 0]);
    pen[e.seat] += e.points;
  }
  if (e.type === "hand_ended") { args.finish = t(`finish.${e.finish}`); if (!quiet || state.view.status === "over") state.lastHand = e; }
  if (e.type === "match_ended") state.lastMatch = e;
  if (e.type === "hand_started") {
    state.curHand = e.hand; args.indicator = tileWords(e.indicator); args.okey = tileWords(e.okey);
    state.handInfo[e.hand] = { okey: e.okey, opened: [null, null, null, null] };
  }
  if (e.type === "hand_opened" && state.handInfo[state.curHand])
    state.handInfo[state.curHand].opened[e.seat] = e.kind === "pairs" ? "pairs" : "points";
  if (e.type === "tile_drawn" && !e.tile) key = "event.tile_drawn_hidden";
  if (state.dict[key] === undefined) return;
  const li = document.createElement("li");
  li.textContent = t(key, args);
  $("log").prepend(li);
  while ($("log").children.length > 200) $("log").lastChild.remove();
}

// ------------------------------------------------------------ drawing the table
function tileEl(x, extra = "") {
  const span = document.createElement("span");
  const [face, stands] = x.split("=");
  const hand = state.view && state.view.hand;
  const okey = hand && face === hand.okey;
  span.className = `tile ${face === "F" ? "fake" : COLOUR[face[0]]} ${okey ? "okey" : ""} ${extra}`;
  if (face === "F") span.innerHTML = '<span class="num" aria-hidden="true">★</span>';
  else span.innerHTML = `<span class="num" aria-hidden="true">${face.slice(1)}</span><span class="dot" aria-hidden="true"></span>`;
  if (stands) span.classList.add("joker");
  const words = tileWords(x) + (okey ? ` (${t("tile.okey")})` : "");
  span.setAttribute("role", "img");
  span.setAttribute("aria-label", words);
  span.title = words;
  span.dataset.tile = x;
  return span;
}

function allowed(kind) {
  const r = state.view && state.view.rules;
  return !!r && r.allowed.includes(kind);
}

// why a move is not open to this seat now, in words (from the view and its rules)
function whyNot(kind) {
  const v = state.view;
  if (!v || !v.hand) return t("why.no_hand");
  if (state.seat < 0) return t("why.spectator");
  if (v.status !== "playing" || v.hand.phase === "over") return t("why.hand_over");
  if (v.hand.to_act !== state.seat) return t("why.not_your_turn", { who: name(v.hand.to_act) });
  const me = v.hand.seats[state.seat];
  const draw = v.hand.phase === "draw";
  if (["draw", "take_discard"].includes(kind)) {
    if (!draw) return t("why.already_drew");
    if (kind === "take_discard" && !v.hand.available_discard) return t("no_discard");
    return t(kind === "take_discard" ? "cannot_open_with_discard" : "why.not_now");
  }
  if (draw) return t("why.draw_first");
  if (kind === "open" && me.opened) return t("already_opened");
  if (kind === "lay" && !me.opened) return t("not_opened");
  if (kind === "discard" && v.rules.owed_tile) return t("taken_tile_not_used");
  return t("why.not_now");
}

function setMove(el, kind) {
  const ok = allowed(kind);
  el.disabled = !ok;
  const why = ok ? "" : whyNot(kind);
  el.title = why;
  if (why) el.setAttribute("aria-description", why); else el.removeAttribute("aria-description");
  el.dataset.why = why;
}

function render() {
  const v = state.view;
  if (!v || $("table").hidden) return;
  const hand = v.hand;
  const house = v.profile ? v.profile.id : "";
  document.body.dataset.game = v.profile ? v.profile.game : "101";
  $("table-title").textContent = v.ranked === false ? `${house} (${t("ui.unranked")})` : house;
  $("table-title").title = v.unranked_reason || "";
  $("table-title").dataset.version = state.version;
  $("hand-no").textContent = hand ? t("ui.hand_of", { n: hand.number, of: v.hands_total }) : t(`status.${v.status}`);
  renderSeating(v);
  for (const div of document.querySelectorAll(".seat")) renderSeat(div, v);
  $("indicator").replaceChildren(...(hand ? [tileEl(hand.indicator)] : []));
  $("okey").replaceChildren(...(hand ? [tileEl(hand.okey)] : []));
  $("deck-count").textContent = hand ? hand.deck_count : 0;
  // the discard this seat may take: the one thrown by the seat before it, shown on its turn
  const takeable = hand && hand.available_discard && (state.seat < 0 || hand.to_act === state.seat);
  $("available").replaceChildren(...(takeable ? [tileEl(hand.available_discard)] : []));
  const mine = hand && state.seat >= 0 ? hand.seats[state.seat].discards : [];
  $("my-top").replaceChildren(...(mine.length ? [tileEl(mine[mine.length - 1])] : []));
  $("centre").hidden = !hand;
  renderMelds(hand);
  renderRack();
  const game = v.profile ? v.profile.game : "101";
  for (const b of document.querySelectorAll("[data-move]")) {
    setMove(b, b.dataset.move);
    // only the moves of this game, and the occasional ones only when they are open
    const offGame = b.dataset.game && b.dataset.game !== game;
    const notDuz = game === "duz" && ["open", "lay"].includes(b.dataset.move);
    const pairsOff = b.dataset.kind === "pairs" && b.dataset.move === "open" && v.rules && !v.rules.may_open_pairs && allowed("open");
    b.hidden = !hand || state.seat < 0 || offGame || notDuz || (b.hasAttribute("data-optional") && b.disabled) || (pairsOff && b.id === "open-pairs-button");
  }
  $("arrange").hidden = !hand || state.seat < 0;
  $("discard-zone").classList.toggle("target", allowed("discard") && state.selected.size === 1);
  $("okey-takes").replaceChildren(...detail().okey_takes.map((o) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = t("ui.take_okey", { tiles: o.tiles.map(tileWords).join(", ") });
    b.onclick = () => command({ type: "take_okey", meld: o.meld, tiles: o.tiles });
    return b;
  }));
  const turn = hand && hand.to_act === state.seat && v.status === "playing" && hand.phase !== "over";
  $("turn-note").textContent = !hand || state.seat < 0 || v.status !== "playing" || hand.phase === "over" ? "" : turn ?
    t(hand.phase === "draw" ? "ui.your_turn_draw" : "ui.your_turn_discard") : t("why.not_your_turn", { who: name(hand.to_act) });
  $("dock").hidden = !hand || state.seat < 0;
  renderStandings(v);
  renderSheet(v);
  tick();
}

function renderSeating(v) {
  $("seating").hidden = v.status !== "seating";
  if (v.status !== "seating") return;
  const box = $("seat-buttons");
  box.replaceChildren(...v.players.map((p, seat) => {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.sit = seat;
    b.textContent = p ? name(seat) : t("ui.sit", { seat: seat + 1 });
    b.disabled = !!p || state.seat >= 0;
    if (b.disabled) b.title = p ? t("seat_taken") : t("already_seated");
    b.onclick = () => command({ type: "sit", seat });
    return b;
  }));
  const empty = v.players.some((p) => !p);
  const owner = v.private && v.owner === state.player;
  const botsOk = v.profile && v.profile.bots_allowed && empty &&
    (v.bots_may_sit || (owner && !v.bots_requested));
  $("fill-bots").disabled = !botsOk;
  $("fill-bots").title = botsOk ? "" : !empty ? t("why.no_empty_seat") : !(v.profile && v.profile.bots_allowed) ? t("no_bots") :
    v.private && !owner ? t("not_owner") : t("bots_not_requested");
  const startOk = state.seat >= 0 && !empty;
  $("start").disabled = !startOk;
  $("start").title = startOk ? "" : state.seat < 0 ? t("why.sit_first") : t("seats_empty");
  $("leave").disabled = state.seat < 0;
  $("leave").title = state.seat < 0 ? t("why.sit_first") : "";
  $("invite").hidden = !v.private;
  if (v.private) {
    const link = `${location.origin}${location.pathname}#t=${v.table_id}`;
    $("invite-link").href = link; $("invite-link").textContent = link;
  }
  $("seating-note").textContent = t("ui.seating_note", { house: v.profile ? v.profile.id : "", hands: v.hands_total });
}

function initials(text) {
  const parts = text.split(/[\s_.-]+/).filter(Boolean);
  return (parts.length > 1 ? parts[0][0] + parts[1][0] : text.slice(0, 2)).toLocaleUpperCase(state.lang);
}

function hue(text) { let h = 0; for (const c of text) h = (h * 31 + c.codePointAt(0)) % 360; return h; }

function renderSeat(div, v) {
  const seat = ((state.seat >= 0 ? state.seat : 0) + Number(div.dataset.pos)) % 4;
  const hand = v.hand;
  const sv = hand ? hand.seats[seat] : null;
  const who = name(seat);
  div.dataset.seat = seat;
  div.classList.toggle("to-act", !!hand && hand.to_act === seat && v.status === "playing" && hand.phase !== "over");
  div.replaceChildren();
  const head = document.createElement("div");
  head.className = "seat-head";
  const avatar = document.createElement("span");
  avatar.className = "avatar";
  avatar.setAttribute("aria-hidden", "true");
  avatar.textContent = v.players[seat] ? initials(who) : "·";
  avatar.style.background = `hsl(${hue(who)} 45% 32%)`;
  const label = document.createElement("span");
  label.className = "name";
  label.textContent = who + (v.bots[seat] ? ` (${t("ui.bot")})` : "") + (seat === state.seat ? ` (${t("ui.you")})` : "");
  label.title = label.textContent;  // the whole name where a narrow seat cuts it
  head.append(avatar, label);
  div.append(head);
  if (!sv) return;
  const info = document.createElement("div");
  info.className = "seat-info";
  const opened = sv.opened ? t(sv.opened === "pairs" ? "ui.opened_pairs" : "ui.opened", { value: sv.opening_value }) : t("ui.not_opened");
  info.innerHTML = `<span class="count"></span> <span class="${sv.opened ? "opened" : "unopened"}"></span>` +
    (sv.penalties ? ' <span class="pen"></span>' : "");
  info.querySelector(".count").textContent = t("ui.tiles", { n: sv.rack_size });
  info.querySelector(`.${sv.opened ? "opened" : "unopened"}`).textContent = opened;
  if (sv.penalties) info.querySelector(".pen").textContent = t("ui.penalty_points", { n: sv.penalties });
  div.append(info);
  if (seat !== state.seat) {
    const pile = document.createElement("div");
    pile.className = "discards";
    pile.setAttribute("role", "group");
    pile.setAttribute("aria-label", t("ui.discards_of", { who }));
    for (const x of sv.discards.slice(-3)) pile.append(tileEl(x, "small"));
    div.append(pile);
  }
}

function renderMelds(hand) {
  const lays = detail().lay_offs;
  const held = state.selected.size === 1 ? state.slots[[...state.selected][0]] : null;
  for (const box of document.querySelectorAll(".melds")) {
    box.replaceChildren();
    if (!hand) continue;
    const owner = ((state.seat >= 0 ? state.seat : 0) + Number(box.dataset.pos)) % 4;
    box.setAttribute("aria-label", t("ui.melds_of", { who: name(owner) }));
    for (const m of hand.melds.filter((x) => x.owner === owner)) {
      const div = document.createElement("span");
      div.className = "meld";
      div.dataset.meld = m.index;
      for (const x of m.tiles) div.append(tileEl(x, "small"));
      const option = held && lays.find((o) => o.meld === m.index && o.tile === held);
      if (option) {
        div.classList.add("target");
        div.setAttribute("role", "button");
        div.tabIndex = 0;
        div.title = t("ui.lay_off_here");
        div.onclick = () => layOff(m.index, option);
      }
      box.append(div);
    }
  }
}

function layOff(meld, option) {
  state.selected.clear();
  command({ type: "lay_off", meld, tiles: [option.tile], end: option.end === "group" ? null : option.end });
}

function renderRack() {
  const rack = $("rack");
  rack.replaceChildren();
  const penalised = new Map(detail().penalised_discards.map((p) => [p.tile, p]));
  const holding = state.selected.size === 1;
  for (let row = 0; row < 2; row++) {
    const line = document.createElement("div");
    line.className = "rack-row";
    line.setAttribute("role", "row");
    for (let i = row * 15; i < row * 15 + 15; i++) {
      const x = state.slots[i];
      const slot = document.createElement("div");
      slot.className = "slot";
      slot.dataset.slot = i;
      slot.setAttribute("role", "gridcell");
      if (!x && holding) slot.classList.add("target");
      slot.onclick = () => { if (!state.slots[i] && state.selected.size === 1) move([...state.selected][0], i); };
      if (x) {
        const p = penalised.get(x);
        const el = tileEl(x, `${state.selected.has(i) ? "selected" : ""} ${p ? "penalised" : ""}`);
        el.setAttribute("role", "button");
        el.tabIndex = 0;
        el.setAttribute("aria-pressed", state.selected.has(i) ? "true" : "false");
        if (p) {
          const cost = t("ui.discard_costs", { n: p.points, why: t(`penalty.${p.reason}`) });
          el.title = `${tileWords(x)}: ${cost}`;
          el.setAttribute("aria-label", el.title);
          const badge = document.createElement("span");
          badge.className = "cost";
          badge.setAttribute("aria-hidden", "true");
          badge.textContent = String(p.points);
          el.append(badge);
        }
        el.onkeydown = (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); toggle(i); } };
        el.onpointerdown = (e) => startDrag(e, i);
        slot.append(el);
      }
      line.append(slot);
    }
    rack.append(line);
  }
}

function toggle(i) {
  if (state.selected.has(i)) state.selected.delete(i); else state.selected.add(i);
  render();
}

function move(from, to) {
  if (from === to || !state.slots[from]) return;
  [state.slots[from], state.slots[to]] = [state.slots[to], state.slots[from]];
  state.selected.clear();
  saveRack();
  render();
}

// Drag with any pointer (mouse, touch, pen): a press that moves is a drag, one that does
// not is a tap (select). The tile dropped on a slot moves there (or swaps), on the discard
// pile is discarded, on a highlighted meld is laid off. The listeners are the document's,
// so a view arriving mid-drag (the rack drawn again) does not lose the drag.
let drag = null;
function startDrag(e, i) {
  if (e.button !== undefined && e.button !== 0) return;
  drag = { i, x: e.clientX, y: e.clientY, moving: false, id: e.pointerId };
}

function held() {
  // the legal targets of the tile held: empty slots, the discard pile, lay-off melds
  renderMelds(state.view && state.view.hand);
  $("discard-zone").classList.toggle("target", allowed("discard") && state.selected.size === 1);
  for (const slot of document.querySelectorAll("#rack .slot")) {
    const i = Number(slot.dataset.slot);
    slot.classList.toggle("target", !state.slots[i] && state.selected.size === 1);
    const tile = slot.querySelector(".tile");
    if (tile) tile.classList.toggle("selected", state.selected.has(i));
  }
}

document.addEventListener("pointermove", (ev) => {
  if (!drag || ev.pointerId !== drag.id) return;
  if (!drag.moving && Math.hypot(ev.clientX - drag.x, ev.clientY - drag.y) > 8) {
    if (!state.slots[drag.i]) { drag = null; return; }
    drag.moving = true;
    state.selected = new Set([drag.i]);
    held();
    const face = tileEl(state.slots[drag.i]);
    const ghost = $("ghost");
    ghost.replaceChildren(...face.childNodes);
    ghost.className = `${face.className} ghost`;
    ghost.hidden = false;
  }
  if (drag.moving) {
    ev.preventDefault();
    $("ghost").style.left = `${ev.clientX}px`; $("ghost").style.top = `${ev.clientY}px`;
  }
});

document.addEventListener("pointerup", (ev) => {
  const d = drag;
  drag = null;
  $("ghost").hidden = true;
  if (!d || ev.pointerId !== d.id) return;
  if (!d.moving) { toggle(d.i); return; }
  const under = document.elementFromPoint(ev.clientX, ev.clientY);
  const slot = under && under.closest(".slot");
  const meld = under && under.closest(".meld.target");
  if (slot) move(d.i, Number(slot.dataset.slot));
  else if (meld) meld.click();
  else if (under && under.closest("#discard-zone") && allowed("discard")) discard();
  else { state.selected.clear(); render(); }
});
document.addEventListener("pointercancel", () => { drag = null; $("ghost").hidden = true; });

function renderStandings(v) {
  const head = `<tr><th scope="col"></th>${[0, 1, 2, 3].map((s) => `<th scope="col">${esc(name(s))}</th>`).join("")}</tr>`;
  const rows = v.hand_scores.map((s, h) => `<tr><th scope="row">${esc(t("ui.hand_n", { n: h + 1 }))}</th>${s.map((x) => `<td>${x}</td>`).join("")}</tr>`);
  $("standings").innerHTML = head + rows.join("") +
    `<tr><th scope="row">${esc(t("ui.penalties"))}</th>${v.penalties.map((x) => `<td>${x}</td>`).join("")}</tr>` +
    `<tr class="total-row"><th scope="row">${esc(t("ui.total"))}</th>${v.totals.map((x) => `<td class="total">${x}</td>`).join("")}</tr>`;
}

function esc(text) { const d = document.createElement("span"); d.textContent = text; return d.innerHTML; }

// the end-of-hand sheet: every seat's rack left, penalties this hand and score; after the
// last hand, the match's places
function renderSheet(v) {
  const e = state.lastHand;
  const m = v.status === "over" ? state.lastMatch : null;
  const key = e ? `${e.seq}.${m ? m.seq : ""}` : "";
  if (!e || key === state.sheetKey) return;
  state.sheetKey = key;
  $("sheet-title").textContent = t("ui.hand_result", { n: e.hand });
  $("sheet-finish").textContent = t(`finish.${e.finish}`) + " — " +
    (e.finished_by === null ? t("ui.nobody") : t("ui.finished_by", { who: name(e.finished_by) }));
  const pen = state.handPenalties[e.hand] || [0, 0, 0, 0];
  const rows = [0, 1, 2, 3].map((s) => {
    const rack = (e.racks[s] || []).map((x) => tileEl(x, "small").outerHTML).join("");
    return `<tr><th scope="row">${esc(name(s))}</th><td class="rack-left">${rack}</td>` +
      `<td class="parts" data-seat="${s}">…</td>` +
      `<td>${pen[s]}</td><td class="score">${e.scores[s]}</td><td class="total">${v.totals[s]}</td></tr>`;
  });
  $("sheet-table").innerHTML = `<tr><th scope="col"></th><th scope="col">${esc(t("ui.rack_left"))}</th>` +
    `<th scope="col">${esc(t("ui.rack_value"))} × ${esc(t("ui.multiplier"))}</th>` +
    `<th scope="col">${esc(t("ui.penalties"))}</th><th scope="col">${esc(t("ui.hand_score"))}</th>` +
    `<th scope="col">${esc(t("ui.total"))}</th></tr>` + rows.join("");
  breakdown(e, v).then((seats) => {
    if (state.sheetKey !== key) return;
    for (const cell of document.querySelectorAll("#sheet-table .parts")) {
      const p = seats && seats[Number(cell.dataset.seat)];
      if (!p) { cell.textContent = "–"; continue; }
      cell.textContent = p.partner_of_finisher ? t("ui.partner_zero") : `${p.rack} × ${p.multiplier}` +
        (p.okey_surcharge ? ` ${t("ui.okey_surcharge", { n: p.okey_surcharge })}` : "");
    }
  });
  if (m) {
    const order = [0, 1, 2, 3].sort((a, b) => m.places[a] - m.places[b]);
    $("sheet-match").innerHTML = `<h3>${esc(t("ui.match_result"))}</h3><ul class="places">` +
      order.map((s) => `<li>${esc(t("ui.place", { place: m.places[s], who: name(s), total: m.totals[s] }))}</li>`).join("") + "</ul>" +
      `<dl id="sheet-moved" class="figures" aria-live="polite"></dl>`;
    renderMoved();
    loadMoved(v);
  } else $("sheet-match").innerHTML = "";
  $("next-hand").hidden = !!m;
  $("new-match").hidden = !m;
  $("to-lobby").hidden = !m;
  $("sheet").hidden = false;
  $("sheet").querySelector("button:not([hidden])").focus();
}

// what the match moved for this player (GET /api/me/match): SP or rating before -> after,
// league points, XP and level (a level-up called out), the board place; polled briefly
// while the leaderboards have not folded the match yet (404 pending)
// the house's own number (okey101.standings.house's `points`): SP, rating or none
const HOUSE_POINTS = { "north-sultan": "sp", classic: "rating" };

async function loadMoved(v) {
  const table = state.tableId, house = v.profile && v.profile.id;
  if (!state.token || !table || !house) return;
  if (state.moved && state.moved.table === table) return;
  state.moved = { table, data: null };
  for (let tries = 0; tries < 15 && state.tableId === table; tries++) {
    try {
      const r = await fetch(`/api/me/match?house=${encodeURIComponent(house)}&table=${encodeURIComponent(table)}`,
        { headers: { Authorization: `Bearer ${state.token}` } });
      if (r.ok) { state.moved = { table, data: await r.json() }; break; }
      if (r.status !== 404 || (await r.json()).code !== "pending") break;
    } catch (e) { break; }
    await new Promise((done) => setTimeout(done, 1000));
  }
  renderMoved();
}

function renderMoved() {
  const box = $("sheet-moved");
  if (!box) return;
  const m = state.moved && state.moved.table === state.tableId ? state.moved.data : null;
  box.replaceChildren();
  const add = (label, value, id) => {
    const div = document.createElement("div");
    div.id = id;
    const dt = document.createElement("dt"), dd = document.createElement("dd");
    dt.textContent = label; dd.textContent = value;
    div.append(dt, dd); box.append(div);
  };
  if (!m) return;
  if (!m.ranked) { add(t("ui.moved"), t("ui.moved_unranked"), "moved-unranked"); return; }
  const signed = (n) => (n > 0 ? `+${n}` : String(n));
  const kind = HOUSE_POINTS[m.house] || "none";
  if (kind !== "none") add(t(kind === "sp" ? "ui.sp" : "ui.rating"),
    t("ui.moved_points", { before: m.points_before, after: m.points, delta: signed(m.change) }), "moved-points");
  add(t("ui.league"), t("ui.moved_league", { n: signed(m.league), week: m.league_week }), "moved-league");
  if (m.xp || m.level > 1) add(t("ui.level"), t("ui.moved_xp", { xp: signed(m.xp), level: m.level }) +
    (m.leveled_up ? ` · ${t("ui.level_up", { level: m.level })}` : ""), "moved-level");
  add(t("ui.board_place"), m.board_place ? t("ui.board_value", { place: m.board_place }) : t("ui.not_on_board"), "moved-place");
  if (!m.counted) add(t("ui.moved"), t("ui.moved_not_counted"), "moved-not-counted");
}

// each seat's rack, multiplier and okey surcharge for the hand `e` ended (POST /api/score:
// the rules' own breakdown, for the table's profile); null when it cannot be had
async function breakdown(e, v) {
  const hand = v.hand && v.hand.number === e.hand ? v.hand : null;
  const info = state.handInfo[e.hand];
  const okey = hand ? hand.okey : info && info.okey;
  if (!okey || !v.profile || e.replay) return null;
  const opened = hand ? hand.seats.map((x) => x.opened) : info.opened;
  try {
    const r = await fetch("/api/score", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ profile: v.profile, okey, finish: e.finish, finished_by: e.finished_by,
        opened, racks: e.racks }) });
    return r.ok ? (await r.json()).seats : null;
  } catch (err) { return null; }
}

function tick() {
  const v = state.view;
  if (!v || !v.hand || v.status !== "playing" || !state.deadline || v.hand.phase === "over") { $("clock").textContent = ""; return; }
  const left = Math.max(0, Math.ceil((state.deadline - Date.now()) / 1000));
  $("clock").textContent = t("ui.clock", { n: left });
  $("clock").classList.toggle("low", left <= 10);
}

// ------------------------------------------------------------ moves
function selectedGroups() {
  // the selected tiles, split into melds where the rack has a gap or a row ends
  const groups = [];
  let current = [];
  state.slots.forEach((x, i) => {
    const chosen = x && state.selected.has(i);
    if (chosen) current.push(x);
    if ((!chosen || i % 15 === 14) && current.length) { groups.push(current); current = []; }
  });
  if (current.length) groups.push(current);
  return groups;
}

function discard() {
  if (state.selected.size !== 1) { say(t("ui.select_one"), true); return; }
  const tile = state.slots[[...state.selected][0]];
  state.selected.clear();
  command({ type: "discard", tile });
}

// Düz Okey: the selected groups are shown, the last one (a single tile) is discarded.
function finish() {
  const groups = selectedGroups();
  const last = groups.pop();
  if (!last || last.length !== 1 || !groups.length) { say(t("ui.finish_help"), true); return; }
  state.selected.clear();
  const kind = groups.every((g) => g.length === 2) ? "pairs" : "melds";
  command({ type: "finish", tile: last[0], [kind]: groups });
}

// Deal version 2 (proto/DEAL.md): the page adds its own entropy to the next deal. It keeps
// 32 random bytes for the seeding window (hand and attempt), commits to their SHA-256,
// and reveals them when the window asks for it.
const hex = (bytes) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
async function contributeSeed(v) {
  if (!v.seeding || !window.crypto || !crypto.subtle || state.seeding) return;
  const key = `okey.seed.${v.table_id}.${v.seeding.hand}.${v.seeding.attempt}`;
  state.seeding = true;  // one seeding command in flight; a stale one is sent again
  try {
    if (allowed("commit_seed") && !state.revealed.has(`${key}.commit`)) {
      const seed = sessionStorage.getItem(key) || hex(crypto.getRandomValues(new Uint8Array(32)));
      sessionStorage.setItem(key, seed);
      const bytes = new Uint8Array(seed.match(/../g).map((h) => parseInt(h, 16)));
      const outcome = await command({ type: "commit_seed", commitment: hex(await crypto.subtle.digest("SHA-256", bytes)) });
      if (outcome.accepted) state.revealed.add(`${key}.commit`);
    } else if (allowed("reveal_seed") && sessionStorage.getItem(key) && !state.revealed.has(key)) {
      const outcome = await command({ type: "reveal_seed", client_seed: sessionStorage.getItem(key) });
      if (outcome.accepted) state.revealed.add(key);
    }
  } finally { state.seeding = false; }
}

function lay(type, kind) {
  const groups = selectedGroups();
  if (!groups.length) { say(t("ui.select_melds"), true); return; }
  state.selected.clear();
  command({ type, [kind]: groups });
}

function countOptions(profile) {
  // what the helpers need of the table's profile to count as the table does
  const { meld_value, run_wraps_13_to_1, okey_in_rack_value } = profile;
  return { meld_value, run_wraps_13_to_1, okey_in_rack_value };
}

async function solve(kind) {
  const hand = state.view && state.view.hand;
  if (!hand) return null;
  const r = await fetch("/api/solve", { method: "POST", headers: { "Content-Type": "application/json",
    Authorization: `Bearer ${state.token}` }, body: JSON.stringify({ kind, rack: state.view.rack,
    okey: hand.okey, house: state.view.profile.id, options: countOptions(state.view.profile) }) });
  const answer = await r.json();
  if (!r.ok) { say(reason(answer.code, answer.message), true); return null; }
  return answer;
}

function layOut(melds, leftover) {
  // melds left to right with a gap between them, the leftover after them
  const slots = Array(SLOTS).fill(null);
  let i = 0;
  const put = (group) => {
    const row = Math.floor(i / 15);
    if (i % 15 + group.length > 15 && row === 0) i = 15;
    for (const x of group) if (i < SLOTS) slots[i++] = x.split("=")[0];
    i++;
  };
  melds.forEach(put);
  for (const x of leftover) { const free = slots.indexOf(null, Math.min(i, SLOTS - 1)); if (free >= 0) slots[free] = x; }
  state.slots = slots; state.selected.clear();
  reconcileRack(state.view.rack);
  render();
}

async function arrange() {
  const answer = await solve("arrange");
  if (answer) layOut(answer.melds, answer.leftover);
}

async function autoOpen(kind) {
  const answer = await solve(kind === "pairs" ? "pairs" : "opening");
  if (!answer) return;
  layOut(answer.melds, answer.leftover);
  const me = state.view.hand.seats[state.seat];
  const need = kind === "pairs" ? me.pairs_needed : me.points_needed;
  if (answer.value < need) { say(t("ui.need_more", { need, have: answer.value }), true); return; }
  command({ type: "open", [kind]: answer.melds });
}

async function fillBots() {
  const v = state.view;
  if (!v) return;
  if (v.private && v.owner === state.player && !v.bots_requested) {
    const asked = await command({ type: "request_bots" });
    if (!asked.accepted) return;
  }
  for (let seat = 0; seat < 4; seat++)
    if (state.view && !state.view.players[seat]) {
      const outcome = await command({ type: "replace_with_bot", seat,
        bot_level: Number($("bot-level").value) });
      if (!outcome.accepted) break;
    }
}

async function newMatch() {
  const spec = state.lastCreate || (state.view && state.view.profile ?
    { type: "create_table", profile: state.view.profile.id, options: { hands_per_match: state.view.hands_total } } : null);
  if (!spec) { showLobby(); return; }
  $("sheet").hidden = true;
  state.lastHand = null; state.lastMatch = null; state.sheetKey = ""; state.handPenalties = {};
  const outcome = await command(spec, "");
  if (!outcome.accepted) return;
  watch(outcome.table_id);
  await command({ type: "sit", seat: 0 }, outcome.table_id);
}

// ------------------------------------------------------------ wiring
$("lang").onclick = () => loadLanguage(state.lang === "tr" ? "en" : "tr");
$("login-form").onsubmit = guestLogin;
$("token-button").onclick = () => login($("login-token").value.trim(), "");
$("create-form").onsubmit = createTable;
$("create-house").onchange = () => { updateHouse(); loadStanding(); };
$("lobby-refresh").onclick = refreshLobby;
$("quick-play-button").onclick = quickPlay;
$("quick-play-cancel").onclick = cancelQuickPlay;
$("lobby-house").onchange = refreshLobby;
$("back-to-lobby").onclick = showLobby;
$("to-lobby").onclick = showLobby;
$("fill-bots").onclick = fillBots;
$("start").onclick = () => command({ type: "start_match" });
$("leave").onclick = () => command({ type: "leave" });
$("deck").onclick = () => command({ type: "draw" });
$("take-discard").onclick = () => command({ type: "take_discard" });
$("discard-zone").onclick = discard;
$("put-back").onclick = () => command({ type: "put_back" });
$("declare-pairs").onclick = () => command({ type: "declare_pairs" });
$("show-indicator").onclick = () => command({ type: "show_indicator" });
$("finish-button").onclick = finish;
$("open-button").onclick = () => lay("open", "melds");
$("open-pairs-button").onclick = () => lay("open", "pairs");
$("lay-button").onclick = () => lay("lay", state.view && state.view.hand.seats[state.seat].opened === "pairs" ? "pairs" : "melds");
$("arrange").onclick = arrange;
$("auto-runs").onclick = () => autoOpen("melds");
$("auto-pairs").onclick = () => autoOpen("pairs");
$("next-hand").onclick = () => { $("sheet").hidden = true; };
$("new-match").onclick = newMatch;
$("show-scores").onclick = () => { $("scores").hidden = false; $("scores").querySelector(".close").focus(); };
$("show-log").onclick = () => { $("history").hidden = false; $("history").querySelector(".close").focus(); };
for (const b of document.querySelectorAll(".overlay .close")) b.onclick = () => { b.closest(".overlay").hidden = true; };
$("copy-invite").onclick = () => navigator.clipboard && navigator.clipboard.writeText($("invite-link").href);
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape") for (const id of ["scores", "history"]) $(id).hidden = true;
});
setInterval(tick, 500);
setInterval(() => { if (!$("lobby").hidden) refreshLobby(); }, 3000);

show(state.token ? "lobby" : "login");
if (state.token) $("lobby").hidden = true;
loadLanguage(state.lang).then(loadHouses).then(() => { if (state.token) connect(); });
