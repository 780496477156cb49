//! `prime [SEAT]`: a compact orientation for an agent starting a session: who the seat is,
//! its rows, what `next` would give and why, the rules it must follow and the commands it
//! will use. An unlocked read whose output, text or `--json`, stays within `MAX_BYTES`
//! however large the queue: long texts and lists are shortened and rows left out, and the
//! output says what was left out and which command shows it.

use mosaic_queue_core::{
    LEAD, Row, Status, is_privileged,
    pick::{self, Why},
    to_canonical,
};
use serde::Serialize;

use super::claims::{ClaimJson, Seen};
use super::load::load_for_read_in;
use crate::actor::seat_or_agent;
use crate::reply::{Replied, Reply};
use crate::store::session;

/// The most bytes `prime` prints, as text or as `--json` (docs/coordination.md): about 1,500
/// tokens, whatever the queue holds.
pub const MAX_BYTES: usize = 6_000;

/// At most this many of the seat's rows, and of the rows `next` passed over, are listed.
const MAX_ROWS: usize = 12;

/// At most this many characters of a piece are shown; `show ID` has the rest.
const MAX_PIECE_CHARS: usize = 80;

/// At most this many of a row's dependencies are named.
const MAX_IDS: usize = 8;

/// The rules every seat follows, one line each.
const RULES: &[&str] = &[
    "Every change takes --op ID (8-72 of [a-z0-9._-], first a letter or digit): a new id for each new change.",
    "Only a printed receipt `ok OP rev N ...` means done. After exit 3, a kill or no output, retry the SAME op id with the SAME arguments: a recorded op answers with its original receipt and changes nothing.",
    "Exit codes: 0 ok; 1 failed (retry may help); 2 invalid or refused (change what you ask); 3 uncertain (retry the same op); 4 usage.",
    "Never edit docs/plans/queue.json or QUEUE.md by hand, and never checkout, stash, restore or reset them; commit with plain `git commit`, never --no-verify.",
];

/// Where a seat's commands run: on the queue host, or through the OpenSSH gate, whose key pins
/// the seat (no `--by`) and where a file on the seat's machine is never at hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    Host,
    Gate,
}

impl Reach {
    /// This process's reach: the gate's once a remote seat's policy was committed to
    /// (`remote::is`).
    pub fn here() -> Reach {
        if crate::remote::is() {
            Reach::Gate
        } else {
            Reach::Host
        }
    }
}

/// The rules `prime` gives `seat` in this process (`Reach::here`): every seat's, then its
/// role's. The MCP server's instructions carry the same lines, so a server the gate started
/// tells a remote seat what works through the gate.
pub fn rules(seat: &str) -> Vec<&'static str> {
    rules_for(seat, Reach::here())
}

/// The rules for `seat` where it runs (`reach`).
fn rules_for(seat: &str, reach: Reach) -> Vec<&'static str> {
    let mut rules = RULES.to_vec();
    rules.extend(permissions(Role::of(seat), reach));
    rules
}

/// How a seat moves its row into review: a file or a commit on the host; through the gate the
/// manifest's text itself (a file on the host is refused there) or a commit the host has.
fn to_review(reach: Reach) -> &'static str {
    match reach {
        Reach::Host => {
            "You may take or start an unowned queued row (you become its owner) and move your own rows: in-progress -> in-review needs --candidate FILE|REV, -> blocked needs --reason; in-review -> in-progress when changes are asked."
        }
        Reach::Gate => {
            "You may take or start an unowned queued row (you become its owner) and move your own rows: in-progress -> in-review needs the manifest's text (--manifest-stdin, or --manifest-text for one line; never a file, which the queue host cannot read) or a commit the queue host has (--candidate REV), -> blocked needs --reason; in-review -> in-progress when changes are asked."
        }
    }
}

