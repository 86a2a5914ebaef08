//! Datasets as the coordinator builds them and ships them to workers.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

/// A named dense matrix, row-major, `rows × cols`, with optional row and column names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Matrix {
    pub name: String,
    pub rows: usize,
    pub cols: usize,
    /// Row-major values; `values.len() == rows * cols`.
    pub values: Vec<f64>,
    /// Either empty or `rows` names.
    #[serde(default)]
    pub row_names: Vec<String>,
    /// Either empty or `cols` names.
    #[serde(default)]
    pub col_names: Vec<String>,
}

impl Matrix {
    /// A matrix without row or column names. Panics never; a wrong length is the caller's bug and
    /// is caught by [`Matrix::check`].
    pub fn new(name: impl Into<String>, rows: usize, cols: usize, values: Vec<f64>) -> Self {
        Matrix {
            name: name.into(),
            rows,
            cols,
            values,
            row_names: Vec::new(),
            col_names: Vec::new(),
        }
    }

    /// A 1 × 1 matrix.
    pub fn scalar(name: impl Into<String>, value: f64) -> Self {
        Matrix::new(name, 1, 1, vec![value])
    }

    /// Element `(i, j)`.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.values[i * self.cols + j]
    }

    /// Check that the shape and the names agree with the values.
    pub fn check(&self) -> Result<(), String> {
        // checked: rows and cols come off the wire (a fuzzed 2^32 × 2^32 overflowed here).
        if self.rows.checked_mul(self.cols) != Some(self.values.len()) {
            return Err(format!(
                "matrix {}: {} values for shape {}×{}",
                self.name,
                self.values.len(),
                self.rows,
                self.cols
            ));
        }
        if !self.row_names.is_empty() && self.row_names.len() != self.rows {
            return Err(format!(
                "matrix {}: {} row names for {} rows",
                self.name,
                self.row_names.len(),
                self.rows
            ));
        }
        if !self.col_names.is_empty() && self.col_names.len() != self.cols {
            return Err(format!(
                "matrix {}: {} column names for {} columns",
                self.name,
                self.col_names.len(),
                self.cols
            ));
        }
        Ok(())
    }
}

/// One replicate of a dataset. `observed` goes to the workers; `truth` (the generating latent
/// structure of synthetic data, or a real dataset's known answer) stays with the coordinator and
/// is used only by `results/` to score chains.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Dataset {
    pub observed: Vec<Matrix>,
    pub truth: Vec<Matrix>,
}

impl Dataset {
    /// The observed matrix called `name`.
    pub fn observed(&self, name: &str) -> Option<&Matrix> {
        self.observed.iter().find(|m| m.name == name)
    }
    /// The truth matrix called `name`.
    pub fn truth(&self, name: &str) -> Option<&Matrix> {
        self.truth.iter().find(|m| m.name == name)
    }
}

/// A data file's text as an error message may show it: quoted if it is a plain short token
/// (at most 40 characters: letters, digits, space, `_ . + -`), else a placeholder. An experiment
/// can point causeway at any file in its data directory, so errors never echo a line of it
/// (`data_dir: /etc` once printed two lines of /etc/passwd).
pub fn shown(text: &str) -> String {
    let plain = text.len() <= 40
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, ' ' | '_' | '.' | '+' | '-'));
    if plain {
        format!("{text:?}")
    } else {
        "(a value not shown: errors do not echo data files)".to_string()
    }
}

/// Where real datasets live. Paths named in an experiment resolve inside `data_dir` only.
#[derive(Debug, Clone)]
pub struct DataContext {
    pub data_dir: PathBuf,
}

impl DataContext {
    /// Resolve `relative` inside the data directory. Absolute paths and `..` are refused, so an
    /// experiment cannot make causeway read files outside the directory the user named.
    pub fn resolve(&self, relative: &str) -> Result<PathBuf, String> {
        let p = Path::new(relative);
        if p.components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
        {
            return Err(format!(
                "data path {relative:?} must be relative to the data directory {} and must not contain '..'",
                self.data_dir.display()
            ));
        }
        let joined = self.data_dir.join(p);
        // A symbolic link inside the data directory must not lead out of it.
        if let (Ok(real), Ok(root)) = (joined.canonicalize(), self.data_dir.canonicalize())
            && !real.starts_with(&root)
        {
            return Err(format!(
                "data path {relative:?} leads outside the data directory {} (through a symbolic link)",
                self.data_dir.display()
            ));
        }
        Ok(joined)
    }

    /// The text of data file `relative` ([`DataContext::resolve`]) and its path as shown in
    /// messages. A grid builds a dataset per cell, and many cells read one file (every CEP pair
    /// is a line of one 2 MB file): the files read are kept for the process, by path, and read
    /// again only when their length or modification time changes.
    ///
    /// # Errors
    /// The path is refused ([`DataContext::resolve`]), or the file cannot be read as UTF-8 text
    /// (the message names it).
    pub fn read_text(&self, relative: &str) -> Result<(String, Arc<str>), String> {
        /// A file's text, by path, with the length and modification time it was read at.
        type Read = BTreeMap<PathBuf, ((u64, Option<SystemTime>), Arc<str>)>;
        static FILES: Mutex<Read> = Mutex::new(BTreeMap::new());
        let path = self.resolve(relative)?;
        let shown = path.display().to_string();
        let cannot = |e: std::io::Error| format!("cannot read {shown}: {e}");
        let meta = std::fs::metadata(&path).map_err(cannot)?;
        let stamp = (meta.len(), meta.modified().ok());
        let mut files = FILES.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((at, text)) = files.get(&path)
            && *at == stamp
        {
            return Ok((shown, Arc::clone(text)));
        }
        let text: Arc<str> = std::fs::read_to_string(&path).map_err(cannot)?.into();
        files.insert(path, (stamp, Arc::clone(&text)));
        Ok((shown, text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside_the_data_directory() {
        let root = std::env::temp_dir().join(format!("causeway-data-{}", std::process::id()));
        std::fs::create_dir_all(root.join("sub")).expect("mkdir");
        std::fs::write(root.join("sub/ok.csv"), "a\n1\n").expect("write");
        let ctx = DataContext {
            data_dir: root.clone(),
        };
        assert_eq!(ctx.resolve("sub/ok.csv"), Ok(root.join("sub/ok.csv")));
        assert!(ctx.resolve("../etc/passwd").is_err());
        assert!(ctx.resolve("/etc/passwd").is_err());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/etc", root.join("escape")).expect("symlink");
            let e = ctx
                .resolve("escape/hostname")
                .expect_err("a link out is refused");
            assert!(e.contains("outside the data directory"), "{e}");
            // A link that stays inside is fine.
            std::os::unix::fs::symlink(root.join("sub"), root.join("inside")).expect("symlink");
            assert!(ctx.resolve("inside/ok.csv").is_ok());
        }
        std::fs::remove_dir_all(&root).ok();
    }
}
