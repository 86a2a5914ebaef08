//! Dense binary matrices (`X`, `Z`, `Y` of the paper) and their conversion to [`Matrix`].

use crate::data::Matrix;

/// A dense 0/1 matrix, row-major, `rows × cols`, one byte per entry (0 or 1).
///
/// Used for `X` (N observed × T trials), `Z` (N observed × K causes) and `Y` (K causes × T
/// trials) of Wood et al. (2006), §2.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BinaryMatrix {
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
    /// Row-major entries, each 0 or 1; `data.len() == rows * cols`.
    pub data: Vec<u8>,
}

impl BinaryMatrix {
    /// An all-zero `rows × cols` matrix.
    pub fn zeros(rows: usize, cols: usize) -> Self {
        BinaryMatrix {
            rows,
            cols,
            data: vec![0; rows * cols],
        }
    }

    /// Entry `(i, j)` (panics if out of bounds, like slice indexing).
    pub fn get(&self, i: usize, j: usize) -> u8 {
        self.data[i * self.cols + j]
    }

    /// Set entry `(i, j)` to `v != 0`.
    pub fn set(&mut self, i: usize, j: usize, v: u8) {
        self.data[i * self.cols + j] = u8::from(v != 0);
    }

    /// Row `i` as a slice of length `cols`.
    pub fn row(&self, i: usize) -> &[u8] {
        &self.data[i * self.cols..(i + 1) * self.cols]
    }

    /// Convert to a named [`Matrix`] of 0.0/1.0 values.
    pub fn to_matrix(&self, name: &str) -> Matrix {
        Matrix::new(
            name,
            self.rows,
            self.cols,
            self.data.iter().map(|&v| f64::from(v)).collect(),
        )
    }

    /// Read a [`Matrix`] whose values are all exactly 0.0 or 1.0. Errors name the matrix and the
    /// first offending entry.
    pub fn from_matrix(m: &Matrix) -> Result<Self, String> {
        m.check()?;
        let mut data = Vec::with_capacity(m.values.len());
        for (j, &v) in m.values.iter().enumerate() {
            if v == 0.0 {
                data.push(0);
            } else if v == 1.0 {
                data.push(1);
            } else {
                return Err(format!(
                    "matrix {}: entry ({}, {}) is {v}; allowed values are 0 and 1",
                    m.name,
                    j / m.cols.max(1),
                    j % m.cols.max(1)
                ));
            }
        }
        Ok(BinaryMatrix {
            rows: m.rows,
            cols: m.cols,
            data,
        })
    }

    /// The transpose (`cols × rows`).
    pub fn transpose(&self) -> Self {
        let mut t = BinaryMatrix::zeros(self.cols, self.rows);
        for i in 0..self.rows {
            for j in 0..self.cols {
                t.data[j * self.rows + i] = self.data[i * self.cols + j];
            }
        }
        t
    }

    /// Number of ones.
    pub fn count_ones(&self) -> u64 {
        self.data.iter().map(|&v| u64::from(v)).sum()
    }
}
