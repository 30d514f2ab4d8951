//! A table's views as changes: each change's records, ported from
//! `okey101/table/viewparts.py` (`TableParts.leaves`, `public_ops`, `_seat_ops` and the
//! records of `updates`, whole views as `views.player_views` builds them). The Python module
//! is the specification: `viewparts.NativeTableParts` hands this what the rule book answers
//! (the seat rules, the discard on offer, the turn's deadline; the bot flags shown, the
//! thresholds and the table's group of fields through callables asked only when what they
//! read moved) and the events, encoded, and `tests/properties/test_native_views.py` checks
//! that the records are byte for byte the Python `TableParts`' in every house and mode.
//!
//! The JSON written here is msgspec's: compact, fields in their struct's order, strings
//! escaped as msgspec escapes them (`push_str`).
use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString, PyTuple};

const SEATS: usize = 4;
const KINDS: usize = 53;
/// The hand's fields a patch names one by one, in `views.hand_fields`' order.
const HAND_PATHS: [&[u8]; 12] = [
    b"/hand/number",
    b"/hand/attempt",
    b"/hand/starter",
    b"/hand/indicator",
    b"/hand/okey",
    b"/hand/deck_count",
    b"/hand/to_act",
    b"/hand/phase",
    b"/hand/available_discard",
    b"/hand/current",
    b"/hand/finish",
    b"/hand/finished_by",
];

fn push_int(out: &mut Vec<u8>, v: i64) {
    let mut digits = [0u8; 20];
    let mut n = v.unsigned_abs();
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if v < 0 {
        out.push(b'-');
    }
    out.extend_from_slice(&digits[at..]);
}

fn push_opt_int(out: &mut Vec<u8>, v: Option<i64>) {
    match v {
        Some(n) => push_int(out, n),
        None => out.extend_from_slice(b"null"),
    }
}

fn push_bool(out: &mut Vec<u8>, v: bool) {
    out.extend_from_slice(if v { b"true" } else { b"false" });
}

/// A JSON string as msgspec writes it: `"` and `\` escaped, the control characters below
/// 0x20 as `\b \t \n \f \r` or `\u00XX`, everything else (non-ASCII and DEL) as UTF-8.
fn push_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    for &b in s.as_bytes() {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\r' => out.extend_from_slice(b"\\r"),
            0..=0x1f => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[(b >> 4) as usize]);
                out.push(HEX[(b & 15) as usize]);
            }
            _ => out.push(b),
        }
    }
    out.push(b'"');
}

fn push_op(out: &mut Vec<Vec<u8>>, kind: &[u8], path: &[u8], value: &[u8]) {
    let mut op = Vec::with_capacity(32 + path.len() + value.len());
    op.extend_from_slice(b"{\"op\":\"");
    op.extend_from_slice(kind);
    op.extend_from_slice(b"\",\"path\":\"");
    op.extend_from_slice(path);
    op.extend_from_slice(b"\",\"value\":");
    op.extend_from_slice(value);
    op.push(b'}');
    out.push(op);
}

fn push_list<'a>(out: &mut Vec<u8>, items: impl IntoIterator<Item = &'a [u8]>) {
    out.push(b'[');
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(item);
    }
    out.push(b']');
}

fn bytes_of<'a>(obj: &'a Bound<'_, PyAny>, what: &str) -> PyResult<&'a [u8]> {
    match obj.cast::<PyBytes>() {
        Ok(b) => Ok(b.as_bytes()),
        Err(_) => Err(PyValueError::new_err(format!("{what}: bytes expected"))),
    }
}

/// A seat's public view and what it was built from: its `SeatHand`, player, bot flag and
/// the thresholds, the objects compared by identity:
/// the state's structs are frozen and shared, so an unchanged part is the same object.
struct SeatHeld {
    hand: Py<PyAny>,
    player: Py<PyAny>,
    bot: bool,
    needed: (i64, i64),
    raw: Vec<u8>,
}

/// An encoded part and the object it was built from.
struct Held {
    source: Py<PyAny>,
    raw: Vec<u8>,
}

/// What a seat was sent of its own: its rack and its rules.
struct Own {
    rack: Vec<u8>,
    rules: Vec<u8>,
}

type Private = Option<(i64, Option<Vec<u8>>, Option<Vec<u8>>)>;
/// A seat's opening as its thresholds were asked for: its `SeatHand`, `opened`, `opening_value`.
type Opening = (Py<PyAny>, Py<PyAny>, i64);

