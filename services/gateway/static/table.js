// The browser table: one WebSocket to the gateway (proto/asyncapi.json), whole views in,
// moves out. The page never decides a rule: what may be sent now is view.rules (allowed,
// lay_offs, okey_takes, penalised_discards); the server answers every move with an outcome.
"use strict";

const $ = (id) => document.getElementById(id);
const SLOTS = 30; // two rows of 15
// sent against the newest version the gateway holds (no seq): not decided against a view
const LOBBY_MOVES = new Set(["create_table", "sit", "leave", "replace_with_bot", "start_match",
  "request_bots", "commit_seed", "reveal_seed"]);
const FINISH = { normal: "normal bitiş", okey: "okey atarak", pairs: "çiftten", pairs_okey: "çiftten okeyle",
  elden: "elden", elden_okey: "elden okeyle", deck_exhausted: "deste bitti", void: "geçersiz el" };

const state = {
  token: sessionStorage.getItem("okey.token"), player: sessionStorage.getItem("okey.player"),
  ws: null, tableId: sessionStorage.getItem("okey.table"), view: null, version: null, seat: -1,
  slots: [], selected: new Set(), nextId: 1, pending: new Map(), turnKey: "", turnSince: 0,
  backoff: 500, revealed: new Set(), seeding: false,
};

// ------------------------------------------------------------ connection
function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  state.ws = ws;
  ws.onopen = () => ws.send(JSON.stringify({ type: "hello", token: state.token }));
  ws.onmessage = (e) => receive(JSON.parse(e.data));
  ws.onclose = (e) => {
    $("link").innerHTML = "bağlantı yok <small>(offline)</small>";
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
  if (state.view && tableId === state.tableId && !LOBBY_MOVES.has(move.type)) message.seq = state.version;
  return new Promise((resolve) => { state.pending.set(id, resolve); send(message); });
}

function receive(m) {
  switch (m.type) {
    case "welcome":
      state.backoff = 500;
      $("link").innerHTML = "bağlı <small>(connected)</small>";
      $("who").textContent = m.player_id;
      if (state.tableId) watch(state.tableId, true); else showLobby();
      break;
    case "update": onUpdate(m); break;
    case "synced": break;
    case "tables": renderLobby(m.tables); break;
    case "outcome": {
      const done = state.pending.get(m.id);
      state.pending.delete(m.id);
      if (!m.accepted) say(`${m.code}: ${m.message}`);
      if (done) done(m);
      break;
    }
    case "error": {
      say(`${m.code}: ${m.message}`);
      if (m.id && state.pending.has(m.id)) { state.pending.get(m.id)({ accepted: false, code: m.code }); state.pending.delete(m.id); }
      if (m.code === "unknown_table" && !m.id) { state.tableId = null; sessionStorage.removeItem("okey.table"); showLobby(); }
      break;
    }
  }
}

function say(text) { $("message").textContent = text; $("login-error").textContent = text; }

// ------------------------------------------------------------ login and lobby
async function guestLogin() {
  const r = await fetch("/api/guest", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ name: $("login-name").value }) });
  if (!r.ok) { say("giriş kapalı (guest login is off): use a token"); return; }
  const { token, player_id } = await r.json();
  login(token, player_id);
}

function login(token, player) {
  state.token = token; state.player = player || "";
  sessionStorage.setItem("okey.token", token); sessionStorage.setItem("okey.player", state.player);
  $("login").hidden = true;
  connect();
}

function logout(reason) {
  sessionStorage.clear();
  state.token = null;
  show("login");
  say(`oturum kapandı (signed out): ${reason || ""}`);
}

function show(screen) { for (const s of ["login", "lobby", "table"]) $(s).hidden = s !== screen; }

function showLobby() {
  if (state.tableId) send({ type: "unwatch", table_id: state.tableId });
  state.tableId = null; state.view = null; sessionStorage.removeItem("okey.table");
  show("lobby");
  refreshLobby();
}

function refreshLobby() { send({ type: "tables", house: $("lobby-house").value || null }); }

function renderLobby(tables) {
  const body = $("lobby-tables").querySelector("tbody");
  body.innerHTML = "";
  for (const t of tables) {
    const tr = document.createElement("tr");
    tr.innerHTML = `<td>${t.table_id}</td><td>${t.house}${t.ranked ? "" : " <small>(derecesiz · unranked)</small>"}</td><td>${t.status}</td>
      <td>${t.players.map((p) => p || "·").join(", ")}</td><td></td>`;
    const b = document.createElement("button");
    b.innerHTML = t.status === "seating" && t.free_seats.length ? "Gir <small>(Join)</small>" : "İzle <small>(Watch)</small>";
    b.onclick = () => watch(t.table_id);
    tr.lastChild.append(b);
    body.append(tr);
  }
}

