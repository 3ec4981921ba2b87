//! Bounded decompression for container entries: zstd and LZ4 block (CUDA
//! fatbins), zlib (Fossilize databases).
//!
//! Every call takes the compressed bytes and the size the container declares
//! for the output. The declared size is checked against [`output_limit`]
//! (at most [`limits::MAX_DECOMPRESSED_BYTES`], and at most
//! [`limits::MAX_DECOMPRESSION_RATIO`] times the input plus
//! [`limits::DECOMPRESSION_SLACK`]) before anything is allocated, the decoder
//! never writes past it, and an output of any other length is an error. The
//! decoders run under `catch_unwind`: a panic in a third-party decoder is an
//! error for that entry, not for the input.

use super::error::{ErrorKind, ReadError, Result};
use super::limits;
use std::io::Read;

/// An encoding a container names for an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Codec {
    /// Stored as is.
    None,
    /// An LZ4 block (no frame), as `nvcc --compress-mode=speed` writes.
    Lz4,
    /// One zstd frame, as nvcc's default, `size` and `balance` modes write.
    Zstd,
    /// A zlib stream (deflate with the zlib header), as Fossilize writes.
    Zlib,
}

impl Codec {
    /// `zstd`, `lz4`, `zlib` or `none`.
    pub fn name(self) -> &'static str {
        match self {
            Codec::None => "none",
            Codec::Lz4 => "lz4",
            Codec::Zstd => "zstd",
            Codec::Zlib => "zlib",
        }
    }
}

/// The most bytes `compressed_len` compressed bytes may decompress to.
pub fn output_limit(compressed_len: u64) -> u64 {
    compressed_len
        .saturating_mul(limits::MAX_DECOMPRESSION_RATIO)
        .saturating_add(limits::DECOMPRESSION_SLACK)
        .min(limits::MAX_DECOMPRESSED_BYTES)
}

/// Why a declared output size is refused, or `None` when it is within
/// [`output_limit`].
pub fn refuse_size(compressed_len: u64, declared: u64) -> Option<String> {
    if declared > limits::MAX_DECOMPRESSED_BYTES {
        return Some(format!(
            "declares {declared} decompressed bytes, over the {}-byte limit",
            limits::MAX_DECOMPRESSED_BYTES
        ));
    }
    if declared > output_limit(compressed_len) {
        return Some(format!(
            "declares {declared} decompressed bytes from {compressed_len} (ratio {}), over the ratio limit {}",
            declared / compressed_len.max(1),
            limits::MAX_DECOMPRESSION_RATIO
        ));
    }
    None
}

/// Decompresses `input` (at absolute offset `offset`, for errors) to exactly
/// `declared` bytes.
pub fn decompress(codec: Codec, input: &[u8], declared: u64, offset: u64) -> Result<Vec<u8>> {
    if let Some(why) = refuse_size(input.len() as u64, declared) {
        return Err(ReadError::limit(offset, why));
    }
    // Within MAX_DECOMPRESSED_BYTES: fits usize.
    let want = usize::try_from(declared).map_err(|_| ReadError::limit(offset, "declared size"))?;
    let caught = std::panic::catch_unwind(|| match codec {
        Codec::None => Ok(input.to_vec()),
        Codec::Lz4 => lz4(input, want),
        Codec::Zstd => zstd(input, want),
        Codec::Zlib => zlib(input, want),
    });
    let out = match caught {
        Ok(Ok(out)) => out,
        Ok(Err(why)) => return Err(ReadError::malformed(offset, format!("{} data: {why}", codec.name()))),
        Err(_) => return Err(ReadError::malformed(offset, format!("{} data: the decoder failed", codec.name()))),
    };
    if out.len() != want {
        return Err(ReadError::new(
            ErrorKind::BadSize,
            offset,
            format!("{} data decompresses to {} bytes, the entry declares {declared}", codec.name(), out.len()),
        ));
    }
    Ok(out)
}

fn lz4(input: &[u8], want: usize) -> std::result::Result<Vec<u8>, String> {
    let mut out = vec![0u8; want];
    let n = lz4_flex::block::decompress_into(input, &mut out).map_err(|e| e.to_string())?;
    out.truncate(n);
    Ok(out)
}

