//! The native hand simulator, first slice: the turn's draw and discard commands (draw,
//! take_discard, put_back, discard, with the okey and playable-discard penalties) on a hand packed by `okey101.native_table.pack_hand`.
//! The Python engine (`okey101/table/decide.py`, `evolve.py`, `rules/`) is the
//! specification; `tests/properties/test_native_playout.py` checks this against it.
//! Whatever this slice does not model (the solver's take checks, the hand's end and its
//! scoring) raises `NotImplementedError` naming
//! it, so a caller falls back to Python: never a silent wrong answer.
use pyo3::exceptions::{PyNotImplementedError, PyValueError};
use pyo3::prelude::*;

const SEATS: usize = 4;
const DRAW: u8 = 0;
const PLAY: u8 = 1;
const OVER: u8 = 2;

/// The profile's options this slice reads (`okey101.profiles.Profile`).
#[derive(Clone, Debug)]
struct Options {
    duz: bool,
    put_back_allowed: bool,
    discarded_okey_takeable: bool,
    opened_take_must_use: bool,
    penalties: bool,
    okey_discard_penalty: i32,
    playable_discard_penalty: i32,
    wraps: bool, // run_wraps_13_to_1
}

const RUN: u8 = 0;
const GROUP: u8 = 1;
const FAKE: u8 = 52;

/// A meld on the table as the discard penalty reads it: its kind (0 run, 1 group, 2 pair),
/// a run's first position (1..14) and the tile each of its tiles stands for.
#[derive(Clone, Debug)]
struct TableMeld {
    kind: u8,
    start: i32,
    stands: Vec<u8>,
}

impl TableMeld {
    /// `melds.extension_positions` is not empty: a run has room at an end.
    fn has_run_room(&self, wraps: bool) -> bool {
        let end = self.start + self.stands.len() as i32 - 1;
        self.kind == RUN && (self.start > 1 || end < if wraps { 14 } else { 13 })
    }

    /// `melds.missing_colours` is not empty.
    fn misses_a_colour(&self) -> bool {
        if self.kind != GROUP {
            return false;
        }
        (0..4).any(|c| self.stands.iter().all(|&s| s / 13 != c))
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
            let (low, high) = (m.start - 1, m.start + m.stands.len() as i32);
            m.stands[0] / 13 == colour
                && ((low >= 1 && low == number)
                    || (high <= top && (high == number || (high == 14 && number == 1))))
        }
        GROUP => {
            m.stands.len() < 4
                && i32::from(m.stands[0] % 13) + 1 == number
                && m.stands.iter().all(|&s| s / 13 != colour)
        }
        _ => false,
    })
}

/// One hand in play: the fields of `HandState`, `SeatHand` and `TurnScratch` the turn's
/// draw and discard read or change.
#[pyclass(module = "okey101_native", from_py_object)]
#[derive(Clone, Debug)]
pub struct HandSim {
    options: Options,
    okey: u8,
    deck: Vec<u8>,
    deck_pos: usize,
    racks: [Vec<u8>; SEATS],
    discards: [Vec<u8>; SEATS],
    opened: [bool; SEATS],
    has_played: [bool; SEATS],
    hand_penalties: [i32; SEATS], // SeatHand.penalties
    penalties: [i32; SEATS],      // TableState.penalties
    to_act: usize,
    phase: u8,
    turn: i64,
    taken: Option<u8>,
    taken_from: i64,
    taken_laid: bool, // the taken tile is among the tiles laid this turn
    laid_any: bool,
    put_back: bool,
    table_melds: Vec<TableMeld>,
}

type Rejected = Option<&'static str>;

fn refuse(what: &str) -> PyErr {
    PyNotImplementedError::new_err(format!("native playout: {what} is not native yet"))
}

fn seats_of<T: Clone>(items: Vec<T>, what: &str) -> PyResult<[T; SEATS]> {
    items
        .try_into()
        .map_err(|v: Vec<T>| PyValueError::new_err(format!("{what}: {} seats, not 4", v.len())))
}

fn check_tiles(tiles: &[u8], what: &str) -> PyResult<()> {
    match tiles.iter().position(|&t| t > 52) {
        Some(i) => Err(PyValueError::new_err(format!(
            "{what}[{i}]: {} is no tile",
            tiles[i]
        ))),
        None => Ok(()),
    }
}