async function createTable() {
  const house = $("create-house").value;
  const options = { hands_per_match: Number($("create-hands").value) || 1 };
  const seconds = Number($("create-seconds").value);
  if (seconds) options.turn_seconds = seconds;
  const outcome = await command({ type: "create_table", profile: house, options }, "");
  if (outcome.accepted) watch(outcome.table_id);
}

function watch(tableId, resume = false) {
  // resuming (a reconnect) sends the version held, and gets only what it missed
  const version = resume && state.view && tableId === state.tableId ? state.version : null;
  if (version === null) { state.view = null; state.version = null; $("log").innerHTML = ""; }
  state.tableId = tableId; sessionStorage.setItem("okey.table", tableId);
  show("table");
  send({ type: "watch", table_id: tableId, version });
}

// ------------------------------------------------------------ views
function onUpdate(m) {
  if (m.table_id !== state.tableId) return;
  if (m.reset) $("log").innerHTML = "";
  state.view = m.view; state.version = m.version; state.seat = m.seat;
  for (const e of m.events) note(e);
  const hand = m.view.hand;
  const key = hand ? `${m.view.turn}:${hand.to_act}:${hand.number}` : "";
  if (key !== state.turnKey) { state.turnKey = key; state.turnSince = Date.now(); }
  reconcileRack(m.view.rack);
  render();
  contributeSeed(m.view);
}

function reconcileRack(rack) {
  const saved = JSON.parse(sessionStorage.getItem(`okey.rack.${state.tableId}`) || "null");
  if (!state.slots.length && saved) state.slots = saved;
  if (state.slots.length !== SLOTS) state.slots = Array(SLOTS).fill(null);
  const want = {};
  for (const t of rack) want[t] = (want[t] || 0) + 1;
  state.slots = state.slots.map((t) => { if (t && want[t]) { want[t]--; return t; } return null; });
  for (const [t, n] of Object.entries(want)) for (let i = 0; i < n; i++) {
    const free = state.slots.indexOf(null);
    if (free >= 0) state.slots[free] = t;
  }
  for (const i of [...state.selected]) if (!state.slots[i]) state.selected.delete(i);
  saveRack();
}

function saveRack() { sessionStorage.setItem(`okey.rack.${state.tableId}`, JSON.stringify(state.slots)); }

function name(seat) { const v = state.view; return (v && v.players[seat]) || `koltuk ${seat}`; }

function note(e) {
  const who = e.seat !== undefined ? name(e.seat) : "";
  const text = {
    table_created: () => `masa açıldı (table created): ${e.profile.id}`,
    player_sat: () => `${e.player_id} oturdu (sat) ${e.seat}`,
    player_left: () => `${e.player_id} kalktı (left)`,
    seat_handed_to_bot: () => `koltuk ${e.seat} dolduruldu (seat filled)`,
    match_started: () => `maç başladı (match started): ${e.hands} el`,
    hand_started: () => `${e.hand}. el (hand) — gösterge ${e.indicator}, okey ${e.okey}`,
    tile_drawn: () => `${who} çekti (drew)${e.tile ? " " + e.tile : ""}`,
    discard_taken: () => `${who} yandan aldı (took) ${e.tile}`,
    discard_put_back: () => `${who} geri bıraktı (put back) ${e.tile}`,
    pairs_declared: () => `${who} çifte gidiyor (declared pairs)`,
    indicator_shown: () => `${who} gösterge gösterdi (showed) ${e.tile}`,
    hand_opened: () => `${who} açtı (opened) ${e.kind === "pairs" ? e.value + " çift" : e.value}`,
    melds_laid: () => `${who} per koydu (laid) ${e.melds.map((m) => m.join(" ")).join(" | ")}`,
    tiles_laid_off: () => `${who} işledi (laid off) ${e.tiles.join(" ")} → #${e.meld}`,
    okey_taken: () => `${who} okeyi aldı (took the okey) #${e.meld}`,
    tile_discarded: () => `${who} attı (discarded) ${e.tile}`,
    penalty_imposed: () => `${who} ceza (penalty) ${e.points} — ${e.reason}`,
    opening_retracted: () => `${who} açışı geri alındı (opening retracted)`,
    turn_timed_out: () => `${who} süre doldu (timed out)`,
    hand_ended: () => { showHandResult(e); return `${e.hand}. el bitti (hand over): ${FINISH[e.finish] || e.finish}`; },
    match_ended: () => { showMatchResult(e); return "maç bitti (match over)"; },
  }[e.type];
  if (!text) return;
  const li = document.createElement("li");
  li.textContent = text();
  $("log").prepend(li);
}

