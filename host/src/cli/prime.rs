//! `prime [SEAT]`: a compact orientation for an agent starting a session: who the seat is,
//! its rows, what `next` would give and why, the rules it must follow and the commands it
//! will use. An unlocked read; kept well under 1,500 tokens however large the queue.

use mosaic_queue_core::next::{self, Why};
use mosaic_queue_core::rules::{LEAD, is_privileged};
use mosaic_queue_core::state::State;
use mosaic_queue_core::{Row, Status};
use serde::Serialize;

use super::{CliResult, read};

/// At most this many of the seat's rows, and of the rows `next` passed over, are listed.
const MAX_ROWS: usize = 12;

/// The rules every seat follows, one line each.
const RULES: &[&str] = &[
    "Every change takes --op ID (8-72 of [a-z0-9._-], first a letter or digit): a new id for each new change.",
    "Only a printed receipt `ok OP rev N ...` means done. After exit 3, a kill or no output, retry the SAME op id with the SAME arguments: a recorded op answers with its original receipt and changes nothing.",
    "Exit codes: 0 ok; 1 failed (retry may help); 2 invalid or refused (change what you ask); 3 uncertain (retry the same op); 4 usage.",
    "Never edit docs/plans/queue.json or QUEUE.md by hand, and never checkout, stash, restore or reset them; commit with plain `git commit`, never --no-verify.",
];

/// The rules `prime` gives `seat`: every seat's, then its role's; the MCP server's
/// instructions carry the same lines.
pub fn rules(seat: &str) -> Vec<&'static str> {
    let mut rules = RULES.to_vec();
    rules.extend_from_slice(permissions(Role::of(seat)));
    rules
}

