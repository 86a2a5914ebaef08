//! hidden2025 samplers tests.
