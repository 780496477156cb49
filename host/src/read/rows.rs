//! `list`, `show ID` and `next [SEAT]`: the unlocked reads of rows, as text or as their
//! documents (docs/json.md).

use mosaic_queue_core::{Row, layout, markdown::render_body, pick, to_canonical};
use serde::Serialize;

use super::describe::describe;
use super::load::{load_for_read, load_for_read_in};
use crate::actor::seat_or_agent;
use crate::reply::{Failure, Replied, Reply};
use crate::store::session;
use crate::store::world::World;

#[derive(Serialize)]
struct ListJson<'a> {
    revision: u64,
    durable: bool,
    rows: &'a [Row],
}

/// One row (or none) as the reads' documents hold it: `show`, `next` and `wait`.
#[derive(Serialize)]
pub struct RowJson<'a> {
    pub revision: u64,
    pub durable: bool,
    pub row: Option<&'a Row>,
}

/// `list`: every row as the table shows it, or the `{revision, durable, rows}` document.
pub fn list(reply: &mut dyn Reply) -> Replied {
    let json = reply.documents();
    let paths = session::locate()?;
    // The rows' text as the read view holds it is the text of the document's last member.
    if json && let Some(listing) = session::read_listing(World::real(), &paths)? {
        let head = to_canonical(&ListJson {
            revision: listing.state.revision,
            durable: true,
            rows: &[],
        });
        if let Some(doc) = layout::complete_last(head, listing.rows_text()) {
            return reply.document(doc);
        }
    }
    let seen = load_for_read_in(&paths, reply)?;
    let st = &seen.state;
    if json {
        reply.serialized(&ListJson {
            revision: st.revision,
            durable: seen.durable,
            rows: &st.rows,
        })?;
    } else {
        reply.line(&format!("rev {}", st.revision))?;
        reply.text(&render_body(st))?;
    }
    Ok(())
}

/// `show ID`: one row as `field: value` lines, or the `{revision, durable, row}` document.
pub fn show(id: u64, reply: &mut dyn Reply) -> Replied {
    let json = reply.documents();
    let seen = load_for_read(reply)?;
    let st = &seen.state;
    let row = st.row(id).map_err(Failure::from)?;
    if json {
        reply.serialized(&RowJson {
            revision: st.revision,
            durable: seen.durable,
            row: Some(row),
        })?;
    } else {
        reply.text(&describe(st, row))?;
    }
    Ok(())
}

/// `next [SEAT]`: the row SEAT (else `$MOSAIC_AGENT_NAME`) should take up next.
pub fn next(seat: Option<String>, reply: &mut dyn Reply) -> Replied {
    let json = reply.documents();
    let seat = seat_or_agent(seat, "next")?;
    let seen = load_for_read(reply)?;
    let st = &seen.state;
    let row = pick::next(&st.rows, &seat);
    if json {
        reply.serialized(&RowJson {
            revision: st.revision,
            durable: seen.durable,
            row,
        })?;
    } else {
        match row {
            Some(r) => reply.text(&describe(st, r))?,
            None => reply.line(&format!("nothing for {seat} to take up"))?,
        }
    }
    Ok(())
}