/// Who may do what, by role.
fn permissions(role: Role, reach: Reach) -> Vec<&'static str> {
    match role {
        Role::Seat => vec![
            to_review(reach),
            "You may release your in-progress row, note rows you own or review, and set piece, gate, issues, closes, reviewers, brief or after on rows you own.",
            "The lead, jason or sage add and assign rows; jason alone moves waiting-on-jason to done.",
        ],
        Role::Lead => vec![
            "As the lead you add and assign rows, set and note any row, and decide what stale work to release (jason or sage release others' rows).",
            "jason alone moves waiting-on-jason to done; jason or sage park rows and run genesis, accept-history and review abandon.",
        ],
        Role::Privileged => vec![
            "As a privileged actor you may add, assign, set, note, park and release any row, and run genesis, accept-history and review abandon.",
            "jason alone moves waiting-on-jason to done.",
        ],
    }
}

#[derive(Clone, Copy, Serialize)]
#[serde(rename_all = "kebab-case")]
enum Role {
    Seat,
    Lead,
    Privileged,
}

impl Role {
    fn of(seat: &str) -> Role {
        if is_privileged(seat) {
            Role::Privileged
        } else if seat == LEAD {
            Role::Lead
        } else {
            Role::Seat
        }
    }
}

/// The commands a seat uses, with SEAT filled in, each with what it is for when that helps:
/// through the gate without `--by` (the key names the seat) and with the manifest's text
/// where a file would be named on the host.
fn commands(seat: &str, role: Role, reach: Reach) -> Vec<String> {
    let by = match reach {
        Reach::Host => format!(" --by {seat}"),
        Reach::Gate => String::new(),
    };
    let mut v: Vec<(String, &str)> = vec![
        (
            format!("mosaic-queue take --op OP{by}"),
            "claim what next names and start it",
        ),
        (
            format!("mosaic-queue next {seat} --explain"),
            "what next gives and why",
        ),
        (String::from("mosaic-queue show ID"), "one row"),
    ];
    match reach {
        Reach::Host => v.push((
            format!("mosaic-queue move ID in-review --candidate FILE|REV --op OP{by}"),
            "",
        )),
        Reach::Gate => {
            v.push((
                String::from("mosaic-queue move ID in-review --manifest-stdin --op OP < MANIFEST"),
                "",
            ));
            v.push((
                String::from("mosaic-queue move ID in-review --candidate REV --op OP"),
                "",
            ));
        }
    }
    v.extend([
        (
            format!("mosaic-queue move ID blocked --reason TEXT --op OP{by}"),
            "",
        ),
        (format!("mosaic-queue release ID --op OP{by}"), ""),
        (format!("mosaic-queue note ID TEXT --op OP{by}"), ""),
        (
            String::from("mosaic-queue wait ID --status in-review,done --timeout 600"),
            "",
        ),
        (
            String::from("mosaic-queue sync --op OP"),
            "is that op in the log and durable?",
        ),
    ]);
    if !matches!(role, Role::Seat) {
        v.push((
            String::from("mosaic-queue list --stale 3"),
            "work untouched for 3 days",
        ));
        v.push((
            format!("mosaic-queue add --piece TEXT [--after 3,5] --op OP{by}"),
            "",
        ));
        v.push((format!("mosaic-queue assign ID SEAT --op OP{by}"), ""));
    }
    v.into_iter()
        .map(|(command, what)| match what {
            "" => command,
            what => format!("{command:<44} {what}"),
        })
        .collect()
}

/// The line above the commands: how they are sent, and how the seat is named.
fn commands_heading(seat: &str, reach: Reach) -> String {
    match reach {
        Reach::Host => {
            String::from("Commands (--by may be left out when MOSAIC_AGENT_NAME is set):")
        }
        Reach::Gate => format!(
            "Commands (through the gate: send each as `ssh HOST COMMAND`, text with spaces in '...' inside one quoted argument; every command acts as {seat}, so no --by):"
        ),
    }
}

