//! The gRPC codec of both services: prost's encoding, and a decoder that parses each message
//! from one contiguous slice.
//!
//! tonic hands a decoder the whole message in one buffer, but behind `DecodeBuf`, whose every
//! `advance` moves the `BytesMut` under it and checks its own length. prost reads a packed
//! `repeated double` eight bytes at a time through that interface, so a CEP-shaped result (a
//! trace row, a sample_stats row, summary matrices of a few hundred values) spent most of its
//! decoding in `BytesMut::advance`. Parsed from `&[u8]`, each read is a pointer bump; the bytes
//! and the messages are the same.

use std::marker::PhantomData;

use prost::Message;
use prost::bytes::Buf as _;
use tonic::Status;
use tonic::codec::{Codec, DecodeBuf, Decoder};

/// prost's encoder ([`tonic_prost::ProstEncoder`]) and [`SliceDecoder`]: what the generated
/// clients and servers in [`crate::v1`] use.
#[derive(Debug, Clone)]
pub struct SliceCodec<T, U> {
    _pd: PhantomData<(T, U)>,
}

impl<T, U> Default for SliceCodec<T, U> {
    fn default() -> Self {
        SliceCodec { _pd: PhantomData }
    }
}

impl<T, U> Codec for SliceCodec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = tonic_prost::ProstEncoder<T>;
    type Decoder = SliceDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        tonic_prost::ProstEncoder::new(Default::default())
    }

    fn decoder(&mut self) -> Self::Decoder {
        SliceDecoder { _pd: PhantomData }
    }
}

/// Decodes a `U` from the message's bytes as one slice (the whole message is in one buffer when
/// tonic calls a decoder; a message split across chunks is decoded through the `Buf`, as
/// prost's own decoder does).
#[derive(Debug, Clone, Default)]
pub struct SliceDecoder<U> {
    _pd: PhantomData<U>,
}

impl<U: Message + Default> Decoder for SliceDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        let len = buf.remaining();
        let item = if buf.chunk().len() == len {
            let item = U::decode(buf.chunk());
            buf.advance(len);
            item
        } else {
            U::decode(buf)
        };
        // An INTERNAL status for a message that does not parse, as tonic-prost gives.
        item.map(Some).map_err(|e| Status::internal(e.to_string()))
    }
}
