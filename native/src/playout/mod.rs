//! The native hand simulator: a hand packed by `okey101.native_table.pack_hand`, played
//! command by command (draw, take_discard, put_back, discard, open, lay, lay_off,
//! take_okey, declare_pairs, show_indicator, düz's finish) to its end (the finishing discard, a düz finish, an
//! exhausted deck, a void hand), scored as
//! `okey101/scoring.py` scores it. The Python engine (`okey101/table/decide.py`,
//! `evolve.py`, `rules/`, `melds.py`) is the specification;
//! `tests/properties/test_native_playout.py` checks this against it. Whatever this does
//! not model raises `NotImplementedError` naming it, so a caller falls back to Python:
//! never a silent wrong answer. Bad input (a tile that is none, a seat outside 0-3, a
//! state that does not hold together) raises `ValueError`/`TypeError`/`OverflowError`.
pub(crate) mod melds;
mod score;
pub(crate) mod takes;
mod whole;

use pyo3::exceptions::{PyNotImplementedError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use melds::{Meld, Placed, GROUP, PAIR, RUN};
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
    // the opening, laying and the table (RULES.md sections 4-5, 7)
    meld_value: String,
    opening_points: i32,
    opening_pairs: i32,
    escalating_openings: bool,
    team_escalation: bool,
    opening_counts_own_extensions: bool,
    lay_off_in_opening_turn: bool,
    lay_off_wait_rounds: i64,
    pairs_opener_lay_off_limit: Option<i32>,
    pairs_need_declaration: bool,
    siler: bool,
    siler_points: i32,
    siler_pairs: i32,
    siler_reward: i32,
    invalid_opening_penalty: i32,
    run_end_lay_off_limit: Option<i32>,
    take_okey_from_groups: String,
    okey_taken_penalty: i32,
    opened_with_discard_multiplier: i32,
    elden_only_while_nobody_opened: bool,
    elden_lay_off_allowed: bool,
    indicator_pair: bool,
    indicator_show_cost: i32,
}

