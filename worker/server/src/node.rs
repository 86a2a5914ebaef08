//! `causeway worker`: one worker process. It serves chains on `--listen`; with `--coordinator` it
//! joins that run and exits when the run is over. SIGTERM / Ctrl-C drains it.

use std::net::SocketAddr;
use std::time::Duration;

use crate::auth;
use crate::process::{hostname, termination_signal};
use causeway_proto::CODE_VERSION;

/// A worker process that could not start or stopped on an error.
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    /// `--listen` could not be bound.
    #[error("worker --listen {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    /// The gRPC server failed.
    #[error("{0}")]
    Serve(String),
}

/// What `causeway worker` was asked to do (its flags).
#[derive(Debug, Clone)]
pub struct WorkerOptions {
    pub listen: SocketAddr,
    pub advertise: Option<String>,
    pub coordinator: Option<String>,
    pub slots: u32,
    pub register_every: Duration,
    pub give_up_after: Duration,
    pub heartbeat: Duration,
    pub security: auth::Security,
}

/// `causeway worker`: serve chains; with `--coordinator`, join that run and exit when it is
/// over. SIGTERM / Ctrl-C drains: no new chains, the ones in flight finish, then exit 0.
///
/// Returns `Ok(true)` when the worker stopped normally (drained, run finished, coordinator gone)
/// and `Ok(false)` when the coordinator refused it.
///
/// Errors: [`NodeError`] if `--listen` cannot be bound or the server fails.
pub async fn run_worker(o: WorkerOptions) -> Result<bool, NodeError> {
    let listener = tokio::net::TcpListener::bind(o.listen)
        .await
        .map_err(|source| NodeError::Bind {
            addr: o.listen,
            source,
        })?;
    let bound = listener.local_addr().map_err(|source| NodeError::Bind {
        addr: o.listen,
        source,
    })?;
    let advertise = o.advertise.clone().unwrap_or_else(|| {
        if bound.ip().is_unspecified() {
            format!("{}:{}", hostname(), bound.port())
        } else {
            bound.to_string()
        }
    });
    let svc = crate::WorkerService::new(format!("{}@{advertise}", hostname()), o.slots)
        .with_heartbeat(o.heartbeat);
    eprintln!(
        "causeway worker {} listening on {bound} as {advertise} with {} slots ({})",
        CODE_VERSION,
        o.slots,
        o.security.describe()
    );
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let server = {
        let (svc, security) = (svc.clone(), o.security.clone());
        tokio::spawn(async move {
            auth::serve_listener(svc.into_server(), listener, &security, async {
                let _ = stop_rx.await;
            })
            .await
        })
    };
    let reg = o.coordinator.map(|url| crate::Registration {
        coordinator: url.trim().to_string(),
        addr: advertise.clone(),
        worker_id: svc.id().to_string(),
        slots: svc.slots(),
        every: o.register_every,
        give_up_after: o.give_up_after,
        security: o.security.clone(),
    });
    let registered = async {
        match &reg {
            Some(r) => crate::keep_registered(r).await,
            None => std::future::pending().await,
        }
    };
    let mut ok = true;
    tokio::select! {
        _ = termination_signal() => {
            eprintln!("draining: no new chains; finishing the chains in flight");
            svc.drain();
            if let Some(r) = &reg {
                crate::deregister(r).await;
            }
        }
        end = registered => match end {
            crate::RegistrationEnd::RunFinished => eprintln!("the run is finished"),
            crate::RegistrationEnd::CoordinatorGone => {
                eprintln!("the coordinator is gone; stopping")
            }
            crate::RegistrationEnd::Refused(why) => {
                eprintln!("error: the coordinator refused this worker: {why}");
                ok = false;
            }
        },
    }
    svc.drain();
    svc.wait_idle().await;
    let _ = stop_tx.send(());
    match server.await {
        Ok(Ok(())) => Ok(ok),
        Ok(Err(e)) => Err(NodeError::Serve(format!("worker on {bound}: {e}"))),
        Err(e) => Err(NodeError::Serve(format!("worker on {bound}: {e}"))),
    }
}
