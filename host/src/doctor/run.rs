//! `doctor [--json]`: what `inspect_checkout` found, one line per finding with the command
//! that cures it, or as a document the report itself (also when it exits 2). Exit 0
//! when nothing needs doing, 2 when something does (or, as for every verb, when there is no
//! checkout around it), 1 when it could not look.

use super::{DoctorError, inspect_checkout};
use crate::reply::{Failure, Replied, Reply};

/// `doctor`, in the checkout around the working directory.
pub fn doctor(reply: &mut dyn Reply) -> Replied {
    let cwd = std::env::current_dir()
        .map_err(|e| Failure::failed(format!("cannot read the working directory: {e}")))?;
    let report = inspect_checkout(&cwd).map_err(|e| match e {
        DoctorError::Checkout(e) => Failure::from(e),
        // The kind a verb gives for a `.git` it cannot list when locating the checkout.
        e @ DoctorError::Unlistable { .. } => Failure::failed(e.to_string()).kind("unlistable"),
    })?;
    if reply.documents() {
        reply.serialized(&report)?;
    } else {
        for f in &report.findings {
            reply.line(&f.line())?;
        }
        if report.healthy {
            let rev = report
                .revision
                .map_or_else(|| "no queue".to_owned(), |r| format!("rev {r}"));
            reply.line(&format!("ok doctor {rev}: nothing needs doing"))?;
        }
    }
    if report.healthy {
        return Ok(());
    }
    let n = report.findings.iter().filter(|f| f.action).count();
    let what = if n == 1 {
        "finding needs"
    } else {
        "findings need"
    };
    Err(Failure::refused(format!(
        "doctor: {n} {what} action; handle them in the order printed"
    )))
}
