//! The replicated ref as an enemy writes it, and remotes that misbehave: a ref rewound or
//! force-pushed, commits whose tree, archive or message lie, a blob whose header says 1 GiB, a
//! remote that hangs or refuses pushes, two standbys adopting at once. Each refusal is its exact
//! exit code and one stderr line, with the checkout's files as they were.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use support::replica::{
    Follower, LIVE, Remote, adopt_lines, adopt_within, required_noted, standby,
};
use support::{Repo, Snapshot, git, run_within};

const WAIT: Duration = Duration::from_secs(60);

/// A host under `required` with one more note pushed (rev 3) and its branch committed there,
/// its follower stopped; and a standby cloned from it.
fn pushed(name: &str, remote: &Remote) -> (Repo, Repo) {
    let (host, follower) = required_noted(name, remote);
    follower.kill();
    host.commit("the queue at rev 3");
    let standby = standby(&host, remote);
    (host, standby)
}

/// Runs adopt in `standby`; asserts exit `code`, the one line, and the files as they were.
#[track_caller]
fn adopt_refused(standby: &Repo, remote: &Remote, code: i32, line: &str) {
    let before: Snapshot = standby.snapshot();
    let out = adopt_within(standby, remote, &[], WAIT);
    assert_eq!(out.fails(code), format!("mosaic-queue: {line}"));
    standby.assert_unchanged(&before);
}

/// The follower started in `host`; asserts exit `code`, the one line, the files as they were.
#[track_caller]
fn follow_refused(host: &Repo, remote: &Remote, extra: &[&str], code: i32, line: &str) {
    let before = host.snapshot();
    let mut args = vec!["follow", "--to", &remote.url];
    args.extend(extra);
    let out = run_within(&host.root, &args, &[], WAIT);
    assert_eq!(out.fails(code), format!("mosaic-queue: {line}"));
    host.assert_unchanged(&before);
}

fn short(commit: &str) -> &str {
    &commit[..12]
}

/// A git command run in the forge's scratch index, answering its stdout.
type Git<'a> = dyn Fn(&[&str]) -> String + 'a;

/// A commit in the bare repository on `parent` (none: a root commit) whose tree is `parent`'s
/// (or `tree`'s) changed by `edit` in a scratch index, with `message`; the ref set to it.
fn forge(
    remote: &Remote,
    from: &str,
    parent: Option<&str>,
    message: &str,
    edit: &dyn Fn(&Path, &Git),
) -> String {
    let index = remote.bare.join("forge.index");
    let _ = std::fs::remove_file(&index);
    // An empty work tree: `update-index --force-remove` asks for one and reads nothing of it.
    let work = remote.bare.join("forge-work");
    std::fs::create_dir_all(&work).unwrap();
    let run = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(&remote.bare)
            .env("GIT_INDEX_FILE", &index)
            .env("GIT_WORK_TREE", &work)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    };
    run(&["read-tree", from]);
    edit(&remote.bare, &run);
    let tree = run(&["write-tree"]);
    let mut args = vec!["commit-tree", &tree, "-m", message];
    if let Some(p) = parent {
        args.extend(["-p", p]);
    }
    let commit = run(&args);
    remote.git(&["update-ref", LIVE, &commit]);
    commit
}

/// A blob of `text` in the bare repository.
fn blob(remote: &Remote, text: &[u8]) -> String {
    let path = remote.bare.join("forge.blob");
    std::fs::write(&path, text).unwrap();
    remote.git(&["hash-object", "-w", path.to_str().unwrap()])
}

