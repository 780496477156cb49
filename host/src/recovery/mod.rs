//! Recovery and upkeep under the lock: `verify` and `render` (the file, its history and its
//! table), `sync` (a visible tail confirmed durable), `unlock` (a dead lock removed) and
//! `accept-history` (the last step of Manual recovery).

pub mod accept_history;
pub mod sync;
pub mod unlock;
pub mod verify;
