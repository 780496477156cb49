//! The lease exports for Node (semantics 7): the one duration parser, a lease written back, a
//! row's claim judged at a time with its holder's heartbeat, and `next` judged with the
//! heartbeats a caller read. The rules are the core's; this file only crosses the boundary.

use mosaic_queue_core::signs::{Claim, Heartbeat, Signs, judge};
use mosaic_queue_core::{Queue, Row, pick};
use wasm_bindgen::prelude::*;

use super::refusal::Refusal;
use super::{from_json, json};

/// A lease as a person writes it (`90s`, `45m`, `2h`), in seconds within 1m to 24h.
#[wasm_bindgen(js_name = parseLease)]
pub fn parse_lease(text: &str) -> Result<u32, Refusal> {
    Ok(mosaic_queue_core::parse_lease(text)?)
}

/// A lease in seconds as receipts write it (`2h`, `90m`, `75s`).
#[wasm_bindgen(js_name = leaseText)]
pub fn lease_text(seconds: u32) -> String {
    mosaic_queue_core::lease_text(seconds)
}

/// The claim on a row (JSON of a queue.json row) judged at `now` with its holder's heartbeat
/// (`None`: unknown), as JSON `{state, leaseEnd, lastSign, silent, left}`; `null` when the row
/// is not in progress under a seat.
#[wasm_bindgen(js_name = claimState)]
pub fn claim_state(
    row_json: &str,
    heartbeat: Option<String>,
    now: &str,
) -> Result<String, Refusal> {
    let row: Row = from_json("row", row_json)?;
    let heartbeat = heartbeat.map_or(Heartbeat::Unknown, Heartbeat::At);
    Ok(json(&Claim::of(&row).map(|c| judge(&c, &heartbeat, now))))
}

/// The row `seat` should take up next in a verified queue, judged with the heartbeats
/// (`{seat: time}` JSON) at `now`: another seat's expired claim is free work at its place.
#[wasm_bindgen(js_name = nextWith)]
pub fn next_with(
    bytes: &[u8],
    seat: &str,
    heartbeats_json: &str,
    now: &str,
) -> Result<String, Refusal> {
    let signs: Signs = from_json("heartbeats", heartbeats_json)?;
    let queue = Queue::verify(bytes)?;
    Ok(json(&pick::next_with(queue.rows(), seat, &signs, now)))
}
