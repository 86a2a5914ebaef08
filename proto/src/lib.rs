//! causeway's gRPC protocol (`proto/causeway/v1/worker.proto`), generated at build time by
//! protox + tonic-prost-build, with no system `protoc`.

#![allow(clippy::all)]

/// Generated messages and the `Worker` and `Coordinator` services.
pub mod v1 {
    tonic::include_proto!("causeway.v1");
}

/// Protocol version spoken by this build. Coordinator and worker refuse each other on mismatch.
pub const PROTOCOL_VERSION: u32 = 1;
