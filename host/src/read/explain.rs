//! `next [SEAT] --explain`: what `next` gives, then each open row it passed over, in queue
//! order, with why (owned, gated, waiting on #3, ...); done rows are counted, not listed.

use mosaic_queue_core::{Row, pick};
use serde::Serialize;

use super::claims::Seen;
use super::describe::describe;
use super::load::load_for_read_in;
use crate::actor::seat_or_agent;
use crate::checkout::Paths;
use crate::reply::{Replied, Reply};
use crate::store::session::At;
use crate::store::world::World;

#[derive(Serialize)]
struct PassedJson {
    id: u64,
    why: &'static str,
    text: String,
}

#[derive(Serialize)]
struct ExplainJson<'a> {
    revision: u64,
    durable: bool,
    row: Option<&'a Row>,
    passed: Vec<PassedJson>,
    done: usize,
    /// Why `take` would reclaim the row named, when it is another seat's expired claim.
    #[serde(skip_serializing_if = "Option::is_none")]
    reclaim: Option<String>,
}

/// `next [SEAT] --explain`: what `next` prints, then each open row it passed over, in queue
/// order, with why; done rows are counted, not listed.
pub fn next_explained(at: At<'_>, seat: Option<String>, reply: &mut dyn Reply) -> Replied {
    let seat = seat_or_agent(seat, "next")?;
    next_explained_in(at.world, &at.paths()?, &seat, reply)
}

/// `next SEAT --explain` in `world` on the checkout at `paths`; `demo` runs it too.
pub fn next_explained_in(
    world: World<'_>,
    paths: &Paths,
    seat: &str,
    reply: &mut dyn Reply,
) -> Replied {
    let json = reply.documents();
    let seen = load_for_read_in(world, paths, reply)?;
    let st = &seen.state;
    let signs = Seen::read(world, paths, st);
    let explained = pick::explain_with(&st.rows, seat, &signs.signs, &signs.now);
    let row = explained.pick.and_then(|id| st.row(id).ok());
    if json {
        return reply.serialized(&ExplainJson {
            revision: st.revision,
            durable: seen.durable,
            row,
            passed: explained
                .passed
                .iter()
                .map(|(id, why)| PassedJson {
                    id: *id,
                    why: why.code(),
                    text: why.to_string(),
                })
                .collect(),
            done: explained.done,
            reclaim: explained.reclaim.as_ref().map(ToString::to_string),
        });
    }
    let mut text = match row {
        Some(r) => describe(st, r),
        None => format!("nothing for {seat} to take up\n"),
    };
    text.push_str(&explanation(&explained));
    reply.text(&text)
}

/// Why `take` would reclaim the pick, then the passed-over rows, as lines under the pick.
fn explanation(explained: &pick::Explained) -> String {
    let mut text = String::new();
    if let Some(why) = &explained.reclaim {
        text.push_str(&format!("take reclaims it: {why}\n"));
    }
    if !explained.passed.is_empty() {
        text.push_str("passed over:\n");
    }
    for (id, why) in &explained.passed {
        text.push_str(&format!("  row {id}: {why}\n"));
    }
    match explained.done {
        0 => {}
        1 => text.push_str("1 done row skipped\n"),
        n => text.push_str(&format!("{n} done rows skipped\n")),
    }
    text
}
