//! `Matrix`'s hand-written encoding (`causeway_proto::matrix`) against prost's derived code for
//! the same message: the same bytes out, the same matrices in (packed or not, however the
//! buffer is cut into chunks), and an error wherever prost's own code gives one.

use causeway_proto::v1::Matrix;
use prost::Message;
use prost::bytes::Buf;

/// The message as prost derives it (`proto/causeway/v1/worker.proto`).
#[derive(Clone, PartialEq, prost::Message)]
struct Derived {
    #[prost(string, tag = "1")]
    name: String,
    #[prost(uint64, tag = "2")]
    rows: u64,
    #[prost(uint64, tag = "3")]
    cols: u64,
    #[prost(double, repeated, tag = "4")]
    values: Vec<f64>,
    #[prost(string, repeated, tag = "5")]
    row_names: Vec<String>,
    #[prost(string, repeated, tag = "6")]
    col_names: Vec<String>,
}

/// The same fields, the values written unpacked (one key per value), as a parser must accept.
#[derive(Clone, PartialEq, prost::Message)]
struct Unpacked {
    #[prost(string, tag = "1")]
    name: String,
    #[prost(double, repeated, packed = "false", tag = "4")]
    values: Vec<f64>,
}

/// `n` values, special ones included (NaN, ±∞, −0, a subnormal), from a fixed sequence.
fn values(n: usize) -> Vec<f64> {
    let special = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 5e-324];
    (0..n)
        .map(|i| {
            special
                .get(i % 97)
                .copied()
                .unwrap_or((i as f64 * 0.37).sin() * 1e3)
        })
        .collect()
}

fn pair(n: usize, names: bool) -> (Matrix, Derived) {
    let row_names: Vec<String> = if names {
        (0..n.min(3)).map(|i| format!("r{i}")).collect()
    } else {
        Vec::new()
    };
    let m = Matrix {
        name: if n.is_multiple_of(2) {
            format!("m{n}")
        } else {
            String::new()
        },
        rows: n as u64,
        cols: u64::from(n > 0),
        values: values(n),
        row_names: row_names.clone(),
        col_names: vec!["c".into(); usize::from(names)],
    };
    let d = Derived {
        name: m.name.clone(),
        rows: m.rows,
        cols: m.cols,
        values: m.values.clone(),
        row_names,
        col_names: m.col_names.clone(),
    };
    (m, d)
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn same(a: &Matrix, b: &Derived) -> bool {
    (&a.name, a.rows, a.cols, &a.row_names, &a.col_names)
        == (&b.name, b.rows, b.cols, &b.row_names, &b.col_names)
        && bits(&a.values) == bits(&b.values)
}

#[test]
fn matrix_encodes_to_the_bytes_of_prosts_derived_code() {
    for n in [0, 1, 2, 7, 511, 512, 513, 1024, 3000] {
        for names in [false, true] {
            let (m, d) = pair(n, names);
            assert_eq!(m.encode_to_vec(), d.encode_to_vec(), "n = {n}");
            assert_eq!(m.encoded_len(), d.encoded_len(), "n = {n}");
            let back = Matrix::decode(&d.encode_to_vec()[..]).expect("decodes");
            assert!(same(&back, &d), "n = {n}");
        }
    }
}

#[test]
fn matrix_decodes_values_cut_across_chunks() {
    let (m, d) = pair(40, true);
    let bytes = d.encode_to_vec();
    for cut in 0..=bytes.len() {
        let buf = (&bytes[..cut]).chain(&bytes[cut..]);
        let back = Matrix::decode(buf).expect("decodes");
        assert_eq!(bits(&back.values), bits(&m.values), "cut at {cut}");
        assert!(same(&back, &d), "cut at {cut}");
    }
}

#[test]
fn matrix_reads_unpacked_values_and_appends_repeated_fields() {
    let u = Unpacked {
        name: "u".into(),
        values: values(9),
    };
    let back = Matrix::decode(&u.encode_to_vec()[..]).expect("decodes");
    assert_eq!(bits(&back.values), bits(&u.values));
    // A field given twice: packed values append, as prost's code does.
    let (_, d) = pair(6, false);
    let mut twice = d.encode_to_vec();
    twice.extend(d.encode_to_vec());
    let back = Matrix::decode(&twice[..]).expect("decodes");
    let want = Derived::decode(&twice[..]).expect("decodes");
    assert!(same(&back, &want));
    assert_eq!(back.values.len(), 12);
}

#[test]
fn matrix_refuses_what_prosts_code_refuses() {
    let (_, d) = pair(20, true);
    let bytes = d.encode_to_vec();
    for cut in 0..bytes.len() {
        let ours = Matrix::decode(&bytes[..cut]).is_ok();
        let theirs = Derived::decode(&bytes[..cut]).is_ok();
        assert_eq!(ours, theirs, "the first {cut} bytes");
    }
    // A packed length that is not a multiple of 8 (7 bytes), and one beyond the buffer.
    for bad in [
        vec![0x22, 0x07, 1, 2, 3, 4, 5, 6, 7],
        vec![0x22, 0x09, 0, 0, 0, 0, 0, 0, 0, 0, 0x08, 0x01],
        vec![0x22, 0x10, 0, 0, 0, 0, 0, 0, 0, 0],
    ] {
        assert!(Derived::decode(&bad[..]).is_err());
        let err = Matrix::decode(&bad[..]).expect_err("refused");
        assert!(err.to_string().contains("Matrix.values"), "{err}");
    }
}
