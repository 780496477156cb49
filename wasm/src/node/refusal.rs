//! Core errors as JavaScript `Error`s: the message is the error's one-line text, `code` its
//! stable `kind()`, and `refused` the verb refusal inside a replay's `entry-refused`. The
//! core's one `Error` becomes a `Refusal` in one place here (each domain error goes through
//! it), so the conversion lives here and not in core.

use mosaic_queue_core::{
    CanonError, ClaimError, Error as CoreError, MapError, QueueError, SnapshotError,
};
use mosaic_queue_core::{TableError, VerbError};
use thiserror::Error;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// The global `Error` class; `wasm_bindgen::JsError` cannot carry extra properties.
    #[wasm_bindgen(js_name = Error)]
    type ErrorObject;

    #[wasm_bindgen(constructor, js_class = "Error")]
    fn new(message: &str) -> ErrorObject;

    #[wasm_bindgen(method, setter)]
    fn set_code(this: &ErrorObject, code: &str);

    #[wasm_bindgen(method, setter)]
    fn set_refused(this: &ErrorObject, refused: &str);
}

/// What the shim hands the wasm build that is not a core input: JSON for a command or for
/// genesis arguments that does not have the shape the core's types take.
#[derive(Error, Debug)]
pub enum ArgumentError {
    #[error("the {what} JSON does not fit: {message}")]
    Json { what: &'static str, message: String },
    /// The archives the shim packed do not unpack (the shim's fault, never the caller's).
    #[error("the archives buffer is malformed: {0}")]
    Archives(&'static str),
}

impl ArgumentError {
    pub fn kind(&self) -> &'static str {
        match self {
            ArgumentError::Json { .. } | ArgumentError::Archives(_) => "bad-argument",
        }
    }
}

/// A refusal on its way to JavaScript.
pub struct Refusal {
    code: &'static str,
    refused: Option<&'static str>,
    message: String,
}

impl Refusal {
    fn new(code: &'static str, message: impl ToString) -> Refusal {
        Refusal {
            code,
            refused: None,
            message: message.to_string(),
        }
    }
}

/// The one conversion of a core error: its line, its kind, and the verb refusal behind it.
impl From<CoreError> for Refusal {
    fn from(err: CoreError) -> Refusal {
        Refusal {
            refused: err.refused(),
            ..Refusal::new(err.kind(), &err)
        }
    }
}

/// Each domain error the node API meets, through `CoreError`.
macro_rules! through_core_error {
    ($($error:ty),* $(,)?) => {$(
        impl From<$error> for Refusal {
            fn from(err: $error) -> Refusal {
                CoreError::from(err).into()
            }
        }
    )*};
}

through_core_error!(
    CanonError,
    ClaimError,
    MapError,
    QueueError,
    SnapshotError,
    TableError,
    VerbError
);

impl From<ArgumentError> for Refusal {
    fn from(err: ArgumentError) -> Refusal {
        Refusal::new(err.kind(), &err)
    }
}

impl From<Refusal> for JsValue {
    fn from(r: Refusal) -> JsValue {
        let error = ErrorObject::new(&r.message);
        error.set_code(r.code);
        if let Some(refused) = r.refused {
            error.set_refused(refused);
        }
        error.into()
    }
}
