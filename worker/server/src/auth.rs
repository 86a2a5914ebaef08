//! Authentication and transport security for every causeway gRPC connection, in both
//! directions (coordinator → worker today; worker → coordinator registration uses the same
//! pieces).
//!
//! - **Bearer token.** Every RPC carries `authorization: Bearer <token>` metadata. The token is
//!   read from `--token-file FILE` or the `CAUSEWAY_TOKEN` environment variable, held in a
//!   [`Token`] whose `Debug` prints `***`, and never logged. The server side is the
//!   [`ServerAuth`] interceptor (constant-time comparison with `subtle`); the client side is the
//!   [`ClientAuth`] interceptor that adds the header.
//! - **TLS** (rustls, via tonic's `tls-ring`): a server identity from `--tls-cert`/`--tls-key`
//!   (PEM), and on the client `--tls-ca` (PEM) as the root that the server's certificate must
//!   chain to (the system roots are used for `https://` addresses without `--tls-ca`). Clients
//!   are authenticated by the token, not by certificates.
//! - **Policy** ([`Security::check_listen`]): a server on a loopback address may run without a
//!   token (the embedded local workers of `causeway run`); any other address needs a token
//!   unless `--insecure` is given explicitly.
//!
//! ## Protecting any tonic service
//!
//! ```ignore
//! // one service, served on a listener with the policy checked, TLS and the token applied:
//! auth::serve_listener(CoordinatorServer::new(svc), listener, &security, shutdown).await?;
//! // or by hand, e.g. several services on one server:
//! let mut server = auth::server_builder(&security)?;      // TLS if configured
//! server
//!     .add_service(auth::require_token(CoordinatorServer::new(a), &security))
//!     .add_service(auth::require_token(WorkerServer::new(b), &security))
//!     .serve_with_incoming_shutdown(incoming, shutdown).await?;
//! // the client side of either:
//! let channel = auth::connect_channel("coordinator:7000", &security).await?;
//! let client = CoordinatorClient::with_interceptor(channel, security.client_auth());
//! ```

use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use subtle::ConstantTimeEq;
use tonic::service::Interceptor;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{
    Certificate, Channel, ClientTlsConfig, Endpoint, Identity, Server, ServerTlsConfig,
};
use tonic::{Request, Status};

/// Environment variable read for the token when no `--token-file` is given.
pub const TOKEN_ENV: &str = "CAUSEWAY_TOKEN";

/// A channel whose every request carries the bearer token (if one is configured).
pub type AuthedChannel = InterceptedService<Channel, ClientAuth>;

/// A security setting that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SecurityError {
    /// A file named by a flag could not be read.
    #[error("cannot read {what} {path}: {source}")]
    Read {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    /// The token is empty or not a valid header value.
    #[error("{0}")]
    BadToken(String),
    /// TLS flags that do not fit together, or PEM that rustls rejects.
    #[error("TLS: {0}")]
    Tls(String),
    /// A server would listen on a non-loopback address without a token.
    #[error(
        "refusing to listen on {0} without a token: any non-loopback address needs \
         --token-file FILE (or the {TOKEN_ENV} environment variable); pass --insecure to \
         allow unauthenticated access explicitly"
    )]
    NoTokenOnNetwork(SocketAddr),
    /// A bad peer address.
    #[error("address {addr:?}: {reason}")]
    Address { addr: String, reason: String },
    /// Could not connect.
    #[error("cannot connect to {addr}: {reason}")]
    Connect { addr: String, reason: String },
}

