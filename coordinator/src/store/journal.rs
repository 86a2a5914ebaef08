//! The journal of finished chains: each done chain's result (protobuf `ChainResult` bytes)
//! appended to its shard's file, `<out>/journal/shard-<s>.journal`, before the transaction that
//! marks its row done, and the file removed once the shard is sealed
//! (`causeway_results::rundir::shards`) and its digest recorded.
//!
//! A record ([`record`]) is a 28-byte head, then the payload: its length (u32), the chain's
//! plan index (u64), the XXH3-128 digest of the index and the payload ([`digest_parts`]), all
//! little-endian. A reader takes the records in order up to the first that is short or whose
//! digest differs (a kill in the middle of an append, or damage): what follows is not trusted.
//!
//! What a record is worth comes from the job table: only a chain whose row says `done` is
//! sealed from it. A record whose row never committed (a kill between the append and the
//! transaction) is dropped, and the chain runs again; a done row whose record was lost (damage)
//! goes back to `pending` when the run reconciles its table with the shards.
//!
//! Why files and not a table of `jobs.sqlite` (where the journal was before; such rows are
//! still sealed): a result of ≈ 8 KB written into SQLite went through its write-ahead log, its
//! overflow pages and a delete; appended to a file it is one copy. On the CEP-shaped cluster
//! bench the table's journal was a fifth of the coordinator's CPU.

use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use causeway_results::rundir::digest::{Digest, digest_parts};
use causeway_results::rundir::shards::shard_of;

/// The journal's directory under the run directory.
pub const DIR: &str = "journal";
const PREFIX: &str = "shard-";
const SUFFIX: &str = ".journal";
/// Length, plan index, digest.
const HEAD: usize = 4 + 8 + 16;

/// Shard `shard`'s journal file under run directory `root`.
pub fn path(root: &Path, shard: usize) -> PathBuf {
    root.join(DIR).join(format!("{PREFIX}{shard:05}{SUFFIX}"))
}

/// The shards with a journal file under run directory `root`, in order.
pub fn shards(root: &Path) -> Vec<usize> {
    let mut out: Vec<usize> = fs::read_dir(root.join(DIR))
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| {
                    let name = e.file_name();
                    let name = name.to_str()?;
                    name.strip_prefix(PREFIX)?
                        .strip_suffix(SUFFIX)?
                        .parse()
                        .ok()
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort_unstable();
    out
}

fn digest_of(index: u64, payload: &[u8]) -> Digest {
    digest_parts(&[&index.to_le_bytes(), payload])
}

/// Plan job `index`'s result `result` as a journal record: the head (length, index, digest),
/// then the payload, its protobuf bytes. Framed where the result is encoded, on the threads
/// that check results, so that the writer thread only appends.
///
/// # Errors
/// A result of 4 GiB or more (the head's length is 32 bits).
pub fn record(index: usize, result: &impl prost::Message) -> Result<Vec<u8>, String> {
    let n = result.encoded_len();
    let len = u32::try_from(n).map_err(|_| format!("a result of {n} bytes is over 4 GiB"))?;
    let mut out = Vec::with_capacity(HEAD + n);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&(index as u64).to_le_bytes());
    out.extend_from_slice(&[0; 16]);
    // Encoding into a Vec with room for it cannot fail.
    let _ = result.encode(&mut out);
    let digest = digest_of(index as u64, &out[HEAD..]);
    out[12..HEAD].copy_from_slice(&digest);
    Ok(out)
}

/// The payload (the result's protobuf bytes) of a [`record`].
#[cfg(test)]
pub fn payload(record: &[u8]) -> &[u8] {
    record.get(HEAD..).unwrap_or_default()
}

/// Append `records` (plan index, its [`record`]) of a plan of `n_jobs` jobs to their shards'
/// journal files under `root`, each file opened once. A failed append is cut back to the
/// file's length before it, so that a later append is not hidden behind a torn record.
///
/// # Errors
/// The directory or a file cannot be created or written (the full disk among them); the
/// caller must then not mark the chains done.
pub fn append<'a>(
    root: &Path,
    n_jobs: usize,
    records: impl IntoIterator<Item = (usize, &'a [u8])>,
) -> io::Result<()> {
    let mut by_shard: Vec<(usize, &[u8])> = records
        .into_iter()
        .map(|(i, record)| (shard_of(i, n_jobs), record))
        .collect();
    if by_shard.is_empty() {
        return Ok(());
    }
    by_shard.sort_by_key(|&(s, _)| s);
    fs::create_dir_all(root.join(DIR))?;
    let mut buf = Vec::new();
    for group in by_shard.chunk_by(|a, b| a.0 == b.0) {
        buf.clear();
        group
            .iter()
            .for_each(|(_, record)| buf.extend_from_slice(record));
        let p = path(root, group[0].0);
        let mut f = fs::OpenOptions::new().create(true).append(true).open(&p)?;
        let before = f.metadata()?.len();
        if let Err(e) = f.write_all(&buf) {
            let _ = f.set_len(before);
            return Err(e);
        }
    }
    Ok(())
}

/// A journal file read back: its records (plan index, result bytes) and why it ended early, if
/// it did.
pub type Records = (Vec<(usize, Vec<u8>)>, Option<String>);

/// The records of shard `shard`'s journal file under `root`, in the order they were appended,
/// up to the first torn or damaged one, and whether there was one (`None`: the file ends
/// cleanly). No file: no records.
///
/// # Errors
/// The file exists but cannot be read.
pub fn read(root: &Path, shard: usize) -> io::Result<Records> {
    let bytes = match fs::read(path(root, shard)) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((Vec::new(), None)),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let Some(head) = bytes.get(at..at + HEAD) else {
            return Ok((out, Some(format!("a torn record at byte {at}"))));
        };
        let len = u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as usize;
        let mut index = [0u8; 8];
        index.copy_from_slice(&head[4..12]);
        let index = u64::from_le_bytes(index);
        let Some(payload) = bytes.get(at + HEAD..at + HEAD + len) else {
            return Ok((out, Some(format!("a torn record at byte {at}"))));
        };
        if head[12..] != digest_of(index, payload) {
            return Ok((out, Some(format!("a damaged record at byte {at}"))));
        }
        let Ok(index) = usize::try_from(index) else {
            return Ok((out, Some(format!("a damaged record at byte {at}"))));
        };
        out.push((index, payload.to_vec()));
        at += HEAD + len;
    }
    Ok((out, None))
}

/// Remove shard `shard`'s journal file under `root` (sealed: its records are in the shard).
///
/// # Errors
/// The file exists and cannot be removed.
pub fn remove(root: &Path, shard: usize) -> io::Result<()> {
    match fs::remove_file(path(root, shard)) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Remove the journal's directory if it is empty (a finished run leaves none).
pub fn remove_dir_if_empty(root: &Path) {
    let _ = fs::remove_dir(root.join(DIR));
}
