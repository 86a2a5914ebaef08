//! Tests of paper 003 (Kurutmaz 2019): exact enumeration ([`exact`]), order invariance
//! ([`order`]), parameters and the registry ([`params`]), PG-CN ([`pg`]), SIS-CN ([`smc`]) and
//! VB-CN / DEM-CN ([`vb_dem`]); [`common`] holds the shared data and fixture loaders.

mod checkpoint;
mod common;
mod decisions;
mod exact;
mod order;
mod params;
mod pg;
mod sbc;
mod smc;
mod vb_dem;
