//! `doctor [--json]`: prints what `crate::doctor` found, one line per finding with the command
//! that cures it, or with `--json` the report as one document (also when it exits 2). Exit 0
//! when nothing needs doing, 2 when something does (or, as for every verb, when there is no
//! checkout around it), 1 when it could not look.

use super::{CliResult, Failure};
use crate::doctor;

/// `doctor [--json]`.
pub fn doctor() -> CliResult {
    let cwd = std::env::current_dir()
        .map_err(|e| Failure::failed(format!("cannot read the working directory: {e}")))?;
    let report = doctor::inspect_checkout(&cwd).map_err(|e| match e {
        doctor::DoctorError::Checkout(e) => Failure::from(e),
        e @ doctor::DoctorError::Unlistable { .. } => Failure::failed(e.to_string()),
    })?;
    if super::output::json() {
        super::output::document(&report)?;
    } else {
        for f in &report.findings {
            crate::say!("{}", f.line());
        }
        if report.healthy {
            let rev = report
                .revision
                .map_or_else(|| "no queue".to_owned(), |r| format!("rev {r}"));
            crate::say!("ok doctor {rev}: nothing needs doing");
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
