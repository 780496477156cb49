//! Checking one crash state: materialize it in the scratch checkout (the same root, since
//! genesis records it), play a reboot, run what a person runs next, and hold the state to the
//! three properties of docs/durability.md. A state that breaks one is unsafe, with the reason.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::model::{Posted, State};
use support::fake_gitea::{FakeGitea, Stored};
use support::{Out, Repo, run_in};

/// The boot id every command after the crash runs with: the host has rebooted.
pub const REBOOTED: &str = "c0ffee00-0000-4000-8000-00000000b007";

/// Every `kind` doctor prints (docs/doctor.md); a state doctor names otherwise is unsafe.
pub const KINDS: &[&str] = &[
    "git-env",
    "worktree",
    "not-canonical",
    "wrong-branch",
    "filesystem",
    "gate-live",
    "gate-dead",
    "gate-mismatch",
    "gate-unknown",
    "gate-invalid",
    "lock-live",
    "lock-dead",
    "lock-mismatch",
    "lock-unknown",
    "lock-invalid",
    "unacknowledged",
    "no-queue",
    "queue-unreadable",
    "queue-invalid",
    "witness-missing",
    "witness-invalid",
    "history-lost",
    "tail-not-durable",
    "genesis-not-committed",
    "table-missing",
    "table-markers",
    "table-stale",
    "table-hand-edited",
    "review-unresolved",
    "guard",
    "guard-unchecked",
    "temp-files",
    "lock-temp-files",
    "commit-indexes",
];

/// The fake Gitea of a review request scenario, with the comments it held before the recorded
/// run and after it.
pub struct Remote<'a> {
    pub fake: &'a FakeGitea,
    pub before: Vec<Stored>,
    pub after: Vec<Stored>,
}

/// What a scenario runs and how its commands are filled in.
pub struct Scenario<'a> {
    pub repo: &'a Repo,
    /// A copy of the checkout as it was before the recorded run.
    pub pristine: PathBuf,
    /// The recorded command (its retry is the same command).
    pub args: Vec<String>,
    /// Variables every run gets (the Gitea ones for a review request).
    pub env: Vec<(String, String)>,
    /// Receipts that were durable before the run: they must survive every state.
    pub before: BTreeSet<String>,
    /// Finding kinds a person must handle by the contract in this scenario (a review request
    /// whose comment may have been posted), counted apart from unsafe states.
    pub person_kinds: &'a [&'a str],
    /// Whether the commands after run as after a reboot (a power loss) or on the same boot (an
    /// I/O error the process survived).
    pub reboot: bool,
    /// The fake Gitea a review request posts to, if the scenario has one.
    pub remote: Option<Remote<'a>>,
}

/// What one look at doctor led to.
enum Cure {
    Healthy,
    Ran,
    /// A person decided as the finding said (a review request looked up on the issue, then
    /// resolved or abandoned), and the command they ran went through.
    Person,
}

/// How one state ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Healthy, or healed by the retry and the commands doctor named (how many commands).
    Healed(usize),
    /// Healed after a person's decision the contract leaves to a person (a kind in
    /// `person_kinds`), and the commands doctor named (how many commands in all).
    Person(usize),
    Unsafe(String),
}

