//! What a verb answers, whichever face asked: the sink a verb gives its text, its read
//! document and its receipts to as it makes them (`Reply`), the failure it ends with
//! (`Failure`, with its `{"error": ...}` document), and `Gathered`, which keeps all of it and
//! builds the one JSON document a `--json` run (or the MCP face) answers with. Nothing here
//! prints: the CLI's sink writes stdout and stderr.

mod failure;
mod gathered;
mod receipt;
mod sink;

pub use self::failure::{Failure, Replied};
pub use self::gathered::{Finished, Gathered};
pub use self::receipt::entry_row;
pub use self::sink::{Reply, acknowledge};
