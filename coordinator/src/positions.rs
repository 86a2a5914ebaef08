//! Where every node of a YAML document is: `path → (line, column)`, so that an error about a
//! value (`params.lambda`, `grid.product.params.lambda[1]`) can name the file's line and column.

use std::collections::HashMap;

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::Marker;

/// `path → (line, column)` (1-based) of every node of a YAML document. Paths join mapping keys
/// with `.` and sequence indices as `[i]`: `grid.product.params.lambda[1]`.
#[derive(Debug, Default, Clone)]
pub struct Positions(
    HashMap<String, (usize, usize)>,
    Option<(String, usize, usize)>,
);

enum Frame {
    Map {
        path: String,
        key: Option<String>,
        seen: std::collections::HashSet<String>,
    },
    Seq {
        path: String,
        index: usize,
    },
}

#[derive(Default)]
struct Indexer {
    stack: Vec<Frame>,
    pos: HashMap<String, (usize, usize)>,
    /// The first mapping key that repeats an earlier key of its mapping: its path and position.
    duplicate: Option<(String, usize, usize)>,
}

impl Indexer {
    /// Path of the node about to be read, or `None` if the node is a mapping key.
    fn value_path(&mut self) -> Option<String> {
        match self.stack.last_mut() {
            None => Some(String::new()),
            Some(Frame::Map { key: None, .. }) => None,
            Some(Frame::Map {
                path, key: Some(k), ..
            }) => Some(join(path, k)),
            Some(Frame::Seq { path, index }) => Some(format!("{path}[{index}]")),
        }
    }
    fn advance(&mut self) {
        match self.stack.last_mut() {
            Some(Frame::Map { key, .. }) => *key = None,
            Some(Frame::Seq { index, .. }) => *index += 1,
            None => {}
        }
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

impl MarkedEventReceiver for Indexer {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        let here = (mark.line(), mark.col() + 1);
        match ev {
            Event::Scalar(s, ..) => match self.value_path() {
                None => {
                    if let Some(Frame::Map { path, key, seen }) = self.stack.last_mut() {
                        if !seen.insert(s.clone()) && self.duplicate.is_none() {
                            self.duplicate = Some((join(path, &s), here.0, here.1));
                        }
                        *key = Some(s);
                    }
                }
                Some(p) => {
                    self.pos.insert(p, here);
                    self.advance();
                }
            },
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                let p = self.value_path().unwrap_or_default();
                self.pos.insert(p.clone(), here);
                if matches!(ev, Event::MappingStart(..)) {
                    self.stack.push(Frame::Map {
                        path: p,
                        key: None,
                        seen: Default::default(),
                    });
                } else {
                    self.stack.push(Frame::Seq { path: p, index: 0 });
                }
            }
            Event::MappingEnd | Event::SequenceEnd => {
                self.stack.pop();
                self.advance();
            }
            Event::Alias(..) => {
                if let Some(p) = self.value_path() {
                    self.pos.insert(p, here);
                }
                self.advance();
            }
            _ => {}
        }
    }
}

impl Positions {
    /// Index `text`. A document the scanner rejects gives an empty index (yaml_serde reports
    /// the syntax error with its location).
    pub fn index(text: &str) -> Self {
        let mut ix = Indexer::default();
        let mut parser = Parser::new_from_str(text);
        if parser.load(&mut ix, false).is_err() {
            return Positions::default();
        }
        Positions(ix.pos, ix.duplicate)
    }

    /// The first mapping key that repeats an earlier key of the same mapping: its path and its
    /// (line, column), so the error points at the duplicate rather than at the mapping.
    pub fn duplicate_key(&self) -> Option<(&str, usize, usize)> {
        self.1.as_ref().map(|(p, l, c)| (p.as_str(), *l, *c))
    }

    /// Position of `path`, or of its longest indexed prefix.
    pub fn locate(&self, path: &str) -> Option<(usize, usize)> {
        let mut p = path.to_string();
        loop {
            if let Some(x) = self.0.get(&p) {
                return Some(*x);
            }
            let cut = p.rfind(['.', '['])?;
            p.truncate(cut);
        }
    }

    pub(crate) fn get(&self, path: &str) -> Option<(usize, usize)> {
        self.0.get(path).copied()
    }
}
