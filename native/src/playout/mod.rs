//! The native hand simulator: a hand packed by `okey101.native_table.pack_hand`, played
//! command by command (draw, take_discard, put_back, discard) to its end by an exhausted
//! deck, scored as `okey101/scoring.py` scores it. The Python engine
//! (`okey101/table/decide.py`, `evolve.py`, `rules/`) is the specification;
//! `tests/properties/test_native_playout.py` checks this against it. Whatever this does
//! not model raises `NotImplementedError` naming it, so a caller falls back to Python:
//! never a silent wrong answer. Bad input (a tile that is none, a seat outside 0-3, a
//! state that does not hold together) raises `ValueError`/`TypeError`/`OverflowError`.
mod score;

use pyo3::exceptions::{PyNotImplementedError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use score::{hand_scores, Finish, NoneOpened};

pub(crate) const SEATS: usize = 4;
const DRAW: u8 = 0;
const PLAY: u8 = 1;
const OVER: u8 = 2;
pub(crate) const FAKE: u8 = 52;

// how a seat opened (`SeatHand.opened`)
pub(crate) const NONE: u8 = 0;
pub(crate) const POINTS: u8 = 1;
pub(crate) const PAIRS: u8 = 2;

// a meld's kind
const RUN: u8 = 0;
const GROUP: u8 = 1;
const PAIR: u8 = 2;

/// The profile's fields this reads, by their `okey101.profiles.Profile` names (the
/// packing passes the profile as a dict; other keys are ignored).
#[derive(FromPyObject, Clone, Debug)]
#[pyo3(from_item_all)]
pub(crate) struct Options {
    game: String,
    put_back_allowed: bool,
    opened_take_must_use: bool,
    discarded_okey_takeable: bool,
    run_wraps_13_to_1: bool,
    deck_exhausted_none_opened: String,
    penalties: bool,
    playable_discard_penalty: i32,
    okey_discard_penalty: i32,
    void_when_all_open_pairs: bool,
    finish_score: i32,
    finisher_doubled_for_pairs: bool,
    elden_finisher_multiplier: i32,
    elden_others_multiplier: i32,
    multiplier_cap: i32,
    unopened_score: i32,
    okey_in_rack_value: i32,
    okey_in_rack_multiplied: bool,
    pairs_rack_multiplier: i32,
    countdown_finish_cost: i32,
    partners: bool,
    partner_of_finisher_scores_zero: bool,
}

/// The options with their words read.
#[derive(Clone, Debug)]
pub(crate) struct Rules {
    o: Options,
    duz: bool,
    none_opened: NoneOpened,
}

impl Rules {
    fn new(o: Options) -> PyResult<Self> {
        let duz = match o.game.as_str() {
            "101" => false,
            "duz" => true,
            g => return Err(PyValueError::new_err(format!("game {g:?}: not 101 or duz"))),
        };
        let none_opened = match o.deck_exhausted_none_opened.as_str() {
            "score_racks" => NoneOpened::ScoreRacks,
            "nobody_scores" => NoneOpened::NobodyScores,
            "replay" => NoneOpened::Replay,
            w => {
                return Err(PyValueError::new_err(format!(
                    "deck_exhausted_none_opened {w:?}"
                )))
            }
        };
        Ok(Rules {
            o,
            duz,
            none_opened,
        })
    }
}

/// One seat of the packed hand (`SeatHand`).
#[derive(FromPyObject, Clone, Debug)]
#[pyo3(from_item_all)]
struct SeatIn {
    rack: Vec<u8>,
    discards: Vec<u8>,
    opened: Option<String>,
    opened_turn: i64,
    opening_value: i32,
    declared_pairs: bool,
    shown_indicator: bool,
    has_played: bool,
    penalties: i32,
    elden_opening: bool,
    siler: bool,
}

/// A meld on the table (`TableMeld`): its tiles as (played, stands for).
#[derive(FromPyObject, Clone, Debug)]
#[pyo3(from_item_all)]
struct MeldIn {
    kind: String,
    tiles: Vec<(u8, u8)>,
    start: i32,
    owner: usize,
    laid_turn: i64,
}

/// The packed hand (`HandState`, its `TurnScratch` and the table's penalties).
#[derive(FromPyObject, Clone, Debug)]
#[pyo3(from_item_all)]
struct HandIn {
    okey: u8,
    indicator: u8,
    deck: Vec<u8>,
    deck_pos: usize,
    seats: Vec<SeatIn>,
    melds: Vec<MeldIn>,
    to_act: usize,
    phase: String,
    turn: i64,
    taken: Option<u8>,
    taken_from: i64,
    laid: Vec<u8>,
    lay_offs: i32,
    laid_off: bool,
    end_counts: Vec<(usize, String, i32)>,
    put_back: bool,
    penalties: Vec<i32>,
}

#[derive(Clone, Debug)]
struct Seat {
    rack: Vec<u8>,
    discards: Vec<u8>,
    opened: u8,
    opened_turn: i64,
    opening_value: i32,
    declared_pairs: bool,
    shown_indicator: bool,
    has_played: bool,
    penalties: i32,
    elden_opening: bool,
    siler: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct TableMeld {
    kind: u8,
    tiles: Vec<(u8, u8)>,
    start: i32,
    owner: usize,
    laid_turn: i64,
}

impl TableMeld {
    /// `melds.extension_positions` is not empty: a run has room at an end.
    fn has_run_room(&self, wraps: bool) -> bool {
        let end = self.start + self.tiles.len() as i32 - 1;
        self.kind == RUN && (self.start > 1 || end < if wraps { 14 } else { 13 })
    }

    /// `melds.missing_colours` is not empty.
    fn misses_a_colour(&self) -> bool {
        self.kind == GROUP && (0..4).any(|c| self.tiles.iter().all(|&(_, s)| s / 13 != c))
    }
}

/// `melds.is_playable`: could `tile` be laid off onto a run or group on the table?
fn is_playable(tile: u8, melds: &[TableMeld], okey: u8, wraps: bool) -> bool {
    if tile == okey {
        return melds
            .iter()
            .any(|m| m.has_run_room(wraps) || m.misses_a_colour());
    }
    let stands = if tile == FAKE { okey } else { tile };
    let (colour, number) = (stands / 13, i32::from(stands % 13) + 1);
    let top = if wraps { 14 } else { 13 };
    melds.iter().any(|m| match m.kind {
        RUN => {
            let (low, high) = (m.start - 1, m.start + m.tiles.len() as i32);
            m.tiles[0].1 / 13 == colour
                && ((low >= 1 && low == number)
                    || (high <= top && (high == number || (high == 14 && number == 1))))
        }
        GROUP => {
            m.tiles.len() < 4
                && i32::from(m.tiles[0].1 % 13) + 1 == number
                && m.tiles.iter().all(|&(_, s)| s / 13 != colour)
        }
        _ => false,
    })
}

/// One hand in play: the fields of `HandState`, `SeatHand` and `TurnScratch`.
#[pyclass(module = "okey101_native", from_py_object)]
#[derive(Clone, Debug)]
pub struct HandSim {
    rules: Rules,
    okey: u8,
    #[allow(dead_code)] // a shown indicator's pairs joker: read by the opening, not native yet
    indicator: u8,
    deck: Vec<u8>,
    deck_pos: usize,
    seats: [Seat; SEATS],
    melds: Vec<TableMeld>,
    penalties: [i32; SEATS], // TableState.penalties
    to_act: usize,
    phase: u8,
    turn: i64,
    // TurnScratch
    taken: Option<u8>,
    taken_from: i64,
    laid: Vec<u8>,
    lay_offs: i32,
    laid_off: bool,
    end_counts: Vec<(usize, u8, i32)>,
    put_back: bool,
    // the hand's end
    finish: Option<Finish>,
    finished_by: Option<usize>,
    scores: Option<([i32; SEATS], bool)>,
}

type Rejected = Option<&'static str>;

fn refuse(what: &str) -> PyErr {
    PyNotImplementedError::new_err(format!("native playout: {what} is not native yet"))
}

fn bad(what: String) -> PyErr {
    PyValueError::new_err(what)
}

fn check_tiles(tiles: &[u8], what: &str) -> PyResult<()> {
    match tiles.iter().position(|&t| t > FAKE) {
        Some(i) => Err(bad(format!("{what}[{i}]: {} is no tile", tiles[i]))),
        None => Ok(()),
    }
}

const END_NAMES: [&str; 3] = ["low", "high", "group"];

fn end_of(word: &str) -> PyResult<u8> {
    END_NAMES
        .iter()
        .position(|&e| e == word)
        .map(|i| i as u8)
        .ok_or_else(|| bad(format!("end {word:?}: not low, high or group")))
}

fn kind_of(word: &str) -> PyResult<u8> {
    match word {
        "run" => Ok(RUN),
        "group" => Ok(GROUP),
        "pair" => Ok(PAIR),
        _ => Err(bad(format!("meld kind {word:?}: not run, group or pair"))),
    }
}

fn opened_of(word: Option<&str>) -> PyResult<u8> {
    match word {
        None => Ok(NONE),
        Some("points") => Ok(POINTS),
        Some("pairs") => Ok(PAIRS),
        Some(w) => Err(bad(format!("opened {w:?}: not points, pairs or None"))),
    }
}

fn opened_name(kind: u8) -> Option<&'static str> {
    match kind {
        POINTS => Some("points"),
        PAIRS => Some("pairs"),
        _ => None,
    }
}

impl HandSim {
    fn from_packed(rules: Rules, h: HandIn) -> PyResult<Self> {
        check_tiles(&h.deck, "deck")?;
        check_tiles(&[h.okey, h.indicator], "okey and indicator")?;
        if h.okey == FAKE || h.indicator == FAKE {
            return Err(bad("a fake okey is neither okey nor indicator".into()));
        }
        let phase = match h.phase.as_str() {
            "draw" => DRAW,
            "play" => PLAY,
            "over" => OVER,
            p => return Err(bad(format!("phase {p:?}"))),
        };
        if h.deck_pos > h.deck.len() || h.to_act >= SEATS {
            return Err(bad(format!(
                "deck_pos {} of {}, to_act {}: out of range",
                h.deck_pos,
                h.deck.len(),
                h.to_act
            )));
        }
        let n = h.seats.len();
        let mut seats = Vec::with_capacity(SEATS);
        for (i, s) in h.seats.into_iter().enumerate() {
            check_tiles(&s.rack, &format!("seats[{i}].rack"))?;
            check_tiles(&s.discards, &format!("seats[{i}].discards"))?;
            seats.push(Seat {
                rack: s.rack,
                discards: s.discards,
                opened: opened_of(s.opened.as_deref())?,
                opened_turn: s.opened_turn,
                opening_value: s.opening_value,
                declared_pairs: s.declared_pairs,
                shown_indicator: s.shown_indicator,
                has_played: s.has_played,
                penalties: s.penalties,
                elden_opening: s.elden_opening,
                siler: s.siler,
            });
        }
        let seats: [Seat; SEATS] = seats
            .try_into()
            .map_err(|_| bad(format!("seats: {n}, not 4")))?;
        let mut melds = Vec::with_capacity(h.melds.len());
        for (i, m) in h.melds.into_iter().enumerate() {
            let kind = kind_of(&m.kind)?;
            for &(played, stands) in &m.tiles {
                check_tiles(&[played, stands], &format!("melds[{i}].tiles"))?;
            }
            if m.tiles.is_empty() || m.owner >= SEATS {
                return Err(bad(format!(
                    "melds[{i}]: {} tiles, owner {}",
                    m.tiles.len(),
                    m.owner
                )));
            }
            melds.push(TableMeld {
                kind,
                tiles: m.tiles,
                start: m.start,
                owner: m.owner,
                laid_turn: m.laid_turn,
            });
        }
        if let Some(t) = h.taken {
            check_tiles(&[t], "taken")?;
        }
        check_tiles(&h.laid, "laid")?;
        let mut end_counts = Vec::with_capacity(h.end_counts.len());
        for (meld, end, count) in h.end_counts {
            end_counts.push((meld, end_of(&end)?, count));
        }
        let penalties: [i32; SEATS] = h
            .penalties
            .try_into()
            .map_err(|v: Vec<i32>| bad(format!("penalties: {} seats, not 4", v.len())))?;
        Ok(HandSim {
            rules,
            okey: h.okey,
            indicator: h.indicator,
            deck: h.deck,
            deck_pos: h.deck_pos,
            seats,
            melds,
            penalties,
            to_act: h.to_act,
            phase,
            turn: h.turn,
            taken: h.taken,
            taken_from: h.taken_from,
            laid: h.laid,
            lay_offs: h.lay_offs,
            laid_off: h.laid_off,
            end_counts,
            put_back: h.put_back,
            finish: None,
            finished_by: None,
            scores: None,
        })
    }

    /// `rules.check_turn`: the seat is to act, in `phase`.
    fn check_turn(&self, seat: usize, phase: u8) -> Rejected {
        if self.phase == OVER {
            return Some("hand_over");
        }
        if self.to_act != seat {
            return Some("not_your_turn");
        }
        if self.phase != phase {
            return Some("wrong_phase");
        }
        None
    }

    fn seat(seat: i64) -> PyResult<usize> {
        usize::try_from(seat)
            .ok()
            .filter(|&s| s < SEATS)
            .ok_or_else(|| bad(format!("seat {seat}: the seats are 0-3")))
    }

    /// `rules.owed_take`'s rejection, for the seat to act in play.
    fn owed_take(&self) -> Rejected {
        let taken = self.taken?;
        if self.rules.duz {
            return None;
        }
        if self.seats[self.to_act].opened == NONE {
            return Some("must_open_with_taken_tile");
        }
        if self.rules.o.opened_take_must_use && !self.laid.contains(&taken) {
            return Some("taken_tile_not_used");
        }
        None
    }

    /// `rules.discard_penalty` for a discard that is not the finishing one.
    fn discard_penalty(&self, tile: u8) -> i32 {
        let o = &self.rules.o;
        if !o.penalties {
            return 0;
        }
        if tile == self.okey {
            return o.okey_discard_penalty;
        }
        if o.playable_discard_penalty != 0
            && is_playable(tile, &self.melds, self.okey, o.run_wraps_13_to_1)
        {
            return o.playable_discard_penalty;
        }
        0
    }

    fn new_turn(&mut self) {
        self.taken = None;
        self.taken_from = -1;
        self.laid.clear();
        self.lay_offs = 0;
        self.laid_off = false;
        self.end_counts.clear();
        self.put_back = false;
    }

    /// `PenaltyImposed`'s fold.
    fn penalise(&mut self, seat: usize, points: i32) {
        self.penalties[seat] += points;
        self.seats[seat].penalties += points;
    }

    /// `decide._end_hand`'s scoring, before anything of the hand changes: the scores, or
    /// the code the Python rejects the whole command with.
    fn scores_of(
        &self,
        finisher: Option<usize>,
        finish: Finish,
    ) -> Result<([i32; SEATS], bool), &'static str> {
        let opened = [0, 1, 2, 3].map(|i| self.seats[i].opened);
        let racks: [&[u8]; SEATS] = [0, 1, 2, 3].map(|i| self.seats[i].rack.as_slice());
        hand_scores(&self.rules, self.okey, finisher, finish, &opened, &racks)
    }

    /// `HandEnded`'s fold: the hand is over, with its scores (the next deal is not
    /// modelled: the simulator holds one hand).
    fn end_hand(&mut self, finisher: Option<usize>, finish: Finish, scores: ([i32; SEATS], bool)) {
        self.phase = OVER;
        self.finish = Some(finish);
        self.finished_by = finisher;
        self.scores = Some(scores);
    }
}

