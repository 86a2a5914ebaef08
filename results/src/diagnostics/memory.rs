//! Buffers and parallel loops for the million-draw chains: vectors backed by huge pages where
//! the kernel allows, a pool that hands the buffers of one diagnostic call to the next, and a
//! dependency-free scoped-thread helper for the two embarrassingly parallel loops.

use std::any::Any;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Buffers of at least this many bytes go back to the [`POOL`] when done with.
const POOL_MIN_BYTES: usize = 256 << 10;

/// At most this many bytes of buffers are kept in the [`POOL`] (about what one call on
/// 4 × 10⁶ draws uses); a buffer that would exceed it is freed.
const POOL_MAX_BYTES: usize = 512 << 20;

/// Draw-sized buffers that a diagnostic call has finished with, kept for the next call.
///
/// A fresh buffer of tens of MB costs more than the work done in it: every page of it is a
/// page fault, and the kernel zeroes it first (`clear_page_erms` was 11–20% of the time of
/// R-hat + bulk + tail ESS on 4 × 10⁶ draws). Diagnosing the many parameters of a
/// run calls them again and again on draws of one size, so the buffers of one call are the
/// next call's. Up to [`POOL_MAX_BYTES`] stay allocated for the life of the process
/// ([`release_buffers`] frees them). Each entry is a `Vec<T>` of some `Copy` type and its
/// capacity in bytes; a buffer is only ever handed out as the type it was given back as.
struct Pool {
    held: usize,
    buffers: Vec<(usize, Box<dyn Any + Send>)>,
}

static POOL: Mutex<Pool> = Mutex::new(Pool {
    held: 0,
    buffers: Vec::new(),
});

/// The smallest pooled `Vec<T>` with room for `n` values, with whatever values it held.
fn take<T: Copy + Send + 'static>(n: usize) -> Option<Vec<T>> {
    if n.saturating_mul(std::mem::size_of::<T>()) < POOL_MIN_BYTES {
        return None;
    }
    let mut pool = POOL.lock().ok()?;
    let (i, bytes) = pool
        .buffers
        .iter()
        .enumerate()
        .filter(|(_, (_, b))| {
            b.downcast_ref::<Vec<T>>()
                .is_some_and(|v| v.capacity() >= n)
        })
        .map(|(i, &(bytes, _))| (i, bytes))
        .min_by_key(|&(_, bytes)| bytes)?;
    let (_, b) = pool.buffers.swap_remove(i);
    pool.held -= bytes;
    b.downcast::<Vec<T>>().ok().map(|v| *v)
}

/// Give a buffer back to the pool for the next diagnostic call (small ones, and any beyond
/// [`POOL_MAX_BYTES`], are simply freed).
pub(crate) fn recycle<T: Copy + Send + 'static>(v: Vec<T>) {
    let bytes = v.capacity().saturating_mul(std::mem::size_of::<T>());
    if bytes < POOL_MIN_BYTES {
        return;
    }
    let Ok(mut pool) = POOL.lock() else {
        return;
    };
    if pool.held + bytes <= POOL_MAX_BYTES {
        pool.held += bytes;
        pool.buffers.push((bytes, Box::new(v)));
    }
}

/// Empty the pool; returns how many bytes it held ([`super::release_buffers`]).
pub(crate) fn release_pool() -> usize {
    match POOL.lock() {
        Ok(mut pool) => {
            pool.buffers.clear();
            std::mem::take(&mut pool.held)
        }
        Err(_) => 0,
    }
}

/// An empty `Vec` with room for `n` values, for the draw-sized buffers (tens of MB for
/// millions of draws): a pooled one where a previous call left one, else a fresh allocation
/// advised for transparent huge pages on Linux (`madvise(MADV_HUGEPAGE)`, honoured where THP
/// is in "madvise" or "always" mode): filling a fresh 32 MB buffer then takes 16 page faults
/// instead of 8192, which measured ~20% of the time of the rank diagnostics on 4 × 10⁶
/// draws. Elsewhere, or for small `n`, it is `Vec::with_capacity`.
pub(crate) fn big_vec<T: Copy + Send + 'static>(n: usize) -> Vec<T> {
    if let Some(mut v) = take(n) {
        v.clear();
        return v;
    }
    let v: Vec<T> = Vec::with_capacity(n);
    #[cfg(target_os = "linux")]
    advise_huge_pages(
        v.as_ptr() as usize,
        n.saturating_mul(std::mem::size_of::<T>()),
    );
    v
}

