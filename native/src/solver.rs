//! The solver's rack tests, ported from `okey101/solver.py` (`_split`, `_meldable`,
//! `meldable`, `holds`, `most_pairs`); the Python module is the specification and
//! `tests/properties/test_native_solver.py` checks the two agree. The DP (`_solve`) is in
//! `solve.rs`; `Solution` and `Meld` below are the agreed shapes for Rust callers.
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

pub const FAKE: u8 = 52;
/// The most tiles a rack the solve takes may hold (a dealt rack); the rack tests take any
/// rack within the set's copies, since the rules ask them of a rack plus a taken tile.
pub const MAX_RACK: usize = 22;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeldKind {
    Run,
    Group,
    Pair,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Meld {
    pub kind: MeldKind,
    /// (played, stands for)
    pub tiles: Vec<(u8, u8)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    pub value: i32,
    pub melds: Vec<Meld>,
    pub leftover: Vec<u8>,
}

pub(crate) type Counts = [[u32; 15]; 4];

/// Why a rack or okey cannot be taken, naming the input and the position.
pub fn check(rack: &[i64], okey: i64, most: usize) -> Result<(Vec<u8>, u8), String> {
    if rack.len() > most {
        return Err(format!("rack: {} tiles, at most {most}", rack.len()));
    }
    if !(0..i64::from(FAKE)).contains(&okey) {
        return Err(format!("okey: {okey} is not a tile kind 0..51"));
    }
    let mut seen = [0u8; 53];
    let mut out = Vec::with_capacity(rack.len());
    for (i, &t) in rack.iter().enumerate() {
        if !(0..=i64::from(FAKE)).contains(&t) {
            return Err(format!("rack[{i}]: {t} is not a tile kind 0..52"));
        }
        let k = t as u8;
        seen[k as usize] += 1;
        if seen[k as usize] > 2 {
            return Err(format!("rack[{i}]: a third copy of tile kind {k}"));
        }
        out.push(k);
    }
    Ok((out, okey as u8))
}

/// Counts per [colour][number], jokers, fake okeys.
pub(crate) fn split(rack: &[u8], okey: u8) -> (Counts, u32, u32) {
    let mut counts = [[0u32; 15]; 4];
    let (mut jokers, mut fakes) = (0, 0);
    for &t in rack {
        if t == okey {
            jokers += 1;
        } else {
            let t = if t == FAKE {
                fakes += 1;
                okey
            } else {
                t
            };
            counts[(t / 13) as usize][(t % 13 + 1) as usize] += 1;
        }
    }
    (counts, jokers, fakes)
}

/// `counts` less the tiles no run or group could hold (see Python's `_meldable`).
pub(crate) fn meldable_counts(mut counts: Counts, jokers: u32, wraps: bool) -> Counts {
    if jokers >= 2 {
        return counts;
    }
    let mut masks = [0u32; 4];
    // branch-free: which counts are 0 follows no pattern a predictor learns
    for (m, row) in masks.iter_mut().zip(counts.iter()) {
        for (p, &n) in row.iter().enumerate().take(14).skip(1) {
            *m |= u32::from(n > 0) << p;
        }
    }
    loop {
        let [a, b, c, d] = masks;
        let grouped = if jokers > 0 {
            (a & b) | (a & c) | (a & d) | (b & c) | (b & d) | (c & d)
        } else {
            (a & b & c) | (a & b & d) | (a & c & d) | (b & c & d)
        };
        let mut kept = [0u32; 4];
        for (k, &m0) in kept.iter_mut().zip(masks.iter()) {
            let mut m = m0;
            if wraps && m & 2 != 0 {
                m |= 1 << 14;
            }
            let mut run = if jokers > 0 {
                m & ((m << 1) | (m >> 1) | (m << 2) | (m >> 2))
            } else {
                let starts = m & (m >> 1) & (m >> 2);
                starts | (starts << 1) | (starts << 2)
            };
            if run >> 14 & 1 != 0 {
                run |= 2;
            }
            *k = m & (run | grouped) & 0x3FFE;
        }
        if kept == masks {
            break;
        }
        masks = kept;
    }
    for (row, m) in counts.iter_mut().zip(masks.iter()) {
        for (p, n) in row.iter_mut().enumerate().take(14).skip(1) {
            *n *= m >> p & 1;
        }
    }
    counts
}

/// (tiles some run or group could hold, the most they are worth at face value).
pub fn meldable(rack: &[u8], okey: u8, wraps: bool) -> (u32, u32) {
    let (counts, jokers, _) = split(rack, okey);
    let usable = meldable_counts(counts, jokers, wraps);
    let naturals: u32 = usable.iter().flatten().sum();
    let value: u32 = usable
        .iter()
        .flat_map(|row| row.iter().enumerate().map(|(n, &c)| n as u32 * c))
        .sum();
    (naturals + jokers, value + 13 * jokers)
}

/// Could some run or group of `rack` hold `tile`?
pub fn holds(rack: &[u8], tile: u8, okey: u8, wraps: bool) -> bool {
    let (counts, jokers, _) = split(rack, okey);
    let stands = if tile == FAKE { okey } else { tile };
    meldable_counts(counts, jokers, wraps)[(stands / 13) as usize][(stands % 13 + 1) as usize] > 0
}

/// The most pairs in `rack`: identical twins; an okey pairs with any tile.
pub fn most_pairs(rack: &[u8], okey: u8, extra_jokers: u32) -> u32 {
    let (counts, jokers, _) = split(rack, okey);
    let jokers = jokers + extra_jokers;
    let pairs: u32 = counts.iter().flatten().map(|n| n / 2).sum();
    let singles: u32 = counts.iter().flatten().map(|n| n % 2).sum();
    let matched = jokers.min(singles);
    pairs + matched + (jokers - matched) / 2
}

fn checked(rack: Vec<i64>, okey: i64) -> PyResult<(Vec<u8>, u8)> {
    check(&rack, okey, 106).map_err(PyValueError::new_err)
}

#[pyfunction(name = "meldable")]
#[pyo3(signature = (rack, okey, wraps=false))]
fn py_meldable(rack: Vec<i64>, okey: i64, wraps: bool) -> PyResult<(u32, u32)> {
    let (rack, okey) = checked(rack, okey)?;
    Ok(meldable(&rack, okey, wraps))
}

#[pyfunction(name = "holds")]
#[pyo3(signature = (rack, tile, okey, wraps=false))]
fn py_holds(rack: Vec<i64>, tile: i64, okey: i64, wraps: bool) -> PyResult<bool> {
    let (rack, okey) = checked(rack, okey)?;
    let (tile, _) =
        check(&[tile], 0, 1).map_err(|e| PyValueError::new_err(e.replace("rack[0]", "tile")))?;
    Ok(holds(&rack, tile[0], okey, wraps))
}

#[pyfunction(name = "most_pairs")]
#[pyo3(signature = (rack, okey, extra_jokers=0))]
fn py_most_pairs(rack: Vec<i64>, okey: i64, extra_jokers: u32) -> PyResult<u32> {
    let (rack, okey) = checked(rack, okey)?;
    Ok(most_pairs(&rack, okey, extra_jokers))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(py_meldable, m)?)?;
    m.add_function(wrap_pyfunction!(py_holds, m)?)?;
    m.add_function(wrap_pyfunction!(py_most_pairs, m)?)?;
    Ok(())
}
