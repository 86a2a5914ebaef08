//! # causeway (coordinator)
//!
//! Reads a YAML experiment grid ([`experiment`]), expands it into seeded chains, sends them to
//! gRPC workers ([`dispatch`]) that may join at any time ([`membership`]), stores what comes
//! back with a durable job table ([`store`]) and builds the papers' tables ([`runner`]). The
//! `causeway` binary ([`cli`]) is a thin layer over these.

pub mod check_cmd;
pub mod cli;
pub mod converge;
pub mod dispatch;
pub mod eta;
pub mod experiment;
pub mod kl;
pub mod membership;
pub mod positions;
pub mod round;
pub mod runner;
pub mod score;
pub mod security_args;
pub mod status;
pub mod store;
