//! The hostile cases, generated from tables: verbs x fields x hostile values, every path the
//! queue reads x the things that can stand there, environment variables, and Gitea answers.
//! A case names its exit code, the gist of its stderr line (a substring) and what its files
//! look like afterwards.

use support::fake_gitea::{Answer, Endpoint, Hold};

// What stands at .git, for doctor and wait, in a file of its own beside this one.
#[path = "doctor_wait.rs"]
mod doctor_wait;
// The command line's edges, in a file of their own beside this one.
#[path = "edges.rs"]
mod edges;

/// The corpus is counted by family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Family {
    Argv,
    Env,
    Files,
    Filesystem,
    Gitea,
}

/// An argument or a variable's value; `{base}` in text is the worker's scratch directory.
#[derive(Debug, Clone)]
pub enum Arg {
    S(String),
    B(Vec<u8>),
}

/// What a case does to the scratch directory first (paths relative to it).
#[derive(Debug, Clone)]
pub enum Setup {
    Fifo(String),
    Dir(String),
    Sparse(String, u64),
    Symlink(String, String),
    Write(String, Vec<u8>),
    Remove(String),
    Mode(String, u32),
    /// A run of the binary that must exit with `code` (with the case's Gitea, if any).
    Run {
        args: Vec<Arg>,
        code: i32,
    },
}

/// Where the child's stderr goes.
#[derive(Debug, Clone, Copy)]
pub enum Stderr {
    Captured,
    /// `/dev/full`: every write fails with ENOSPC.
    Full,
    /// A pipe whose reader is closed: every write fails with EPIPE.
    Closed,
}

/// What the files look like after the run.
#[derive(Debug, Clone)]
pub enum After {
    /// Byte for byte as before the run (a refusal).
    Unchanged,
    /// Whatever was written, the queue verifies.
    Verifies,
    /// The queue verifies and QUEUE.md does not hold this text.
    VerifiesWithout(String),
}

/// A fake Gitea for the case: who the run acts as, scripted answers, the deadline.
#[derive(Debug, Clone)]
pub struct Gitea {
    pub by: &'static str,
    pub scripts: Vec<(Endpoint, Answer)>,
    pub deadline_ms: u64,
}

#[derive(Debug, Clone)]
pub struct Case {
    pub name: String,
    pub family: Family,
    pub setup: Vec<Setup>,
    pub args: Vec<Arg>,
    pub env: Vec<(String, Arg)>,
    pub gitea: Option<Gitea>,
    pub stderr: Stderr,
    pub code: i32,
    pub gist: String,
    /// Text that must appear in no output and no file.
    pub secret: Option<String>,
    pub after: After,
}

impl Case {
    fn new(family: Family, name: String, args: &[&str], code: i32, gist: &str) -> Case {
        Case {
            name,
            family,
            setup: Vec::new(),
            args: args.iter().map(|a| Arg::S((*a).to_owned())).collect(),
            env: Vec::new(),
            gitea: None,
            stderr: Stderr::Captured,
            code,
            gist: gist.to_owned(),
            secret: None,
            after: if code == 0 {
                After::Verifies
            } else {
                After::Unchanged
            },
        }
    }

    fn setup(mut self, s: Setup) -> Case {
        self.setup.push(s);
        self
    }

    fn env(mut self, k: &str, v: Arg) -> Case {
        self.env.push((k.to_owned(), v));
        self
    }

    fn secret(mut self, s: &str) -> Case {
        self.secret = Some(s.to_owned());
        self
    }

    fn after(mut self, a: After) -> Case {
        self.after = a;
        self
    }
}

fn s(text: &str) -> Arg {
    Arg::S(text.to_owned())
}

/// `args` with `--op OP --by BY`.
fn change(args: &[&str], op: &str, by: &str) -> Vec<String> {
    let mut v: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    v.extend(["--op".into(), op.into(), "--by".into(), by.into()]);
    v
}

fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// Builds a case's arguments around one hostile value.
type Build = Box<dyn Fn(&str) -> Vec<String>>;

/// Puts one hostile thing at a path.
type Thing = Box<dyn Fn(&str) -> Setup>;

const DIGEST: &str = "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

/// What the verbs answer in a worker's checkout (row 1 in progress, rev 3) when nothing stops
/// them: the gists of the cases where whatever stands in the way is no obstacle.
const LISTED: &str = "| 1 | Parser | darkwing | in-progress |  | #12, #14 | first |\n";
const VERIFIED: &str = "ok verify rev 3 (3 entries, witness rev 3)\n";
const VERIFIED_CURRENT: &str = "ok verify rev 3 (3 entries, witness rev 3), table current\n";
const NOTED: &str = "ok hostile-op-1 rev 4 note 1\n";

/// Every case.
pub fn all() -> Vec<Case> {
    let mut all = Vec::new();
    all.extend(numbers());
    all.extend(texts());
    all.extend(names());
    all.extend(environment());
    all.extend(contents());
    all.extend(filesystem());
    all.extend(gitea());
    all.extend(doctor_wait::cases());
    all.extend(edges::cases());
    all.extend(dependencies());
    all
}