/// One table's views as its previous update sent them, part by part, and each seat's own
/// part and patches since its last whole view.
#[pyclass(module = "okey101_native")]
pub struct TableChanges {
    names: Vec<Vec<u8>>,           // each tile kind's name, encoded
    no_rules: Vec<u8>,             // `NO_RULES`, encoded
    keyframe: u32,                 // a seat's view is sent whole every `keyframe` updates
    view_fields: Vec<String>,      // `PlayerView`'s fields, in order
    key_fields: Vec<Py<PyString>>, // the state's fields the table's group is built from
    table_key: Vec<Py<PyAny>>,
    table: Vec<(String, Vec<u8>)>, // the table's group: (field, encoded), in its order
    ticking: Option<(i64, i64, Option<i64>)>, // the seq, the turn, the turn's deadline
    hand_key: Option<Option<(i64, i64)>>, // the hand's number and attempt (Some(None): none)
    has_hand: bool,               // whether the fields below are a hand's
    fields: Vec<Vec<u8>>,         // the hand's fields sent, in `HAND_PATHS`' order
    next: Vec<Vec<u8>>,           // the same, being built
    melds: Vec<Vec<u8>>,
    seats: Vec<Option<SeatHeld>>, // each seat's public view
    current: Option<Held>,
    racks: Vec<Option<(Py<PyAny>, Held)>>, // by seat: its `SeatHand`, its rack encoded
    own: Vec<Option<Own>>,        // by seat + 1: what it was sent of its own
    since: [u32; SEATS + 1],      // by seat + 1: its patches since its last whole view
    table_id: Option<(Py<PyAny>, Vec<u8>)>,
    record: Vec<u8>,              // a record, being built
    // what the rule book answers, asked of Python only when what each reads moved: the bot
    // flags a view shows (by the state's bots and house), each seat's thresholds (by the
    // house and the seats' openings), the table's group of fields (by `key_fields`)
    ask_labels: Py<PyAny>,
    ask_thresholds: Py<PyAny>,
    ask_table: Py<PyAny>,
    published: Py<PyAny>, // `viewparts.Published`, each record's wrapper
    meld_views: Vec<Held>, // each meld's view by its `TableMeld`, for the okey in `melds_key`
    labels_key: Option<(Py<PyAny>, Py<PyAny>)>,
    labels: Vec<bool>,
    thresholds_key: Option<(Py<PyAny>, Vec<Opening>)>,
    thresholds: Vec<(i64, i64)>,
    melds_key: Option<(Py<PyAny>, i64, i64)>,
}

impl TableChanges {
    fn tile(&self, t: i64, what: &str) -> PyResult<&[u8]> {
        usize::try_from(t)
            .ok()
            .and_then(|k| self.names.get(k))
            .map(Vec::as_slice)
            .ok_or_else(|| PyValueError::new_err(format!("{what}: no tile has kind {t}")))
    }

