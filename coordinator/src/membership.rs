//! Workers that join a run at any time: the coordinator's `Coordinator` gRPC service.
//!
//! `causeway run --listen ADDR` serves it. A worker started with `--coordinator URL` calls
//! `Register` when it starts and then periodically; the first call (or the first after the
//! worker was lost) makes the coordinator connect back to the worker's address, check its
//! protocol with `Hello`, and hand it to dispatch. Later calls are the worker's liveness. A
//! worker that drains registers once with `draining = true`. Once the run is over every
//! registration is answered `run_finished = true`, so workers (and Slurm job arrays) end.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use causeway_proto::PROTOCOL_VERSION;
use causeway_proto::v1::coordinator_server::{Coordinator, CoordinatorServer};
use causeway_proto::v1::{RegisterReply, RegisterRequest};
use causeway_worker::auth::{self, Security};
use tokio::sync::mpsc;
use tonic::{Request, Response, Status};

use crate::dispatch::{self, WorkerHandle};

/// File in the run directory holding the URL workers pass to `--coordinator`.
pub const URL_FILE: &str = "coordinator.url";

enum Member {
    /// `Hello` in progress.
    Connecting,
    Joined {
        live_slots: Arc<AtomicUsize>,
        last_seen: Instant,
        told_finished: bool,
    },
}

struct Inner {
    members: Mutex<HashMap<String, Member>>,
    /// Why connecting back to an address failed last (told to that worker at its next
    /// registration, so that a wrong `--advertise` reaches the worker's log).
    unreachable: Mutex<HashMap<String, String>>,
    /// Token and TLS for connecting back to registered workers.
    security: Security,
    to_dispatch: mpsc::Sender<WorkerHandle>,
    finished: AtomicBool,
}

/// The `Coordinator` service of one run.
#[derive(Clone)]
pub struct CoordinatorService(Arc<Inner>);

impl CoordinatorService {
    /// New workers are connected (with the token and TLS of `security`) and sent on
    /// `to_dispatch`.
    pub fn new(to_dispatch: mpsc::Sender<WorkerHandle>, security: Security) -> Self {
        CoordinatorService(Arc::new(Inner {
            members: Mutex::new(HashMap::new()),
            unreachable: Mutex::new(HashMap::new()),
            security,
            to_dispatch,
            finished: AtomicBool::new(false),
        }))
    }

    /// From now on, tell every worker that registers that the run is finished.
    pub fn finish(&self) {
        self.0.finished.store(true, Ordering::SeqCst);
    }

