//! `map-check --map FILE`: before genesis, lists every table line of QUEUE.md changed since the
//! blob the migration map was built from and every row whose piece, owner or issues no longer
//! match the map. Read-only and unlocked: it reads the map, one git blob and QUEUE.md.

use std::path::Path;

use mosaic_queue_core::migration;

use crate::git;
use crate::named_files::{read_map, read_queue_md};
use crate::reply::{Failure, Replied, Reply};
use crate::store::session::{self, Kind};

/// `map-check --map FILE`: exit 0 with no drift, else the report and exit 2.
pub fn map_check(map_path: &Path, reply: &mut dyn Reply) -> Replied {
    let paths = session::locate()?;
    let map_text = read_map(map_path)?;
    let map = migration::parse(&map_text)
        .map_err(|e| Failure::refused(format!("the map {}: {e}", map_path.display())))?;
    let source = match git::blob_within(&paths.root, &map.source, Kind::QueueMd.cap()) {
        // As git prints it: a trailing newline is not part of the compared text.
        Ok(bytes) => String::from_utf8_lossy(&bytes)
            .trim_end_matches('\n')
            .to_owned(),
        Err(git::BlobError::TooLarge { size }) => {
            return Err(Failure::refused(format!(
                "the map names QUEUE.md blob {} of {size} bytes, over the {} cap for QUEUE.md; rebuild the map from a committed QUEUE.md",
                map.source,
                session::size_text(Kind::QueueMd.cap())
            )));
        }
        Err(git::BlobError::Git(_)) => {
            return Err(Failure::refused(format!(
                "the map names QUEUE.md blob {} but this repository has no such blob; rebuild the map from a committed QUEUE.md",
                map.source
            )));
        }
    };
    let current = read_queue_md(&paths)?;
    let drift = migration::drift(&map, &source, &current);
    if drift.is_empty() {
        reply.line("ok map-check: no drift")?;
        return Ok(());
    }
    for c in &drift.lines {
        reply.line(&format!(
            "{} line {}: {}",
            if c.added { '+' } else { '-' },
            c.line,
            c.text
        ))?;
    }
    for r in &drift.rows {
        reply.line(&format!(
            "row {} {}: map {:?}, table {:?}",
            r.id, r.field, r.map, r.table
        ))?;
    }
    Err(Failure::refused(format!(
        "map-check: {} drifting lines, {} drifting rows",
        drift.lines.len(),
        drift.rows.len()
    )))
}
