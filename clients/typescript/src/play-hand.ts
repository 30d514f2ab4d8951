// A small okey101 client: logs in as a guest (POST /api/guest), opens a table over the
// WebSocket gateway, fills the other three seats with bots, starts a one-hand match and
// plays its own seat until the hand ends: draw from the deck, then discard the newest tile
// that costs no penalty (the rules' detail, asked with a `rules` frame for the view held).
// Every frame is typed by src/proto.ts, generated from proto/websocket-*.schema.json.
//
//   node --experimental-websocket dist/play-hand.js http://127.0.0.1:8100 [house]
//
// Prints one JSON line a hand event seen, `my move: draw|discard` for each of its own
// moves accepted, and `hand over: ...` at the end; exits 1 on a
// refused command or after 120 s.
import type { ClientMessage, CommandOutcome, ErrorReply, Patch, PatchOp, PlayerView, Rules,
  SendCommand, ServerMessage, Update } from "./proto.js";

type Move = SendCommand["command"];

class Gateway {
  private ws: WebSocket;
  private waiting = new Map<string, (o: CommandOutcome) => void>();
  private asked = new Map<string, (r: Rules | ErrorReply) => void>();
  private ids = 0;
  onUpdate: (u: Update) => void = () => {};
  onPatch: (p: Patch) => void = () => {};

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.onmessage = (e) => this.receive(JSON.parse(String(e.data)) as ServerMessage);
  }

  static async open(base: string, token: string): Promise<{ gw: Gateway; player: string }> {
    const ws = new WebSocket(base.replace(/^http/, "ws") + "/ws");
    await new Promise((ok, fail) => { ws.onopen = ok; ws.onerror = fail; });
    const gw = new Gateway(ws);
    const welcome = new Promise<string>((ok, fail) => {
      ws.onmessage = (e) => {
        const m = JSON.parse(String(e.data)) as ServerMessage;
        if (m.type === "welcome") ok(m.player_id); else fail(new Error(JSON.stringify(m)));
        ws.onmessage = (e2) => gw.receive(JSON.parse(String(e2.data)) as ServerMessage);
      };
    });
    gw.send({ type: "hello", v: 2, token });
    return { gw, player: await welcome };
  }

  send(m: ClientMessage): void { this.ws.send(JSON.stringify(m)); }

  command(command: Move, table_id = "", seq?: number): Promise<CommandOutcome> {
    const id = `c${++this.ids}`;
    const done = new Promise<CommandOutcome>((ok) => this.waiting.set(id, ok));
    this.send({ type: "command", id, table_id, command, ...(seq === undefined ? {} : { seq }) });
    return done;
  }

  // the rules' detail of our seat's view at `version`; a `stale_version` error when the
  // gateway's newest view of the seat is another one (a patch is on its way)
  rules(table_id: string, seat: number, version: number): Promise<Rules | ErrorReply> {
    const id = `rules-${++this.ids}`;
    const done = new Promise<Rules | ErrorReply>((ok) => this.asked.set(id, ok));
    this.send({ type: "rules", id, table_id, seat, version });
    return done;
  }

  close(): void { this.ws.close(); }

  private receive(m: ServerMessage): void {
    if (m.type === "outcome") {
      this.waiting.get(m.id)?.(m);
      this.waiting.delete(m.id);
    } else if (m.type === "update") {
      this.onUpdate(m);
    } else if (m.type === "patch") {
      this.onPatch(m);
    } else if (m.type === "rules" || (m.type === "error" && m.id && this.asked.has(m.id))) {
      this.asked.get(m.id ?? "")?.(m);
      this.asked.delete(m.id ?? "");
    } else if (m.type === "error") {
      throw new Error(`gateway refused a frame: ${m.code}: ${m.message}`);
    }
  }
}

// JSON Patch (RFC 6902) as the views service writes it: a member or an item replaced, an
// item added at an index or at the end ("-"); a path that is not there throws
function applyPatch(view: unknown, ops: PatchOp[]): void {
  for (const { op, path, value } of ops) {
    const keys = path.split("/").slice(1);
    const last = keys.pop() ?? "";
    let node = view as Record<string, unknown> | unknown[];
    for (const key of keys) {
      const next: unknown = Array.isArray(node) ? node[Number(key)] : node[key];
      if (typeof next !== "object" || next === null) throw new Error(`patch: no ${path}`);
      node = next as Record<string, unknown> | unknown[];
    }
    if (!Array.isArray(node)) {
      if (op !== "replace" || !(last in node)) throw new Error(`patch: ${op} ${path}`);
      node[last] = value;
    } else if (op === "add" && last === "-") {
      node.push(value);
    } else {
      const i = Number(last);
      if (op === "replace" && Number.isInteger(i) && i >= 0 && i < node.length) node[i] = value;
      else if (op === "add" && Number.isInteger(i) && i >= 0 && i <= node.length) node.splice(i, 0, value);
      else throw new Error(`patch: ${op} ${path}`);
    }
  }
}