#[pymethods]
impl HandSim {
    /// `options`: the profile as a dict (`msgspec.structs.asdict`); `hand`: the packed
    /// hand (`okey101.native_table.pack_hand` gives its keys).
    #[new]
    fn new(options: Options, hand: HandIn) -> PyResult<Self> {
        HandSim::from_packed(Rules::new(options)?, hand)
    }

    /// Draw from the deck: None when accepted, else the rejection's code. An empty deck
    /// ends the hand (`deck_exhausted`).
    fn draw(&mut self, seat: i64) -> PyResult<Rejected> {
        let seat = Self::seat(seat)?;
        if let Some(code) = self.check_turn(seat, DRAW) {
            return Ok(Some(code));
        }
        if self.deck_pos == self.deck.len() {
            return match self.scores_of(None, Finish::DeckExhausted) {
                Ok(scores) => {
                    self.end_hand(None, Finish::DeckExhausted, scores);
                    Ok(None)
                }
                Err(code) => Ok(Some(code)),
            };
        }
        self.seats[seat].rack.push(self.deck[self.deck_pos]);
        self.deck_pos += 1;
        self.seats[seat].has_played = true;
        self.phase = PLAY;
        Ok(None)
    }

    /// Take the previous seat's last discard.
    fn take_discard(&mut self, seat: i64) -> PyResult<Rejected> {
        let seat = Self::seat(seat)?;
        if let Some(code) = self.check_turn(seat, DRAW) {
            return Ok(Some(code));
        }
        let source = (seat + SEATS - 1) % SEATS;
        let Some(&tile) = self.seats[source].discards.last() else {
            return Ok(Some("no_discard"));
        };
        if self.put_back {
            return Ok(Some("put_back_must_draw"));
        }
        let o = &self.rules.o;
        if tile == self.okey && !o.discarded_okey_takeable {
            return Ok(Some("okey_discard_untakeable"));
        }
        if !self.rules.duz {
            let opened = self.seats[seat].opened != NONE;
            if !opened && !o.put_back_allowed {
                return Err(refuse("take_discard's can_open_with (the solver)"));
            }
            if opened && o.opened_take_must_use {
                return Err(refuse("take_discard's can_use (opened_take_must_use)"));
            }
        }
        self.seats[source].discards.pop();
        self.seats[seat].rack.push(tile);
        self.seats[seat].has_played = true;
        self.taken = Some(tile);
        self.taken_from = source as i64;
        self.phase = PLAY;
        Ok(None)
    }