/// One of the seat's open rows, shortened to fit.
#[derive(Serialize)]
struct RowLine {
    id: u64,
    piece: String,
    status: Status,
    #[serde(rename = "waitsOn")]
    waits_on: Vec<u64>,
    /// How many of the rows it waits on are not named in `waitsOn`.
    #[serde(rename = "waitsOnMore")]
    waits_on_more: usize,
}

/// The row `next` names, as the seat needs it at the start; `show ID` has the whole row.
#[derive(Serialize)]
struct NextLine<'a> {
    id: u64,
    piece: String,
    status: Status,
    owner: Option<&'a str>,
}

#[derive(Serialize)]
struct Passed {
    id: u64,
    why: String,
}

/// What was left out to stay within `MAX_BYTES`, and the commands that show it.
#[derive(Serialize)]
struct Cut {
    /// Open rows of the seat not listed.
    rows: usize,
    /// Rows `next` passed over not listed.
    passed: usize,
    /// Listed rows whose piece or dependencies were shortened.
    shortened: Vec<u64>,
    commands: Vec<String>,
}

#[derive(Serialize)]
struct PrimeJson<'a> {
    revision: u64,
    durable: bool,
    seat: &'a str,
    role: Role,
    rows: &'a [RowLine],
    /// The seat's leased claims, judged now; left out when it holds none.
    #[serde(skip_serializing_if = "<[ClaimJson]>::is_empty")]
    claims: &'a [ClaimJson],
    next: Option<&'a NextLine<'a>>,
    passed: &'a [Passed],
    rules: &'a [&'static str],
    commands: Vec<String>,
    cut: Option<Cut>,
}

/// Everything `prime` says, before it is printed either way.
struct Prime<'a> {
    revision: u64,
    durable: bool,
    seat: &'a str,
    role: Role,
    reach: Reach,
    mine: Vec<RowLine>,
    /// All of the seat's open rows, listed or not.
    mine_total: usize,
    /// The seat's leased claims, at most `MAX_ROWS` of them.
    claims: Vec<ClaimJson>,
    next: Option<NextLine<'a>>,
    passed: Vec<Passed>,
    passed_total: usize,
    /// Rows whose shown text or lists were shortened.
    shortened: Vec<u64>,
    rules: Vec<&'static str>,
}

/// `prime [SEAT]`: the orientation for SEAT (else `$MOSAIC_AGENT_NAME`), text or document.
pub fn prime(seat: Option<String>, reply: &mut dyn Reply) -> Replied {
    let json = reply.documents();
    let seat = seat_or_agent(seat, "prime")?;
    mosaic_queue_core::check_seat(&seat)?;
    let paths = session::locate()?;
    let seen = load_for_read_in(crate::store::world::World::real(), &paths, reply)?;
    let at = (seen.state.revision, seen.durable, Reach::here());
    let signs = Seen::read(crate::store::world::World::real(), &paths, &seen.state);
    let mut p = gather(&seen.state.rows, at, &seat, &signs);
    // Leave out the last passed-over row, then the last own row, until both forms fit.
    while text(&p).len() > MAX_BYTES || document(&p).len() > MAX_BYTES {
        let left_out = match p.passed.pop() {
            Some(r) => r.id,
            None => match p.mine.pop() {
                Some(r) => r.id,
                None => break,
            },
        };
        let still_shown = p.mine.iter().any(|r| r.id == left_out)
            || p.next.as_ref().is_some_and(|n| n.id == left_out);
        if !still_shown {
            p.shortened.retain(|id| *id != left_out);
        }
    }
    if json {
        return reply.document(document(&p));
    }
    reply.text(&text(&p))
}