impl Scenario<'_> {
    fn run(&self, args: &[&str]) -> Out {
        let mut env: Vec<(&str, &str)> = self
            .env
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        if self.reboot {
            env.push(("MOSAIC_BOOT_ID", REBOOTED));
        }
        env.push(("MOSAIC_LOCK_WAIT_MS", "200"));
        run_in(&self.repo.root, args, &env)
    }

    fn retry(&self) -> Out {
        let args: Vec<&str> = self.args.iter().map(String::as_str).collect();
        self.run(&args)
    }

    /// Puts the checkout back to `pristine`, then writes the state's files over it; Gitea gets
    /// the comments it held at the crash.
    pub fn materialize(&self, state: &State) {
        reset(&self.pristine, &self.repo.root);
        if let Some(remote) = &self.remote {
            remote.fake.set_comments(match state.posted {
                Posted::No => remote.before.clone(),
                Posted::Yes => remote.after.clone(),
            });
        }
        for (path, bytes) in &state.files {
            match bytes {
                Some(b) => std::fs::write(path, b).unwrap(),
                None => {
                    let _ = std::fs::remove_file(path);
                }
            }
        }
    }

    /// Runs what a person runs next and judges the state.
    pub fn check(&self, state: &State) -> Verdict {
        self.materialize(state);
        self.recover(&state.acked)
    }

    /// Judges the checkout as it is: `acked` are the receipts printed by the run that
    /// stopped, on top of those durable before it.
    pub fn recover(&self, acked: &BTreeSet<String>) -> Verdict {
        match self.judge(acked) {
            Ok(v) => v,
            Err(why) => Verdict::Unsafe(why),
        }
    }

    fn judge(&self, acked: &BTreeSet<String>) -> Result<Verdict, String> {
        let acked: BTreeSet<String> = acked.union(&self.before).cloned().collect();
        // A read: it answers, or refuses in one line.
        one_line_or_ok(&self.run(&["list"]), "list")?;
        // verify: whatever it accepts holds every acknowledged op (property 2).
        let verify = self.run(&["verify"]);
        one_line_or_ok(&verify, "verify")?;
        if verify.code == 0 {
            self.holds(&acked)
                .map_err(|e| format!("verify accepted a state that {e}"))?;
        }
        // doctor names the state in kinds it knows, and the kinds the files call for.
        let first = self.doctor()?;
        self.recognized(&first.1)?;
        let queue_files = self.queue_files();
        // The retry of the same op: heals, or refuses in one line; then doctor names a command,
        // the command runs, and the op is retried again, until the retry goes through.
        let mut retry = self.retry();
        one_line_or_ok(&retry, "the retry")?;
        if self.already_published(&retry) {
            retry.code = 0;
        }
        if retry.code != 0 && first.0 {
            return Err(format!(
                "the retry refused ({}) where doctor saw nothing to do",
                retry.stderr.trim()
            ));
        }
        // A state doctor calls healthy needs nothing: a retry whose op is already in the log
        // (or a verb with no op: render, sync, unlock, commit) only answers.
        let in_log = self.op().is_none_or(|op| {
            receipts_of(&queue_files[0])
                .iter()
                .any(|r| r.split(' ').nth(1) == Some(op))
        });
        if first.0 && in_log && self.queue_files() != queue_files {
            return Err("doctor saw nothing to do, but the retry changed the queue's files".into());
        }
        let mut steps = 0;
        let mut person = false;
        // Once a person has settled a review request, its retry answers what the log holds
        // (an abandoned attempt exits 1 by the contract): the retry is not run again.
        while retry.code != 0 && !person {
            match self.next_cure()? {
                Cure::Healthy => {
                    return Err(format!(
                        "the retry refuses ({}) where doctor sees nothing to do",
                        retry.stderr.trim()
                    ));
                }
                Cure::Person => person = true,
                Cure::Ran => {}
            }
            steps += 1;
            if steps > 3 {
                return Err("the retry still refuses after 3 commands doctor named".to_owned());
            }
            if !person {
                retry = self.retry();
                one_line_or_ok(&retry, "the retry")?;
                if self.already_published(&retry) {
                    retry.code = 0;
                }
            }
        }
        // Whatever the retry leaves (a genesis still to commit) doctor names and cures.
        loop {
            match self.next_cure()? {
                Cure::Healthy => break,
                Cure::Person => person = true,
                Cure::Ran => {}
            }
            steps += 1;
            if steps > 4 {
                return Err("not healthy after 4 commands doctor named".to_owned());
            }
        }
        let current = self.run(&["verify", "--current"]);
        if current.code != 0 {
            return Err(format!(
                "verify --current after the cure: {}",
                current.stderr.trim()
            ));
        }
        // Property 1: every receipt printed before the crash is in the log exactly once.
        self.holds(&acked)?;
        self.posted_once()?;
        Ok(if person {
            Verdict::Person(steps)
        } else {
            Verdict::Healed(steps)
        })
    }

    /// queue.json, QUEUE.md and the witness as they are now (absent: `None`).
    fn queue_files(&self) -> Vec<Option<Vec<u8>>> {
        [
            "docs/plans/queue.json",
            "docs/plans/QUEUE.md",
            ".git/mosaic-queue.head",
        ]
        .iter()
        .map(|p| std::fs::read(self.repo.path(p)).ok())
        .collect()
    }

    /// The link between the enumeration and doctor: from the files alone, independently of
    /// doctor's code, which findings the state calls for (a lock or gate left, no queue, a
    /// witness missing or behind, leftover temp files). Doctor must name one kind of each, and
    /// nothing outside them but the findings the files alone cannot tell (a stale table, an
    /// op never acknowledged, genesis not committed, an unresolved review request).
    fn recognized(&self, findings: &[Value]) -> Result<(), String> {
        let named: BTreeSet<&str> = findings
            .iter()
            .map(|f| f["kind"].as_str().unwrap_or_default())
            .collect();
        let mut wanted: Vec<(&str, &[&str])> = Vec::new();
        let exists = |p: &str| self.repo.path(p).exists();
        if exists(".git/mosaic-queue.lock") {
            wanted.push(("a lock left", &["lock-dead", "lock-mismatch"]));
        }
        if exists(".git/mosaic-queue.unlock") {
            wanted.push(("an unlock gate left", &["gate-dead", "gate-mismatch"]));
        }
        let revision = |p: &str| -> Option<Result<u64, ()>> {
            let text = std::fs::read(self.repo.path(p)).ok()?;
            Some(
                serde_json::from_slice::<Value>(&text)
                    .ok()
                    .and_then(|v| v["revision"].as_u64())
                    .ok_or(()),
            )
        };
        match (
            revision("docs/plans/queue.json"),
            revision(".git/mosaic-queue.head"),
        ) {
            (None, None) => wanted.push(("no queue.json", &["no-queue"])),
            (None, Some(_)) => wanted.push(("queue.json lost", &["no-queue", "history-lost"])),
            (Some(Err(())), _) => wanted.push(("queue.json unreadable", &["queue-invalid"])),
            (Some(Ok(_)), None) => wanted.push(("no witness", &["witness-missing"])),
            (Some(Ok(_)), Some(Err(()))) => wanted.push(("a bad witness", &["witness-invalid"])),
            (Some(Ok(q)), Some(Ok(w))) if w < q => {
                wanted.push(("a tail past the witness", &["tail-not-durable"]));
            }
            (Some(Ok(q)), Some(Ok(w))) if w > q => {
                wanted.push(("queue.json behind its witness", &["history-lost"]));
            }
            _ => {}
        }
        let names = |dir: &str| -> Vec<String> {
            std::fs::read_dir(self.repo.path(dir))
                .map(|d| {
                    d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                        .collect()
                })
                .unwrap_or_default()
        };
        let temp = |n: &String, prefixes: &[&str]| {
            n.ends_with(".tmp") && prefixes.iter().any(|p| n.starts_with(p))
        };
        let git = names(".git");
        if names("docs/plans")
            .iter()
            .any(|n| temp(n, &[".queue.json.", ".QUEUE.md."]))
            || git
                .iter()
                .any(|n| temp(n, &[".mosaic-queue.head.", ".mosaic-queue.view."]))
        {
            wanted.push(("a writer's temp file", &["temp-files"]));
        }
        if git
            .iter()
            .any(|n| temp(n, &["mosaic-queue.lock.", "mosaic-queue.unlock."]))
        {
            wanted.push(("a lock's temp file", &["lock-temp-files"]));
        }
        support::findings::recognized(&wanted, &named)
    }

    /// A review request's comment is on Gitea at most once: no retry or cure posted again.
    fn posted_once(&self) -> Result<(), String> {
        let (Some(remote), Some(op)) = (&self.remote, self.op()) else {
            return Ok(());
        };
        let marker = format!("<!-- mosaic-queue-op: {op} -->");
        let n = remote
            .fake
            .comments()
            .iter()
            .filter(|c| c.body.contains(&marker))
            .count();
        if n > 1 {
            return Err(format!("the request {op} was posted {n} times"));
        }
        Ok(())
    }

    /// What a person does for `review-unresolved`, from the finding's `choices` as an agent
    /// reads them: look on the issue for a comment carrying the attempt's marker, then take
    /// the resolve choice with that comment, else the abandon choice, as the first actor its
    /// `by` names, every placeholder filled in.
    fn settle_request(&self, finding: &Value) -> Result<(), String> {
        let choices = finding["choices"].as_array().cloned().unwrap_or_default();
        let pick = |verb: &str| {
            choices.iter().find(|c| {
                c["command"]
                    .as_str()
                    .is_some_and(|cmd| cmd.starts_with(&format!("mosaic-queue review {verb} ")))
            })
        };
        let (Some(resolve), Some(abandon)) = (pick("resolve"), pick("abandon")) else {
            return Err(format!(
                "review-unresolved does not offer resolve and abandon: {finding}"
            ));
        };
        // `mosaic-queue review resolve ID ATTEMPT ...`: the attempt is the fifth word.
        let words: Vec<&str> = resolve["command"]
            .as_str()
            .unwrap_or_default()
            .split(' ')
            .collect();
        let op = words.get(4).copied().unwrap_or_default();
        let remote = self
            .remote
            .as_ref()
            .ok_or("review-unresolved in a scenario without Gitea")?;
        let marker = format!("<!-- mosaic-queue-op: {op} -->");
        let found = remote
            .fake
            .comments()
            .into_iter()
            .find(|c| c.body.contains(&marker));
        let (choice, n, new_op) = match &found {
            Some(c) => (resolve, c.id.to_string(), "person-resolve-0001"),
            None => (abandon, String::new(), "person-abandon-0001"),
        };
        let by = choice["by"][0].as_str().unwrap_or_default();
        let command = choice["command"].as_str().unwrap_or_default();
        let args: Vec<&str> = command
            .split(' ')
            .skip(1)
            .map(|w| match w {
                "N" => n.as_str(),
                "OP" => new_op,
                "ACTOR" => by,
                "TEXT" => "no comment on the issue after the crash",
                w => w,
            })
            .collect();
        let out = self.run(&args);
        if out.code != 0 {
            return Err(format!(
                "the person's `{command}` failed: exit {} {}",
                out.code,
                out.stderr.trim()
            ));
        }
        Ok(())
    }

    /// Asks doctor, and runs the command of its first finding that needs action.
    fn next_cure(&self) -> Result<Cure, String> {
        let (healthy, findings) = self.doctor()?;
        if healthy {
            return Ok(Cure::Healthy);
        }
        let next = findings
            .iter()
            .find(|f| f["action"] == true)
            .ok_or("doctor exit 2 without an actionable finding")?;
        let kind = next["kind"].as_str().unwrap_or_default();
        let Some(command) = next["command"].as_str() else {
            if self.person_kinds.contains(&kind) && kind == "review-unresolved" {
                self.settle_request(next)?;
                return Ok(Cure::Person);
            }
            return Err(format!("waits for a person: {}", next["detail"]));
        };
        self.cure(command)?;
        Ok(Cure::Ran)
    }

    /// doctor --json: exit 0 or 2, kinds it documents; (healthy, findings).
    fn doctor(&self) -> Result<(bool, Vec<Value>), String> {
        let out = self.run(&["doctor", "--json"]);
        if out.code != 0 && out.code != 2 {
            return Err(format!("doctor exit {}: {}", out.code, out.stderr.trim()));
        }
        let doc: Value = serde_json::from_str(&out.stdout)
            .map_err(|e| format!("doctor --json printed no document ({e}): {}", out.stdout))?;
        let findings = doc["findings"].as_array().cloned().unwrap_or_default();
        for f in &findings {
            let kind = f["kind"].as_str().unwrap_or_default();
            if !KINDS.contains(&kind) {
                return Err(format!("doctor named an undocumented kind {kind}"));
            }
        }
        let healthy = doc["healthy"] == true;
        if healthy != (out.code == 0) {
            return Err(format!(
                "doctor's healthy disagrees with its exit {}",
                out.code
            ));
        }
        Ok((healthy, findings))
    }

    /// Runs one command doctor named, with the scenario's placeholders filled in.
    fn cure(&self, command: &str) -> Result<(), String> {
        if let Some(path) = command.strip_prefix("rm ") {
            return std::fs::remove_file(self.repo.root.join(path))
                .map_err(|e| format!("`{command}`: {e}"));
        }
        let words = shell_words(command);
        let Some(("mosaic-queue", rest)) = words.split_first().map(|(a, b)| (a.as_str(), b)) else {
            return Err(format!(
                "doctor named a command the check cannot run: {command}"
            ));
        };
        let map = self.repo.map_path();
        let args: Vec<String> = rest
            .iter()
            .map(|w| match w.as_str() {
                "MAP" => map.to_str().unwrap().to_owned(),
                "OP" => self.op().unwrap_or("OP").to_owned(),
                w => w.to_owned(),
            })
            .collect();
        if args
            .iter()
            .any(|a| ["OP", "TEXT", "N"].contains(&a.as_str()))
        {
            return Err(format!(
                "doctor's command needs a person's input: {command}"
            ));
        }
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = self.run(&refs);
        if out.code != 0 {
            return Err(format!(
                "`{command}` did not cure it: exit {} {}",
                out.code,
                out.stderr.trim()
            ));
        }
        Ok(())
    }

    /// Whether the retry of `commit` refused because the run it retries had published: a
    /// commit that would change nothing is refused, and that refusal is the retry's answer
    /// when HEAD holds exactly the two files' bytes (checked here, not taken from the message).
    fn already_published(&self, retry: &Out) -> bool {
        if self.args.first().map(String::as_str) != Some("commit")
            || retry.code != 2
            || !retry
                .stderr
                .starts_with("mosaic-queue: nothing to commit: ")
        {
            return false;
        }
        ["docs/plans/queue.json", "docs/plans/QUEUE.md"]
            .iter()
            .all(|path| {
                self.repo.git(&["rev-parse", &format!("HEAD:{path}")])
                    == self.repo.git(&["hash-object", path])
            })
    }

    fn op(&self) -> Option<&str> {
        let i = self.args.iter().position(|a| a == "--op")?;
        self.args.get(i + 1).map(String::as_str)
    }

    /// Every receipt in `acked` is in the log exactly once, with that exact receipt.
    fn holds(&self, acked: &BTreeSet<String>) -> Result<(), String> {
        let text = std::fs::read_to_string(self.repo.path("docs/plans/queue.json"))
            .map_err(|e| format!("has no queue.json ({e})"))?;
        let queue: Value =
            serde_json::from_str(&text).map_err(|e| format!("has bad JSON ({e})"))?;
        let log = queue["log"].as_array().cloned().unwrap_or_default();
        for receipt in acked {
            let op = receipt.split(' ').nth(1).unwrap_or_default();
            let entries: Vec<&Value> = log.iter().filter(|e| e["op"] == op).collect();
            match entries.as_slice() {
                [one] if one["receipt"] == receipt.as_str() => {}
                [one] => {
                    return Err(format!(
                        "holds op {op} with receipt {} instead of the printed {receipt}",
                        one["receipt"]
                    ));
                }
                other => {
                    return Err(format!("holds acknowledged op {op} {} times", other.len()));
                }
            }
        }
        Ok(())
    }
}

