//! COBS (Consistent Overhead Byte Stuffing, Cheshire & Baker 1999) with `0x00` as the
//! sentinel, encoding into a caller's buffer: no allocation.

/// The longest encoding of `len` bytes: one code byte per started run of 254 bytes, and at
/// least one.
pub const fn max_encoded_len(len: usize) -> usize {
    len + len.div_ceil(254) + if len == 0 { 1 } else { 0 }
}

/// Encodes `src` into the start of `dst` and returns the length written, or `None` when
/// `dst` is shorter than [`max_encoded_len`]`(src.len())` (nothing useful is written then).
/// The result holds no `0x00`. Each run of non-zero bytes is copied whole (a `memcpy`),
/// which on a Cortex-M0+ is several times quicker than a byte at a time.
pub fn encode(src: &[u8], dst: &mut [u8]) -> Option<usize> {
    if dst.len() < max_encoded_len(src.len()) {
        return None;
    }
    let mut out = 0;
    let mut rest = src;
    loop {
        let limit = rest.len().min(254);
        let run = rest[..limit].iter().position(|&b| b == 0).unwrap_or(limit);
        dst[out] = run as u8 + 1;
        dst[out + 1..out + 1 + run].copy_from_slice(&rest[..run]);
        out += run + 1;
        if run < limit {
            // The run ended at a zero, which the code byte stands for: skip it. A block
            // follows even if nothing does (a trailing zero ends in the code 0x01).
            rest = &rest[run + 1..];
        } else if run == rest.len() {
            return Some(out);
        } else {
            // A full run of 254 with more bytes after it: the next block starts there
            // (and the encoding never ends in an empty run, so the `cobs` crate's and the
            // protocol's 1302-byte limit holds).
            rest = &rest[run..];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(src: &[u8]) -> ([u8; 600], usize) {
        let mut dst = [0u8; 600];
        let n = encode(src, &mut dst).unwrap();
        (dst, n)
    }

    #[test]
    fn the_papers_examples() {
        let (d, n) = enc(&[0x00]);
        assert_eq!(&d[..n], &[0x01, 0x01]);
        let (d, n) = enc(&[0x00, 0x00]);
        assert_eq!(&d[..n], &[0x01, 0x01, 0x01]);
        let (d, n) = enc(&[0x11, 0x22, 0x00, 0x33]);
        assert_eq!(&d[..n], &[0x03, 0x11, 0x22, 0x02, 0x33]);
        let (d, n) = enc(&[0x11, 0x00, 0x00, 0x00]);
        assert_eq!(&d[..n], &[0x02, 0x11, 0x01, 0x01, 0x01]);
        let (d, n) = enc(&[]);
        assert_eq!(&d[..n], &[0x01]);
    }

    #[test]
    fn long_runs_split_at_254() {
        let src: [u8; 254] = core::array::from_fn(|i| (i % 255 + 1) as u8);
        let (d, n) = enc(&src);
        assert_eq!(n, 255);
        assert_eq!(n, max_encoded_len(254));
        assert_eq!(d[0], 0xFF);
        assert!(d[..n].iter().all(|&b| b != 0));
        let src: [u8; 255] = core::array::from_fn(|i| (i % 255 + 1) as u8);
        let (_, n) = enc(&src);
        assert_eq!(n, 257);
        assert_eq!(n, max_encoded_len(255));
    }

    #[test]
    fn a_short_buffer_is_refused() {
        let mut dst = [0u8; 4];
        assert_eq!(encode(&[1, 2, 3, 4], &mut dst), None);
    }
}
