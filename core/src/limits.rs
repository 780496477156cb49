//! The bound every number in the queue's documents shares: what JavaScript holds exactly, so
//! that the Node package and this core read and print the same integers.

/// The largest integer JavaScript holds exactly (`Number.MAX_SAFE_INTEGER`); larger ones would
/// print differently from Node, so they are refused.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;
