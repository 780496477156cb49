//! Lowercase hex: the spelling of every digest the queue stores (body hashes, the witness's
//! chain, candidates). Bytes in, text out and back; nothing here hashes.

use alloc::string::String;

const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// Lowercase hex of any byte string.
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 0xf)] as char);
    }
    s
}

/// True for exactly `len` lowercase hex digits.
pub(crate) fn is_hex(s: &str, len: usize) -> bool {
    s.len() == len && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The 64 lowercase hex digits of a SHA-256, without a heap allocation.
pub(crate) fn hex64(bytes: &[u8; 32]) -> [u8; 64] {
    let mut out = [0u8; 64];
    for (pair, b) in out.chunks_exact_mut(2).zip(bytes) {
        pair[0] = DIGITS[usize::from(b >> 4)];
        pair[1] = DIGITS[usize::from(b & 0xf)];
    }
    out
}

/// The 32 bytes that exactly 64 lowercase hex digits spell.
pub(crate) fn unhex(s: &str) -> Option<[u8; 32]> {
    if !is_hex(s, 64) {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, pair) in s.as_bytes().chunks(2).enumerate() {
        let digit = |b: u8| if b <= b'9' { b - b'0' } else { b - b'a' + 10 };
        out[i] = digit(pair[0]) * 16 + digit(pair[1]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unhex_reverses_hex() {
        let bytes: [u8; 32] = core::array::from_fn(|i| (i * 7) as u8);
        assert_eq!(unhex(&hex(&bytes)), Some(bytes));
        assert_eq!(unhex("zz"), None);
    }

    #[test]
    fn hex_check() {
        assert!(is_hex("00ff", 4));
        assert!(!is_hex("00FF", 4));
        assert!(!is_hex("00f", 4));
    }
}