function showHandResult(e) {
  const box = $("hand-result");
  const by = e.finished_by === null ? "kimse (nobody)" : name(e.finished_by);
  box.innerHTML = `<b>${e.hand}. el sonucu <small>(hand result)</small>:</b> ${FINISH[e.finish] || e.finish} — ${by}
    <table><tr>${[0, 1, 2, 3].map((s) => `<th>${name(s)}</th>`).join("")}</tr>
    <tr>${e.scores.map((x) => `<td class="score">${x}</td>`).join("")}</tr></table>`;
  box.hidden = false;
}

function showMatchResult(e) {
  const box = $("match-result");
  const order = [0, 1, 2, 3].sort((a, b) => e.places[a] - e.places[b]);
  box.innerHTML = `<b>Maç sonucu <small>(match result)</small>:</b> ` +
    order.map((s) => `${e.places[s]}. ${name(s)} (${e.totals[s]})`).join(" · ");
  box.hidden = false;
}

// ------------------------------------------------------------ drawing the table
function tileEl(t, extra = "") {
  const span = document.createElement("span");
  const okey = state.view && state.view.hand && t.split("=")[0] === state.view.hand.okey;
  span.className = `tile ${t[0]} ${okey ? "okey" : ""} ${extra}`;
  span.textContent = t.includes("=") ? t.split("=")[0] : t;
  span.title = t;
  span.dataset.tile = t;
  return span;
}

function allowed(kind) {
  const r = state.view && state.view.rules;
  return !!r && r.allowed.includes(kind);
}

function render() {
  const v = state.view;
  if (!v) return;
  const hand = v.hand;
  $("table-title").textContent = `${v.table_id} · ${v.profile ? v.profile.id : ""}${v.ranked ? "" : " (derecesiz · unranked)"} · v${state.version}`;
  $("table-title").title = v.unranked_reason || "";
  $("hand-no").textContent = hand ? `${hand.number}/${v.hands_total}. el (hand)` : v.status;
  $("seating").hidden = v.status !== "seating";
  renderSeating(v);
  for (const div of document.querySelectorAll(".seat")) renderSeat(div, v);
  $("indicator").replaceChildren(...(hand ? [tileEl(hand.indicator)] : []));
  $("okey").replaceChildren(...(hand ? [tileEl(hand.okey)] : []));
  $("deck-count").textContent = hand ? hand.deck_count : 0;
  $("available").replaceChildren(...(hand && hand.available_discard ? [tileEl(hand.available_discard, "small")] : []));
  $("deck").disabled = !allowed("draw");
  $("take-discard").disabled = !allowed("take_discard");
  renderMelds(hand);
  renderRack();
  for (const b of document.querySelectorAll("[data-needs]")) b.disabled = !allowed(b.dataset.needs);
  const r = v.rules;
  $("okey-takes").replaceChildren(...(r ? r.okey_takes : []).map((o) => {
    const b = document.createElement("button");
    b.innerHTML = `Okeyi al <small>(take the okey)</small> #${o.meld} ← ${o.tiles.join(" ")}`;
    b.onclick = () => command({ type: "take_okey", meld: o.meld, tiles: o.tiles });
    return b;
  }));
  const mine = hand && hand.to_act === state.seat && v.status === "playing";
  $("turn-note").textContent = mine ? (hand.phase === "draw" ? "Sıra sende: çek ya da yandan al (your turn: draw)" :
    "Sıra sende: at (your turn: discard)") : "";
  renderStandings(v);
}

function renderSeating(v) {
  const box = $("seat-buttons");
  box.innerHTML = "";
  v.players.forEach((p, seat) => {
    const b = document.createElement("button");
    b.dataset.sit = seat;
    b.innerHTML = p ? `${seat}: ${p}` : `${seat}: Otur <small>(Sit)</small>`;
    b.disabled = !!p || state.seat >= 0;
    b.onclick = () => command({ type: "sit", seat });
    box.append(b);
  });
  $("fill-bots").disabled = !(v.profile && v.profile.bots_allowed) || !v.players.some((p) => !p);
  $("start").disabled = state.seat < 0 || v.players.some((p) => !p);
  $("leave").disabled = state.seat < 0;
}

