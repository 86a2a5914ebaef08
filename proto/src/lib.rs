//! causeway's gRPC protocol (`proto/causeway/v1/worker.proto`), generated at build time by
//! protox + tonic-prost-build, with no system `protoc`, and the constants both ends agree on
//! (protocol and code version, the draining and checkpoint-refused statuses). The conversions to the samplers' types,
//! the token and TLS, and the process plumbing live with the processes that serve
//! (`causeway_worker::{wire, auth, process}`).

#![allow(clippy::all)]

/// Generated messages and the `Worker` and `Coordinator` services.
#[allow(clippy::unwrap_used)]
pub mod v1 {
    tonic::include_proto!("causeway.v1");
}

/// Protocol version spoken by this build. Coordinator and worker refuse each other on mismatch.
/// 2: checkpoints (`Job.resume`, `ChainEvent.checkpoint`).
pub const PROTOCOL_VERSION: u32 = 2;

/// The message of the `UNAVAILABLE` status a draining worker answers `RunChain` with. A
/// coordinator requeues such a chain without counting an attempt.
pub const DRAINING: &str = "draining";

/// The start of a failed `ChainResult`'s error when the worker could not resume the chain from
/// the checkpoint it was given (another code version, a state its sampler refuses, a malformed
/// RNG position). A coordinator then drops the checkpoint and runs the chain from iteration 1,
/// without counting an attempt.
pub const CHECKPOINT_REFUSED: &str = "checkpoint refused";

/// Code version reported to coordinators: crate version plus the git commit if known at build.
pub const CODE_VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "+", env!("CAUSEWAY_GIT_COMMIT"));
