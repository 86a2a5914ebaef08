//! The services' codec (`causeway_proto::codec::SliceCodec`) driven through tonic's own stream
//! decoder: the messages it decodes are the ones prost encoded, however the body's frames cut
//! them, and a message that does not parse is an INTERNAL status, not a panic.

use causeway_proto::codec::SliceCodec;
use causeway_proto::v1::{ChainEvent, ChainResult, ChainResults, Matrix, chain_event};
use http_body_util::StreamBody;
use prost::Message;
use prost::bytes::Bytes;
use tonic::Code;
use tonic::codec::{Codec, Streaming};

/// A batch of `n` CEP-shaped results: a trace row, a sample_stats row, a summary matrix of
/// 300 values.
fn event(n: usize) -> ChainEvent {
    let results = (0..n)
        .map(|i| ChainResult {
            job_id: format!("cell{i}-rep0-chain0"),
            ok: true,
            trace_names: vec!["log_marginal_likelihood".into()],
            trace: vec![-1.5 - i as f64],
            stat_names: vec!["ess".into(), "n_resample".into()],
            stats: vec![0.25, 3.0],
            summary: vec![Matrix {
                name: "r_marginals".into(),
                rows: 100,
                cols: 3,
                values: (0..300).map(|v| v as f64 / 7.0 + i as f64).collect(),
                row_names: vec![],
                col_names: vec!["a".into(), "b".into(), "c".into()],
            }],
            elapsed_seconds: vec![1e-4],
            ..Default::default()
        })
        .collect();
    ChainEvent {
        event: Some(chain_event::Event::Results(ChainResults { results })),
    }
}

/// gRPC's framing: an uncompressed flag, the big-endian length, the message.
fn framed(messages: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for m in messages {
        out.push(0);
        out.extend_from_slice(&u32::try_from(m.len()).expect("small").to_be_bytes());
        out.extend_from_slice(m);
    }
    out
}

/// Decode `wire` as a response stream whose body arrives in pieces of `piece` bytes.
async fn decode_all(wire: Vec<u8>, piece: usize) -> Vec<Result<ChainEvent, tonic::Status>> {
    let frames: Vec<Result<http_body::Frame<Bytes>, std::convert::Infallible>> = wire
        .chunks(piece)
        .map(|c| Ok(http_body::Frame::data(Bytes::copy_from_slice(c))))
        .collect();
    let body = StreamBody::new(tokio_stream::iter(frames));
    let decoder = SliceCodec::<ChainEvent, ChainEvent>::default().decoder();
    let mut stream = Streaming::new_response(
        decoder,
        body,
        tonic::codegen::http::StatusCode::OK,
        None,
        None,
    );
    let mut out = Vec::new();
    loop {
        match stream.message().await {
            Ok(Some(m)) => out.push(Ok(m)),
            Ok(None) => break,
            Err(e) => {
                out.push(Err(e));
                break;
            }
        }
    }
    out
}

#[tokio::test]
async fn the_codec_decodes_what_prost_encoded_however_the_body_is_cut() {
    let sent = vec![event(1), event(64), event(3)];
    let wire = framed(&sent.iter().map(Message::encode_to_vec).collect::<Vec<_>>());
    for piece in [1, 7, 4096, wire.len()] {
        let got = decode_all(wire.clone(), piece).await;
        let got: Vec<ChainEvent> = got.into_iter().map(|r| r.expect("decodes")).collect();
        assert_eq!(got, sent, "body cut in pieces of {piece} bytes");
    }
}

#[tokio::test]
async fn a_message_that_does_not_parse_is_an_internal_status() {
    let mut bad = event(2).encode_to_vec();
    bad.truncate(bad.len() - 5); // a packed field's length now runs past the message
    let wire = framed(&[event(1).encode_to_vec(), bad]);
    let got = decode_all(wire, 4096).await;
    assert_eq!(got.len(), 2);
    assert!(got[0].is_ok());
    let err = got[1]
        .as_ref()
        .expect_err("a truncated message must not decode");
    assert_eq!(err.code(), Code::Internal, "{err}");
}
