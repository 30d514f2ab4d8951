//! The hand's scores, ported from `okey101/scoring.py` (`hand_scores`, `finish_multipliers`,
//! `rack_score`, `okey_surcharge`, `countdown_scores`): the Python module is the
//! specification, `tests/properties/test_native_playout.py` checks the two agree.
use super::{Rules, FAKE, NONE, PAIRS, SEATS};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Finish {
    Normal,
    Okey,
    Pairs,
    PairsOkey,
    Elden,
    EldenOkey,
    DeckExhausted,
    Void,
}

impl Finish {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Finish::Normal => "normal",
            Finish::Okey => "okey",
            Finish::Pairs => "pairs",
            Finish::PairsOkey => "pairs_okey",
            Finish::Elden => "elden",
            Finish::EldenOkey => "elden_okey",
            Finish::DeckExhausted => "deck_exhausted",
            Finish::Void => "void",
        }
    }

    fn no_finisher(self) -> bool {
        matches!(self, Finish::DeckExhausted | Finish::Void)
    }

    fn okey(self) -> bool {
        matches!(self, Finish::Okey | Finish::PairsOkey | Finish::EldenOkey)
    }

    fn pairs(self) -> bool {
        matches!(self, Finish::Pairs | Finish::PairsOkey)
    }

    pub(crate) fn elden(self) -> bool {
        matches!(self, Finish::Elden | Finish::EldenOkey)
    }
}

/// `tiles.face_value`: a fake okey counts as the okey's number.
pub(crate) fn face_value(tile: u8, okey: u8) -> i32 {
    let t = if tile == FAKE { okey } else { tile };
    i32::from(t % 13) + 1
}

/// `scoring.finish_multipliers`: (the finisher's, every other seat's).
fn finish_multipliers(r: &Rules, finish: Finish) -> (i32, i32) {
    if finish.no_finisher() {
        return (1, 1);
    }
    let o = &r.o;
    let (mut finisher, mut others) = (1, 1);
    if finish.okey() {
        finisher *= 2;
        others *= 2;
    }
    if finish.pairs() {
        others *= 2;
        if o.finisher_doubled_for_pairs {
            finisher *= 2;
        }
    }
    if finish.elden() {
        finisher *= o.elden_finisher_multiplier;
        others *= o.elden_others_multiplier;
    }
    (finisher.min(o.multiplier_cap), others.min(o.multiplier_cap))
}

/// `scoring.rack_score`: a non-finisher's rack before the finish's doubling.
fn rack_score(r: &Rules, okey: u8, opened: u8, rack: &[u8]) -> i32 {
    let o = &r.o;
    if opened == NONE {
        return o.unopened_score;
    }
    let inside = if o.okey_in_rack_multiplied {
        o.okey_in_rack_value
    } else {
        0
    };
    let value: i32 = rack
        .iter()
        .map(|&t| {
            if t == okey {
                inside
            } else {
                face_value(t, okey)
            }
        })
        .sum();
    if opened == PAIRS {
        value * o.pairs_rack_multiplier
    } else {
        value
    }
}

/// `scoring.okey_surcharge`: okeys left in an opened rack, after every multiplier.
fn okey_surcharge(r: &Rules, okey: u8, opened: u8, rack: &[u8]) -> i32 {
    if opened == NONE || r.o.okey_in_rack_multiplied {
        return 0;
    }
    r.o.okey_in_rack_value * rack.iter().filter(|&&t| t == okey).count() as i32
}

/// `scoring.hand_scores`: (the scores, whether the hand is dealt again), or the code of
/// the `IllegalMove` the Python raises for a finish the openings contradict.
pub(crate) fn hand_scores(
    r: &Rules,
    okey: u8,
    finisher: Option<usize>,
    finish: Finish,
    opened: &[u8; SEATS],
    racks: &[&[u8]; SEATS],
) -> Result<([i32; SEATS], bool), &'static str> {
    let o = &r.o;
    if r.duz {
        return countdown_scores(r, finisher, finish);
    }
    if finish == Finish::Void {
        if !o.void_when_all_open_pairs {
            return Err("no_void_hand");
        }
        if opened.iter().any(|&k| k != PAIRS) {
            return Err("not_void");
        }
        return Ok(([0; SEATS], true));
    }
    if finish == Finish::DeckExhausted && opened.iter().all(|&k| k == NONE) {
        match r.none_opened {
            NoneOpened::Replay => return Ok(([0; SEATS], true)),
            NoneOpened::NobodyScores => return Ok(([0; SEATS], false)),
            NoneOpened::ScoreRacks => {}
        }
    }
    if let Some(f) = finisher.filter(|_| !finish.elden()) {
        if opened[f] == NONE || (opened[f] == PAIRS) != finish.pairs() {
            return Err("illegal_move");
        }
    }
    let (finisher_mult, others_mult) = finish_multipliers(r, finish);
    let zeroed = match finisher {
        Some(f) if o.partners && o.partner_of_finisher_scores_zero => Some((f + 2) % SEATS),
        _ => None,
    };
    let mut scores = [0; SEATS];
    for (seat, score) in scores.iter_mut().enumerate() {
        *score = if Some(seat) == zeroed {
            0
        } else if Some(seat) == finisher {
            o.finish_score * finisher_mult
        } else {
            rack_score(r, okey, opened[seat], racks[seat]) * others_mult
                + okey_surcharge(r, okey, opened[seat], racks[seat])
        };
    }
    Ok((scores, false))
}

/// `scoring.countdown_scores`: düz, the points each seat loses.
fn countdown_scores(
    r: &Rules,
    finisher: Option<usize>,
    finish: Finish,
) -> Result<([i32; SEATS], bool), &'static str> {
    if finish.elden() || finish == Finish::Void {
        return Err("not_in_duz");
    }
    let Some(f) = finisher else {
        return Ok(([0; SEATS], false));
    };
    let (_, others) = finish_multipliers(r, finish);
    let mut lost = [r.o.countdown_finish_cost * others; SEATS];
    lost[f] = 0;
    if r.o.partners && r.o.partner_of_finisher_scores_zero {
        lost[(f + 2) % SEATS] = 0;
    }
    Ok((lost, false))
}

/// `Profile.deck_exhausted_none_opened`.
#[derive(Clone, Copy, Debug)]
pub(crate) enum NoneOpened {
    ScoreRacks,
    NobodyScores,
    Replay,
}