/// A shared secret. Its `Debug` and `Display` print `***`, so it never reaches a log.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    /// A token from text; surrounding whitespace (a file's trailing newline) is removed. It
    /// must be non-empty visible ASCII (it travels in an HTTP/2 header).
    pub fn new(text: &str) -> Result<Token, SecurityError> {
        let t = text.trim();
        if t.is_empty() {
            return Err(SecurityError::BadToken("the token is empty".into()));
        }
        if !t.bytes().all(|b| b.is_ascii_graphic() || b == b' ') {
            return Err(SecurityError::BadToken(
                "the token must be printable ASCII (it is sent as an HTTP header)".into(),
            ));
        }
        Ok(Token(t.to_string()))
    }

    /// Read the token from `path` (the whole file, trimmed). Warns (tracing, level warn) if the
    /// token is short or the file is readable by group or others ([`Token::weaknesses`]).
    pub fn from_file(path: &Path) -> Result<Token, SecurityError> {
        let text = std::fs::read_to_string(path).map_err(|source| SecurityError::Read {
            what: "token file",
            path: path.to_path_buf(),
            source,
        })?;
        let token = Token::new(&text)
            .map_err(|e| SecurityError::BadToken(format!("{}: {e}", path.display())))?;
        #[cfg(unix)]
        let mode = {
            use std::os::unix::fs::PermissionsExt;
            std::fs::metadata(path).ok().map(|m| m.permissions().mode())
        };
        #[cfg(not(unix))]
        let mode = None;
        for w in token.weaknesses(mode) {
            tracing::warn!("token file {}: {w}", path.display());
        }
        Ok(token)
    }

    /// Shortest token length (bytes) that is not warned about.
    pub const MIN_LEN: usize = 16;

    /// What is weak about this token and its file's Unix permission bits `mode` (if known):
    /// shorter than [`Token::MIN_LEN`] bytes, or a file readable by group or others. Never
    /// includes the token itself.
    pub fn weaknesses(&self, mode: Option<u32>) -> Vec<String> {
        let mut out = Vec::new();
        if self.0.len() < Self::MIN_LEN {
            out.push(format!(
                "the token has {} bytes; use at least {} random bytes (e.g. `openssl rand -hex 32`)",
                self.0.len(),
                Self::MIN_LEN
            ));
        }
        if let Some(m) = mode
            && m & 0o077 != 0
        {
            out.push(format!(
                "the file is readable or writable by group or others (mode {:o}); `chmod 600` it",
                m & 0o777
            ));
        }
        out
    }

    /// `true` if `presented` equals this token; the comparison of equal-length tokens takes
    /// the same time wherever they differ.
    pub fn matches(&self, presented: &[u8]) -> bool {
        self.0.as_bytes().ct_eq(presented).into()
    }

    fn header_value(&self) -> String {
        format!("Bearer {}", self.0)
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// PEM material for TLS, read once at start-up.
#[derive(Clone, Default)]
pub struct TlsPem {
    /// This server's certificate chain and private key.
    pub identity: Option<(Vec<u8>, Vec<u8>)>,
    /// The root that a server's certificate must chain to (client side).
    pub ca: Option<Vec<u8>>,
}

impl fmt::Debug for TlsPem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsPem")
            .field("identity", &self.identity.as_ref().map(|_| "cert+key"))
            .field("ca", &self.ca.as_ref().map(|_| "ca"))
            .finish()
    }
}

/// Everything a process needs to authenticate its connections, as given on the command line.
/// `Security::default()` is the embedded local mode: no token, no TLS, loopback only.
#[derive(Clone, Debug, Default)]
pub struct Security {
    /// The bearer token required from clients and sent to servers.
    pub token: Option<Token>,
    /// TLS material; `None` is plain HTTP/2.
    pub tls: TlsPem,
    /// Allow a non-loopback server without a token (`--insecure`).
    pub insecure: bool,
}

/// The command-line form of [`Security`]: paths, not contents.
#[derive(Clone, Debug, Default)]
pub struct SecurityOptions {
    pub token_file: Option<PathBuf>,
    pub insecure: bool,
    pub tls_cert: Option<PathBuf>,
    pub tls_key: Option<PathBuf>,
    pub tls_ca: Option<PathBuf>,
}

fn read(what: &'static str, path: &Path) -> Result<Vec<u8>, SecurityError> {
    std::fs::read(path).map_err(|source| SecurityError::Read {
        what,
        path: path.to_path_buf(),
        source,
    })
}

