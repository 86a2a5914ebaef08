//! Tests of dallaire2014: edge_prior.
