//! The coordinator's side of authentication and version checks (`dispatch::connect_secure`).

use causeway::dispatch::connect_secure;
use causeway_proto::PROTOCOL_VERSION;
use causeway_proto::v1::worker_server::{Worker, WorkerServer};
use causeway_proto::v1::{ChainEvent, HelloReply, HelloRequest, Job};
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