impl Security {
    /// Resolve the options: the token from `token_file`, else from `env_token` (the value of
    /// [`TOKEN_ENV`], passed in so callers and tests control the environment), and the TLS
    /// files read and checked to fit together.
    pub fn load(
        opts: &SecurityOptions,
        env_token: Option<&str>,
    ) -> Result<Security, SecurityError> {
        let token = match (&opts.token_file, env_token) {
            (Some(path), _) => Some(Token::from_file(path)?),
            (None, Some(t)) => Some(
                Token::new(t).map_err(|e| SecurityError::BadToken(format!("{TOKEN_ENV}: {e}")))?,
            ),
            (None, None) => None,
        };
        let identity = match (&opts.tls_cert, &opts.tls_key) {
            (Some(c), Some(k)) => Some((read("TLS certificate", c)?, read("TLS key", k)?)),
            (None, None) => None,
            _ => {
                return Err(SecurityError::Tls(
                    "--tls-cert and --tls-key must be given together".into(),
                ));
            }
        };
        let ca = match &opts.tls_ca {
            Some(p) => Some(read("TLS CA", p)?),
            None => None,
        };
        let sec = Security {
            token,
            tls: TlsPem { identity, ca },
            insecure: opts.insecure,
        };
        // Fail at start-up, not at the first connection, on PEM that rustls rejects.
        if let Some(cfg) = sec.server_tls() {
            Server::builder()
                .tls_config(cfg)
                .map_err(|e| SecurityError::Tls(format!("server certificate/key: {e}")))?;
        }
        Ok(sec)
    }

    /// [`Security::load`] with the token from the process environment ([`TOKEN_ENV`]; an empty
    /// value counts as unset).
    pub fn from_env(opts: &SecurityOptions) -> Result<Security, SecurityError> {
        let env = std::env::var(TOKEN_ENV).ok().filter(|t| !t.is_empty());
        Security::load(opts, env.as_deref())
    }

    /// The listening policy: loopback is always allowed; any other address needs a token
    /// unless `insecure` is set.
    pub fn check_listen(&self, addr: SocketAddr) -> Result<(), SecurityError> {
        if addr.ip().is_loopback() || self.token.is_some() || self.insecure {
            Ok(())
        } else {
            Err(SecurityError::NoTokenOnNetwork(addr))
        }
    }

    /// A one-line summary for start-up messages (never the token itself).
    pub fn describe(&self) -> String {
        let token = match (&self.token, self.insecure) {
            (Some(_), _) => "token required",
            (None, true) => "no token (--insecure)",
            (None, false) => "no token",
        };
        let tls = if self.tls.identity.is_some() {
            "TLS"
        } else {
            "plaintext"
        };
        format!("{token}, {tls}")
    }

    /// The server-side check for this setting (passes everything when no token is set).
    pub fn server_auth(&self) -> ServerAuth {
        ServerAuth {
            token: self.token.clone(),
        }
    }

    /// The client-side interceptor adding this setting's token.
    pub fn client_auth(&self) -> ClientAuth {
        ClientAuth {
            header: self
                .token
                .as_ref()
                .and_then(|t| t.header_value().parse().ok())
                .map(|mut v: tonic::metadata::MetadataValue<_>| {
                    v.set_sensitive(true);
                    v
                }),
        }
    }

    /// The server TLS configuration, if a certificate and key were given.
    pub fn server_tls(&self) -> Option<ServerTlsConfig> {
        let (cert, key) = self.tls.identity.as_ref()?;
        Some(ServerTlsConfig::new().identity(Identity::from_pem(cert, key)))
    }

    /// `addr` as a URL: `host:port` becomes `https://` when a CA is configured, else
    /// `http://`; an explicit scheme is kept.
    pub fn url(&self, addr: &str) -> String {
        if addr.contains("://") {
            addr.to_string()
        } else if self.tls.ca.is_some() {
            format!("https://{addr}")
        } else {
            format!("http://{addr}")
        }
    }
}

