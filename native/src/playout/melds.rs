//! Runs, groups and pairs as the table holds them, ported from `okey101/melds.py`
//! (`place`, `as_run`, `as_group`, `as_pair`, `classify`, `Meld.value`, the lay-off
//! geometry and `replace_okey`): the Python module is the specification. A refusal is the
//! code of the `IllegalMove` the Python raises.
use super::FAKE;

pub(crate) const RUN: u8 = 0;
pub(crate) const GROUP: u8 = 1;
pub(crate) const PAIR: u8 = 2;

// where a lay-off went (`LayOffEnd`)
pub(crate) const LOW: u8 = 0;
pub(crate) const HIGH: u8 = 1;
pub(crate) const GROUP_END: u8 = 2;

pub(crate) type Placed = (u8, u8); // (played, stands for)
pub(crate) type Refused = &'static str;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Meld {
    pub kind: u8,
    pub tiles: Vec<Placed>,
    pub start: i32, // a run's first position (1..14); 0 for groups and pairs
}

fn number_of(t: u8) -> i32 {
    i32::from(t % 13) + 1
}

fn colour_of(t: u8) -> u8 {
    t / 13
}

pub(crate) fn make(colour: u8, number: i32) -> u8 {
    colour * 13 + (number - 1) as u8
}

fn top(wraps: bool) -> i32 {
    if wraps {
        14
    } else {
        13
    }
}

impl Meld {
    /// `Meld.value`: tile values added up; position 14 counts 1.
    pub(crate) fn value(&self) -> i32 {
        if self.kind == RUN {
            let n = self.tiles.len() as i32;
            let end = self.start + n - 1;
            return (self.start + end) * n / 2 - if end == 14 { 13 } else { 0 };
        }
        self.tiles.iter().map(|&(_, s)| number_of(s)).sum()
    }

    /// `melds.counted_value`: the face value, or the "34" count's third.
    pub(crate) fn counted(&self, third: bool) -> i32 {
        let v = self.value();
        if third {
            v / 3
        } else {
            v
        }
    }

    fn colour(&self) -> u8 {
        colour_of(self.tiles[0].1)
    }

    fn number(&self) -> i32 {
        number_of(self.tiles[0].1)
    }

    fn end(&self) -> i32 {
        self.start + self.tiles.len() as i32 - 1
    }

    /// `melds.extension_positions`.
    fn extension_positions(&self, wraps: bool) -> Vec<i32> {
        let mut out = Vec::with_capacity(2);
        if self.kind != RUN {
            return out;
        }
        if self.start > 1 {
            out.push(self.start - 1);
        }
        if self.end() < top(wraps) {
            out.push(self.end() + 1);
        }
        out
    }

    /// `melds.missing_colours`.
    pub(crate) fn missing_colours(&self) -> Vec<u8> {
        if self.kind != GROUP {
            return Vec::new();
        }
        (0..4)
            .filter(|&c| self.tiles.iter().all(|&(_, s)| colour_of(s) != c))
            .collect()
    }

    /// `melds.lay_off_targets` is not empty (a group's case).
    fn group_takes(&self, stands: u8) -> bool {
        self.kind == GROUP
            && number_of(stands) == self.number()
            && self.missing_colours().contains(&colour_of(stands))
    }
}

/// `melds.stands_at`.
pub(crate) fn stands_at(colour: u8, position: i32) -> u8 {
    make(colour, if position == 14 { 1 } else { position })
}

/// `melds.place`: what a played tile stands for.
pub(crate) fn place(played: u8, stands: Option<u8>, okey: u8) -> Result<Placed, Refused> {
    if played == FAKE {
        if stands.is_some_and(|s| s != okey) {
            return Err("fake_okey_is_not_a_joker");
        }
        return Ok((FAKE, okey));
    }
    if played == okey {
        return Ok((played, stands.unwrap_or(okey)));
    }
    if stands.is_some_and(|s| s != played) {
        return Err("not_a_joker");
    }
    Ok((played, played))
}

fn consecutive(xs: &[i32]) -> bool {
    xs.windows(2).all(|w| w[1] == w[0] + 1)
}

/// `melds._run_start`.
fn run_start(numbers: &[i32], wraps: bool) -> Option<i32> {
    let mut sorted = numbers.to_vec();
    sorted.sort_unstable();
    for candidate in [numbers, sorted.as_slice()] {
        if consecutive(candidate) {
            return Some(candidate[0]);
        }
    }
    if wraps && numbers.contains(&1) && numbers.contains(&13) {
        let mut lifted: Vec<i32> = numbers
            .iter()
            .map(|&x| if x == 1 { 14 } else { x })
            .collect();
        lifted.sort_unstable();
        if numbers.iter().filter(|&&x| x == 1).count() == 2 {
            let mut again = vec![1];
            again.extend(lifted.iter().copied().filter(|&x| x != 14));
            again.push(14);
            again.sort_unstable();
            lifted = again;
        }
        if consecutive(&lifted) {
            return Some(lifted[0]);
        }
    }
    None
}