/// The seat's rows, the pick and the rows passed over, each list at most `MAX_ROWS` long and
/// each piece and list shortened; `at`: the revision, whether it is durable, and the reach.
fn gather<'a>(rows: &'a [Row], at: (u64, bool, Reach), seat: &'a str, signs: &Seen) -> Prime<'a> {
    let (revision, durable, reach) = at;
    let role = Role::of(seat);
    let mut shortened = Vec::new();
    let open: Vec<&Row> = rows
        .iter()
        .filter(|r| r.owner.as_deref() == Some(seat) && r.status != Status::Done)
        .collect();
    let mine = own_rows(rows, &open, &mut shortened);
    let explained = pick::explain_with(rows, seat, &signs.signs, &signs.now);
    let next = explained
        .pick
        .and_then(|id| rows.iter().find(|r| r.id == id));
    let next = next.map(|r| {
        let (piece, cut) = short(&r.piece);
        if cut {
            shortened.push(r.id);
        }
        NextLine {
            id: r.id,
            piece,
            status: r.status,
            owner: r.owner.as_deref(),
        }
    });
    // Rows that could be taken but come later say nothing a seat needs at the start.
    let passed: Vec<&(u64, Why)> = explained
        .passed
        .iter()
        .filter(|(_, why)| !matches!(why, Why::After(_)))
        .collect();
    let rules = rules_for(seat, reach);
    Prime {
        revision,
        durable,
        seat,
        role,
        reach,
        mine,
        mine_total: open.len(),
        claims: open
            .iter()
            .filter_map(|r| signs.judge(r))
            .take(MAX_ROWS)
            .collect(),
        next,
        passed_total: passed.len(),
        passed: passed_rows(&passed, &mut shortened),
        shortened,
        rules,
    }
}

/// The first `MAX_ROWS` of the seat's open rows, shortened; the ids of those shortened join
/// `shortened`.
fn own_rows(rows: &[Row], open: &[&Row], shortened: &mut Vec<u64>) -> Vec<RowLine> {
    let done = pick::Done::of(rows);
    open.iter()
        .take(MAX_ROWS)
        .map(|r| {
            let (piece, cut) = short(&r.piece);
            let mut waits_on = done.open_deps(r);
            let more = waits_on.len().saturating_sub(MAX_IDS);
            waits_on.truncate(MAX_IDS);
            if cut || more > 0 {
                shortened.push(r.id);
            }
            RowLine {
                id: r.id,
                piece,
                status: r.status,
                waits_on,
                waits_on_more: more,
            }
        })
        .collect()
}

/// The first `MAX_ROWS` rows passed over, each with why (its dependencies shortened).
fn passed_rows(passed: &[&(u64, Why)], shortened: &mut Vec<u64>) -> Vec<Passed> {
    passed
        .iter()
        .take(MAX_ROWS)
        .map(|(id, why)| {
            let (why, cut) = reason(why);
            // A seat's own row that waits is both listed and passed over: named once.
            if cut && !shortened.contains(id) {
                shortened.push(*id);
            }
            Passed { id: *id, why }
        })
        .collect()
}

/// `text` cut to `MAX_PIECE_CHARS` characters (the last one `…`), and whether it was cut.
fn short(text: &str) -> (String, bool) {
    if text.chars().count() <= MAX_PIECE_CHARS {
        return (text.to_owned(), false);
    }
    let mut out: String = text.chars().take(MAX_PIECE_CHARS - 1).collect();
    out.push('…');
    (out, true)
}

/// Why a row was passed over, naming at most `MAX_IDS` of the rows it waits on.
fn reason(why: &Why) -> (String, bool) {
    match why {
        Why::WaitingOn(ids) if ids.len() > MAX_IDS => {
            let named = Why::WaitingOn(ids[..MAX_IDS].to_vec());
            (format!("{named} and {} more", ids.len() - MAX_IDS), true)
        }
        other => (other.to_string(), false),
    }
}

/// What was left out, if anything.
fn cut(p: &Prime) -> Option<Cut> {
    let rows = p.mine_total - p.mine.len();
    let passed = p.passed_total - p.passed.len();
    if rows == 0 && passed == 0 && p.shortened.is_empty() {
        return None;
    }
    let mut commands = Vec::new();
    if rows > 0 {
        commands.push(String::from("mosaic-queue list"));
    }
    if passed > 0 {
        commands.push(format!("mosaic-queue next {} --explain", p.seat));
    }
    commands.extend(
        p.shortened
            .iter()
            .map(|id| format!("mosaic-queue show {id}")),
    );
    Some(Cut {
        rows,
        passed,
        shortened: p.shortened.clone(),
        commands,
    })
}

