//! The solve (opening value, fewest left, least left), ported structure for structure from
//! `okey101/solver.py` (`_colour_moves`, `_fast_table`, `_group_options`, `_plan`, `_fold`,
//! `_groups_step`, `_keep_ones`, `_prune`, `_aside`, `_replay`, `_rebuild`). The Python is
//! the specification: `tests/properties/test_native_solve.py` checks that both give the
//! same Solution (same melds in the same order, same leftover, same value). Read the Python
//! module's docstring for the DP; the comments here only say where Rust differs.
//!
//! Keys and packed entries are the Python ints, here u64 (a value fits in the 20 bits above
//! bit 44 while joker_weight <= MAX_JOKER_WEIGHT; the Python side answers beyond that). The
//! fold's maps are unordered: every merge compares whole packed ints, (value, origin), so
//! which entry wins does not depend on the order entries are visited, as in the Python.
use std::collections::HashMap;
use std::cell::RefCell;
use std::ops::Range;
use std::sync::OnceLock;

use pyo3::exceptions::{PyAssertionError, PyValueError};
use pyo3::prelude::*;

use crate::solver::{check, meldable_counts, split, FAKE};

const SLOTS: usize = 4;
const CARRY_AT: u32 = 8;
const JOKER_AT: u32 = 16;
const JOKER: u64 = 1 << JOKER_AT;
const ASIDE_AT: u32 = 18;
const STATE_AT: u32 = 20;
const VALUE: u32 = 44;
const ORIGIN: u64 = (1 << VALUE) - 1;
const PAST: u8 = 3;
/// Colour states (Python's `_BASE`) and rows of a fast table (state * 4 + jokers).
const BASE: usize = 35;
const ROWS: usize = BASE * 4;
/// The largest joker weight whose values fit the packed entries (value < 2^20).
pub const MAX_JOKER_WEIGHT: i64 = 100_000;

/// Actions per slot: 0 nothing (the run stops), 1 a natural tile, 2 a joker.
type Acts = [u8; SLOTS];
type Order = [u8; SLOTS];
/// (key change, naturals melded * 3 + jokers melded)
type Step = (i64, u8);

/// A fold table: (key, packed entry) sorted by key, one entry a key (the Python's dict).
/// Its tables hold a handful of entries, where a sorted vector beats hashing.
type Entry = (u64, u64);

/// `offers` made a table: the greatest entry offered for each key (the dict's merge).
fn settle(offers: &mut Vec<Entry>) {
    offers.sort_unstable_by_key(|e| e.0);
    offers.dedup_by(|later, kept| {
        let same = later.0 == kept.0;
        if same {
            kept.1 = kept.1.max(later.1);
        }
        same
    });
}

