//! Tests of dallaire2014: mtm.
