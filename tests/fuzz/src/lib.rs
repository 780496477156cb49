//! The fuzz checks: one module per reader, each with `check(bytes)`, which feeds the bytes to
//! the reader and asserts an invariant of its answer. The libFuzzer targets call them; the
//! stable test suite includes this file to replay fixtures/fuzz/<target>/ through them.

pub mod epoch;
pub mod gitea_answer;
pub mod manifest;
pub mod migration_map;
pub mod node_command;
pub mod queue_reader;
pub mod replay;
pub mod snapshot;
pub mod table;
