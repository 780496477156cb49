//! Core errors as JavaScript `Error`s: the message is the error's one-line text, `code` its
//! stable `kind()`, and `refused` the verb refusal inside a replay's `entry-refused`. Every
//! core error type passes through `Refusal`, so the conversions live here and not in core.

use mosaic_queue_core::{
    CanonError, MapError, QueueError, ReplayError, SnapshotError, TableError, VerbError,
};
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
}

impl ArgumentError {
    pub fn kind(&self) -> &'static str {
        match self {
            ArgumentError::Json { .. } => "bad-argument",
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

/// The verb refusal behind an invalid queue file, when replay is what refused it.
fn refused_in(err: &QueueError) -> Option<&'static str> {
    match err {
        QueueError::Replay(ReplayError::Refused { source, .. }) => Some(source.kind()),
        _ => None,
    }
}

impl From<QueueError> for Refusal {
    fn from(err: QueueError) -> Refusal {
        Refusal {
            refused: refused_in(&err),
            ..Refusal::new(err.kind(), &err)
        }
    }
}

impl From<SnapshotError> for Refusal {
    fn from(err: SnapshotError) -> Refusal {
        let refused = match &err {
            SnapshotError::Invalid(q) | SnapshotError::BaseInvalid(q) => refused_in(q),
            _ => None,
        };
        Refusal {
            refused,
            ..Refusal::new(err.kind(), &err)
        }
    }
}

impl From<CanonError> for Refusal {
    fn from(err: CanonError) -> Refusal {
        Refusal::new(err.kind(), &err)
    }
}

impl From<VerbError> for Refusal {
    fn from(err: VerbError) -> Refusal {
        Refusal::new(err.kind(), &err)
    }
}

impl From<TableError> for Refusal {
    fn from(err: TableError) -> Refusal {
        Refusal::new(err.kind(), &err)
    }
}

impl From<MapError> for Refusal {
    fn from(err: MapError) -> Refusal {
        Refusal::new(err.kind(), &err)
    }
}

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