function renderSeat(div, v) {
  const seat = ((state.seat >= 0 ? state.seat : 0) + Number(div.dataset.pos)) % 4;
  const hand = v.hand;
  const sv = hand ? hand.seats[seat] : null;
  div.classList.toggle("to-act", !!hand && hand.to_act === seat && v.status === "playing");
  div.innerHTML = `<div class="name">${name(seat)}</div>`;
  if (!sv) return;
  const opened = sv.opened ? `<span class="opened">açtı (opened ${sv.opened === "pairs" ? sv.opening_value + " çift" : sv.opening_value})</span>`
    : `<span class="unopened">açmadı (not opened)</span>`;
  div.insertAdjacentHTML("beforeend", `<div>${sv.rack_size} taş (tiles) · ${opened}</div>
    <div>ceza (penalties): ${sv.penalties}</div><div class="discards">atılan (discards): </div>`);
  const pile = div.querySelector(".discards");
  for (const t of sv.discards.slice(-6)) pile.append(tileEl(t, "small"));
}

function renderMelds(hand) {
  const box = $("melds");
  box.innerHTML = "";
  if (!hand) return;
  const r = state.view.rules;
  const picked = [...state.selected].map((i) => state.slots[i]);
  for (const m of hand.melds) {
    const div = document.createElement("span");
    div.className = "meld";
    div.dataset.meld = m.index;
    div.innerHTML = `<span class="idx">#${m.index}</span>`;
    for (const t of m.tiles) div.append(tileEl(t, "small"));
    const option = picked.length === 1 && r && r.lay_offs.find((o) => o.meld === m.index && o.tile === picked[0]);
    if (option) {
      div.classList.add("target");
      div.title = "İşle (lay off here)";
      div.onclick = () => command({ type: "lay_off", meld: m.index, tiles: [option.tile], end: option.end === "group" ? null : option.end });
    }
    box.append(div);
  }
}

