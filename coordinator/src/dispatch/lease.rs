//! A chain's lease: how long a worker's stream may stay silent, counted in time the coordinator
//! itself was running.
//!
//! `tokio::time::timeout` counts wall time, so a coordinator that was not scheduled for longer
//! than the lease (a niced run on a loaded machine, a suspended process, a VM paused) woke to
//! find every lease expired and declared its workers lost, in-process ones included, although
//! none had had a chance to speak. Here the lease is `LEASE_TICKS` ticks of an interval that
//! skips the ticks it missed: a stall of any length counts as one tick, and a worker that stays
//! silent while the coordinator runs is still lost after the lease.

use std::future::Future;
use std::time::Duration;

use tokio::time::{Instant, MissedTickBehavior, interval_at};

/// Ticks in one lease.
const LEASE_TICKS: u32 = 10;

/// `fut` did not finish within the lease.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Silent;

/// `fut`'s output, or [`Silent`] once `lease` of running time has passed without it (a stall of
/// the coordinator's own counts as `lease / 10` at most).
pub(super) async fn within_lease<F: Future>(lease: Duration, fut: F) -> Result<F::Output, Silent> {
    let period = (lease / LEASE_TICKS).max(Duration::from_millis(1));
    // The first tick one period from now: awaiting an interval's immediate first tick waits for
    // the timer's next turn (up to 1 ms), which a stream of sub-millisecond results pays on
    // every message.
    let mut ticks = interval_at(Instant::now() + period, period);
    ticks.set_missed_tick_behavior(MissedTickBehavior::Skip);
    tokio::pin!(fut);
    let mut passed = 0;
    loop {
        tokio::select! {
            biased;
            out = &mut fut => return Ok(out),
            _ = ticks.tick() => {
                passed += 1;
                if passed >= LEASE_TICKS {
                    return Err(Silent);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The coordinator's runtime blocked for 3 leases (one thread, a blocking sleep), then the
    /// worker speaks: the lease holds. `tokio::time::timeout` loses it (the negative control).
    #[tokio::test(flavor = "current_thread")]
    async fn a_stall_of_the_coordinator_does_not_expire_a_lease() {
        let lease = Duration::from_millis(100);
        for plain in [false, true] {
            let (tx, rx) = tokio::sync::oneshot::channel::<u32>();
            tokio::spawn(async move {
                tokio::task::yield_now().await;
                std::thread::sleep(3 * lease);
                tokio::task::yield_now().await;
                let _ = tx.send(7);
            });
            let got = if plain {
                tokio::time::timeout(lease, rx).await.map_err(|_| Silent)
            } else {
                within_lease(lease, rx).await
            };
            if plain {
                assert_eq!(got, Err(Silent), "wall-clock timeout should have expired");
            } else {
                assert_eq!(got.map(|r| r.ok()), Ok(Some(7)));
            }
        }
    }

    /// A future that is ready is returned on the first poll, without waiting for the timer.
    /// Awaiting the interval's immediate first tick before polling it (the negative control)
    /// is still pending then.
    #[tokio::test(flavor = "current_thread")]
    async fn a_ready_answer_does_not_wait_for_the_timer() {
        use std::task::{Context, Poll, Waker};
        let mut cx = Context::from_waker(Waker::noop());
        let lease = Duration::from_secs(60);
        let mut now = std::pin::pin!(within_lease(lease, std::future::ready(7)));
        assert_eq!(now.as_mut().poll(&mut cx), Poll::Ready(Ok(7)));
        let mut first_tick = std::pin::pin!(async {
            let mut ticks = tokio::time::interval(lease / LEASE_TICKS);
            ticks.tick().await;
            within_lease(lease, std::future::ready(7)).await
        });
        assert!(first_tick.as_mut().poll(&mut cx).is_pending());
    }

    /// A worker silent while the coordinator runs is lost after the lease, not much later.
    #[tokio::test(flavor = "current_thread")]
    async fn a_silent_stream_expires_after_the_lease() {
        let lease = Duration::from_millis(100);
        let start = std::time::Instant::now();
        let got = within_lease(lease, std::future::pending::<()>()).await;
        let took = start.elapsed();
        assert_eq!(got, Err(Silent));
        // Ten ticks of 10 ms: generous above, for a loaded machine.
        assert!(took >= lease && took < 20 * lease, "{took:?}");
    }
}
