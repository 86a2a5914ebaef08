//! hidden2025 datasets tests.