/// Every numeric field of every verb, with numbers queue.json cannot hold and with text that
/// is no number (both invalid data, exit 2, before anything is read).
fn numbers() -> Vec<Case> {
    let evidence = |c: &str| format!("comment={c},round=1,candidate={DIGEST}");
    let fields: Vec<(&str, Build)> = vec![
        (
            "move-id",
            Box::new(|v| change(&["move", v, "in-progress"], "hostile-op-1", "darkwing")),
        ),
        (
            "move-issue",
            Box::new(|v| {
                change(
                    &[
                        "move",
                        "1",
                        "in-review",
                        "--candidate",
                        "HEAD",
                        "--issue",
                        v,
                    ],
                    "hostile-op-1",
                    "darkwing",
                )
            }),
        ),
        (
            "move-evidence-comment",
            Box::new(move |v| {
                change(
                    &["move", "1", "done", "--evidence", &evidence(v)],
                    "hostile-op-1",
                    "darkwing",
                )
            }),
        ),
        (
            "release-id",
            Box::new(|v| change(&["release", v], "hostile-op-1", "darkwing")),
        ),
        (
            "assign-id",
            Box::new(|v| change(&["assign", v, "darkwing"], "hostile-op-1", "sage")),
        ),
        (
            "note-id",
            Box::new(|v| change(&["note", v, "text"], "hostile-op-1", "darkwing")),
        ),
        (
            "set-id",
            Box::new(|v| change(&["set", v, "piece", "text"], "hostile-op-1", "sage")),
        ),
        (
            "set-issues",
            Box::new(|v| change(&["set", "1", "issues", v], "hostile-op-1", "sage")),
        ),
        (
            "set-closes",
            Box::new(|v| {
                change(
                    &["set", "1", "closes", v, "--reason", "r"],
                    "hostile-op-1",
                    "sage",
                )
            }),
        ),
        (
            "add-issues",
            Box::new(|v| {
                change(
                    &["add", "--piece", "P", "--issues", v],
                    "hostile-op-1",
                    "sage",
                )
            }),
        ),
        (
            "add-issues-second",
            Box::new(|v| {
                let list = format!("12,{v}");
                change(
                    &["add", "--piece", "P", "--issues", &list],
                    "hostile-op-1",
                    "sage",
                )
            }),
        ),
        (
            "review-request-id",
            Box::new(|v| change(&["review", "request", v], "hostile-op-1", "darkwing")),
        ),
        (
            "review-resolve-id",
            Box::new(|v| {
                change(
                    &[
                        "review",
                        "resolve",
                        v,
                        "darkwing-1-review",
                        "--comment",
                        "7",
                    ],
                    "hostile-op-1",
                    "darkwing",
                )
            }),
        ),
        (
            "review-resolve-comment",
            Box::new(|v| {
                change(
                    &[
                        "review",
                        "resolve",
                        "1",
                        "darkwing-1-review",
                        "--comment",
                        v,
                    ],
                    "hostile-op-1",
                    "darkwing",
                )
            }),
        ),
        (
            "review-abandon-id",
            Box::new(|v| {
                change(
                    &[
                        "review",
                        "abandon",
                        v,
                        "darkwing-1-review",
                        "--reason",
                        "gone",
                        "--yes",
                    ],
                    "hostile-op-1",
                    "sage",
                )
            }),
        ),
        (
            "review-record-id",
            Box::new(|v| {
                change(
                    &[
                        "review",
                        "record",
                        v,
                        "--verdict",
                        "approve",
                        "--comment",
                        "7",
                        "--candidate",
                        DIGEST,
                    ],
                    "hostile-op-1",
                    "flicker",
                )
            }),
        ),
        (
            "review-record-comment",
            Box::new(|v| {
                change(
                    &[
                        "review",
                        "record",
                        "1",
                        "--verdict",
                        "approve",
                        "--comment",
                        v,
                        "--candidate",
                        DIGEST,
                    ],
                    "hostile-op-1",
                    "flicker",
                )
            }),
        ),
        ("show-id", Box::new(|v| vec!["show".into(), v.into()])),
        (
            "archive-before",
            Box::new(|v| change(&["archive", "--before", v, "--yes"], "hostile-op-1", "lead")),
        ),
        (
            "verify-commit-id",
            Box::new(|v| {
                vec![
                    "review".into(),
                    "verify-commit".into(),
                    v.into(),
                    "HEAD".into(),
                ]
            }),
        ),
    ];
    let long = "9".repeat(400);
    let values: [(&str, &str, i32, &str); 6] = [
        ("2pow53", "9007199254740992", 2, "2^53-1"),
        ("2pow53+1", "9007199254740993", 2, "2^53-1"),
        ("u64max", "18446744073709551615", 2, "2^53-1"),
        ("2pow64", "18446744073709551616", 2, "2^53-1"),
        ("400-digits", &long, 2, "2^53-1"),
        ("exponent", "1e3", 2, "\"1e3\" is not a whole number"),
    ];
    let mut out = Vec::new();
    for (field, build) in &fields {
        for (label, value, code, gist) in &values {
            let args = build(value);
            out.push(Case::new(
                Family::Argv,
                format!("argv/number/{field}/{label}"),
                &refs(&args),
                *code,
                gist,
            ));
        }
    }
    out
}

/// Table text with characters that display otherwise than their bytes, markup, control
/// characters and credentials, in every text field.
fn texts() -> Vec<Case> {
    let fields: Vec<(&str, &str, Build)> = vec![
        (
            "add-piece",
            "piece",
            Box::new(|t| change(&["add", "--piece", t], "hostile-op-1", "sage")),
        ),
        (
            "add-note",
            "note",
            Box::new(|t| {
                change(
                    &["add", "--piece", "P", "--note", t],
                    "hostile-op-1",
                    "sage",
                )
            }),
        ),
        (
            "add-brief",
            "brief",
            Box::new(|t| {
                change(
                    &["add", "--piece", "P", "--brief", t],
                    "hostile-op-1",
                    "sage",
                )
            }),
        ),
        (
            "note",
            "note",
            Box::new(|t| change(&["note", "1", t], "hostile-op-1", "darkwing")),
        ),
        (
            "set-piece",
            "piece",
            Box::new(|t| change(&["set", "1", "piece", t], "hostile-op-1", "sage")),
        ),
        (
            "move-reason",
            "reason",
            Box::new(|t| {
                change(
                    &["move", "1", "blocked", "--reason", t],
                    "hostile-op-1",
                    "darkwing",
                )
            }),
        ),
        (
            "set-closes-reason",
            "reason",
            Box::new(|t| {
                change(
                    &["set", "1", "closes", "12", "--reason", t],
                    "hostile-op-1",
                    "sage",
                )
            }),
        ),
    ];
    let long = "x".repeat(501);
    let token36 = format!(
        "ghp_{}",
        "a1B2c3D4e5".repeat(4).chars().take(36).collect::<String>()
    );
    // (label, text, gist or "" for the field's name, secret)
    let values: Vec<(&str, String, &str, Option<&str>)> = vec![
        ("line-separator", "a\u{2028}b".into(), "", None),
        ("paragraph-separator", "a\u{2029}b".into(), "", None),
        ("bidi-override", "abc\u{202E}fed".into(), "", None),
        ("bidi-isolate", "abc\u{2066}fed".into(), "", None),
        ("zero-width-space", "a\u{200B}b".into(), "", None),
        ("zero-width-joiner", "a\u{200D}b".into(), "", None),
        ("byte-order-mark", "a\u{FEFF}b".into(), "", None),
        ("backslash", "a\\b".into(), "", None),
        ("html", "<img src=x>".into(), "", None),
        ("newline", "a\nb".into(), "", None),
        ("escape", "a\u{1b}[31mb".into(), "", None),
        ("bell", "a\u{7}b".into(), "", None),
        ("too-long", long, "", None),
        ("empty-spaces", "   ".into(), "", None),
        (
            "stripe-key",
            "sk_live_4eC39HqLyjWDarjtT1zdp7dc".into(),
            "credential",
            Some("4eC39HqLyjWDarjtT1zdp7dc"),
        ),
        (
            "npm-token",
            "npm_abcdefghijklmnopqrstuvwxyz0123456789".into(),
            "credential",
            Some("abcdefghijklmnopqrstuvwxyz0123456789"),
        ),
        (
            "url-userinfo",
            "see https://alice:hunter2@git.example.org/x".into(),
            "credential",
            Some("hunter2"),
        ),
        (
            "pwd",
            "pwd=hunter2hunter2".into(),
            "credential",
            Some("hunter2hunter2"),
        ),
        (
            "github-token",
            token36.clone(),
            "credential",
            Some(&token36[4..]),
        ),
    ];
    let mut out = Vec::new();
    for (field, name, build) in &fields {
        for (label, text, gist, secret) in &values {
            let args = build(text);
            let gist = if gist.is_empty() { name } else { gist };
            let mut c = Case::new(
                Family::Argv,
                format!("argv/text/{field}/{label}"),
                &refs(&args),
                2,
                gist,
            );
            if let Some(sec) = secret {
                c = c.secret(sec);
            }
            out.push(c);
        }
        // Markdown a piece of text could form: accepted or refused, the table never links
        // (the brackets are escaped, so the text's own `](` never reaches the table).
        for (label, text, shown) in [
            ("markdown-link", "a](http://evil.example)", "a](http"),
            ("markdown-image", "![x](http://evil.example/i.png)", "![x]("),
        ] {
            let args = build(text);
            let name = format!("argv/markdown/{field}/{label}");
            // A brief is a link target already: parentheses are refused there.
            let c = if *field == "add-brief" {
                Case::new(Family::Argv, name, &refs(&args), 2, "brief")
            } else {
                Case::new(Family::Argv, name, &refs(&args), 0, accepted(field))
                    .after(After::VerifiesWithout(shown.into()))
            };
            out.push(c);
        }
    }
    out
}

