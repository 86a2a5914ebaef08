//! hidden2025 evaluation tests.
