//! The git side of `mosaic-queue commit`: plumbing that builds a commit from exact bytes
//! through a temporary index, and the checks that the pre-commit guard is active. The
//! procedure's order and its messages live in `cli::commit`.

pub mod active;
pub mod git;
