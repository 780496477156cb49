//! Judging one state a crash or a fault left, in memory: play what a person runs next (a
//! read, `verify`, `doctor`, the retry of the same op, and each command doctor names until it
//! is healthy) and hold the state to the properties of docs/durability.md. A state that breaks
//! one is unsafe, with the reason. The files are read back as JSON, apart from the core.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use super::gitea::{Comment, Gitea};
use super::scenarios::{Run, Scenario, cmd, resolve_as_the_cli};
use crate::doctor::{Finding, Kind};
use crate::in_memory::{Checkout, Failed, Ran};
use crate::io::crash::{Posted, State};

/// How one state ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Healthy, or healed by the retry and the commands doctor named (how many commands).
    Healed(usize),
    /// Healed after a person's decision the contract leaves to a person (a review request
    /// looked up on its issue), and the commands doctor named (how many in all); with why the
    /// state was the person's: the request attempt the files left unresolved.
    Person(usize, String),
    Unsafe(String),
}

/// What one look at doctor led to.
enum Cure {
    Healthy,
    Ran,
    Person,
}

/// A scenario's states, judged against what held before its recorded run.
pub struct Judge<'a> {
    pub scenario: &'a Scenario,
    /// Receipts durable before the run: they must survive every state.
    pub before: BTreeSet<String>,
    /// Whether the commands after run on a new boot (a power loss) or the same (a fault).
    pub reboot: bool,
    /// The comments on Gitea before and after the recorded run.
    pub comments: (Vec<Comment>, Vec<Comment>),
}

/// One command's answer as the CLI would end it: done, or one line with exit 1, 2 or 3.
fn one_line_or_ok(ran: &Ran, what: &str) -> Result<(), String> {
    match ran {
        Ok(_) => Ok(()),
        Err(Failed { message, .. }) if message.contains('\n') || message.is_empty() => {
            Err(format!("{what} failed without one line: {message:?}"))
        }
        Err(_) => Ok(()),
    }
}

fn message(ran: &Ran) -> String {
    ran.as_ref()
        .err()
        .map(|f| f.message.clone())
        .unwrap_or_default()
}

impl Judge<'_> {
    /// Puts `state` on a copy of the checkout before the run and judges it.
    pub fn check(&self, state: &State) -> Verdict {
        let work = self.scenario.checkout.clone();
        for (path, bytes) in &state.files {
            match bytes {
                Some(b) => work.disk.put(path, b),
                None => work.disk.remove(path),
            }
        }
        let gitea = Gitea::default();
        gitea.set_comments(match state.posted {
            Posted::No => self.comments.0.clone(),
            Posted::Yes => self.comments.1.clone(),
        });
        self.recover(&work, &gitea, &state.acked)
    }

    /// Judges `work` as it is: `acked` are the receipts the stopped run printed.
    pub fn recover(&self, work: &Checkout, gitea: &Gitea, acked: &BTreeSet<String>) -> Verdict {
        if self.reboot {
            work.reboot();
        }
        // Read before any command runs: the person's reason, from the files alone.
        let uncertain = unresolved_attempt(work);
        let look = Look {
            judge: self,
            work,
            gitea,
        };
        // A panic in a command is a state the contract does not allow, counted as unsafe.
        let judged = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| look.judge(acked)))
            .unwrap_or_else(|panic| Err(format!("panicked: {}", panic_text(&panic))));
        match (judged, uncertain) {
            (Ok((steps, false)), _) => Verdict::Healed(steps),
            (Ok((steps, true)), Some(why)) => Verdict::Person(steps, why),
            (Ok((_, true)), None) => Verdict::Unsafe(
                "a person was needed, but the files hold no review request attempt left unresolved"
                    .to_owned(),
            ),
            (Err(why), _) => Verdict::Unsafe(why),
        }
    }
}

/// What a panic carried, as text.
pub fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "a panic without a message".to_owned())
}