impl HandSim {
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
            .ok_or_else(|| refuse(&format!("seat {seat} (the envelope's checks)")))
    }

    /// `rules.owed_take`'s rejection, for the seat to act in play.
    fn owed_take(&self) -> Rejected {
        if self.taken.is_none() || self.options.duz {
            return None;
        }
        if !self.opened[self.to_act] {
            return Some("must_open_with_taken_tile");
        }
        if self.options.opened_take_must_use && !self.taken_laid {
            return Some("taken_tile_not_used");
        }
        None
    }

    /// `rules.discard_penalty` for a discard that is not the finishing one.
    fn discard_penalty(&self, tile: u8) -> PyResult<i32> {
        let o = &self.options;
        if !o.penalties {
            return Ok(0);
        }
        if tile == self.okey {
            return Ok(o.okey_discard_penalty);
        }
        if o.playable_discard_penalty != 0
            && is_playable(tile, &self.table_melds, self.okey, o.wraps)
        {
            return Ok(o.playable_discard_penalty);
        }
        Ok(0)
    }

    fn new_turn(&mut self) {
        self.taken = None;
        self.taken_from = -1;
        self.taken_laid = false;
        self.laid_any = false;
        self.put_back = false;
    }
}

#[pymethods]
impl HandSim {
    /// The packed hand (`okey101.native_table.pack_hand` gives the order and meaning).
    #[new]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (options, okey, deck, deck_pos, racks, discards, opened, has_played,
                        hand_penalties, penalties, to_act, phase, turn, taken, taken_from,
                        taken_laid, laid_any, put_back, table_melds))]
    fn new(
        options: (bool, bool, bool, bool, bool, i32, i32, bool),
        okey: u8,
        deck: Vec<u8>,
        deck_pos: usize,
        racks: Vec<Vec<u8>>,
        discards: Vec<Vec<u8>>,
        opened: Vec<bool>,
        has_played: Vec<bool>,
        hand_penalties: Vec<i32>,
        penalties: Vec<i32>,
        to_act: usize,
        phase: u8,
        turn: i64,
        taken: Option<u8>,
        taken_from: i64,
        taken_laid: bool,
        laid_any: bool,
        put_back: bool,
        table_melds: Vec<(u8, i32, Vec<u8>)>,
    ) -> PyResult<Self> {
        check_tiles(&deck, "deck")?;
        for (i, r) in racks.iter().chain(discards.iter()).enumerate() {
            check_tiles(r, &format!("racks and discards[{i}]"))?;
        }
        if deck_pos > deck.len() || to_act >= SEATS || phase > OVER {
            return Err(PyValueError::new_err(format!(
                "deck_pos {deck_pos} of {}, to_act {to_act}, phase {phase}: out of range",
                deck.len()
            )));
        }
        let (
            duz,
            put_back_allowed,
            discarded_okey_takeable,
            opened_take_must_use,
            pen,
            okd,
            pld,
            wraps,
        ) = options;
        let mut melds = Vec::with_capacity(table_melds.len());
        for (i, (kind, start, stands)) in table_melds.into_iter().enumerate() {
            check_tiles(&stands, &format!("table_melds[{i}]"))?;
            if kind > 2 || stands.is_empty() {
                return Err(PyValueError::new_err(format!(
                    "table_melds[{i}]: kind {kind}, {} tiles",
                    stands.len()
                )));
            }
            melds.push(TableMeld {
                kind,
                start,
                stands,
            });
        }
        Ok(HandSim {
            options: Options {
                duz,
                put_back_allowed,
                discarded_okey_takeable,
                opened_take_must_use,
                penalties: pen,
                okey_discard_penalty: okd,
                playable_discard_penalty: pld,
                wraps,
            },
            okey,
            deck,
            deck_pos,
            racks: seats_of(racks, "racks")?,
            discards: seats_of(discards, "discards")?,
            opened: seats_of(opened, "opened")?,
            has_played: seats_of(has_played, "has_played")?,
            hand_penalties: seats_of(hand_penalties, "hand_penalties")?,
            penalties: seats_of(penalties, "penalties")?,
            to_act,
            phase,
            turn,
            taken,
            taken_from,
            taken_laid,
            laid_any,
            put_back,
            table_melds: melds,
        })
    }

    /// Draw from the deck: None when accepted, else the rejection's code.
    fn draw(&mut self, seat: i64) -> PyResult<Rejected> {
        let seat = Self::seat(seat)?;
        if let Some(code) = self.check_turn(seat, DRAW) {
            return Ok(Some(code));
        }
        if self.deck_pos == self.deck.len() {
            return Err(refuse("the hand's end (deck_exhausted) and its scoring"));
        }
        self.racks[seat].push(self.deck[self.deck_pos]);
        self.deck_pos += 1;
        self.has_played[seat] = true;
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
        let Some(&tile) = self.discards[source].last() else {
            return Ok(Some("no_discard"));
        };
        if self.put_back {
            return Ok(Some("put_back_must_draw"));
        }
        if tile == self.okey && !self.options.discarded_okey_takeable {
            return Ok(Some("okey_discard_untakeable"));
        }
        if !self.options.duz {
            if !self.opened[seat] && !self.options.put_back_allowed {
                return Err(refuse("take_discard's can_open_with (the solver)"));
            }
            if self.opened[seat] && self.options.opened_take_must_use {
                return Err(refuse("take_discard's can_use (opened_take_must_use)"));
            }
        }
        self.discards[source].pop();
        self.racks[seat].push(tile);
        self.has_played[seat] = true;
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
        if !self.options.put_back_allowed {
            return Ok(Some("put_back_not_allowed"));
        }
        let Some(tile) = self.taken else {
            return Ok(Some("nothing_to_put_back"));
        };
        if self.laid_any {
            return Ok(Some("already_laid"));
        }
        let source = usize::try_from(self.taken_from)
            .ok()
            .filter(|&s| s < SEATS)
            .ok_or_else(|| PyValueError::new_err(format!("taken_from {}", self.taken_from)))?;
        let Some(at) = self.racks[seat].iter().position(|&t| t == tile) else {
            return Err(PyValueError::new_err(format!(
                "seat {seat}: the taken tile left the rack"
            )));
        };
        self.racks[seat].remove(at);
        self.discards[source].push(tile);
        self.phase = DRAW;
        self.new_turn();
        self.put_back = true;
        Ok(None)
    }

    /// Discard `tile`, with the house's penalty; the turn passes on.
    fn discard(&mut self, seat: i64, tile: u8) -> PyResult<Rejected> {
        let seat = Self::seat(seat)?;
        if let Some(code) = self.check_turn(seat, PLAY) {
            return Ok(Some(code));
        }
        let Some(at) = self.racks[seat].iter().position(|&t| t == tile) else {
            return Ok(Some("tile_not_in_rack"));
        };
        if let Some(code) = self.owed_take() {
            return Ok(Some(code));
        }
        if self.racks[seat].len() == 1 {
            return Err(refuse(
                "the finishing discard (the hand's end and its scoring)",
            ));
        }
        let penalty = self.discard_penalty(tile)?;
        self.racks[seat].remove(at);
        self.discards[seat].push(tile);
        self.has_played[seat] = true;
        self.to_act = (seat + 1) % SEATS;
        self.phase = DRAW;
        self.new_turn();
        self.turn += 1;
        self.penalties[seat] += penalty;
        self.hand_penalties[seat] += penalty;
        Ok(None)
    }

    /// What the differential test compares: (racks, discards, deck_pos, to_act, phase,
    /// turn, taken, put_back, has_played, hand_penalties, penalties).
    #[allow(clippy::type_complexity)]
    fn observed(
        &self,
    ) -> (
        Vec<Vec<u32>>,
        Vec<Vec<u32>>,
        usize,
        usize,
        u8,
        i64,
        Option<u8>,
        bool,
        Vec<bool>,
        Vec<i32>,
        Vec<i32>,
    ) {
        // u32, not u8: PyO3 gives a Vec<u8> to Python as bytes
        let ints = |piles: &[Vec<u8>; SEATS]| -> Vec<Vec<u32>> {
            piles
                .iter()
                .map(|p| p.iter().map(|&t| u32::from(t)).collect())
                .collect()
        };
        (
            ints(&self.racks),
            ints(&self.discards),
            self.deck_pos,
            self.to_act,
            self.phase,
            self.turn,
            self.taken,
            self.put_back,
            self.has_played.to_vec(),
            self.hand_penalties.to_vec(),
            self.penalties.to_vec(),
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<HandSim>()?;
    Ok(())
}
