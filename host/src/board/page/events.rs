//! The event stream's payloads: `revision` carries the revision a read sees now and whether
//! it is confirmed durable; `claims` the state of each leased claim, sent when one turns with
//! time alone (no write between). A page that shows another revision or other claim states
//! fetches itself again. The retry line asks a browser that lost the stream to come back
//! within a second.

use serde::Serialize;

use crate::board::escape;
use crate::engine::board::Snapshot;

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

#[derive(Serialize)]
struct Claims<'a> {
    claims: &'a str,
}

/// Each leased claim's state in the snapshot, `ID:STATE` in row order joined by commas
/// (`1:live,2:quiet`): what a page carries as `data-claims` and a `claims` event holds; empty
/// for a queue without leased claims.
pub fn claims_key(snap: &Snapshot) -> String {
    let mut key = String::new();
    let mut cards: Vec<_> = snap
        .cards
        .iter()
        .filter_map(|c| c.claim.as_ref().map(|j| (c.row.id, j.state)))
        .collect();
    cards.sort_by_key(|(id, _)| *id);
    for (id, state) in cards {
        if !key.is_empty() {
            key.push(',');
        }
        key.push_str(&format!("{id}:{}", state.as_str()));
    }
    key
}

/// The `claims` event for a `claims_key`.
pub fn claims(key: &str) -> String {
    let data = serde_json::to_string(&Claims { claims: key }).unwrap_or_default();
    escape::event("claims", &data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_claims_event_is_one_event_of_one_data_line() {
        assert_eq!(
            claims("1:quiet,12:expired"),
            "event: claims\ndata: {\"claims\":\"1:quiet,12:expired\"}\n\n"
        );
    }

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
