//! Snapshots: the pair of queue files copied together under the lock (`snapshot --out DIR`),
//! and their check with no lock and no repository (`verify --snapshot DIR`), which `commit`
//! runs on the pair it publishes.

pub mod copy;
pub mod take;
pub mod verify;
