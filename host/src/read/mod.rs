//! The reads, none of which takes the lock for long or writes anything: `list`, `show` and
//! `next` (`rows`), `next --explain`, `list --stale`, `prime`, `log`, `wait` and `map-check`.
//! Each reads what the witness vouches (`load`), a file ahead of it said to be visible, not
//! confirmed durable.

pub mod claims;
pub mod cut;
pub mod describe;
pub mod explain;
pub mod load;
pub mod log;
pub mod map_check;
pub mod prime;
pub mod rows;
pub mod stale;
pub mod wait;