/// The receipt of a change to a text field that is accepted.
fn accepted(field: &str) -> &'static str {
    match field {
        "add-piece" | "add-note" => "ok hostile-op-1 rev 4 add 4 queued\n",
        "note" => NOTED,
        "set-piece" => "ok hostile-op-1 rev 4 set 1 piece\n",
        "move-reason" => "ok hostile-op-1 rev 4 move 1 in-progress -> blocked\n",
        "set-closes-reason" => "ok hostile-op-1 rev 4 set 1 closes\n",
        other => unreachable!("no receipt for {other}"),
    }
}

/// Op ids, actors and seats.
fn names() -> Vec<Case> {
    let mut out = Vec::new();
    let token_op = "npm_abcdefghijklmnopqrstuvwxyz0123456789";
    let ops: Vec<(&str, String, &str, Option<&str>)> = vec![
        ("uppercase", "Hostile-Op-1".into(), "op id", None),
        ("short", "op-1".into(), "op id", None),
        ("too-long", "a".repeat(73), "op id", None),
        ("leading-dash", "-hostile-op".into(), "", None),
        (
            "outcome-suffix",
            "hostile-op-1.outcome".into(),
            "op id",
            None,
        ),
        ("space", "hostile op 1".into(), "op id", None),
        ("non-ascii", "hostile-öp-1".into(), "op id", None),
        ("empty", String::new(), "op id", None),
        (
            "token-like",
            token_op.into(),
            "credential",
            Some("abcdefghijklmnopqrstuvwxyz0123456789"),
        ),
        (
            "stripe-like",
            "sk_live_4ec39hqlyjwdarjtt1zdp7dc".into(),
            "credential",
            Some("4ec39hqlyjwdarjtt1zdp7dc"),
        ),
    ];
    for (label, op, gist, secret) in &ops {
        let args = change(&["note", "1", "text"], op, "darkwing");
        let gist = if gist.is_empty() { "hostile-op" } else { gist };
        let mut c = Case::new(
            Family::Argv,
            format!("argv/op/{label}"),
            &refs(&args),
            2,
            gist,
        );
        if let Some(sec) = secret {
            c = c.secret(sec);
        }
        out.push(c);
    }
    let mut c = Case::new(
        Family::Argv,
        "argv/op/non-utf8".into(),
        &["note", "1", "text", "--by", "darkwing", "--op"],
        2,
        "op",
    );
    c.args.push(Arg::B(b"hostile-\xff-op".to_vec()));
    c.gist = String::from("refused: --op is not UTF-8");
    out.push(c);
    for (label, by) in [
        ("uppercase", "Darkwing"),
        ("space", "bad seat"),
        ("empty", ""),
        ("too-long", &"a".repeat(33)),
        ("leading-digit", "1seat"),
        ("newline", "dark\nwing"),
    ] {
        let args = change(&["note", "1", "text"], "hostile-op-1", by);
        out.push(Case::new(
            Family::Argv,
            format!("argv/by/{label}"),
            &refs(&args),
            2,
            "actor",
        ));
    }
    // `next` without a usable seat refuses (exit 2) and hands out nothing.
    for (label, seat) in [
        ("empty", ""),
        ("space", "Bad Seat"),
        ("uppercase", "DARKWING"),
        ("slash", "../x"),
    ] {
        out.push(Case::new(
            Family::Argv,
            format!("argv/next/{label}"),
            &["next", seat],
            2,
            "seat",
        ));
    }
    out.push(Case::new(
        Family::Argv,
        "argv/next/none".into(),
        &["next"],
        2,
        "seat",
    ));
    for (label, seat) in [
        ("assign-space", "bad seat"),
        ("assign-upper", "Darkwing"),
        ("assign-empty", ""),
    ] {
        let args = change(&["assign", "1", seat], "hostile-op-1", "sage");
        out.push(Case::new(
            Family::Argv,
            format!("argv/seat/{label}"),
            &refs(&args),
            2,
            "seat",
        ));
    }
    for (label, list) in [
        ("reviewer-space", "flicker,bad seat"),
        ("reviewer-upper", "Pixel"),
    ] {
        let args = change(&["set", "1", "reviewers", list], "hostile-op-1", "sage");
        out.push(Case::new(
            Family::Argv,
            format!("argv/seat/{label}"),
            &refs(&args),
            2,
            "seat",
        ));
    }
    // Lists past their caps.
    let issues: Vec<String> = (1..=1000).map(|n| n.to_string()).collect();
    let issues = issues.join(",");
    let args = change(
        &["add", "--piece", "P", "--issues", &issues],
        "hostile-op-1",
        "sage",
    );
    out.push(Case::new(
        Family::Argv,
        "argv/cap/issues-1000".into(),
        &refs(&args),
        2,
        "issues",
    ));
    let seats: Vec<String> = (1..=200).map(|n| format!("seat{n}")).collect();
    let seats = seats.join(",");
    let args = change(&["set", "1", "reviewers", &seats], "hostile-op-1", "sage");
    out.push(Case::new(
        Family::Argv,
        "argv/cap/reviewers-200".into(),
        &refs(&args),
        2,
        "reviewers",
    ));
    // `commit -m ''` and a commit with nothing new.
    out.push(Case::new(
        Family::Argv,
        "argv/commit/empty-message".into(),
        &["commit", "-m", "", "--by", "jason"],
        2,
        "message",
    ));
    // A commit message is kept by git for good: the stored-text rule holds for it too.
    for (label, message, gist, secret) in [
        (
            "stripe-key",
            "ship sk_live_4eC39HqLyjWDarjtT1zdp7dc",
            "credential",
            Some("4eC39HqLyjWDarjtT1zdp7dc"),
        ),
        (
            "url-userinfo",
            "from https://alice:hunter2@git.example.org/x",
            "credential",
            Some("hunter2"),
        ),
        ("bidi-override", "queue abc\u{202E}fed", "U+202E", None),
    ] {
        let mut c = Case::new(
            Family::Argv,
            format!("argv/commit/message-{label}"),
            &["commit", "-m", message, "--by", "jason"],
            2,
            gist,
        );
        if let Some(sec) = secret {
            c = c.secret(sec);
        }
        out.push(c);
    }
    out
}