    fn tiles(&self, out: &mut Vec<u8>, seq: &Bound<'_, PyAny>, what: &str) -> PyResult<()> {
        let seq = seq
            .cast::<PyTuple>()
            .map_err(|_| PyValueError::new_err(format!("{what}: a tuple of tiles expected")))?;
        out.push(b'[');
        for (i, t) in seq.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(self.tile(t.extract()?, what)?);
        }
        out.push(b']');
        Ok(())
    }

    /// `views.turn_view`'s encoding into `self.next[9]`, kept while its scratch is the same.
    fn current_of(&mut self, scratch: &Bound<'_, PyAny>) -> PyResult<()> {
        let hit = self.current.as_ref().is_some_and(|h| h.source.as_ptr() == scratch.as_ptr());
        if !hit {
            let py = scratch.py();
            let mut out = Vec::with_capacity(160);
            out.extend_from_slice(b"{\"taken\":");
            let taken: Option<i64> = scratch.getattr(intern!(py, "taken"))?.extract()?;
            match taken {
                Some(t) => out.extend_from_slice(self.tile(t, "scratch.taken")?),
                None => out.extend_from_slice(b"null"),
            }
            out.extend_from_slice(b",\"taken_from\":");
            push_int(&mut out, scratch.getattr(intern!(py, "taken_from"))?.extract()?);
            out.extend_from_slice(b",\"laid\":");
            self.tiles(&mut out, &scratch.getattr(intern!(py, "laid"))?, "scratch.laid")?;
            out.extend_from_slice(b",\"lay_offs\":");
            push_int(&mut out, scratch.getattr(intern!(py, "lay_offs"))?.extract()?);
            out.extend_from_slice(b",\"laid_off\":");
            push_bool(&mut out, scratch.getattr(intern!(py, "laid_off"))?.extract()?);
            out.extend_from_slice(b",\"end_counts\":[");
            let counts: Vec<(i64, String, i64)> =
                scratch.getattr(intern!(py, "end_counts"))?.extract()?;
            for (i, (meld, end, n)) in counts.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.push(b'[');
                push_int(&mut out, *meld);
                out.push(b',');
                push_str(&mut out, end);
                out.push(b',');
                push_int(&mut out, *n);
                out.push(b']');
            }
            out.extend_from_slice(b"],\"put_back\":");
            push_bool(&mut out, scratch.getattr(intern!(py, "put_back"))?.extract()?);
            out.push(b'}');
            self.current = Some(Held { source: scratch.clone().unbind(), raw: out });
        }
        let raw = &self.current.as_ref().expect("just built").raw;
        self.next[9].clone_from(raw);
        Ok(())
    }

    /// `views.seat_view`'s encoding for seat `i`, kept while its sources are the same:
    /// whether it differs from the one held before.
    fn seat_of(
        &mut self,
        i: usize,
        h: &Bound<'_, PyAny>,
        player: &Bound<'_, PyAny>,
        bot: bool,
        needed: (i64, i64),
    ) -> PyResult<bool> {
        if let Some(held) = &self.seats[i] {
            if held.hand.as_ptr() == h.as_ptr()
                && held.needed == needed
                && held.player.as_ptr() == player.as_ptr()
                && held.bot == bot
            {
                return Ok(false);
            }
        }
        let py = h.py();
        let name = player
            .cast::<PyString>()
            .map_err(|_| PyValueError::new_err(format!("players[{i}]: a string expected")))?;
        let (points, pairs) = needed;
        let rack = h.getattr(intern!(py, "rack"))?;
        let mut out = Vec::with_capacity(320);
        out.extend_from_slice(b"{\"seat\":");
        push_int(&mut out, i as i64);
        out.extend_from_slice(b",\"player_id\":");
        push_str(&mut out, name.to_str()?);
        out.extend_from_slice(b",\"bot\":");
        push_bool(&mut out, bot);
        out.extend_from_slice(b",\"rack_size\":");
        push_int(&mut out, rack.len()? as i64);
        out.extend_from_slice(b",\"discards\":");
        self.tiles(&mut out, &h.getattr(intern!(py, "discards"))?, "seat.discards")?;
        out.extend_from_slice(b",\"opened\":");
        let opened: Option<String> = h.getattr(intern!(py, "opened"))?.extract()?;
        match opened {
            Some(kind) => push_str(&mut out, &kind),
            None => out.extend_from_slice(b"null"),
        }
        for (name, field) in [
            (&b",\"opened_turn\":"[..], intern!(py, "opened_turn")),
            (b",\"opening_value\":", intern!(py, "opening_value")),
        ] {
            out.extend_from_slice(name);
            push_int(&mut out, h.getattr(field)?.extract()?);
        }
        for (name, field) in [
            (&b",\"declared_pairs\":"[..], intern!(py, "declared_pairs")),
            (b",\"shown_indicator\":", intern!(py, "shown_indicator")),
            (b",\"has_played\":", intern!(py, "has_played")),
        ] {
            out.extend_from_slice(name);
            push_bool(&mut out, h.getattr(field)?.extract()?);
        }
        out.extend_from_slice(b",\"penalties\":");
        push_int(&mut out, h.getattr(intern!(py, "penalties"))?.extract()?);
        out.extend_from_slice(b",\"points_needed\":");
        push_int(&mut out, points);
        out.extend_from_slice(b",\"pairs_needed\":");
        push_int(&mut out, pairs);
        out.push(b'}');
        let changed = self.seats[i].as_ref().is_none_or(|held| held.raw != out);
        self.seats[i] = Some(SeatHeld {
            hand: h.clone().unbind(),
            player: player.clone().unbind(),
            bot,
            needed,
            raw: out,
        });
        Ok(changed)
    }

    /// `views.hand_fields`' values, encoded into `self.next` in its order.
    fn fields_of(&mut self, hand: &Bound<'_, PyAny>, top: Option<i64>) -> PyResult<()> {
        let py = hand.py();
        let mut next = std::mem::take(&mut self.next);
        next.resize_with(HAND_PATHS.len(), Vec::new);
        for field in next.iter_mut() {
            field.clear();
        }
        for (k, name) in [
            (0, intern!(py, "number")),
            (1, intern!(py, "attempt")),
            (2, intern!(py, "starter")),
            (6, intern!(py, "to_act")),
        ] {
            push_int(&mut next[k], hand.getattr(name)?.extract()?);
        }
        let indicator: i64 = hand.getattr(intern!(py, "indicator"))?.extract()?;
        next[3].extend_from_slice(self.tile(indicator, "indicator")?);
        let okey: i64 = hand.getattr(intern!(py, "okey"))?.extract()?;
        next[4].extend_from_slice(self.tile(okey, "okey")?);
        let deck = hand.getattr(intern!(py, "deck"))?.len()? as i64;
        let pos: i64 = hand.getattr(intern!(py, "deck_pos"))?.extract()?;
        push_int(&mut next[5], deck - pos);
        let phase = hand.getattr(intern!(py, "phase"))?;
        push_str(&mut next[7], phase.cast::<PyString>().map_err(|_| {
            PyValueError::new_err("phase: a string expected")
        })?.to_str()?);
        match top {
            Some(t) => next[8].extend_from_slice(self.tile(t, "available discard")?),
            None => next[8].extend_from_slice(b"null"),
        }
        let finish: Option<String> = hand.getattr(intern!(py, "finish"))?.extract()?;
        match finish {
            Some(f) => push_str(&mut next[10], &f),
            None => next[10].extend_from_slice(b"null"),
        }
        push_opt_int(&mut next[11], hand.getattr(intern!(py, "finished_by"))?.extract()?);
        self.next = next;
        self.current_of(&hand.getattr(intern!(py, "scratch"))?)
    }

    /// Seat `seat`'s rack, encoded, kept while its tiles are the same (`[]`: no rack).
    fn rack_of(&mut self, seats: &[Bound<'_, PyAny>], seat: i64) -> PyResult<&[u8]> {
        let Some(h) = usize::try_from(seat).ok().and_then(|i| seats.get(i)) else {
            return Ok(b"[]");
        };
        let i = seat as usize;
        // the same `SeatHand`, the same rack; another may still hold the same rack
        let same_seat = self.racks[i].as_ref().is_some_and(|(held, _)| held.as_ptr() == h.as_ptr());
        if !same_seat {
            let rack = h.getattr(intern!(h.py(), "rack"))?;
            let hit = self.racks[i].as_ref().is_some_and(|(_, r)| r.source.as_ptr() == rack.as_ptr());
            if hit {
                let (held, _) = self.racks[i].as_mut().expect("just checked");
                *held = h.clone().unbind();
            } else {
                let mut raw = Vec::with_capacity(8 + 5 * 22);
                self.tiles(&mut raw, &rack, "rack")?;
                self.racks[i] = Some((h.clone().unbind(), Held { source: rack.unbind(), raw }));
            }
        }
        Ok(&self.racks[i].as_ref().expect("just built").1.raw)
    }

    fn table_id_of(&mut self, state: &Bound<'_, PyAny>) -> PyResult<()> {
        let id = state.getattr(intern!(state.py(), "table_id"))?;
        if self.table_id.as_ref().is_some_and(|(held, _)| held.as_ptr() == id.as_ptr()) {
            return Ok(());
        }
        let text = id
            .cast::<PyString>()
            .map_err(|_| PyValueError::new_err("table_id: a string expected"))?;
        let mut raw = Vec::new();
        push_str(&mut raw, text.to_str()?);
        self.table_id = Some((id.unbind(), raw));
        Ok(())
    }

    /// The hand's view (`views._hand_view`) from its parts.
    fn hand_raw(&self) -> Vec<u8> {
        if !self.has_hand {
            return b"null".to_vec();
        }
        let mut out = Vec::with_capacity(2048);
        out.push(b'{');
        for (k, (path, raw)) in HAND_PATHS.iter().zip(&self.fields).enumerate() {
            if k == 9 {
                // `HandView` keeps its melds and seats between the discard on offer and the turn
                out.extend_from_slice(b",\"melds\":");
                push_list(&mut out, self.melds.iter().map(Vec::as_slice));
                out.extend_from_slice(b",\"seats\":");
                push_list(&mut out, self.seats.iter().flatten().map(|s| s.raw.as_slice()));
            }
            if k > 0 {
                out.push(b',');
            }
            out.push(b'"');
            out.extend_from_slice(&path[6..]);
            out.extend_from_slice(b"\":");
            out.extend_from_slice(raw);
        }
        out.push(b'}');
        out
    }

    /// A seat's whole view (`PlayerView`), its fields in the struct's order.
    fn view_raw(&self, out: &mut Vec<u8>, seat: i64, rack: &[u8], rules: &[u8], hand: &[u8]) {
        let (seq, turn, by) = self.ticking.unwrap_or((0, 0, None));
        out.push(b'{');
        for (k, name) in self.view_fields.iter().enumerate() {
            if k > 0 {
                out.push(b',');
            }
            push_str(out, name);
            out.push(b':');
            match name.as_str() {
                "seq" => push_int(out, seq),
                "seat" => push_int(out, seat),
                "turn" => push_int(out, turn),
                "turn_by" => push_opt_int(out, by),
                "rack" => out.extend_from_slice(rack),
                "rules" => out.extend_from_slice(rules),
                "hand" => out.extend_from_slice(hand),
                _ => match self.table.iter().find(|(n, _)| n == name) {
                    Some((_, raw)) => out.extend_from_slice(raw),
                    None => out.extend_from_slice(b"null"),
                },
            }
        }
        out.push(b'}');
    }

    /// The table's own operations since the update before (its group, then the ticking
    /// fields), the group asked of `table_group` only when a field it reads moved.
    fn table_ops(
        &mut self,
        state: &Bound<'_, PyAny>,
        by: Option<i64>,
        parts: &Bound<'_, PyAny>,
        ops: &mut Vec<Vec<u8>>,
    ) -> PyResult<()> {
        let py = state.py();
        let mut same = self.table_key.len() == self.key_fields.len();
        let mut key = Vec::new();
        for (k, f) in self.key_fields.iter().enumerate() {
            let value = state.getattr(f.bind(py))?;
            if same && value.as_ptr() != self.table_key[k].as_ptr() {
                same = false;
                key.reserve(self.key_fields.len());
                for g in &self.key_fields[..k] {
                    key.push(state.getattr(g.bind(py))?.unbind());
                }
            }
            if !same {
                key.push(value.unbind());
            }
        }
        if !same {
            let group: Vec<(String, Bound<'_, PyAny>)> =
                self.ask_table.bind(py).call1((parts, state))?.extract()?;
            let now = group
                .into_iter()
                .map(|(name, raw)| Ok((name, bytes_of(&raw, "table group")?.to_vec())))
                .collect::<PyResult<Vec<_>>>()?;
            if self.ticking.is_some() {
                for (name, raw) in &now {
                    let old = self.table.iter().find(|(n, _)| n == name).map(|(_, r)| r);
                    if old != Some(raw) {
                        push_op(ops, b"replace", format!("/{name}").as_bytes(), raw);
                    }
                }
            }
            self.table = now;
            self.table_key = key;
        }
        let ticking = (
            state.getattr(intern!(py, "seq"))?.extract::<i64>()?,
            state.getattr(intern!(py, "turn"))?.extract::<i64>()?,
            by,
        );
        if let Some((seq, turn, was_by)) = self.ticking {
            let mut raw = Vec::new();
            if ticking.0 != seq {
                push_int(&mut raw, ticking.0);
                push_op(ops, b"replace", b"/seq", &raw);
            }
            if ticking.1 != turn {
                raw.clear();
                push_int(&mut raw, ticking.1);
                push_op(ops, b"replace", b"/turn", &raw);
            }
            if ticking.2 != was_by {
                raw.clear();
                push_opt_int(&mut raw, ticking.2);
                push_op(ops, b"replace", b"/turn_by", &raw);
            }
        }
        self.ticking = Some(ticking);
        Ok(())
    }

    /// Each meld's view (`views.meld_view`), encoded, kept while its `TableMeld` and the
    /// okey are the same (a joker is named by the okey and what it stands for).
    fn melds_of(&mut self, melds: &Bound<'_, PyAny>, okey: i64) -> PyResult<Vec<Vec<u8>>> {
        let py = melds.py();
        if self.melds_key.as_ref().is_some_and(|(_, o, _)| *o != okey) {
            self.meld_views.clear();
        }
        let melds = melds
            .cast::<PyTuple>()
            .map_err(|_| PyValueError::new_err("melds: a tuple expected"))?;
        let mut out = Vec::with_capacity(melds.len());
        for (i, m) in melds.iter().enumerate() {
            if let Some(held) = self.meld_views.get(i) {
                if held.source.as_ptr() == m.as_ptr() {
                    out.push(held.raw.clone());
                    continue;
                }
            }
            let meld = m.getattr(intern!(py, "meld"))?;
            let mut raw = Vec::with_capacity(96);
            raw.extend_from_slice(b"{\"index\":");
            push_int(&mut raw, i as i64);
            raw.extend_from_slice(b",\"owner\":");
            push_int(&mut raw, m.getattr(intern!(py, "owner"))?.extract()?);
            raw.extend_from_slice(b",\"kind\":");
            let kind = meld.getattr(intern!(py, "kind"))?;
            push_str(&mut raw, kind.cast::<PyString>().map_err(|_| {
                PyValueError::new_err(format!("melds[{i}].kind: a string expected"))
            })?.to_str()?);
            raw.extend_from_slice(b",\"tiles\":[");
            let placed: Vec<(i64, i64)> = meld.getattr(intern!(py, "tiles"))?.extract()?;
            for (k, &(played, stands)) in placed.iter().enumerate() {
                if k > 0 {
                    raw.push(b',');
                }
                let name = self.tile(played, "meld tile")?;
                if played == okey && stands != okey {
                    // `melds.placed_name`: a joker as the okey and what it stands for
                    let stood = self.tile(stands, "meld tile")?;
                    raw.extend_from_slice(&name[..name.len() - 1]);
                    raw.push(b'=');
                    raw.extend_from_slice(&stood[1..]);
                } else {
                    raw.extend_from_slice(name);
                }
            }
            raw.extend_from_slice(b"],\"start\":");
            push_int(&mut raw, meld.getattr(intern!(py, "start"))?.extract()?);
            raw.extend_from_slice(b",\"laid_turn\":");
            push_int(&mut raw, m.getattr(intern!(py, "laid_turn"))?.extract()?);
            raw.push(b'}');
            let held = Held { source: m.unbind(), raw: raw.clone() };
            if i < self.meld_views.len() {
                self.meld_views[i] = held;
            } else {
                self.meld_views.push(held);
            }
            out.push(raw);
        }
        self.meld_views.truncate(out.len());
        Ok(out)
    }

    /// The bot flags a view shows (`views._bot_labels`), asked when the bots or the house moved.
    fn labels_of(&mut self, state: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = state.py();
        let bots = state.getattr(intern!(py, "bots"))?;
        let profile = state.getattr(intern!(py, "profile"))?;
        let same = self.labels_key.as_ref().is_some_and(|(b, p)| {
            b.as_ptr() == bots.as_ptr() && p.as_ptr() == profile.as_ptr()
        });
        if !same {
            let labels: Vec<bool> = self.ask_labels.bind(py).call1((state,))?.extract()?;
            if labels.len() < SEATS {
                return Err(PyValueError::new_err(format!("bots: {} seats", labels.len())));
            }
            self.labels = labels;
            self.labels_key = Some((bots.unbind(), profile.unbind()));
        }
        Ok(())
    }

    /// Each seat's opening thresholds (points, pairs), asked when the house or a seat's
    /// opening moved (they read only those).
    fn thresholds_of(
        &mut self,
        parts: &Bound<'_, PyAny>,
        state: &Bound<'_, PyAny>,
        hand_seats: &[Bound<'_, PyAny>],
    ) -> PyResult<()> {
        let py = state.py();
        let profile = state.getattr(intern!(py, "profile"))?;
        let mut same = self.thresholds_key.as_ref().is_some_and(|(p, _)| p.as_ptr() == profile.as_ptr());
        let mut openings = Vec::with_capacity(SEATS);
        for (i, h) in hand_seats.iter().enumerate() {
            let held = self.thresholds_key.as_ref().map(|(_, k)| &k[i]);
            if same && held.is_some_and(|(seat, _, _)| seat.as_ptr() == h.as_ptr()) {
                let (_, opened, value) = held.expect("just checked");
                openings.push((h.clone(), opened.bind(py).clone(), *value));
                continue; // the same `SeatHand`: the same opening
            }
            let opened = h.getattr(intern!(py, "opened"))?;
            let value = h.getattr(intern!(py, "opening_value"))?.extract::<i64>()?;
            same = same && held.is_some_and(|(_, o, v)| o.as_ptr() == opened.as_ptr() && *v == value);
            openings.push((h.clone(), opened, value));
        }
        if same {
            // no opening moved: the thresholds stand, keyed now by these seats
            let key = openings.into_iter().map(|(h, o, v)| (h.unbind(), o.unbind(), v)).collect();
            if let Some((_, k)) = self.thresholds_key.as_mut() {
                *k = key;
            }
        } else {
            let found: Vec<(i64, i64)> =
                self.ask_thresholds.bind(py).call1((parts, state))?.extract()?;
            if found.len() < SEATS {
                return Err(PyValueError::new_err(format!("thresholds: {} seats", found.len())));
            }
            self.thresholds = found;
            self.thresholds_key = Some((
                profile.unbind(),
                openings.into_iter().map(|(h, o, v)| (h.unbind(), o.unbind(), v)).collect(),
            ));
        }
        Ok(())
    }

    /// The hand's group from `hand` (None: no hand), and its operations since the update
    /// before into `ops` when `diffing`.
    #[allow(clippy::too_many_arguments)]
    fn hand_ops(
        &mut self,
        state: &Bound<'_, PyAny>,
        hand: Option<&Bound<'_, PyAny>>,
        hand_seats: &[Bound<'_, PyAny>],
        parts: &Bound<'_, PyAny>,
        top: Option<i64>,
        diffing: bool,
        ops: &mut Vec<Vec<u8>>,
    ) -> PyResult<()> {
        let Some(hand) = hand else {
            self.has_hand = false;
            return Ok(());
        };
        let py = state.py();
        self.fields_of(hand, top)?;
        let diffing = diffing && self.has_hand;
        if diffing {
            for ((path, now), old) in HAND_PATHS.iter().zip(&self.next).zip(&self.fields) {
                if now != old {
                    push_op(ops, b"replace", path, now);
                }
            }
        }
        std::mem::swap(&mut self.fields, &mut self.next);
        self.has_hand = true;
        let melds = hand.getattr(intern!(py, "melds"))?;
        let okey: i64 = hand.getattr(intern!(py, "okey"))?.extract()?;
        let indicator: i64 = hand.getattr(intern!(py, "indicator"))?.extract()?;
        let same = self.melds_key.as_ref().is_some_and(|(m, o, i)| {
            m.as_ptr() == melds.as_ptr() && *o == okey && *i == indicator
        });
        if !same {
            let now = self.melds_of(&melds, okey)?;
            if diffing {
                meld_ops(ops, &self.melds, &now);
            }
            self.melds = now;
            self.melds_key = Some((melds.unbind(), okey, indicator));
        }
        self.labels_of(state)?;
        self.thresholds_of(parts, state, hand_seats)?;
        let players = state.getattr(intern!(py, "players"))?;
        for (i, h) in hand_seats.iter().enumerate() {
            let (bot, needed) = (self.labels[i], self.thresholds[i]);
            let changed = self.seat_of(i, h, &players.get_item(i)?, bot, needed)?;
            if changed && diffing {
                let raw = &self.seats[i].as_ref().expect("just built").raw;
                push_op(ops, b"replace", format!("/hand/seats/{i}").as_bytes(), raw);
            }
        }
        Ok(())
    }
}

/// The events as `seat` may see them: each public one's encoding, or a private one's as
/// its owner (`own`) or anyone else (`others`) sees it, left out where None.
fn seen(out: &mut Vec<u8>, public: &[Option<Vec<u8>>], private: &[Private], seat: i64) {
    out.push(b'[');
    let mut first = true;
    for (p, q) in public.iter().zip(private) {
        let shown = match (p, q) {
            (Some(raw), _) => Some(raw),
            (None, Some((owner, own, others))) => {
                if *owner == seat {
                    own.as_ref()
                } else {
                    others.as_ref()
                }
            }
            (None, None) => None,
        };
        if let Some(raw) = shown {
            if !first {
                out.push(b',');
            }
            first = false;
            out.extend_from_slice(raw);
        }
    }
    out.push(b']');
}

#[pymethods]
impl TableChanges {
    /// `names`: each tile kind's name (`tiles.name`), by kind; `no_rules`: `NO_RULES`
    /// encoded; `keyframe`: `viewparts.KEYFRAME`; `view_fields`: `PlayerView`'s fields; `key_fields`: the state's fields the
    /// table's group reads. The callables, each asked only when what it reads moved:
    /// `labels(state)`, the bot flags a view shows; `thresholds(parts, state)`, each seat's
    /// (points, pairs); `table(parts, state)`, the table's group of fields, (field,
    /// encoded), but the ticking ones. `published(table_id, seat, version, record)`: what
    /// each record is returned as.
    #[new]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        names: Vec<String>,
        no_rules: Vec<u8>,
        keyframe: u32,
        view_fields: Vec<String>,
        key_fields: Vec<String>,
        labels: Py<PyAny>,
        thresholds: Py<PyAny>,
        table: Py<PyAny>,
        published: Py<PyAny>,
    ) -> PyResult<Self> {
        if names.len() != KINDS {
            return Err(PyValueError::new_err(format!("names: {} kinds, not {KINDS}", names.len())));
        }
        let names = names
            .iter()
            .map(|n| {
                let mut raw = Vec::new();
                push_str(&mut raw, n);
                raw
            })
            .collect();
        Ok(TableChanges {
            names,
            no_rules,
            keyframe,
            view_fields,
            key_fields: key_fields.iter().map(|f| PyString::intern(py, f).unbind()).collect(),
            table_key: Vec::new(),
            table: Vec::new(),
            ticking: None,
            hand_key: None,
            has_hand: false,
            fields: Vec::new(),
            next: Vec::new(),
            melds: Vec::new(),
            seats: (0..SEATS).map(|_| None).collect(),
            current: None,
            racks: (0..SEATS).map(|_| None).collect(),
            own: (0..=SEATS).map(|_| None).collect(),
            since: [0; SEATS + 1],
            table_id: None,
            record: Vec::with_capacity(4096),
            ask_labels: labels,
            ask_thresholds: thresholds,
            ask_table: table,
            published,
            meld_views: Vec::new(),
            labels_key: None,
            labels: Vec::new(),
            thresholds_key: None,
            thresholds: Vec::new(),
            melds_key: None,
        })
    }

    /// The records of one change of the table `state` (`TableParts.updates`), each as
    /// `published`, one for each of `seats`: a seat's whole view on its first update and
    /// every `keyframe`-th, else a patch from the view sent before. `parts`: what the callables are asked with;
    /// `previous`: the version of the update before; `turn_by`: the turn's deadline;
    /// `top`: the discard on offer; `rules`: (seat, its rules encoded) for the seats that
    /// have any; `public`/`private`: each event as every seat sees it, or (owner, as the
    /// owner sees it, as anyone else does), None where a seat sees nothing.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (parts, state, previous, turn_by, seats, top, rules, public, private))]
    fn changes<'py>(
        &mut self,
        py: Python<'py>,
        parts: &Bound<'py, PyAny>,
        state: &Bound<'py, PyAny>,
        previous: i64,
        turn_by: Option<i64>,
        seats: Vec<i64>,
        top: Option<i64>,
        rules: &Bound<'py, PyList>,
        public: &Bound<'py, PyList>,
        private: &Bound<'py, PyList>,
    ) -> PyResult<Bound<'py, PyList>> {
        if public.len() != private.len() {
            return Err(PyValueError::new_err("public, private: one for each event"));
        }
        for &seat in &seats {
            if !(-1..SEATS as i64).contains(&seat) {
                return Err(PyValueError::new_err(format!("seats: {seat} is not -1..3")));
            }
        }
        let maybe = |obj: Bound<'py, PyAny>, what: &str| -> PyResult<Option<Vec<u8>>> {
            if obj.is_none() {
                Ok(None)
            } else {
                Ok(Some(bytes_of(&obj, what)?.to_vec()))
            }
        };
        let public = public.iter().map(|p| maybe(p, "public")).collect::<PyResult<Vec<_>>>()?;
        let private = private
            .iter()
            .map(|q| -> PyResult<Private> {
                if q.is_none() {
                    return Ok(None);
                }
                let (owner, own, others): (i64, Bound<'py, PyAny>, Bound<'py, PyAny>) =
                    q.extract()?;
                Ok(Some((owner, maybe(own, "private")?, maybe(others, "private")?)))
            })
            .collect::<PyResult<Vec<_>>>()?;
        let mut seat_rules: Vec<(i64, Bound<'py, PyAny>)> = Vec::new();
        for item in rules.iter() {
            let (seat, raw): (i64, Bound<'py, PyAny>) = item.extract()?;
            bytes_of(&raw, "rules")?;
            seat_rules.push((seat, raw));
        }
        let patching: Vec<bool> = seats
            .iter()
            .map(|&s| {
                let k = (s + 1) as usize;
                self.own[k].is_some() && self.since[k] + 1 < self.keyframe
            })
            .collect();
        let any_patch = patching.iter().any(|&p| p);

        let mut ops: Vec<Vec<u8>> = Vec::with_capacity(16);
        self.table_ops(state, turn_by, parts, &mut ops)?;
        let hand_obj = state.getattr(intern!(py, "hand"))?;
        let hand = if hand_obj.is_none() { None } else { Some(&hand_obj) };
        let hand_key = match hand {
            Some(h) => Some((
                h.getattr(intern!(py, "number"))?.extract::<i64>()?,
                h.getattr(intern!(py, "attempt"))?.extract::<i64>()?,
            )),
            None => None,
        };
        let replaced = self.hand_key.is_some_and(|k| k != hand_key);
        let diffing = any_patch && !replaced && self.hand_key.is_some();
        self.hand_key = Some(hand_key);
        let mut hand_seats = Vec::with_capacity(SEATS);
        if let Some(h) = hand {
            let seats = h.getattr(intern!(py, "seats"))?;
            let seats = seats
                .cast::<PyTuple>()
                .map_err(|_| PyValueError::new_err("hand.seats: a tuple expected"))?;
            if seats.len() != SEATS {
                return Err(PyValueError::new_err(format!("hand: {} seats", seats.len())));
            }
            hand_seats.extend(seats.iter());
        }
        self.hand_ops(state, hand, &hand_seats, parts, top, diffing, &mut ops)?;
        let hand_raw =
            if replaced || patching.iter().any(|&p| !p) { self.hand_raw() } else { Vec::new() };
        if replaced && any_patch {
            // a new hand (or none): the whole hand replaced, and nothing of it patched
            push_op(&mut ops, b"replace", b"/hand", &hand_raw);
        }
        self.table_id_of(state)?;
        let table_id = self.table_id.as_ref().expect("just built").0.clone_ref(py);
        let version = self.ticking.expect("just built").0; // the seq the views show
        let bot_seats = state.getattr(intern!(py, "bots"))?;
        let levels = state.getattr(intern!(py, "bot_levels"))?;
        let mut everyone = Vec::new();
        let alike = private.iter().all(Option::is_none);
        if alike {
            seen(&mut everyone, &public, &private, -1);
        }
        let out = PyList::empty(py);
        let mut rec = std::mem::take(&mut self.record);
        let no_rules = self.no_rules.clone();
        for (k, &seat) in seats.iter().enumerate() {
            let slot = (seat + 1) as usize;
            let rules_raw = match seat_rules.iter().find(|(s, _)| *s == seat) {
                Some((_, raw)) => bytes_of(raw, "rules")?,
                None => &no_rules[..],
            };
            let (bot, level): (bool, Option<i64>) = if seat >= 0 {
                let bot: bool = bot_seats.get_item(seat as usize)?.extract()?;
                (bot, if bot { levels.get_item(seat as usize)?.extract()? } else { None })
            } else {
                (false, None)
            };
            rec.clear();
            rec.extend_from_slice(if patching[k] {
                b"{\"kind\":\"patch\",\"v\":2,\"table_id\":"
            } else {
                b"{\"kind\":\"view\",\"v\":2,\"table_id\":"
            });
            rec.extend_from_slice(&self.table_id.as_ref().expect("just built").1);
            rec.extend_from_slice(b",\"seat\":");
            push_int(&mut rec, seat);
            rec.extend_from_slice(b",\"version\":");
            push_int(&mut rec, version);
            rec.extend_from_slice(b",\"previous\":");
            push_int(&mut rec, previous);
            rec.extend_from_slice(b",\"events\":");
            if alike {
                rec.extend_from_slice(&everyone);
            } else {
                seen(&mut rec, &public, &private, seat);
            }
            let rack = self.rack_of(&hand_seats, seat)?.to_vec();
            if patching[k] {
                let was = self.own[slot].as_mut().expect("a patching seat was sent");
                let mut mine: Vec<Vec<u8>> = Vec::new();
                if rack != was.rack {
                    push_op(&mut mine, b"replace", b"/rack", &rack);
                    was.rack = rack;
                }
                if rules_raw != was.rules.as_slice() {
                    push_op(&mut mine, b"replace", b"/rules", rules_raw);
                    was.rules = rules_raw.to_vec();
                }
                rec.extend_from_slice(b",\"patch\":");
                push_list(&mut rec, ops.iter().chain(&mine).map(Vec::as_slice));
                self.since[slot] += 1;
            } else {
                rec.extend_from_slice(b",\"view\":");
                self.view_raw(&mut rec, seat, &rack, rules_raw, &hand_raw);
                self.own[slot] = Some(Own { rack, rules: rules_raw.to_vec() });
                self.since[slot] = 0;
            }
            rec.extend_from_slice(b",\"bot\":");
            push_bool(&mut rec, bot);
            rec.extend_from_slice(b",\"bot_level\":");
            push_opt_int(&mut rec, level);
            rec.push(b'}');
            out.append(self.published.bind(py).call1((
                &table_id,
                seat,
                version,
                PyBytes::new(py, &rec),
            ))?)?;
        }
        self.record = rec;
        // a seat not among these is sent its whole view when it is again
        for slot in 0..=SEATS {
            if !seats.iter().any(|&s| (s + 1) as usize == slot) {
                self.own[slot] = None;
            }
        }
        Ok(out)
    }
}

/// `viewparts._meld_ops`: the melds changed replaced, those laid since appended; the whole
/// list replaced when it is shorter than before.
fn meld_ops(ops: &mut Vec<Vec<u8>>, was: &[Vec<u8>], now: &[Vec<u8>]) {
    if now.len() < was.len() {
        let mut all = Vec::new();
        push_list(&mut all, now.iter().map(Vec::as_slice));
        push_op(ops, b"replace", b"/hand/melds", &all);
        return;
    }
    for (i, (raw, old)) in now.iter().zip(was).enumerate() {
        if raw != old {
            push_op(ops, b"replace", format!("/hand/melds/{i}").as_bytes(), raw);
        }
    }
    for raw in &now[was.len()..] {
        push_op(ops, b"add", b"/hand/melds/-", raw);
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<TableChanges>()?;
    Ok(())
}