/// `melds.as_run`.
pub(crate) fn as_run(placed: &[Placed], wraps: bool) -> Option<Meld> {
    let n = placed.len();
    if n < 3 {
        return None;
    }
    let colour = colour_of(placed[0].1);
    if placed.iter().any(|&(_, s)| colour_of(s) != colour) {
        return None;
    }
    let numbers: Vec<i32> = placed.iter().map(|&(_, s)| number_of(s)).collect();
    let low = *numbers.iter().min()?;
    let high = *numbers.iter().max()?;
    let mut distinct = numbers.clone();
    distinct.sort_unstable();
    distinct.dedup();
    if high - low == n as i32 - 1 && distinct.len() == n {
        let mut tiles = placed.to_vec();
        tiles.sort_by_key(|&(_, s)| s % 13); // stable, as Python's sorted
        return Some(Meld {
            kind: RUN,
            tiles,
            start: low,
        });
    }
    let start = run_start(&numbers, wraps)?;
    if start + n as i32 - 1 > top(wraps) {
        return None;
    }
    let mut pool = placed.to_vec();
    let mut tiles = Vec::with_capacity(n);
    for q in start..start + n as i32 {
        let wanted = if q == 14 { 1 } else { q };
        let at = pool.iter().position(|&(_, s)| number_of(s) == wanted)?;
        tiles.push(pool.remove(at));
    }
    Some(Meld {
        kind: RUN,
        tiles,
        start,
    })
}

/// `melds.as_group`.
pub(crate) fn as_group(placed: &[Placed]) -> Option<Meld> {
    let n = placed.len();
    if n != 3 && n != 4 {
        return None;
    }
    let number = placed[0].1 % 13;
    let mut colours = 0u8;
    for &(_, s) in placed {
        if s % 13 != number {
            return None;
        }
        colours |= 1 << colour_of(s);
    }
    if colours.count_ones() as usize != n {
        return None;
    }
    let mut tiles = placed.to_vec();
    tiles.sort_by_key(|&(_, s)| colour_of(s));
    Some(Meld {
        kind: GROUP,
        tiles,
        start: 0,
    })
}

/// `melds.as_pair`: two identical tiles; an okey (or a shown indicator twin) pairs with any.
pub(crate) fn as_pair(placed: &[Placed], okey: u8, joker: Option<u8>) -> Option<Meld> {
    if placed.len() != 2 {
        return None;
    }
    let ((a_played, a), (b_played, b)) = (placed[0], placed[1]);
    let wild = |t: u8| t == okey || Some(t) == joker;
    if !(a == b || wild(a_played) || wild(b_played)) {
        return None;
    }
    let tiles = if wild(a_played) && !wild(b_played) {
        vec![(a_played, b), placed[1]]
    } else if wild(b_played) && !wild(a_played) {
        vec![placed[0], (b_played, a)]
    } else {
        placed.to_vec()
    };
    Some(Meld {
        kind: PAIR,
        tiles,
        start: 0,
    })
}

/// `notation.meld_of`: a pair, or a run or group (`melds.classify`).
pub(crate) fn meld_of(
    placed: &[Placed],
    okey: u8,
    wraps: bool,
    pairs: bool,
    joker: Option<u8>,
) -> Result<Meld, Refused> {
    if pairs {
        return as_pair(placed, okey, joker).ok_or("invalid_pair");
    }
    as_group(placed)
        .or_else(|| as_run(placed, wraps))
        .ok_or("invalid_meld")
}

/// `melds.extend`: one more tile, at a run position or into a group.
fn extend(meld: &Meld, placed: Placed, position: i32) -> Result<Meld, Refused> {
    if meld.kind == GROUP {
        let mut tiles = meld.tiles.clone();
        tiles.push(placed);
        return as_group(&tiles).ok_or("cannot_lay_off");
    }
    let mut tiles = meld.tiles.clone();
    if position == meld.start - 1 {
        tiles.insert(0, placed);
        return Ok(Meld {
            kind: RUN,
            tiles,
            start: meld.start - 1,
        });
    }
    tiles.push(placed);
    Ok(Meld {
        kind: RUN,
        tiles,
        start: meld.start,
    })
}