function accepted(o: CommandOutcome, what: string): CommandOutcome {
  if (!o.accepted) throw new Error(`${what} refused: ${o.code} ${o.message ?? ""}`);
  return o;
}

async function main(): Promise<void> {
  const base = (process.argv[2] ?? "http://127.0.0.1:8100").replace(/\/+$/, "");
  const house = process.argv[3] ?? "north-sultan";
  const login = await fetch(`${base}/api/guest`, {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ name: "node" }) });
  if (!login.ok) throw new Error(`POST /api/guest: ${login.status}`);
  const { token } = (await login.json()) as { player_id: string; token: string };
  const { gw, player } = await Gateway.open(base, token);
  console.log(`logged in as ${player}`);

  const created = accepted(await gw.command(
    { type: "create_table", profile: house, options: { hands_per_match: 1 } }), "create_table");
  const table = created.table_id;
  console.log(`table ${table}`);

  let view: PlayerView | null = null;
  let version = -1;
  let acting = false;
  let ended = false;  // the hand is over: no more moves
  let resyncing = false;  // a patch did not follow the view held: the whole view was asked for
  const over = new Promise<string>((ok) => {
    // a patch is the view as its changes to the version before (`previous`); one that does
    // not follow the version held means a change was missed: watch again with that version
    gw.onPatch = (p) => {
      if (p.seat !== 0 || resyncing || p.version <= version) return;
      if (view === null || p.previous !== version) {
        resyncing = true;
        gw.send({ type: "watch", table_id: table, version: version < 0 ? null : version });
        return;
      }
      const next = structuredClone(view);
      applyPatch(next, p.patch);
      seen({ ...p, type: "update", view: next });
    };
    gw.onUpdate = (u) => { resyncing = false; seen(u); };
    const seen = (u: Update): void => {
      if (u.seat !== 0) return;
      view = u.view;
      version = u.version;
      for (const e of u.events) {
        if (["hand_started", "tile_drawn", "tile_discarded", "hand_ended"].includes(e.type)) {
          console.log(JSON.stringify({ type: e.type, seq: e.seq }));
        }
        if (e.type === "hand_ended") {
          ended = true;
          ok(`hand over: ${e.finish}`);
        }
      }
      void act();
    };
  });
  async function act(): Promise<void> {
    const v = view;
    if (ended || acting || !v || v.status !== "playing" || !v.hand || v.hand.to_act !== 0) {
      return;
    }
    const allowed = v.rules?.allowed ?? [];
    let move: Move | null = null;
    acting = true;
    if (allowed.includes("draw")) move = { type: "draw" };
    else if (allowed.includes("discard")) {
      const answer = await gw.rules(table, 0, version);
      const costly = new Set(answer.type === "rules"
        ? answer.rules.penalised_discards?.map((p) => p.tile) : []);
      const free = v.rack.filter((t) => !costly.has(t));
      move = { type: "discard", tile: (free.length ? free : v.rack)[(free.length ? free : v.rack).length - 1] };
    }
    if (!move) { acting = false; return; }
    const outcome = await gw.command(move, table, version);
    acting = false;
    if (outcome.accepted) console.log(`my move: ${move.type}`);
    // stale_seq: a newer view came in while the move was on its way; the next update acts
    if (!outcome.accepted && outcome.code !== "stale_seq" && outcome.code !== "not_your_turn") {
      throw new Error(`${move.type} refused: ${outcome.code} ${outcome.message ?? ""}`);
    }
    void act();
  }

  gw.send({ type: "watch", table_id: table });
  accepted(await gw.command({ type: "sit", seat: 0 }, table), "sit");
  for (const seat of [1, 2, 3]) {
    accepted(await gw.command({ type: "replace_with_bot", seat }, table), `bot at seat ${seat}`);
  }
  accepted(await gw.command({ type: "start_match" }, table), "start_match");
  const timeout = setTimeout(() => { console.error("no hand_ended in 120 s"); process.exit(1); },
                             120_000);
  const result = await over;
  // a move of ours may have ended the hand: its outcome follows the update that shows it
  while (acting) await new Promise((ok) => setTimeout(ok, 10));
  console.log(result);
  clearTimeout(timeout);
  gw.close();
}

main().catch((e: unknown) => { console.error(e); process.exit(1); });