#[cfg(target_os = "linux")]
fn advise_huge_pages(addr: usize, len: usize) {
    const HUGE: usize = 2 << 20;
    if len < 2 * HUGE {
        return;
    }
    // The 2 MB-aligned pages wholly inside the allocation.
    let start = addr.next_multiple_of(HUGE);
    let end = (addr + len) / HUGE * HUGE;
    if end > start {
        // SAFETY: [start, end) lies inside the allocation that `big_vec` just made and
        // owns; MADV_HUGEPAGE changes only how the kernel backs those pages, never their
        // contents or validity. The result is ignored: the advice is a hint, and a kernel
        // without THP rejects it harmlessly.
        #[allow(unsafe_code)]
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

/// `n` values for a caller that overwrites every one before reading any: a pooled buffer's
/// old values where a previous call left one (no pass over it), else zeros allocated zeroed
/// (`calloc`: a fresh mapping is zero already, so its pages are written once, by the
/// kernel). Safe either way; only a caller that reads a slot it has not written would see
/// another call's values.
pub(crate) fn big_vec_overwritten<T: Copy + Default + Send + 'static>(n: usize) -> Vec<T> {
    if let Some(mut v) = take(n) {
        v.truncate(n);
        v.resize(n, T::default());
        return v;
    }
    let v = vec![T::default(); n];
    #[cfg(target_os = "linux")]
    advise_huge_pages(
        v.as_ptr() as usize,
        n.saturating_mul(std::mem::size_of::<T>()),
    );
    v
}

/// Add `part` into `total` element by element (a thread's partial sums), then give `part`
/// back to the pool.
pub(crate) fn add_into(total: &mut [f64], part: Vec<f64>) {
    for (t, p) in total.iter_mut().zip(&part) {
        *t += p;
    }
    recycle(part);
}

/// `n` copies of `value` in a [`big_vec`].
pub(crate) fn big_vec_filled<T: Copy + Send + 'static>(n: usize, value: T) -> Vec<T> {
    let mut v = big_vec(n);
    v.resize(n, value);
    v
}

/// `n` f64 slots, to be written once each, that several threads may write at positions none of them
/// owns (the scattered writes of rank normalisation): atomics are the safe way, and a
/// relaxed store compiles to a plain store. [`SharedF64s::into_vec`] hands back the values.
pub(crate) struct SharedF64s(Vec<AtomicU64>);

impl SharedF64s {
    /// `n` slots, each of which the caller sets before [`SharedF64s::into_vec`] (their
    /// values before that are unspecified: see [`big_vec_overwritten`]).
    pub(crate) fn overwritten(n: usize) -> Self {
        // Same size and alignment: collected in place, no second allocation.
        Self(
            big_vec_overwritten::<f64>(n)
                .into_iter()
                .map(|x| AtomicU64::new(x.to_bits()))
                .collect(),
        )
    }

    #[inline]
    pub(crate) fn set(&self, k: usize, v: f64) {
        self.0[k].store(v.to_bits(), Ordering::Relaxed);
    }

    pub(crate) fn into_vec(self) -> Vec<f64> {
        self.0
            .into_iter()
            .map(|b| f64::from_bits(b.into_inner()))
            .collect()
    }
}

/// Number of worker threads worth using for `work` units (≥ 1).
pub(crate) fn threads_for(work: usize, min_per_thread: usize) -> usize {
    let avail = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    avail.min(work / min_per_thread.max(1)).max(1)
}

/// `f` of every item, on up to `threads` scoped threads (contiguous groups of items; the
/// calling thread takes the first group), results in item order.
pub(crate) fn par_map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let per = items.len().div_ceil(threads.max(1)).max(1);
    let f = &f;
    let group = move |g: &[T]| -> Vec<R> { g.iter().map(f).collect() };
    let mut groups = items.chunks(per);
    let first = groups.next().unwrap_or(&[]);
    std::thread::scope(|s| {
        let handles: Vec<_> = groups.map(|g| s.spawn(move || group(g))).collect();
        let mut out = group(first);
        for h in handles {
            // A panic in a worker is a bug in this module; re-raise it unchanged.
            out.extend(h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        }
        out
    })
}

/// Run `f(offset, chunk)` over `data` cut into `threads` contiguous chunks, in parallel
/// (scoped threads; the calling thread takes the first chunk).
pub(crate) fn par_chunks_mut<T, F>(data: &mut [T], threads: usize, f: F)
where
    T: Send,
    F: Fn(usize, &mut [T]) + Sync,
{
    if threads <= 1 || data.len() < 2 {
        f(0, data);
        return;
    }
    let chunk = data.len().div_ceil(threads);
    std::thread::scope(|s| {
        let mut chunks = data.chunks_mut(chunk).enumerate();
        let first = chunks.next();
        for (i, c) in chunks {
            let f = &f;
            s.spawn(move || f(i * chunk, c));
        }
        if let Some((_, c)) = first {
            f(0, c);
        }
    });
}