/// The `--json` document.
fn document(p: &Prime) -> Vec<u8> {
    to_canonical(&PrimeJson {
        revision: p.revision,
        durable: p.durable,
        seat: p.seat,
        role: p.role,
        rows: &p.mine,
        claims: &p.claims,
        next: p.next.as_ref(),
        passed: &p.passed,
        rules: &p.rules,
        commands: commands(p.seat, p.role, p.reach),
        cut: cut(p),
    })
}

/// The text, section by section.
fn text(p: &Prime) -> String {
    let what = match p.role {
        Role::Seat => "a seat",
        Role::Lead => "the lead seat",
        Role::Privileged => "a privileged actor",
    };
    let seat = p.seat;
    let mut t = format!(
        "mosaic-queue prime: you are {seat}, {what}. Queue at rev {}.\n",
        p.revision
    );
    t.push_str("\nYour open rows:\n");
    if p.mine_total == 0 {
        t.push_str("  (none)\n");
    }
    for r in &p.mine {
        t.push_str(&format!("  row {} {}: {}", r.id, r.piece, r.status));
        if !r.waits_on.is_empty() {
            let ids: Vec<String> = r.waits_on.iter().map(|i| format!("#{i}")).collect();
            let more = match r.waits_on_more {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            t.push_str(&format!(" (waits on {}{more})", ids.join(", ")));
        }
        t.push('\n');
    }
    if p.mine_total > p.mine.len() {
        t.push_str(&format!(
            "  ... and {} more (mosaic-queue list)\n",
            p.mine_total - p.mine.len()
        ));
    }
    if !p.claims.is_empty() {
        t.push_str(
            "\nYour leased claims (each sign of life renews them all: `mosaic-queue heartbeat`):\n",
        );
    }
    for c in &p.claims {
        t.push_str(&format!("  {}\n", c.line()));
    }
    t.push_str("\nNext: ");
    t.push_str(&next_line(p.next.as_ref(), seat, p.reach));
    if p.passed_total > 0 {
        t.push_str("Passed over:\n");
    }
    for r in &p.passed {
        t.push_str(&format!("  row {}: {}\n", r.id, r.why));
    }
    if p.passed_total > p.passed.len() {
        t.push_str(&format!(
            "  ... and {} more (mosaic-queue next {seat} --explain)\n",
            p.passed_total - p.passed.len()
        ));
    }
    if !p.shortened.is_empty() {
        let ids: Vec<String> = p.shortened.iter().map(|i| format!("#{i}")).collect();
        t.push_str(&format!(
            "Shortened to fit: {} (mosaic-queue show ID prints a row whole)\n",
            ids.join(", ")
        ));
    }
    t.push_str("\nRules:\n");
    for r in &p.rules {
        t.push_str(&format!("- {r}\n"));
    }
    t.push_str(&format!("\n{}\n", commands_heading(seat, p.reach)));
    for c in commands(seat, p.role, p.reach) {
        t.push_str(&format!("  {c}\n"));
    }
    t
}

/// The `Next:` line.
fn next_line(pick: Option<&NextLine>, seat: &str, reach: Reach) -> String {
    let by = match reach {
        Reach::Host => format!(" --by {seat}"),
        Reach::Gate => String::new(),
    };
    match pick {
        Some(r) if r.status == Status::InProgress => format!(
            "row {} {}, already in progress for you: carry on with it.\n",
            r.id, r.piece
        ),
        Some(r) => format!(
            "row {} {} ({}, {}): `mosaic-queue take --op OP{by}` claims it.\n",
            r.id,
            r.piece,
            r.status,
            r.owner.map_or("unowned", |_| "yours")
        ),
        None => String::from("nothing to take up now.\n"),
    }
}
