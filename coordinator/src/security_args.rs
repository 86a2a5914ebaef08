//! The security flags shared by `causeway run` and `causeway worker` (and, after the
//! coordinator service lands, `causeway run --listen` / `causeway worker --coordinator`).
//! The logic is in `causeway_worker::auth`; this only maps flags to it.

use std::path::PathBuf;

use causeway_worker::auth::{Security, SecurityOptions};

/// `--token-file`, `--insecure`, `--tls-cert`, `--tls-key`, `--tls-ca`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct SecurityArgs {
    /// File holding the bearer token that every RPC must carry [default: the CAUSEWAY_TOKEN
    /// environment variable]. Required to listen on a non-loopback address.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// Allow listening on a non-loopback address without a token (anyone who can reach the
    /// port can run chains).
    #[arg(long)]
    pub insecure: bool,
    /// TLS certificate chain (PEM) this server presents.
    #[arg(long, value_name = "PEM", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// TLS private key (PEM) of --tls-cert.
    #[arg(long, value_name = "PEM", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// CA certificate (PEM) that servers' certificates must chain to; `host:port` addresses are
    /// then reached over https.
    #[arg(long, value_name = "PEM")]
    pub tls_ca: Option<PathBuf>,
}

impl SecurityArgs {
    /// Read the token (file or `CAUSEWAY_TOKEN`) and the TLS files.
    pub fn load(&self) -> anyhow::Result<Security> {
        let opts = SecurityOptions {
            token_file: self.token_file.clone(),
            insecure: self.insecure,
            tls_cert: self.tls_cert.clone(),
            tls_key: self.tls_key.clone(),
            tls_ca: self.tls_ca.clone(),
        };
        Ok(Security::from_env(&opts)?)
    }
}
