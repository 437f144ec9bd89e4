//! The framing of tengen's append-only files (the board's event journal and its frames
//! file, the black box): after a file header of eight magic bytes, records of
//! `[len: u32 LE][crc: u32 LE][payload: len bytes]`, where `crc` is CRC-32C (Castagnoli)
//! over the four length bytes followed by the payload. A record is whole only when all its
//! bytes are there and the checksum matches; anything else is not a record: a reader cuts a
//! torn tail there, and a writer appends after the last whole record.

use crc::{Crc, Table, CRC_32_ISCSI};

/// Bytes before a record's payload.
pub const HEADER_LEN: usize = 8;

/// The largest payload accepted (an event is well under 64 KiB, a second of frames a few
/// KiB; this bounds what a corrupted length field can make the reader believe).
pub const MAX_PAYLOAD: usize = 1 << 20;

// Slice-by-16 tables (16 KiB): about four times the single table's speed, which counts
// where a reader checks a whole frames file for a one-minute window.
const CRC32C: Crc<u32, Table<16>> = Crc::<u32, Table<16>>::new(&CRC_32_ISCSI);

/// Frames one payload as a record.
pub fn encode(payload: &[u8]) -> Vec<u8> {
    let len = (payload.len() as u32).to_le_bytes();
    let mut digest = CRC32C.digest();
    digest.update(&len);
    digest.update(payload);
    let crc = digest.finalize().to_le_bytes();
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
    out.extend_from_slice(&len);
    out.extend_from_slice(&crc);
    out.extend_from_slice(payload);
    out
}

/// What sits at an offset of a file's bytes.
#[derive(Debug, PartialEq, Eq)]
pub enum Decoded<'a> {
    /// A whole record: its payload and its total length in bytes.
    Record(&'a [u8], usize),
    /// The bytes end before the record does (a torn write, or a writer still at work).
    Incomplete,
    /// The length is out of range or the checksum does not match.
    Bad,
}

/// Decodes the record at the start of `bytes`.
pub fn decode(bytes: &[u8]) -> Decoded<'_> {
    let Some(header) = bytes.get(..HEADER_LEN) else {
        return Decoded::Incomplete;
    };
    let len_bytes = [header[0], header[1], header[2], header[3]];
    let crc_bytes = [header[4], header[5], header[6], header[7]];
    let len = u32::from_le_bytes(len_bytes) as usize;
    if len == 0 || len > MAX_PAYLOAD {
        return Decoded::Bad;
    }
    let Some(payload) = bytes.get(HEADER_LEN..HEADER_LEN + len) else {
        return Decoded::Incomplete;
    };
    let mut digest = CRC32C.digest();
    digest.update(&len_bytes);
    digest.update(payload);
    if digest.finalize() != u32::from_le_bytes(crc_bytes) {
        return Decoded::Bad;
    }
    Decoded::Record(payload, HEADER_LEN + len)
}

/// The offset of the first whole record at or after `from` whose payload `fits` (a file's
/// own kind of record, not bytes that happen to checksum): how a reader tells a damaged
/// record followed by good ones from a torn tail.
pub fn next_whole(bytes: &[u8], from: usize, fits: impl Fn(&[u8]) -> bool) -> Option<usize> {
    (from..bytes.len()).find(|&o| match decode(&bytes[o..]) {
        Decoded::Record(payload, _) => fits(payload),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_decodes_to_its_payload() {
        let rec = encode(b"{\"a\":1}");
        assert_eq!(decode(&rec), Decoded::Record(b"{\"a\":1}", rec.len()));
    }

    #[test]
    fn every_proper_prefix_is_incomplete_or_bad() {
        let rec = encode(b"hello journal");
        for cut in 0..rec.len() {
            assert!(matches!(
                decode(&rec[..cut]),
                Decoded::Incomplete | Decoded::Bad
            ));
        }
    }

    #[test]
    fn a_flipped_bit_anywhere_is_caught() {
        let rec = encode(b"{\"type\":\"move\"}");
        for byte in 0..rec.len() {
            for bit in 0..8 {
                let mut bad = rec.clone();
                bad[byte] ^= 1 << bit;
                assert!(
                    !matches!(decode(&bad), Decoded::Record(..)),
                    "flip at byte {byte} bit {bit} accepted"
                );
            }
        }
    }
}
