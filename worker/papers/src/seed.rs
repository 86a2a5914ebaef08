//! The one seeding function of causeway.
//!
//! Every chain's random numbers come from ChaCha20 keyed by
//! `(experiment seed, grid cell, replicate, domain)` with the chain number as the ChaCha stream.
//! Keys are the four 64-bit words written little-endian into ChaCha's 256-bit key, so distinct
//! tuples give distinct keys and (ChaCha being a PRF) independent streams. Nothing here depends on
//! which worker runs a chain, in which order, or how many times it was retried.
//!
//! The grid cell is identified by [`stable_hash`] of its canonical parameters (not by its position
//! in the grid), so adding a value to an axis does not change the seeds of the other cells.

use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// The RNG every sampler receives.
pub type ChainRng = ChaCha20Rng;

/// Domain tags keep chain streams and dataset streams apart even for equal numbers.
const DOMAIN_CHAIN: u64 = 0x6368_6169_6e00_0001; // "chain"
const DOMAIN_DATASET: u64 = 0x6461_7461_0000_0002; // "data"

fn keyed(words: [u64; 4], stream: u64) -> ChainRng {
    let mut key = [0u8; 32];
    for (i, w) in words.iter().enumerate() {
        key[8 * i..8 * i + 8].copy_from_slice(&w.to_le_bytes());
    }
    let mut rng = ChaCha20Rng::from_seed(key);
    rng.set_stream(stream);
    rng
}

/// RNG of one chain: ChaCha20 keyed by `(base_seed, cell, replicate)`, stream `chain`.
///
/// `cell` is the [`stable_hash`] of the cell's canonical parameters.
pub fn chain_rng(base_seed: u64, cell: u64, replicate: u64, chain: u64) -> ChainRng {
    keyed([base_seed, cell, replicate, DOMAIN_CHAIN], chain)
}

/// A second RNG for a chain, for work that must never change the chain's own draws (fantasy
/// data for an evaluation, say): the same ChaCha20 key as `rng`, on stream `stream + 2^63`. Chain
/// streams are chain indices, far below 2^63, so the two never overlap, and the result depends on
/// the chain's identity only, not on how far `rng` has advanced.
pub fn evaluation_rng(rng: &ChainRng) -> ChainRng {
    let mut r = ChaCha20Rng::from_seed(rng.get_seed());
    r.set_stream(rng.get_stream() ^ (1 << 63));
    r
}

/// RNG that generates replicate `replicate` of a synthetic dataset whose canonical
/// specification hashes to `dataset`. Cells that share a dataset spec share the data.
pub fn dataset_rng(base_seed: u64, dataset: u64, replicate: u64) -> ChainRng {
    keyed([base_seed, dataset, replicate, DOMAIN_DATASET], 0)
}

/// FNV-1a (64-bit) of a byte string: a hash that is stable across platforms, Rust versions and
/// runs (unlike `std`'s `DefaultHasher`). Used on canonical JSON (sorted keys) of a cell.
pub fn stable_hash(bytes: &[u8]) -> u64 {
    stable_hash_extend(STABLE_HASH_START, bytes)
}

/// [`stable_hash`]'s state before any byte (FNV-1a's offset basis).
pub const STABLE_HASH_START: u64 = 0xcbf2_9ce4_8422_2325;

/// [`stable_hash`] in pieces: `stable_hash_extend(stable_hash_extend(STABLE_HASH_START, a), b)`
/// equals `stable_hash(a ++ b)`, so a long canonical text can be hashed without being held.
pub fn stable_hash_extend(mut h: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn streams_differ_and_repeat() {
        let a: u64 = chain_rng(1, 2, 3, 0).random();
        let b: u64 = chain_rng(1, 2, 3, 1).random();
        let c: u64 = chain_rng(1, 2, 3, 0).random();
        let d: u64 = dataset_rng(1, 2, 3).random();
        assert_ne!(a, b);
        assert_eq!(a, c);
        assert_ne!(a, d);
    }

    #[test]
    fn fnv_reference_values() {
        // Published FNV-1a 64 test vectors.
        assert_eq!(stable_hash(b""), 0xcbf29ce484222325);
        assert_eq!(stable_hash(b"a"), 0xaf63dc4c8601ec8c);
    }
}
