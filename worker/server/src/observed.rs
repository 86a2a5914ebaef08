//! Observed data kept between calls under the content key the coordinator gives it
//! (`Job.observed_key`, `ObservedSet.key`). A grid's chains share a few datasets (paper 003's
//! Cause-Effect Pairs grid: 102,600 chains on 100 pairs), so each dataset crosses the network and
//! is converted once per worker, not once per call. A call that names a key without the data is
//! answered, when nothing is kept under the key (the worker restarted, or evicted it), with
//! `FAILED_PRECONDITION` ([`NOT_CACHED`]) before anything runs; the coordinator then sends the
//! data.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use causeway_papers::Dataset;
use causeway_proto::NOT_CACHED;
use causeway_proto::v1::Matrix;
use tonic::Status;

use crate::dataset_from_wire;

/// What a worker keeps by default: 512 MiB of observed values (8 bytes each).
pub const DEFAULT_KEPT_BYTES: usize = 512 << 20;

/// Where a call's observed data comes from: kept already, or the wire matrices to convert (and
/// keep under `key`, when it is not empty).
pub(crate) enum Source {
    Kept(Arc<Dataset>),
    Wire { key: String, observed: Vec<Matrix> },
}

/// The kept datasets, oldest first out once their values pass the budget (the newest is always
/// kept, however large).
#[derive(Clone)]
pub(crate) struct Kept {
    inner: Arc<Mutex<Inner>>,
    budget: usize,
}

#[derive(Default)]
struct Inner {
    map: HashMap<String, (Arc<Dataset>, usize)>,
    order: VecDeque<String>,
    bytes: usize,
}

impl Kept {
    pub(crate) fn new(budget: usize) -> Kept {
        Kept {
            inner: Arc::default(),
            budget,
        }
    }

    /// The source of data sent as (`key`, `observed`): `observed` itself when it is not empty
    /// or `key` is, else what is kept under `key`.
    ///
    /// # Errors
    /// `FAILED_PRECONDITION` ([`NOT_CACHED`]) when `observed` is empty and nothing is kept
    /// under a non-empty `key`.
    pub(crate) fn source(&self, key: String, observed: Vec<Matrix>) -> Result<Source, Status> {
        if !observed.is_empty() || key.is_empty() {
            return Ok(Source::Wire { key, observed });
        }
        let kept = self
            .inner
            .lock()
            .ok()
            .and_then(|m| m.map.get(&key).map(|(d, _)| d.clone()));
        kept.map(Source::Kept)
            .ok_or_else(|| Status::failed_precondition(format!("{NOT_CACHED}: {key}")))
    }

    /// The data of `source`: converted (and kept) if it came on the wire.
    ///
    /// # Errors
    /// Malformed matrices (as `dataset_from_wire` says).
    pub(crate) fn data(&self, source: Source) -> Result<Arc<Dataset>, String> {
        let (key, observed) = match source {
            Source::Kept(d) => return Ok(d),
            Source::Wire { key, observed } => (key, observed),
        };
        let bytes = observed.iter().map(|m| 8 * m.values.len()).sum::<usize>();
        let data = Arc::new(dataset_from_wire(observed)?);
        if !key.is_empty()
            && let Ok(mut m) = self.inner.lock()
            && !m.map.contains_key(&key)
        {
            m.map.insert(key.clone(), (data.clone(), bytes));
            m.order.push_back(key);
            m.bytes += bytes;
            while m.bytes > self.budget && m.order.len() > 1 {
                if let Some(old) = m.order.pop_front()
                    && let Some((_, b)) = m.map.remove(&old)
                {
                    m.bytes -= b;
                }
            }
        }
        Ok(data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x(v: f64) -> Vec<Matrix> {
        vec![Matrix {
            name: "x".into(),
            rows: 2,
            cols: 1,
            values: vec![v, 2.0 * v],
            ..Default::default()
        }]
    }

    fn kept_value(k: &Kept, key: &str) -> Option<f64> {
        match k.source(key.into(), Vec::new()) {
            Ok(s) => Some(k.data(s).ok()?.observed[0].values[0]),
            Err(s) => {
                assert_eq!(s.code(), tonic::Code::FailedPrecondition);
                assert!(s.message().starts_with(NOT_CACHED), "{}", s.message());
                None
            }
        }
    }

    #[test]
    fn kept_data_is_found_by_its_key_and_the_oldest_goes_first() {
        // Two datasets of 16 bytes each fit a budget of 40; the third evicts the first.
        let k = Kept::new(40);
        assert_eq!(kept_value(&k, "a"), None);
        for (key, v) in [("a", 1.0), ("b", 3.0)] {
            let s = k.source(key.into(), x(v)).expect("wire");
            assert_eq!(
                k.data(s).expect("data").observed[0].values,
                vec![v, 2.0 * v]
            );
        }
        assert_eq!(kept_value(&k, "a"), Some(1.0));
        assert_eq!(kept_value(&k, "b"), Some(3.0));
        let s = k.source("c".into(), x(5.0)).expect("wire");
        k.data(s).expect("data");
        assert_eq!(kept_value(&k, "a"), None);
        assert_eq!(kept_value(&k, "b"), Some(3.0));
        assert_eq!(kept_value(&k, "c"), Some(5.0));
        // Data without a key is not kept; no data and no key is the empty dataset.
        let s = k.source(String::new(), x(7.0)).expect("wire");
        k.data(s).expect("data");
        let empty = k.source(String::new(), Vec::new()).expect("empty");
        assert!(k.data(empty).expect("data").observed.is_empty());
        // The newest is kept however large.
        let tiny = Kept::new(1);
        let s = tiny.source("big".into(), x(9.0)).expect("wire");
        tiny.data(s).expect("data");
        assert_eq!(kept_value(&tiny, "big"), Some(9.0));
    }
}
