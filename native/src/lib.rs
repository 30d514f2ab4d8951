//! okey101's compiled core. The Python core (`libs/okey101`) is the specification; every
//! function here is checked against it by a differential test (`tests/properties/`).
use pyo3::prelude::*;

mod memo;
mod playout;
mod policy;
pub mod solve;
pub mod solver;
mod views;

/// The version of the compiled core, for `okey101.native` to check it was built from this tree.
#[pyfunction]
fn core_version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn okey101_native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(core_version, m)?)?;
    playout::register(m)?;
    policy::register(m)?;
    solver::register(m)?;
    solve::register(m)?;
    views::register(m)?;
    Ok(())
}
