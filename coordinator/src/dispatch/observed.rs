//! Observed data as shipped, and which of them a worker keeps: each (dataset, replicate) has a
//! content key, a worker keeps the data it was sent under their key, and once it has answered a
//! call that carried them it is sent the key alone (protocol 5, `Job.observed_key`).

use std::sync::Arc;

use causeway_proto::v1::Matrix;

use super::WorkerHandle;

/// A (dataset, replicate)'s observed data as shipped: the wire matrices, and their content key,
/// under which a worker keeps them (`Job.observed_key`): the xxh3-128 digest of the matrices'
/// protobuf encoding, 32 hex digits; empty for no data.
#[derive(Clone, Debug, Default)]
pub struct Observed {
    pub matrices: Arc<Vec<Matrix>>,
    pub key: Arc<str>,
}

impl Observed {
    /// `matrices` and their key.
    pub fn new(matrices: Vec<Matrix>) -> Observed {
        use prost::Message as _;
        let key = if matrices.is_empty() {
            String::new()
        } else {
            let mut bytes = Vec::new();
            for m in &matrices {
                bytes.extend(m.encode_length_delimited_to_vec());
            }
            let d = causeway_results::rundir::digest::digest(&bytes);
            format!("{:032x}", u128::from_le_bytes(d))
        };
        Observed {
            matrices: Arc::new(matrices),
            key: key.into(),
        }
    }
}

impl WorkerHandle {
    /// Whether the worker keeps the observed data of `key` (so a call names the key alone).
    pub(super) fn keeps(&self, key: &str) -> bool {
        !key.is_empty() && self.kept.lock().is_ok_and(|k| k.contains(key))
    }

    /// The worker answered a call that carried the data of `key`: it keeps them now.
    pub(super) fn now_keeps(&self, key: &Arc<str>) {
        if !key.is_empty()
            && let Ok(mut k) = self.kept.lock()
        {
            k.insert(key.clone());
        }
    }
}