/// Variables: the agent name, git's redirections, PATH, and the Gitea configuration.
fn environment() -> Vec<Case> {
    let mut out = Vec::new();
    let note = |op: &str| change(&["note", "1", "text"], op, "darkwing");
    for (label, value) in [("space", "bad seat"), ("upper", "DARKWING"), ("empty", "")] {
        out.push(
            Case::new(
                Family::Env,
                format!("env/agent-name/next-{label}"),
                &["next"],
                2,
                "seat",
            )
            .env("MOSAIC_AGENT_NAME", s(value)),
        );
    }
    let mut c = Case::new(
        Family::Env,
        "env/agent-name/non-utf8".into(),
        &["note", "1", "text", "--op", "hostile-op-1"],
        2,
        "MOSAIC_AGENT_NAME",
    );
    c.env
        .push(("MOSAIC_AGENT_NAME".into(), Arg::B(b"dark\xffwing".to_vec())));
    out.push(c);
    for var in ["GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR"] {
        for (verb, args) in [
            ("list", vec!["list".to_owned()]),
            ("note", note("hostile-op-1")),
        ] {
            out.push(
                Case::new(
                    Family::Env,
                    format!("env/{var}/{verb}"),
                    &refs(&args),
                    2,
                    var,
                )
                .env(var, s("{base}/repo/.git")),
            );
        }
    }
    // The queue's own verbs read the repository in-process; commit runs git and names it.
    let commit = ["commit", "-m", "queue", "--by", "jason"]
        .map(String::from)
        .to_vec();
    for (verb, args, exit, gist) in [
        ("list", vec!["list".to_owned()], 0, LISTED),
        ("note", note("hostile-op-1"), 0, NOTED),
        ("commit", commit, 1, "cannot run git"),
    ] {
        out.push(
            Case::new(
                Family::Env,
                format!("env/path-without-git/{verb}"),
                &refs(&args),
                exit,
                gist,
            )
            .env("PATH", s("/nonexistent")),
        );
    }
    // The warning when --by and MOSAIC_AGENT_NAME differ, printed where stderr cannot be
    // written: the op is still written and acknowledged. A refusal there has nowhere to say
    // anything, so it alone has no gist.
    for (label, stderr) in [("dev-full", Stderr::Full), ("closed-pipe", Stderr::Closed)] {
        let mut c = Case::new(
            Family::Env,
            format!("env/by-warning/{label}"),
            &refs(&note("hostile-op-1")),
            0,
            NOTED,
        )
        .env("MOSAIC_AGENT_NAME", s("flicker"));
        c.stderr = stderr;
        out.push(c);
        let mut c = Case::new(
            Family::Env,
            format!("env/refusal-stderr/{label}"),
            &refs(&note("BAD-OP")),
            2,
            "",
        );
        c.stderr = stderr;
        out.push(c);
    }
    // Gitea configuration: a password in the URL is never printed; the refusal names the real
    // problem; nothing is sent.
    let review = change(
        &[
            "move",
            "1",
            "in-review",
            "--candidate",
            "HEAD",
            "--issue",
            "12",
        ],
        "darkwing-1-review",
        "darkwing",
    );
    let gitea = || Gitea {
        by: "darkwing",
        scripts: Vec::new(),
        deadline_ms: 10_000,
    };
    for (label, url, gist, secret) in [
        (
            "userinfo",
            "http://darkwing:hunter2pass@127.0.0.1:9",
            "MOSAIC_GITEA_URL",
            Some("hunter2pass"),
        ),
        (
            "userinfo-https",
            "https://tok3nt0k3n@127.0.0.1:9",
            "MOSAIC_GITEA_URL",
            Some("tok3nt0k3n"),
        ),
        ("ftp", "ftp://127.0.0.1:9", "MOSAIC_GITEA_URL", None),
        ("newline", "http://127.0.0.1:9\nx", "MOSAIC_GITEA_URL", None),
        ("empty", "", "MOSAIC_GITEA_URL", None),
        (
            "query",
            "http://127.0.0.1:9/?token=abc",
            "MOSAIC_GITEA_URL",
            None,
        ),
    ] {
        let mut c = Case::new(
            Family::Env,
            format!("env/gitea-url/{label}"),
            &refs(&review),
            1,
            gist,
        )
        .env("MOSAIC_GITEA_URL", s(url))
        .after(After::Verifies);
        c.gitea = Some(gitea());
        if let Some(sec) = secret {
            c = c.secret(sec);
        }
        out.push(c);
    }
    for (label, repo) in [
        ("three-parts", "a/b/c"),
        ("dotdot", "../x"),
        ("empty-owner", "/stack"),
        ("space", "mo saic/stack"),
    ] {
        let mut c = Case::new(
            Family::Env,
            format!("env/gitea-repo/{label}"),
            &refs(&review),
            1,
            "MOSAIC_GITEA_REPO",
        )
        .env("MOSAIC_GITEA_REPO", s(repo))
        .after(After::Verifies);
        c.gitea = Some(gitea());
        out.push(c);
    }
    // The token file as something other than the seat's own regular file.
    let token = "agents/darkwing/secrets/gitea-mosaicstack-darkwing.token";
    for (label, setup, gist) in [
        ("fifo", Setup::Fifo(token.into()), "token"),
        ("directory", Setup::Dir(token.into()), "token"),
        (
            "symlink",
            Setup::Symlink(token.into(), "{base}/cand.txt".into()),
            "symlink",
        ),
        ("mode-644", Setup::Mode(token.into(), 0o644), "0600"),
        ("missing", Setup::Remove(token.into()), "token"),
        ("huge-sparse", Setup::Sparse(token.into(), 3 << 30), "token"),
    ] {
        let mut c = Case::new(
            Family::Env,
            format!("env/token-file/{label}"),
            &refs(&review),
            1,
            gist,
        )
        .setup(setup)
        .after(After::Verifies);
        c.gitea = Some(gitea());
        out.push(c);
    }
    let mut c = Case::new(
        Family::Env,
        "env/token-file/dev-zero".into(),
        &refs(&review),
        1,
        "token",
    )
    .env("MOSAIC_GITEA_CREDENTIAL_FILE", s("/dev/zero"))
    .after(After::Verifies);
    c.gitea = Some(gitea());
    out.push(c);
    out
}

const QUEUE_JSON: &str = "repo/docs/plans/queue.json";
const QUEUE_MD: &str = "repo/docs/plans/QUEUE.md";
const WITNESS: &str = "repo/.git/mosaic-queue.head";
const LOCK: &str = "repo/.git/mosaic-queue.lock";
const GATE: &str = "repo/.git/mosaic-queue.unlock";
const VIEW: &str = "repo/.git/mosaic-queue.view";

