//! Tests of dallaire2014: geweke.