    /// After [`CoordinatorService::finish`]: wait (at most `max`) until every worker seen in
    /// the last few seconds has been told, so workers exit promptly instead of timing out.
    pub async fn linger(&self, max: Duration) {
        let until = Instant::now() + max;
        while Instant::now() < until {
            let waiting = match self.0.members.lock() {
                Ok(m) => m.values().any(|v| {
                    matches!(v, Member::Joined { last_seen, told_finished: false, .. }
                        if last_seen.elapsed() < Duration::from_secs(5))
                }),
                Err(_) => false,
            };
            if !waiting {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The tonic server wrapper.
    pub fn into_server(self) -> CoordinatorServer<Self> {
        CoordinatorServer::new(self)
    }

    fn spawn_connect(&self, addr: String) {
        let inner = self.0.clone();
        tokio::spawn(async move {
            match dispatch::connect_secure(&addr, &inner.security).await {
                Ok(h) => {
                    if let Ok(mut m) = inner.members.lock() {
                        m.insert(
                            addr.clone(),
                            Member::Joined {
                                live_slots: h.live_slots.clone(),
                                last_seen: Instant::now(),
                                told_finished: false,
                            },
                        );
                    }
                    if inner.to_dispatch.send(h).await.is_err() {
                        tracing::info!("worker {addr} registered after dispatch ended");
                    }
                }
                Err(e) => {
                    tracing::warn!("registered worker {addr}: {e}");
                    if let Ok(mut m) = inner.members.lock() {
                        m.remove(&addr);
                    }
                    if let Ok(mut u) = inner.unreachable.lock() {
                        u.insert(addr.clone(), e.to_string());
                    }
                }
            }
        });
    }
}

/// The address to connect back to: `addr` as given, with an unspecified or missing host
/// replaced by the caller's IP.
fn resolve_addr(addr: &str, peer: Option<SocketAddr>) -> String {
    let (host, port) = addr.rsplit_once(':').unwrap_or(("", addr));
    let unspecified = matches!(host, "" | "0.0.0.0" | "[::]" | "::");
    match (unspecified, peer) {
        (true, Some(p)) => SocketAddr::new(p.ip(), port.parse().unwrap_or(0)).to_string(),
        _ => addr.to_string(),
    }
}

#[tonic::async_trait]
impl Coordinator for CoordinatorService {
    async fn register(
        &self,
        req: Request<RegisterRequest>,
    ) -> Result<Response<RegisterReply>, Status> {
        let peer = req.remote_addr();
        let r = req.into_inner();
        let reply = |accepted: bool, run_finished: bool, message: String| {
            Ok(Response::new(RegisterReply {
                protocol_version: PROTOCOL_VERSION,
                accepted,
                run_finished,
                message,
            }))
        };
        if r.protocol_version != PROTOCOL_VERSION {
            return reply(
                false,
                false,
                format!(
                    "protocol version mismatch: worker speaks {}, coordinator speaks {PROTOCOL_VERSION}",
                    r.protocol_version
                ),
            );
        }
        let addr = resolve_addr(&r.addr, peer);
        let finished = self.0.finished.load(Ordering::SeqCst);
        let connect = {
            let mut members = self
                .0
                .members
                .lock()
                .map_err(|_| Status::internal("membership table poisoned"))?;
            let entry = members.get_mut(&addr);
            match entry {
                Some(Member::Joined {
                    live_slots,
                    last_seen,
                    told_finished,
                }) => {
                    *last_seen = Instant::now();
                    *told_finished |= finished;
                    live_slots.load(Ordering::SeqCst) == 0 && !r.draining && !finished
                }
                Some(Member::Connecting) => false,
                None if r.draining || finished => false,
                None => {
                    members.insert(addr.clone(), Member::Connecting);
                    true
                }
            }
        };
        // A previous attempt to connect back failed: say so to the worker (it logs it).
        let message = self
            .0
            .unreachable
            .lock()
            .ok()
            .and_then(|mut u| u.remove(&addr))
            .map(|e| {
                format!("the coordinator could not connect back to {addr} (check --advertise): {e}")
            })
            .unwrap_or_default();
        if connect {
            tracing::info!(worker = %r.worker_id, %addr, slots = r.slots, "worker registered");
            if let Ok(mut m) = self.0.members.lock() {
                m.insert(addr.clone(), Member::Connecting);
            }
            self.spawn_connect(addr);
        }
        reply(true, finished, message)
    }
}

/// Serve `service` on `listener` until `shutdown` resolves, with the token check and TLS of
/// `security` (a non-loopback listener without a token is refused unless `--insecure`).
pub async fn serve(
    service: CoordinatorService,
    listener: tokio::net::TcpListener,
    security: &Security,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    auth::serve_listener(service.into_server(), listener, security, shutdown).await
}

/// The URL workers should use: `advertise` if given (`http://` added when it has no scheme),
/// else `http://<hostname>:<port>` for an unspecified bind address, else `http://<bound>`.
pub fn coordinator_url(bound: SocketAddr, advertise: Option<&str>) -> String {
    match advertise {
        Some(a) if a.contains("://") => a.to_string(),
        Some(a) => format!("http://{a}"),
        None if bound.ip().is_unspecified() => format!(
            "http://{}:{}",
            causeway_worker::process::hostname(),
            bound.port()
        ),
        None => format!("http://{bound}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unspecified_hosts_become_the_callers_ip() {
        let peer: SocketAddr = "10.1.2.3:5555".parse().expect("addr");
        assert_eq!(resolve_addr("0.0.0.0:7070", Some(peer)), "10.1.2.3:7070");
        assert_eq!(resolve_addr("node7:7070", Some(peer)), "node7:7070");
        assert_eq!(resolve_addr("0.0.0.0:7070", None), "0.0.0.0:7070");
        let bound: SocketAddr = "127.0.0.1:9000".parse().expect("addr");
        assert_eq!(coordinator_url(bound, None), "http://127.0.0.1:9000");
        assert_eq!(
            coordinator_url(bound, Some("head:9000")),
            "http://head:9000"
        );
    }
}
