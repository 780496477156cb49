//! The host's side of review: the request driver (post a request the core hands back, then
//! log the outcome), `review resolve`'s fetch and check of the comment a person found, the
//! `--candidate` a move into review freezes, and `review verify-commit`. The rules themselves
//! are the core's (`mosaic_queue_core::review`).

pub mod candidate;
pub mod request;
pub mod resolve;
pub mod verify_commit;
