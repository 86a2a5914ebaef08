//! Tests of dallaire2014: datasets.