/// Who may do what, by role.
fn permissions(role: Role) -> &'static [&'static str] {
    match role {
        Role::Seat => &[
            "You may take or start an unowned queued row (you become its owner) and move your own rows: in-progress -> in-review needs --candidate FILE|REV, -> blocked needs --reason; in-review -> in-progress when changes are asked.",
            "You may release your in-progress row, note rows you own or review, and set piece, gate, issues, closes, reviewers, brief or after on rows you own.",
            "The lead, jason or sage add and assign rows; jason alone moves waiting-on-jason to done.",
        ],
        Role::Lead => &[
            "As the lead you add and assign rows, set and note any row, and decide what stale work to release (jason or sage release others' rows).",
            "jason alone moves waiting-on-jason to done; jason or sage park rows and run genesis, accept-history and review abandon.",
        ],
        Role::Privileged => &[
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

/// The commands a seat uses, with SEAT filled in.
fn commands(seat: &str, role: Role) -> Vec<String> {
    let mut v = vec![
        format!("mosaic-queue take --op OP --by {seat}      claim what next names and start it"),
        format!("mosaic-queue next {seat} --explain         what next gives and why"),
        String::from("mosaic-queue show ID                         one row"),
        format!("mosaic-queue move ID in-review --candidate FILE|REV --op OP --by {seat}"),
        format!("mosaic-queue move ID blocked --reason TEXT --op OP --by {seat}"),
        format!("mosaic-queue release ID --op OP --by {seat}"),
        format!("mosaic-queue note ID TEXT --op OP --by {seat}"),
        String::from("mosaic-queue wait ID --status in-review,done --timeout 600"),
        String::from(
            "mosaic-queue sync --op OP                    is that op in the log and durable?",
        ),
    ];
    if !matches!(role, Role::Seat) {
        v.push(String::from(
            "mosaic-queue list --stale 3                  work untouched for 3 days",
        ));
        v.push(format!(
            "mosaic-queue add --piece TEXT [--after 3,5] --op OP --by {seat}"
        ));
        v.push(format!("mosaic-queue assign ID SEAT --op OP --by {seat}"));
    }
    v
}

#[derive(Serialize)]
struct RowLine<'a> {
    id: u64,
    piece: &'a str,
    status: Status,
    #[serde(rename = "waitsOn")]
    waits_on: Vec<u64>,
}

#[derive(Serialize)]
struct Passed {
    id: u64,
    why: String,
}

#[derive(Serialize)]
struct PrimeJson<'a> {
    revision: u64,
    durable: bool,
    seat: &'a str,
    role: Role,
    rows: Vec<RowLine<'a>>,
    next: Option<&'a Row>,
    passed: Vec<Passed>,
    rules: Vec<&'static str>,
    commands: Vec<String>,
}

pub fn prime(seat: Option<String>) -> CliResult {
    let json = super::output::json();
    let seat = read::seat_or_agent(seat, "prime")?;
    mosaic_queue_core::rules::check_seat(&seat)?;
    let seen = read::load_for_read()?;
    let st = &seen.state;
    let role = Role::of(&seat);
    let done = next::Done::of(&st.rows);
    let mine: Vec<RowLine> = st
        .rows
        .iter()
        .filter(|r| r.owner.as_deref() == Some(seat.as_str()) && r.status != Status::Done)
        .map(|r| RowLine {
            id: r.id,
            piece: &r.piece,
            status: r.status,
            waits_on: done.open_deps(r),
        })
        .collect();
    let explained = next::explain(&st.rows, &seat);
    let pick = explained.pick.and_then(|id| st.row(id).ok());
    // Rows that could be taken but come later say nothing a seat needs at the start.
    let passed: Vec<Passed> = explained
        .passed
        .iter()
        .filter(|(_, why)| !matches!(why, Why::After(_)))
        .map(|(id, why)| Passed {
            id: *id,
            why: why.to_string(),
        })
        .collect();
    let rules = rules(&seat);
    if json {
        return read::print_json(&PrimeJson {
            revision: st.revision,
            durable: seen.durable,
            seat: &seat,
            role,
            rows: mine.into_iter().take(MAX_ROWS).collect(),
            next: pick,
            passed: passed.into_iter().take(MAX_ROWS).collect(),
            rules,
            commands: commands(&seat, role),
        });
    }
    super::out(&text(st, &seat, role, &mine, pick, &passed, &rules))
}

fn text(
    st: &State,
    seat: &str,
    role: Role,
    mine: &[RowLine],
    pick: Option<&Row>,
    passed: &[Passed],
    rules: &[&str],
) -> String {
    let what = match role {
        Role::Seat => "a seat",
        Role::Lead => "the lead seat",
        Role::Privileged => "a privileged actor",
    };
    let mut t = format!(
        "mosaic-queue prime: you are {seat}, {what}. Queue at rev {}.\n",
        st.revision
    );
    t.push_str("\nYour open rows:\n");
    if mine.is_empty() {
        t.push_str("  (none)\n");
    }
    for r in mine.iter().take(MAX_ROWS) {
        t.push_str(&format!("  row {} {}: {}", r.id, r.piece, r.status));
        if !r.waits_on.is_empty() {
            let ids: Vec<String> = r.waits_on.iter().map(|i| format!("#{i}")).collect();
            t.push_str(&format!(" (waits on {})", ids.join(", ")));
        }
        t.push('\n');
    }
    if mine.len() > MAX_ROWS {
        t.push_str(&format!(
            "  ... and {} more (mosaic-queue list)\n",
            mine.len() - MAX_ROWS
        ));
    }
    t.push_str("\nNext: ");
    match pick {
        Some(r) if r.status == Status::InProgress => t.push_str(&format!(
            "row {} {}, already in progress for you: carry on with it.\n",
            r.id, r.piece
        )),
        Some(r) => t.push_str(&format!(
            "row {} {} ({}, {}): `mosaic-queue take --op OP --by {seat}` claims it.\n",
            r.id,
            r.piece,
            r.status,
            r.owner.as_deref().map_or("unowned", |_| "yours")
        )),
        None => t.push_str("nothing to take up now.\n"),
    }
    if !passed.is_empty() {
        t.push_str("Passed over:\n");
    }
    for p in passed.iter().take(MAX_ROWS) {
        t.push_str(&format!("  row {}: {}\n", p.id, p.why));
    }
    if passed.len() > MAX_ROWS {
        t.push_str(&format!(
            "  ... and {} more (mosaic-queue next {seat} --explain)\n",
            passed.len() - MAX_ROWS
        ));
    }
    t.push_str("\nRules:\n");
    for r in rules {
        t.push_str(&format!("- {r}\n"));
    }
    t.push_str("\nCommands (--by may be left out when MOSAIC_AGENT_NAME is set):\n");
    for c in commands(seat, role) {
        t.push_str(&format!("  {c}\n"));
    }
    t
}
