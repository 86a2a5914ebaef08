//! Checksums of what the run directory stores, so that damage is detected before anything is
//! adopted: a chain's files (their digest goes to `jobs.sqlite` in the transaction that marks the
//! chain done) and every stored checkpoint (sealed: a magic, the digest, the payload).
//!
//! XXH3-128 guards against accidental damage (a flipped bit, a truncated or foreign blob), not
//! against someone who can write the job table: they could rewrite the digest as well.

use xxhash_rust::xxh3::{Xxh3, xxh3_128};

/// A 128-bit XXH3 digest, little-endian.
pub type Digest = [u8; 16];

/// The digest of `bytes`.
pub fn digest(bytes: &[u8]) -> Digest {
    xxh3_128(bytes).to_le_bytes()
}

/// The digest of several byte strings in order, each prefixed by its length (so that moving
/// bytes from one to the next changes it).
pub fn digest_parts(parts: &[&[u8]]) -> Digest {
    // Streamed: equal to the digest of the concatenation, without copying the files' bytes.
    let mut h = Xxh3::new();
    for p in parts {
        h.update(&(p.len() as u64).to_le_bytes());
        h.update(p);
    }
    h.digest128().to_le_bytes()
}

/// The first bytes of a sealed blob (format 1: magic, digest of the payload, payload).
pub const SEAL_MAGIC: &[u8; 8] = b"CWSEAL01";

/// `payload` with its digest in front: [`SEAL_MAGIC`] (8 bytes), [`digest`] (16), the payload.
pub fn seal(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 24);
    out.extend_from_slice(SEAL_MAGIC);
    out.extend_from_slice(&digest(payload));
    out.extend_from_slice(payload);
    out
}

/// The payload of a [`seal`]ed blob.
///
/// # Errors
/// The blob is shorter than the seal, does not start with [`SEAL_MAGIC`] (damaged, or written
/// before checkpoints were sealed), or its payload's digest differs from the sealed one.
pub fn unseal(blob: &[u8]) -> Result<&[u8], String> {
    if blob.len() < 24 {
        return Err(format!(
            "{} bytes is shorter than the 24-byte seal",
            blob.len()
        ));
    }
    let (head, payload) = blob.split_at(24);
    if &head[..8] != SEAL_MAGIC {
        return Err("no seal (damaged, or saved by an older causeway)".into());
    }
    if head[8..] != digest(payload) {
        return Err("its checksum does not match its contents".into());
    }
    Ok(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_blob_unseals_and_any_damage_is_refused() {
        let payload: Vec<u8> = (0..200u32).map(|i| (i * 7 % 251) as u8).collect();
        let blob = seal(&payload);
        assert_eq!(unseal(&blob), Ok(payload.as_slice()));
        // Every single-bit flip, anywhere in the blob, is refused.
        for byte in 0..blob.len() {
            for bit in 0..8 {
                let mut b = blob.clone();
                b[byte] ^= 1 << bit;
                assert!(
                    unseal(&b).is_err(),
                    "flip of bit {bit} of byte {byte} adopted"
                );
            }
        }
        for len in 0..blob.len() {
            assert!(unseal(&blob[..len]).is_err(), "truncation to {len} adopted");
        }
        assert!(unseal(&payload).is_err(), "an unsealed payload adopted");
    }

    #[test]
    fn digest_parts_sees_where_the_parts_split() {
        assert_ne!(digest_parts(&[b"ab", b"c"]), digest_parts(&[b"a", b"bc"]));
        assert_eq!(digest_parts(&[b"ab", b"c"]), digest_parts(&[b"ab", b"c"]));
        // The streamed digest is the one of the length-prefixed concatenation.
        let mut whole = Vec::new();
        for p in [&b"ab"[..], b"c"] {
            whole.extend_from_slice(&(p.len() as u64).to_le_bytes());
            whole.extend_from_slice(p);
        }
        assert_eq!(digest_parts(&[b"ab", b"c"]), digest(&whole));
    }
}
