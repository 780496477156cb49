//! `list`, `show ID` and `next [SEAT]`: the unlocked reads of rows, as text or as their
//! documents (docs/json.md).

use mosaic_queue_core::{Row, VerbError, layout, markdown::render_table, pick, to_canonical};
use serde::Serialize;

use super::claims::{self, ClaimJson, Seen};
use super::cut::Found;
use super::describe::describe;
use super::load::load_for_read_in;
use crate::actor::seat_or_agent;
use crate::reply::{Replied, Reply};
use crate::store::session::{self, At};

#[derive(Serialize)]
struct ListJson<'a> {
    revision: u64,
    durable: bool,
    /// What the follower pushed last; left out where no follower ever pushed.
    #[serde(skip_serializing_if = "Option::is_none")]
    replicated: Option<ReplicatedJson>,
    /// The leased claims, judged now; left out when there is none.
    #[serde(skip_serializing_if = "<[ClaimJson]>::is_empty")]
    claims: &'a [ClaimJson],
    rows: &'a [Row],
}

/// One row (or none) as the reads' documents hold it: `show`, `next` and `wait`.
#[derive(Serialize)]
pub struct RowJson<'a> {
    pub revision: u64,
    pub durable: bool,
    /// `show`: what the follower pushed last; left out where no follower ever pushed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replicated: Option<ReplicatedJson>,
    pub row: Option<&'a Row>,
    /// `show` of a row a cut archived: the archive it was read from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archive: Option<&'a str>,
    /// `show` of a row that holds a leased claim: the claim, judged now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim: Option<ClaimJson>,
}

/// The follower's last push as the reads' documents give it (docs/json.md).
#[derive(Serialize)]
pub struct ReplicatedJson {
    revision: u64,
    commit: String,
    remote: String,
    #[serde(rename = "ref")]
    reference: String,
    at: String,
}

/// What the follower's record says, when it can be read.
fn replicated(at: At<'_>, paths: &crate::checkout::Paths) -> Option<ReplicatedJson> {
    let record = crate::store::replicated::read(at.world.io, paths);
    let r = record.read_ok()?;
    Some(ReplicatedJson {
        revision: r.revision,
        commit: r.commit.clone(),
        remote: r.remote.clone(),
        reference: r.reference.clone(),
        at: r.at.clone(),
    })
}

/// `list`: every row as the table shows it, or the `{revision, durable, rows}` document.
pub fn list(at: At<'_>, reply: &mut dyn Reply) -> Replied {
    let json = reply.documents();
    let paths = at.paths()?;
    // The rows' text as the read view holds it is the text of the document's last member.
    // The view's state holds no rows; one whose rows carry no lease holds no leased claim
    // (a quote inside a row's text is escaped, so the key cannot be spelled there).
    if json
        && let Some(listing) = session::read_listing(at.world, &paths)?
        && !contains(listing.rows_text(), b"\"lease\": ")
    {
        let head = to_canonical(&ListJson {
            revision: listing.state.revision,
            durable: true,
            replicated: replicated(at, &paths),
            claims: &[],
            rows: &[],
        });
        if let Some(doc) = layout::complete_last(head, listing.rows_text()) {
            return reply.document(doc);
        }
    }
    let seen = load_for_read_in(at.world, &paths, reply)?;
    let st = &seen.state;
    let claims = Seen::read(at.world, &paths, st).all(st);
    if json {
        reply.serialized(&ListJson {
            revision: st.revision,
            durable: seen.durable,
            replicated: replicated(at, &paths),
            claims: &claims,
            rows: &st.rows,
        })?;
    } else {
        let pushed = replicated(at, &paths).map_or_else(String::new, |r| {
            format!(
                " (replicated rev {} to {} {})",
                r.revision, r.remote, r.reference
            )
        });
        reply.line(&format!("rev {}{pushed}", st.revision))?;
        // The table QUEUE.md holds, in the style of the last entry (the view records it).
        reply.text(&render_table(st))?;
        reply.text(&claims::section(&claims))?;
    }
    Ok(())
}