/// Bad bytes in the queue's files: every verb gives the same exit code for the same state.
fn contents() -> Vec<Case> {
    let mut out = Vec::new();
    let verbs: Vec<(&str, Vec<String>)> = vec![
        ("list", vec!["list".into()]),
        ("show", vec!["show".into(), "1".into()]),
        ("next", vec!["next".into(), "darkwing".into()]),
        ("verify", vec!["verify".into()]),
        ("verify-current", vec!["verify".into(), "--current".into()]),
        ("render", vec!["render".into()]),
        (
            "note",
            change(&["note", "1", "text"], "hostile-op-1", "darkwing"),
        ),
    ];
    let json_bad: Vec<(&str, Vec<u8>)> = vec![
        ("not-json", b"{ not json\n".to_vec()),
        ("empty", Vec::new()),
        ("bom", b"\xEF\xBB\xBF{}\n".to_vec()),
        ("not-utf8", b"{\"version\": \xff}\n".to_vec()),
        ("number-2pow53", b"{\n  \"version\": 1,\n  \"canonicalRoot\": \"/x\",\n  \"revision\": 9007199254740992,\n  \"rows\": [],\n  \"log\": []\n}\n".to_vec()),
        ("deep-nesting", {
            let mut v = b"{\"version\": ".to_vec();
            v.extend(std::iter::repeat_n(b'[', 100_000));
            v
        }),
    ];
    for (label, bytes) in &json_bad {
        for (verb, args) in &verbs {
            out.push(
                Case::new(
                    Family::Files,
                    format!("files/queue-json/{label}/{verb}"),
                    &refs(args),
                    2,
                    "queue.json",
                )
                .setup(Setup::Write(QUEUE_JSON.into(), bytes.clone())),
            );
        }
    }
    // QUEUE.md that is not UTF-8 or lost its markers: the verbs that read it agree.
    let md_bad: Vec<(&str, Vec<u8>)> = vec![
        ("not-utf8", b"# Queue\n\xff\xfe\n".to_vec()),
        ("no-markers", b"# Queue\n\nno markers here\n".to_vec()),
        ("markers-twice", b"<!-- mosaic-queue:begin -->\n<!-- mosaic-queue:begin -->\n<!-- mosaic-queue:end -->\n".to_vec()),
    ];
    for (label, bytes) in &md_bad {
        for (verb, args) in verbs
            .iter()
            .filter(|(v, _)| matches!(*v, "verify-current" | "render" | "note"))
        {
            out.push(
                Case::new(
                    Family::Files,
                    format!("files/queue-md/{label}/{verb}"),
                    &refs(args),
                    2,
                    "QUEUE.md",
                )
                .setup(Setup::Write(QUEUE_MD.into(), bytes.clone())),
            );
        }
    }
    // Manifests named by --candidate.
    let candidate = |path: &str| {
        change(
            &[
                "move",
                "1",
                "in-review",
                "--candidate",
                path,
                "--issue",
                "12",
            ],
            "darkwing-1-review",
            "darkwing",
        )
    };
    let hex = "a".repeat(64);
    let manifests: Vec<(&str, Vec<u8>, &str, Option<&str>)> = vec![
        ("not-utf8", b"\xff\xfe\n".to_vec(), "manifest", None),
        (
            "dotdot",
            format!("{hex} ../etc/passwd\n").into_bytes(),
            "manifest",
            None,
        ),
        (
            "absolute",
            format!("{hex} /etc/passwd\n").into_bytes(),
            "manifest",
            None,
        ),
        (
            "nul",
            format!("{hex} a\0b\n").into_bytes(),
            "manifest",
            None,
        ),
        (
            "crlf",
            format!("{hex} a\r\n").into_bytes(),
            "manifest",
            None,
        ),
        ("empty", Vec::new(), "manifest", None),
        (
            "credential-path",
            format!("{hex} sk_live_4eC39HqLyjWDarjtT1zdp7dc\n").into_bytes(),
            "credential",
            Some("4eC39HqLyjWDarjtT1zdp7dc"),
        ),
        (
            "credential-url",
            format!("{hex} https://alice:hunter2@x/y\n").into_bytes(),
            "credential",
            Some("hunter2"),
        ),
        (
            "bidi-path",
            format!("{hex} a\u{202E}b.rs\n").into_bytes(),
            "manifest",
            None,
        ),
    ];
    for (label, bytes, gist, secret) in &manifests {
        let mut c = Case::new(
            Family::Files,
            format!("files/manifest/{label}"),
            &refs(&candidate("{base}/m.txt")),
            2,
            gist,
        )
        .setup(Setup::Write("m.txt".into(), bytes.clone()));
        if let Some(sec) = secret {
            c = c.secret(sec);
        }
        out.push(c);
    }
    // Migration maps (genesis parses the map before anything else).
    let genesis = |map: &str| change(&["genesis", "--map", map], "genesis-0002", "jason");
    let table = "| # | Piece | Owner | Status | Gate | Issues | Note |\n| --- | --- | --- | --- | --- | --- | --- |\n";
    let src = "source: docs/plans/QUEUE.md blob 0123456789abcdef0123456789abcdef01234567\n";
    let maps: Vec<(&str, String, &str)> = vec![
        (
            "id-2pow53",
            format!("{src}{table}| 9007199254740992 | P | - | queued | - | - | - |\n"),
            "2^53-1",
        ),
        (
            "issue-2pow53",
            format!("{src}{table}| 1 | P | - | queued | - | #9007199254740992 | - |\n"),
            "2^53-1",
        ),
        (
            "no-source",
            format!("{table}| 1 | P | - | queued | - | - | - |\n"),
            "map",
        ),
        ("no-rows", format!("{src}{table}"), "map"),
        (
            "credential-note",
            format!(
                "{src}{table}| 1 | P | - | queued | - | - | sk_live_4eC39HqLyjWDarjtT1zdp7dc |\n"
            ),
            "credential",
        ),
    ];
    for (label, text, gist) in &maps {
        out.push(
            Case::new(
                Family::Files,
                format!("files/map/{label}"),
                &refs(&genesis("{base}/m.md")),
                2,
                gist,
            )
            .setup(Setup::Write("m.md".into(), text.clone().into_bytes())),
        );
    }
    // Witness and lock bytes that are not what the tool writes.
    for (label, bytes) in [
        ("garbage", b"garbage\n".to_vec()),
        ("not-utf8", b"\xff\n".to_vec()),
    ] {
        for (verb, args) in verbs
            .iter()
            .filter(|(v, _)| matches!(*v, "verify" | "note"))
        {
            out.push(
                Case::new(
                    Family::Files,
                    format!("files/witness/{label}/{verb}"),
                    &refs(args),
                    2,
                    "witness",
                )
                .setup(Setup::Write(WITNESS.into(), bytes.clone())),
            );
        }
    }
    out
}

