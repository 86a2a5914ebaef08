//! Handing freed heap memory back to the operating system.
//!
//! glibc's malloc gives each thread that allocates its own arena (up to eight per core) and
//! keeps in it what the thread frees. The coordinator's runtime, store and worker threads each
//! allocate and free every chain's result, so a run of 10⁶ one-iteration chains held about
//! 250 MiB resident on a heap of about 130 MB. `malloc_trim` returns the free pages of every
//! arena. Limiting the arenas instead (`MALLOC_ARENA_MAX=2`) made a run of 2×10⁵ chains take
//! 1.35 times as long, and mimalloc held more (450 MiB), both measured in `docs/benchmarks.md`.

use std::time::Duration;

/// Return the heap's free pages to the operating system now: glibc on Linux; elsewhere (other
/// allocators return memory their own way) nothing.
pub fn trim() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointer and only releases pages malloc holds free; glibc
    // locks each arena while it walks it, so it is safe beside any other thread's malloc.
    #[allow(unsafe_code)]
    unsafe {
        libc::malloc_trim(0);
    }
}

/// [`trim`] every `period` on a thread of its own, for the rest of the process. A thread that
/// cannot be started leaves memory as it is, which is only less frugal.
pub fn trim_every(period: Duration) {
    let _ = std::thread::Builder::new()
        .name("malloc trim".into())
        .spawn(move || {
            loop {
                std::thread::sleep(period);
                trim();
            }
        });
}