/// The receipts in a queue.json's log (none when it is absent or does not parse).
fn receipts_of(queue: &Option<Vec<u8>>) -> Vec<String> {
    let Some(v) = queue
        .as_deref()
        .and_then(|b| serde_json::from_slice::<Value>(b).ok())
    else {
        return Vec::new();
    };
    v["log"]
        .as_array()
        .map(|log| {
            log.iter()
                .filter_map(|e| e["receipt"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn one_line_or_ok(out: &Out, what: &str) -> Result<(), String> {
    if out.signal.is_some() || out.stderr.contains("panicked") {
        return Err(format!("{what} crashed: {}", out.stderr));
    }
    if out.code == 0 {
        return Ok(());
    }
    let lines = out
        .stderr
        .lines()
        .filter(|l| !l.starts_with("warning: "))
        .count();
    if lines != 1 || !out.stderr.ends_with('\n') {
        return Err(format!(
            "{what} exit {} without one stderr line: {:?}",
            out.code, out.stderr
        ));
    }
    if ![1, 2, 3].contains(&out.code) {
        return Err(format!("{what} exit {}: {}", out.code, out.stderr.trim()));
    }
    Ok(())
}

/// Splits a command doctor printed: words, with '...' quoting.
fn shell_words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut any = false;
    for ch in command.chars() {
        match ch {
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            ' ' if !quoted => {
                if any {
                    words.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            c => {
                word.push(c);
                any = true;
            }
        }
    }
    if any {
        words.push(word);
    }
    words
}

/// Replaces `root` with a copy of `from` (cp -a: modes, links and all of .git).
pub fn reset(from: &Path, root: &Path) {
    let _ = std::fs::remove_dir_all(root);
    let ok = std::process::Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(root)
        .status()
        .unwrap()
        .success();
    assert!(ok, "cp -a {} {}", from.display(), root.display());
}
