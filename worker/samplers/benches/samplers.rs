//! Sampler benchmarks (`make bench`). Filled in per paper.
use criterion::{Criterion, criterion_group, criterion_main};

fn placeholder(c: &mut Criterion) {
    c.bench_function("stable_hash_1k", |b| {
        let v = vec![7u8; 1024];
        b.iter(|| causeway_samplers::stable_hash(std::hint::black_box(&v)))
    });
}

criterion_group!(benches, placeholder);
criterion_main!(benches);
