//! Level 2's policy (`okey101/bots/levels.py`'s `level2`) on a packed view
//! (`okey101.native_policy.pack`): the command level 2 chooses, computed in Rust from the
//! view alone (the rules' detail included: lay-offs, okey takes, penalised discards), so
//! that a native playout can call it. The Python stays the specification:
//! `tests/properties/test_native_policy.py` checks both give the same command. What is not
//! ported (the "34" count's opening) raises NotImplementedError naming it.
use pyo3::exceptions::{PyAssertionError, PyNotImplementedError, PyValueError};
use pyo3::prelude::*;

mod duz;
mod knowledge;
mod level2;
mod seat;
#[allow(dead_code)] // the owners and the turn: read by no choice yet
pub(crate) mod view;

pub use view::{End, PMeld};

pub enum Fail {
    Malformed(String),
    NotPorted(&'static str),
    Inconsistent(String),
}

pub enum Command {
    ShowIndicator,
    Draw,
    TakeDiscard,
    PutBack,
    DeclarePairs,
    Open { pairs: bool, melds: Vec<PMeld> },
    Lay { pairs: bool, melds: Vec<PMeld> },
    LayOff { meld: i64, tile: u8, end: End },
    TakeOkey { meld: i64, tiles: Vec<u8> },
    Discard(u8),
    Finish { tile: u8, pairs: bool, melds: Vec<PMeld> },
}

type Answer = (&'static str, Vec<i64>, Vec<Vec<(u8, u8)>>);

fn answer(c: Command) -> Answer {
    let shown = |melds: Vec<PMeld>| melds.into_iter().map(|m| m.tiles).collect();
    match c {
        Command::ShowIndicator => ("show_indicator", vec![], vec![]),
        Command::Draw => ("draw", vec![], vec![]),
        Command::TakeDiscard => ("take_discard", vec![], vec![]),
        Command::PutBack => ("put_back", vec![], vec![]),
        Command::DeclarePairs => ("declare_pairs", vec![], vec![]),
        Command::Open { pairs, melds } => ("open", vec![i64::from(pairs)], shown(melds)),
        Command::Lay { pairs, melds } => ("lay", vec![i64::from(pairs)], shown(melds)),
        Command::LayOff { meld, tile, end } => ("lay_off", vec![meld, i64::from(tile), end.code()], vec![]),
        Command::TakeOkey { meld, tiles } => {
            let mut args = vec![meld];
            args.extend(tiles.iter().map(|&t| i64::from(t)));
            ("take_okey", args, vec![])
        }
        Command::Discard(t) => ("discard", vec![i64::from(t)], vec![]),
        Command::Finish { tile, pairs, melds } => ("finish", vec![i64::from(tile), i64::from(pairs)], shown(melds)),
    }
}

pub fn level2_command(packed: &[i64]) -> Result<Command, Fail> {
    command_of(&view::unpack(packed).map_err(Fail::Malformed)?)
}

/// The command level 2 sends for the view.
pub fn command_of(v: &view::View) -> Result<Command, Fail> {
    crate::memo::scoped(|| command_in_scope(v))
}

fn command_in_scope(v: &view::View) -> Result<Command, Fail> {
    let mut s = seat::Seat::new(v);
    if v.p.duz {
        return duz::command(&mut s);
    }
    level2::command(&mut s)
}

/// A refusal as the Python exception `level2` raises.
pub fn py_error(e: Fail) -> PyErr {
    match e {
        Fail::Malformed(why) => PyValueError::new_err(why),
        Fail::NotPorted(what) => PyNotImplementedError::new_err(format!("not ported: {what}")),
        Fail::Inconsistent(why) => PyAssertionError::new_err(why),
    }
}

/// level2(packed) -> (kind, ints, melds): the command level 2 sends for the packed view.
#[pyfunction(name = "level2")]
fn py_level2(py: Python<'_>, packed: Vec<i64>) -> PyResult<Answer> {
    py.detach(|| level2_command(&packed)).map(answer).map_err(py_error)
}

/// The iteration order CPython gives a set of small ints built in this order (a test hook).
#[pyfunction]
fn _policy_set_order(inserts: Vec<u8>) -> Vec<u8> {
    knowledge::py_set_order(&inserts)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(py_level2, m)?)?;
    m.add_function(wrap_pyfunction!(_policy_set_order, m)?)?;
    Ok(())
}
