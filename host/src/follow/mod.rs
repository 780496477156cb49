//! The follower's face: `follow --to REMOTE [--ref REF]` runs the engine's follower until
//! Ctrl-C or SIGTERM, which end it after the push in flight, and prints what it does as it
//! does it: one line per push on stdout (revision, lag, bytes sent), the pushes it cannot make
//! yet on stderr; with `--json`, each event as one compact JSON object on its own line of
//! stdout (docs/json.md).

use std::io::Write;
use std::os::fd::OwnedFd;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use crate::engine::{self, FollowEvent};
use crate::reply::{Failure, Replied};

/// Runs the follower in the checkout around the working directory.
pub fn serve(to: &str, reference: &str, git_timeout: u32, json: bool) -> Replied {
    let stop = Arc::new(
        rustix::event::eventfd(
            0,
            rustix::event::EventfdFlags::CLOEXEC | rustix::event::EventfdFlags::NONBLOCK,
        )
        .map_err(|e| Failure::failed(format!("cannot start the follower: {e}")))?,
    );
    on_signal(Arc::clone(&stop))?;
    let deadline = Duration::from_secs(u64::from(git_timeout));
    engine::follow(to, reference, deadline, stop, &mut |event| {
        print(&event, json)
    })
}

/// Ctrl-C (SIGINT) or SIGTERM makes `stop` readable; the follower looks at it between pushes.
/// The signals are caught before the follower starts, so one sent at once is not lost.
fn on_signal(stop: Arc<OwnedFd>) -> Result<(), Failure> {
    use tokio::signal::unix::{SignalKind, signal};
    let failed =
        |e: std::io::Error| Failure::failed(format!("cannot watch for Ctrl-C and SIGTERM: {e}"));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .map_err(failed)?;
    let (mut int, mut term) = {
        let _entered = runtime.enter();
        (
            signal(SignalKind::interrupt()).map_err(failed)?,
            signal(SignalKind::terminate()).map_err(failed)?,
        )
    };
    std::thread::Builder::new()
        .name(String::from("follow-signals"))
        .spawn(move || {
            runtime.block_on(async {
                tokio::select! {
                    _ = int.recv() => {}
                    _ = term.recv() => {}
                }
            });
            let _ = rustix::io::write(&*stop, &1u64.to_ne_bytes());
        })
        .map(drop)
        .map_err(failed)
}

/// One event, as a line of text or of JSON.
fn print(event: &FollowEvent, json: bool) -> Replied {
    let (line, on_stdout) = if json {
        (json_line(event), true)
    } else {
        text(event)
    };
    let written = if on_stdout {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{line}").and_then(|()| out.flush())
    } else {
        writeln!(std::io::stderr(), "{line}")
    };
    written.map_err(|e| Failure::failed(format!("cannot write the follower's lines: {e}")))
}

fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

/// The line a person reads, and whether it goes to stdout.
fn text(event: &FollowEvent) -> (String, bool) {
    match event {
        FollowEvent::Following {
            remote,
            reference,
            last: Some((revision, commit)),
        } => (
            format!(
                "following: {remote} {reference} holds rev {revision} (commit {}); each durable revision is pushed there",
                short(commit)
            ),
            true,
        ),
        FollowEvent::Following {
            remote,
            reference,
            last: None,
        } => (
            format!("following: {remote} {reference} does not exist yet; the first push makes it"),
            true,
        ),
        FollowEvent::Pushed {
            revision,
            commit,
            lag,
            bytes,
        } => (
            format!(
                "pushed rev {revision} (commit {}): lag {} ms, {bytes} bytes sent",
                short(commit),
                lag.as_millis()
            ),
            true,
        ),
        FollowEvent::Held { line, pause } => (
            match pause {
                Some(p) => format!("{line}; trying again in {} s", p.as_secs()),
                None => format!("{line}; the next durable write tries again"),
            },
            false,
        ),
    }
}

/// The event as one compact JSON object.
fn json_line(event: &FollowEvent) -> String {
    let value = match event {
        FollowEvent::Following {
            remote,
            reference,
            last,
        } => json!({
            "event": "following",
            "remote": remote,
            "ref": reference,
            "revision": last.as_ref().map(|l| l.0),
            "commit": last.as_ref().map(|l| l.1.clone()),
        }),
        FollowEvent::Pushed {
            revision,
            commit,
            lag,
            bytes,
        } => json!({
            "event": "pushed",
            "revision": revision,
            "commit": commit,
            "lagMs": u64::try_from(lag.as_millis()).unwrap_or(u64::MAX),
            "bytes": bytes,
        }),
        FollowEvent::Held { line, pause } => json!({
            "event": "held",
            "message": line,
            "retryInSeconds": pause.map(|p| p.as_secs()),
        }),
    };
    value.to_string()
}
