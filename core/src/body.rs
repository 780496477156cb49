//! An entry's `body`: the SHA-256 of the table body the entry rendered, written as 64 lowercase
//! hex digits. A long log holds one per entry, so a digest is kept as its 32 bytes rather than
//! as 64 characters on the heap; any other text is kept as it was read, for replay to refuse.

use alloc::string::String;
use core::fmt;
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::hex::{hex64, is_hex, unhex};

/// The `body` of a log entry, exactly as the file spells it.
#[derive(Clone, PartialEq, Eq)]
pub enum Body {
    /// 64 lowercase hex digits, as the bytes they spell.
    Sha256([u8; 32]),
    /// Anything else: not a digest, which replay refuses.
    Other(String),
}

impl Body {
    /// The body for `text`, kept without a copy when it is a digest.
    pub fn from_text(text: &str) -> Body {
        match unhex(text) {
            Some(bytes) => Body::Sha256(bytes),
            None => Body::Other(String::from(text)),
        }
    }

    /// Whether it is 64 lowercase hex digits, as every entry's body must be.
    pub fn is_digest(&self) -> bool {
        match self {
            Body::Sha256(_) => true,
            Body::Other(text) => is_hex(text, 64),
        }
    }

    /// Runs `f` with the text the file holds.
    fn with_text<T>(&self, f: impl FnOnce(&str) -> T) -> T {
        match self {
            Body::Sha256(bytes) => {
                // Only ASCII hex digits were written.
                f(core::str::from_utf8(&hex64(bytes)).unwrap_or_default())
            }
            Body::Other(text) => f(text),
        }
    }
}

impl fmt::Debug for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.with_text(|text| fmt::Debug::fmt(text, f))
    }
}

impl fmt::Display for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.with_text(|text| f.write_str(text))
    }
}

impl Serialize for Body {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.with_text(|text| s.serialize_str(text))
    }
}

struct BodyVisitor;

impl Visitor<'_> for BodyVisitor {
    type Value = Body;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Body, E> {
        Ok(Body::from_text(text))
    }

    fn visit_string<E: de::Error>(self, text: String) -> Result<Body, E> {
        Ok(match unhex(&text) {
            Some(bytes) => Body::Sha256(bytes),
            None => Body::Other(text),
        })
    }
}

impl<'de> Deserialize<'de> for Body {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Body, D::Error> {
        d.deserialize_str(BodyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn a_digest_is_held_as_bytes_and_written_back_as_it_was_read() {
        let hex = "00ff10a9b8c7d6e5f4031200000000000000000000000000000000000000beef";
        let body = Body::from_text(hex);
        assert!(matches!(body, Body::Sha256(b) if b[0] == 0 && b[1] == 0xff && b[31] == 0xef));
        assert_eq!(body.to_string(), hex);
        assert!(body.is_digest());
        assert_ne!(body, Body::from_text(&hex.to_uppercase()));
    }

    #[test]
    fn other_text_is_kept_and_is_not_a_digest() {
        let upper = "00FF10A9B8C7D6E5F4031200000000000000000000000000000000000000BEEF";
        for text in [
            upper,
            "abc",
            "",
            "g000000000000000000000000000000000000000000000000000000000000000",
        ] {
            let body = Body::from_text(text);
            assert_eq!(body, Body::Other(text.to_string()));
            assert_eq!(body.to_string(), text);
            assert!(!body.is_digest());
        }
    }
}