/// The one thing the contract leaves to a person, read from queue.json as JSON (apart from the
/// core and doctor): a review request attempt whose outcome is not logged (`requesting`,
/// `uncertain` or `conflict`), since whether its comment was posted is not knowable from the
/// disk. `None` when queue.json holds none (or cannot be read: then nothing is the person's).
fn unresolved_attempt(work: &Checkout) -> Option<String> {
    let bytes = work.disk.get(&work.paths.queue_json)?;
    let queue: Value = serde_json::from_slice(&bytes).ok()?;
    for row in queue["rows"].as_array()? {
        let rounds = row["review"]["rounds"].as_array();
        for attempt in rounds
            .into_iter()
            .flatten()
            .flat_map(|r| r["attempts"].as_array())
            .flatten()
        {
            let state = attempt["state"].as_str().unwrap_or_default();
            if ["requesting", "uncertain", "conflict"].contains(&state) {
                return Some(format!(
                    "row {} request attempt {} is {state}",
                    row["id"], attempt["op"]
                ));
            }
        }
    }
    None
}

/// One state under judgement.
struct Look<'a> {
    judge: &'a Judge<'a>,
    work: &'a Checkout,
    gitea: &'a Gitea,
}

impl Look<'_> {
    fn run(&self) -> &Run {
        &self.judge.scenario.run
    }

    fn retry(&self) -> Result<Ran, String> {
        let ran = self.run().exec(&self.work.process(None), self.gitea);
        one_line_or_ok(&ran, "the retry")?;
        // A commit retried after the run it repeats had published: its "nothing to commit" is
        // the answer when HEAD holds exactly the two files' bytes.
        if matches!(self.run(), Run::Commit)
            && message(&ran).starts_with("nothing to commit")
            && self.work.repo.published() == Some((self.file("queue"), self.file("md")))
        {
            return Ok(Ok(Vec::new()));
        }
        Ok(ran)
    }

    fn file(&self, which: &str) -> Vec<u8> {
        let paths = &self.work.paths;
        let path = if which == "queue" {
            &paths.queue_json
        } else {
            &paths.queue_md
        };
        self.work.disk.get(path).unwrap_or_default()
    }

    /// The commands it took to heal the state, and whether a person's decision was one.
    fn judge(&self, acked: &BTreeSet<String>) -> Result<(usize, bool), String> {
        let acked: BTreeSet<String> = acked.union(&self.judge.before).cloned().collect();
        one_line_or_ok(&self.work.process(None).list(), "list")?;
        let verify = self.work.process(None).verify(false);
        one_line_or_ok(&verify, "verify")?;
        if verify.is_ok() {
            self.holds(&acked)
                .map_err(|e| format!("verify accepted a state that {e}"))?;
        }
        let (healthy, findings) = self.doctor()?;
        self.recognized(&findings)?;
        let files = self.queue_files();
        let mut retry = self.retry()?;
        if retry.is_err() && healthy {
            return Err(format!(
                "the retry refused ({}) where doctor saw nothing to do",
                message(&retry)
            ));
        }
        // A state doctor calls healthy needs nothing: a retry whose op is already in the log
        // (or a verb with no op) only answers.
        let in_log = self.run().op().is_none_or(|op| {
            receipts_of(files[0].as_deref())
                .iter()
                .any(|r| r.split(' ').nth(1) == Some(op))
        });
        if healthy && in_log && self.queue_files() != files {
            return Err("doctor saw nothing to do, but the retry changed the queue's files".into());
        }
        let (steps, person) = self.cure_until_answered(&mut retry)?;
        let (steps, person) = self.cure_until_healthy(steps, person)?;
        let current = self.work.process(None).verify(true);
        if current.is_err() {
            return Err(format!(
                "verify --current after the cure: {}",
                message(&current)
            ));
        }
        // Every receipt printed before the crash is in the log exactly once.
        self.holds(&acked)?;
        self.posted_once()?;
        Ok((steps, person))
    }

    /// While the retry refuses: doctor names a command, the command runs, and the op is
    /// retried again. Once a person has settled a review request, its retry answers what the
    /// log holds (an abandoned attempt fails by the contract), so it is not run again.
    fn cure_until_answered(&self, retry: &mut Ran) -> Result<(usize, bool), String> {
        let (mut steps, mut person) = (0, false);
        while retry.is_err() && !person {
            match self.next_cure()? {
                Cure::Healthy => {
                    return Err(format!(
                        "the retry refuses ({}) where doctor sees nothing to do",
                        message(retry)
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
                *retry = self.retry()?;
            }
        }
        Ok((steps, person))
    }

    /// Whatever the retry leaves (a genesis still to commit), doctor names and cures.
    fn cure_until_healthy(
        &self,
        mut steps: usize,
        mut person: bool,
    ) -> Result<(usize, bool), String> {
        loop {
            match self.next_cure()? {
                Cure::Healthy => return Ok((steps, person)),
                Cure::Person => person = true,
                Cure::Ran => {}
            }
            steps += 1;
            if steps > 4 {
                return Err("not healthy after 4 commands doctor named".to_owned());
            }
        }
    }

    /// queue.json, QUEUE.md and the witness as they are now.
    fn queue_files(&self) -> Vec<Option<Vec<u8>>> {
        let p = &self.work.paths;
        [&p.queue_json, &p.queue_md, &p.witness]
            .iter()
            .map(|path| self.work.disk.get(path))
            .collect()
    }

    fn doctor(&self) -> Result<(bool, Vec<Finding>), String> {
        let report = self
            .work
            .process(None)
            .doctor()
            .map_err(|f| format!("doctor failed: {}", f.message))?;
        if report.healthy == report.findings.iter().any(|f| f.action) {
            return Err("doctor's healthy disagrees with its findings".to_owned());
        }
        Ok((report.healthy, report.findings))
    }

    /// Asks doctor, and runs the command of its first finding that needs action.
    fn next_cure(&self) -> Result<Cure, String> {
        let (healthy, findings) = self.doctor()?;
        if healthy {
            return Ok(Cure::Healthy);
        }
        let next = findings
            .iter()
            .find(|f| f.action)
            .ok_or("doctor unhealthy without an actionable finding")?;
        let Some(command) = &next.command else {
            if self.judge.scenario.person && next.kind == Kind::ReviewUnresolved {
                self.settle_request(next)?;
                return Ok(Cure::Person);
            }
            return Err(format!("waits for a person: {}", next.detail));
        };
        self.cure(command)?;
        Ok(Cure::Ran)
    }

    /// Runs one command doctor named, with the scenario's placeholders filled in.
    fn cure(&self, command: &str) -> Result<(), String> {
        if let Some(path) = command.strip_prefix("rm ") {
            let path = self.work.paths.root.join(path);
            if self.work.disk.get(&path).is_none() {
                return Err(format!("`{command}`: no such file"));
            }
            self.work.disk.remove(&path);
            return Ok(());
        }
        let words = shell_words(command);
        let op = self.run().op().unwrap_or("OP");
        let args: Vec<&str> = words
            .iter()
            .skip(1)
            .map(|w| if w == "OP" { op } else { w.as_str() })
            .collect();
        if words.first().map(String::as_str) != Some("mosaic-queue")
            || args.iter().any(|a| ["OP", "TEXT", "N"].contains(a))
        {
            return Err(format!(
                "doctor named a command the check cannot run: {command}"
            ));
        }
        let p = self.work.process(None);
        let ran = match args.as_slice() {
            ["unlock"] => p.unlock(),
            ["sync"] => p.sync(None),
            ["sync", "--op", op] => p.sync(Some(op)),
            ["render"] => p.render(),
            ["genesis", "--map", "MAP", "--op", op, "--by", by] => p.genesis(op, by),
            ["commit", "--genesis", "-m", _, "--by", _] => p.commit(true),
            _ => {
                return Err(format!(
                    "doctor named a command the check cannot run: {command}"
                ));
            }
        };
        ran.map(drop)
            .map_err(|f| format!("`{command}` did not cure it: {}", f.message))
    }

    /// What a person does for `review-unresolved`, from the finding's choices as an agent
    /// reads them: look on the issue for a comment carrying the attempt's marker, then take
    /// the resolve choice with that comment, else the abandon choice, as the first actor its
    /// `by` names.
    fn settle_request(&self, finding: &Finding) -> Result<(), String> {
        let pick = |verb: &str| {
            let prefix = format!("mosaic-queue review {verb} ");
            finding
                .choices
                .iter()
                .find(|c| c.command.starts_with(&prefix))
        };
        let (Some(resolve), Some(abandon)) = (pick("resolve"), pick("abandon")) else {
            return Err(format!(
                "review-unresolved does not offer resolve and abandon: {finding:?}"
            ));
        };
        // `mosaic-queue review resolve ID ATTEMPT ...`: the row and attempt are words 4 and 5.
        let words: Vec<&str> = resolve.command.split(' ').collect();
        let id: u64 = words
            .get(3)
            .and_then(|w| w.parse().ok())
            .ok_or("no row id")?;
        let attempt = words.get(4).copied().unwrap_or_default();
        let (command, op, by) = match self.gitea.find(attempt) {
            Some(n) => (
                serde_json::json!({"verb": "review-resolve", "id": id, "attempt": attempt, "comment": n}),
                "person-resolve-0001",
                &resolve.by[0],
            ),
            None => (
                serde_json::json!({"verb": "review-abandon", "id": id, "attempt": attempt,
                    "reason": "no comment on the issue after the crash", "yes": true}),
                "person-abandon-0001",
                &abandon.by[0],
            ),
        };
        let p = self.work.process(None);
        let ran = if op == "person-resolve-0001" {
            resolve_as_the_cli(&p, &cmd(command), op, by)
        } else {
            p.change(&cmd(command), op, by)
        };
        ran.map(drop)
            .map_err(|f| format!("the person's {op} failed: {}", f.message))
    }

    /// From the files alone, apart from doctor's code: the findings the state calls for (a
    /// lock or gate left, no queue, a witness missing or behind, leftover temp files). Doctor
    /// must name one kind of each, and nothing else but the findings the files alone cannot
    /// tell (a stale table, an op never acknowledged, genesis not committed, a request to
    /// settle).
    fn recognized(&self, findings: &[Finding]) -> Result<(), String> {
        let named: BTreeSet<&str> = findings.iter().map(|f| f.kind.as_str()).collect();
        let wanted = self.called_for();
        support::findings::recognized(&wanted, &named)
    }

    /// What the files call for, each with the kinds that name it.
    fn called_for(&self) -> Vec<(&'static str, &'static [&'static str])> {
        let (disk, p) = (&self.work.disk, &self.work.paths);
        let mut wanted: Vec<(&str, &[&str])> = Vec::new();
        if disk.get(&p.lock).is_some() {
            wanted.push(("a lock left", &["lock-dead", "lock-mismatch"]));
        }
        if disk.get(&p.gate).is_some() {
            wanted.push(("an unlock gate left", &["gate-dead", "gate-mismatch"]));
        }
        let revision = |path: &Path| -> Option<Result<u64, ()>> {
            let bytes = disk.get(path)?;
            Some(
                serde_json::from_slice::<Value>(&bytes)
                    .ok()
                    .and_then(|v| v["revision"].as_u64())
                    .ok_or(()),
            )
        };
        match (revision(&p.queue_json), revision(&p.witness)) {
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
        let temp = |n: &String, prefixes: &[&str]| {
            n.ends_with(".tmp") && prefixes.iter().any(|pre| n.starts_with(pre))
        };
        let git = disk.names(&p.git_dir);
        let writers = disk
            .names(&p.plans)
            .iter()
            .any(|n| temp(n, &[".queue.json.", ".QUEUE.md."]))
            || git
                .iter()
                .any(|n| temp(n, &[".mosaic-queue.head.", ".mosaic-queue.view."]));
        let archive_temp = disk
            .names(&p.archive)
            .iter()
            .any(|n| n.starts_with(".epoch-") && n.ends_with(".tmp"));
        if writers || archive_temp {
            wanted.push(("a writer's temp file", &["temp-files"]));
        }
        // An archive on disk that queue.json's epoch does not name: a cut stopped before its
        // queue file was written.
        let named = disk
            .get(&p.queue_json)
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
            .map(|q| q["log"][0]["args"]["archives"].to_string())
            .unwrap_or_default();
        if disk
            .names(&p.archive)
            .iter()
            .any(|n| n.starts_with("epoch-") && !named.contains(&format!("archive/{n}")))
        {
            wanted.push(("an archive no epoch names", &["archive-unnamed"]));
        }
        if git
            .iter()
            .any(|n| temp(n, &["mosaic-queue.lock.", "mosaic-queue.unlock."]))
        {
            wanted.push(("a lock's temp file", &["lock-temp-files"]));
        }
        wanted
    }

    /// A review request's comment is on Gitea at most once: no retry or cure posted again.
    fn posted_once(&self) -> Result<(), String> {
        let Some(op) = self.run().op() else {
            return Ok(());
        };
        let marker = format!("<!-- mosaic-queue-op: {op} -->");
        let n = self
            .gitea
            .comments()
            .iter()
            .filter(|c| c.body.contains(&marker))
            .count();
        if n > 1 {
            return Err(format!("the request {op} was posted {n} times"));
        }
        Ok(())
    }

    /// Every receipt in `acked` is in the log exactly once, with that exact receipt.
    fn holds(&self, acked: &BTreeSet<String>) -> Result<(), String> {
        let bytes = self
            .work
            .disk
            .get(&self.work.paths.queue_json)
            .ok_or("has no queue.json")?;
        let queue: Value =
            serde_json::from_slice(&bytes).map_err(|e| format!("has bad JSON ({e})"))?;
        let mut log = self.archived_log(&queue)?;
        log.extend(queue["log"].as_array().cloned().unwrap_or_default());
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
                other => return Err(format!("holds acknowledged op {op} {} times", other.len())),
            }
        }
        Ok(())
    }
}

impl Look<'_> {
    /// The entries of the archives `queue`'s epoch names, read back as JSON (none before a
    /// cut). Each entry is in one file: an archive after the first opens with the epoch entry
    /// before it, which queue.json no longer holds.
    fn archived_log(&self, queue: &Value) -> Result<Vec<Value>, String> {
        let first = &queue["log"][0];
        if first["verb"] != "epoch" {
            return Ok(Vec::new());
        }
        let mut log = Vec::new();
        for archive in first["args"]["archives"]
            .as_array()
            .cloned()
            .unwrap_or_default()
        {
            let file = archive["file"].as_str().unwrap_or_default();
            let bytes = self
                .work
                .disk
                .get(&self.work.paths.root.join(file))
                .ok_or_else(|| format!("lost the archive {file} its epoch names"))?;
            let v: Value = serde_json::from_slice(&bytes)
                .map_err(|e| format!("has an archive {file} of bad JSON ({e})"))?;
            log.extend(v["log"].as_array().cloned().unwrap_or_default());
        }
        Ok(log)
    }
}

/// The receipts in a queue.json's log (none when it is absent or does not parse).
pub fn receipts_of(queue: Option<&[u8]>) -> Vec<String> {
    let Some(v) = queue.and_then(|b| serde_json::from_slice::<Value>(b).ok()) else {
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

/// Splits a command doctor printed: words, with '...' quoting.
fn shell_words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let (mut quoted, mut any) = (false, false);
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

/// The judge finds what it exists to find: an acknowledged op the state lost, and history a
/// witness vouches for that the file no longer holds.
#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::store::tests::{power, scenarios};

    fn judge(s: &Scenario) -> Judge<'_> {
        Judge {
            scenario: s,
            before: power::receipts(s),
            reboot: true,
            comments: (Vec::new(), Vec::new()),
        }
    }

    #[test]
    fn a_state_that_lost_an_acknowledged_op_is_unsafe() {
        let s = scenarios::note();
        // Nothing the run wrote survived, but its receipt had printed.
        let state = State {
            files: BTreeMap::new(),
            acked: ["ok darkwing-1-note rev 2 note 1".to_owned()].into(),
            posted: Posted::No,
        };
        assert_eq!(
            judge(&s).check(&state),
            Verdict::Unsafe(
                "verify accepted a state that holds acknowledged op darkwing-1-note 0 times"
                    .to_owned()
            )
        );
        // The same state with nothing acknowledged is healed by the retry.
        let state = State {
            acked: BTreeSet::new(),
            ..state
        };
        assert_eq!(judge(&s).check(&state), Verdict::Healed(0));
    }

    #[test]
    fn a_witness_for_bytes_the_file_lost_waits_for_a_person_and_is_unsafe() {
        let s = scenarios::note();
        let ran = s.checkout.clone();
        s.run.exec(&ran.process(None), &Gitea::default()).unwrap();
        let witness = ran.disk.get(&ran.paths.witness);
        let state = State {
            files: BTreeMap::from([(s.checkout.paths.witness.clone(), witness)]),
            acked: BTreeSet::new(),
            posted: Posted::No,
        };
        let Verdict::Unsafe(why) = judge(&s).check(&state) else {
            panic!("a lost revision was not unsafe");
        };
        assert!(
            why.starts_with("waits for a person: history was rolled back"),
            "{why}"
        );
    }
}
