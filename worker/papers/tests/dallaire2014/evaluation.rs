//! Tests of dallaire2014: evaluation.