/// The message of a commit, with `field`'s value replaced by `value`.
fn message_with(remote: &Remote, commit: &str, field: &str, value: &str) -> String {
    let body = remote.git(&["log", "-1", "--format=%B", commit]);
    body.lines()
        .map(|l| match l.split_once(": ") {
            Some((k, _)) if k == field => format!("{k}: {value}"),
            _ => l.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

#[test]
fn a_rewound_ref_stops_the_follower_and_adopt_refuses_it() {
    let remote = Remote::path("hostile-rewound");
    let (host, standby) = pushed("hostile-rewound", &remote);
    let head = remote.head(LIVE).unwrap();
    let rev2 = remote.git(&["rev-parse", &format!("{head}^")]);
    remote.git(&["update-ref", LIVE, &rev2]);
    follow_refused(
        &host,
        &remote,
        &[],
        2,
        &format!(
            "{} {LIVE} was rewound or force-pushed: it no longer holds commit {} (rev 3) that this follower pushed; find out who moved it before pushing again (docs/replication.md)",
            remote.url,
            short(&head)
        ),
    );
    adopt_refused(
        &standby,
        &remote,
        2,
        "the ref's queue does not extend the one this branch holds (rev 3): it is another queue, or the ref is behind the branch; adopt would lose revisions, so nothing was changed",
    );
}

#[test]
fn a_force_pushed_ref_stops_the_follower_and_adopt_refuses_it() {
    let remote = Remote::path("hostile-forced");
    let (host, standby) = pushed("hostile-forced", &remote);
    let head = remote.head(LIVE).unwrap();
    // Someone's own commit on rev 2, in place of the follower's rev 3.
    let rev2 = remote.git(&["rev-parse", &format!("{head}^")]);
    let forced = forge(
        &remote,
        &rev2,
        Some(&rev2),
        "fix the queue by hand",
        &|_, _| {},
    );
    follow_refused(
        &host,
        &remote,
        &[],
        2,
        &format!(
            "{} {LIVE} was rewound or force-pushed: it no longer holds commit {} (rev 3) that this follower pushed; find out who moved it before pushing again (docs/replication.md)",
            remote.url,
            short(&head)
        ),
    );
    adopt_refused(
        &standby,
        &remote,
        2,
        &format!(
            "the ref cannot be adopted: commit {}'s message is not a replicated commit's: its title is \"fix the queue by hand\", not `mosaic-queue rev N`; nothing was changed here",
            short(&forced)
        ),
    );
}

#[test]
fn a_tree_with_an_extra_or_a_missing_file_is_refused() {
    let remote = Remote::path("hostile-tree");
    let (_host, standby) = pushed("hostile-tree", &remote);
    let head = remote.head(LIVE).unwrap();
    let message = remote.git(&["log", "-1", "--format=%B", &head]) + "\n";
    let extra = blob(&remote, b"not the queue's\n");
    let forged = forge(&remote, &head, None, &message, &|_, run| {
        run(&[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("100644,{extra},docs/plans/notes.txt"),
        ]);
    });
    adopt_refused(
        &standby,
        &remote,
        2,
        &format!(
            "the ref cannot be adopted: commit {}: it holds docs/plans/notes.txt, which is none of the queue's files; nothing was changed here",
            short(&forged)
        ),
    );
    let forged = forge(&remote, &head, None, &message, &|_, run| {
        run(&["update-index", "--force-remove", "docs/plans/QUEUE.md"]);
    });
    adopt_refused(
        &standby,
        &remote,
        2,
        &format!(
            "the ref cannot be adopted: commit {}: it holds no docs/plans/QUEUE.md; nothing was changed here",
            short(&forged)
        ),
    );
}

#[test]
fn a_tampered_queue_json_is_refused() {
    let remote = Remote::path("hostile-tampered");
    let (host, standby) = pushed("hostile-tampered", &remote);
    let head = remote.head(LIVE).unwrap();
    let message = remote.git(&["log", "-1", "--format=%B", &head]) + "\n";
    // The note's text changed after the fact: the chain no longer holds.
    let text = host
        .read("docs/plans/queue.json")
        .replace("\"pushed\"", "\"pushes\"");
    assert_ne!(text, host.read("docs/plans/queue.json"));
    let tampered = blob(&remote, text.as_bytes());
    let forged = forge(&remote, &head, Some(&head), &message, &|_, run| {
        run(&[
            "update-index",
            "--cacheinfo",
            &format!("100644,{tampered},docs/plans/queue.json"),
        ]);
    });
    // The file verifies on its own (the text changed in the log and the row alike), but it is
    // not the file the message names.
    adopt_refused(
        &standby,
        &remote,
        2,
        &format!(
            "the ref cannot be adopted: commit {}'s message does not tell the truth about its queue.json (rev 3, root {}); the ref was written by hand; nothing was changed here",
            short(&forged),
            host.root.display()
        ),
    );
    // Bytes that are not the canonical form do not verify at all.
    let mut bytes = host.read("docs/plans/queue.json").into_bytes();
    bytes.insert(1, b' ');
    let tampered = blob(&remote, &bytes);
    let forged = forge(&remote, &head, Some(&head), &message, &|_, run| {
        run(&[
            "update-index",
            "--cacheinfo",
            &format!("100644,{tampered},docs/plans/queue.json"),
        ]);
    });
    let before = standby.snapshot();
    let out = adopt_within(&standby, &remote, &[], WAIT);
    let line = out.fails(2);
    let start = format!(
        "mosaic-queue: the ref cannot be adopted: commit {}: its docs/plans/queue.json does not verify: ",
        short(&forged)
    );
    assert!(
        line.starts_with(&start) && line.ends_with("; nothing was changed here"),
        "{line}"
    );
    standby.assert_unchanged(&before);
}

#[test]
fn a_tampered_archive_is_refused() {
    let remote = Remote::path("hostile-archive");
    let (host, follower) = required_noted("hostile-archive", &remote);
    let out = host.run(
        &[
            "archive",
            "--before",
            "3",
            "--yes",
            "--op",
            "lead-archive-1",
            "--by",
            "lead",
        ],
        &[],
    );
    assert_eq!(
        out.ok(),
        "ok lead-archive-1 rev 4 archived 2 entries and 0 done rows to docs/plans/archive/epoch-0001.json\n"
    );
    follower.kill();
    host.commit("the queue at rev 4, cut");
    let standby = standby(&host, &remote);
    let head = remote.head(LIVE).unwrap();
    assert_eq!(remote.revision_of(&head), 4);
    let archive = "docs/plans/archive/epoch-0001.json";
    let listed = remote.git(&["ls-tree", "-r", "--name-only", &head]);
    assert!(listed.lines().any(|l| l == archive), "{listed}");

    // One byte more in the archive, the message unchanged: its SHA-256 is not the epoch's.
    let mut bytes = host.read_bytes(archive);
    bytes.push(b' ');
    let tampered = blob(&remote, &bytes);
    let message = remote.git(&["log", "-1", "--format=%B", &head]) + "\n";
    let forged = forge(&remote, &head, Some(&head), &message, &|_, run| {
        run(&[
            "update-index",
            "--cacheinfo",
            &format!("100644,{tampered},{archive}"),
        ]);
    });
    adopt_refused(
        &standby,
        &remote,
        2,
        &format!(
            "the ref cannot be adopted: commit {}: its {archive} does not hold the bytes its epoch names; nothing was changed here",
            short(&forged)
        ),
    );
}

#[test]
fn a_message_that_lies_about_the_log_digest_or_the_witness_is_refused() {
    let remote = Remote::path("hostile-message");
    let (_host, standby) = pushed("hostile-message", &remote);
    let head = remote.head(LIVE).unwrap();
    let root = standby.git(&["config", "--get", "remote.origin.url"]);
    for (field, value) in [
        ("log-digest", "e".repeat(64)),
        ("file-sha", "f".repeat(64)),
        ("revision", "2".to_owned()),
    ] {
        let message = message_with(&remote, &head, field, &value);
        let forged = forge(&remote, &head, None, &message, &|_, _| {});
        let line = if field == "revision" {
            format!(
                "the ref cannot be adopted: commit {}'s message is not a replicated commit's: its title names rev 3, its body 2; nothing was changed here",
                short(&forged)
            )
        } else {
            format!(
                "the ref cannot be adopted: commit {}'s message does not tell the truth about its queue.json (rev 3, root {root}); the ref was written by hand; nothing was changed here",
                short(&forged)
            )
        };
        adopt_refused(&standby, &remote, 2, &line);
    }
}

/// A loose object whose header says `size` bytes of blob but which holds a few: measured,
/// never read whole (reading it would fail on the short content). zlib with one stored block.
fn loose_blob_claiming(size: u64) -> (String, Vec<u8>) {
    let mut raw = format!("blob {size}\0").into_bytes();
    raw.extend_from_slice(b"{\"not\": \"all\"}\n");
    let mut z = vec![0x78, 0x01, 0x01];
    let len = raw.len() as u16;
    z.extend_from_slice(&len.to_le_bytes());
    z.extend_from_slice(&(!len).to_le_bytes());
    z.extend_from_slice(&raw);
    let (mut a, mut b) = (1u32, 0u32);
    for byte in &raw {
        a = (a + u32::from(*byte)) % 65521;
        b = (b + a) % 65521;
    }
    z.extend_from_slice(&((b << 16) | a).to_be_bytes());
    // Any name will do: the object is found by it, not checked against it.
    ("1".repeat(40), z)
}

#[test]
fn a_one_gib_blob_in_the_tree_is_refused_from_its_header() {
    let remote = Remote::path("hostile-huge");
    let (_host, standby) = pushed("hostile-huge", &remote);
    let head = remote.head(LIVE).unwrap();
    let message = remote.git(&["log", "-1", "--format=%B", &head]) + "\n";
    let (id, bytes) = loose_blob_claiming(1 << 30);
    for objects in [remote.bare.join("objects"), standby.path(".git/objects")] {
        std::fs::create_dir_all(objects.join(&id[..2])).unwrap();
        std::fs::write(objects.join(&id[..2]).join(&id[2..]), &bytes).unwrap();
    }
    assert_eq!(remote.git(&["cat-file", "-s", &id]), "1073741824");
    let forged = forge(&remote, &head, None, &message, &|_, run| {
        run(&[
            "update-index",
            "--cacheinfo",
            &format!("100644,{id},docs/plans/queue.json"),
        ]);
    });
    // The forged commit and its trees are in the standby already (every loose object of the
    // remote copied), so adopt fetches nothing (the remote could not pack the short object)
    // and goes straight to measuring it.
    for dir in std::fs::read_dir(remote.bare.join("objects")).unwrap() {
        let dir = dir.unwrap();
        let name = dir.file_name().to_string_lossy().into_owned();
        if name.len() != 2 {
            continue;
        }
        let to = standby.path(".git/objects").join(&name);
        std::fs::create_dir_all(&to).unwrap();
        for file in std::fs::read_dir(dir.path()).unwrap() {
            let file = file.unwrap();
            std::fs::copy(file.path(), to.join(file.file_name())).unwrap();
        }
    }
    adopt_refused(
        &standby,
        &remote,
        2,
        &format!(
            "the ref cannot be adopted: commit {}: docs/plans/queue.json is 1073741824 bytes, over its 256 MiB cap; nothing was changed here",
            short(&forged)
        ),
    );
}

/// An executable at `path` running `script` (sh).
fn script(path: &Path, script: &str) {
    std::fs::write(path, format!("#!/bin/sh\n{script}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn a_remote_that_hangs_is_bounded_by_the_git_timeout() {
    let remote = Remote::ssh("hostile-hang");
    let (host, standby) = pushed("hostile-hang", &remote);
    // The host's ssh connects to nothing that answers.
    let hang = host.base.join("hang.sh");
    script(&hang, "exec sleep 120");
    for repo in [&host, &standby] {
        repo.git(&["config", "core.sshCommand", hang.to_str().unwrap()]);
    }
    let started = std::time::Instant::now();
    follow_refused(
        &host,
        &remote,
        &["--git-timeout", "1"],
        3,
        "git ls-remote got no answer before its deadline; check the remote and start follow again",
    );
    let before = standby.snapshot();
    let out = adopt_within(&standby, &remote, &["--git-timeout", "1"], WAIT);
    assert_eq!(
        out.fails(3),
        "mosaic-queue: git ls-remote got no answer before its deadline: nothing was adopted; check the remote and run adopt again"
    );
    standby.assert_unchanged(&before);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "bounded: {:?}",
        started.elapsed()
    );
}

#[test]
fn a_remote_that_refuses_pushes() {
    let remote = Remote::ssh("hostile-refuses");
    let (host, standby) = pushed("hostile-refuses", &remote);
    script(&remote.bare.join("hooks/pre-receive"), "exit 1");
    // git names the remote without its user in its own message.
    let user = remote.url["ssh://".len()..].split('@').next().unwrap();
    let anonymous = remote.url.replacen(&format!("{user}@"), "", 1);
    let declined = format!("git push failed: error: failed to push some refs to '{anonymous}'");
    // adopt: exit 1, nothing installed.
    adopt_refused(
        &standby,
        &remote,
        1,
        &format!("{declined}: nothing was adopted; check the remote and run adopt again"),
    );
    // The follower says each refused push on stderr and tries again; the change waiting for
    // it is durable here and not acknowledged.
    let follower = Follower::start(&host, &remote, &[], &[]);
    let out = host.run(
        &[
            "note",
            "1",
            "refused",
            "--op",
            "darkwing-note-3",
            "--by",
            "darkwing",
            "--replication-timeout",
            "2",
        ],
        &[],
    );
    assert_eq!(
        out.fails(3),
        "mosaic-queue: rev 4 durable here, not yet replicated: the follower is behind or not running; retry with the same --op"
    );
    let first = follower.wait_error(|_| true, WAIT);
    assert_eq!(
        first,
        format!("push failed: {declined}; trying again in 1 s")
    );
    assert_eq!(remote.revision_of(&remote.head(LIVE).unwrap()), 3);
}

#[test]
fn of_two_standbys_adopting_at_once_exactly_one_wins() {
    let remote = Remote::ssh("hostile-race");
    let (host, first) = pushed("hostile-race", &remote);
    let second = {
        let base = host.base.join("second");
        std::fs::create_dir_all(&base).unwrap();
        git(&base, &["clone", "-q", host.root.to_str().unwrap(), "repo"]);
        let repo = Repo {
            base: base.clone(),
            root: base.join("repo"),
        };
        remote.configure(&repo.root);
        repo
    };
    // The second's push waits until the first has adopted, so both read the same head.
    let ssh = second.git(&["config", "--get", "core.sshCommand"]);
    let go = second.base.join("go");
    let gate = second.base.join("ssh.sh");
    script(
        &gate,
        &format!(
            "case \"$*\" in *git-receive-pack*) while [ ! -e '{}' ]; do sleep 0.05; done;; esac\nexec {ssh} \"$@\"",
            go.display()
        ),
    );
    second.git(&["config", "core.sshCommand", gate.to_str().unwrap()]);
    let head = remote.head(LIVE).unwrap();
    let before = second.snapshot();
    let racer = support::command(
        &second.root,
        &[
            "adopt",
            "--from",
            &remote.url,
            "--op",
            "sage-adopt-1",
            "--by",
            "sage",
        ],
        &[],
    )
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    let out = adopt_within(&first, &remote, &[], WAIT);
    assert_eq!(
        out.ok(),
        adopt_lines(&host, &first, &remote, "lead-adopt-1", 3, &head)
    );
    std::fs::write(&go, "").unwrap();
    let out = racer.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "");
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!(
            "mosaic-queue: {} {LIVE} moved while adopting (it no longer ends at commit {}): another standby adopted first, or the old host is still pushing; nothing was installed here; look at the ref (`git ls-remote {} {LIVE}`) before adopting again\n",
            remote.url,
            short(&head),
            remote.url
        )
    );
    second.assert_unchanged(&before);
    assert_eq!(remote.revision_of(&remote.head(LIVE).unwrap()), 4);
}