fn zstd(input: &[u8], want: usize) -> std::result::Result<Vec<u8>, String> {
    let mut source = input;
    let decoder = ruzstd::decoding::StreamingDecoder::new(&mut source).map_err(|e| e.to_string())?;
    let mut out = Vec::with_capacity(want);
    // One byte more than declared: a longer stream is detected, not followed.
    decoder.take(want as u64 + 1).read_to_end(&mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

fn zlib(input: &[u8], want: usize) -> std::result::Result<Vec<u8>, String> {
    miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(input, want.saturating_add(1))
        .map_err(|e| format!("{:?}", e.status))
}

/// CRC-32 (IEEE, as zlib's `crc32`), which Fossilize stores per entry.
pub fn crc32(bytes: &[u8]) -> u32 {
    const fn table() -> [u32; 256] {
        let mut t = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
                k += 1;
            }
            t[i] = c;
            i += 1;
        }
        t
    }
    static TABLE: [u32; 256] = table();
    let mut c = !0u32;
    for &b in bytes {
        c = TABLE[((c ^ u32::from(b)) & 0xFF) as usize] ^ (c >> 8);
    }
    !c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_matches_zlib() {
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn zlib_round_trip_and_exact_size() {
        let text = b"hello hello hello hello".repeat(10);
        let z = miniz_oxide::deflate::compress_to_vec_zlib(&text, 6);
        assert_eq!(decompress(Codec::Zlib, &z, text.len() as u64, 0).unwrap(), text);
        // A declared size shorter or longer than the stream is an error.
        let e = decompress(Codec::Zlib, &z, text.len() as u64 - 1, 7).unwrap_err();
        assert_eq!(e.offset, 7);
        let e = decompress(Codec::Zlib, &z, text.len() as u64 + 1, 7).unwrap_err();
        assert_eq!(e.kind, ErrorKind::BadSize);
    }

    #[test]
    fn bombs_are_refused_before_allocating() {
        // 10 compressed bytes may not declare 100 MB.
        let e = decompress(Codec::Zstd, &[0u8; 10], 100 << 20, 0).unwrap_err();
        assert_eq!(e.kind, ErrorKind::LimitExceeded);
        assert!(e.detail.contains("ratio"), "{e}");
        let e = decompress(Codec::Lz4, &vec![0u8; 1 << 20], 300 << 20, 0).unwrap_err();
        assert!(e.detail.contains("over the 268435456-byte limit"), "{e}");
        // A real zstd bomb: RLE blocks of 128 KiB from 4 bytes each.
        let bomb = zstd_rle_bomb(100);
        let real = 100 * (128 << 10);
        assert_eq!(decompress(Codec::Zstd, &bomb, real, 0).unwrap_err().kind, ErrorKind::LimitExceeded);
        // Declared small, it is decoded only one byte past the declared size.
        let e = decompress(Codec::Zstd, &bomb, 1000, 0).unwrap_err();
        assert_eq!(e.kind, ErrorKind::BadSize);
        assert!(e.detail.contains("decompresses to 1001 bytes, the entry declares 1000"), "{e}");
        // The same frame with an honest size within the ratio decodes.
        let small = zstd_rle_bomb(1);
        assert_eq!(decompress(Codec::Zstd, &small, 128 << 10, 0).unwrap(), vec![0xAB; 128 << 10]);
    }

    /// A zstd frame of `blocks` RLE blocks of 128 KiB of 0xAB.
    pub(crate) fn zstd_rle_bomb(blocks: usize) -> Vec<u8> {
        let mut f = vec![0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x58]; // no FCS, window 4 MiB
        for i in 0..blocks {
            let last = u32::from(i + 1 == blocks);
            let h = last | (1 << 1) | ((128 << 10) << 3);
            f.extend_from_slice(&h.to_le_bytes()[..3]);
            f.push(0xAB);
        }
        f
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        for codec in [Codec::Lz4, Codec::Zstd, Codec::Zlib] {
            for data in [&b""[..], b"\x28\xb5\x2f\xfd\xff\xff\xff\xff", b"\xff\xff\xff\xff\xff\xff", b"\x78\x9c\x01"] {
                assert!(decompress(codec, data, 64, 0).is_err(), "{codec:?} {data:?}");
            }
        }
    }
}