/// The options with their words read.
#[derive(Clone, Debug)]
pub(crate) struct Rules {
    o: Options,
    duz: bool,
    none_opened: NoneOpened,
    third: bool,                // meld_value "third": the "34" count
    complete_all_colours: bool, // take_okey_from_groups
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
        let third = match o.meld_value.as_str() {
            "face" => false,
            "third" => true,
            w => return Err(PyValueError::new_err(format!("meld_value {w:?}"))),
        };
        let complete_all_colours = match o.take_okey_from_groups.as_str() {
            "four_only" => false,
            "complete_all_colours" => true,
            w => {
                return Err(PyValueError::new_err(format!(
                    "take_okey_from_groups {w:?}"
                )))
            }
        };
        Ok(Rules {
            o,
            duz,
            none_opened,
            third,
            complete_all_colours,
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
    starter: usize,
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
    meld: Meld,
    owner: usize,
    laid_turn: i64,
}

impl Meld {
    /// `melds.extension_positions` is not empty: a run has room at an end.
    fn has_run_room(&self, wraps: bool) -> bool {
        let end = self.start + self.tiles.len() as i32 - 1;
        self.kind == RUN && (self.start > 1 || end < if wraps { 14 } else { 13 })
    }
}

/// `melds.is_playable`: could `tile` be laid off onto a run or group on the table?
fn is_playable(tile: u8, melds: &[TableMeld], okey: u8, wraps: bool) -> bool {
    if tile == okey {
        return melds
            .iter()
            .any(|m| m.meld.has_run_room(wraps) || !m.meld.missing_colours().is_empty());
    }
    let stands = if tile == FAKE { okey } else { tile };
    let (colour, number) = (stands / 13, i32::from(stands % 13) + 1);
    let top = if wraps { 14 } else { 13 };
    melds.iter().map(|m| &m.meld).any(|m| match m.kind {
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
    indicator: u8,
    starter: usize,
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
        if h.deck_pos > h.deck.len() || h.to_act >= SEATS || h.starter >= SEATS {
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
                meld: Meld {
                    kind,
                    tiles: m.tiles,
                    start: m.start,
                },
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
            starter: h.starter,
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

    /// `rules.check_turn` without a phase.
    fn check_turn_any(&self, seat: usize) -> Rejected {
        if self.phase == OVER {
            return Some("hand_over");
        }
        if self.to_act != seat {
            return Some("not_your_turn");
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

/// A command's tiles as the packing gives them: (played, stands for, -1 for none).
type Tokens = Vec<(i64, i64)>;
/// ... checked: (played, what it is named to stand for).
type Named = Vec<(u8, Option<u8>)>;

fn named(tokens: Tokens, what: &str) -> PyResult<Named> {
    tokens
        .into_iter()
        .enumerate()
        .map(|(i, (played, stands))| {
            let played = u8::try_from(played)
                .ok()
                .filter(|&t| t <= FAKE)
                .ok_or_else(|| bad(format!("{what}, tile {i}: {played} is no tile")))?;
            let stands = match stands {
                -1 => None,
                s => Some(u8::try_from(s).ok().filter(|&t| t < FAKE).ok_or_else(|| {
                    bad(format!(
                        "{what}, tile {i}: a joker cannot stand for {s} (0-51, or -1)"
                    ))
                })?),
            };
            Ok((played, stands))
        })
        .collect()
}

fn named_groups(groups: Vec<Tokens>, what: &str) -> PyResult<Vec<Named>> {
    groups
        .into_iter()
        .enumerate()
        .map(|(i, g)| named(g, &format!("{what}[{i}]")))
        .collect()
}

fn tile_list(tiles: Vec<i64>, what: &str) -> PyResult<Vec<u8>> {
    tiles
        .into_iter()
        .enumerate()
        .map(|(i, t)| {
            u8::try_from(t)
                .ok()
                .filter(|&t| t <= FAKE)
                .ok_or_else(|| bad(format!("{what}, tile {i}: {t} is no tile")))
        })
        .collect()
}

/// `notation.without`: `rack` less one copy of each tile `taken`.
fn without(rack: &mut Vec<u8>, taken: &[u8]) {
    for t in taken {
        if let Some(at) = rack.iter().position(|x| x == t) {
            rack.remove(at);
        }
    }
}

/// `rules.tokens_in_rack`: the rack holds every tile needed, and keeps one to discard.
fn tokens_in_rack(rack: &[u8], need: &[u8]) -> Rejected {
    for t in need {
        let wanted = need.iter().filter(|&x| x == t).count();
        if rack.iter().filter(|&x| x == t).count() < wanted {
            return Some("tile_not_in_rack");
        }
    }
    if need.len() >= rack.len() {
        return Some("must_keep_a_discard");
    }
    None
}

impl HandSim {
    /// `f` of each seat, in seat order (`observed`'s fields by seat).
    fn by_seat<T>(&self, f: impl Fn(&Seat) -> T) -> Vec<T> {
        self.seats.iter().map(f).collect()
    }

    /// `rules.threshold`: what an opening of `kind` needs now (escalation included).
    fn threshold(&self, seat: usize, kind: u8) -> i32 {
        let o = &self.rules.o;
        if self.rules.duz {
            return 0;
        }
        let base = if kind == POINTS {
            o.opening_points
        } else {
            o.opening_pairs
        };
        if !o.escalating_openings {
            return base;
        }
        let team = o.partners && o.team_escalation;
        if team && self.seats[(seat + 2) % SEATS].opened != NONE {
            return base;
        }
        // with team escalation, only the other team's openings count
        (0..SEATS)
            .filter(|&r| !team || r % 2 != seat % 2)
            .filter(|&r| self.seats[r].opened == kind)
            .map(|r| self.seats[r].opening_value)
            .max()
            .map_or(base, |best| base.max(best + 1))
    }

    /// `rules.finish_kind`: how `seat` finishes by discarding `last`, its last tile.
    fn finish_kind(&self, seat: usize, last: u8) -> Finish {
        let me = &self.seats[seat];
        let okey = last == self.okey;
        let elden = me.opened_turn == self.turn
            && self.is_elden_open(seat)
            && (self.rules.o.elden_lay_off_allowed || !self.laid_off);
        match (elden, me.opened == PAIRS, okey) {
            (true, _, true) => Finish::EldenOkey,
            (true, _, false) => Finish::Elden,
            (false, true, true) => Finish::PairsOkey,
            (false, true, false) => Finish::Pairs,
            (false, false, true) => Finish::Okey,
            (false, false, false) => Finish::Normal,
        }
    }

    /// `rules.is_elden_open`.
    fn is_elden_open(&self, seat: usize) -> bool {
        let others_opened = (0..SEATS).any(|i| i != seat && self.seats[i].opened != NONE);
        let closed = self.rules.o.elden_only_while_nobody_opened && others_opened;
        !self.rules.duz && !closed
    }

    /// `notation.pair_jokers`: a shown indicator twin pairs as an okey for its seat.
    fn pair_joker(&self, seat: usize) -> Option<u8> {
        self.seats[seat].shown_indicator.then_some(self.indicator)
    }

    /// `notation.build_meld` of every group, in order: the first refusal's code.
    fn build(&self, seat: usize, groups: &[Named], pairs: bool) -> Result<Vec<Meld>, &'static str> {
        let joker = if pairs { self.pair_joker(seat) } else { None };
        let wraps = self.rules.o.run_wraps_13_to_1;
        groups
            .iter()
            .map(|g| {
                let placed = g
                    .iter()
                    .map(|&(p, s)| melds::place(p, s, self.okey))
                    .collect::<Result<Vec<Placed>, _>>()?;
                melds::meld_of(&placed, self.okey, wraps, pairs, joker)
            })
            .collect()
    }

    /// `rules.check_table_access`'s refusal: opened, its opening turn and wait served.
    fn table_access(&self, seat: usize) -> Rejected {
        let (o, me) = (&self.rules.o, &self.seats[seat]);
        if self.rules.duz {
            return Some("not_in_duz");
        }
        if me.opened == NONE {
            return Some("not_opened");
        }
        let opening_turn = me.opened_turn == self.turn;
        if opening_turn && !o.lay_off_in_opening_turn {
            return Some("must_wait_a_round");
        }
        if me.elden_opening && opening_turn && !o.elden_lay_off_allowed {
            return Some("elden_turn");
        }
        if self.turn - me.opened_turn < SEATS as i64 * o.lay_off_wait_rounds && !opening_turn {
            return Some("must_wait_a_round");
        }
        None
    }

    /// `_laid`'s fold: the melds go on the table, their tiles leave the rack.
    fn put_on_table(&mut self, seat: usize, built: Vec<Meld>, laid: &[u8]) {
        let turn = self.turn;
        self.melds.extend(built.into_iter().map(|meld| TableMeld {
            meld,
            owner: seat,
            laid_turn: turn,
        }));
        without(&mut self.seats[seat].rack, laid);
        self.laid.extend_from_slice(laid);
    }

    /// `decide._maybe_siler`: okeygg's 150 points or 7 pairs, once, in the opening turn.
    fn maybe_siler(&mut self, seat: usize) {
        let o = &self.rules.o;
        let me = &self.seats[seat];
        if me.opened == NONE || !o.siler || me.siler || me.opened_turn != self.turn {
            return;
        }
        let reached = if me.opened == POINTS {
            me.opening_value >= o.siler_points
        } else {
            me.opening_value >= o.siler_pairs
        };
        if reached {
            let points = -o.siler_reward;
            self.penalise(seat, points);
            self.seats[seat].siler = true;
        }
    }

    /// `decide._open`'s try block: the melds, their value, the threshold and elden.
    fn opening(
        &self,
        seat: usize,
        groups: &[Named],
        pairs: bool,
        laid: usize,
    ) -> Result<(Vec<Meld>, i32, bool), &'static str> {
        let me = &self.seats[seat];
        if pairs && self.rules.o.pairs_need_declaration && !me.declared_pairs {
            return Err("pairs_not_declared");
        }
        let built = self.build(seat, groups, pairs)?;
        let kind = if pairs { PAIRS } else { POINTS };
        let value = if pairs {
            built.len() as i32
        } else {
            built.iter().map(|m| m.counted(self.rules.third)).sum()
        };
        let need = self.threshold(seat, kind);
        let elden = !pairs && value < need && laid + 1 == me.rack.len() && self.is_elden_open(seat);
        if value < need && !elden {
            return Err("below_threshold");
        }
        Ok((built, value, elden))
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
            if !opened
                && !o.put_back_allowed
                && !self.can_open_with(seat, tile).map_err(|e| refuse(&e))?
            {
                return Ok(Some("cannot_open_with_discard"));
            }
            if opened && o.opened_take_must_use && !self.can_use(seat, tile) {
                return Ok(Some("cannot_use_discard"));
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
            // the finishing discard: no penalty; the hand ends (decide._end_hand)
            let finish = self.finish_kind(seat, tile);
            let scores = match self.scores_of(Some(seat), finish) {
                Ok(scores) => scores,
                Err(code) => return Ok(Some(code)),
            };
            let me = &mut self.seats[seat];
            me.rack.clear();
            me.discards.push(tile);
            me.has_played = true;
            self.end_hand(Some(seat), finish, scores);
            return Ok(None);
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

    /// Open with `melds` (runs and groups, by points) or `pairs`: each group's tiles as
    /// (played, stands for or -1). A retracted invalid opening costs the house's penalty.
    fn open(&mut self, seat: i64, melds: Vec<Tokens>, pairs: Vec<Tokens>) -> PyResult<Rejected> {
        let seat = Self::seat(seat)?;
        let (melds, pairs) = (named_groups(melds, "melds")?, named_groups(pairs, "pairs")?);
        if let Some(code) = self.check_turn(seat, PLAY) {
            return Ok(Some(code));
        }
        if self.rules.duz {
            return Ok(Some("not_in_duz"));
        }
        if self.seats[seat].opened != NONE {
            return Ok(Some("already_opened"));
        }
        if melds.iter().chain(pairs.iter()).any(Vec::is_empty) {
            return Ok(Some("malformed"));
        }
        if melds.is_empty() == pairs.is_empty() {
            return Ok(Some("open_one_way"));
        }
        let is_pairs = melds.is_empty();
        let groups = if is_pairs { pairs } else { melds };
        let laid: Vec<u8> = groups.iter().flatten().map(|&(p, _)| p).collect();
        if let Some(code) = tokens_in_rack(&self.seats[seat].rack, &laid) {
            return Ok(Some(code));
        }
        if self.taken.is_some_and(|t| !laid.contains(&t)) {
            return Ok(Some("must_open_with_taken_tile"));
        }
        let (built, value, elden) = match self.opening(seat, &groups, is_pairs, laid.len()) {
            Ok(found) => found,
            Err(code) => {
                let o = &self.rules.o;
                if code == "pairs_not_declared" || !o.penalties || o.invalid_opening_penalty == 0 {
                    return Ok(Some(code));
                }
                let points = o.invalid_opening_penalty;
                self.penalise(seat, points); // OpeningRetracted, PenaltyImposed
                return Ok(None);
            }
        };
        self.put_on_table(seat, built, &laid);
        let turn = self.turn;
        let me = &mut self.seats[seat];
        me.opened = if is_pairs { PAIRS } else { POINTS };
        me.opened_turn = turn;
        me.opening_value = value;
        me.elden_opening = elden;
        // decide._after_opening
        let o = &self.rules.o;
        if let Some(taken) = self.taken {
            if o.penalties && o.opened_with_discard_multiplier != 0 {
                let points = o.opened_with_discard_multiplier * score::face_value(taken, self.okey);
                let source = usize::try_from(self.taken_from)
                    .ok()
                    .filter(|&s| s < SEATS)
                    .ok_or_else(|| bad(format!("taken_from {}", self.taken_from)))?;
                self.penalise(source, points);
            }
        }
        self.maybe_siler(seat);
        if self.rules.o.void_when_all_open_pairs && self.seats.iter().all(|s| s.opened == PAIRS) {
            match self.scores_of(None, Finish::Void) {
                Ok(scores) => self.end_hand(None, Finish::Void, scores),
                Err(code) => return Err(refuse(&format!("a void hand scored {code}"))),
            }
        }
        Ok(None)
    }

    /// Lay new melds (or pairs) after opening.
    fn lay(&mut self, seat: i64, melds: Vec<Tokens>, pairs: Vec<Tokens>) -> PyResult<Rejected> {
        let seat = Self::seat(seat)?;
        let (melds, pairs) = (named_groups(melds, "melds")?, named_groups(pairs, "pairs")?);
        if let Some(code) = self.check_turn(seat, PLAY) {
            return Ok(Some(code));
        }
        if self.rules.duz {
            return Ok(Some("not_in_duz"));
        }
        let opened = self.seats[seat].opened;
        if opened == NONE {
            return Ok(Some("not_opened"));
        }
        if melds.iter().chain(pairs.iter()).any(Vec::is_empty) {
            return Ok(Some("malformed"));
        }
        if melds.is_empty() == pairs.is_empty() {
            return Ok(Some("lay_one_way"));
        }
        let is_pairs = melds.is_empty();
        if !is_pairs && opened == PAIRS {
            return Ok(Some("pairs_opener_cannot_lay_melds"));
        }
        // rules.may_lay_pairs
        if is_pairs && !(opened == PAIRS || self.seats.iter().any(|s| s.opened == PAIRS)) {
            return Ok(Some("pairs_not_allowed"));
        }
        let groups = if is_pairs { pairs } else { melds };
        let laid: Vec<u8> = groups.iter().flatten().map(|&(p, _)| p).collect();
        if let Some(code) = tokens_in_rack(&self.seats[seat].rack, &laid) {
            return Ok(Some(code));
        }
        let built = match self.build(seat, &groups, is_pairs) {
            Ok(built) => built,
            Err(code) => return Ok(Some(code)),
        };
        let added: i32 = if is_pairs {
            built.len() as i32
        } else {
            built.iter().map(|m| m.counted(self.rules.third)).sum()
        };
        self.put_on_table(seat, built, &laid);
        let turn = self.turn;
        let me = &mut self.seats[seat];
        // evolve._melds_added: laid in the opening turn, part of the opening
        if me.opened_turn == turn && (is_pairs == (me.opened == PAIRS)) {
            me.opening_value += added;
        }
        self.maybe_siler(seat);
        Ok(None)
    }

    /// Lay `tiles` off on table meld #`meld`, at a run's `end` ("low", "high" or None:
    /// whichever fits, high first).
    #[pyo3(signature = (seat, meld, tiles, end=None))]
    fn lay_off(
        &mut self,
        seat: i64,
        meld: i64,
        tiles: Tokens,
        end: Option<&str>,
    ) -> PyResult<Rejected> {
        let seat = Self::seat(seat)?;
        let tiles = named(tiles, "lay_off")?;
        let end = match end {
            None => None,
            Some("low") => Some(melds::LOW),
            Some("high") => Some(melds::HIGH),
            Some(e) => return Err(bad(format!("lay_off: end {e:?} is not low or high"))),
        };
        if let Some(code) = self
            .check_turn(seat, PLAY)
            .or_else(|| self.table_access(seat))
        {
            return Ok(Some(code));
        }
        if tiles.is_empty() {
            return Ok(Some("malformed"));
        }
        let Some(index) = usize::try_from(meld).ok().filter(|&i| i < self.melds.len()) else {
            return Ok(Some("no_such_meld"));
        };
        let target = &self.melds[index];
        if target.meld.kind == PAIR {
            return Ok(Some("cannot_lay_off"));
        }
        let played: Vec<u8> = tiles.iter().map(|&(p, _)| p).collect();
        if let Some(code) = tokens_in_rack(&self.seats[seat].rack, &played) {
            return Ok(Some(code));
        }
        let o = &self.rules.o;
        if let Some(limit) = o.pairs_opener_lay_off_limit {
            if self.seats[seat].opened == PAIRS
                && tiles.len() as i32 > (limit - self.lay_offs).max(0)
            {
                return Ok(Some("lay_off_limit"));
            }
        }
        let placed = match tiles
            .iter()
            .map(|&(p, s)| melds::place(p, s, self.okey))
            .collect::<Result<Vec<Placed>, _>>()
        {
            Ok(placed) => placed,
            Err(code) => return Ok(Some(code)),
        };
        let (grown, order, end) =
            match melds::lay_off_plan(&target.meld, &placed, end, self.okey, o.run_wraps_13_to_1) {
                Ok(plan) => plan,
                Err(code) => return Ok(Some(code)),
            };
        let before = self
            .end_counts
            .iter()
            .find(|&&(m, e, _)| (m, e) == (index, end))
            .map_or(0, |&(_, _, n)| n);
        if let Some(limit) = o.run_end_lay_off_limit {
            if end != melds::GROUP_END && order.len() as i32 > (limit - before).max(0) {
                return Ok(Some("lay_off_limit"));
            }
        }
        // evolve._tiles_laid_off
        let me = &self.seats[seat];
        let mut value = me.opening_value;
        if o.opening_counts_own_extensions
            && me.opened == POINTS
            && me.opened_turn == self.turn
            && target.owner == seat
            && target.laid_turn == self.turn
        {
            value += grown.counted(self.rules.third) - target.meld.counted(self.rules.third);
        }
        let laid: Vec<u8> = order.iter().map(|&(p, _)| p).collect();
        self.melds[index].meld = grown;
        let me = &mut self.seats[seat];
        without(&mut me.rack, &laid);
        me.opening_value = value;
        self.laid.extend_from_slice(&laid);
        self.lay_offs += laid.len() as i32;
        self.laid_off = true;
        self.end_counts.retain(|&(m, e, _)| (m, e) != (index, end));
        self.end_counts
            .push((index, end, before + laid.len() as i32));
        self.maybe_siler(seat);
        Ok(None)
    }

    /// Take the okey from table meld #`meld`, putting `tiles` (the tile or tiles it
    /// stands for) in its place.
    fn take_okey(&mut self, seat: i64, meld: i64, tiles: Vec<i64>) -> PyResult<Rejected> {
        let seat = Self::seat(seat)?;
        let put = tile_list(tiles, "take_okey")?;
        if let Some(code) = self
            .check_turn(seat, PLAY)
            .or_else(|| self.table_access(seat))
        {
            return Ok(Some(code));
        }
        let Some(index) = usize::try_from(meld).ok().filter(|&i| i < self.melds.len()) else {
            return Ok(Some("no_such_meld"));
        };
        if put.is_empty() {
            return Ok(Some("malformed"));
        }
        let rack = &self.seats[seat].rack;
        if put.iter().any(|t| {
            rack.iter().filter(|&x| x == t).count() < put.iter().filter(|&x| x == t).count()
        }) {
            return Ok(Some("tile_not_in_rack"));
        }
        let target = &self.melds[index];
        if let Err(code) = melds::check_okey_swap(
            &target.meld,
            self.okey,
            self.rules.complete_all_colours,
            &put,
        ) {
            return Ok(Some(code));
        }
        let swapped = melds::replace_okey(&target.meld, self.okey, &put);
        let owner = target.owner;
        self.melds[index].meld = swapped;
        let me = &mut self.seats[seat];
        without(&mut me.rack, &put);
        me.rack.push(self.okey);
        self.laid.extend_from_slice(&put);
        self.laid_off = true;
        let o = &self.rules.o;
        if o.penalties && o.okey_taken_penalty != 0 && owner != seat {
            let points = o.okey_taken_penalty;
            self.penalise(owner, points);
        }
        Ok(None)
    }

    /// Düz: discard `tile` and show every other tile of the rack as runs and groups
    /// (`melds`) or seven pairs (`pairs`); the hand is won.
    fn finish(
        &mut self,
        seat: i64,
        tile: i64,
        melds: Vec<Tokens>,
        pairs: Vec<Tokens>,
    ) -> PyResult<Rejected> {
        let seat = Self::seat(seat)?;
        let tile = tile_list(vec![tile], "finish")?[0];
        let (melds, pairs) = (named_groups(melds, "melds")?, named_groups(pairs, "pairs")?);
        if let Some(code) = self.check_turn(seat, PLAY) {
            return Ok(Some(code));
        }
        if !self.rules.duz {
            return Ok(Some("not_applicable"));
        }
        if melds.iter().chain(pairs.iter()).any(Vec::is_empty) {
            return Ok(Some("malformed"));
        }
        if melds.is_empty() == pairs.is_empty() {
            return Ok(Some("finish_one_way"));
        }
        let is_pairs = melds.is_empty();
        let groups = if is_pairs { pairs } else { melds };
        // rules.check_shows_whole_rack
        let rack = &self.seats[seat].rack;
        if !rack.contains(&tile) {
            return Ok(Some("tile_not_in_rack"));
        }
        let mut rest = rack.clone();
        without(&mut rest, &[tile]);
        let mut shown: Vec<u8> = groups.iter().flatten().map(|&(p, _)| p).collect();
        rest.sort_unstable();
        shown.sort_unstable();
        if shown != rest {
            let extra = shown.iter().any(|t| {
                shown.iter().filter(|&x| x == t).count() > rest.iter().filter(|&x| x == t).count()
            });
            return Ok(Some(if extra {
                "tile_not_in_rack"
            } else {
                "must_show_whole_rack"
            }));
        }
        let wraps = self.rules.o.run_wraps_13_to_1;
        let mut built = Vec::with_capacity(groups.len());
        for g in &groups {
            let placed = match g
                .iter()
                .map(|&(p, s)| melds::place(p, s, self.okey))
                .collect::<Result<Vec<Placed>, _>>()
            {
                Ok(placed) => placed,
                Err(code) => return Ok(Some(code)),
            };
            match melds::meld_of(&placed, self.okey, wraps, is_pairs, None) {
                Ok(meld) => built.push(meld),
                Err(code) => return Ok(Some(code)),
            }
        }
        let finish = match (is_pairs, tile == self.okey) {
            (true, true) => Finish::PairsOkey,
            (true, false) => Finish::Pairs,
            (false, true) => Finish::Okey,
            (false, false) => Finish::Normal,
        };
        let scores = match self.scores_of(Some(seat), finish) {
            Ok(scores) => scores,
            Err(code) => return Ok(Some(code)),
        };
        // evolve._rack_shown
        let turn = self.turn;
        self.melds.extend(built.into_iter().map(|meld| TableMeld {
            meld,
            owner: seat,
            laid_turn: turn,
        }));
        let me = &mut self.seats[seat];
        me.rack.clear();
        me.discards.push(tile);
        me.has_played = true;
        self.end_hand(Some(seat), finish, scores);
        Ok(None)
    }

    /// Declare pairs ("çifte gidiyorum") before opening with them, where the house asks.
    fn declare_pairs(&mut self, seat: i64) -> PyResult<Rejected> {
        let seat = Self::seat(seat)?;
        if let Some(code) = self.check_turn_any(seat) {
            return Ok(Some(code));
        }
        if !self.rules.o.pairs_need_declaration {
            return Ok(Some("not_applicable"));
        }
        let me = &mut self.seats[seat];
        if me.opened != NONE || me.declared_pairs {
            return Ok(Some("already_declared"));
        }
        me.declared_pairs = true;
        Ok(None)
    }

    /// Show the indicator's twin before the seat first draws (okeygg: a pairs joker;
    /// düz: every other seat loses the house's cost).
    fn show_indicator(&mut self, seat: i64) -> PyResult<Rejected> {
        let seat = Self::seat(seat)?;
        if let Some(code) = self.check_turn_any(seat) {
            return Ok(Some(code));
        }
        let o = &self.rules.o;
        if !o.indicator_pair && o.indicator_show_cost == 0 {
            return Ok(Some("not_applicable"));
        }
        let cost = o.indicator_show_cost;
        let me = &self.seats[seat];
        if me.has_played || self.taken.is_some() || (seat != self.starter && self.phase != DRAW) {
            return Ok(Some("too_late"));
        }
        if me.shown_indicator {
            return Ok(Some("already_shown"));
        }
        if !me.rack.contains(&self.indicator) {
            return Ok(Some("tile_not_in_rack"));
        }
        self.seats[seat].shown_indicator = true;
        if cost != 0 {
            for other in (0..SEATS).filter(|&i| i != seat) {
                self.penalise(other, cost);
            }
        }
        Ok(None)
    }

    /// The packed view of the seat to act, as `okey101.native_policy.pack(player_view(
    /// state, to_act))` gives it (built in Rust from the simulator's state).
    fn packed_view_of_to_act(&self) -> PyResult<Vec<i64>> {
        self.view_of_to_act()
    }

    /// Play the hand out natively with level 2 in every seat (each from its own view),
    /// at most `cap` commands, as `okey101.bots.level4.playout` does: (finished, commands
    /// played, the table's penalties now); the hand's scores are then `scores()`.
    /// NotImplementedError where the policy or the simulator refuses (a rejected
    /// command's time-out, the "34" count's opening): the caller plays it in Python.
    fn play_out(&mut self, py: Python<'_>, cap: usize) -> PyResult<(bool, usize, Vec<i32>)> {
        py.detach(|| self.play_out_native(cap))
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
        d.set_item("racks", self.by_seat(|s| ints(&s.rack)))?;
        d.set_item("discards", self.by_seat(|s| ints(&s.discards)))?;
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
        d.set_item("has_played", self.by_seat(|s| s.has_played))?;
        d.set_item("hand_penalties", self.by_seat(|s| s.penalties))?;
        d.set_item("penalties", self.penalties.to_vec())?;
        d.set_item("opened", self.by_seat(|s| opened_name(s.opened)))?;
        d.set_item("opened_turn", self.by_seat(|s| s.opened_turn))?;
        d.set_item("opening_value", self.by_seat(|s| s.opening_value))?;
        d.set_item("elden_opening", self.by_seat(|s| s.elden_opening))?;
        d.set_item("siler", self.by_seat(|s| s.siler))?;
        d.set_item("declared_pairs", self.by_seat(|s| s.declared_pairs))?;
        d.set_item("shown_indicator", self.by_seat(|s| s.shown_indicator))?;
        d.set_item(
            "melds",
            self.melds
                .iter()
                .map(|m| {
                    (
                        ["run", "group", "pair"][m.meld.kind as usize],
                        m.meld
                            .tiles
                            .iter()
                            .map(|&(p, s)| (u32::from(p), u32::from(s)))
                            .collect::<Vec<_>>(),
                        m.meld.start,
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