function renderRack() {
  const rack = $("rack");
  rack.innerHTML = "";
  const penalised = new Map(((state.view && state.view.rules) ? state.view.rules.penalised_discards : []).map((p) => [p.tile, p]));
  state.slots.forEach((t, i) => {
    const slot = document.createElement("div");
    slot.className = "slot";
    slot.dataset.slot = i;
    slot.ondragover = (e) => { e.preventDefault(); slot.classList.add("drop"); };
    slot.ondragleave = () => slot.classList.remove("drop");
    slot.ondrop = (e) => { e.preventDefault(); move(Number(e.dataTransfer.getData("text/plain")), i); };
    slot.onclick = () => { if (!t && state.selected.size === 1) move([...state.selected][0], i); };
    if (t) {
      const p = penalised.get(t);
      const el = tileEl(t, `${state.selected.has(i) ? "selected" : ""} ${p ? "penalised" : ""}`);
      if (p) el.title = `${t}: atarsan ${p.points} ceza (discarding it costs ${p.points}: ${p.reason})`;
      el.draggable = true;
      el.ondragstart = (e) => e.dataTransfer.setData("text/plain", String(i));
      el.onclick = (e) => { e.stopPropagation(); toggle(i); };
      slot.append(el);
    }
    rack.append(slot);
  });
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

function renderStandings(v) {
  const rows = v.hand_scores.map((s, h) => `<tr><td>${h + 1}. el</td>${s.map((x) => `<td>${x}</td>`).join("")}</tr>`);
  $("standings").innerHTML = `<tr><th></th>${[0, 1, 2, 3].map((s) => `<th>${name(s)}</th>`).join("")}</tr>` +
    rows.join("") +
    `<tr><td>ceza <small>(penalties)</small></td>${v.penalties.map((x) => `<td>${x}</td>`).join("")}</tr>` +
    `<tr><td><b>toplam <small>(total)</small></b></td>${v.totals.map((x) => `<td class="total"><b>${x}</b></td>`).join("")}</tr>`;
}

function tick() {
  const v = state.view;
  const seconds = v && v.profile && v.profile.turn_seconds;
  if (!v || !v.hand || v.status !== "playing" || !seconds) { $("clock").textContent = ""; return; }
  const left = Math.max(0, Math.ceil(seconds - (Date.now() - state.turnSince) / 1000));
  $("clock").textContent = `Süre (clock): ${left} sn — ${name(v.hand.to_act)}`;
  $("clock").classList.toggle("low", left <= 10);
}

// ------------------------------------------------------------ moves
function selectedGroups() {
  // the selected tiles, split into melds where the rack has a gap or a row ends
  const groups = [];
  let current = [];
  state.slots.forEach((t, i) => {
    const chosen = t && state.selected.has(i);
    if (chosen) current.push(t);
    if ((!chosen || i % 15 === 14) && current.length) { groups.push(current); current = []; }
  });
  if (current.length) groups.push(current);
  return groups;
}

function discard() {
  if (state.selected.size !== 1) { say("atmak için bir taş seç (select one tile to discard)"); return; }
  const tile = state.slots[[...state.selected][0]];
  state.selected.clear();
  command({ type: "discard", tile });
}

// Düz Okey: the selected groups are shown, the last one (a single tile) is discarded.
function finish() {
  const groups = selectedGroups();
  const last = groups.pop();
  if (!last || last.length !== 1 || !groups.length) {
    say("perleri seç, en son atılacak taşı (select the melds, then the tile to discard, after a gap)");
    return;
  }
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
  if (!groups.length) { say("per seç (select the tiles, melds separated by a gap)"); return; }
  state.selected.clear();
  command({ type, [kind]: groups });
}

async function solve(kind) {
  const hand = state.view && state.view.hand;
  if (!hand) return null;
  const r = await fetch("/api/solve", { method: "POST", headers: { "Content-Type": "application/json",
    Authorization: `Bearer ${state.token}` }, body: JSON.stringify({ kind, rack: state.view.rack,
    okey: hand.okey, house: state.view.profile.id }) });
  const answer = await r.json();
  if (!r.ok) { say(`${answer.code}: ${answer.message}`); return null; }
  return answer;
}

function layOut(melds, leftover) {
  // melds left to right with a gap between them, the leftover after them
  const slots = Array(SLOTS).fill(null);
  let i = 0;
  const put = (group) => {
    const row = Math.floor(i / 15);
    if (i % 15 + group.length > 15 && row === 0) i = 15;
    for (const t of group) if (i < SLOTS) slots[i++] = t.split("=")[0];
    i++;
  };
  melds.forEach(put);
  for (const t of leftover) { const free = slots.indexOf(null, Math.min(i, SLOTS - 1)); if (free >= 0) slots[free] = t; }
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
  if (answer.value < need) {
    say(`açmak için ${need} gerek, elde ${answer.value} var (you need ${need} to open, the rack makes ${answer.value})`);
    return;
  }
  command({ type: "open", [kind]: answer.melds });
}

// ------------------------------------------------------------ wiring
$("login-button").onclick = guestLogin;
$("login-name").onkeydown = (e) => { if (e.key === "Enter") guestLogin(); };
$("token-button").onclick = () => login($("login-token").value.trim(), "");
$("create-button").onclick = createTable;
$("lobby-refresh").onclick = refreshLobby;
$("lobby-house").onchange = refreshLobby;
$("back-to-lobby").onclick = showLobby;
$("fill-bots").onclick = async () => {
  for (let seat = 0; seat < 4; seat++)
    if (state.view && !state.view.players[seat]) {
      const outcome = await command({ type: "replace_with_bot", seat,
        bot_level: Number($("bot-level").value) });
      if (!outcome.accepted) break;
    }
};
$("start").onclick = () => command({ type: "start_match" });
$("leave").onclick = () => command({ type: "leave" });
$("deck").onclick = () => command({ type: "draw" });
$("take-discard").onclick = () => command({ type: "take_discard" });
$("put-back").onclick = () => command({ type: "put_back" });
$("declare-pairs").onclick = () => command({ type: "declare_pairs" });
$("show-indicator").onclick = () => command({ type: "show_indicator" });
$("discard-button").onclick = discard;
$("finish-button").onclick = finish;
$("open-button").onclick = () => lay("open", "melds");
$("open-pairs-button").onclick = () => lay("open", "pairs");
$("lay-button").onclick = () => lay("lay", state.view && state.view.hand.seats[state.seat].opened === "pairs" ? "pairs" : "melds");
$("arrange").onclick = arrange;
$("auto-runs").onclick = () => autoOpen("melds");
$("auto-pairs").onclick = () => autoOpen("pairs");
setInterval(tick, 500);
setInterval(() => { if (!$("lobby").hidden) refreshLobby(); }, 3000);

if (state.token) { $("login").hidden = true; connect(); } else show("login");