fn get(table: &[Entry], key: u64) -> Option<u64> {
    table.binary_search_by_key(&key, |e| e.0).ok().map(|i| table[i].1)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Group {
    colours: [u8; 4],
    size: u8,
    jokers: u8,
}

struct GroupOption {
    count: u32,
    groups: Vec<Group>,
}

struct Tables {
    closed: [bool; 64],
    short: Vec<[u32; 16]>,
    /// [colour][track][js][n][short][state * 4 + jokers] flattened: a range into `steps`
    fast: Vec<(u32, u32)>,
    /// [colour][n][state * 4 + jokers] flattened
    fast14: Vec<(u32, u32)>,
    steps: Vec<Step>,
    /// [naturals kept][jokers used]
    group_options: Vec<Vec<GroupOption>>,
    /// [naturals kept][jokers used] -> index into group_options' list (the first of most
    /// naturals), or None
    groups: Vec<Option<usize>>,
    /// [state * BASE + next state] -> [(naturals, jokers, actions, order)]
    reverse: Vec<Vec<Reverse>>,
}

fn joker_starts(lengths: &[u8; 4], acts: &Acts) -> bool {
    lengths.iter().zip(acts).any(|(&n, &a)| a == 2 && n == 0)
}

fn stops(lengths: &[u8; 4], acts: &Acts) -> bool {
    lengths.iter().zip(acts).any(|(&n, &a)| a == 0 && n == 3)
}

fn starts(lengths: &[u8; 4], acts: &Acts) -> bool {
    lengths.iter().zip(acts).any(|(&n, &a)| a != 0 && n == 0)
}

fn product4() -> Vec<[u8; 4]> {
    let mut out = Vec::with_capacity(81);
    for a in 0..3 {
        for b in 0..3 {
            for c in 0..3 {
                for d in 0..3 {
                    out.push([a, b, c, d]);
                }
            }
        }
    }
    out
}

type MoveKey = (usize, u8, u8);
type Reverse = (u8, u8, Acts, Order);
type Move = (usize, Acts, Order);

fn lengths() -> Vec<[u8; 4]> {
    let mut set: Vec<[u8; 4]> = Vec::new();
    for a in 0..4u8 {
        for b in 0..4u8 {
            for c in 0..4u8 {
                for d in 0..4u8 {
                    let mut s = [a, b, c, d];
                    s.sort_unstable();
                    if !set.contains(&s) {
                        set.push(s);
                    }
                }
            }
        }
    }
    set.sort_unstable();
    set
}

/// Python's `_colour_moves`, with its keys in insertion order (the reverse table follows it).
fn colour_moves(ls: &[[u8; 4]]) -> (Vec<MoveKey>, HashMap<MoveKey, Vec<Move>>) {
    let index = |s: &[u8; 4]| ls.iter().position(|x| x == s).expect("a sorted state");
    let mut keys = Vec::new();
    let mut table: HashMap<MoveKey, Vec<Move>> = HashMap::new();
    for (si, lengths) in ls.iter().enumerate() {
        for acts in product4() {
            let naturals = acts.iter().filter(|&&a| a == 1).count() as u8;
            let jokers = acts.iter().filter(|&&a| a == 2).count() as u8;
            if naturals > 2 || jokers > 2 {
                continue;
            }
            if stops(lengths, &acts) && starts(lengths, &acts) {
                continue;
            }
            let mut new = [0u8; 4];
            let mut ok = true;
            for i in 0..SLOTS {
                if acts[i] == 0 {
                    if lengths[i] != 0 && lengths[i] != 3 {
                        ok = false;
                        break;
                    }
                    new[i] = 0;
                } else {
                    new[i] = (lengths[i] + 1).min(3);
                }
            }
            if !ok {
                continue;
            }
            let mut order = [0u8, 1, 2, 3];
            order.sort_by_key(|&i| new[i as usize]); // stable, as Python's sorted
            let sorted = [
                new[order[0] as usize],
                new[order[1] as usize],
                new[order[2] as usize],
                new[order[3] as usize],
            ];
            let nxt = index(&sorted);
            let key = (si, naturals, jokers);
            let moves = table.entry(key).or_insert_with(|| {
                keys.push(key);
                Vec::new()
            });
            match moves.iter().position(|m| m.0 == nxt) {
                Some(i) => {
                    if joker_starts(lengths, &moves[i].1) && !joker_starts(lengths, &acts) {
                        moves[i] = (nxt, acts, order);
                    }
                }
                None => moves.push((nxt, acts, order)),
            }
        }
    }
    (keys, table)
}

fn single_groups() -> Vec<Group> {
    let mut out = Vec::new();
    for size in 1..=4usize {
        for mask in combinations4(size) {
            for jokers in 0..3u8 {
                let total = size as u8 + jokers;
                if (3..=4).contains(&total) {
                    out.push(Group { colours: mask, size: size as u8, jokers });
                }
            }
        }
    }
    out
}

/// combinations(range(4), size) in Python's order, padded with 0.
fn combinations4(size: usize) -> Vec<[u8; 4]> {
    let mut out = Vec::new();
    let mut push = |items: &[u8]| {
        let mut c = [0u8; 4];
        c[..items.len()].copy_from_slice(items);
        out.push(c);
    };
    match size {
        1 => (0..4).for_each(|a| push(&[a])),
        2 => {
            for a in 0..4 {
                for b in a + 1..4 {
                    push(&[a, b]);
                }
            }
        }
        3 => {
            for a in 0..4 {
                for b in a + 1..4 {
                    for c in b + 1..4 {
                        push(&[a, b, c]);
                    }
                }
            }
        }
        _ => push(&[0, 1, 2, 3]),
    }
    out
}

fn group_options() -> (Vec<Vec<GroupOption>>, Vec<Option<usize>>) {
    let singles = single_groups();
    let mut options: Vec<Vec<Group>> = vec![vec![]];
    options.extend(singles.iter().map(|&g| vec![g]));
    for i in 0..singles.len() {
        for h in &singles[i..] {
            options.push(vec![singles[i], *h]);
        }
    }
    for i in 0..singles.len() {
        for j in i..singles.len() {
            for k in &singles[j..] {
                let jokers = singles[i].jokers + singles[j].jokers + k.jokers;
                if (1..=2).contains(&jokers) {
                    options.push(vec![singles[i], singles[j], *k]);
                }
            }
        }
    }
    let mut shapes: Vec<([u8; 4], u8, Vec<Group>)> = Vec::new();
    for groups in options {
        let mut used = [0u8; 4];
        for g in &groups {
            for &c in &g.colours[..g.size as usize] {
                used[c as usize] += 1;
            }
        }
        let jokers: u8 = groups.iter().map(|g| g.jokers).sum();
        if jokers <= 2 && used.iter().all(|&u| u <= 2) {
            shapes.push((used, jokers, groups));
        }
    }
    let mut table: Vec<Vec<GroupOption>> = (0..256 * 3).map(|_| Vec::new()).collect();
    for counts in product4() {
        let code = counts[0] as usize
            | (counts[1] as usize) << 2
            | (counts[2] as usize) << 4
            | (counts[3] as usize) << 6;
        let total: u8 = counts.iter().sum();
        let mut seen: Vec<(u8, usize)> = Vec::new();
        for (used, jokers, groups) in &shapes {
            if groups.len() == 3 && total < 7 {
                continue;
            }
            if used.iter().zip(counts.iter()).any(|(u, n)| u > n) {
                continue;
            }
            let use_ = used[0] as usize
                | (used[1] as usize) << 2
                | (used[2] as usize) << 4
                | (used[3] as usize) << 6;
            if seen.contains(&(*jokers, use_)) {
                continue;
            }
            seen.push((*jokers, use_));
            let count = used.iter().map(|&u| u32::from(u)).sum();
            table[code * 3 + *jokers as usize].push(GroupOption { count, groups: groups.clone() });
        }
    }
    // Python's max(..., key=count): the first of the most naturals
    let best = table
        .iter()
        .map(|opts| {
            let mut found: Option<usize> = None;
            for (i, o) in opts.iter().enumerate() {
                if found.is_none_or(|f| o.count > opts[f].count) {
                    found = Some(i);
                }
            }
            found
        })
        .collect();
    (table, best)
}

fn fast_index(colour: usize, track: usize, js: usize, n: usize, short: usize) -> usize {
    (((colour * 2 + track) * 2 + js) * 3 + n) * 16 + short
}

fn build() -> Tables {
    let ls = lengths();
    let base_count = ls.len();
    assert_eq!(base_count, BASE);
    let mut closed = [false; 64];
    for (i, s) in ls.iter().enumerate() {
        closed[i] = s.iter().all(|&n| n == 0 || n == 3);
    }
    let (move_keys, moves) = colour_moves(&ls);
    let needs: Vec<(u32, u32)> = ls
        .iter()
        .map(|s| {
            (
                s.iter().filter(|&&n| n == 1 || n == 2).count() as u32,
                s.iter().filter(|&&n| n == 1).count() as u32,
            )
        })
        .collect();
    let short: Vec<[u32; 16]> = needs
        .iter()
        .map(|&(n1, n2)| {
            let mut row = [0u32; 16];
            for a1 in 0..4u32 {
                for a2 in 0..4u32 {
                    let first = if n1 > 0 && a1 == PAST as u32 { 99 } else { n1.saturating_sub(a1) };
                    let second = if n2 > 0 && a2 == PAST as u32 { 99 } else { n2.saturating_sub(a2) };
                    row[(a1 * 4 + a2) as usize] = first + second;
                }
            }
            row
        })
        .collect();
    // base[(track, js, s, n, jokers)] -> [(next, spare, r, u)]
    let mut base: HashMap<(bool, bool, usize, u8, u8), Vec<(usize, u8, u8, u8)>> = HashMap::new();
    for track in [false, true] {
        for js in [false, true] {
            for s in 0..base_count {
                for n in 0..3u8 {
                    for jokers in 0..3u8 {
                        let mut found = Vec::new();
                        for r in 0..=n {
                            for u in 0..=jokers {
                                if u > 0 && r < n {
                                    continue;
                                }
                                for (nxt, acts, _) in moves.get(&(s, r, u)).into_iter().flatten() {
                                    if !js && joker_starts(&ls[s], acts) {
                                        continue;
                                    }
                                    if r < n && !track && stops(&ls[s], acts) {
                                        continue;
                                    }
                                    found.push((*nxt, if track { n - r } else { 0 }, r, u));
                                }
                            }
                        }
                        base.insert((track, js, s, n, jokers), found);
                    }
                }
            }
        }
    }
    let mut steps: Vec<Step> = Vec::new();
    let mut shared: HashMap<Vec<Step>, (u32, u32)> = HashMap::new();
    let mut intern = |row: Vec<Step>, steps: &mut Vec<Step>| -> (u32, u32) {
        *shared.entry(row).or_insert_with_key(|row| {
            let at = steps.len() as u32;
            steps.extend_from_slice(row);
            (at, row.len() as u32)
        })
    };
    let rows = base_count * 4;
    let mut fast = vec![(0u32, 0u32); 4 * 2 * 2 * 3 * 16 * rows];
    for colour in 0..4usize {
        let at = STATE_AT as usize + 6 * colour;
        for track in 0..2usize {
            for js in 0..2usize {
                for n in 0..3usize {
                    for sh in 0..16usize {
                        for s in 0..base_count {
                            for jokers in 0..4u8 {
                                let mut row = Vec::new();
                                if jokers < 3 {
                                    let key = (track == 1, js == 1, s, n as u8, jokers);
                                    for &(nxt, spare, r, u) in &base[&key] {
                                        let need = short[nxt][sh];
                                        if i64::from(need) > i64::from(jokers) - i64::from(u) {
                                            continue;
                                        }
                                        let need = i64::from(need);
                                        let dk = (nxt as i64 - s as i64) * (1i64 << at)
                                            - ((i64::from(u) + need) << JOKER_AT)
                                            + (need << ASIDE_AT)
                                            + (i64::from(spare) << (2 * colour));
                                        row.push((dk, r * 3 + u));
                                    }
                                }
                                fast[fast_index(colour, track, js, n, sh) * rows
                                    + s * 4
                                    + jokers as usize] = intern(row, &mut steps);
                            }
                        }
                    }
                }
            }
        }
    }
    let mut fast14 = vec![(0u32, 0u32); 4 * 3 * rows];
    for colour in 0..4usize {
        for n in 0..3usize {
            for ri in 0..rows {
                let (from, len) = fast[fast_index(colour, 1, 0, n, PAST as usize * 5) * rows + ri];
                let row: Vec<Step> = steps[from as usize..(from + len) as usize]
                    .iter()
                    .map(|&(dk, g)| {
                        let took = i64::from(g / 3);
                        (
                            dk - ((n as i64 - took) << (2 * colour))
                                - (took << (CARRY_AT as usize + 2 * colour)),
                            g,
                        )
                    })
                    .collect();
                fast14[(colour * 3 + n) * rows + ri] = intern(row, &mut steps);
            }
        }
    }
    let (group_options, groups) = group_options();
    let mut reverse: Vec<Vec<Reverse>> = vec![Vec::new(); BASE * BASE];
    for key in &move_keys {
        let (s, r, u) = *key;
        for (to, acts, order) in &moves[key] {
            let found = &mut reverse[s * BASE + to];
            if found.iter().all(|m| (m.0, m.1) != (r, u)) {
                found.push((r, u, *acts, *order));
            }
        }
    }
    Tables { closed, short, fast, fast14, steps, group_options, groups, reverse }
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(build)
}

struct Plan {
    /// usable naturals [position][colour] (14: the 1s after the 13s; 15 and 16 past)
    at: [[u8; 4]; 17],
    jokers: u64,
    last: usize,
    joker_weight: Option<i64>,
    ones: bool,
    unit: bool,
    starts: [[bool; 15]; 4],
}

impl Plan {
    fn weight(&self, position: usize) -> i64 {
        if self.unit || position == 14 {
            1
        } else {
            position as i64
        }
    }

    fn joker_gain(&self, position: usize) -> i64 {
        self.joker_weight.unwrap_or_else(|| self.weight(position))
    }

    fn flags(&self, position: usize) -> (bool, bool) {
        if position == 1 && self.ones {
            return (false, true);
        }
        let here = self.at[position];
        let kept = here.iter().filter(|&&n| n != 0).count() as u64;
        let groups_here = kept + self.jokers >= 3
            && kept > 0
            && position != 14
            && (kept > 1 || position >= 12);
        (groups_here, groups_here)
    }
}

fn plan(rack: &[u8], okey: u8, wraps: bool, joker_weight: Option<i64>, unit: bool) -> Result<Plan, String> {
    let (counts, jokers, _) = split(rack, okey);
    if jokers > 2 || counts.iter().flatten().any(|&n| n > 2) {
        return Err("a rack holds at most two of each tile (two okeys, two fakes)".into());
    }
    let usable = meldable_counts(counts, jokers, wraps);
    let mut at = [[PAST; 4]; 17];
    for (p, here) in at.iter_mut().enumerate().take(15) {
        *here = [usable[0][p] as u8, usable[1][p] as u8, usable[2][p] as u8, usable[3][p] as u8];
    }
    let ones = wraps && at[1] != [0, 0, 0, 0];
    if wraps {
        for (colour, row) in usable.iter().enumerate() {
            let ends = u32::from(row[12] > 0) + u32::from(row[13] > 0) + jokers;
            at[14][colour] = if ends >= 2 { row[1] as u8 } else { 0 };
        }
    } else {
        at[14] = [PAST; 4];
    }
    let mut starts = [[false; 15]; 4];
    if jokers > 0 {
        for (colour, row) in starts.iter_mut().enumerate() {
            let mut gaps = 0u32;
            for position in (1..=13).rev() {
                row[position] = gaps < jokers;
                gaps += u32::from(at[position][colour] == 0);
            }
        }
    }
    Ok(Plan {
        at,
        jokers: u64::from(jokers),
        last: if wraps { 14 } else { 13 },
        joker_weight,
        ones,
        unit,
        starts,
    })
}

fn gains(weight: i64, joker_gain: i64) -> [u64; 9] {
    let mut out = [0u64; 9];
    for r in 0..3i64 {
        for u in 0..3i64 {
            out[(r * 3 + u) as usize] = ((r * weight + u * joker_gain) as u64) << VALUE;
        }
    }
    out
}

/// The fold's tables at each position (None where it skipped one): before its moves and
/// after them, as ranges of one arena.
#[derive(Default)]
struct History {
    arena: Vec<Entry>,
    at: Vec<Option<(Range<usize>, Range<usize>)>>,
}

impl History {
    fn len(&self) -> usize {
        self.at.len()
    }

    fn tables(&self, i: usize) -> Option<(&[Entry], &[Entry])> {
        let (before, after) = self.at[i].clone()?;
        Some((&self.arena[before], &self.arena[after]))
    }
}

/// The fold's buffers, kept from solve to solve on a thread (a solve makes a few dozen
/// small tables: allocating them was a good part of its cost).
#[derive(Default)]
struct Work {
    frontier: Vec<Entry>,
    partial: Vec<Entry>,
    nxt: Vec<Entry>,
    history: History,
}

thread_local! {
    static WORK: RefCell<Work> = RefCell::new(Work::default());
}

/// The fold of `plan` into `w` (its history for the rebuild): the key the best solution
/// ends in and, where 1s were kept for the last groups, (1s kept, jokers used) by them.
fn fold(t: &Tables, plan: &Plan, w: &mut Work) -> (u64, (usize, usize)) {
    let at = &plan.at;
    let jokers = plan.jokers;
    let start = jokers << JOKER_AT;
    let Work { frontier, partial, nxt, history } = w;
    frontier.clear();
    frontier.push((start, start));
    history.arena.clear();
    history.at.clear();
    let mut opened = 0u64;
    let empty = [0u8; 4];
    let past = [PAST; 4];
    let rows = ROWS;
    for position in 1..=plan.last {
        let (here, ahead1, ahead2) = (at[position], at[position + 1], at[position + 2]);
        if opened < 1 << STATE_AT
            && here == empty
            && (jokers == 0
                || ((ahead1 == empty || ahead1 == past) && (ahead2 == empty || ahead2 == past)))
        {
            history.at.push(None);
            continue;
        }
        let g = gains(plan.weight(position), plan.joker_gain(position));
        let (groups_here, track) = plan.flags(position);
        partial.clear();
        partial.extend_from_slice(frontier);
        for colour in 0..4usize {
            let at_state = STATE_AT as usize + 6 * colour;
            let index_at = at_state - 2;
            let is_open = opened >> at_state & 63;
            let carry_at = CARRY_AT as usize + 2 * colour;
            let row_base = if position == 14 {
                if is_open == 0 {
                    continue;
                }
                None
            } else {
                let n = here[colour] as usize;
                let (a1, a2) = (ahead1[colour], ahead2[colour]);
                if n == 0
                    && is_open == 0
                    && (jokers == 0 || !((0 < a1 && a1 < PAST) || (0 < a2 && a2 < PAST)))
                {
                    continue;
                }
                let short = a1 as usize * 4 + a2 as usize;
                let js = usize::from(plan.starts[colour][position]);
                Some(fast_index(colour, usize::from(track), js, n, short) * rows)
            };
            nxt.clear();
            for &(key, packed) in partial.iter() {
                let ri = (key >> index_at & 252 | key >> 16 & 3) as usize;
                let (from, len) = match row_base {
                    Some(b) => t.fast[b + ri],
                    None => t.fast14[(colour * 3 + (key >> carry_at & 3) as usize) * rows + ri],
                };
                for &(dk, gi) in &t.steps[from as usize..(from + len) as usize] {
                    nxt.push((key.wrapping_add(dk as u64), packed + g[gi as usize]));
                }
            }
            settle(nxt);
            std::mem::swap(partial, nxt);
        }
        if groups_here {
            groups_step(t, partial, nxt, g[3], g[1]);
            std::mem::swap(partial, nxt);
        } else if track {
            nxt.clear();
            nxt.extend(partial.iter().map(|&(key, packed)| (key + (key & 255) * 255, packed)));
            settle(nxt);
            std::mem::swap(partial, nxt);
        }
        let union = prune(partial, jokers > 0, nxt);
        let arena = &mut history.arena;
        let before = arena.len();
        arena.extend_from_slice(frontier);
        let after = arena.len();
        arena.extend_from_slice(partial);
        history.at.push(Some((before..after, after..arena.len())));
        std::mem::swap(frontier, nxt);
        opened = union;
    }
    if !plan.ones {
        let best = frontier
            .iter()
            .filter(|&&(k, _)| closed(t, k))
            .map(|&(k, p)| (p, k))
            .max()
            .expect("the empty solution is always closed");
        return (best.1, (0, 0));
    }
    let g = gains(1, plan.joker_gain(1));
    let mut found: Option<(u64, u64, usize)> = None;
    for &(key, packed) in frontier.iter() {
        if !closed(t, key) {
            continue;
        }
        for used in 0..=(key >> 16 & 3) as usize {
            let kept = (key >> CARRY_AT & 255) as usize;
            if let Some(e) = t.groups[kept * 3 + used] {
                let count = u64::from(t.group_options[kept * 3 + used][e].count);
                let cand = (packed + used as u64 * g[1] + count * g[3], key, used);
                if found.is_none_or(|f| cand > f) {
                    found = Some(cand);
                }
            }
        }
    }
    let (_, key, used) = found.expect("the empty solution is always closed");
    (key, ((key >> CARRY_AT & 255) as usize, used))
}

fn closed(t: &Tables, key: u64) -> bool {
    let states = key >> STATE_AT;
    t.closed[(states & 63) as usize]
        && t.closed[(states >> 6 & 63) as usize]
        && t.closed[(states >> 12 & 63) as usize]
        && t.closed[(states >> 18) as usize]
}

fn groups_step(t: &Tables, partial: &[Entry], nxt: &mut Vec<Entry>, natural_step: u64, joker_step: u64) {
    nxt.clear();
    for &(key, packed) in partial {
        let left = key & 255;
        if left == 0 {
            nxt.push((key, packed));
            continue;
        }
        let base = key - left;
        for used in 0..=(key >> 16 & 3) {
            let i = left as usize * 3 + used as usize;
            let Some(e) = t.groups[i] else { continue };
            let count = u64::from(t.group_options[i][e].count);
            nxt.push((base - (used << JOKER_AT), packed + used * joker_step + count * natural_step));
        }
    }
    settle(nxt);
}

/// `partial` pruned into `out`; returns the union of the keys kept.
fn prune(partial: &[Entry], jokers: bool, out: &mut Vec<Entry>) -> u64 {
    out.clear();
    let mut opened = 0u64;
    for &(key, packed) in partial {
        let value = packed >> VALUE;
        if jokers {
            let left = key >> 16 & 3;
            if left < 2 {
                if get(partial, key + JOKER).is_some_and(|b| b >> VALUE >= value) {
                    continue;
                }
                if left == 0 && get(partial, key + 2 * JOKER).is_some_and(|b| b >> VALUE >= value) {
                    continue;
                }
            }
        }
        // the same states set the same jokers aside: no two keys meet here
        let aside = key >> ASIDE_AT & 3;
        let key = key + aside * JOKER - aside * (1 << ASIDE_AT);
        out.push((key, (value << VALUE) | key));
        opened |= key;
    }
    out.sort_unstable();
    opened
}

fn aside(t: &Tables, plan: &Plan, position: usize, key: u64) -> u64 {
    let states = key >> STATE_AT;
    if states == 0 {
        return key;
    }
    let (a1, a2) = (plan.at[position + 1], plan.at[position + 2]);
    let mut need = 0u64;
    for c in 0..4 {
        let s = (states >> (6 * c) & 63) as usize;
        need += u64::from(t.short[s][a1[c] as usize * 4 + a2[c] as usize]);
    }
    key + need * (1 << ASIDE_AT) - need * JOKER
}

type Runs = [Option<(Acts, Order)>; 4];
type Path<'t> = (Runs, &'t [Group]);

