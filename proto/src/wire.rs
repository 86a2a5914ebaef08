//! Conversions between the wire messages of `causeway/v1/worker.proto` and the library's types,
//! and the code version both ends report.

use causeway_papers::Matrix;

/// Code version reported to coordinators: crate version plus the git commit if known at build.
pub const CODE_VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "+", env!("CAUSEWAY_GIT_COMMIT"));

/// Converts between the wire `Matrix` and the library's `Matrix`.
pub fn matrix_to_wire(m: &Matrix) -> crate::v1::Matrix {
    crate::v1::Matrix {
        name: m.name.clone(),
        rows: m.rows as u64,
        cols: m.cols as u64,
        values: m.values.clone(),
        row_names: m.row_names.clone(),
        col_names: m.col_names.clone(),
    }
}

/// Wire `Matrix` → library `Matrix`, checking that the shape fits the values.
pub fn matrix_from_wire(m: crate::v1::Matrix) -> Result<Matrix, String> {
    let out = Matrix {
        name: m.name,
        rows: usize::try_from(m.rows).map_err(|_| "matrix rows overflow".to_string())?,
        cols: usize::try_from(m.cols).map_err(|_| "matrix cols overflow".to_string())?,
        values: m.values,
        row_names: m.row_names,
        col_names: m.col_names,
    };
    out.check()?;
    Ok(out)
}
