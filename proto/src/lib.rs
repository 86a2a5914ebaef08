//! causeway's gRPC protocol (`proto/causeway/v1/worker.proto`), generated at build time by
//! protox + tonic-prost-build, with no system `protoc`; the conversions to the library's types
//! and the code version ([`wire`]); and the token and TLS both directions use ([`auth`]).

#![allow(clippy::all)]

/// Generated messages and the `Worker` and `Coordinator` services.
#[allow(clippy::unwrap_used)]
pub mod v1 {
    tonic::include_proto!("causeway.v1");
}

pub mod auth;
pub mod node;
pub mod wire;

/// Protocol version spoken by this build. Coordinator and worker refuse each other on mismatch.
/// 2: checkpoints (`Job.resume`, `ChainEvent.checkpoint`).
pub const PROTOCOL_VERSION: u32 = 2;