    /// Put the taken discard back on its pile; the turn then draws from the deck.
    fn put_back(&mut self, seat: i64) -> PyResult<Rejected> {
        let seat = Self::seat(seat)?;
        if let Some(code) = self.check_turn(seat, PLAY) {
            return Ok(Some(code));
        }
        if !self.rules.o.put_back_allowed {
            return Ok(Some("put_back_not_allowed"));
        }
        let Some(tile) = self.taken else {
            return Ok(Some("nothing_to_put_back"));
        };
        if !self.laid.is_empty() {
            return Ok(Some("already_laid"));
        }
        let source = usize::try_from(self.taken_from)
            .ok()
            .filter(|&s| s < SEATS)
            .ok_or_else(|| bad(format!("taken_from {}", self.taken_from)))?;
        let Some(at) = self.seats[seat].rack.iter().position(|&t| t == tile) else {
            return Err(bad(format!("seat {seat}: the taken tile left the rack")));
        };
        self.seats[seat].rack.remove(at);
        self.seats[source].discards.push(tile);
        self.phase = DRAW;
        self.new_turn();
        self.put_back = true;
        Ok(None)
    }

    /// Discard `tile`, with the house's penalty; the turn passes on.
    fn discard(&mut self, seat: i64, tile: i64) -> PyResult<Rejected> {
        let seat = Self::seat(seat)?;
        let tile = u8::try_from(tile)
            .ok()
            .filter(|&t| t <= FAKE)
            .ok_or_else(|| bad(format!("discard: {tile} is no tile")))?;
        if let Some(code) = self.check_turn(seat, PLAY) {
            return Ok(Some(code));
        }
        let Some(at) = self.seats[seat].rack.iter().position(|&t| t == tile) else {
            return Ok(Some("tile_not_in_rack"));
        };
        if let Some(code) = self.owed_take() {
            return Ok(Some(code));
        }
        if self.seats[seat].rack.len() == 1 {
            return Err(refuse(
                "the finishing discard (the hand's end and its scoring)",
            ));
        }
        let penalty = self.discard_penalty(tile);
        let me = &mut self.seats[seat];
        me.rack.remove(at);
        me.discards.push(tile);
        me.has_played = true;
        self.to_act = (seat + 1) % SEATS;
        self.phase = DRAW;
        self.new_turn();
        self.turn += 1;
        if penalty != 0 {
            self.penalise(seat, penalty);
        }
        Ok(None)
    }