/// Server-side interceptor: requires `authorization: Bearer <token>` when a token is set.
#[derive(Clone, Debug)]
pub struct ServerAuth {
    token: Option<Token>,
}

impl Interceptor for ServerAuth {
    fn call(&mut self, req: Request<()>) -> Result<Request<()>, Status> {
        let Some(token) = &self.token else {
            return Ok(req);
        };
        let Some(value) = req.metadata().get("authorization") else {
            return Err(Status::unauthenticated(
                "missing bearer token: this server requires `authorization: Bearer <token>` \
                 (give the client --token-file FILE or CAUSEWAY_TOKEN)",
            ));
        };
        let presented = value
            .as_bytes()
            .strip_prefix(b"Bearer ")
            .unwrap_or_default();
        if token.matches(presented) {
            Ok(req)
        } else {
            Err(Status::unauthenticated(
                "invalid bearer token: the client's token does not match this server's",
            ))
        }
    }
}

/// Client-side interceptor: adds `authorization: Bearer <token>` to every request.
#[derive(Clone)]
pub struct ClientAuth {
    header: Option<tonic::metadata::MetadataValue<tonic::metadata::Ascii>>,
}

impl fmt::Debug for ClientAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let token = self.header.as_ref().map(|_| "***");
        f.debug_struct("ClientAuth").field("token", &token).finish()
    }
}

impl Interceptor for ClientAuth {
    fn call(&mut self, mut req: Request<()>) -> Result<Request<()>, Status> {
        if let Some(h) = &self.header {
            req.metadata_mut().insert("authorization", h.clone());
        }
        Ok(req)
    }
}

/// Wrap any tonic service so that every call must carry the token of `sec`.
pub fn require_token<S>(svc: S, sec: &Security) -> InterceptedService<S, ServerAuth> {
    InterceptedService::new(svc, sec.server_auth())
}

/// A server builder with TLS applied when `sec` has a certificate.
pub fn server_builder(sec: &Security) -> Result<Server, SecurityError> {
    let builder = Server::builder();
    match sec.server_tls() {
        Some(cfg) => builder
            .tls_config(cfg)
            .map_err(|e| SecurityError::Tls(e.to_string())),
        None => Ok(builder),
    }
}

/// A connected channel to `addr` (`host:port` or a URL), over TLS for `https://` addresses
/// (trusting `--tls-ca` if given, else the system roots). Add the token with
/// [`Security::client_auth`], or use [`connect_authed`].
pub async fn connect_channel(addr: &str, sec: &Security) -> Result<Channel, SecurityError> {
    let url = sec.url(addr);
    let bad = |reason: String| SecurityError::Address {
        addr: addr.to_string(),
        reason,
    };
    let mut endpoint = Endpoint::from_shared(url.clone())
        .map_err(|e| bad(e.to_string()))?
        .connect_timeout(Duration::from_secs(10))
        .tcp_nodelay(true);
    if url.starts_with("https://") {
        let tls = match &sec.tls.ca {
            Some(ca) => ClientTlsConfig::new().ca_certificate(Certificate::from_pem(ca)),
            None => ClientTlsConfig::new().with_native_roots(),
        };
        endpoint = endpoint
            .tls_config(tls)
            .map_err(|e| SecurityError::Tls(e.to_string()))?;
    }
    endpoint
        .connect()
        .await
        .map_err(|e| SecurityError::Connect {
            addr: addr.to_string(),
            reason: error_chain(&e),
        })
}

/// [`connect_channel`] with the token interceptor applied: wrap it in any generated client
/// with `XClient::new(channel)`.
pub async fn connect_authed(addr: &str, sec: &Security) -> Result<AuthedChannel, SecurityError> {
    Ok(InterceptedService::new(
        connect_channel(addr, sec).await?,
        sec.client_auth(),
    ))
}