/// Every path the queue reads, with something that is not a regular file of a sane size.
fn filesystem() -> Vec<Case> {
    let mut out = Vec::new();
    let huge = 3u64 << 30;
    // (path label, path, exit code for a verb that reads it, gist)
    let things: Vec<(&str, Thing)> = vec![
        ("fifo", Box::new(|p| Setup::Fifo(p.into()))),
        ("directory", Box::new(|p| Setup::Dir(p.into()))),
        (
            "sparse-3g",
            Box::new(move |p| Setup::Sparse(p.into(), huge)),
        ),
        (
            "symlink-loop",
            Box::new(|p| Setup::Symlink(p.into(), p.rsplit('/').next().unwrap().into())),
        ),
        (
            "symlink-dangling",
            Box::new(|p| Setup::Symlink(p.into(), "{base}/nowhere".into())),
        ),
        (
            "symlink-dev-zero",
            Box::new(|p| Setup::Symlink(p.into(), "/dev/zero".into())),
        ),
    ];
    let note = change(&["note", "1", "text"], "hostile-op-1", "darkwing");
    // Each verb with what it answers where it does not read the path.
    let verbs: Vec<(&str, Vec<String>, &str)> = vec![
        ("list", vec!["list".into()], LISTED),
        ("verify", vec!["verify".into()], VERIFIED),
        (
            "verify-current",
            vec!["verify".into(), "--current".into()],
            VERIFIED_CURRENT,
        ),
        ("note", note.clone(), NOTED),
    ];
    // Which verbs read which path, the exit code of a verb that reads it and the gist of its
    // refusal. A verb that never opens a path answers whatever stands there (docs/limits.md).
    // Whatever is at the lock path and is not a lock is an invalid lock, which waits for a
    // person: exit 1, as for a lock file holding garbage. The read view is a cache: whatever
    // stands there is skipped, and every verb goes on.
    let paths: Vec<(&str, &str, Vec<&str>, i32, &str)> = vec![
        (
            "queue-json",
            QUEUE_JSON,
            vec!["list", "verify", "verify-current", "note"],
            2,
            "queue.json",
        ),
        (
            "queue-md",
            QUEUE_MD,
            vec!["verify-current", "note"],
            2,
            "QUEUE.md",
        ),
        (
            "witness",
            WITNESS,
            vec!["list", "verify", "verify-current", "note"],
            2,
            "witness",
        ),
        (
            "lock",
            LOCK,
            vec!["verify", "verify-current", "note"],
            1,
            "the queue lock",
        ),
        ("view", VIEW, vec![], 0, ""),
    ];
    for (plabel, path, readers, refused, gist) in &paths {
        for (tlabel, thing) in &things {
            for (verb, args, answer) in &verbs {
                let reads = readers.contains(verb);
                let code = if reads { *refused } else { 0 };
                let mut c = Case::new(
                    Family::Filesystem,
                    format!("fs/{plabel}/{tlabel}/{verb}"),
                    &refs(args),
                    code,
                    if reads { gist } else { answer },
                )
                .setup(thing(path));
                if !reads {
                    // Nothing refused, nothing the verb writes is at that path: a read leaves
                    // it alone and a write replaces only the queue's files.
                    c.after = if *verb == "note" {
                        After::Verifies
                    } else {
                        After::Unchanged
                    };
                }
                out.push(c);
            }
        }
    }
    // The unlock gate, read by `unlock --check-gate` and `unlock`. Whatever stands there and
    // is not a gate is an invalid gate, as a gate file holding garbage is: `--check-gate`
    // answers that (exit 0, no clearance to remove it) and `unlock` refuses to go on (exit 1).
    for (tlabel, thing) in &things {
        for (verb, args, code, gist) in [
            (
                "check-gate",
                vec!["unlock", "--check-gate"],
                0,
                "gate invalid: ",
            ),
            ("unlock", vec!["unlock"], 1, "the unlock gate"),
        ] {
            out.push(
                Case::new(
                    Family::Filesystem,
                    format!("fs/gate/{tlabel}/{verb}"),
                    &args,
                    code,
                    gist,
                )
                .setup(thing(GATE))
                .after(After::Unchanged),
            );
        }
    }
    // --candidate and --base as devices, pipes, directories and giants.
    let candidate = |path: &str| {
        change(
            &[
                "move",
                "1",
                "in-review",
                "--candidate",
                path,
                "--issue",
                "12",
            ],
            "darkwing-1-review",
            "darkwing",
        )
    };
    for (label, setup, path) in [
        ("dev-zero", None, "/dev/zero"),
        ("dev-urandom", None, "/dev/urandom"),
        ("fifo", Some(Setup::Fifo("m.txt".into())), "{base}/m.txt"),
        (
            "sparse-5g",
            Some(Setup::Sparse("m.txt".into(), 5 << 30)),
            "{base}/m.txt",
        ),
        (
            "sparse-5m",
            Some(Setup::Sparse("m.txt".into(), 5 << 20)),
            "{base}/m.txt",
        ),
        (
            "symlink-to-fifo",
            Some(Setup::Fifo("f".into())),
            "{base}/m.txt",
        ),
    ] {
        let mut c = Case::new(
            Family::Filesystem,
            format!("fs/candidate/{label}"),
            &refs(&candidate(path)),
            2,
            "candidate",
        );
        if let Some(s) = setup {
            c = c.setup(s);
        }
        if label == "symlink-to-fifo" {
            c = c.setup(Setup::Symlink("m.txt".into(), "{base}/f".into()));
        }
        if label == "dev-zero" || label == "dev-urandom" {
            c.gist = "character device".into();
        }
        out.push(c);
    }
    let verify_snap = |base: Option<&str>| {
        let mut v = vec![
            "verify".to_owned(),
            "--snapshot".into(),
            "{base}/snap".into(),
        ];
        if let Some(b) = base {
            v.extend(["--base".into(), b.into()]);
        }
        v
    };
    for (label, setup, path) in [
        ("dev-zero", None, "/dev/zero"),
        ("fifo", Some(Setup::Fifo("b.json".into())), "{base}/b.json"),
        (
            "directory",
            Some(Setup::Dir("b.json".into())),
            "{base}/b.json",
        ),
        (
            "sparse-3g",
            Some(Setup::Sparse("b.json".into(), huge)),
            "{base}/b.json",
        ),
        ("missing", None, "{base}/nowhere.json"),
    ] {
        let mut c = Case::new(
            Family::Filesystem,
            format!("fs/base/{label}"),
            &refs(&verify_snap(Some(path))),
            2,
            "base",
        );
        if let Some(s) = setup {
            c = c.setup(s);
        }
        out.push(c);
    }
    for (file, gist) in [("queue.json", "queue.json"), ("QUEUE.md", "QUEUE.md")] {
        let rel = format!("snap/{file}");
        for (tlabel, thing) in &things {
            out.push(
                Case::new(
                    Family::Filesystem,
                    format!("fs/snapshot-dir/{file}/{tlabel}"),
                    &refs(&verify_snap(None)),
                    2,
                    gist,
                )
                .setup(thing(&rel)),
            );
        }
    }
    // A snapshot "directory" that is a file, or is not there: refused (exit 2) like a missing
    // or wrong file in it, since running again cannot help.
    for (label, dir) in [("a-file", "{base}/cand.txt"), ("missing", "{base}/nowhere")] {
        out.push(Case::new(
            Family::Filesystem,
            format!("fs/snapshot-dir/{label}"),
            &["verify", "--snapshot", dir],
            2,
            "queue.json does not exist; take the snapshot again",
        ));
    }
    // A snapshot directory under a name that is not UTF-8 still verifies.
    let mut c = Case::new(
        Family::Filesystem,
        "fs/snapshot-dir/non-utf8-name".into(),
        &["verify", "--snapshot"],
        0,
        "ok verify --snapshot rev 3\n",
    )
    .after(After::Unchanged);
    c.setup.push(Setup::Run {
        args: vec![s("snapshot"), s("--out"), Arg::B(b"../snap-\xff".to_vec())],
        code: 0,
    });
    c.args.push(Arg::B(b"../snap-\xff".to_vec()));
    out.push(c);
    out
}