    /// The hand's end: None while it is played, else (finish, finished_by, scores,
    /// replay) as the Python `HandEnded` event carries them.
    #[allow(clippy::type_complexity)]
    fn scores(&self) -> Option<(&'static str, Option<usize>, Vec<i32>, bool)> {
        let (scores, replay) = self.scores?;
        Some((
            self.finish?.name(),
            self.finished_by,
            scores.to_vec(),
            replay,
        ))
    }

    /// What the differential test compares, keyed as `okey101.native_table.observed`.
    fn observed<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        // u32, not u8: PyO3 gives a Vec<u8> to Python as bytes
        let ints = |tiles: &[u8]| -> Vec<u32> { tiles.iter().map(|&t| u32::from(t)).collect() };
        d.set_item(
            "racks",
            self.seats.iter().map(|s| ints(&s.rack)).collect::<Vec<_>>(),
        )?;
        d.set_item(
            "discards",
            self.seats
                .iter()
                .map(|s| ints(&s.discards))
                .collect::<Vec<_>>(),
        )?;
        d.set_item("deck_pos", self.deck_pos)?;
        d.set_item("to_act", self.to_act)?;
        d.set_item("phase", ["draw", "play", "over"][self.phase as usize])?;
        d.set_item("turn", self.turn)?;
        d.set_item("taken", self.taken)?;
        d.set_item("taken_from", self.taken_from)?;
        d.set_item("laid", ints(&self.laid))?;
        d.set_item("lay_offs", self.lay_offs)?;
        d.set_item("laid_off", self.laid_off)?;
        d.set_item(
            "end_counts",
            self.end_counts
                .iter()
                .map(|&(m, e, n)| (m, END_NAMES[e as usize], n))
                .collect::<Vec<_>>(),
        )?;
        d.set_item("put_back", self.put_back)?;
        d.set_item(
            "has_played",
            self.seats.iter().map(|s| s.has_played).collect::<Vec<_>>(),
        )?;
        d.set_item(
            "hand_penalties",
            self.seats.iter().map(|s| s.penalties).collect::<Vec<_>>(),
        )?;
        d.set_item("penalties", self.penalties.to_vec())?;
        d.set_item(
            "opened",
            self.seats
                .iter()
                .map(|s| opened_name(s.opened))
                .collect::<Vec<_>>(),
        )?;
        d.set_item(
            "opened_turn",
            self.seats.iter().map(|s| s.opened_turn).collect::<Vec<_>>(),
        )?;
        d.set_item(
            "opening_value",
            self.seats
                .iter()
                .map(|s| s.opening_value)
                .collect::<Vec<_>>(),
        )?;
        d.set_item(
            "elden_opening",
            self.seats
                .iter()
                .map(|s| s.elden_opening)
                .collect::<Vec<_>>(),
        )?;
        d.set_item(
            "siler",
            self.seats.iter().map(|s| s.siler).collect::<Vec<_>>(),
        )?;
        d.set_item(
            "declared_pairs",
            self.seats
                .iter()
                .map(|s| s.declared_pairs)
                .collect::<Vec<_>>(),
        )?;
        d.set_item(
            "shown_indicator",
            self.seats
                .iter()
                .map(|s| s.shown_indicator)
                .collect::<Vec<_>>(),
        )?;
        d.set_item(
            "melds",
            self.melds
                .iter()
                .map(|m| {
                    (
                        ["run", "group", "pair"][m.kind as usize],
                        m.tiles
                            .iter()
                            .map(|&(p, s)| (u32::from(p), u32::from(s)))
                            .collect::<Vec<_>>(),
                        m.start,
                        m.owner,
                        m.laid_turn,
                    )
                })
                .collect::<Vec<_>>(),
        )?;
        d.set_item("finish", self.finish.map(Finish::name))?;
        d.set_item("finished_by", self.finished_by)?;
        Ok(d)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<HandSim>()?;
    Ok(())
}