/// Whether `needle` occurs in `bytes`.
fn contains(bytes: &[u8], needle: &[u8]) -> bool {
    bytes.windows(needle.len()).any(|w| w == needle)
}

/// `show ID`: one row as `field: value` lines, or the `{revision, durable, row}` document.
pub fn show(at: At<'_>, id: u64, reply: &mut dyn Reply) -> Replied {
    let json = reply.documents();
    let paths = at.paths()?;
    let seen = load_for_read_in(at.world, &paths, reply)?;
    let st = &seen.state;
    // The read view holds the rows, not the epoch: a row it lacks may be archived.
    let row = match st.row(id) {
        Ok(row) => row,
        Err(VerbError::RowArchived { .. } | VerbError::NoSuchRow { .. }) => {
            return show_archived(at, &paths, id, (st.revision, seen.durable), reply);
        }
        Err(e) => return Err(e.into()),
    };
    let claim = Seen::read(at.world, &paths, st).judge(row);
    if json {
        reply.serialized(&RowJson {
            revision: st.revision,
            durable: seen.durable,
            replicated: replicated(at, &paths),
            row: Some(row),
            archive: None,
            claim,
        })?;
    } else {
        reply.text(&with_claim(describe(st, row), claim.as_ref()))?;
    }
    Ok(())
}

/// `show`'s lines with the claim's line before the last (`rev: N`), when the row holds one.
pub fn with_claim(mut text: String, claim: Option<&ClaimJson>) -> String {
    let Some(claim) = claim else {
        return text;
    };
    let last = text
        .trim_end_matches('\n')
        .rfind('\n')
        .map_or(0, |at| at + 1);
    text.insert_str(last, &claim.show_line());
    text
}

/// `show ID` of a row the state as read lacks: the row as the archive that holds it has it,
/// and where; refused as `no row` when no cut archived it.
fn show_archived(
    at: At<'_>,
    paths: &crate::checkout::Paths,
    id: u64,
    (revision, durable): (u64, bool),
    reply: &mut dyn Reply,
) -> Replied {
    let archived = match super::cut::find(at.world, paths, id, reply)? {
        Found::Archived(archived) => archived,
        // The queue holds it after all (a write since the read view): show it as it is now.
        Found::Now(queue) => {
            let row = queue.state().row(id)?;
            return reply.text(&describe(queue.state(), row));
        }
    };
    let row = archived.row()?;
    if reply.documents() {
        return reply.serialized(&RowJson {
            revision,
            durable,
            replicated: replicated(at, paths),
            row: Some(row),
            archive: Some(&archived.file),
            claim: None,
        });
    }
    reply.text(&describe_archived(&archived, row))
}

/// An archived row as `show` prints it: its lines, then the archive it was read from.
pub fn describe_archived(archived: &super::cut::Archived, row: &Row) -> String {
    let mut text = describe(archived.state(), row);
    text.push_str(&format!(
        "  archived: {} (history before rev {})\n",
        archived.file,
        archived.state().revision + 1
    ));
    text
}

/// `next [SEAT]`: the row SEAT (else `$MOSAIC_AGENT_NAME`) should take up next.
pub fn next(at: At<'_>, seat: Option<String>, reply: &mut dyn Reply) -> Replied {
    let json = reply.documents();
    let seat = seat_or_agent(seat, "next")?;
    let paths = at.paths()?;
    let seen = load_for_read_in(at.world, &paths, reply)?;
    let st = &seen.state;
    let signs = Seen::read(at.world, &paths, st);
    let row = pick::next_with(&st.rows, &seat, &signs.signs, &signs.now);
    if json {
        reply.serialized(&RowJson {
            revision: st.revision,
            durable: seen.durable,
            replicated: None,
            row,
            archive: None,
            claim: None,
        })?;
    } else {
        match row {
            Some(r) => reply.text(&describe(st, r))?,
            None => reply.line(&format!("nothing for {seat} to take up"))?,
        }
    }
    Ok(())
}