/// Serve one service (with the token check and TLS of `sec`) on `listener` until `shutdown`.
/// Refuses a non-loopback listener without a token (see [`Security::check_listen`]).
pub async fn serve_listener<S>(
    svc: S,
    listener: tokio::net::TcpListener,
    sec: &Security,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>>
where
    S: tonic::codegen::Service<
            tonic::codegen::http::Request<tonic::body::Body>,
            Response = tonic::codegen::http::Response<tonic::body::Body>,
            Error = std::convert::Infallible,
        > + tonic::server::NamedService
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send + 'static,
{
    sec.check_listen(listener.local_addr()?)?;
    // TCP_NODELAY: a chain's last frames must not wait out Nagle + delayed ACK (~40 ms each).
    let incoming = tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true));
    server_builder(sec)?
        .add_service(require_token(svc, sec))
        .serve_with_incoming_shutdown(incoming, shutdown)
        .await?;
    Ok(())
}

/// The error and its sources on one line (tonic's transport errors hide the cause).
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(c) = src {
        s.push_str(": ");
        s.push_str(&c.to_string());
        src = c.source();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_tokens_and_open_token_files_are_warned_about_without_the_token() {
        let short = Token::new("abc").expect("token");
        let w = short.weaknesses(Some(0o100644));
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("3 bytes") && w[1].contains("644"), "{w:?}");
        assert!(
            w.iter().all(|m| !m.contains("abc")),
            "never print the token: {w:?}"
        );
        let good = Token::new("0123456789abcdef0123").expect("token");
        assert!(good.weaknesses(Some(0o100600)).is_empty());
        assert!(good.weaknesses(None).is_empty());
    }

    #[test]
    fn token_never_prints() {
        let t = Token::new("s3cret\n").expect("token");
        assert_eq!(format!("{t:?} {t}"), "*** ***");
        let sec = Security {
            token: Some(t),
            ..Default::default()
        };
        assert!(!format!("{sec:?}").contains("s3cret"));
        assert!(!format!("{:?}", sec.client_auth()).contains("s3cret"));
    }

    #[test]
    fn token_checks() {
        assert!(Token::new("  ").is_err());
        assert!(Token::new("a\u{7f}b").is_err());
        let t = Token::new("abc").expect("token");
        assert!(t.matches(b"abc"));
        assert!(!t.matches(b"abd"));
        assert!(!t.matches(b"ab"));
    }

    #[test]
    fn listen_policy() {
        let open = Security::default();
        assert!(
            open.check_listen("127.0.0.1:1".parse().expect("addr"))
                .is_ok()
        );
        assert!(open.check_listen("[::1]:1".parse().expect("addr")).is_ok());
        let e = open
            .check_listen("0.0.0.0:7070".parse().expect("addr"))
            .expect_err("refused");
        assert!(e.to_string().contains("--insecure"), "{e}");
        let insecure = Security {
            insecure: true,
            ..Default::default()
        };
        assert!(
            insecure
                .check_listen("0.0.0.0:7070".parse().expect("addr"))
                .is_ok()
        );
        let tokened = Security {
            token: Some(Token::new("t").expect("token")),
            ..Default::default()
        };
        assert!(
            tokened
                .check_listen("0.0.0.0:7070".parse().expect("addr"))
                .is_ok()
        );
    }

    #[test]
    fn options_resolve() {
        let dir = tempfile::tempdir().expect("tempdir");
        let f = dir.path().join("token");
        std::fs::write(&f, "from-file\n").expect("write");
        let opts = SecurityOptions {
            token_file: Some(f),
            ..Default::default()
        };
        let s = Security::load(&opts, Some("from-env")).expect("load");
        assert!(s.token.expect("token").matches(b"from-file"));
        let s = Security::load(&SecurityOptions::default(), Some("from-env")).expect("load");
        assert!(s.token.expect("token").matches(b"from-env"));
        let half = SecurityOptions {
            tls_cert: Some("x.pem".into()),
            ..Default::default()
        };
        assert!(Security::load(&half, None).is_err());
        let missing = SecurityOptions {
            token_file: Some(dir.path().join("nope")),
            ..Default::default()
        };
        let e = Security::load(&missing, None).expect_err("missing file");
        assert!(e.to_string().contains("token file"), "{e}");
    }
}