/// Gitea answers to the review request's POST and to `GET /user`, and comments `review
/// resolve` fetches: every number checked, nothing unusable logged as posted.
fn gitea() -> Vec<Case> {
    let mut out = Vec::new();
    let review = change(
        &[
            "move",
            "1",
            "in-review",
            "--candidate",
            "HEAD",
            "--issue",
            "12",
        ],
        "darkwing-1-review",
        "darkwing",
    );
    let case = |name: String, scripts: Vec<(Endpoint, Answer)>, code: i32, gist: &str| {
        let mut c =
            Case::new(Family::Gitea, name, &refs(&review), code, gist).after(After::Verifies);
        c.gitea = Some(Gitea {
            by: "darkwing",
            scripts,
            deadline_ms: 3_000,
        });
        c
    };
    let uncertain = "may or may not exist";
    for (label, body) in [
        ("id-2pow53", r#"{"id": 9007199254740992}"#.to_owned()),
        ("id-2pow53+1", r#"{"id": 9007199254740993}"#.into()),
        ("id-u64max", r#"{"id": 18446744073709551615}"#.into()),
        ("id-2pow64", r#"{"id": 18446744073709551616}"#.into()),
        ("id-negative", r#"{"id": -1}"#.into()),
        ("id-zero", r#"{"id": 0}"#.into()),
        ("id-fraction", r#"{"id": 1.5}"#.into()),
        ("id-exponent", r#"{"id": 1e3}"#.into()),
        ("id-string", r#"{"id": "7"}"#.into()),
        ("id-null", r#"{"id": null}"#.into()),
        ("no-id", r#"{"body": "x"}"#.into()),
        ("array", "[7]".into()),
        ("html", "<html>502</html>".into()),
        ("empty", String::new()),
        (
            "huge",
            format!(r#"{{"id": 7, "body": "{}"}}"#, "x".repeat(2 << 20)),
        ),
        (
            "deep",
            format!("{}7{}", "[".repeat(100_000), "]".repeat(100_000)),
        ),
    ] {
        out.push(case(
            format!("gitea/post-201/{label}"),
            vec![(Endpoint::PostComment, Answer::Raw(201, body))],
            3,
            uncertain,
        ));
    }
    // A string id that looks like a token, or would display otherwise than its bytes, is
    // refused without being repeated.
    let token_id = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
    out.push(
        case(
            "gitea/post-201/id-token-string".into(),
            vec![(
                Endpoint::PostComment,
                Answer::Raw(201, format!(r#"{{"id": "{token_id}"}}"#)),
            )],
            3,
            "201 with an id that is a string, not a positive integer comment id",
        )
        .secret(token_id),
    );
    out.push(case(
        "gitea/post-201/id-bidi-string".into(),
        vec![(
            Endpoint::PostComment,
            Answer::Raw(201, "{\"id\": \"7\u{202e}1\"}".into()),
        )],
        3,
        "201 with an id that is a string, not",
    ));
    for status in [400u16, 401, 403, 404, 422] {
        out.push(case(
            format!("gitea/post-status/{status}"),
            vec![(Endpoint::PostComment, Answer::Status(status))],
            1,
            "refused the comment",
        ));
    }
    for status in [200u16, 202, 204, 301, 409, 500, 502, 503] {
        out.push(case(
            format!("gitea/post-status/{status}"),
            vec![(Endpoint::PostComment, Answer::Status(status))],
            3,
            uncertain,
        ));
    }
    out.push(case(
        "gitea/post/dropped-after-storing".into(),
        vec![(Endpoint::PostComment, Answer::Drop { stored: true })],
        3,
        uncertain,
    ));
    out.push(case(
        "gitea/post/dropped".into(),
        vec![(Endpoint::PostComment, Answer::Drop { stored: false })],
        3,
        uncertain,
    ));
    out.push(case(
        "gitea/post/past-deadline".into(),
        // Held until the case's fake is dropped, after the run: only the run's deadline ends it.
        vec![(Endpoint::PostComment, Answer::Hold(Hold::new()))],
        3,
        uncertain,
    ));
    // The uncertain outcome with stderr unwritable: still exit 3, the outcome still logged
    // and its receipt printed.
    for (label, stderr) in [("dev-full", Stderr::Full), ("closed-pipe", Stderr::Closed)] {
        let mut c = case(
            format!("gitea/post/uncertain-stderr-{label}"),
            vec![(Endpoint::PostComment, Answer::Drop { stored: false })],
            3,
            "ok darkwing-1-review.outcome rev 5 review 1 round 1 darkwing-1-review uncertain\n",
        );
        c.stderr = stderr;
        out.push(c);
    }
    for (label, body, gist) in [
        (
            "other-login",
            r#"{"login": "mallory"}"#.to_owned(),
            "mallory",
        ),
        ("no-login", r#"{"id": 1}"#.into(), "no login"),
        ("login-number", r#"{"login": 7}"#.into(), "no login"),
        ("html", "<html></html>".into(), "no login"),
        (
            "login-newline",
            r#"{"login": "dark\nwing"}"#.into(),
            "belongs to another Gitea user than darkwing",
        ),
        (
            "huge",
            format!(r#"{{"login": "{}"}}"#, "x".repeat(2 << 20)),
            "larger than the 1 MiB cap for a Gitea answer",
        ),
        (
            "login-token",
            r#"{"login": "sk_live_0123456789abcdefABCDEF"}"#.into(),
            "belongs to another Gitea user than darkwing",
        ),
        (
            "login-bidi",
            "{\"login\": \"dark\u{202e}wing\"}".into(),
            "belongs to another Gitea user than darkwing",
        ),
    ] {
        out.push(case(
            format!("gitea/user/{label}"),
            vec![(Endpoint::User, Answer::Raw(200, body))],
            1,
            gist,
        ));
    }
    for status in [401u16, 403, 500] {
        out.push(case(
            format!("gitea/user-status/{status}"),
            vec![(Endpoint::User, Answer::Status(status))],
            1,
            "user",
        ));
    }
    // review resolve after an uncertain request: the fetched comment is checked.
    let resolve = change(
        &[
            "review",
            "resolve",
            "1",
            "darkwing-1-review",
            "--comment",
            "4242",
        ],
        "darkwing-1-resolve",
        "darkwing",
    );
    let marked = "<!-- mosaic-queue-op: darkwing-1-review -->";
    for (label, body, code, gist) in [
        ("other-id", format!(r#"{{"id": 4243, "body": "{marked}", "user": {{"login": "darkwing"}}, "issue_url": "http://h/o/r/issues/12"}}"#), 1, "it names comment 4243"),
        ("issue-2pow53", format!(r#"{{"id": 4242, "body": "{marked}", "user": {{"login": "darkwing"}}, "issue_url": "http://h/o/r/issues/9007199254740992"}}"#), 1, "names no issue"),
        ("not-json", "<html>".into(), 1, "not JSON"),
        ("no-markers", r#"{"id": 4242, "body": "hello", "user": {"login": "darkwing"}, "issue_url": "http://h/o/r/issues/12"}"#.into(), 2, "4242"),
        ("other-author", format!(r#"{{"id": 4242, "body": "{marked}", "user": {{"login": "mallory"}}, "issue_url": "http://h/o/r/issues/12"}}"#), 2, "4242"),
    ] {
        let mut c = Case::new(Family::Gitea, format!("gitea/resolve/{label}"), &refs(&resolve), code, gist).after(After::Verifies);
        c.setup.push(Setup::Run { args: review.iter().map(|a| s(a)).collect(), code: 3 });
        c.gitea = Some(Gitea {
            by: "darkwing",
            scripts: vec![
                (Endpoint::PostComment, Answer::Drop { stored: false }),
                (Endpoint::GetComment, Answer::Raw(200, body)),
            ],
            deadline_ms: 3_000,
        });
        out.push(c);
    }
    out
}

/// Snapshots whose rows wait on rows, in the shapes that once made replay quadratic in the
/// depth of the waits (minutes at these sizes, beyond the sandbox's fuel): a chain of adds, the
/// same with `set 1 after` its tail (a cycle, written under semantics 4, whose message quotes
/// the path by its ends), a chain built from its end by `set`, a lone row moved from one end of
/// a chain to the other over and over, and two chains made to wait on each other's ends in
/// turn: under semantics 4 refused where the budget of search steps runs out, under 5 at the
/// first such set by the reach rule. The files are built entry by entry through the core (the
/// bodies stand in: replay does not re-render them), and checked with `verify --snapshot`,
/// since their canonical root is not the checkout's.
fn dependencies() -> Vec<Case> {
    use mosaic_queue_core::CURRENT_SEMANTICS;
    const ROWS: u64 = 20_000;
    let snapshot = |name: &str,
                    steps: &[(u64, Vec<u64>)],
                    semantics: u8,
                    code: i32,
                    gist: &dyn Fn(u64) -> String| {
        let (json, md, refused) = deps_snapshot(steps, semantics);
        let dir = format!("deps-{name}");
        Case::new(
            Family::Files,
            format!("files/dependencies/{name}"),
            &["verify", "--snapshot", &format!("{{base}}/{dir}")],
            code,
            &gist(refused.unwrap_or(0)),
        )
        .setup(Setup::Dir(dir.clone()))
        .setup(Setup::Write(format!("{dir}/queue.json"), json))
        .setup(Setup::Write(format!("{dir}/QUEUE.md"), md))
        .after(After::Unchanged)
    };
    // (0, after) adds the next row; (id, after) sets row id's dependencies.
    let chain: Vec<(u64, Vec<u64>)> = (2..=ROWS).map(|id| (0, vec![id - 1])).collect();
    let mut cycle = chain.clone();
    cycle.push((1, vec![ROWS]));
    let mut backwards: Vec<(u64, Vec<u64>)> = (2..=ROWS / 2).map(|_| (0, vec![])).collect();
    backwards.extend((1..ROWS / 2).rev().map(|id| (id, vec![id + 1])));
    let half = ROWS / 2;
    let mut lone: Vec<(u64, Vec<u64>)> = (2..half).map(|id| (0, vec![id - 1])).collect();
    lone.push((0, vec![]));
    let round = [
        (1, vec![half]),
        (1, vec![]),
        (half, vec![half - 1]),
        (half, vec![]),
    ];
    lone.extend(round.iter().cycle().take(half as usize).cloned());
    // Rows 1..=half and half+1..=ROWS, two chains, then 400 sets in ping-pong.
    let mut two: Vec<(u64, Vec<u64>)> = (2..=ROWS)
        .map(|id| (0, if id == half + 1 { vec![] } else { vec![id - 1] }))
        .collect();
    let round = [
        (1, vec![ROWS]),
        (1, vec![]),
        (half + 1, vec![half]),
        (half + 1, vec![]),
    ];
    two.extend(round.iter().cycle().take(400).cloned());
    let ok = |steps: &[(u64, Vec<u64>)]| {
        let line = format!("ok verify --snapshot rev {}", steps.len() + 1);
        move |_| line.clone()
    };
    let current = CURRENT_SEMANTICS;
    vec![
        snapshot("deep-chain", &chain, current, 0, &ok(&chain)),
        snapshot("deep-chain-cycle", &cycle, 4, 2, &|_| {
            format!(
                "row 1 cannot wait on #{ROWS} -> #{} -> #{} -> #{} -> ... -> #4 -> #3 -> #2 -> #1 ({ROWS} rows): that makes a cycle",
                ROWS - 1,
                ROWS - 2,
                ROWS - 3
            )
        }),
        snapshot(
            "chain-set-from-its-end",
            &backwards,
            current,
            0,
            &ok(&backwards),
        ),
        snapshot("lone-row-ping-pong", &lone, current, 0, &ok(&lone)),
        snapshot("two-chains-ping-pong-over-budget", &two, 4, 2, &|rev| {
            format!(
                "log entry rev {rev} is refused by the rules it was written under: the set … after entries of semantics 3 and 4 up to here make the cycle check search more than {} steps (64 per entry plus 1000000), which no tool writes: restore queue.json from git",
                64 * rev + 1_000_000
            )
        }),
        snapshot("two-chains-ping-pong-reach", &two, current, 2, &|rev| {
            format!(
                "log entry rev {rev} is refused by the rules it was written under: row 1 cannot wait on #{ROWS}: more than 1000 rows wait on row 1"
            )
        }),
    ]
}

/// A snapshot's queue.json and QUEUE.md after genesis of row 1 and `steps` (see
/// `dependencies`), every entry by the lead under `semantics`; an entry the core refuses is
/// logged all the same, for replay to refuse (the first one's rev is returned).
fn deps_snapshot(steps: &[(u64, Vec<u64>)], semantics: u8) -> (Vec<u8>, Vec<u8>, Option<u64>) {
    use mosaic_queue_core::{
        AddArgs, Args, Body, Entry, GenesisArgs, MapRow, Queue, SetArgs, SetField, SetValue,
        Status,
        internal::{self, Ctx},
        markdown, sha256, to_canonical,
    };
    const AT: &str = "2026-11-29T10:00:00.000Z";
    let row = MapRow {
        id: 1,
        piece: "Piece 1".into(),
        owner: None,
        status: Status::Queued,
        gate: None,
        issues: vec![],
        note: None,
    };
    let genesis = GenesisArgs {
        branch: "main".into(),
        root: "/srv/deps".into(),
        source: "0123456789abcdef0123456789abcdef01234567".into(),
        rows: vec![row],
        legacy_view: "| # | Piece |\n| --- | --- |\n".into(),
    };
    let (queue, _) = Queue::genesis(genesis, "jason-genesis-1", "jason", AT).unwrap();
    let (mut file, mut state) = (queue.file().clone(), queue.state().clone());
    let mut refused = None;
    for (id, after) in steps {
        let rev = file.revision + 1;
        let args = match id {
            0 => Args::Add(Box::new(AddArgs {
                id: state.next_id(),
                piece: format!("Piece {rev}"),
                owner: None,
                status: Status::Queued,
                gate: None,
                issues: vec![],
                reviewers: vec![],
                brief: None,
                note: None,
                after: after.clone(),
            })),
            id => Args::Set(Box::new(SetArgs {
                id: *id,
                field: SetField::After,
                value: SetValue::Numbers(after.clone()),
                reason: None,
            })),
        };
        let op = format!("lead-{}-{rev}", args.verb().as_str());
        let ctx = Ctx {
            rev,
            op: &op,
            by: "lead",
            at: AT,
            semantics,
        };
        let receipt = internal::apply(&mut state, &args, &ctx).unwrap_or_else(|_| {
            refused.get_or_insert(rev);
            format!("set {id} after")
        });
        file.log.push(Entry {
            rev,
            verb: args.verb(),
            by: "lead".into(),
            at: AT.into(),
            semantics,
            args,
            receipt,
            body: Body::Sha256(sha256(op.as_bytes())),
            op,
        });
        file.revision = rev;
    }
    let body = markdown::render_body_under(&state, semantics);
    if let Some(last) = file.log.last_mut() {
        last.body = Body::Sha256(sha256(body.as_bytes()));
    }
    file.rows.clone_from(&state.rows);
    let md = format!("# Queue\n\n{}\n{body}{}\n", markdown::BEGIN, markdown::END);
    (to_canonical(&file), md.into_bytes(), refused)
}