fn replay<'t>(
    t: &'t Tables,
    plan: &Plan,
    position: usize,
    start: u64,
    target: u64,
    gain: i64,
) -> Result<Path<'t>, String> {
    let weight = plan.weight(position);
    let joker_gain = plan.joker_gain(position);
    let (groups_here, track) = plan.flags(position);
    let here = plan.at[position];
    let jokers = (start >> 16 & 3) as u8;
    let mut runs: Runs = [None; 4];
    let mut open_choices: Vec<(usize, u8, Vec<Reverse>)> = Vec::new();
    let (mut melded, mut used, mut left, mut ones) = (0i64, 0u8, 0u64, 0u64);
    for colour in 0..4usize {
        let at = STATE_AT as usize + 6 * colour;
        let (s, tt) = ((start >> at & 63) as usize, (target >> at & 63) as usize);
        let n = if position == 14 { (start >> (CARRY_AT as usize + 2 * colour) & 3) as u8 } else { here[colour] };
        if s == 0 && tt == 0 {
            left += u64::from(n) << (2 * colour);
            continue;
        }
        let all = &t.reverse[s * BASE + tt];
        let fits = |m: &&Reverse| m.0 <= n && m.1 <= jokers;
        let only = match all.len() {
            0 => return Err("no move between the recorded states".into()),
            1 => Some(all[0]),
            _ if all.iter().filter(fits).count() == 1 => all.iter().find(fits).copied(),
            _ => None,
        };
        if let Some((r, u, acts, order)) = only {
            runs[colour] = Some((acts, order));
            melded += i64::from(r);
            used += u;
            left += u64::from(n - r) << (2 * colour);
            if position == 14 {
                ones += u64::from(r) << (2 * colour);
            }
        } else {
            open_choices.push((colour, n, all.iter().filter(fits).copied().collect()));
        }
    }
    if open_choices.is_empty() && !track {
        return Ok((runs, &[]));
    }
    // itertools.product over the open choices: the last varies fastest
    let sizes: Vec<usize> = open_choices.iter().map(|c| c.2.len()).collect();
    if sizes.iter().any(|&n| n == 0) {
        return Err("no move reaches the state the DP recorded".into());
    }
    let mut pick = vec![0usize; open_choices.len()];
    loop {
        let (mut all_melded, mut all_used, mut all_left, mut all_ones) = (melded, used, left, ones);
        let mut fits = true;
        for (i, (colour, n, moves)) in open_choices.iter().enumerate() {
            let (r, u, _, _) = moves[pick[i]];
            all_melded += i64::from(r);
            all_used += u;
            if r > *n {
                fits = false; // Python's negative count never matches a recorded state
            } else {
                all_left += u64::from(n - r) << (2 * colour);
            }
            if position == 14 {
                all_ones += u64::from(r) << (2 * colour);
            }
        }
        if fits && all_used <= jokers {
            let mut key = ((target >> STATE_AT) << STATE_AT) + (u64::from(jokers - all_used) << JOKER_AT)
                + (start & 0xFF00);
            let found = if key >= all_ones << CARRY_AT {
                key -= all_ones << CARRY_AT;
                true
            } else {
                false
            };
            if found {
                let check = |count: u32, groups: &[Group], key: u64| -> bool {
                    let grouped: u8 = groups.iter().map(|g| g.jokers).sum();
                    let k = key.wrapping_sub(u64::from(grouped) << JOKER_AT);
                    k == target
                        && (all_melded + i64::from(count)) * weight
                            + i64::from(all_used + grouped) * joker_gain
                            == gain
                };
                if groups_here {
                    for grouped in 0..=(jokers - all_used) as usize {
                        for o in &t.group_options[all_left as usize * 3 + grouped] {
                            if check(o.count, &o.groups, key) {
                                for (i, (colour, _, moves)) in open_choices.iter().enumerate() {
                                    let (_, _, acts, order) = moves[pick[i]];
                                    runs[*colour] = Some((acts, order));
                                }
                                return Ok((runs, &o.groups));
                            }
                        }
                    }
                } else {
                    if track {
                        key += all_left << CARRY_AT;
                    }
                    if check(0, &[], key) {
                        for (i, (colour, _, moves)) in open_choices.iter().enumerate() {
                            let (_, _, acts, order) = moves[pick[i]];
                            runs[*colour] = Some((acts, order));
                        }
                        return Ok((runs, &[]));
                    }
                }
            }
        }
        // next combination
        let mut i = pick.len();
        loop {
            if i == 0 {
                return Err("no move reaches the state the DP recorded".into());
            }
            i -= 1;
            pick[i] += 1;
            if pick[i] < sizes[i] {
                break;
            }
            pick[i] = 0;
        }
    }
}

