//! Review requests with bad credentials: every token-file refusal and every unset Gitea
//! variable fails the attempt before any connection; the failure is logged, the token never
//! printed, and the seat's own file then posts.

use std::os::unix::fs::PermissionsExt;

use support::review::{OP, attempt_json, failed_line, printed, ready, to_review, token};

#[test]
fn every_credential_refusal_fails_the_attempt_with_no_connection() {
    let (r, candidate) = ready("creds");
    let base = r.repo.base.clone();
    let own = r.token_file("darkwing");
    let suffix = "/agents/darkwing/secrets/gitea-mosaicstack-darkwing.token";
    let put = |path: &std::path::Path, mode: u32| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, format!("{}\n", token("darkwing"))).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    let loose = base.join("token.txt");
    put(&loose, 0o600);
    let shared = base.join("home/secrets/mosaic.gitea.json");
    put(&shared, 0o600);
    let linked = base.join(format!("linked{suffix}"));
    std::fs::create_dir_all(linked.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&own, &linked).unwrap();
    let open = base.join(format!("open{suffix}"));
    put(&open, 0o644);
    let missing = base.join(format!("missing{suffix}"));
    let theirs = r.token_file("flicker");
    let show = |p: &std::path::Path| p.display().to_string();

    // (variable to set or unset, its value, the message)
    let cases: Vec<(&str, String, String)> = vec![
        (
            "MOSAIC_GITEA_CREDENTIAL_FILE",
            show(&loose),
            format!(
                "{} is not darkwing's token file; MOSAIC_GITEA_CREDENTIAL_FILE must end in {suffix}",
                show(&loose)
            ),
        ),
        (
            "MOSAIC_GITEA_CREDENTIAL_FILE",
            show(&theirs),
            format!(
                "{} is not darkwing's token file; MOSAIC_GITEA_CREDENTIAL_FILE must end in {suffix}",
                show(&theirs)
            ),
        ),
        (
            "MOSAIC_GITEA_CREDENTIAL_FILE",
            show(&linked),
            format!(
                "{} is a symlink; point MOSAIC_GITEA_CREDENTIAL_FILE at the token file itself",
                show(&linked)
            ),
        ),
        (
            "MOSAIC_GITEA_CREDENTIAL_FILE",
            show(&open),
            format!(
                "{} has mode 0644; it must be 0600 (chmod 600 {})",
                show(&open),
                show(&open)
            ),
        ),
        (
            "MOSAIC_GITEA_CREDENTIAL_FILE",
            show(&shared),
            format!(
                "{} is the shared Gitea credential; set MOSAIC_GITEA_CREDENTIAL_FILE to your own agents/<login>/secrets/gitea-mosaicstack-<login>.token",
                show(&shared)
            ),
        ),
        (
            "MOSAIC_GITEA_CREDENTIAL_FILE",
            show(&missing),
            format!(
                "{} does not exist; create the token file or fix MOSAIC_GITEA_CREDENTIAL_FILE",
                show(&missing)
            ),
        ),
        (
            "MOSAIC_GITEA_CREDENTIAL_FILE",
            String::new(),
            "MOSAIC_GITEA_CREDENTIAL_FILE is not set; set MOSAIC_GITEA_CREDENTIAL_FILE (the seat's own token file)".into(),
        ),
        (
            "MOSAIC_GITEA_URL",
            String::new(),
            "MOSAIC_GITEA_URL is not set; set MOSAIC_GITEA_URL (the Gitea base URL)".into(),
        ),
        (
            "MOSAIC_GITEA_REPO",
            String::new(),
            "MOSAIC_GITEA_REPO is not set; set MOSAIC_GITEA_REPO (owner/name of the repository)"
                .into(),
        ),
        (
            "MOSAIC_GITEA_URL",
            "ftp://127.0.0.1".into(),
            "MOSAIC_GITEA_URL is not an http:// or https:// URL; set it to the instance's base URL, e.g. https://git.example.org".into(),
        ),
        // A password in the URL is named as the problem and never echoed.
        (
            "MOSAIC_GITEA_URL",
            "http://darkwing:s3cret-pass@127.0.0.1".into(),
            "MOSAIC_GITEA_URL contains credentials (a user or password before `@`); remove them (the token comes from MOSAIC_GITEA_CREDENTIAL_FILE); set it to the instance's base URL, e.g. https://git.example.org".into(),
        ),
        (
            "MOSAIC_GITEA_REPO",
            "stack".into(),
            "MOSAIC_GITEA_REPO \"stack\" is not owner/name; set it to e.g. mosaic/mosaicstack".into(),
        ),
    ];
    for (n, (var, value, message)) in cases.iter().enumerate() {
        let rev = 4 + 2 * n as u64;
        let op = format!("darkwing-1-request-{n}");
        let (out, first) = if n == 0 {
            let out = r.run_with(&to_review(&candidate), &op, "darkwing", &[(var, value)]);
            let first =
                format!("ok {op} rev {rev} move 1 in-progress -> in-review round 1 request on #12");
            (out, first)
        } else {
            let out = r.run_with(
                &["review", "request", "1"],
                &op,
                "darkwing",
                &[(var, value)],
            );
            let first = format!(
                "ok {op} rev {rev} review request 1 round 1 attempt {} on #12",
                n + 1
            );
            (out, first)
        };
        let second = format!(
            "ok {op}.outcome rev {} review 1 round 1 {op} failed",
            rev + 1
        );
        let line = printed(&out, 1, &[&first, &second]);
        assert_eq!(line, failed_line(message), "{var}={value}");
        let detail = if var == &"MOSAIC_GITEA_CREDENTIAL_FILE" && !value.is_empty() {
            "credentials-refused"
        } else {
            "config-invalid"
        };
        assert_eq!(
            r.attempt(1, 1, n + 1),
            attempt_json(&op, "darkwing", "failed", None, Some(detail), None),
            "{var}={value}"
        );
        assert_eq!(r.fake.connections(), 0, "{var}={value}");
        for text in [
            &out.stdout,
            &out.stderr,
            &r.repo.read("docs/plans/queue.json"),
        ] {
            assert!(!text.contains("s3cret"), "{var}={value}: {text}");
        }
    }
    // The seat's own file still posts: the refusals were about the files, not the seat.
    let op = "darkwing-1-request-ok";
    let out = r.run(&["review", "request", "1"], op, "darkwing");
    let (rev, attempt) = (4 + 2 * cases.len(), cases.len() + 1);
    printed(
        &out,
        0,
        &[
            &format!("ok {op} rev {rev} review request 1 round 1 attempt {attempt} on #12"),
            &format!(
                "ok {op}.outcome rev {} review 1 round 1 {op} posted http 201 comment 4001",
                rev + 1
            ),
        ],
    );
    assert_eq!(r.fake.posts(), 1);
}

#[test]
fn a_resolve_with_a_refused_token_file_fails_with_no_connection_and_writes_nothing() {
    let (r, head) = ready("creds-resolve");
    let out = r.run_with(
        &to_review(&head),
        OP,
        "darkwing",
        &[("MOSAIC_KILL_AT", "request-posted")],
    );
    assert_eq!(out.signal, Some(9));
    let connections = r.fake.connections();
    let open = r.token_file("darkwing");
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o640)).unwrap();
    let before = r.repo.snapshot();
    let out = r.run(
        &["review", "resolve", "1", OP, "--comment", "4001"],
        "darkwing-1-resolve",
        "darkwing",
    );
    assert_eq!(
        out.fails(1),
        format!(
            "mosaic-queue: cannot fetch comment 4001: {} has mode 0640; it must be 0600 (chmod 600 {})",
            open.display(),
            open.display()
        )
    );
    r.repo.assert_unchanged(&before);
    assert_eq!(r.fake.connections(), connections);
    assert_eq!(r.attempt(1, 1, 1)["state"], "requesting");
}
