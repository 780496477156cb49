//! The board's presentation: pure functions from a `Snapshot` (and what the request asked
//! for) to whole HTML pages, the SVG graph and the event stream's payloads. Nothing here reads
//! a file or the clock; every text goes out through `super::escape`.

pub mod board;
pub mod card;
pub mod events;
pub mod graph;
pub mod layout;
pub mod row;
pub mod seats;
pub mod timeline;

/// The embedded stylesheet and script: every asset the pages use is inside the binary.
pub const STYLE: &str = include_str!("../assets/board.css");
pub const SCRIPT: &str = include_str!("../assets/live.js");

#[cfg(test)]
mod tests;