/// (kind, tiles as (played, stands for), first run position or 0)
pub type NativeMeld = (&'static str, Vec<(u8, u8)>, u8);

fn rebuild(
    t: &Tables,
    rack: &[u8],
    okey: u8,
    plan: &Plan,
    history: &History,
    mut key: u64,
    last_groups: (usize, usize),
) -> Result<(i64, Vec<NativeMeld>, Vec<u8>), String> {
    let mut paths: Vec<(usize, Path)> = Vec::new();
    if plan.ones {
        let (kept, used) = last_groups;
        let i = kept * 3 + used;
        let e = t.groups[i].ok_or("no groups of 1s where the DP found them")?;
        paths.push((1, ([None; 4], &t.group_options[i][e].groups)));
    }
    for position in (1..=history.len()).rev() {
        let Some((before, after)) = history.tables(position - 1) else { continue };
        let lookup = if plan.jokers > 0 { aside(t, plan, position, key) } else { key };
        let packed = get(after, lookup).ok_or("a state the DP did not record")?;
        let start = packed & ORIGIN;
        let origin = get(before, start).ok_or("an origin the DP did not record")?;
        let gain = (packed >> VALUE) as i64 - (origin >> VALUE) as i64;
        if start == key && gain == 0 && key < 1 << STATE_AT {
            continue;
        }
        paths.push((position, replay(t, plan, position, start, key, gain)?));
        key = start;
    }
    paths.reverse();
    let mut pool: Vec<u8> = rack.to_vec();
    let mut value = 0i64;
    fn take(pool: &mut Vec<u8>, tile: u8) -> Result<(), String> {
        let i = pool.iter().position(|&x| x == tile).ok_or("a tile the rack does not hold")?;
        pool.remove(i);
        Ok(())
    }
    let natural = |pool: &mut Vec<u8>, stands: u8| -> Result<(u8, u8), String> {
        if stands == okey && pool.contains(&FAKE) {
            take(pool, FAKE)?;
            return Ok((FAKE, okey));
        }
        take(pool, stands)?;
        Ok((stands, stands))
    };
    let joker = |pool: &mut Vec<u8>, stands: u8| -> Result<(u8, u8), String> {
        take(pool, okey)?;
        Ok((okey, stands))
    };
    let mut melds: Vec<NativeMeld> = Vec::with_capacity(8);
    let mut slots: [[Vec<(u8, u8)>; SLOTS]; 4] = Default::default();
    let mut firsts = [[0u8; SLOTS]; 4];
    for (position, (runs, groups)) in &paths {
        let number = if *position == 14 { 1u8 } else { *position as u8 };
        for (colour, how) in runs.iter().enumerate() {
            let Some((acts, order)) = how else { continue };
            for (i, &act) in acts.iter().enumerate() {
                if act == 0 {
                    if !slots[colour][i].is_empty() {
                        melds.push(("run", std::mem::take(&mut slots[colour][i]), firsts[colour][i]));
                    }
                    continue;
                }
                if slots[colour][i].is_empty() {
                    firsts[colour][i] = *position as u8;
                }
                let tile = colour as u8 * 13 + number - 1;
                let placed = if act == 1 { natural(&mut pool, tile)? } else { joker(&mut pool, tile)? };
                slots[colour][i].push(placed);
                value += i64::from(number);
            }
            if *order != [0, 1, 2, 3] {
                let old = std::mem::take(&mut slots[colour]);
                let old_firsts = firsts[colour];
                let mut old = old.map(Some);
                for (j, &i) in order.iter().enumerate() {
                    slots[colour][j] = old[i as usize].take().unwrap_or_default();
                    firsts[colour][j] = old_firsts[i as usize];
                }
            }
        }
        for g in *groups {
            let colours = &g.colours[..g.size as usize];
            let mut placed: Vec<(u8, u8)> = Vec::with_capacity(4);
            for &c in colours {
                placed.push(natural(&mut pool, c * 13 + number - 1)?);
            }
            for c in (0..4u8).filter(|c| !colours.contains(c)).take(g.jokers as usize) {
                placed.push(joker(&mut pool, c * 13 + number - 1)?);
            }
            placed.sort_by_key(|p| p.1); // stable, as Python's sort
            value += i64::from(number) * placed.len() as i64;
            melds.push(("group", placed, 0));
        }
    }
    for colour in 0..4 {
        for i in 0..SLOTS {
            if !slots[colour][i].is_empty() {
                melds.push(("run", std::mem::take(&mut slots[colour][i]), firsts[colour][i]));
            }
        }
    }
    pool.sort_unstable();
    Ok((value, melds, pool))
}

/// The solve of `rack`: (value, melds, leftover), as Python's `_solve`.
pub fn solve(
    rack: &[u8],
    okey: u8,
    wraps: bool,
    joker_weight: Option<i64>,
    unit: bool,
) -> Result<(i64, Vec<NativeMeld>, Vec<u8>), SolveError> {
    let t = tables();
    let plan = plan(rack, okey, wraps, joker_weight, unit).map_err(SolveError::Malformed)?;
    WORK.with(|w| {
        let w = &mut *w.borrow_mut();
        let (key, last_groups) = fold(t, &plan, w);
        rebuild(t, rack, okey, &plan, &w.history, key, last_groups).map_err(SolveError::Inconsistent)
    })
}

/// Why a solve failed: the rack (Python's MalformedInput), or the core itself (a state the
/// rebuild cannot find again: Python's AssertionError, a bug, never the caller's input).
#[derive(Debug)]
pub enum SolveError {
    Malformed(String),
    Inconsistent(String),
}

#[pyfunction(name = "solve")]
#[pyo3(signature = (rack, okey, wraps=false, joker_weight=None, unit=false))]
fn py_solve(
    py: Python<'_>,
    rack: Vec<i64>,
    okey: i64,
    wraps: bool,
    joker_weight: Option<i64>,
    unit: bool,
) -> PyResult<(i64, Vec<NativeMeld>, Vec<u8>)> {
    let (rack, okey) = check(&rack, okey, 106).map_err(PyValueError::new_err)?;
    if let Some(w) = joker_weight {
        if !(0..=MAX_JOKER_WEIGHT).contains(&w) {
            return Err(PyValueError::new_err(format!(
                "joker_weight: {w} is outside 0..{MAX_JOKER_WEIGHT}"
            )));
        }
    }
    py.detach(|| solve(&rack, okey, wraps, joker_weight, unit)).map_err(|e| match e {
        SolveError::Malformed(why) => PyValueError::new_err(format!("rack: {why}")),
        SolveError::Inconsistent(why) => PyAssertionError::new_err(why),
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    tables(); // built at import (a few ms), not inside the first solve
    m.add("MAX_JOKER_WEIGHT", MAX_JOKER_WEIGHT)?;
    m.add_function(wrap_pyfunction!(py_solve, m)?)?;
    Ok(())
}
