//! Tests of dallaire2014: prior_moments.
