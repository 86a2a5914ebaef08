//! Bearer tokens, TLS and protocol versions on a real worker over loopback gRPC.

use causeway_proto::PROTOCOL_VERSION;
use causeway_proto::v1::worker_client::WorkerClient;
use causeway_proto::v1::{HelloRequest, Job};
use causeway_worker::WorkerService;
use causeway_worker::auth::{self, AuthedChannel, Security, TlsPem, Token};
use tokio::sync::oneshot;
use tonic::Code;

/// A worker on 127.0.0.1 with `sec`; returns its address and a stop handle.
async fn start(sec: Security) -> (String, oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr").to_string();
    let (tx, rx) = oneshot::channel::<()>();
    tokio::spawn(async move {
        let svc = WorkerService::new("test", 1).into_server();
        let _ = auth::serve_listener(svc, listener, &sec, async {
            let _ = rx.await;
        })
        .await;
    });
    (addr, tx)
}

fn with_token(t: &str) -> Security {
    Security {
        token: Some(Token::new(t).expect("token")),
        ..Default::default()
    }
}

async fn client(url: &str, sec: &Security) -> WorkerClient<AuthedChannel> {
    WorkerClient::new(auth::connect_authed(url, sec).await.expect("connect"))
}

async fn hello(c: &mut WorkerClient<AuthedChannel>) -> Result<u32, tonic::Status> {
    c.hello(HelloRequest {
        protocol_version: PROTOCOL_VERSION,
    })
    .await
    .map(|r| r.into_inner().protocol_version)
}

/// No token, a wrong token, the right token, for both RPCs; `server` and `url_of` choose plain
/// or TLS.
async fn token_matrix(server: Security, client_base: Security, url: &str) {
    let mut none = client(url, &client_base).await;
    let s = hello(&mut none)
        .await
        .expect_err("no token must be refused");
    assert_eq!(s.code(), Code::Unauthenticated, "{s:?}");
    assert!(
        s.message().contains("missing bearer token"),
        "{}",
        s.message()
    );
    let s = none
        .run_chain(Job::default())
        .await
        .expect_err("RunChain without a token must be refused");
    assert_eq!(s.code(), Code::Unauthenticated);

    let wrong = Security {
        token: Some(Token::new("not-the-token").expect("token")),
        ..client_base.clone()
    };
    let s = hello(&mut client(url, &wrong).await)
        .await
        .expect_err("a wrong token must be refused");
    assert_eq!(s.code(), Code::Unauthenticated, "{s:?}");
    assert!(
        s.message().contains("invalid bearer token"),
        "{}",
        s.message()
    );

    let right = Security {
        token: server.token.clone(),
        ..client_base
    };
    let v = hello(&mut client(url, &right).await)
        .await
        .expect("the right token is accepted");
    assert_eq!(v, PROTOCOL_VERSION);
}

#[tokio::test]
async fn token_required_plaintext() {
    let server = with_token("correct horse battery staple");
    let (addr, _stop) = start(server.clone()).await;
    token_matrix(server, Security::default(), &addr).await;
}

#[tokio::test]
async fn token_required_over_tls() {
    let ck = rcgen::generate_simple_self_signed(vec!["127.0.0.1".into(), "localhost".into()])
        .expect("self-signed certificate");
    let cert = ck.cert.pem().into_bytes();
    let key = ck.signing_key.serialize_pem().into_bytes();
    let server = Security {
        tls: TlsPem {
            identity: Some((cert.clone(), key)),
            ca: None,
        },
        ..with_token("tls-token")
    };
    let (addr, _stop) = start(server.clone()).await;
    let client_base = Security {
        tls: TlsPem {
            identity: None,
            ca: Some(cert),
        },
        ..Default::default()
    };
    // host:port with a CA configured means https.
    assert_eq!(client_base.url(&addr), format!("https://{addr}"));
    token_matrix(server, client_base, &addr).await;

    // A plaintext client cannot talk to the TLS worker at all.
    let plain = auth::connect_authed(&format!("http://{addr}"), &with_token("tls-token")).await;
    if let Ok(ch) = plain {
        let r = hello(&mut WorkerClient::new(ch)).await;
        assert!(r.is_err(), "plaintext reached a TLS worker");
    }
}

#[tokio::test]
async fn local_mode_needs_no_token() {
    let (addr, _stop) = start(Security::default()).await;
    let v = hello(&mut client(&addr, &Security::default()).await)
        .await
        .expect("open local worker");
    assert_eq!(v, PROTOCOL_VERSION);
    // A client that sends a token to an open worker is fine too.
    let v = hello(&mut client(&addr, &with_token("x")).await)
        .await
        .expect("token to an open worker");
    assert_eq!(v, PROTOCOL_VERSION);
}

#[tokio::test]
async fn non_loopback_listener_without_token_is_refused() {
    let listener = tokio::net::TcpListener::bind("0.0.0.0:0")
        .await
        .expect("bind");
    let svc = WorkerService::new("test", 1).into_server();
    let err = auth::serve_listener(svc, listener, &Security::default(), async {})
        .await
        .expect_err("must refuse");
    assert!(err.to_string().contains("--insecure"), "{err}");
}

#[tokio::test]
async fn worker_refuses_other_protocol_versions() {
    let (addr, _stop) = start(Security::default()).await;
    let mut c = client(&addr, &Security::default()).await;
    let s = c
        .hello(HelloRequest {
            protocol_version: 99,
        })
        .await
        .expect_err("Hello with version 99 must be refused");
    assert_eq!(s.code(), Code::FailedPrecondition);
    let real = PROTOCOL_VERSION.to_string();
    assert!(
        s.message().contains("99") && s.message().contains(&real),
        "{}",
        s.message()
    );
    let s = c
        .run_chain(Job {
            protocol_version: 99,
            ..Default::default()
        })
        .await
        .expect_err("a Job with version 99 must be refused");
    assert_eq!(s.code(), Code::FailedPrecondition);
    assert!(
        s.message().contains("99") && s.message().contains(&real),
        "{}",
        s.message()
    );
}