/// `melds.lay_off_plan`: the meld grown by `placed` one by one, the tiles in laying
/// order, and the end they went on; `end` is the command's run end (LOW, HIGH) or None.
pub(crate) fn lay_off_plan(
    meld: &Meld,
    placed: &[Placed],
    end: Option<u8>,
    okey: u8,
    wraps: bool,
) -> Result<(Meld, Vec<Placed>, u8), Refused> {
    if meld.kind == GROUP {
        let mut grown = meld.clone();
        let mut added = Vec::with_capacity(placed.len());
        for &pl in placed {
            let plain_okey = pl.0 == okey && pl.1 == okey;
            let missing = grown.missing_colours();
            let fits = grown.group_takes(pl.1) || (plain_okey && !missing.is_empty());
            if !fits {
                return Err("cannot_lay_off");
            }
            let pl = if plain_okey {
                (pl.0, make(missing[0], grown.number()))
            } else {
                pl
            };
            grown = extend(&grown, pl, 0)?;
            added.push(pl);
        }
        return Ok((grown, added, GROUP_END));
    }
    let ends = match end {
        Some(e) => vec![e],
        None => vec![HIGH, LOW],
    };
    for side in ends {
        if let Some((grown, order)) = run_order(meld, placed, side, okey, wraps) {
            return Ok((grown, order, side));
        }
    }
    Err("cannot_lay_off")
}

/// `melds.run_order`: the tiles in the order that extends run `meld` at `end`.
fn run_order(
    meld: &Meld,
    placed: &[Placed],
    end: u8,
    okey: u8,
    wraps: bool,
) -> Option<(Meld, Vec<Placed>)> {
    let mut pool = placed.to_vec();
    let mut grown = meld.clone();
    let mut out = Vec::with_capacity(placed.len());
    let colour = meld.colour();
    while !pool.is_empty() {
        let pos = if end == LOW {
            grown.start - 1
        } else {
            grown.start + grown.tiles.len() as i32
        };
        if !grown.extension_positions(wraps).contains(&pos) {
            return None;
        }
        let want = stands_at(colour, pos);
        let at = pool
            .iter()
            .position(|&(p, s)| s == want && p != okey)
            .or_else(|| {
                pool.iter()
                    .position(|&(p, s)| p == okey && (s == want || s == okey))
            })?;
        let pick = (pool.remove(at).0, want);
        grown = extend(&grown, pick, pos).ok()?;
        out.push(pick);
    }
    Some((grown, out))
}

/// `rules.okey_take_tiles`: the tiles to put to take the okey from `meld`.
pub(crate) fn okey_take_tiles(
    meld: &Meld,
    okey: u8,
    complete_all_colours: bool,
) -> Result<Vec<u8>, Refused> {
    let jokers: Vec<u8> = meld
        .tiles
        .iter()
        .filter(|&&(p, _)| p == okey)
        .map(|&(_, s)| s)
        .collect();
    if jokers.is_empty() {
        return Err("no_okey_there");
    }
    if meld.kind == GROUP && meld.tiles.len() == 3 {
        if !complete_all_colours {
            return Err("ambiguous_okey");
        }
        let mut need: Vec<u8> = meld.missing_colours();
        need.push(colour_of(jokers[0]));
        let mut out: Vec<u8> = need.iter().map(|&c| make(c, meld.number())).collect();
        out.sort_unstable();
        return Ok(out);
    }
    Ok(vec![jokers[0]])
}

/// `rules.check_okey_swap`: the tiles put in place of the okey are the ones it stands for.
pub(crate) fn check_okey_swap(
    meld: &Meld,
    okey: u8,
    complete_all_colours: bool,
    put: &[u8],
) -> Result<(), Refused> {
    let mut wanted = okey_take_tiles(meld, okey, complete_all_colours)?;
    let mut given = put.to_vec();
    wanted.sort_unstable();
    given.sort_unstable();
    if given == wanted {
        return Ok(());
    }
    if wanted.len() > 1 {
        return Err("wrong_tiles");
    }
    let is_joker = |t: u8| meld.tiles.iter().any(|&(p, s)| p == okey && s == t);
    if put.len() == 1 && is_joker(put[0]) {
        return Ok(());
    }
    Err("wrong_tiles")
}

/// `melds.replace_okey`: `meld` with its okey swapped for the real tile(s) `put`.
pub(crate) fn replace_okey(meld: &Meld, okey: u8, put: &[u8]) -> Meld {
    let mut items = meld.tiles.clone();
    let mut rest = put.to_vec();
    for item in items.iter_mut() {
        let (played, stands) = *item;
        if played == okey {
            if let Some(at) = rest.iter().position(|&t| t == stands) {
                *item = (stands, stands);
                rest.remove(at);
                break;
            }
        }
    }
    for t in rest {
        items.push((t, t));
    }
    if meld.kind == GROUP {
        items.sort_by_key(|&(_, s)| colour_of(s));
    }
    Meld {
        kind: meld.kind,
        tiles: items,
        start: meld.start,
    }
}
