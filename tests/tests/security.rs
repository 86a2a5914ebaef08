//! The coordinator's side of authentication and version checks (`dispatch::connect_secure`).

use causeway_coordinator::dispatch::connect_secure;
use causeway_proto::PROTOCOL_VERSION;
use causeway_proto::v1::worker_server::{Worker, WorkerServer};
use causeway_proto::v1::{ChainEvent, HelloReply, HelloRequest, Job, JobBatch};
use causeway_worker::WorkerService;
use causeway_worker::auth::{self, Security, Token};
use tonic::{Request, Response, Status};

/// A worker from the future: it greets with protocol version 99.
struct Future99;

#[tonic::async_trait]
impl Worker for Future99 {
    async fn hello(&self, _r: Request<HelloRequest>) -> Result<Response<HelloReply>, Status> {
        Ok(Response::new(HelloReply {
            protocol_version: 99,
            worker_id: "v99".into(),
            code_version: "test".into(),
            models: vec![],
            slots: 1,
        }))
    }
    type RunChainStream = tokio_stream::wrappers::ReceiverStream<Result<ChainEvent, Status>>;
    async fn run_chain(&self, _r: Request<Job>) -> Result<Response<Self::RunChainStream>, Status> {
        Err(Status::internal("not reached"))
    }
    type RunBatchStream = tokio_stream::wrappers::ReceiverStream<Result<ChainEvent, Status>>;
    async fn run_batch(
        &self,
        _r: Request<JobBatch>,
    ) -> Result<Response<Self::RunBatchStream>, Status> {
        Err(Status::internal("not reached"))
    }
}

async fn listener() -> (tokio::net::TcpListener, String) {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let a = l.local_addr().expect("addr").to_string();
    (l, a)
}

#[tokio::test]
async fn coordinator_refuses_a_worker_of_another_version() {
    let (l, addr) = listener().await;
    tokio::spawn(async move {
        let _ = auth::serve_listener(
            WorkerServer::new(Future99),
            l,
            &Security::default(),
            async { std::future::pending::<()>().await },
        )
        .await;
    });
    let err = connect_secure(&addr, &Security::default())
        .await
        .expect_err("version 99 must be refused");
    let msg = format!("{err:#}");
    assert!(
        msg.contains("99") && msg.contains(&format!("speaks {PROTOCOL_VERSION}")),
        "{msg}"
    );
}

#[tokio::test]
async fn coordinator_sends_its_token() {
    let sec = Security {
        token: Some(Token::new("shared-secret").expect("token")),
        ..Default::default()
    };
    let (l, addr) = listener().await;
    let server = sec.clone();
    tokio::spawn(async move {
        let svc = WorkerService::new("w", 2).into_server();
        let _ = auth::serve_listener(svc, l, &server, async {
            std::future::pending::<()>().await
        })
        .await;
    });
    let err = connect_secure(&addr, &Security::default())
        .await
        .expect_err("no token");
    assert!(format!("{err:#}").contains("Unauthenticated"), "{err:#}");
    let h = connect_secure(&addr, &sec).await.expect("right token");
    assert_eq!(h.slots, 2);
}

/// The other direction: a worker registering with `causeway run --listen` must carry the token.
/// Without it, or with a wrong one, `Register` is refused as unauthenticated; with it, accepted.
#[tokio::test]
async fn coordinator_service_refuses_registration_without_the_token() {
    use causeway_coordinator::membership::{self, CoordinatorService};
    use causeway_proto::v1::RegisterRequest;
    use causeway_proto::v1::coordinator_client::CoordinatorClient;

    let secure = |t: &str| Security {
        token: Some(Token::new(t).expect("token")),
        ..Security::default()
    };
    let coordinator_security = secure("coordinator-secret");
    let (l, addr) = listener().await;
    let (workers_tx, _workers_rx) = tokio::sync::mpsc::channel(4);
    let svc = CoordinatorService::new(workers_tx, coordinator_security.clone());
    svc.finish(); // answer run_finished, so no connect-back is attempted
    tokio::spawn(async move {
        let _ = membership::serve(svc, l, &coordinator_security, async {
            std::future::pending::<()>().await
        })
        .await;
    });
    let register = |sec: Security| {
        let addr = addr.clone();
        async move {
            let channel = auth::connect_authed(&addr, &sec).await.expect("connect");
            CoordinatorClient::new(channel)
                .register(RegisterRequest {
                    protocol_version: PROTOCOL_VERSION,
                    worker_id: "w".into(),
                    addr: "127.0.0.1:1".into(),
                    slots: 1,
                    draining: false,
                })
                .await
        }
    };
    for (who, sec) in [
        ("no token", Security::default()),
        ("wrong token", secure("guess")),
    ] {
        let err = register(sec).await.expect_err(who);
        assert_eq!(err.code(), tonic::Code::Unauthenticated, "{who}: {err:?}");
    }
    let ok = register(secure("coordinator-secret"))
        .await
        .expect("the right token is accepted")
        .into_inner();
    assert!(ok.accepted && ok.run_finished, "{ok:?}");
}
