//! The event stream's payloads: `revision` carries the revision a read sees now and whether
//! it is confirmed durable; a page that shows another fetches itself again. The retry line
//! asks a browser that lost the stream to come back within a second.

use serde::Serialize;

use crate::board::escape;

/// What opens every stream: reconnect after 1000 ms.
pub const OPENING: &str = "retry: 1000\n\n";

#[derive(Serialize)]
struct Revision {
    revision: u64,
    durable: bool,
}

/// The `revision` event.
pub fn revision(revision: u64, durable: bool) -> String {
    let data = serde_json::to_string(&Revision { revision, durable }).unwrap_or_default();
    escape::event("revision", &data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_revision_event_is_one_event_of_one_data_line() {
        assert_eq!(
            revision(42, true),
            "event: revision\ndata: {\"revision\":42,\"durable\":true}\n\n"
        );
        assert_eq!(
            revision(7, false),
            "event: revision\ndata: {\"revision\":7,\"durable\":false}\n\n"
        );
    }
}
