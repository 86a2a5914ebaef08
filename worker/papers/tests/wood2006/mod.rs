//! Tests of paper 000 (Wood, Griffiths & Ghahramani 2006): the public API and registry
//! ([`api`]), exact enumeration of tiny posteriors ([`enumeration`]) and Geweke joint-distribution
//! tests ([`geweke`]); [`support`] holds the paper-specific exact posteriors.

mod api;
mod checkpoint;
mod enumeration;
mod geweke;
mod mixing;
mod sbc;
mod support;
